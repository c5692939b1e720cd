// Fitting text into columns, shared by the text report and the TUI (and the durations every view writes alike): prose wrapped at words, lines cut in the middle
// (the end of a log line — `err=…` — says most), names shortened so that look-alikes stay apart. Widths count UTF-16
// units: text reaching here is sanitised log text and tool prose.

/** Words of `text` wrapped to `width` (the first line to `first` columns), at most `max` lines (the last one then
 *  ends with …). A word longer than the width is cut into pieces. Newlines in `text` start new paragraphs. */
export function wrapWords(text: string, width: number, max = Infinity, first = width): string[] {
  const out: string[] = [];
  const rest = Math.max(8, width);
  const widthOf = (): number => (out.length === 0 ? Math.max(8, first) : rest);
  for (const para of text.split('\n')) {
    let line = '';
    for (const word of para.split(/\s+/).filter(Boolean)) {
      let w = word;
      // A word no line can hold goes in pieces, each on a line of its own.
      while (w.length > widthOf()) {
        if (line) {
          out.push(line);
          line = '';
        }
        const cap = widthOf();
        out.push(w.slice(0, cap));
        w = w.slice(cap);
      }
      if (!line) line = w;
      else if (line.length + 1 + w.length <= widthOf()) line += ' ' + w;
      else {
        out.push(line);
        line = w;
      }
    }
    if (line) out.push(line);
  }
  if (out.length > max) {
    const cut = out.slice(0, Math.max(1, max));
    const last = cut[cut.length - 1] as string;
    cut[cut.length - 1] = (last.length >= rest ? last.slice(0, rest - 1) : last).trimEnd() + '…';
    return cut;
  }
  return out;
}

/** `text` wrapped to `width` with `first` before the first line and `indent` spaces before the others. */
export function wrapHanging(first: string, text: string, width: number, indent = first.length): string[] {
  const lines = wrapWords(text, width - indent, Infinity, width - first.length);
  return lines.map((l, i) => (i === 0 ? first : ' '.repeat(indent)) + l);
}

/** `s` in at most `w` columns, cut in the middle: its head, `…`, and its end (which gets the larger share). */
export function cutMiddle(s: string, w: number, headShare = 0.4): string {
  if (s.length <= w) return s;
  if (w <= 1) return w === 1 ? '…' : '';
  const head = Math.floor((w - 1) * headShare);
  return s.slice(0, head) + '…' + s.slice(s.length - (w - 1 - head));
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function commonSuffix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i)) i++;
  return i;
}

/**
 * Each name in at most `w` columns, cut in the middle where it must be, so that names differing in a few characters
 * (`ip-172-20-31-10.eu-west-1.compute.internal`, `ip-172-20-31-11.…`) stay apart: the part that tells a name from
 * the others is kept — its start, its end, or a window around where it differs.
 */
export function shortNames(names: readonly string[], w: number): string[] {
  const others = [...new Set(names)];
  return names.map((n) => {
    if (n.length <= w) return n;
    if (w < 5) return cutMiddle(n, w);
    let p = 0;
    let q = 0;
    for (const o of others) {
      if (o === n) continue;
      p = Math.max(p, commonPrefix(n, o));
      q = Math.max(q, commonSuffix(n, o));
    }
    // Characters needed from the start (end) to tell this name apart.
    const head = Math.min(n.length, p + 1);
    const tail = Math.min(n.length, q + 1);
    const half = Math.ceil((w - 1) / 2);
    if (head <= w - 2) {
      const h = Math.max(head, w - 1 - Math.max(1, Math.min(half, w - 1 - head)));
      return n.slice(0, h) + '…' + n.slice(n.length - (w - 1 - h));
    }
    if (tail <= w - 2) {
      const t = Math.max(tail, w - 1 - Math.max(1, Math.min(half, w - 1 - tail)));
      return n.slice(0, w - 1 - t) + '…' + n.slice(n.length - t);
    }
    // The difference lies deep inside: a little of the start, then the characters up to and including it.
    const lead = Math.max(1, Math.floor((w - 2) / 3));
    const win = w - 2 - lead;
    const end = Math.min(n.length - 1, head);
    return n.slice(0, lead) + '…' + n.slice(end - win, end) + '…';
  });
}

export function fmtDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m${String(r).padStart(2, '0')}s` : `${m}m${String(r).padStart(2, '0')}s`;
}

export function fmtSeconds(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—';
  if (x < 0.001) return `${(x * 1e6).toFixed(0)}µs`;
  if (x < 1) return `${(x * 1000).toFixed(x < 0.01 ? 2 : 0)}ms`;
  return `${x < 10 ? x.toFixed(2) : x.toFixed(1)}s`;
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function lpad(s: string, n: number): string {
  return s.length >= n ? s : ' '.repeat(n - s.length) + s;
}

/** A table whose columns are as wide as their widest cell, two spaces apart (`right`: right-aligned columns). */
export function textTable(head: string[], rows: string[][], right: boolean[] = []): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]): string => r.map((x, i) => (right[i] ? lpad(x, widths[i] as number) : pad(x, widths[i] as number))).join('  ').trimEnd();
  return [line(head), ...rows.map(line)];
}
