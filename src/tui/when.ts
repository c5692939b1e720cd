// What the user types after `t` (jump to a time) → epoch ms. Times without a date take the date of the focused
// line; times without a zone are read in the display zone.
import { DateTime } from 'luxon';

export type When = { ok: true; ms: number } | { ok: false; error: string };

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The fields as given, or null when one is out of range (luxon would roll 25:00 over into the next day). */
function inRange(o: { month?: number; day?: number; hour: number; minute: number; second: number }, year: number): boolean {
  if (o.hour > 23 || o.minute > 59 || o.second > 59) return false;
  if (o.month === undefined) return true;
  if (o.month < 1 || o.month > 12 || (o.day ?? 0) < 1) return false;
  const days = DateTime.fromObject({ year, month: o.month }).daysInMonth ?? 31;
  return (o.day ?? 1) <= days;
}

export function parseWhen(input: string, ref: number | null, zone: string, bounds?: { start: number | null; end: number | null }): When {
  const s = input.trim();
  if (!s) return { ok: false, error: 'type a time: 10:03, 10:03:30, 03-11 10:03, 2024-03-11T10:03:00Z, +5m, -90s, start, end' };
  if (s === 'start' || s === 'end') {
    const v = s === 'start' ? bounds?.start : bounds?.end;
    return v !== null && v !== undefined ? { ok: true, ms: v } : { ok: false, error: `the log has no known ${s}` };
  }
  const rel = /^([+-])((?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+)$/.exec(s);
  if (rel) {
    if (ref === null) return { ok: false, error: 'no focused line to move from' };
    let total = 0;
    for (const m of (rel[2] as string).matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) total += Number(m[1]) * (UNITS[m[2] as string] as number);
    return { ok: true, ms: ref + (rel[1] === '-' ? -total : total) };
  }
  const clock = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/.exec(s);
  if (clock) {
    const base = DateTime.fromMillis(ref ?? bounds?.start ?? Date.now(), { zone });
    const f = { hour: Number(clock[1]), minute: Number(clock[2]), second: Number(clock[3] ?? 0) };
    if (!inRange(f, base.year)) return { ok: false, error: `"${s}" is not a time of day (00:00 to 23:59:59)` };
    const d = base.set({ ...f, millisecond: Number((clock[4] ?? '0').padEnd(3, '0')) });
    return d.isValid ? { ok: true, ms: d.toMillis() } : { ok: false, error: `"${s}" is not a time of day` };
  }
  const md = /^(\d{1,2})-(\d{1,2})[ T](\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(s);
  if (md) {
    const base = DateTime.fromMillis(ref ?? bounds?.start ?? Date.now(), { zone });
    const f = { month: Number(md[1]), day: Number(md[2]), hour: Number(md[3]), minute: Number(md[4]), second: Number(md[5] ?? 0) };
    if (!inRange(f, base.year)) return { ok: false, error: `"${s}" is not a date and time (MM-DD hh:mm[:ss])` };
    const d = base.set({ ...f, millisecond: 0 });
    return d.isValid ? { ok: true, ms: d.toMillis() } : { ok: false, error: `"${s}" is not a date and time` };
  }
  const iso = DateTime.fromISO(s.replace(' ', 'T'), { zone, setZone: false });
  if (iso.isValid) return { ok: true, ms: iso.toMillis() };
  return { ok: false, error: `cannot read "${s}" as a time (try 10:03, 03-11 10:03, 2024-03-11T10:03:00Z, +5m)` };
}
