// Timestamps on the hot path are parsed by hand from fixed layouts (design.md §8): no per-line Date or luxon object.
// Journal `short` lines and klog headers carry neither year nor zone; a YearClock supplies both.
import { lazyRequire } from '../util/lazy-require.js';

// luxon (for IANA zones) loads only when one is named: most runs read UTC.
const luxon = lazyRequire<typeof import('luxon')>('luxon');

/** What the clocks need of a time zone: its offset from UTC (minutes) at an instant. luxon's zones have this shape. */
export interface Zone {
  readonly name: string;
  /** The offset never changes. */
  readonly isUniversal: boolean;
  offset(ts: number): number;
}

/** UTC or a fixed offset (`+02:00`): no luxon needed. */
class FixedZone implements Zone {
  readonly isUniversal = true;
  constructor(readonly name: string, private readonly minutes: number) {}
  offset(): number {
    return this.minutes;
  }
}
const UTC_ZONE = new FixedZone('UTC', 0);

const MONTHS: Record<string, number> = {
  Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11,
};

export function monthIndex(abbr: string): number {
  const m = MONTHS[abbr];
  return m === undefined ? -1 : m;
}

function d2(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  if (a < 0 || a > 9 || b < 0 || b > 9) return NaN;
  return a * 10 + b;
}

/** d2() on bytes (a line not decoded: signals/templates.ts), -1 for NaN: a small integer either way, which V8 passes
 *  on without making a heap number of it. */
function d2At(b: Uint8Array, i: number): number {
  const x = (b[i] as number) - 48;
  const y = (b[i + 1] as number) - 48;
  if (!(x >= 0 && x <= 9 && y >= 0 && y <= 9)) return -1;
  return x * 10 + y;
}

/** A month's three letters as one number, for monthAt(). */
const MONTH_CODES = new Map(Object.entries(MONTHS).map(([k, v]) => [(k.charCodeAt(0) << 16) | (k.charCodeAt(1) << 8) | k.charCodeAt(2), v]));

/** monthIndex() of the three bytes at `i`. */
function monthAt(b: Uint8Array, i: number): number {
  return MONTH_CODES.get(((b[i] as number) << 16) | ((b[i + 1] as number) << 8) | (b[i + 2] as number)) ?? -1;
}

function digits(s: string, from: number, to: number): number {
  let v = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return NaN;
    v = v * 10 + c;
  }
  return v;
}

/** The tz database's names of UTC itself (its `backward` links to Etc/UTC and Etc/GMT). */
const UTC_NAMES = new Set(['utc', 'z', 'gmt', 'etc/utc', 'etc/uct', 'etc/universal', 'etc/zulu', 'uct', 'universal', 'zulu', 'etc/gmt', 'etc/gmt0', 'etc/gmt+0', 'etc/gmt-0', 'gmt0', 'gmt+0', 'gmt-0', 'etc/greenwich', 'greenwich', '+00:00', '-00:00', '+0000']);

/** Whether two zone names give every wall-clock time the same instant (the same name, or both UTC). */
export function sameZone(a: string, b: string): boolean {
  return a === b || (UTC_NAMES.has(a.toLowerCase()) && UTC_NAMES.has(b.toLowerCase()));
}

/** Resolves a zone name (`UTC`, `Europe/Berlin`, `+02:00`) once; throws on an unknown zone. */
export function resolveZone(name: string): Zone {
  if (/^(utc|z|gmt)$/i.test(name)) return UTC_ZONE;
  const fixed = /^([+-])(\d{2}):?(\d{2})$/.exec(name);
  if (fixed) {
    const mins = (Number(fixed[2]) * 60 + Number(fixed[3])) * (fixed[1] === '-' ? -1 : 1);
    return mins === 0 ? UTC_ZONE : new FixedZone(name, mins);
  }
  const z = luxon().IANAZone.create(name);
  if (!z.isValid) throw new Error(`unknown time zone "${name}"`);
  return z;
}

/**
 * `Date.UTC(year, month, day, h, m, s, ms)` (month 0-based) in arithmetic alone: Date.UTC's result comes back as a heap
 * number, one to collect for every line of a dense log read (two with its klog header); this stays in the caller when
 * V8 inlines it. Days, hours, minutes and seconds past their range carry over as Date.UTC's do; a year below 100 (which
 * Date.UTC reads as 19xx) and a month out of 0–11 are left to Date.UTC.
 */
export function utcMs(year: number, month: number, day: number, h: number, m: number, s: number, ms: number): number {
  if (!(year >= 100 && month >= 0 && month <= 11)) return Date.UTC(year, month, day, h, m, s, ms);
  const t = daysFromCivil(year, month, day) * 86400000 + h * 3600000 + m * 60000 + s * 1000 + Math.trunc(ms);
  // Date.UTC's TimeClip.
  return Math.abs(t) <= 8.64e15 ? t : NaN;
}

/** Days from 1970-01-01 to `day` (1-based, past the month's end carrying over) of `month` (0–11) of `year` (H. Hinnant's
 *  days_from_civil, years from March): a small integer, no heap number. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month < 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * ((month + 10) % 12) + 2) / 5);
  return era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468 + day - 1;
}

/**
 * Converts zone-less wall-clock times to epoch ms. Offsets are cached per wall-clock hour, so a zone with DST costs one
 * luxon lookup per hour of log, not per line.
 */
export class WallClock {
  private readonly cache = new Map<number, number>();
  private readonly fixedOffsetMs: number | null;

  constructor(readonly zone: Zone) {
    this.fixedOffsetMs = zone.isUniversal ? zone.offset(0) * 60000 : null;
  }

  /** Wall-clock fields (month 0-based) in this zone → epoch ms. */
  toEpoch(year: number, month: number, day: number, h: number, m: number, s: number, ms: number): number {
    const asUtc = utcMs(year, month, day, h, m, s, ms);
    return asUtc - this.offsetMs(Math.floor(asUtc / 3600000));
  }

  /** The zone's offset (ms) for the wall-clock hour `hourKey` (hours since 1970 on the wall clock), cached. */
  offsetMs(hourKey: number): number {
    if (this.fixedOffsetMs !== null) return this.fixedOffsetMs;
    let off = this.cache.get(hourKey);
    if (off === undefined) {
      // The offset at (wall time − guessed offset) is right except inside a DST gap/overlap, where either is defensible.
      const asUtc = hourKey * 3600000;
      const guess = this.zone.offset(asUtc) * 60000;
      off = this.zone.offset(asUtc - guess) * 60000;
      this.cache.set(hourKey, off);
    }
    return off;
  }
}

/**
 * Supplies the year for year-less timestamps of one file, walking forward through the log: when the month goes back
 * (Dec → Jan) the year advances. The first year comes from an anchor: `--year`, a `-- Logs begin at …` header, or a
 * time known to be after the log (collection time, file mtime).
 */
export class YearClock {
  private year: number;
  private lastMonth = -1;
  private fixed: boolean;

  constructor(private readonly clock: WallClock, anchor: { year?: number; notAfterMs?: number | null }) {
    if (anchor.year !== undefined) {
      this.year = anchor.year;
      this.fixed = true;
    } else {
      this.year = new Date(anchor.notAfterMs ?? Date.now()).getUTCFullYear();
      this.fixed = false;
      this.notAfterMs = anchor.notAfterMs ?? Date.now();
    }
  }

  private notAfterMs = 0;

  /** Where the walk stands: lets a segment of a file continue from where the previous one left off. */
  state(): { year: number; lastMonth: number } {
    return { year: this.year, lastMonth: this.lastMonth };
  }

  /** Continues from a known state (a later segment of the same file). */
  resume(state: { year: number; lastMonth: number }): void {
    this.year = state.year;
    this.lastMonth = state.lastMonth;
    this.fixed = true;
  }

  /** A header with a full date (year) seen: it wins over a weak anchor. */
  setYear(year: number, month: number): void {
    this.year = year;
    this.lastMonth = month;
    this.fixed = true;
  }

  get currentYear(): number {
    return this.year;
  }

  /** The last dated line's time (NaN before the first): the day of a later time-only line. */
  private lastTs = NaN;

  noteTime(ts: number): void {
    this.lastTs = ts;
  }

  /**
   * A time of day (ms since midnight, wall clock) placed on the day of the last dated line: the same day, or the next
   * one when the time went back by more than 12 h (midnight passed). NaN when no dated line came before.
   */
  onDayOf(timeOfDayMs: number): number {
    const last = this.lastTs;
    if (Number.isNaN(last)) return NaN;
    const off = this.clock.zone.offset(last) * 60000;
    const wall = last + off;
    let t = wall - (((wall % 86400000) + 86400000) % 86400000) + timeOfDayMs - off;
    if (t < last - 43200000) t += 86400000;
    return t;
  }

  yearFor(month: number, day: number): number {
    if (this.lastMonth === -1) {
      if (!this.fixed) {
        // First line: the latest year that does not put it after the anchor (a log read in Jan may start in Nov).
        const t = Date.UTC(this.year, month, day);
        if (t > this.notAfterMs + 2 * 86400000) this.year -= 1;
      }
    } else if (month < this.lastMonth && this.lastMonth - month >= 6) {
      this.year += 1;
    } else if (month > this.lastMonth && month - this.lastMonth >= 6) {
      // Lines slightly out of order across New Year (merged files): step back rather than jump a year ahead.
      this.year -= 1;
    }
    this.lastMonth = month;
    return this.year;
  }

  /** `Mon DD HH:MM:SS[.ffffff]` starting at `i` → epoch ms, or NaN. Returns the end index through `out`. */
  parseShort(s: string, i: number): number {
    const mon = monthIndex(s.slice(i, i + 3));
    if (mon < 0 || s.charCodeAt(i + 3) !== 32) return NaN;
    // Day is space-padded in syslog ("Mar  1") and zero-padded in journalctl ("Mar 01").
    const dayStr = s.charCodeAt(i + 4) === 32 ? '0' + s[i + 5] : s.slice(i + 4, i + 6);
    const day = d2(dayStr, 0);
    const h = d2(s, i + 7);
    const mi = d2(s, i + 10);
    const se = d2(s, i + 13);
    if (Number.isNaN(day + h + mi + se) || s.charCodeAt(i + 9) !== 58 || s.charCodeAt(i + 12) !== 58) return NaN;
    let ms = 0;
    if (s.charCodeAt(i + 15) === 46) ms = fractionMs(s, i + 16);
    return this.clock.toEpoch(this.yearFor(mon, day), mon, day, h, mi, se, ms);
  }

  /**
   * The times read from bytes (a line folded without being decoded: signals/templates.ts): [0] the prefix's, [1] the
   * klog header's. Written here, not returned: a time returned from a call is a heap number to collect, and a dense
   * log's lines are read by the million.
   */
  readonly at = new Float64Array(2);

  /** parseShort() of the bytes `b[i, end)`, into at[0]. */
  shortAt(b: Uint8Array, i: number, end: number): void {
    const at = this.at;
    at[0] = NaN;
    // (Every place read is inside the line, as the string's are.)
    if (i + 15 > end) return;
    const mon = monthAt(b, i);
    if (mon < 0 || b[i + 3] !== 32) return;
    // Day: space-padded in syslog (`Mar  1`), zero-padded in journalctl (`Mar 01`).
    const d = (b[i + 5] as number) - 48;
    const day = b[i + 4] === 32 ? (d >= 0 && d <= 9 ? d : -1) : d2At(b, i + 4);
    const h = d2At(b, i + 7);
    const mi = d2At(b, i + 10);
    const se = d2At(b, i + 13);
    if ((day | h | mi | se) < 0 || b[i + 9] !== 58 || b[i + 12] !== 58) return;
    const ms = i + 15 < end && b[i + 15] === 46 ? millisAt(b, i + 16, end) : 0;
    this.epochAt(0, this.yearFor(mon, day), mon, day, h, mi, se, ms);
  }

  /** at[k]: what toEpoch() gives, written here rather than returned (see `at`): on a dense log's 1.2 million folded
   *  lines a 400 MiB read took 138–174 scavenges this way, 177–203 through toEpoch's return. */
  private epochAt(k: number, year: number, mon: number, day: number, h: number, mi: number, se: number, ms: number): void {
    const t = utcMs(year, mon, day, h, mi, se, ms);
    this.at[k] = t - this.clock.offsetMs(Math.floor(t / 3600000));
  }

  /** parseKlog() of the bytes `b[i, end)` in year `year` (or, `fromClock`, the year this clock gives), into at[1]. */
  klogAt(b: Uint8Array, i: number, end: number, year: number, fromClock = false): void {
    const at = this.at;
    at[1] = NaN;
    if (i + 13 > end) return;
    const mon = d2At(b, i) - 1;
    const day = d2At(b, i + 2);
    const h = d2At(b, i + 5);
    const mi = d2At(b, i + 8);
    const se = d2At(b, i + 11);
    if ((day | h | mi | se) < 0 || mon < 0 || mon > 11) return;
    const ms = i + 13 < end && b[i + 13] === 46 ? millisAt(b, i + 14, end) : 0;
    this.epochAt(1, fromClock ? this.yearFor(mon, day) : year, mon, day, h, mi, se, ms);
  }

  /** klog header time `MMDD HH:MM:SS.uuuuuu` (at `i` = index of MM) → epoch ms in this zone, or NaN. */
  parseKlog(s: string, i: number, yearHint?: number): number {
    const mon = d2(s, i) - 1;
    const day = d2(s, i + 2);
    const h = d2(s, i + 5);
    const mi = d2(s, i + 8);
    const se = d2(s, i + 11);
    if (Number.isNaN(mon + day + h + mi + se) || mon < 0 || mon > 11) return NaN;
    const ms = s.charCodeAt(i + 13) === 46 ? fractionMs(s, i + 14) : 0;
    const year = yearHint ?? this.yearFor(mon, day);
    return this.clock.toEpoch(year, mon, day, h, mi, se, ms);
  }
}

/** The whole milliseconds of the fraction digits at `b[i, end)`: what Date.UTC keeps of fractionMs()'s. */
function millisAt(b: Uint8Array, i: number, end: number): number {
  let v = 0;
  let k = 0;
  for (let j = i; j < end && k < 3; j++, k++) {
    const c = (b[j] as number) - 48;
    if (c < 0 || c > 9) break;
    v = v * 10 + c;
  }
  return k === 0 ? 0 : k === 1 ? v * 100 : k === 2 ? v * 10 : v;
}

/** Fractional seconds digits at `i` → milliseconds (with sub-ms kept as a fraction). */
export function fractionMs(s: string, i: number): number {
  let v = 0;
  let scale = 100;
  for (let j = i; j < s.length; j++) {
    const c = s.charCodeAt(j) - 48;
    if (c < 0 || c > 9) break;
    v += c * scale;
    scale /= 10;
  }
  return v;
}

/**
 * RFC 3339 / ISO-8601 with offset at `i` (`2024-03-11T10:00:03.123456+0000`, `…+00:00`, `…Z`) → epoch ms and end index.
 * A time without offset is read in `clock`'s zone.
 */
export function parseIso(s: string, i: number, clock: WallClock): { ms: number; end: number } | null {
  const year = digits(s, i, i + 4);
  if (Number.isNaN(year) || s.charCodeAt(i + 4) !== 45 || s.charCodeAt(i + 7) !== 45) return null;
  const sep = s.charCodeAt(i + 10);
  if (sep !== 84 && sep !== 32) return null;
  const mon = d2(s, i + 5) - 1;
  const day = d2(s, i + 8);
  const h = d2(s, i + 11);
  const mi = d2(s, i + 14);
  const se = d2(s, i + 17);
  if (Number.isNaN(mon + day + h + mi + se)) return null;
  let j = i + 19;
  let ms = 0;
  if (s.charCodeAt(j) === 46 || s.charCodeAt(j) === 44) {
    ms = fractionMs(s, j + 1);
    j++;
    while (j < s.length && s.charCodeAt(j) >= 48 && s.charCodeAt(j) <= 57) j++;
  }
  const c = s.charCodeAt(j);
  if (c === 90 || c === 122) return { ms: Date.UTC(year, mon, day, h, mi, se, ms), end: j + 1 };
  if (c === 43 || c === 45) {
    const oh = d2(s, j + 1);
    const om = s.charCodeAt(j + 3) === 58 ? d2(s, j + 4) : d2(s, j + 3);
    const end = s.charCodeAt(j + 3) === 58 ? j + 6 : j + 5;
    if (Number.isNaN(oh + om)) return null;
    const off = (oh * 60 + om) * 60000 * (c === 45 ? -1 : 1);
    return { ms: Date.UTC(year, mon, day, h, mi, se, ms) - off, end };
  }
  return { ms: clock.toEpoch(year, mon, day, h, mi, se, ms), end: j };
}

/** Go `time.Duration` text (`3m0.416753742s`, `16h14m34.4s`, `2562047h47m16.854775807s`, `500ms`) → seconds, or NaN:
 *  the whole text a run of number-and-unit terms. Read by hand, once per relist-unhealthy line (a dense log has
 *  millions): the same terms, in the same order, summed the same way as `(\d+(?:\.\d+)?)(h|ms|m|s|µs|us|ns)`. */
export function parseGoDuration(text: string): number {
  let total = 0;
  let i = 0;
  const n = text.length;
  if (n === 0) return NaN;
  while (i < n) {
    const from = i;
    while (i < n && isDigit(text.charCodeAt(i))) i++;
    if (i === from) return NaN;
    if (text.charCodeAt(i) === 46 && isDigit(text.charCodeAt(i + 1))) {
      i += 2;
      while (i < n && isDigit(text.charCodeAt(i))) i++;
    }
    const v = Number(text.slice(from, i));
    const c = text.charCodeAt(i);
    const c2 = text.charCodeAt(i + 1);
    if (c === 104) { total += v * 3600; i += 1; } // h
    else if (c === 109 && c2 === 115) { total += v / 1e3; i += 2; } // ms
    else if (c === 109) { total += v * 60; i += 1; } // m
    else if (c === 115) { total += v; i += 1; } // s
    else if ((c === 0xb5 || c === 117) && c2 === 115) { total += v / 1e6; i += 2; } // µs, us
    else if (c === 110 && c2 === 115) { total += v / 1e9; i += 2; } // ns
    else return NaN;
  }
  return total;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** The ISO form of a time, null for none (or one past Date's range, which readers drop before it gets here). */
export function iso(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return null;
  const d = new Date(Math.round(ms));
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}
