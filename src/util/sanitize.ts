// Log text is hostile input: nothing read from a log reaches a terminal, Markdown or HTML with its control sequences
// intact (design.md §8). strip-ansi removes CSI/OSC/DCS sequences; what it leaves (\r, \b, BEL, a bare ESC, NUL, other
// C0/C1 controls) and the bidi overrides that can reorder what a reader sees are made visible as escapes.
import stripAnsi from 'strip-ansi';

// C0 except TAB, DEL, C1, the bidi embedding/override/isolate controls and marks, and the line/paragraph separators.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u2028\u2029]/g;

function visible(c: string): string {
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Makes one line of log text inert for display. */
export function sanitize(text: string): string {
  return stripAnsi(text).replace(CONTROLS, visible);
}

/** Sanitised and cut to `max` characters (with an ellipsis). */
export function sanitizeLine(text: string, max = 400): string {
  const s = sanitize(text);
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}
