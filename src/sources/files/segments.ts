// One large log scanned on every core: the file is cut into byte ranges (src/sources/files/ranges.ts: each owns the lines that
// start in it), runners (worker threads or this thread) extract each range on their own, and merge() stitches the
// results back in order: line numbers and offsets rebased, the year walk carried across, kubelet restarts that fall on a
// boundary found, windows and counters combined, and each host's relist-proof state carried over (resolveProofs).
import { readRangeSync, type FileRange } from './ranges.js';
import { parseLine } from '../../parse/record.js';
import { WallClock, YearClock } from '../../parse/time.js';
import type { SignalEvent } from '../../signals/events.js';
import {
  completeSignals, distinctHosts, HEAD_LINES, hostKey, MULTI_HOST_TAIL_BYTES, SignalExtractor,
  type ArtifactSignals, type ExtractOptions, type HostWindow, type SegmentOptions, type SegmentTail,
} from '../../signals/extract.js';
import { LineScanner } from '../../parse/lines.js';

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
    return !ex.done;
  });
  ex ??= new SignalExtractor(opts, { ...options, offset: range.start });
  const { tailFrom } = options;
  // The last segment of a many-host log reads the file's tail again (one pass keeps it as it goes).
  return ex.finishSegment(tailFrom === undefined ? undefined : (line) => tailLinesOf({ ...range, start: tailFrom }, line));
}

/** Every line that starts in `r`, as text (as the scanner gives it: no CR, cut when over-long), with its position. */
function tailLinesOf(r: FileRange, line: (text: string, offset: number) => void): void {
  let at = r.start;
  let scanner: LineScanner | null = null;
  readRangeSync(r, (b, position) => {
    if (!scanner) {
      at = position;
      scanner = new LineScanner({ line: (text, _n, offset) => line(text, at + offset) }, { prefilter: null, headLines: 0 });
    }
    scanner.push(b);
  });
  (scanner as LineScanner | null)?.finish();
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

const DAY_MS = 86_400_000;

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

/**
 * Whether extracting a log with the anchor `notAfterA` gives exactly what extracting it with `notAfterB` gives (the
 * rest of the options alike). The anchor only picks the year of the first year-less stamp (YearClock.yearFor); from
 * there the walk is the same. Two anchors on the same UTC day pick the same year for any date (the rule compares a
 * date's midnight with the anchor plus two days). Otherwise the stamp is looked for in the lines every extraction
 * parses (the first HEAD_LINES); not found there, the anchors are not known to agree.
 */
export function sameYearWalk(head: Buffer, opts: ExtractOptions, notAfterA: number | null, notAfterB: number | null): boolean {
  if (opts.year !== undefined || notAfterA === notAfterB) return true;
  if (notAfterA === null || notAfterB === null) return false;
  if (Math.floor(notAfterA / DAY_MS) === Math.floor(notAfterB / DAY_MS)) return true;
  const wall = new WallClock(opts.zone);
  const a = new YearClock(wall, { notAfterMs: notAfterA });
  const b = new YearClock(wall, { notAfterMs: notAfterB });
  const lines = head.toString('utf8').split('\n', HEAD_LINES + 1);
  // The last piece may be a line cut by the end of the head.
  if (lines.length > HEAD_LINES) lines.length = HEAD_LINES;
  else lines.pop();
  for (const [i, raw] of lines.entries()) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    parseLine(line, i + 1, 0, { years: a, wall });
    parseLine(line, i + 1, 0, { years: b, wall });
    const [x, y] = [a.state(), b.state()];
    if (x.lastMonth >= 0 || y.lastMonth >= 0) return x.year === y.year && x.lastMonth === y.lastMonth;
  }
  return false;
}

/** How a log is cut: where its head ends (no cut before), whether it is a merged many-host log, where its tail is. */
export interface RangePlan {
  /** Cuts fall after the file's head lines, which only the first segment parses. */
  minFirst: number;
  multiHost: boolean;
  /** A many-host log: where the lines its last segment reads again begin (see MULTI_HOST_TAIL_BYTES). */
  tailFrom?: number;
  /** Bytes a later segment searches for every host's first relist proof (default WARMUP_BYTES; tests lower it). */
  warmupBytes?: number;
}

/**
 * The plan for a plain file of `size` bytes from its first bytes: null when it cannot be cut (its head lines run past
 * `head`). A log whose head names several hosts samples densely after the head and reads its tail again, as one pass does.
 */
export function planRanges(head: Buffer, size: number, opts: ExtractOptions): RangePlan | null {
  let end = 0;
  for (let n = 0; n < HEAD_LINES; n++) {
    const nl = head.indexOf(10, end);
    if (nl < 0) return head.length >= size ? { minFirst: size, multiHost: false } : null;
    end = nl + 1;
  }
  const multiHost = hostsInHead(head, opts) >= 2;
  return { minFirst: end, multiHost, ...(multiHost ? { tailFrom: Math.max(size - MULTI_HOST_TAIL_BYTES, end) } : {}) };
}

/** Runs the ranges of one file (in parallel) and merges them. `heads[k]`: the first bytes of range k (its first date).
 *  A range that cannot be read ends the log there, as a stream that fails does: the ranges before it are kept, with a
 *  warning that the read stopped (their line numbers hold; nothing after the gap could be numbered). A first range
 *  that cannot be read fails the file. */
export async function extractRanges<R>(
  ranges: R[], heads: Buffer[], opts: ExtractOptions, run: (range: R, options: SegmentOptions) => Promise<SegmentResult>, plan?: RangePlan,
): Promise<ArtifactSignals> {
  const yearStart = yearStarter(opts);
  const starts = ranges.map((_, k) => yearStart(heads[k] ?? Buffer.alloc(0), k === 0));
  const optionsOf = (k: number): SegmentOptions => {
    const start = starts[k];
    const later = k > 0 && plan?.multiHost === true;
    return {
      first: k === 0,
      last: k === ranges.length - 1,
      parts: ranges.length,
      ...(start ? { yearStart: start } : {}),
      ...(later ? { multiHost: true } : {}),
      ...(later && k === ranges.length - 1 && plan?.tailFrom !== undefined ? { tailFrom: plan.tailFrom } : {}),
      ...(plan?.warmupBytes !== undefined ? { warmupBytes: plan.warmupBytes } : {}),
    };
  };
  const settled = await Promise.allSettled(ranges.map((r, k) => run(r, optionsOf(k))));
  const failed = settled.findIndex((x) => x.status === 'rejected');
  const readError = failed >= 0 ? toError((settled[failed] as PromiseRejectedResult).reason) : undefined;
  if (failed === 0) throw readError;
  const parts = (failed < 0 ? settled : settled.slice(0, failed)).map((x) => (x as PromiseFulfilledResult<SegmentResult>).value);
  await resolveProofs(parts, (k, proofsFor) => run(ranges[k] as R, { ...optionsOf(k), proofsFor }));
  return merge(parts, starts.slice(0, parts.length), opts, readError);
}

/**
 * The relist-proof state machine across segment boundaries. Each segment ran it as if no host were waiting at its
 * start; walking the segments in order, a host still waiting at a boundary gets the first proof of the next segment
 * before that host's first unhealthy line there: the one kept in the segment's warm-up, else one found by a fix-up pass
 * over the rest of the segment (rare: a stall across the boundary that lasts beyond the warm-up).
 *
 * Fix-ups are planned first, as if none found anything (so the plan holds every one the walk can need: a host that
 * stalled and then fell silent needs one in every later segment), and run at once, in parallel; the walk then uses
 * the ones it needs.
 */
async function resolveProofs(parts: SegmentResult[], fixUp: (k: number, proofsFor: Array<{ host: string | null; before: number }>) => Promise<SegmentResult>): Promise<void> {
  type Need = { host: string | null; before: number };
  /** Per segment, per waiting host without a warm-up proof: the fix-up region's end (null: none to search). */
  const needOf = (k: number, key: string, host: string | null): Need | null => {
    const part = parts[k] as SegmentResult;
    const e = part.tail.edges[key];
    if (e?.proof) return null;
    const before = e?.firstUnhealthy ?? part.signals.scan.bytes;
    return before > part.tail.warmupEnd ? { host, before } : null;
  };
  /** The walk: `found(k, key)` is the fix-up's proof for a host in segment k, if any; `onProof` takes each one used. */
  const walk = (found: (k: number, key: string) => SignalEvent | null, onProof: (k: number, p: { event: SignalEvent; index: number | null }) => void, onNeed?: (k: number, key: string, need: Need) => void): void => {
    const waiting = new Map<string, string | null>();
    for (const [k, part] of parts.entries()) {
      const { edges } = part.tail;
      if (k > 0) {
        for (const [key, host] of waiting) {
          const e = edges[key];
          let proof: { event: SignalEvent; index: number | null } | null = e?.proof ?? null;
          if (!proof) {
            const need = needOf(k, key, host);
            if (need) onNeed?.(k, key, need);
            const ev = need ? found(k, key) : null;
            if (ev) proof = { event: ev, index: null };
          }
          if (proof) {
            onProof(k, proof);
            waiting.delete(key);
          }
        }
      }
      // From a host's first unhealthy line in this segment on, the segment's own run is exact.
      for (const [key, e] of Object.entries(edges)) {
        if (e.firstUnhealthy === null) continue;
        if (e.awaitingEnd) waiting.set(key, e.host);
        else waiting.delete(key);
      }
    }
  };
  // 1. Plan: every fix-up a walk in which none finds a proof would ask for.
  const plan = new Map<number, Map<string, Need>>();
  walk(() => null, () => undefined, (k, key, need) => {
    let m = plan.get(k);
    if (!m) plan.set(k, (m = new Map()));
    m.set(key, need);
  });
  // 2. Run them all at once.
  const results = new Map<number, Map<string, SignalEvent>>();
  await Promise.all([...plan].map(async ([k, needs]) => {
    const r = await fixUp(k, [...needs.values()]);
    const byHost = new Map<string, SignalEvent>();
    for (const ev of r.signals.events) if (ev.type === 'relist-proof' && !byHost.has(hostKey(ev.host))) byHost.set(hostKey(ev.host), ev);
    results.set(k, byHost);
  }));
  // 3. The walk with what they found.
  const inserts = parts.map((): Array<{ event: SignalEvent; index: number | null }> => []);
  walk((k, key) => results.get(k)?.get(key) ?? null, (k, p) => inserts[k]?.push(p));
  parts.forEach((part, k) => insertEvents(part.signals.events, inserts[k] ?? []));
}

/** Puts proofs into a segment's events where one pass would have: at the index it noted, else after its line's events. */
function insertEvents(events: SignalEvent[], inserts: Array<{ event: SignalEvent; index: number | null }>): void {
  if (inserts.length === 0) return;
  const placed = inserts.map((x) => ({
    event: x.event,
    index: x.index ?? upperBound(events, x.event.ref.offset),
  })).sort((a, b) => b.index - a.index || b.event.ref.offset - a.event.ref.offset);
  for (const p of placed) events.splice(p.index, 0, p.event);
}

/** The index of the first event past `offset` (upper) or at or past it (lower); events are in file order. */
function bound(events: SignalEvent[], offset: number, upper: boolean): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const o = (events[mid] as SignalEvent).ref.offset;
    if (o < offset || (upper && o === offset)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
const upperBound = (events: SignalEvent[], offset: number) => bound(events, offset, true);
const lowerBound = (events: SignalEvent[], offset: number) => bound(events, offset, false);

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
  const origins: ArtifactSignals['origins'] = {};
  const checkpoints: Array<[number, number]> = [];
  const longLines: number[] = [];
  let longLineCount = 0;
  let backwardJumps = 0;
  let disagreements = 0;
  let firstDisagreement: SegmentTail['firstDisagreement'] = null;
  let undated = 0;
  let firstUndated: number | null = null;
  const absurd: SegmentTail['absurd'] = { times: 0, firstTime: null, durations: 0, firstDuration: null };
  let timeOfDayOnly = 0;
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
    // A kubelet PID that differs from the one the previous segment ended with: a restart on the boundary, where one
    // pass notes it (before the other events of its line).
    for (const [key, f] of Object.entries(tail.firstPid)) {
      const prev = lastPid.get(key);
      if (prev !== undefined && prev !== f.pid) {
        s.events.splice(lowerBound(s.events, f.ref.offset), 0, { type: 'kubelet-line', pid: f.pid, ident: f.ident, ts: f.ts, host: f.host, ref: { ...f.ref } });
      }
    }
    for (const [key, pid] of Object.entries(tail.lastPid)) lastPid.set(key, pid);
    for (const e of s.events) {
      e.ts = shift(e.ts);
      e.ref.ts = shift(e.ref.ts);
      e.ref.line += lineBase;
      e.ref.offset += byteBase;
    }
    for (const e of s.events) events.push(e);
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
    for (const [o, n] of Object.entries(s.origins) as Array<[keyof typeof origins, number]>) origins[o] = (origins[o] ?? 0) + n;
    for (const [l, o] of s.scan.checkpoints) checkpoints.push([l + lineBase, o + byteBase]);
    for (const l of s.scan.longLines) if (longLines.length < 10) longLines.push(l + lineBase);
    longLineCount += s.scan.longLineCount;
    const firstTs = shift(tail.firstTs);
    if (!Number.isNaN(prevLastTs) && firstTs < prevLastTs - 3600_000) backwardJumps++;
    backwardJumps += tail.backwardJumps;
    if (!Number.isNaN(tail.lastTs)) prevLastTs = shift(tail.lastTs);
    disagreements += tail.disagreements;
    if (!firstDisagreement && tail.firstDisagreement) firstDisagreement = { ...tail.firstDisagreement, line: tail.firstDisagreement.line + lineBase };
    undated += tail.undated;
    timeOfDayOnly += tail.timeOfDayOnly;
    if (firstUndated === null && tail.firstUndated !== null) firstUndated = tail.firstUndated + lineBase;
    absurd.times += tail.absurd.times;
    absurd.durations += tail.absurd.durations;
    if (absurd.firstTime === null && tail.absurd.firstTime !== null) absurd.firstTime = tail.absurd.firstTime + lineBase;
    if (absurd.firstDuration === null && tail.absurd.firstDuration !== null) absurd.firstDuration = tail.absurd.firstDuration + lineBase;
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
    origins,
  };
  const tail: SegmentTail = {
    yearEnd: prevEnd ?? first.tail.yearEnd, firstMonth: first.tail.firstMonth, firstPid: {}, lastPid: {}, nodeNameCounts,
    firstTs: NaN, lastTs: prevLastTs, backwardJumps, disagreements, firstDisagreement, undated, firstUndated, absurd, timeOfDayOnly, edges: {}, warmupEnd: 0,
  };
  return completeSignals(merged, tail, opts, readError);
}

function toError(x: unknown): Error {
  return x instanceof Error ? x : new Error(String(x));
}
