// Bytes → lines without holding a file in memory. We do not use split2 here (design.md §8 names it): it decodes every
// line to a separate string, while we want (1) the byte offset of each line, so the TUI can re-read a line lazily, and
// (2) a prefilter run over whole chunks, so the lines no signal cares about are counted and never materialised.
// Chunks are decoded as latin1, where one char = one byte, so string indices are byte offsets; visited lines are
// re-decoded as UTF-8 from the bytes.
import type { Readable } from 'node:stream';

export interface LineVisitor {
  /** A line to parse (UTF-8, without the newline). `lineNo` is 1-based, `offset` the byte offset of its start. */
  line(text: string, lineNo: number, offset: number): void;
}

export interface ScanOptions {
  /** Global regex; a line is visited when it contains a match. Lines up to `headLines` are always visited. */
  prefilter: RegExp | null;
  headLines?: number;
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
}

const DEFAULT_MAX_LINE = 256 * 1024;
const NO_MATCH = Number.MAX_SAFE_INTEGER;

export class LineScanner {
  private carry: Buffer | null = null;
  private carryAbs = 0;
  private dropping = false;
  private chunkAbs = 0;
  private lineNo = 0;
  private readonly headLines: number;
  private readonly maxLine: number;
  private readonly re: RegExp | null;
  private last: { buf: Buffer; from: number; to: number; lineNo: number; abs: number } | null = null;
  private longLines: number[] = [];
  private longLineCount = 0;

  constructor(private readonly visitor: LineVisitor, opts: ScanOptions) {
    if (opts.prefilter && !opts.prefilter.global) throw new Error('prefilter must be a global regex');
    this.re = opts.prefilter;
    this.headLines = opts.headLines ?? 64;
    this.maxLine = opts.maxLineBytes ?? DEFAULT_MAX_LINE;
  }

  push(chunk: Buffer): void {
    let buf: Buffer;
    let bufAbs: number;
    if (this.dropping) {
      const nl = chunk.indexOf(10);
      if (nl < 0) {
        this.chunkAbs += chunk.length;
        return;
      }
      this.dropping = false;
      this.lineNo++;
      this.noteLong();
      const c = this.carry as Buffer;
      this.carry = null;
      this.visitIfWanted(c, 0, c.length, this.carryAbs);
      buf = chunk.subarray(nl + 1);
      bufAbs = this.chunkAbs + nl + 1;
    } else if (this.carry) {
      buf = Buffer.concat([this.carry, chunk]);
      bufAbs = this.carryAbs;
      this.carry = null;
    } else {
      buf = chunk;
      bufAbs = this.chunkAbs;
    }
    this.chunkAbs += chunk.length;

    const s = buf.toString('latin1');
    const re = this.re;
    let pos = 0;
    let nextMatch = -1;
    for (;;) {
      const nl = s.indexOf('\n', pos);
      if (nl < 0) break;
      this.lineNo++;
      let visit = re === null || this.lineNo <= this.headLines;
      if (!visit && re !== null) {
        if (nextMatch < pos) {
          re.lastIndex = pos;
          const m = re.exec(s);
          nextMatch = m ? m.index : NO_MATCH;
        }
        if (nextMatch === NO_MATCH) {
          // Nothing of interest in the rest of this chunk: count its lines without materialising them.
          let lineStart = pos;
          let lineEnd = nl;
          let p = nl + 1;
          for (;;) {
            const k = s.indexOf('\n', p);
            if (k < 0) break;
            this.lineNo++;
            lineStart = p;
            lineEnd = k;
            p = k + 1;
          }
          this.last = { buf, from: lineStart, to: lineEnd, lineNo: this.lineNo, abs: bufAbs };
          pos = p;
          break;
        }
        visit = nextMatch < nl;
      }
      if (visit) this.emit(buf, pos, nl, bufAbs);
      this.last = { buf, from: pos, to: nl, lineNo: this.lineNo, abs: bufAbs };
      pos = nl + 1;
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

  private noteLong(): void {
    this.longLineCount++;
    if (this.longLines.length < 10) this.longLines.push(this.lineNo);
  }

  private visitIfWanted(buf: Buffer, from: number, to: number, abs: number): void {
    const re = this.re;
    let want = re === null || this.lineNo <= this.headLines;
    if (!want && re) {
      re.lastIndex = 0;
      want = re.test(buf.toString('latin1', from, to));
    }
    if (want) this.emit(buf, from, to, abs);
    this.last = { buf, from, to, lineNo: this.lineNo, abs };
  }

  private emit(buf: Buffer, from: number, to: number, abs: number): void {
    let end = to;
    if (end > from && buf[end - 1] === 13) end--;
    if (end - from > this.maxLine) {
      this.noteLong();
      end = from + this.maxLine;
    }
    this.visitor.line(buf.toString('utf8', from, end), this.lineNo, abs + from);
  }

  finish(): ScanResult {
    if (this.carry && this.carry.length > 0) {
      // The last line had no newline (or was cut while over-long).
      this.lineNo++;
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
    return { lines: this.lineNo, bytes: this.chunkAbs, lastLine, longLines: this.longLines, longLineCount: this.longLineCount };
  }
}

/** Feeds a whole stream through a scanner. Stream errors (truncated gzip, I/O) propagate to the caller. */
export async function scanStream(stream: Readable, scanner: LineScanner): Promise<ScanResult> {
  for await (const chunk of stream) {
    scanner.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  }
  return scanner.finish();
}
