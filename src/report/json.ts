// `--format json`: the Analysis as is (design.md §6). Log text stays as read: JSON is data, escaping is JSON's own.
import type { Analysis } from '../contract/analysis.js';

export function renderJson(analysis: Analysis): string {
  return JSON.stringify(analysis, null, 2) + '\n';
}
