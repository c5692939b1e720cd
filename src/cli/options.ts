// Option values shared by `analyze` and `tui`: checked before anything is read, each mistake one line (exit 2).
import { resolveZone } from '../parse/time.js';

export class UsageError extends Error {}

export function parseYear(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1970 || n > 2200) throw new UsageError(`--year: "${v}" is not a year`);
  return n;
}

/** `--tz`: an IANA name, UTC, or a UTC offset that exists on Earth (−12:00 … +14:00, minutes 00–59). */
export function checkZone(v: string): void {
  const fixed = /^[+-](\d{2}):?(\d{2})$/.exec(v);
  if (fixed && (Number(fixed[1]) > 14 || Number(fixed[2]) > 59)) {
    throw new UsageError(`--tz: "${v}" is not a UTC offset (hours 00 to 14, minutes 00 to 59)`);
  }
  try {
    resolveZone(v);
  } catch {
    throw new UsageError(`--tz: unknown time zone "${v}" (use an IANA name like Europe/Berlin, or +02:00, or UTC)`);
  }
}
