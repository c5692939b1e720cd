// One large log scanned on both cores: the reading thread cuts the byte stream at line boundaries into segments,
// runners (worker threads, or this thread in tests) extract each segment independently, and merge() stitches the
// results back in order: line numbers and offsets rebased, the year walk carried across, kubelet restarts that fall on
// a boundary found, windows and counters combined.
import type { Readable } from 'node:stream';
import { parseLine } from '../parse/record.js';
import { WallClock, YearClock } from '../parse/time.js';
import type { SignalEvent } from './events.js';
import {
  completeSignals, SignalExtractor, type ArtifactSignals, type ExtractOptions, type HostWindow, type SegmentOptions, type SegmentTail,
} from './extract.js';

export interface Segment {
  seq: number;
  bytes: Buffer;
  options: SegmentOptions;
}

export interface SegmentResult {
  signals: ArtifactSignals;
  tail: SegmentTail;
}

export type SegmentRunner = (seg: Segment) => Promise<SegmentResult>;

export const SEGMENT_BYTES = 2 * 1024 * 1024;
/** A line longer than this is cut into pieces at a segment boundary rather than buffered without limit. */
const MAX_CARRY = 4 * SEGMENT_BYTES;

/** Runs one segment in this thread (the worker does exactly this on its side). */
export function runSegmentHere(opts: ExtractOptions, seg: Segment): SegmentResult {
  const ex = new SignalExtractor(opts, seg.options);
  ex.push(seg.bytes);
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

/**
 * Reads `stream`, cuts it into line-aligned segments of about SEGMENT_BYTES, runs them (at most `parallel` at a time)
 * and merges the results. `readError` handling matches extractSignals: what was read is analyzed, with a warning.
 */
export async function extractSegmented(stream: Readable, opts: ExtractOptions, run: SegmentRunner, parallel: number, segmentBytes = SEGMENT_BYTES): Promise<ArtifactSignals> {
  const wall = new WallClock(opts.zone);
  const walker = new YearClock(wall, { year: opts.year, notAfterMs: opts.notAfterMs });
  const results: Array<Promise<SegmentResult>> = [];
  const starts: Array<{ year: number; lastMonth: number } | undefined> = [];
  const pending: Buffer[] = [];
  let pendingBytes = 0;
  let seq = 0;
  let inFlight = 0;
  let wake: (() => void) | null = null;
  let readError: Error | undefined;

  const dispatch = (bytes: Buffer): void => {
    const first = seq === 0;
    // The year walk of the reading thread gives each later segment its starting year; merge() corrects it if a
    // header or roll-over inside the previous segment says otherwise.
    const md = firstMonthDay(bytes, wall);
    let yearStart: { year: number; lastMonth: number } | undefined;
    if (md) {
      const y = walker.yearFor(md.month, md.day);
      yearStart = first ? undefined : { year: y, lastMonth: md.month };
    } else if (!first) {
      yearStart = walker.state();
    }
    starts.push(yearStart);
    const seg: Segment = { seq: seq++, bytes, options: { first, ...(yearStart ? { yearStart } : {}) } };
    inFlight++;
    results.push(run(seg).finally(() => {
      inFlight--;
      wake?.();
    }));
  };

  const flush = async (final: boolean): Promise<void> => {
    if (pendingBytes === 0) return;
    const all = pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending);
    pending.length = 0;
    pendingBytes = 0;
    let cut = final ? all.length : all.lastIndexOf(10) + 1;
    if (cut === 0) {
      if (all.length < MAX_CARRY) {
        pending.push(all);
        pendingBytes = all.length;
        return;
      }
      cut = all.length;
    }
    while (inFlight >= parallel) await new Promise<void>((r) => (wake = r));
    dispatch(all.subarray(0, cut));
    if (cut < all.length) {
      const rest = Buffer.from(all.subarray(cut));
      pending.push(rest);
      pendingBytes = rest.length;
    }
  };

  try {
    for await (const chunk of stream) {
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      pending.push(b);
      pendingBytes += b.length;
      if (pendingBytes >= segmentBytes) await flush(false);
    }
  } catch (err) {
    readError = err as Error;
  }
  await flush(true);
  const parts = await Promise.all(results);
  return merge(parts, starts, opts, readError);
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
