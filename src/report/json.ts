// `--format json`: the Analysis as is (design.md §6). Log text stays as read — it is data — but what a terminal would
// act on even inside a JSON string (DEL, the C1 controls such as CSI U+009B, bidi overrides and isolates, the line and
// paragraph separators) is written as a \uXXXX escape: the same JSON value, inert when the report goes to a terminal
// (`--format json` without `-o`). JSON.stringify escapes C0 already; these can only occur inside strings.
import type { Analysis } from '../contract/analysis.js';

const UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function renderJson(analysis: Analysis): string {
  return JSON.stringify(analysis, null, 2).replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) + '\n';
}
