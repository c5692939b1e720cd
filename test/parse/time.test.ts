import { describe, expect, it } from 'vitest';
import { parseGoDuration, parseIso, resolveZone, utcMs, WallClock, YearClock } from '../../src/parse/time.js';

describe('time', () => {
  it('Go durations, including the ≤1.12 sentinel', () => {
    expect(parseGoDuration('3m0.416753742s')).toBeCloseTo(180.416753742, 9);
    expect(parseGoDuration('16h14m34.439643899s')).toBeCloseTo(58474.439643899, 6);
    expect(parseGoDuration('2562047h47m16.854775807s')).toBeCloseTo(9223372036.854775807, 0);
    expect(parseGoDuration('500ms')).toBeCloseTo(0.5, 9);
    expect(parseGoDuration('3m0s')).toBe(180);
    expect(Number.isNaN(parseGoDuration('soon'))).toBe(true);
  });

  it('Go durations read by hand as the term-by-term regex reads them: whole text of terms, else NaN', () => {
    const byRegex = (text: string): number => {
      const re = /(\d+(?:\.\d+)?)(h|ms|m|s|µs|us|ns)/g;
      let total = 0;
      let matched = 0;
      for (let m = re.exec(text); m !== null; m = re.exec(text)) {
        const v = Number(m[1]);
        total += m[2] === 'h' ? v * 3600 : m[2] === 'm' ? v * 60 : m[2] === 's' ? v : m[2] === 'ms' ? v / 1e3 : m[2] === 'ns' ? v / 1e9 : v / 1e6;
        matched += m[0].length;
      }
      return matched > 0 && matched === text.length ? total : NaN;
    };
    const cases = ['3m0.416753742s', '1h1m1s1ms1us1ns', '10µs', '7us', '9ns', '1ms5s', '0.5h', '007s', '', 's', '1', '1.', '1.s', '.5s', '1.5.3s',
      '3m 0s', '3m0s ', '1x', '1mss', '1hm', '2562047h47m16.854775807s', '12m34.567890123s', '1µ', 'µs'];
    for (const t of cases) expect(Object.is(parseGoDuration(t), byRegex(t)), JSON.stringify(t)).toBe(true);
  });

  it('Dec → Jan roll-over advances the year', () => {
    const wall = new WallClock(resolveZone('UTC'));
    const y = new YearClock(wall, { year: 2023 });
    const a = y.parseShort('Dec 31 23:59:58 n kubelet[1]: x', 0);
    const b = y.parseShort('Jan 01 00:00:03 n kubelet[1]: x', 0);
    expect(new Date(a).toISOString()).toBe('2023-12-31T23:59:58.000Z');
    expect(new Date(b).toISOString()).toBe('2024-01-01T00:00:03.000Z');
  });

  it('a weak anchor (collection time in January) puts a December start in the previous year', () => {
    const wall = new WallClock(resolveZone('UTC'));
    const y = new YearClock(wall, { notAfterMs: Date.UTC(2024, 0, 3) });
    expect(new Date(y.parseShort('Dec 30 10:00:00 n k: x', 0)).toISOString()).toBe('2023-12-30T10:00:00.000Z');
    expect(new Date(y.parseShort('Jan 02 10:00:00 n k: x', 0)).toISOString()).toBe('2024-01-02T10:00:00.000Z');
  });

  it('zones: fixed offsets and IANA names with DST', () => {
    const berlin = new WallClock(resolveZone('Europe/Berlin'));
    expect(new Date(berlin.toEpoch(2024, 0, 11, 10, 0, 0, 0)).toISOString()).toBe('2024-01-11T09:00:00.000Z');
    expect(new Date(berlin.toEpoch(2024, 6, 11, 10, 0, 0, 0)).toISOString()).toBe('2024-07-11T08:00:00.000Z');
    const plus = new WallClock(resolveZone('+05:30'));
    expect(new Date(plus.toEpoch(2024, 0, 1, 5, 30, 0, 0)).toISOString()).toBe('2024-01-01T00:00:00.000Z');
    expect(() => resolveZone('Mars/Olympus')).toThrow(/unknown time zone/);
  });

  it('RFC 3339 with Z, +hhmm, +hh:mm and none', () => {
    const wall = new WallClock(resolveZone('UTC'));
    expect(parseIso('2024-03-11T10:00:03.5Z', 0, wall)?.ms).toBe(Date.UTC(2024, 2, 11, 10, 0, 3, 500));
    expect(parseIso('2024-03-11T10:00:03+0200', 0, wall)?.ms).toBe(Date.UTC(2024, 2, 11, 8, 0, 3));
    expect(parseIso('2024-03-11T10:00:03.123456-05:00', 0, wall)?.ms).toBeCloseTo(Date.UTC(2024, 2, 11, 15, 0, 3, 123.456), 3);
    expect(parseIso('not a time', 0, wall)).toBeNull();
  });
});

describe('utcMs', () => {
  it('is Date.UTC, days, hours, minutes and seconds past their range included', () => {
    let x = 12345;
    const r = (n: number): number => {
      x = (x * 1103515245 + 12345) % 2147483648;
      return Math.floor((x / 2147483648) * n);
    };
    for (let i = 0; i < 20_000; i++) {
      const a = [100 + r(9900), r(12), r(100), r(100), r(100), r(100), r(1000) + r(1000) / 1000] as const;
      expect(utcMs(...a)).toBe(Date.UTC(...a));
    }
    for (const y of [1970, 1969, 2000, 2100, 1600, 2024, 275760, 275761, 99, 100, 0, -5, NaN]) {
      for (const m of [0, 1, 2, 11, 12, -1, NaN]) for (const d of [0, 1, 28, 29, 31, 99, NaN]) expect(utcMs(y, m, d, 23, 59, 59, 999.9)).toBe(Date.UTC(y, m, d, 23, 59, 59, 999.9));
    }
  });
});
