// Times as plegscope believes them, and their ISO form without a throw. An input may carry any number where a time
// belongs (a journal's `__REALTIME_TIMESTAMP` of 9e21 µs, a metrics sample stamped 9e15 ms, a query point at 1e13 s,
// "pleg was last seen active 99999999999h ago"); `new Date(x).toISOString()` throws "Invalid time value" past
// ±8.64e15 ms and such a time would only mislead below that. Readers drop (or leave undated) what is not plausible,
// with a warning naming the file and line; isoTime() is total for what is left.
// Example: plausibleMs(Date.UTC(2024, 2, 11)) → true; plausibleMs(9e15) → false; isoTime(9e15) → 'invalid time 9000000000000000'.

/** The earliest time read as one: the epoch (a log or a scrape before it is a damaged number). */
export const PLAUSIBLE_MIN_MS = 0;
/** The latest: 2200-01-01T00:00:00Z. */
export const PLAUSIBLE_MAX_MS = 7_258_118_400_000;

/** Whether `ms` (epoch ms) is a time an input may mean: finite and between 1970 and 2200. */
export function plausibleMs(ms: number): boolean {
  return ms >= PLAUSIBLE_MIN_MS && ms < PLAUSIBLE_MAX_MS;
}

/** `new Date(ms).toISOString()` that never throws: a time outside Date's range is said as the number it is. */
export function isoTime(ms: number): string {
  const d = new Date(Math.round(ms));
  return Number.isNaN(d.getTime()) ? `invalid time ${String(ms)}` : d.toISOString();
}

/** Longest Go duration, in s (an int64 of ns): what the kubelet prints for its zero relist time (the sentinel). */
const MAX_GO_DURATION_S = 9_223_372_036.854_776;

/** Whether a relist age is one the kubelet could have printed: a Go duration that puts the relist after 1970. */
export function possibleAge(ageSeconds: number | null, ts: number): boolean {
  if (ageSeconds === null) return true;
  if (!(ageSeconds >= 0 && ageSeconds <= MAX_GO_DURATION_S + 1)) return false;
  return Number.isNaN(ts) || ts - ageSeconds * 1000 >= PLAUSIBLE_MIN_MS || ageSeconds >= MAX_GO_DURATION_S - 1;
}
