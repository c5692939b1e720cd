// The Log view's data: one node's logs (kubelet, runtime, kernel) merged by time, without holding their lines. Each
// file is read in blocks between the scanner's checkpoints (src/sources/files/line-reader.ts); a block's lines get their time
// and severity from the shared line parser (src/parse/record.ts). Positions in the merged log are keys
// (time, source, line number); a window around a key is a k-way merge of per-file cursors. Searches walk the files in
// step by time, block by block, so a file without matches is read only as far as the best match so far; they yield
// to the event loop, report progress and stop when their AbortSignal fires.
import { LineReader, type RawLine } from '../sources/files/line-reader.js';
import { parseLine, type Level, type LogRecord } from '../parse/record.js';
import { resolveZone, WallClock, YearClock } from '../parse/time.js';
import type { LogSource } from './model.js';

export interface LogLine {
  /** Index of the source in the node's sources. */
  src: number;
  lineNo: number;
  /** Epoch ms: the line's own time, or that of the nearest timed line before it in the file. */
  ts: number;
  level: Level | null;
  /** The line as read (capped). */
  text: string;
  /** What the Log view shows: the line without its journal envelope and klog header (time, host, pid are columns). */
  body: string;
  cut: boolean;
}

export interface Key {
  ts: number;
  src: number;
  lineNo: number;
}

export type Anchor = Key | 'start' | 'end';

export function cmpKey(a: Key, b: Key): number {
  return a.ts - b.ts || a.src - b.src || a.lineNo - b.lineNo;
}

export function keyOf(l: LogLine): Key {
  return { ts: l.ts, src: l.src, lineNo: l.lineNo };
}

export interface ScanControl {
  signal?: AbortSignal;
  /** Bytes read so far by this scan. */
  onProgress?: (bytes: number) => void;
}

/** What a search looks for: a test on the raw text (cheap: lines are parsed only when one matches), or on parsed lines. */
export type Pred = { raw: (text: string) => boolean; block?: (bytes: Buffer) => boolean } | { line: (l: LogLine) => boolean };

export class ScanAborted extends Error {
  constructor() {
    super('search cancelled');
    this.name = 'ScanAborted';
  }
}

const ERRORISH = /\b(?:error|errors|failed|failure|fatal|panic|oom-kill|out of memory|killed process|blocked for more than|call trace|segfault|not responding)\b/i;
const WARNISH = /\b(?:warn|warning|timeout|timed out|deprecated)\b/i;

/** The part of a parsed line worth a column: the payload, from the klog caller on (`kubelet.go:2373] "…" err=…`), or
 *  from the message on for logrus lines. */
function bodyOf(rec: LogRecord): string {
  let p = rec.payload;
  if (rec.kind === 'klog' && rec.caller) {
    const i = p.indexOf(`${rec.caller}] `);
    if (i >= 0) p = p.slice(i);
  } else if (rec.kind === 'logrus' && p.startsWith('time="')) {
    const i = p.indexOf('" ', 6);
    if (i >= 0) p = p.slice(i + 2);
  }
  const id = rec.ident && rec.kind === 'text' && rec.ident !== 'kernel' ? `${rec.ident}: ` : '';
  return id + p;
}

/** The display body of a line read elsewhere (evidence text); the line itself when it does not parse. */
export function displayBody(text: string): string {
  const wall = new WallClock(resolveZone('UTC'));
  const rec = parseLine(text, 1, 0, { wall, years: new YearClock(wall, { year: 2000 }) });
  return rec ? bodyOf(rec) : text;
}

export function isError(l: LogLine): boolean {
  return l.level === 'E' || l.level === 'F';
}

class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(k: string): V | undefined {
    const v = this.map.get(k);
    if (v !== undefined) {
      this.map.delete(k);
      this.map.set(k, v);
    }
    return v;
  }
  set(k: string, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    while (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
  delete(k: string): void {
    this.map.delete(k);
  }
  clear(): void {
    this.map.clear();
  }
}

interface Shared {
  decorated: Lru<LogLine[]>;
  raw: Lru<RawLine[]>;
}

/** One file of the merged log. */
class FileLog {
  readonly reader: LineReader;
  private blockTs: Float64Array;
  /** Time of the last line of each block (NaN = not known yet): where the next block starts, without reading it. */
  private blockEnd: Float64Array;
  private readonly wall: WallClock;
  private indexed = false;

  constructor(readonly src: number, source: LogSource, private readonly shared: Shared) {
    this.reader = new LineReader(source.artifact, source.index);
    this.blockTs = new Float64Array(this.reader.blocks).fill(NaN);
    this.blockEnd = new Float64Array(this.reader.blocks).fill(NaN);
    let zone;
    try {
      zone = resolveZone(source.index.zone);
    } catch {
      zone = resolveZone('UTC');
    }
    this.wall = new WallClock(zone);
  }

  get blocks(): number {
    return this.reader.blocks;
  }

  /** Takes in the lines appended to the file since it was read (see LineReader.grow); true when there were some. */
  async grow(): Promise<boolean> {
    const before = this.blocks;
    if ((await this.reader.grow()) === 0) return false;
    const ts = new Float64Array(this.blocks).fill(NaN);
    const end = new Float64Array(this.blocks).fill(NaN);
    ts.set(this.blockTs.subarray(0, before));
    // The former last block may have been finished by the appended bytes: its end is read again.
    end.set(this.blockEnd.subarray(0, Math.max(0, before - 1)));
    this.blockTs = ts;
    this.blockEnd = end;
    for (const c of [this.shared.decorated, this.shared.raw]) c.delete(`${this.src}:${before - 1}`);
    return true;
  }

  private years(): YearClock {
    const ix = this.reader.index;
    // A fresh walk per block, anchored at the file's last known time: a line in December of a log that ends in
    // January gets the earlier year, as in the analysis.
    if (ix.lastMs !== null) return new YearClock(this.wall, { notAfterMs: ix.lastMs });
    return new YearClock(this.wall, ix.year !== undefined ? { year: ix.year } : { notAfterMs: null });
  }

  private fallbackTs(k: number): number {
    for (let j = k - 1; j >= 0; j--) if (!Number.isNaN(this.blockTs[j] as number)) return this.blockTs[j] as number;
    return this.reader.index.firstMs ?? 0;
  }

  /** Time and severity for raw lines of block `k`. */
  decorate(raw: RawLine[], k: number): LogLine[] {
    const ctx = { years: this.years(), wall: this.wall };
    const out: LogLine[] = [];
    let firstTimed = NaN;
    for (const r of raw) {
      let ts = NaN;
      let level: Level | null = null;
      let body = r.text;
      const rec = r.text.length > 0 ? parseLine(r.text, r.lineNo, r.offset, ctx) : null;
      if (rec) {
        ts = rec.ts;
        level = rec.level;
        if (level === null && rec.kind === 'text') level = ERRORISH.test(rec.msg) ? 'E' : WARNISH.test(rec.msg) ? 'W' : null;
        body = bodyOf(rec);
      }
      if (Number.isNaN(firstTimed) && !Number.isNaN(ts)) firstTimed = ts;
      out.push({ src: this.src, lineNo: r.lineNo, ts, level, text: r.text, body, cut: r.cut });
    }
    let prev = Number.isNaN(firstTimed) ? this.fallbackTs(k) : firstTimed;
    for (const l of out) {
      if (Number.isNaN(l.ts)) l.ts = prev;
      else prev = l.ts;
    }
    if (Number.isNaN(this.blockTs[k] as number)) this.blockTs[k] = Number.isNaN(firstTimed) ? prev : firstTimed;
    const last = out[out.length - 1];
    if (last && raw.length === this.reader.span(k).count) this.blockEnd[k] = last.ts;
    return out;
  }

  /** Time of one line on this file's clock (NaN when it has none). */
  private lineTs(r: RawLine): number {
    const rec = parseLine(r.text, r.lineNo, r.offset, { years: this.years(), wall: this.wall });
    return rec ? rec.ts : NaN;
  }

  /** One line parsed on this file's clock (null when it is not a log entry). */
  record(l: LogLine): LogRecord | null {
    return l.text.length > 0 ? parseLine(l.text, l.lineNo, 0, { years: this.years(), wall: this.wall }) : null;
  }

  /** Time of the last line of block `k`, when known. */
  endTs(k: number): number {
    return this.blockEnd[k] as number;
  }

  async rawBlock(k: number): Promise<RawLine[]> {
    const key = `${this.src}:${k}`;
    const hit = this.shared.raw.get(key);
    if (hit) return hit;
    if (!this.reader.seekable && k > 0) {
      // Forward-only content: read this block with its neighbours in one pass.
      const k0 = Math.max(0, k - 2);
      const k1 = Math.min(this.blocks - 1, k + 1);
      const all = await this.reader.readBlocks(k0, k1);
      all.forEach((lines, j) => this.shared.raw.set(`${this.src}:${k0 + j}`, lines));
      return all[k - k0] as RawLine[];
    }
    const lines = await this.reader.readBlock(k);
    this.shared.raw.set(key, lines);
    return lines;
  }

  async block(k: number): Promise<LogLine[]> {
    const key = `${this.src}:${k}`;
    const hit = this.shared.decorated.get(key);
    if (hit) return hit;
    const lines = this.decorate(await this.rawBlock(k), k);
    this.shared.decorated.set(key, lines);
    return lines;
  }

  /** The lines of block `k` that match; parses only blocks with a raw match (for raw predicates). */
  async matches(k: number, pred: Pred): Promise<LogLine[]> {
    const cached = this.shared.decorated.get(`${this.src}:${k}`);
    if ('line' in pred) {
      const lines = cached ?? this.decorate(await this.reader.readBlock(k), k);
      return lines.filter(pred.line);
    }
    if (cached) return cached.filter((l) => pred.raw(l.text));
    let raw = this.shared.raw.get(`${this.src}:${k}`);
    if (!raw) {
      const bytes = pred.block ? await this.reader.readBlockBytes(k) : null;
      if (bytes && pred.block && !pred.block(bytes)) {
        // Nothing in this block can match: only its first time is worth keeping (for the search's bounds).
        if (Number.isNaN(this.blockTs[k] as number)) this.decorate(this.reader.linesOf(k, bytes.subarray(0, 64 * 1024), 16), k);
        if (Number.isNaN(this.blockEnd[k] as number)) {
          const span = this.reader.span(k);
          const end = bytes.length > 0 && bytes[bytes.length - 1] === 10 ? bytes.length - 1 : bytes.length;
          const from = bytes.lastIndexOf(10, end - 1) + 1;
          const text = bytes.toString('utf8', from, Math.min(end, from + 4096)).replace(/\r$/, '');
          this.blockEnd[k] = this.lineTs({ lineNo: span.firstLine + span.count - 1, offset: span.start + from, text, cut: false });
        }
        return [];
      }
      raw = bytes ? this.reader.linesOf(k, bytes) : await this.reader.readBlock(k);
    }
    const hits: number[] = [];
    for (let i = 0; i < raw.length; i++) if (pred.raw((raw[i] as RawLine).text)) hits.push(i);
    if (hits.length === 0) {
      if (Number.isNaN(this.blockTs[k] as number)) this.decorate(raw.slice(0, 16), k);
      return [];
    }
    const lines = this.decorate(raw, k);
    return hits.map((i) => lines[i] as LogLine);
  }

  spanBytes(k: number): number {
    const s = this.reader.span(k);
    return Math.max(0, s.end - s.start);
  }

  /** Time of the first timed line of block `k` (a probe of its head when it is not cached). */
  async firstTs(k: number, ctl?: ScanControl): Promise<number> {
    const v = this.blockTs[k] as number;
    if (!Number.isNaN(v)) return v;
    if (!this.reader.seekable && !this.indexed) {
      await this.indexAll(ctl);
      const w = this.blockTs[k] as number;
      if (!Number.isNaN(w)) return w;
    }
    const cached = this.shared.decorated.get(`${this.src}:${k}`);
    if (cached) return this.blockTs[k] as number;
    const head = await this.reader.readHead(k, 32);
    this.decorate(head, k);
    if (Number.isNaN(this.blockTs[k] as number)) await this.block(k);
    return this.blockTs[k] as number;
  }

  /** Forward-only content: the first time of every block in one pass (probing in a binary search would re-read it). */
  private async indexAll(ctl?: ScanControl): Promise<void> {
    let bytes = 0;
    for (let k = 0; k < this.blocks; k++) {
      check(ctl);
      if (Number.isNaN(this.blockTs[k] as number)) this.decorate(await this.reader.readHead(k, 32), k);
      bytes += this.spanBytes(k);
      ctl?.onProgress?.(bytes);
    }
    this.indexed = true;
  }

  /** Position (block, index) of the first line whose key is at or after `key` ({k: blocks} when none). */
  async lowerBound(key: Key, ctl?: ScanControl): Promise<{ k: number; i: number }> {
    const n = this.blocks;
    if (n === 0 || key.ts === Infinity) return { k: n, i: 0 };
    let start = 0;
    if (key.ts !== -Infinity) {
      let lo = 0;
      let hi = n - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if ((await this.firstTs(mid, ctl)) < key.ts) {
          start = mid;
          lo = mid + 1;
        } else hi = mid - 1;
      }
    }
    for (let k = start; k < n; k++) {
      check(ctl);
      const lines = await this.block(k);
      for (let i = 0; i < lines.length; i++) if (cmpKey(lines[i] as LogLine, key) >= 0) return { k, i };
    }
    return { k: n, i: 0 };
  }

  close(): void {
    this.reader.close();
  }
}

function check(ctl?: ScanControl): void {
  if (ctl?.signal?.aborted) throw new ScanAborted();
}

let lastYield = Date.now();
async function breathe(): Promise<void> {
  // Long scans hand the event loop back every few milliseconds so keys (esc) and redraws get through.
  if (Date.now() - lastYield < 8) return;
  await new Promise<void>((r) => setImmediate(r));
  lastYield = Date.now();
}

/** Walks one file from a position, block by block, yielding the (matching) lines in order. */
class Cursor {
  private buf: LogLine[] = [];
  private p = 0;
  private k: number;
  private first = true;
  /** Bound on the keys not yet loaded: lower bound going forward, upper bound going back. */
  bound: number;

  constructor(
    private readonly f: FileLog,
    start: { k: number; i: number },
    private readonly dir: 1 | -1,
    private readonly startI: number,
    private readonly pred: Pred | null,
    private readonly scanned: { bytes: number },
    private readonly ctl: ScanControl | undefined,
    anchorTs: number,
  ) {
    this.k = start.k;
    this.bound = dir > 0 ? -Infinity : anchorTs;
  }

  get done(): boolean {
    return this.p >= this.buf.length && (this.dir > 0 ? this.k >= this.f.blocks : this.k < 0);
  }

  /** The next line, if one is loaded. */
  head(): LogLine | null {
    return this.p < this.buf.length ? (this.buf[this.p] as LogLine) : null;
  }

  advance(): void {
    this.p++;
  }

  /** Loads the next block; afterwards head() may still be null (no match in it). */
  async step(): Promise<void> {
    check(this.ctl);
    const { f, dir } = this;
    if (dir > 0 ? this.k >= f.blocks : this.k < 0) return;
    const k = this.k;
    let lines = this.pred ? await f.matches(k, this.pred) : await f.block(k);
    if (this.first) {
      const span = f.reader.span(k);
      const limit = span.firstLine + this.startI;
      lines = lines.filter((l) => (dir > 0 ? l.lineNo >= limit : l.lineNo <= limit));
      this.first = false;
    }
    if (dir < 0) lines = [...lines].reverse();
    this.buf = lines;
    this.p = 0;
    this.scanned.bytes += f.spanBytes(k);
    this.ctl?.onProgress?.(this.scanned.bytes);
    this.k += dir;
    if (dir > 0) {
      // The next block starts where this one ended (in a file in time order): no need to read it for its first time.
      const end = f.endTs(k);
      this.bound = this.k >= f.blocks ? Infinity : !Number.isNaN(end) ? end : await f.firstTs(this.k, this.ctl);
    } else this.bound = await f.firstTs(k, this.ctl);
    await breathe();
  }
}

/** How many lines match a filter, and where (null when there are too many to keep). */
export interface MatchIndex {
  count: number;
  keys: Key[] | null;
}

export interface LineDetail {
  /** False when the line has no time of its own (it is shown at the time of the dated line before it). */
  ownTime: boolean;
  level: Level | null;
  /** Parsed parts of the line: host, process, caller, message, then its key=value fields as written. */
  fields: Array<[string, string]>;
}

export interface Window {
  /** Lines before the anchor, nearest first. */
  before: LogLine[];
  /** Lines at or after the anchor, in order. */
  after: LogLine[];
}

/** A node's logs merged by time. */
export class MergedLog {
  private readonly files: FileLog[];
  // Cached blocks: a screen needs two or three per file; more only spare re-reads when scrolling back and forth.
  private readonly shared: Shared = { decorated: new Lru(16), raw: new Lru(4) };

  constructor(readonly sources: LogSource[]) {
    this.files = sources.map((s, i) => new FileLog(i, s, this.shared));
  }

  get empty(): boolean {
    return this.files.every((f) => f.blocks === 0);
  }

  private keyFor(a: Anchor): Key {
    if (a === 'start') return { ts: -Infinity, src: -1, lineNo: -1 };
    if (a === 'end') return { ts: Infinity, src: Infinity, lineNo: Infinity };
    return a;
  }

  /** Up to `before` lines before the anchor and `after` lines at or after it (only matching ones with `pred`). */
  async window(anchor: Anchor, before: number, after: number, pred: Pred | null = null, ctl?: ScanControl): Promise<Window> {
    const key = this.keyFor(anchor);
    const scanned = { bytes: 0 };
    const starts = await Promise.all(this.files.map((f) => f.lowerBound(key, ctl)));
    const fwd = after > 0 ? this.files.map((f, j) => {
      const s = starts[j] as { k: number; i: number };
      return new Cursor(f, s, 1, s.i, pred, scanned, ctl, key.ts);
    }) : [];
    const back = before > 0 ? this.files.map((f, j) => {
      const s = starts[j] as { k: number; i: number };
      // The line before the start: in the same block, or the last of the previous one.
      const k = s.i > 0 ? s.k : s.k - 1;
      const i = s.i > 0 ? s.i - 1 : Number.MAX_SAFE_INTEGER;
      return new Cursor(f, { k: Math.min(k, f.blocks - 1), i }, -1, k >= f.blocks ? Number.MAX_SAFE_INTEGER : i, pred, scanned, ctl, key.ts);
    }) : [];
    return { after: await take(fwd, after, 1), before: await take(back, before, -1) };
  }

  /** The first line after (dir 1) or before (dir -1) `from` that satisfies `pred`. */
  async find(from: Key, dir: 1 | -1, pred: Pred, ctl?: ScanControl): Promise<LogLine | null> {
    if (dir < 0) return (await this.window(from, 1, 0, pred, ctl)).before[0] ?? null;
    const w = await this.window(from, 0, 2, pred, ctl);
    return w.after.find((l) => cmpKey(l, from) > 0) ?? null;
  }

  /** The first line at or after time `ts` (else the last line). */
  async atTime(ts: number, ctl?: ScanControl): Promise<LogLine | null> {
    const w = await this.window({ ts, src: -1, lineNo: -1 }, 1, 1, null, ctl);
    return w.after[0] ?? w.before[0] ?? null;
  }

  /** Every line that satisfies `pred`: how many, and (up to `keep` of them) where, in key order. Reads each file
   *  once from start to end, skipping blocks that cannot match; stops when the signal fires. */
  async count(pred: Pred, keep: number, ctl?: ScanControl & { onFraction?: (f: number) => void }): Promise<MatchIndex> {
    let total = 0;
    for (const f of this.files) for (let k = 0; k < f.blocks; k++) total += f.spanBytes(k);
    let done = 0;
    let n = 0;
    const keys: Key[] = [];
    for (const f of this.files) {
      for (let k = 0; k < f.blocks; k++) {
        check(ctl);
        const hits = await f.matches(k, pred);
        n += hits.length;
        for (const h of hits) if (keys.length < keep) keys.push(keyOf(h));
        done += f.spanBytes(k);
        ctl?.onFraction?.(total > 0 ? done / total : 1);
        await breathe();
      }
    }
    keys.sort(cmpKey);
    return { count: n, keys: n <= keep ? keys : null };
  }

  /** Takes in lines appended to the files since they were read (a log still being written); true when there were
   *  some. Only plain files grow; compressed files and archive members are read as they were. */
  async grow(): Promise<boolean> {
    let grew = false;
    for (const f of this.files) if (await f.grow()) grew = true;
    return grew;
  }

  /** The same sources, read through readers and caches of its own (a background scan does not disturb the view's). */
  fork(): MergedLog {
    return new MergedLog(this.sources);
  }

  /** Everything one line says, field by field, for the line detail view. */
  describe(l: LogLine): LineDetail {
    const f = this.files[l.src];
    const rec = f?.record(l) ?? null;
    const fields: Array<[string, string]> = [];
    if (rec) {
      if (rec.host) fields.push(['host', rec.host]);
      if (rec.ident) fields.push(['process', rec.pid !== null && rec.kind === 'text' ? `${rec.ident}[${rec.pid}]` : rec.ident]);
      if (rec.pid !== null && rec.kind !== 'text') fields.push(['pid', String(rec.pid)]);
      if (rec.caller) fields.push(['caller', rec.caller]);
      fields.push(['message', rec.msg]);
      for (const [k, v] of Object.entries(rec.fields)) fields.push([k, v]);
    }
    return { ownTime: rec !== null && !Number.isNaN(rec.ts), level: rec?.level ?? l.level, fields };
  }

  /** Line `lineNo` of source `src`, with its time. */
  async line(src: number, lineNo: number): Promise<LogLine | null> {
    const f = this.files[src];
    if (!f || lineNo < 1 || lineNo > f.reader.lines) return null;
    const k = f.reader.blockOf(lineNo);
    const lines = await f.block(k);
    return lines.find((l) => l.lineNo === lineNo) ?? null;
  }

  close(): void {
    for (const f of this.files) f.close();
    this.shared.decorated.clear();
    this.shared.raw.clear();
  }
}

/** K-way merge: the next `n` lines over the cursors, in key order (dir 1) or reverse key order (dir -1). Cursors
 *  whose unread rest cannot come first are not read further. */
async function take(cursors: Cursor[], n: number, dir: 1 | -1): Promise<LogLine[]> {
  const out: LogLine[] = [];
  while (out.length < n) {
    let best: Cursor | null = null;
    for (const c of cursors) {
      const h = c.head();
      if (h && (!best || dir * cmpKey(h, best.head() as LogLine) < 0)) best = c;
    }
    // A cursor with nothing loaded may still hold an earlier line, unless its bound says otherwise.
    let need: Cursor | null = null;
    for (const c of cursors) {
      if (c.head() || c.done) continue;
      const bh = best?.head();
      if (bh && dir * (c.bound - bh.ts) > 0) continue;
      if (!need || dir * (c.bound - need.bound) < 0) need = c;
    }
    if (need) {
      await need.step();
      continue;
    }
    if (!best) break;
    out.push(best.head() as LogLine);
    best.advance();
  }
  return out;
}
