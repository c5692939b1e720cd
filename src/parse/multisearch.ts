// Finds the next occurrence of any of many literal needles in a byte buffer: the prefilter of the hot path.
// A regex alternation of ~100 literals costs V8 about 8 s per GB and each separate indexOf pass ~0.3 s per GB, while
// Wu–Manber (a shift table over byte triples, as agrep does) looks at a fraction of the bytes: with needles of 8+
// bytes it skips ~6 bytes at a time through ordinary text. Needles shorter than MIN_WM get one indexOf pass each.

const MIN_WM = 5;
/** Needles in one bucket past which it is looked up by text rather than scanned. */
const BIG_BUCKET = 16;
const TABLE_BITS = 20;
const TABLE_MASK = (1 << TABLE_BITS) - 1;

/** Hash of the byte triple ending at a position; collisions only shorten shifts, never miss a match. */
function h3(a: number, b: number, c: number): number {
  return ((a << 12) ^ (b << 6) ^ c) & TABLE_MASK;
}

export class MultiSearch {
  private readonly m: number;
  private readonly shift: Uint8Array;
  /** Needles by the byte pair that ends their first m bytes. */
  /** Needles by the byte triple ending their first m bytes, indexed by the hash of that triple (dense, fast). */
  private readonly buckets: Array<Array<{ bytes: Uint8Array; index: number }> | undefined> = [];
  /** Buckets of many needles (a rule pack's `literalneedle0` … `literalneedle9999` all share their first bytes): looked
   *  up by the text at each needle length instead of compared one by one. */
  private readonly big: Array<{ lens: number[]; byText: Map<string, number> } | undefined> = [];
  private readonly short: Buffer[];
  private readonly shortIndex: number[];
  /** Index (in `needles`) of the needle the last successful `next` found. */
  lastNeedle = -1;
  /** Per short needle, the last position found in `shortBuf` (-1: none after `shortFrom`), so repeated calls on one
   *  buffer do not rescan it from each `from`. */
  private shortBuf: Uint8Array | null = null;
  private shortAt: number[] = [];
  readonly needles: readonly string[];

  constructor(needles: readonly string[]) {
    this.needles = [...new Set(needles)].filter((n) => n.length > 0);
    const bytes = this.needles.map((n) => Buffer.from(n, 'latin1'));
    const long = bytes.filter((b) => b.length >= MIN_WM);
    this.short = bytes.filter((b) => b.length < MIN_WM);
    this.shortIndex = bytes.map((b, i) => (b.length < MIN_WM ? i : -1)).filter((i) => i >= 0);
    this.m = long.length ? long.reduce((m, b) => Math.min(m, b.length), 255) : 0;
    const m = this.m;
    this.shift = new Uint8Array(1 << TABLE_BITS).fill(Math.max(1, m - 2));
    for (const [index, p] of bytes.entries()) {
      if (p.length < MIN_WM) continue;
      for (let j = 2; j < m; j++) {
        const h = h3(p[j - 2] as number, p[j - 1] as number, p[j] as number);
        const s = m - 1 - j;
        if (s < (this.shift[h] as number)) this.shift[h] = s;
      }
      const key = h3(p[m - 3] as number, p[m - 2] as number, p[m - 1] as number);
      const list = this.buckets[key];
      if (list) list.push({ bytes: p, index });
      else this.buckets[key] = [{ bytes: p, index }];
    }
    this.buckets.forEach((list, key) => {
      if (!list || list.length <= BIG_BUCKET) return;
      const byText = new Map<string, number>();
      for (const { bytes, index } of list) {
        const text = Buffer.from(bytes).toString('latin1');
        if (!byText.has(text)) byText.set(text, index);
      }
      this.big[key] = { lens: [...new Set(list.map((e) => e.bytes.length))].sort((a, b) => a - b), byText };
    });
  }

  /** Index of the first match starting at or after `from` and before `end`, or -1. */
  next(t: Uint8Array, from: number, end = t.length): number {
    let best = -1;
    const m = this.m;
    if (m > 0) {
      const shift = this.shift;
      let i = from + m - 1;
      while (i < end) {
        const h = h3(t[i - 2] as number, t[i - 1] as number, t[i] as number);
        const s = shift[h] as number;
        if (s !== 0) {
          i += s;
          continue;
        }
        const big = this.big[h];
        const list = big ? undefined : this.buckets[h];
        if (big) {
          const start = i - m + 1;
          if (start >= from) {
            for (const len of big.lens) {
              if (start + len > end) break;
              const index = big.byText.get((t as Buffer).toString('latin1', start, start + len));
              if (index !== undefined && (best < 0 || start < best || (start === best && index < this.lastNeedle))) {
                best = start;
                this.lastNeedle = index;
              }
            }
          }
          if (best >= 0) break;
        } else if (list) {
          for (const { bytes: p, index } of list) {
            const start = i - m + 1;
            const len = p.length;
            if (start < from || start + len > end) continue;
            let k = 0;
            while (k < len && t[start + k] === p[k]) k++;
            if (k === len && (best < 0 || start < best)) {
              best = start;
              this.lastNeedle = index;
            }
          }
          if (best >= 0) break;
        }
        i++;
      }
    }
    if (this.short.length > 0) {
      if (this.shortBuf !== t) {
        this.shortBuf = t;
        this.shortAt = this.short.map(() => -2);
      }
      const buf = t as Buffer;
      for (let k = 0; k < this.short.length; k++) {
        let at = this.shortAt[k] as number;
        if (at === -2 || (at >= 0 && at < from)) {
          at = buf.indexOf(this.short[k] as Buffer, from);
          this.shortAt[k] = at;
        }
        if (at >= from && at + (this.short[k] as Buffer).length <= end && (best < 0 || at < best)) {
          best = at;
          this.lastNeedle = this.shortIndex[k] as number;
        }
      }
    }
    return best;
  }
}
