// What the TUI shows of a log's own text: as read, or through the report's redactor (`tui --redact`: the same
// pseudonyms the analysis got, set once before the App starts). Searches still run on the lines as read.
let shown: (s: string) => string = (s) => s;

export function showText(s: string): string {
  return shown(s);
}

export function setShowText(f: (s: string) => string): void {
  shown = f;
}
