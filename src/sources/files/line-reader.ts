// Lines of a log artifact, re-read lazily for viewers (the TUI's Log view). The scanner records where every 1024th
// line starts while the analysis parses ([lineNo, byteOffset] checkpoints); a viewer asks for one block of lines
// between two checkpoints and gets just those, so a 2 GB journal never sits in memory. This is the only place a view
// obtains file bytes (design.md §3: only src/input touches the filesystem).
//
// Plain files on disk are read with positioned reads on the same validated path the analysis read (the artifact's
// own stream tells us it is a file stream). Anything else (compressed files, archive members) is read forward
// through the artifact's own decompressing stream: a cursor that stays open, so reading on costs nothing extra and
// going back re-opens the stream from the start.
import fs from 'node:fs';
import { PassThrough, type Readable } from 'node:stream';
import type { Artifact } from '../artifact.js';
import { openInput } from './source.js';

/** Where an artifact's lines start and how its clock reads: what a viewer needs to re-read and place its lines. */
export interface LogIndex {
  artifact: number;
  /** [lineNo (1-based), byte offset of that line's start in the decompressed content], ascending. */
  checkpoints: Array<[number, number]>;
  /** Lines and (decompressed) bytes the analysis read. */
  lines: number;
  bytes: number;
  /** Zone of the file's zone-less stamps, as the analysis used it. */
  zone: string;
  /** `--year`, when given. */
  year?: number;
  /** Earliest and latest time the analysis saw in the file (epoch ms); anchors the year of year-less stamps. */
  firstMs: number | null;
  lastMs: number | null;
}

/** A LogIndex from what the scanner and the extractor report (structural, so src/input needs no later stage). */
export function logIndexOf(
  artifact: number,
  scan: { checkpoints: Array<[number, number]>; lines: number; bytes: number },
  hosts: ReadonlyArray<{ first: number; last: number }>,
  zone: string,
  year: number | undefined,
): LogIndex {
  let first = Infinity;
  let last = -Infinity;
  for (const h of hosts) {
    if (h.first < first) first = h.first;
    if (h.last > last) last = h.last;
  }
  return {
    artifact, checkpoints: scan.checkpoints, lines: scan.lines, bytes: scan.bytes, zone, ...(year !== undefined ? { year } : {}),
    firstMs: Number.isFinite(first) ? first : null, lastMs: Number.isFinite(last) ? last : null,
  };
}

export interface RawLine {
  /** 1-based line number in the artifact. */
  lineNo: number;
  /** Byte offset of the line's start (decompressed). */
  offset: number;
  /** UTF-8 text without the newline (and without a trailing \r), at most `maxLineBytes` bytes of it. */
  text: string;
  /** The line was longer and has been cut. */
  cut: boolean;
}

/** Lines longer than this are cut for viewing (and before any user regex sees them). */
export const MAX_VIEW_LINE_BYTES = 4096;
const READ_BYTES = 256 * 1024;
/** What a block's first-lines probe reads at most. */
const HEAD_BYTES = 64 * 1024;

export interface BlockSpan {
  /** First line number of the block and the number of lines in it. */
  firstLine: number;
  count: number;
  start: number;
  /** Byte offset just past the block (the next block's start, or the end of the content). */
  end: number;
}

/** Splits byte chunks into capped lines; keeps at most one capped line of carry-over. */
class LineSplitter {
  private parts: Buffer[] = [];
  private partBytes = 0;
  private lineStart: number;
  private pos: number;
  private cut = false;
  readonly out: RawLine[] = [];

  constructor(private lineNo: number, offset: number, private readonly maxLines: number, private readonly maxBytes: number) {
    this.lineStart = offset;
    this.pos = offset;
  }

  get full(): boolean {
    return this.out.length >= this.maxLines;
  }

  /** A whole line inside one chunk: decoded straight from it, no copy. */
  private whole(chunk: Buffer, from: number, to: number): void {
    let end = to;
    let cut = false;
    if (end - from > this.maxBytes) {
      end = from + this.maxBytes;
      cut = true;
    } else if (end > from && chunk[end - 1] === 13) end--;
    this.out.push({ lineNo: this.lineNo, offset: this.lineStart, text: chunk.toString('utf8', from, end), cut });
    this.lineNo++;
  }

  private keep(b: Buffer): void {
    const room = this.maxBytes - this.partBytes;
    if (room <= 0) {
      if (b.length > 0) this.cut = true;
      return;
    }
    const take = b.length > room ? b.subarray(0, room) : b;
    if (take.length < b.length) this.cut = true;
    this.parts.push(Buffer.from(take));
    this.partBytes += take.length;
  }

  private emit(): void {
    let buf = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts);
    if (!this.cut && buf.length > 0 && buf[buf.length - 1] === 13) buf = buf.subarray(0, buf.length - 1);
    this.out.push({ lineNo: this.lineNo, offset: this.lineStart, text: buf.toString('utf8'), cut: this.cut });
    this.lineNo++;
    this.parts = [];
    this.partBytes = 0;
    this.cut = false;
  }

  /** Feeds bytes; returns false once `maxLines` lines are out. */
  push(chunk: Buffer): boolean {
    let p = 0;
    while (p < chunk.length && !this.full) {
      const nl = chunk.indexOf(10, p);
      if (nl < 0) {
        this.keep(chunk.subarray(p));
        this.pos += chunk.length - p;
        return true;
      }
      if (this.partBytes === 0 && !this.cut) this.whole(chunk, p, nl);
      else {
        this.keep(chunk.subarray(p, nl));
        this.emit();
      }
      this.pos += nl + 1 - p;
      this.lineStart = this.pos;
      p = nl + 1;
    }
    return !this.full;
  }

  /** The content ended: a last line without a newline is still a line. */
  end(): void {
    if (!this.full && (this.partBytes > 0 || this.cut)) this.emit();
  }
}

/** A forward-only reader over an artifact's decompressed stream, re-opened when asked to go back. */
class ForwardCursor {
  private it: AsyncIterator<unknown> | null = null;
  private stream: Readable | null = null;
  private pos = 0;
  private pending: Buffer | null = null;

  constructor(private readonly open: () => Readable) {}

  /** Calls `sink` with the bytes from `start` on, until it returns false or the content ends. */
  async read(start: number, sink: (b: Buffer) => boolean): Promise<void> {
    if (!this.it || this.pos > start) this.reopen();
    for (;;) {
      let chunk: Buffer;
      if (this.pending) {
        chunk = this.pending;
        this.pending = null;
      } else {
        const r = await (this.it as AsyncIterator<unknown>).next();
        if (r.done) {
          this.close();
          return;
        }
        chunk = typeof r.value === 'string' ? Buffer.from(r.value) : (r.value as Buffer);
      }
      const chunkStart = this.pos;
      this.pos += chunk.length;
      if (this.pos <= start) continue;
      const from = Math.max(0, start - chunkStart);
      // Hand over the part at or after `start`; what the sink leaves unread is kept for the next read.
      const part = chunk.subarray(from);
      if (!sink(part)) {
        this.pending = part;
        this.pos = chunkStart + from;
        return;
      }
      start = this.pos;
    }
  }

  private reopen(): void {
    this.close();
    this.stream = this.open();
    this.it = this.stream[Symbol.asyncIterator]();
    this.pos = 0;
    this.pending = null;
  }

  close(): void {
    this.stream?.destroy();
    this.stream = null;
    this.it = null;
    this.pending = null;
    this.pos = 0;
  }
}


/**
 * Reads blocks of lines of one artifact. Each block is the span between two checkpoints (1024 lines, or fewer at the
 * start of a segment). Calls are serialised: one read at a time per artifact.
 */
export class LineReader {
  private readonly cps: Array<[number, number]>;
  private file: fs.promises.FileHandle | null = null;
  private cursor: ForwardCursor | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** One buffer for all reads of this reader (reads are serialised; lines are copied out as strings). */
  private scratch: Buffer | null = null;
  /** Lines and bytes known: the index's, plus what grow() found appended since. */
  private nLines: number;
  private nBytes: number;

  private buffer(n: number): Buffer {
    if (!this.scratch || this.scratch.length < n) this.scratch = Buffer.allocUnsafeSlow(Math.max(n, READ_BYTES));
    return this.scratch;
  }

  constructor(readonly artifact: Artifact, readonly index: LogIndex, private readonly maxLineBytes = MAX_VIEW_LINE_BYTES) {
    const seen = new Set<number>();
    this.cps = [...index.checkpoints]
      .filter(([l, o]) => l >= 1 && l <= Math.max(1, index.lines) && o >= 0 && !seen.has(l) && (seen.add(l), true))
      .sort((a, b) => a[0] - b[0]);
    if (this.cps.length === 0 || (this.cps[0] as [number, number])[0] !== 1) this.cps.unshift([1, 0]);
    this.nLines = index.lines;
    this.nBytes = index.bytes;
  }

  get blocks(): number {
    return this.nLines === 0 ? 0 : this.cps.length;
  }

  get lines(): number {
    return this.nLines;
  }

  /**
   * Whole lines appended to a plain file since it was read (a log still being written, `F` in the Log view): they
   * become new blocks (a checkpoint where they start, one every 1024 lines). Reads only the new bytes, in chunks; a
   * line not yet ended by a newline waits for the next call. Returns how many lines were added (0 for content that
   * is not a plain file).
   */
  grow(): Promise<number> {
    const path = this.plainPath();
    if (path === null) return Promise.resolve(0);
    return this.serial(async () => {
      if (this.closed) return 0;
      this.file ??= await openInput(path);
      const { size } = await this.file.stat();
      if (size <= this.nBytes) return 0;
      const buf = this.buffer(READ_BYTES);
      let pos = this.nBytes;
      // The known content ends mid-line (no newline at its end): the appended bytes up to the next newline finish
      // that line; it is not a new one.
      let inLast = false;
      if (pos > 0) {
        const { bytesRead } = await this.file.read(buf, 0, 1, pos - 1);
        inLast = bytesRead === 1 && buf[0] !== 10;
      }
      let lineStart = inLast ? -1 : pos;
      let added = 0;
      let sinceCp = 0;
      let end = pos;
      while (pos < size) {
        const { bytesRead } = await this.file.read(buf, 0, Math.min(buf.length, size - pos), pos);
        if (bytesRead === 0) break;
        for (let i = buf.indexOf(10, 0); i >= 0 && i < bytesRead; i = buf.indexOf(10, i + 1)) {
          const nl = pos + i;
          if (lineStart < 0) {
            lineStart = nl + 1;
            end = nl + 1;
            continue;
          }
          if (added === 0 ? this.nLines > 0 : sinceCp >= 1024) {
            // Appended lines start a block of their own (the blocks read before stay as they were), then one every 1024.
            this.cps.push([this.nLines + added + 1, lineStart]);
            sinceCp = 0;
          }
          added++;
          sinceCp++;
          lineStart = nl + 1;
          end = nl + 1;
        }
        pos += bytesRead;
      }
      this.nLines += added;
      this.nBytes = end;
      return added;
    });
  }

  span(k: number): BlockSpan {
    const [firstLine, start] = this.cps[k] as [number, number];
    const next = this.cps[k + 1];
    const lastLine = next ? next[0] - 1 : this.nLines;
    return { firstLine, count: Math.max(0, lastLine - firstLine + 1), start, end: next ? next[1] : this.nBytes };
  }

  /** The block holding line `lineNo`. */
  blockOf(lineNo: number): number {
    let lo = 0;
    let hi = this.cps.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.cps[mid] as [number, number])[0] <= lineNo) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** All lines of block `k`. */
  readBlock(k: number): Promise<RawLine[]> {
    const s = this.span(k);
    return this.serial(() => this.readSpan(s.start, s.end, s.firstLine, s.count));
  }

  /** Blocks `k0..k1` (inclusive) in one read: cheap neighbours when the content can only be read forward. */
  readBlocks(k0: number, k1: number): Promise<RawLine[][]> {
    const a = this.span(k0);
    const b = this.span(k1);
    return this.serial(async () => {
      const all = await this.readSpan(a.start, b.end, a.firstLine, b.firstLine + b.count - a.firstLine);
      const out: RawLine[][] = [];
      for (let k = k0; k <= k1; k++) {
        const s = this.span(k);
        const from = s.firstLine - a.firstLine;
        out.push(all.slice(from, from + s.count));
      }
      return out;
    });
  }

  /**
   * The bytes of block `k` in one piece (for a cheap search over the whole block before splitting it into lines), or
   * null when the block is larger than `cap` (over-long lines): then read it with readBlock, which bounds each line.
   * The buffer is reused by the next read of this reader: use it before reading again.
   */
  readBlockBytes(k: number, cap = 8 << 20): Promise<Buffer | null> {
    const s = this.span(k);
    const k1 = k + 1 < this.cps.length;
    if (!k1 || s.end - s.start > cap || s.end < s.start) return Promise.resolve(null);
    return this.serial(async () => {
      if (this.closed) throw new Error('reader closed');
      const len = s.end - s.start;
      const path = this.plainPath();
      if (path !== null) {
        this.file ??= await openInput(path);
        const buf = this.buffer(len).subarray(0, len);
        let got = 0;
        while (got < len) {
          const { bytesRead } = await this.file.read(buf, got, len - got, s.start + got);
          if (bytesRead === 0) break;
          got += bytesRead;
        }
        return got === len ? buf : null;
      }
      this.cursor ??= new ForwardCursor(() => this.artifact.open());
      const parts: Buffer[] = [];
      let got = 0;
      await this.cursor.read(s.start, (b) => {
        const take = Math.min(b.length, len - got);
        parts.push(Buffer.from(b.subarray(0, take)));
        got += take;
        return got < len;
      });
      return got === len ? Buffer.concat(parts, len) : null;
    });
  }

  /** Lines of block `k` from its bytes (as readBlockBytes gave them); the first `max` only when given. */
  linesOf(k: number, bytes: Buffer, max?: number): RawLine[] {
    const s = this.span(k);
    const split = new LineSplitter(s.firstLine, s.start, Math.min(max ?? s.count, s.count), this.maxLineBytes);
    split.push(bytes);
    split.end();
    return split.out;
  }

  /** Whether blocks can be read in any order at the same cost (a plain file on disk). */
  get seekable(): boolean {
    return this.plainPath() !== null;
  }

  /** The first `n` lines of block `k` (reads a little, for time probes). */
  readHead(k: number, n: number): Promise<RawLine[]> {
    const s = this.span(k);
    return this.serial(() => this.readSpan(s.start, Math.min(s.end, s.start + HEAD_BYTES), s.firstLine, Math.min(n, s.count), true));
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The file's validated path when the artifact is a plain file on disk (no decompression; small ones too, which the
   *  analysis read from memory), else null. */
  private plainPath(): string | null {
    return this.artifact.file?.realPath ?? this.artifact.onDisk ?? null;
  }

  private async readSpan(start: number, end: number, firstLine: number, count: number, partialOk = false): Promise<RawLine[]> {
    if (this.closed) throw new Error('reader closed');
    const split = new LineSplitter(firstLine, start, count, this.maxLineBytes);
    if (count === 0) return split.out;
    const path = this.plainPath();
    if (path !== null) {
      this.file ??= await openInput(path);
      const buf = this.buffer(READ_BYTES);
      let pos = start;
      // Past `end` only to finish the block's last line when the file has no newline there (read to EOF).
      for (;;) {
        const want = pos < end ? Math.min(READ_BYTES, end - pos) : READ_BYTES;
        const { bytesRead } = await this.file.read(buf, 0, Math.min(want, buf.length), pos);
        if (bytesRead === 0) break;
        pos += bytesRead;
        if (!split.push(buf.subarray(0, bytesRead))) break;
        if (pos >= end && partialOk) break;
        if (pos >= end + (1 << 20)) break;
      }
    } else {
      this.cursor ??= new ForwardCursor(() => this.artifact.open());
      let pos = start;
      await this.cursor.read(start, (b) => {
        if (pos >= end && partialOk) return false;
        const more = split.push(b);
        pos += b.length;
        return more && pos < end + (1 << 20);
      });
    }
    split.end();
    return split.out;
  }

  close(): void {
    this.closed = true;
    this.scratch = null;
    void this.file?.close().catch(() => undefined);
    this.file = null;
    this.cursor?.close();
    this.cursor = null;
  }
}

/**
 * Passes a stream through, reporting bytes and lines read so far (for progress displays). Errors of the source reach
 * the reader of the returned stream.
 */
export function countingStream(source: Readable, report: (bytes: number, lines: number) => void): Readable {
  const out = new PassThrough({ highWaterMark: 1 << 20 });
  let bytes = 0;
  let lines = 0;
  source.on('error', (err) => out.destroy(err));
  out.on('close', () => source.destroy());
  source.on('data', (chunk: Buffer | string) => {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    bytes += b.length;
    for (let p = b.indexOf(10); p >= 0; p = b.indexOf(10, p + 1)) lines++;
    report(bytes, lines);
    if (!out.write(b)) source.pause();
  });
  out.on('drain', () => source.resume());
  source.on('end', () => out.end());
  return out;
}
