// Small display helpers: times in the chosen zone, fixed-width cells, sizes. Durations and seconds come from the text
// report so every view writes them the same way.
import { DateTime } from 'luxon';
import { sanitize } from '../util/sanitize.js';
import { fmtDuration, fmtSeconds, wrapWords } from '../report/layout.js';
import { isoTime } from '../util/instant.js';

export { fmtDuration, fmtSeconds };
export const wrap = wrapWords;

export type TimeStyle = 'full' | 'short' | 'clock' | 'precise' | 'datedPrecise' | 'day';

const FORMATS: Record<TimeStyle, string> = {
  full: 'yyyy-MM-dd HH:mm:ss ZZ',
  short: 'MM-dd HH:mm:ss',
  clock: 'HH:mm:ss',
  precise: 'HH:mm:ss.SSS',
  datedPrecise: 'MM-dd HH:mm:ss.SSS',
  day: 'MM-dd',
};

/** Whether all these times fall on one calendar day of `zone` (then a clock is enough to tell them apart). */
export function oneDay(times: ReadonlyArray<number | null | undefined>, zone: string): boolean {
  let day: string | null = null;
  for (const t of times) {
    if (t === null || t === undefined || !Number.isFinite(t)) continue;
    const d = fmtTime(t, zone, 'day');
    if (day === null) day = d;
    else if (d !== day) return false;
  }
  return true;
}

export function fmtTime(ms: number | null | undefined, zone: string, style: TimeStyle = 'short'): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  const d = DateTime.fromMillis(ms, { zone });
  return d.isValid ? d.toFormat(FORMATS[style]) : isoTime(ms);
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

/** Log text for one screen line: sanitised (escape sequences, \r, bidi controls made inert), tabs as spaces. */
export function inline(text: string): string {
  return sanitize(text).replace(/\t/g, ' ');
}
