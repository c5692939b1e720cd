// Finds every occurrence of many literal needles in a byte buffer: the prefilter of the hot path.
// A regex alternation of ~150 literals costs V8 about 8 s per GB and each separate indexOf pass ~0.1 s per GB, while
// Wu–Manber (a shift table over the byte q-grams of each needle's first m bytes, as agrep does) looks at a fraction of
// the bytes: with needles of 12+ bytes it moves ~8 bytes at a time through ordinary text. Needles shorter than MIN_WM
// get one indexOf pass each.
//
// What makes it fast (measured on a 100 MiB kubelet journal, one core):
// - The walk is a chain of dependent loads (position → bytes → table → position): a few ns a step whatever the work
//   in it. Four cursors walk four quarters of the buffer in one loop, so the CPU runs their chains side by side.
// - A step that lands on a q-gram ending some needle's window (shift 0) is only noted; candidates are checked after the
//   walk, first against the q-gram that starts the window (a bit table), then byte by byte. Common words end some
//   needle's first m bytes (`Started kube…` in a journal where every line says `kubelet[…]`): 14 000 such positions
//   per MB, all but ~700 turned away by the second q-gram.
// - The walk and the first test run in WebAssembly (kernel.ts): in JavaScript the same loop ran at half the speed,
//   and at a tenth of it until V8 had optimized it, over the first 10–20 MB. The tables are small (64 KiB of shifts,
//   8 KiB of start bits): they stay in the first-level caches.
import { CAND, gram, Kernel, pairKey, Q, SHIFT_BITS, SIDE_WINDOW, SLICE, WINDOW } from './kernel.js';

/** Needles shorter than this are searched with one indexOf each (a shorter m would slow the walk for all). */
const MIN_WM = 8;
/** Needles in one bucket past which it is looked up by text rather than compared one by one (a rule pack's
 *  `literalneedle0` … `literalneedle9999` all share their window). */
const BIG_BUCKET = 16;

const NO_MATCHES = new Int32Array(0);

/** Matches found by `findAll`: start offsets and needle indexes, in order of start (then needle). */
export class MatchList {
  // Allocated at the first match: a scanner is made per file, and a folder of 100 000 small files made 600 000 typed
  // arrays (each with its own backing store) that most never used.
  starts: Int32Array = NO_MATCHES;
  needles: Int32Array = NO_MATCHES;
  length = 0;

  push(start: number, needle: number): void {
    if (this.length === this.starts.length) {
      const s = new Int32Array(Math.max(64, this.length * 2));
      s.set(this.starts);
      this.starts = s;
      const n = new Int32Array(Math.max(64, this.length * 2));
      n.set(this.needles);
      this.needles = n;
    }
    this.starts[this.length] = start;
    this.needles[this.length] = needle;
    this.length++;
  }

  /** Orders [first, length) by start, then by needle, unless it is already. */
  sort(first = 0): void {
    const n = this.length;
    const s = this.starts;
    const k = this.needles;
    let sorted = true;
    for (let i = first + 1; i < n && sorted; i++) sorted = (s[i - 1] as number) < (s[i] as number) || (s[i - 1] === s[i] && (k[i - 1] as number) <= (k[i] as number));
    if (sorted) return;
    const keys = new Float64Array(n - first);
    for (let i = first; i < n; i++) keys[i - first] = (s[i] as number) * 65536 + (k[i] as number);
    keys.sort();
    for (let i = first; i < n; i++) {
      const key = keys[i - first] as number;
      s[i] = Math.floor(key / 65536);
      k[i] = key % 65536;
    }
  }
}

export class MultiSearch {
  readonly needles: readonly string[];
  /** Every needle's bytes (UTF-8: lines are searched as bytes), one after another; where each starts, how long. */
  private readonly all: Buffer;
  private readonly at: Int32Array;
  private readonly len: Int32Array;
  /** Window length: the shortest needle of the walk. */
  private readonly m: number;
  /** Needles by the low bits of their window's end gram hash (bucketOf): the first (-1: none) and each one's next, in
   *  index order. A candidate's bucket also holds needles of other end grams; the byte-by-byte check turns them away
   *  (as it does needles whose gram hashes collide). Sized to the needles, not to every gram hash: a 65 536-entry table
   *  (256 KiB, filled with -1) cost every start ~60 page faults for ~150 needles. */
  private readonly first: Int32Array;
  private readonly nextInBucket: Int32Array;
  private readonly bucketMask: number;
  /** Buckets of more than BIG_BUCKET needles, by end-gram hash: their needles' lengths, and each needle by its text. */
  private readonly big = new Map<number, { lens: number[]; byText: Map<string, number> }>();
  /** Needles searched with indexOf (shorter than MIN_WM). */
  private readonly short: number[] = [];
  /** The walk and the scanner's line count (kernel.ts), with this needle set's tables. */
  readonly kernel: Kernel;
  /** Steps and candidates walked so far, and candidates that passed the start-gram test: deterministic counters of the
   *  work done (the bench prints them). */
  readonly stats = { steps: 0, candidates: 0, verified: 0 };

  constructor(needles: readonly string[]) {
    this.needles = [...new Set(needles)].filter((n) => n.length > 0);
    const bytes = this.needles.map((n) => Buffer.from(n, 'utf8'));
    this.all = Buffer.concat(bytes);
    this.len = Int32Array.from(bytes, (b) => b.length);
    this.at = new Int32Array(bytes.length);
    for (let k = 1; k < bytes.length; k++) this.at[k] = (this.at[k - 1] as number) + (this.len[k - 1] as number);
    const long: number[] = [];
    bytes.forEach((b, i) => (b.length >= MIN_WM ? long : this.short).push(i));
    this.m = long.reduce((m, i) => Math.min(m, this.len[i] as number), long.length ? 64 : 0);
    const m = this.m;
    const shift = new Uint8Array(1 << SHIFT_BITS).fill(Math.max(1, m - Q + 1));
    const startBits = new Uint8Array(8192);
    // At least 4 buckets a needle (most buckets hold one needle, or none), at most one per gram hash.
    this.bucketMask = (1 << Math.min(SHIFT_BITS, Math.max(8, Math.ceil(Math.log2(4 * long.length + 1))))) - 1;
    this.first = new Int32Array(this.bucketMask + 1).fill(-1);
    this.nextInBucket = new Int32Array(bytes.length).fill(-1);
    // In reverse, each put first: a bucket lists its needles in index order.
    for (const index of long.reverse()) {
      const p = bytes[index] as Uint8Array;
      for (let j = Q - 1; j < m; j++) {
        // gram(p, j), written out: called here ~3 000 times a start, it was the one function V8 optimized (TurboFan, 4 ms
        // on another thread) in a run on a small log.
        const h = ((p[j - 2] as number) << 10 ^ (p[j - 1] as number) << 5 ^ (p[j] as number)) & ((1 << SHIFT_BITS) - 1);
        const s = m - 1 - j;
        if (s < (shift[h] as number)) shift[h] = s;
      }
      const end = gram(p, m - 1);
      const key = pairKey(end, gram(p, Q - 1));
      startBits[key >> 3] = (startBits[key >> 3] as number) | (1 << (key & 7));
      this.nextInBucket[index] = this.first[end & this.bucketMask] as number;
      this.first[end & this.bucketMask] = index;
    }
    // Window ends (shift 0) are candidates: the walk notes them and moves on by 1.
    const sizes = new Map<number, number>();
    for (const index of long) {
      const end = gram(bytes[index] as Uint8Array, m - 1);
      shift[end] = CAND | 1;
      sizes.set(end, (sizes.get(end) ?? 0) + 1);
    }
    for (const [end, size] of sizes) {
      if (size <= BIG_BUCKET) continue;
      const byText = new Map<string, number>();
      const lens = new Set<number>();
      for (let k = this.first[end & this.bucketMask] as number; k >= 0; k = this.nextInBucket[k] as number) {
        if (gram(bytes[k] as Uint8Array, m - 1) !== end) continue;
        lens.add(this.len[k] as number);
        const text = this.all.toString('latin1', this.at[k], (this.at[k] as number) + (this.len[k] as number));
        if (!byText.has(text)) byText.set(text, k);
      }
      this.big.set(end, { lens: [...lens].sort((a, b) => a - b), byText });
    }
    this.kernel = new Kernel(shift, startBits);
  }

  /** Length in bytes of needle `k`. */
  byteLength(k: number): number {
    return this.len[k] as number;
  }

  /**
   * Every occurrence of every needle that lies inside t[from, end), appended to `out` in order of start (then of needle
   * index). Occurrences of different needles may overlap; each is reported. Searched in the kernel's side area, a
   * window at a time: a scanner's chunk in its main area stays untouched (a visitor searches its lines meanwhile).
   */
  findAll(t: Uint8Array, from: number, end: number, out: MatchList): void {
    const first = out.length;
    const m = this.m;
    if (m > 0) {
      // Windows that overlap by m - 1 bytes: every window end is walked in exactly one of them.
      for (let w = from; w + m <= end; w += SIDE_WINDOW - (m - 1)) {
        const to = Math.min(end, w + SIDE_WINDOW);
        this.kernel.side.set(t.subarray(w, to));
        this.walked(t, w, from, end, this.kernel.walk(true, m - 1, to - w, m), out);
        if (to === end) break;
      }
    }
    this.findShort(t, from, end, out);
    if (out.length - first > 1) out.sort(first);
  }

  /**
   * A scanner's chunk: buf[from, to) (at most WINDOW bytes) copied into the kernel's main area, where `kernel.advance`
   * then counts its lines (position p of buf is p - from there), and every needle in it appended to `out` as findAll
   * does.
   */
  loadChunk(buf: Uint8Array, from: number, to: number, out: MatchList): void {
    if (to - from > WINDOW) throw new RangeError(`a chunk of ${to - from} bytes (at most ${WINDOW})`);
    const first = out.length;
    this.kernel.main.set(buf.subarray(from, to));
    const m = this.m;
    if (m > 0) {
      for (let a = m - 1; a < to - from; a += SLICE) this.walked(buf, from, from, to, this.kernel.walk(false, a, Math.min(to - from, a + SLICE), m), out);
    }
    this.findShort(buf, from, to, out);
    if (out.length - first > 1) out.sort(first);
  }

  /** The candidates of the kernel's last walk (window ends, as positions from `origin` in t) checked byte by byte. */
  private walked(t: Uint8Array, origin: number, from: number, end: number, n: number, out: MatchList): void {
    const m = this.m;
    const all = this.all;
    const kernel = this.kernel;
    for (let c = 0; c < n; c++) {
      const start = origin + kernel.candidate(c) - m + 1;
      const h = gram(t, start + m - 1);
      const big = this.big.size > 0 ? this.big.get(h) : undefined;
      if (big) {
        this.lookUp(t, start, from, end, big, out);
        continue;
      }
      for (let k = this.first[h & this.bucketMask] as number; k >= 0; k = this.nextInBucket[k] as number) {
        const len = this.len[k] as number;
        if (start < from || start + len > end) continue;
        const p = this.at[k] as number;
        let j = 0;
        while (j < len && t[start + j] === all[p + j]) j++;
        if (j === len) out.push(start, k);
      }
    }
    this.stats.steps += kernel.steps;
    this.stats.candidates += kernel.candidates;
    this.stats.verified += n;
  }

  /** A candidate of a big bucket: the text at each of its needles' lengths looked up. */
  private lookUp(t: Uint8Array, start: number, from: number, end: number, big: { lens: number[]; byText: Map<string, number> }, out: MatchList): void {
    if (start < from) return;
    const text = Buffer.from(t.buffer, t.byteOffset, t.length);
    for (const len of big.lens) {
      if (start + len > end) break;
      const k = big.byText.get(text.toString('latin1', start, start + len));
      if (k !== undefined) out.push(start, k);
    }
  }

  private findShort(t: Uint8Array, from: number, end: number, out: MatchList): void {
    if (this.short.length === 0) return;
    const view = Buffer.from(t.buffer, t.byteOffset + from, end - from);
    for (const k of this.short) {
      const p = this.all.subarray(this.at[k] as number, (this.at[k] as number) + (this.len[k] as number));
      for (let x = view.indexOf(p); x >= 0; x = view.indexOf(p, x + 1)) out.push(from + x, k);
    }
  }
}
