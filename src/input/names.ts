// What a path says about its file: a collection time (metrics snapshots, rotated logs) and, rarely, a node.
// Both are hints; content wins wherever it speaks.

const MIN_YEAR = 2000;
const MAX_YEAR = 2099;
const MIN_EPOCH_S = Date.UTC(MIN_YEAR, 0, 1) / 1000;
const MAX_EPOCH_S = Date.UTC(MAX_YEAR + 1, 0, 1) / 1000;

// Date and time, extended or compact. Separators inside the time may be ':' or '-'/'_' (':' is awkward in file
// names). Digits must not continue on either side, so IDs and sizes are not read as times.
const RE_DATETIME_EXT =
  /(?<!\d)(\d{4})-(\d{2})-(\d{2})[T_ -](\d{2})[:_-]?(\d{2})[:_-]?(\d{2})(?:[.,](\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?(?!\d)/;
const RE_DATETIME_COMPACT = /(?<!\d)(\d{4})(\d{2})(\d{2})[T_-]?(\d{2})(\d{2})(\d{2})(?:[.,](\d{1,9}))?(Z|[+-]\d{4})?(?!\d)/;
// A bare date is easy to hit by chance inside other digits or hex, so it must stand alone.
const RE_DATE = /(?<![0-9A-Za-z])(\d{4})(-?)(\d{2})\2(\d{2})(?!\d)/;
const RE_EPOCH = /(?<![0-9A-Za-z])(\d{10}|\d{13})(?:\.\d+)?(?![0-9A-Za-z])/;

/** A time named in the file name, as epoch ms (names without a zone are read as UTC), or null. */
export function nameTime(fileName: string): number | null {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  for (const re of [RE_DATETIME_EXT, RE_DATETIME_COMPACT]) {
    const m = re.exec(base);
    if (!m) continue;
    const t = toEpoch(m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]);
    if (t !== null) return t;
  }
  const d = RE_DATE.exec(base);
  if (d) {
    const t = toEpoch(d[1], d[3], d[4], '00', '00', '00', undefined, undefined);
    if (t !== null) return t;
  }
  const e = RE_EPOCH.exec(base);
  if (e && e[1]) {
    const seconds = e[1].length === 13 ? Number(e[1]) / 1000 : Number(e[1]);
    if (seconds >= MIN_EPOCH_S && seconds < MAX_EPOCH_S) return Math.round(seconds * 1000);
  }
  return null;
}

function toEpoch(
  ys: string | undefined, mos: string | undefined, ds: string | undefined, hs: string | undefined,
  mis: string | undefined, ss: string | undefined, frac: string | undefined, zone: string | undefined,
): number | null {
  const y = Number(ys), mo = Number(mos), d = Number(ds), h = Number(hs), mi = Number(mis), s = Number(ss);
  if (!(y >= MIN_YEAR && y <= MAX_YEAR && mo >= 1 && mo <= 12 && d >= 1 && h <= 23 && mi <= 59 && s <= 60)) return null;
  if (d > new Date(Date.UTC(y, mo, 0)).getUTCDate()) return null;
  const ms = frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0;
  let t = Date.UTC(y, mo - 1, d, h, mi, Math.min(s, 59), ms);
  if (zone && zone !== 'Z') {
    const zm = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
    if (!zm) return null;
    const offset = (Number(zm[2]) * 60 + Number(zm[3])) * (zm[1] === '-' ? -1 : 1);
    if (Math.abs(offset) > 14 * 60) return null;
    t -= offset * 60_000;
  }
  return t;
}

// RFC 1123 subdomain, the shape of a Kubernetes node name.
const RE_NODE_NAME = /^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/;

/**
 * A node named by the path: only the unambiguous `nodes/<name>/…` layout (must-gather and our own exports).
 * Anything else is left to the content (journal host field, node objects).
 */
export function nodeHint(displayPath: string): string | null {
  const segments = displayPath.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');
  for (let i = segments.length - 3; i >= 0; i--) {
    if (segments[i] !== 'nodes') continue;
    const name = segments[i + 1] as string;
    return RE_NODE_NAME.test(name) ? name : null;
  }
  return null;
}
