// Bytes → lines without holding a file in memory. We do not use split2 here (design.md §8 names it): it decodes every
// line to a separate string, while we want (1) the byte offset of each line, so the TUI can re-read a line lazily, and
// (2) a prefilter run over whole chunks, so the lines no signal cares about are counted and never materialised.
// A chunk is searched once for every needle (multisearch.ts), then its lines are counted with a native newline search
// (Buffer#indexOf: ~10 GB/s, ~20 ns a line) up to the next line that matters; only those are decoded (UTF-8).
import type { Readable } from 'node:stream';
import { MatchList, type MultiSearch } from './multisearch.js';
import { CHECKPOINT, WINDOW } from './kernel.js';

export interface LineVisitor {
  /** A line to parse (UTF-8, without the newline). `lineNo` is 1-based, `offset` the byte offset of its start;
   *  `buf[from, to)` are its bytes, for byte-level searches; `sampled`: it is visited as one of the sparse sample. */
  line(text: string, lineNo: number, offset: number, buf: Buffer, from: number, to: number, sampled: boolean): void;
  /** Asked first, with the line's bytes only: true when the visitor is done with the line without its text (a dense
   *  run's line folded unread, signals/templates.ts), which is then not decoded. */
  fold?(buf: Buffer, from: number, to: number, lineNo: number, offset: number): boolean;
  /** Called once, right after the last of the `headLines` (whatever the prefilter): a fixed point to change modes. */
  headDone?(): void;
}

export interface ScanOptions {
  /** A line is visited when it contains one of the needles; lines up to `headLines`, the sampled lines and journal
   *  markers (`-- …`) always are. */
  prefilter: MultiSearch | null;
  /** Which of the prefilter's needles wake a line (1 at a needle's index); null: all (see setActive). */
  active?: Uint8Array | null;
  headLines?: number;
  /** Also visit the line that holds each multiple of this many bytes of the file (0 = none): a sparse sample that
   *  dates the log between the lines of interest. Fixed by file position, so that a file read in ranges (worker
   *  threads) samples the very lines one pass does. */
  sampleBytes?: number;
  /** Position in the file of the first byte pushed (a range that does not start the file). */
  baseOffset?: number;
  /** Longer lines are cut to this many bytes (a 50 MB single line must not become a 50 MB string). */
  maxLineBytes?: number;
}

export interface ScanResult {
  lines: number;
  bytes: number;
  /** The last line of the input (for the end of the log window). */
  lastLine: { text: string; lineNo: number; offset: number } | null;
  /** Line numbers of lines cut at maxLineBytes (the first few). */
  longLines: number[];
  longLineCount: number;
  /** [lineNo, byte offset] of every CHECKPOINT_EVERY-th line start: lets a viewer seek to a line without an index. */
  checkpoints: Array<[number, number]>;
}

export const CHECKPOINT_EVERY = CHECKPOINT;

const DEFAULT_MAX_LINE = 256 * 1024;

/** journalctl's `-- Logs begin at …`, `-- Reboot --`, `-- Boot …` lines carry the year and boot boundaries. */
function isMarker(b: Uint8Array, i: number): boolean {
  return b[i] === 45 && b[i + 1] === 45 && b[i + 2] === 32;
}
/** "No event in this chunk": past any position in a chunk, and a small integer for V8 (as every position compared in
 *  the line loop is): a heap number (MAX_SAFE_INTEGER, a file position past 1 GiB) deoptimizes the loop when met. */
const NONE = 0x3fffffff;

export class LineScanner {
  /** The line the last chunk ended in: its first bytes (at most maxLine + 1, in a reused buffer), its whole length so
   *  far, where it starts. */
  private carrying = false;
  private carry: Buffer = Buffer.alloc(0);
  private carryKept = 0;
  private carryLen = 0;
  private carryAbs = 0;
  private chunkAbs = 0;
  private lineNo = 0;
  private readonly headLines: number;
  private sampleBytes: number;
  private readonly base: number;
  /** File position of the next sample (when sampleBytes > 0): the line that holds it is visited. */
  private nextSample: number;
  private readonly maxLine: number;
  private readonly search: MultiSearch | null;
  private active: Uint8Array | null;
  /** The needles found in the chunk being scanned, and the first one whose line is not passed yet. */
  private readonly matches = new MatchList();
  private mi = 0;
  /** While a line is visited: where its matches begin in `matches` (they end at `mi`); -1 otherwise. */
  private lineMatches = -1;
  private readonly scratch = new MatchList();
  /** A copy of the last line so far (its first maxLine + 1 bytes), its number (0: none yet) and position. */
  private lastBuf = Buffer.alloc(256);
  private lastLen = 0;
  private lastNo = 0;
  private lastAbs = 0;
  private longLines: number[] = [];
  private longLineCount = 0;
  private readonly checkpoints: Array<[number, number]> = [[1, 0]];
  private tailMax = 0;
  /** Where the line after the keepTail() call starts (relative to the first byte pushed). */
  private tailFrom = 0;
  /** Where the newline of the last line visited is (relative to the first byte pushed). */
  private lineEnd = -1;
  private ring: Buffer | null = null;
  /** The ring holds the input's bytes [ringStart, ringEnd) (relative to the first byte pushed). */
  private ringStart = 0;
  private ringEnd = 0;

  constructor(private readonly visitor: LineVisitor, opts: ScanOptions) {
    this.search = opts.prefilter;
    this.active = opts.active ?? null;
    this.headLines = opts.headLines ?? 64;
    this.sampleBytes = opts.sampleBytes ?? 0;
    this.base = opts.baseOffset ?? 0;
    this.nextSample = this.sampleBytes > 0 ? Math.ceil(this.base / this.sampleBytes) * this.sampleBytes : 0;
    this.maxLine = opts.maxLineBytes ?? DEFAULT_MAX_LINE;
  }

  /** Samples every `bytes` of the file from the next line on (a denser sample for a log of many hosts). Called while
   *  a line is visited: it counts from that line's end. */
  setSampleBytes(bytes: number): void {
    this.sampleBytes = bytes;
    // From the start of the next line: a point fixed by the file, not by how it was cut into chunks.
    const at = this.base + this.lineEnd + 1;
    this.nextSample = bytes > 0 ? Math.ceil(at / bytes) * bytes : 0;
  }

  /** Keeps a copy of the last `bytes` of input from the next line on, for tailLines(). Called while a line is visited. */
  keepTail(bytes: number): void {
    this.tailMax = bytes;
    this.tailFrom = this.lineEnd + 1;
    // A fixed ring, one byte more than the tail (to see whether its first line starts there): copies, no allocations.
    this.ring = Buffer.allocUnsafe(bytes + 1);
  }

  /**
   * Every line that starts in the last `keepTail` bytes, visited or not, with its byte offset. After finish().
   * A log of many hosts reads its end once more this way: each host's last line is there, sampled or not.
   */
  tailLines(fn: (text: string, offset: number) => void): void {
    if (this.ringEnd <= this.ringStart) return;
    const all = this.ringBytes();
    const at0 = this.ringStart;
    // Exactly the lines that start in the last `tailMax` bytes (and after keepTail was called): the same lines
    // however the input was cut into chunks. The ring holds the byte before that point, to see whether a line starts.
    const start = Math.max(this.ringEnd - this.tailMax, this.tailFrom);
    let p = start - at0;
    if (start !== this.tailFrom) {
      const nl = all.indexOf(10, p - 1);
      if (nl < 0) return;
      p = nl + 1;
    }
    while (p < all.length) {
      const nl = all.indexOf(10, p);
      let end = nl < 0 ? all.length : nl;
      const next = end + 1;
      if (end > p && all[end - 1] === 13) end--;
      fn(all.toString('utf8', p, Math.min(end, p + this.maxLine)), this.base + at0 + p);
      p = next;
    }
  }

  /** Which needles wake a line from the next line on (null: all): for a visitor that starts or stops waiting for some.
   *  Called while a line is visited. */
  setActive(active: Uint8Array | null): void {
    this.active = active;
  }

  /** Bytes in. The scanner keeps no reference to `chunk` afterwards: the caller may reuse its memory. */
  push(chunk: Buffer): void {
    if (chunk.length > WINDOW && this.search !== null) {
      // At most the kernel's main area at a time (lines cut by a piece's end are carried, as between chunks).
      for (let o = 0; o < chunk.length; o += WINDOW) this.push(chunk.subarray(o, o + WINDOW));
      return;
    }
    const abs = this.chunkAbs;
    let from = 0;
    if (this.carrying) {
      // Only the line cut by the previous chunk is joined (a small copy); the rest of the chunk is scanned in place.
      const nl = chunk.indexOf(10);
      from = nl < 0 ? chunk.length : nl + 1;
      this.extendCarry(chunk, 0, nl < 0 ? chunk.length : nl);
      if (nl >= 0) this.carriedLine(abs + nl);
    }
    const lastNl = chunk.lastIndexOf(10);
    if (lastNl >= from) {
      this.scan(chunk, from, lastNl + 1, abs);
      from = lastNl + 1;
    }
    if (from < chunk.length) {
      this.carrying = true;
      this.carryKept = 0;
      this.carryLen = 0;
      this.carryAbs = abs + from;
      this.extendCarry(chunk, from, chunk.length);
    }
    this.chunkAbs += chunk.length;
    if (this.tailMax > 0) this.keep(chunk, abs);
  }

  /** Appends chunk[from, to) to the carried line, keeping at most maxLine + 1 bytes of it. */
  private extendCarry(chunk: Buffer, from: number, to: number): void {
    this.carryLen += to - from;
    const take = Math.min(to - from, this.maxLine + 1 - this.carryKept);
    if (take <= 0) return;
    if (this.carryKept + take > this.carry.length) {
      const bigger = Buffer.allocUnsafe(Math.min(this.maxLine + 1, Math.max(2 * this.carry.length, this.carryKept + take, 1024)));
      this.carry.copy(bigger, 0, 0, this.carryKept);
      this.carry = bigger;
    }
    chunk.copy(this.carry, this.carryKept, from, from + take);
    this.carryKept += take;
  }

  /** The carried line is complete: its newline (or the end of the input) is at `endRel`. */
  private carriedLine(endRel: number): void {
    const buf = this.carry;
    const kept = this.carryKept;
    this.carrying = false;
    this.lineNo++;
    if (this.lineNo % CHECKPOINT_EVERY === 0) this.checkpoints.push([this.lineNo, this.carryAbs]);
    if (this.carryLen - (kept === this.carryLen && buf[kept - 1] === 13 ? 1 : 0) > this.maxLine) this.noteLong();
    const sampled = this.passSample(endRel);
    if (sampled || this.search === null || this.lineNo <= this.headLines || isMarker(buf, 0) || this.wokenIn(buf, 0, kept)) {
      this.emit(buf, 0, kept, this.carryAbs, sampled);
    }
    this.setLast(buf, 0, kept, this.carryAbs);
  }

  /**
   * The complete lines buf[from, to) (to - 1 is a newline; buf[0] is at `abs` in the input): every needle found at
   * once, then the lines counted up to the next one that matters (a needle's, the sample's, a marker, an over-long
   * one, the head), which is visited.
   */
  private scan(buf: Buffer, from: number, to: number, abs: number): void {
    const search = this.search;
    if (search === null) {
      this.scanAll(buf, from, to, abs);
      return;
    }
    this.matches.length = 0;
    this.mi = 0;
    search.loadChunk(buf, from, to, this.matches);
    const kernel = search.kernel;
    const checkpoints = this.checkpoints;
    let pos = from;
    for (;;) {
      const ev = this.nextEvent(pos, abs);
      const nl = kernel.advance(pos - from, to - from, (ev < pos ? pos : ev) - from, this.maxLine, this.lineNo);
      for (let c = 0; c < kernel.checkpointCount; c++) {
        const [n, start] = kernel.checkpoint(c);
        checkpoints.push([n, abs + from + start]);
      }
      this.lineNo = kernel.lineNo;
      if (nl < 0) break;
      this.atLine(buf, kernel.lineStart + from, nl + from, abs);
      pos = nl + from + 1;
    }
    this.setLast(buf, to - 2 < from ? from : Math.max(from, buf.lastIndexOf(10, to - 2) + 1), to - 1, abs);
  }

  /** scan() without a prefilter: every line is visited. */
  private scanAll(buf: Buffer, from: number, to: number, abs: number): void {
    let pos = from;
    while (pos < to) {
      const nl = buf.indexOf(10, pos);
      this.lineNo++;
      if (this.lineNo % CHECKPOINT_EVERY === 0) this.checkpoints.push([this.lineNo, abs + pos]);
      this.atLine(buf, pos, nl, abs);
      pos = nl + 1;
    }
    this.setLast(buf, to - 2 < from ? from : Math.max(from, buf.lastIndexOf(10, to - 2) + 1), to - 1, abs);
  }

  /** A line that may matter: over-long, at an event, or starting with a dash. Visited if it does. */
  private atLine(buf: Buffer, pos: number, nl: number, abs: number): void {
    const long = nl - pos > this.maxLine;
    if (long && nl - pos - (buf[nl - 1] === 13 ? 1 : 0) > this.maxLine) this.noteLong();
    const sampled = this.passSample(abs + nl);
    // The matches in this line are passed.
    const m = this.matches;
    let woken = false;
    let mi = this.mi;
    const active = this.active;
    while (mi < m.length && (m.starts[mi] as number) < nl) {
      if ((m.starts[mi] as number) >= pos && (active === null || active[m.needles[mi] as number] === 1)) woken = true;
      mi++;
    }
    const first = this.mi;
    this.mi = mi;
    // (A needle past the cut of an over-long line is not in the text the visitor gets.)
    if (woken && long) woken = this.wokenIn(buf, pos, nl);
    if (woken || sampled || this.search === null || this.lineNo <= this.headLines || isMarker(buf, pos)) {
      this.lineMatches = first;
      this.emit(buf, pos, nl, abs, sampled);
      this.lineMatches = -1;
    }
  }

  /**
   * For the visitor of a line: the needles of `search` wholly inside buf[from, to) of that line, as the chunk's search
   * found them, into `out` (as search.findAll would give them). False when the scanner has none to give (no
   * prefilter, another needle set, a line joined from two chunks): the visitor searches the line itself then.
   */
  needlesIn(search: MultiSearch, from: number, to: number, out: MatchList): boolean {
    if (search !== this.search || this.lineMatches < 0) return false;
    const m = this.matches;
    out.length = 0;
    for (let k = this.lineMatches; k < this.mi; k++) {
      const at = m.starts[k] as number;
      const needle = m.needles[k] as number;
      if (at >= from && at + search.byteLength(needle) <= to) out.push(at, needle);
    }
    return true;
  }

  /** Where in the chunk the next line that matters holds a byte: the next active needle, the sample, the head. */
  private nextEvent(pos: number, abs: number): number {
    if (this.search === null || this.lineNo < this.headLines) return pos;
    let ev = NONE;
    const m = this.matches;
    const active = this.active;
    for (let k = this.mi; k < m.length; k++) {
      if (active === null || active[m.needles[k] as number] === 1) {
        ev = m.starts[k] as number;
        break;
      }
    }
    if (this.sampleBytes > 0) {
      // (A file position past 1 GiB is a heap number for V8: the difference is made a small integer again.)
      const s = (this.nextSample - this.base - abs) | 0;
      if (s < ev) ev = s;
    }
    return ev;
  }

  /** Whether an active needle lies in the first maxLine bytes of buf[from, to) (the text a visitor gets). */
  private wokenIn(buf: Buffer, from: number, to: number): boolean {
    const search = this.search;
    if (search === null) return true;
    const s = this.scratch;
    s.length = 0;
    search.findAll(buf, from, Math.min(to, from + this.maxLine), s);
    const active = this.active;
    for (let k = 0; k < s.length; k++) if (active === null || active[s.needles[k] as number] === 1) return true;
    return false;
  }

  /** The last line so far, copied (the caller may reuse the chunk's memory): the end of the log window. */
  private setLast(buf: Buffer, from: number, to: number, abs: number): void {
    const n = Math.min(to, from + this.maxLine + 1) - from;
    if (n > this.lastBuf.length) this.lastBuf = Buffer.allocUnsafe(Math.max(n, 2 * this.lastBuf.length));
    buf.copy(this.lastBuf, 0, from, from + n);
    this.lastLen = n;
    this.lastNo = this.lineNo;
    this.lastAbs = abs + from;
  }

  private keep(chunk: Buffer, abs: number): void {
    const ring = this.ring as Buffer;
    const r = ring.length;
    if (this.ringEnd === this.ringStart) this.ringStart = this.ringEnd = abs;
    const src = chunk.length > r ? chunk.subarray(chunk.length - r) : chunk;
    let at = (abs + chunk.length - src.length) % r;
    let done = 0;
    while (done < src.length) {
      const n = Math.min(src.length - done, r - at);
      src.copy(ring, at, done, done + n);
      done += n;
      at = (at + n) % r;
    }
    this.ringEnd = abs + chunk.length;
    this.ringStart = Math.max(this.ringStart, this.ringEnd - r);
  }

  /** The ring's bytes [ringStart, ringEnd) in file order. */
  private ringBytes(): Buffer {
    const ring = this.ring as Buffer;
    const r = ring.length;
    const n = this.ringEnd - this.ringStart;
    const at = this.ringStart % r;
    if (at + n <= r) return ring.subarray(at, at + n);
    return Buffer.concat([ring.subarray(at), ring.subarray(0, n - (r - at))]);
  }

  /** Whether the line ending (at its newline) at `endRel` holds the next sample position; if so, moves past it. */
  private passSample(endRel: number): boolean {
    this.lineEnd = endRel;
    const end = this.base + endRel;
    if (this.sampleBytes === 0 || end < this.nextSample) return false;
    this.nextSample = (Math.floor(end / this.sampleBytes) + 1) * this.sampleBytes;
    return true;
  }

  private noteLong(): void {
    this.longLineCount++;
    if (this.longLines.length < 10) this.longLines.push(this.lineNo);
  }

  private emit(buf: Buffer, from0: number, to: number, abs: number, sampled: boolean): void {
    let end = to;
    if (end > from0 && buf[end - 1] === 13) end--;
    // A UTF-8 byte-order mark (a file saved by a Windows editor) is not part of the first line.
    const from = abs + from0 === 0 && end - from0 >= 3 && buf[from0] === 0xef && buf[from0 + 1] === 0xbb && buf[from0 + 2] === 0xbf ? from0 + 3 : from0;
    if (end - from > this.maxLine) end = from + this.maxLine;
    const v = this.visitor;
    if (v.fold === undefined || !v.fold(buf, from, end, this.lineNo, abs + from0)) v.line(buf.toString('utf8', from, end), this.lineNo, abs + from0, buf, from, end, sampled);
    if (this.lineNo === this.headLines) this.visitor.headDone?.();
  }

  finish(): ScanResult {
    // The last line had no newline.
    if (this.carrying) this.carriedLine(this.chunkAbs);
    let lastLine: ScanResult['lastLine'] = null;
    if (this.lastNo > 0) {
      let end = Math.min(this.lastLen, this.maxLine);
      if (end > 0 && this.lastBuf[end - 1] === 13) end--;
      lastLine = { text: this.lastBuf.toString('utf8', 0, end), lineNo: this.lastNo, offset: this.lastAbs };
    }
    return { lines: this.lineNo, bytes: this.chunkAbs, lastLine, longLines: this.longLines, longLineCount: this.longLineCount, checkpoints: this.checkpoints };
  }
}

/** Feeds a whole stream through a scanner. Stream errors (truncated gzip, I/O) propagate to the caller. */
export async function scanStream(stream: Readable, scanner: LineScanner): Promise<ScanResult> {
  for await (const chunk of stream) {
    scanner.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  }
  return scanner.finish();
}
