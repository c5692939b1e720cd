// Bytes → lines without holding a file in memory. We do not use split2 here (design.md §8 names it): it decodes every
// line to a separate string, while we want (1) the byte offset of each line, so the TUI can re-read a line lazily, and
// (2) a prefilter run over whole chunks, so the lines no signal cares about are counted and never materialised.
// Chunks are decoded as latin1, where one char = one byte, so string indices are byte offsets; visited lines are
// re-decoded as UTF-8 from the bytes.
import type { Readable } from 'node:stream';
import type { MultiSearch } from './multisearch.js';

export interface LineVisitor {
  /** A line to parse (UTF-8, without the newline). `lineNo` is 1-based, `offset` the byte offset of its start;
   *  `buf[from, to)` are its bytes, for byte-level searches; `sampled`: it is visited as one of the sparse sample. */
  line(text: string, lineNo: number, offset: number, buf: Buffer, from: number, to: number, sampled: boolean): void;
  /** Called once, right after the last of the `headLines` (whatever the prefilter): a fixed point to change modes. */
  headDone?(): void;
}

export interface ScanOptions {
  /** A line is visited when it contains one of the needles; lines up to `headLines`, the sampled lines and journal
   *  markers (`-- …`) always are. */
  prefilter: MultiSearch | null;
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

export const CHECKPOINT_EVERY = 1024;

const DEFAULT_MAX_LINE = 256 * 1024;
const PIECE_BYTES = 64 * 1024;

/** journalctl's `-- Logs begin at …`, `-- Reboot --`, `-- Boot …` lines carry the year and boot boundaries. */
function isMarker(s: string, i: number): boolean {
  return s.charCodeAt(i) === 45 && s.charCodeAt(i + 1) === 45 && s.charCodeAt(i + 2) === 32;
}
/** Past any position in a scanned piece's string (V8 strings are shorter than 2^29 chars), and a small integer for V8
 *  (as nextSample is): MAX_SAFE_INTEGER, a heap number, deoptimized the scan loop when first met. */
const NO_MATCH = 0x3fffffff;

export class LineScanner {
  private carry: Buffer | null = null;
  private carryAbs = 0;
  private dropping = false;
  private chunkAbs = 0;
  private lineNo = 0;
  private readonly headLines: number;
  private sampleBytes: number;
  private readonly base: number;
  /** File position of the next sample (when sampleBytes > 0): the line that holds it is visited. Kept a small integer
   *  for V8 (no Infinity for "none"): a value of another kind first met in the optimized scan loop throws its code
   *  away, and a worker thread then scans in the interpreter until it is compiled again. */
  private nextSample: number;
  private readonly maxLine: number;
  private search: MultiSearch | null;
  /** Bumped by setPrefilter: a match found with the old needles is stale. */
  private generation = 0;
  private last: { buf: Buffer; from: number; to: number; lineNo: number; abs: number } | null = null;
  private longLines: number[] = [];
  private longLineCount = 0;
  private readonly checkpoints: Array<[number, number]> = [[1, 0]];
  private tailMax = 0;
  /** Where the line after the keepTail() call starts (relative to the first byte pushed). */
  private tailFrom = 0;
  /** Where the newline of the last line seen is (relative to the first byte pushed). */
  private lineEnd = -1;
  private ring: Buffer | null = null;
  /** The ring holds the input's bytes [ringStart, ringEnd) (relative to the first byte pushed). */
  private ringStart = 0;
  private ringEnd = 0;

  constructor(private readonly visitor: LineVisitor, opts: ScanOptions) {
    this.search = opts.prefilter;
    this.headLines = opts.headLines ?? 64;
    this.sampleBytes = opts.sampleBytes ?? 0;
    this.base = opts.baseOffset ?? 0;
    this.nextSample = this.sampleBytes > 0 ? Math.ceil(this.base / this.sampleBytes) * this.sampleBytes : 0;
    this.maxLine = opts.maxLineBytes ?? DEFAULT_MAX_LINE;
  }

  /** Samples every `bytes` of the file from the next line on (a denser sample for a log of many hosts). */
  setSampleBytes(bytes: number): void {
    this.sampleBytes = bytes;
    // From the start of the next line: a point fixed by the file, not by how it was cut into chunks.
    const at = this.base + this.lineEnd + 1;
    this.nextSample = bytes > 0 ? Math.ceil(at / bytes) * bytes : 0;
  }

  /** Keeps a copy of the last `bytes` of input from the next line on, for tailLines(). */
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

  /** Switches the needle set from the next line on (a visitor that starts or stops waiting for something). */
  setPrefilter(search: MultiSearch | null): void {
    if (search === this.search) return;
    this.search = search;
    this.generation++;
  }

  /** Bytes in. The scanner keeps no reference to `chunk` afterwards: the caller may reuse its memory. */
  push(chunk: Buffer): void {
    // Scanned in pieces: a piece becomes one latin1 string, and strings under V8's large-object size are made in the
    // young generation, while 1 MiB ones each map fresh pages (page faults that also serialise worker threads).
    for (let o = 0; o < chunk.length; o += PIECE_BYTES) this.pushPiece(o === 0 && chunk.length <= PIECE_BYTES ? chunk : chunk.subarray(o, o + PIECE_BYTES));
  }

  private pushPiece(chunk: Buffer): void {
    const abs = this.chunkAbs;
    this.scanPiece(chunk);
    // After the scan: the piece in which keepTail() was called is kept too.
    if (this.tailMax > 0) this.keep(chunk, abs);
  }

  private scanPiece(chunk: Buffer): void {
    let buf: Buffer;
    let bufAbs: number;
    if (this.dropping) {
      const nl = chunk.indexOf(10);
      if (nl < 0) {
        this.chunkAbs += chunk.length;
        return;
      }
      this.dropping = false;
      this.passSample(this.chunkAbs + nl);
      this.lineNo++;
      if (this.lineNo % CHECKPOINT_EVERY === 0) this.checkpoints.push([this.lineNo, this.carryAbs]);
      this.noteLong();
      const c = this.carry as Buffer;
      this.carry = null;
      this.visitIfWanted(c, 0, c.length, this.carryAbs);
      buf = chunk.subarray(nl + 1);
      bufAbs = this.chunkAbs + nl + 1;
    } else if (this.carry) {
      // Only the line cut by the previous chunk is joined (a small copy); the rest of the chunk is scanned in place,
      // so no chunk-sized buffer is allocated per chunk.
      const nl = chunk.indexOf(10);
      if (nl < 0 || this.carry.length + nl + 1 > this.maxLine) {
        buf = Buffer.concat([this.carry, chunk]);
        bufAbs = this.carryAbs;
        this.carry = null;
      } else {
        const joined = Buffer.concat([this.carry, chunk.subarray(0, nl + 1)]);
        const joinedAbs = this.carryAbs;
        this.carry = null;
        this.scan(joined, joinedAbs);
        buf = chunk.subarray(nl + 1);
        bufAbs = this.chunkAbs + nl + 1;
      }
    } else {
      buf = chunk;
      bufAbs = this.chunkAbs;
    }
    this.chunkAbs += chunk.length;
    this.scan(buf, bufAbs);
  }

  /** Scans the complete lines of `buf` (whose first byte is at `bufAbs` in the input); keeps the tail as the carry. */
  private scan(buf: Buffer, bufAbs: number): void {
    const s = buf.toString('latin1');
    let pos = 0;
    let nextMatch = -1;
    let gen = this.generation;
    for (;;) {
      const nl = s.indexOf('\n', pos);
      if (nl < 0) break;
      this.lineNo++;
      if (this.lineNo % CHECKPOINT_EVERY === 0) this.checkpoints.push([this.lineNo, bufAbs + pos]);
      const search = this.search;
      if (gen !== this.generation) {
        gen = this.generation;
        nextMatch = -1;
      }
      const sampled = this.passSample(bufAbs + nl);
      let visit = search === null || this.lineNo <= this.headLines || isMarker(s, pos) || sampled;
      if (!visit && search !== null) {
        if (nextMatch < pos && nextMatch !== NO_MATCH) {
          const m = search.next(buf, pos);
          nextMatch = m < 0 ? NO_MATCH : m;
        }
        if (nextMatch >= nl) {
          // Lines without a needle up to the one holding the next match (or the chunk's end): count, don't read.
          // (With no match, the last newline: the loop below stops there as at the end. One path, taken from the first
          // piece on, rather than a branch first taken after the loop was optimized.)
          const stop = s.lastIndexOf('\n', nextMatch);
          let lineStart = pos;
          let lineEnd = nl;
          let p = nl + 1;
          // (p < s.length: past the end charCodeAt reads out of bounds, which throws the optimized loop away.)
          while (p <= stop && p < s.length) {
            if (s.charCodeAt(p) === 45 && isMarker(s, p)) break;
            const k = s.indexOf('\n', p);
            if (k < 0 || k > stop) break;
            // The sampled line is visited by the loop above.
            if (this.sampleBytes > 0 && this.base + bufAbs + k >= this.nextSample) break;
            this.lineNo++;
            if (this.lineNo % CHECKPOINT_EVERY === 0) this.checkpoints.push([this.lineNo, bufAbs + p]);
            lineStart = p;
            lineEnd = k;
            p = k + 1;
          }
          this.last = { buf, from: lineStart, to: lineEnd, lineNo: this.lineNo, abs: bufAbs };
          pos = p;
          continue;
        }
        visit = true;
      }
      if (visit) this.emit(buf, pos, nl, bufAbs, sampled);
      this.last = { buf, from: pos, to: nl, lineNo: this.lineNo, abs: bufAbs };
      pos = nl + 1;
    }
    const last = this.last;
    if (last && last.buf === buf) {
      // The last line so far, copied: the caller may reuse the chunk's memory.
      const to = Math.min(last.to, last.from + this.maxLine + 1);
      this.last = { buf: Buffer.from(buf.subarray(last.from, to)), from: 0, to: to - last.from, lineNo: last.lineNo, abs: last.abs + last.from };
    }
    const rest = buf.length - pos;
    if (rest > this.maxLine) {
      this.carry = Buffer.from(buf.subarray(pos, pos + this.maxLine));
      this.carryAbs = bufAbs + pos;
      this.dropping = true;
    } else if (rest > 0) {
      this.carry = Buffer.from(buf.subarray(pos));
      this.carryAbs = bufAbs + pos;
    }
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

  private visitIfWanted(buf: Buffer, from: number, to: number, abs: number): void {
    const search = this.search;
    const sampled = this.passSample(abs + to);
    let want = search === null || this.lineNo <= this.headLines || sampled || isMarker(buf.toString('latin1', from, Math.min(to, from + 3)), 0);
    if (!want && search) want = search.next(buf, from, to) >= 0;
    if (want) this.emit(buf, from, to, abs, sampled);
    this.last = { buf, from, to, lineNo: this.lineNo, abs };
  }

  private emit(buf: Buffer, from: number, to: number, abs: number, sampled = false): void {
    let end = to;
    if (end > from && buf[end - 1] === 13) end--;
    if (end - from > this.maxLine) {
      this.noteLong();
      end = from + this.maxLine;
    }
    this.visitor.line(buf.toString('utf8', from, end), this.lineNo, abs + from, buf, from, end, sampled);
    if (this.lineNo === this.headLines) this.visitor.headDone?.();
  }

  finish(): ScanResult {
    if (this.carry && this.carry.length > 0) {
      // The last line had no newline (or was cut while over-long).
      this.lineNo++;
      if (this.lineNo % CHECKPOINT_EVERY === 0) this.checkpoints.push([this.lineNo, this.carryAbs]);
      if (this.dropping) this.noteLong();
      const c = this.carry;
      this.carry = null;
      this.visitIfWanted(c, 0, c.length, this.carryAbs);
    }
    let lastLine: ScanResult['lastLine'] = null;
    if (this.last) {
      const { buf, from, to, lineNo, abs } = this.last;
      let end = Math.min(to, from + this.maxLine);
      if (end > from && buf[end - 1] === 13) end--;
      lastLine = { text: buf.toString('utf8', from, end), lineNo, offset: abs + from };
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
