// Small display helpers: times in the chosen zone, fixed-width cells, sizes. Durations and seconds come from the text
// report so every view writes them the same way.
import { DateTime } from 'luxon';
import { fmtDuration, fmtSeconds } from '../report/text.js';
import { sanitize } from '../util/sanitize.js';

export { fmtDuration, fmtSeconds };

export type TimeStyle = 'full' | 'short' | 'clock' | 'precise';

const FORMATS: Record<TimeStyle, string> = {
  full: 'yyyy-MM-dd HH:mm:ss ZZ',
  short: 'MM-dd HH:mm:ss',
  clock: 'HH:mm:ss',
  precise: 'HH:mm:ss.SSS',
};

export function fmtTime(ms: number | null | undefined, zone: string, style: TimeStyle = 'short'): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  const d = DateTime.fromMillis(ms, { zone });
  return d.isValid ? d.toFormat(FORMATS[style]) : new Date(ms).toISOString();
}

export function parseIsoMs(s: string | null | undefined): number | null {
  if (!s) return null;
  const t = Date.parse(s);
  return Number.isFinite(t) ? t : null;
}

/** `s` cut or padded to exactly `w` columns (by UTF-16 units; log text is sanitised before it gets here). */
export function fit(s: string, w: number): string {
  if (w <= 0) return '';
  if (s.length > w) return w === 1 ? '…' : s.slice(0, w - 1) + '…';
  return s + ' '.repeat(w - s.length);
}

export function fitLeft(s: string, w: number): string {
  if (w <= 0) return '';
  if (s.length > w) return s.slice(0, w);
  return ' '.repeat(w - s.length) + s;
}

export function fmtBytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '?';
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(0)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

export function fmtCount(n: number): string {
  if (n < 10_000) return String(n);
  if (n < 10_000_000) return `${(n / 1000).toFixed(0)}k`;
  return `${(n / 1e6).toFixed(1)}M`;
}

export function fmtPct(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—';
  return `${Math.round(x * 100)}%`;
}

/** Words of `text` wrapped to `width`, at most `max` lines (the last one ends with … when cut). */
export function wrap(text: string, width: number, max = Infinity): string[] {
  const out: string[] = [];
  const w = Math.max(8, width);
  for (const para of text.split('\n')) {
    let line = '';
    for (const word of para.split(/\s+/).filter(Boolean)) {
      let rest = word;
      while (rest.length > w) {
        if (line) {
          out.push(line);
          line = '';
        }
        out.push(rest.slice(0, w));
        rest = rest.slice(w);
      }
      if (!line) line = rest;
      else if (line.length + 1 + rest.length <= w) line += ' ' + rest;
      else {
        out.push(line);
        line = rest;
      }
    }
    if (line) out.push(line);
  }
  if (out.length > max) {
    const cut = out.slice(0, max);
    cut[max - 1] = fit(cut[max - 1] as string, w - 1).trimEnd() + '…';
    return cut;
  }
  return out;
}

/** Log text for one screen line: sanitised (escape sequences, \r, bidi controls made inert), tabs as spaces. */
export function inline(text: string): string {
  return sanitize(text).replace(/\t/g, ' ');
}
