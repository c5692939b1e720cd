// One large log scanned on every core: the file is cut into byte ranges (src/input/ranges.ts: each owns the lines that
// start in it), runners (worker threads, or this thread in tests) extract each range on their own, and merge() stitches
// the results back in order: line numbers and offsets rebased, the year walk carried across, kubelet restarts that fall
// on a boundary found, windows and counters combined.
import { readRangeSync, type FileRange } from '../input/ranges.js';
import { parseLine } from '../parse/record.js';
import { WallClock, YearClock } from '../parse/time.js';
import type { SignalEvent } from './events.js';
import {
  completeSignals, distinctHosts, HEAD_LINES, SignalExtractor, type ArtifactSignals, type ExtractOptions, type HostWindow, type SegmentOptions, type SegmentTail,
} from './extract.js';

export interface SegmentResult {
  signals: ArtifactSignals;
  tail: SegmentTail;
}

/** Extracts one range of a plain file (what a worker thread does; tests run it in this thread). `onChunk` sees the bytes. */
export function runRangeHere(opts: ExtractOptions, range: FileRange, options: SegmentOptions, onChunk?: (bytes: Buffer) => void): SegmentResult {
  // Made at the first chunk, which tells where the range's first line starts in the file.
  let ex: SignalExtractor | null = null;
  readRangeSync(range, (b, position) => {
    ex ??= new SignalExtractor(opts, { ...options, offset: position });
    ex.push(b);
    onChunk?.(b);
  });
  ex ??= new SignalExtractor(opts, { ...options, offset: range.start });
  return ex.finishSegment();
}

/** Month and day of the first dated line in `bytes` (journal `short` or klog header), for the year walk. */
function firstMonthDay(bytes: Buffer, wall: WallClock): { month: number; day: number } | null {
  const head = bytes.toString('latin1', 0, Math.min(bytes.length, 16 * 1024)).split('\n', 40);
  for (const line of head) {
    const probe = new YearClock(wall, { year: 2000 });
    const rec = parseLine(line, 1, 0, { years: probe, wall });
    const st = probe.state();
    if (rec && st.lastMonth >= 0) {
      const d = new Date(rec.ts);
      return { month: st.lastMonth, day: d.getUTCDate() };
    }
  }
  return null;
}

/**
 * How many journal hosts the first lines of `head` name, as the extractor counts them at the end of its head lines. A
 * log of several hosts (must-gather's merged node logs) is not cut into ranges: it samples more densely from there on
 * and reads its tail again, which only one pass over the whole file does.
 */
export function hostsInHead(head: Buffer, opts: ExtractOptions, lines = HEAD_LINES): number {
  const wall = new WallClock(opts.zone);
  const hosts = new Set<string | null>();
  for (const line of head.toString('latin1', 0, Math.min(head.length, 64 * 1024)).split('\n', lines)) {
    const rec = parseLine(line, 1, 0, { years: new YearClock(wall, { year: 2000 }), wall });
    if (rec && !(Number.isNaN(rec.ts) && Number.isNaN(rec.mono))) hosts.add(rec.host);
  }
  return distinctHosts(hosts);
}

/** The year rule of YearClock applied to a segment start: where would a walk at `from` put month `month`? */
function rollYear(from: { year: number; lastMonth: number }, month: number): number {
  if (from.lastMonth < 0) return from.year;
  if (month < from.lastMonth && from.lastMonth - month >= 6) return from.year + 1;
  if (month > from.lastMonth && month - from.lastMonth >= 6) return from.year - 1;
  return from.year;
}

function shiftYears(ms: number, delta: number): number {
  if (!Number.isFinite(ms) || delta === 0) return ms;
  const d = new Date(ms);
  d.setUTCFullYear(d.getUTCFullYear() + delta);
  return d.getTime();
}

type YearStart = { year: number; lastMonth: number } | undefined;

/**
 * The year walk of the reading thread over the first line of each segment, in file order: each later segment starts
 * from the year this walk gives it; merge() corrects it if a header or roll-over inside the previous one says otherwise.
 */
function yearStarter(opts: ExtractOptions): (head: Buffer, first: boolean) => YearStart {
  const wall = new WallClock(opts.zone);
  const walker = new YearClock(wall, { year: opts.year, notAfterMs: opts.notAfterMs });
  return (head, first) => {
    const md = firstMonthDay(head, wall);
    if (md) {
      const y = walker.yearFor(md.month, md.day);
      return first ? undefined : { year: y, lastMonth: md.month };
    }
    return first ? undefined : walker.state();
  };
}

/** Runs the ranges of one file (in parallel) and merges them. `heads[k]`: the first bytes of range k (its first date). */
export async function extractRanges<R>(
  ranges: R[], heads: Buffer[], opts: ExtractOptions, run: (range: R, options: SegmentOptions) => Promise<SegmentResult>,
): Promise<ArtifactSignals> {
  const yearStart = yearStarter(opts);
  const starts = ranges.map((_, k) => yearStart(heads[k] ?? Buffer.alloc(0), k === 0));
  const parts = await Promise.all(ranges.map((r, k) => {
    const start = starts[k];
    return run(r, { first: k === 0, ...(start ? { yearStart: start } : {}) });
  }));
  return merge(parts, starts, opts);
}

/** Stitches segment results (in file order) into one ArtifactSignals, as one pass over the file would give. */
export function merge(parts: SegmentResult[], starts: Array<{ year: number; lastMonth: number } | undefined>, opts: ExtractOptions, readError?: Error): ArtifactSignals {
  const first = parts[0];
  if (!first) {
    const ex = new SignalExtractor(opts);
    return ex.finish(readError);
  }
  let lineBase = 0;
  let byteBase = 0;
  const events: SignalEvent[] = [];
  const hosts = new Map<string | null, HostWindow>();
  const lastPid = new Map<string, number>();
  const nodeNameCounts: Record<string, number> = {};
  const bootAnchors: number[] = [];
  const checkpoints: Array<[number, number]> = [];
  const longLines: number[] = [];
  let longLineCount = 0;
  let backwardJumps = 0;
  let disagreements = 0;
  let firstDisagreement: SegmentTail['firstDisagreement'] = null;
  let prevEnd: { year: number; lastMonth: number } | null = null;
  let prevLastTs = NaN;
  let lastLine = first.signals.scan.lastLine;
  let bytes = 0;

  parts.forEach((part, k) => {
    const { signals: s, tail } = part;
    // Year fix-up: the segment assumed `starts[k]`; the previous segment's end says where the walk really was.
    let delta = 0;
    const assumed = starts[k];
    if (k > 0 && prevEnd && assumed && tail.firstMonth !== null) {
      delta = rollYear(prevEnd, tail.firstMonth) - rollYear(assumed, tail.firstMonth);
    }
    const shift = (ms: number) => shiftYears(ms, delta);
    for (const e of s.events) {
      e.ts = shift(e.ts);
      e.ref.ts = shift(e.ref.ts);
      e.ref.line += lineBase;
      e.ref.offset += byteBase;
    }
    // A kubelet PID that differs from the one the previous segment ended with: a restart on the boundary.
    for (const [key, f] of Object.entries(tail.firstPid)) {
      const prev = lastPid.get(key);
      if (prev !== undefined && prev !== f.pid) {
        events.push({ type: 'kubelet-line', pid: f.pid, ident: f.ident, ts: shift(f.ts), host: f.host, ref: { ...f.ref, ts: shift(f.ref.ts), line: f.ref.line + lineBase, offset: f.ref.offset + byteBase } });
      }
    }
    for (const [key, pid] of Object.entries(tail.lastPid)) lastPid.set(key, pid);
    events.push(...s.events);
    for (const w of s.hosts) {
      const cur = hosts.get(w.host);
      const first = shift(w.first);
      const last = shift(w.last);
      const kl = shift(w.kubeletLast);
      if (!cur) hosts.set(w.host, { host: w.host, first, last, kubeletLast: kl });
      else {
        if (!(cur.first <= first)) cur.first = first;
        if (!(cur.last >= last)) cur.last = last;
        if (!Number.isNaN(kl) && !(cur.kubeletLast >= kl)) cur.kubeletLast = kl;
      }
    }
    for (const [n, c] of Object.entries(tail.nodeNameCounts)) nodeNameCounts[n] = (nodeNameCounts[n] ?? 0) + c;
    for (const b of s.bootAnchors) if (bootAnchors.length < 16) bootAnchors.push(shift(b));
    for (const [l, o] of s.scan.checkpoints) checkpoints.push([l + lineBase, o + byteBase]);
    for (const l of s.scan.longLines) if (longLines.length < 10) longLines.push(l + lineBase);
    longLineCount += s.scan.longLineCount;
    const firstTs = shift(tail.firstTs);
    if (!Number.isNaN(prevLastTs) && firstTs < prevLastTs - 3600_000) backwardJumps++;
    backwardJumps += tail.backwardJumps;
    if (!Number.isNaN(tail.lastTs)) prevLastTs = shift(tail.lastTs);
    disagreements += tail.disagreements;
    if (!firstDisagreement && tail.firstDisagreement) firstDisagreement = { ...tail.firstDisagreement, line: tail.firstDisagreement.line + lineBase };
    if (s.scan.lastLine) lastLine = { ...s.scan.lastLine, lineNo: s.scan.lastLine.lineNo + lineBase, offset: s.scan.lastLine.offset + byteBase };
    prevEnd = { year: tail.yearEnd.year + delta, lastMonth: tail.yearEnd.lastMonth };
    lineBase += s.scan.lines;
    byteBase += s.scan.bytes;
    bytes += s.scan.bytes;
  });

  const merged: ArtifactSignals = {
    artifact: opts.artifact,
    events,
    hosts: [...hosts.values()],
    scan: { lines: lineBase, bytes, lastLine, longLines, longLineCount, checkpoints },
    warnings: [],
    nodeNames: [],
    bootAnchors,
  };
  const tail: SegmentTail = {
    yearEnd: prevEnd ?? first.tail.yearEnd, firstMonth: first.tail.firstMonth, firstPid: {}, lastPid: {}, nodeNameCounts,
    firstTs: NaN, lastTs: prevLastTs, backwardJumps, disagreements, firstDisagreement,
  };
  return completeSignals(merged, tail, opts, readError);
}
