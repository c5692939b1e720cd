// The DateTime the reports of every run use (text, cluster summary) to show a time: luxon's, loaded only when a time is
// shown in a zone other than UTC. Most runs show UTC, and luxon (260 KB of code, and the system locale it looks up
// on first use) was a fifth of the start-up of a small input. The calls it answers without luxon give what luxon gives;
// any other call is luxon's own. Views that need more of luxon (HTML, TUI) import it.
import type { DateTime as LuxonDateTime } from 'luxon';
import { lazyRequire } from './lazy-require.js';
import { sameZone } from '../parse/time.js';

const luxon = lazyRequire<typeof import('luxon')>('luxon');

/** The part of luxon's DateTime these reports use. */
export interface Shown {
  readonly isValid: boolean;
  setZone(zone: string): Shown;
  toFormat(format: string): string;
}

/** What `iso()` writes: UTC, with milliseconds. */
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,3})?Z$/;
/** Formats made of these tokens and separators are written here. */
const SIMPLE_FORMAT = /^(?:yyyy|MM|dd|HH|mm|ss|ZZ|[ :T-])+$/;

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** A UTC time, as luxon would show it in UTC. */
class UtcTime implements Shown {
  readonly isValid = true;
  constructor(private readonly ms: number) {}

  setZone(zone: string): Shown {
    return isUtc(zone) ? this : luxon().DateTime.fromMillis(this.ms, { zone });
  }

  toFormat(format: string): string {
    if (!SIMPLE_FORMAT.test(format)) return luxon().DateTime.fromMillis(this.ms, { zone: 'UTC' }).toFormat(format);
    const d = new Date(this.ms);
    return format.replace(/yyyy|MM|dd|HH|mm|ss|ZZ/g, (t) => {
      switch (t) {
        case 'yyyy': return pad(d.getUTCFullYear(), 4);
        case 'MM': return pad(d.getUTCMonth() + 1);
        case 'dd': return pad(d.getUTCDate());
        case 'HH': return pad(d.getUTCHours());
        case 'mm': return pad(d.getUTCMinutes());
        case 'ss': return pad(d.getUTCSeconds());
        default: return '+00:00';
      }
    });
  }
}

function isUtc(zone: string): boolean {
  return sameZone(zone, 'UTC');
}

export const DateTime = {
  /** luxon's `DateTime.fromISO` for `{ zone }` and `{ setZone: true }`. */
  fromISO(text: string, opts: { zone?: string; setZone?: boolean } = {}): Shown {
    // (With setZone the string's own zone wins: `Z`, UTC.)
    const utc = opts.setZone === true || (opts.zone !== undefined && isUtc(opts.zone));
    if (utc && ISO_UTC.test(text)) return new UtcTime(Date.parse(text));
    return luxon().DateTime.fromISO(text, opts) as LuxonDateTime;
  },
};
