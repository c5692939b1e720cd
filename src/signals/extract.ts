// One log artifact → signal events, streamed. Holds per-host state so that frequent lines (SyncLoop (PLEG) events,
// every kubelet line's PID) become a handful of events rather than millions: the model needs the first proof of a
// relist after a stall, a PID change, and each host's log window, not every occurrence.
import type { Readable } from 'node:stream';
import { LineScanner, type ScanResult } from '../parse/lines.js';
import { parseLine, parseMarker, type LogRecord, type ParseContext } from '../parse/record.js';
import { YearClock, WallClock } from '../parse/time.js';
import type { Zone } from 'luxon';
import type { Ref, SignalEvent } from './events.js';
import { MATCHERS, allNeedles, type Matcher } from './matchers.js';
import { MultiSearch } from '../parse/multisearch.js';
import type { CustomPattern } from './custom.js';

export type { CustomPattern } from './custom.js';

export interface HostWindow {
  host: string | null;
  first: number;
  last: number;
  /** Last line written by the kubelet itself (klog/JSON payload): a stall that outlives it ran to the end of the log. */
  kubeletLast: number;
}

export interface ExtractWarning {
  line: number | null;
  message: string;
}

export interface ArtifactSignals {
  artifact: number;
  events: SignalEvent[];
  /** Time span per journal host (null = lines without a host field). */
  hosts: HostWindow[];
  scan: ScanResult;
  warnings: ExtractWarning[];
  /** Node names the kubelet itself printed (node="…"), most frequent first. */
  nodeNames: string[];
  /** Boot times (epoch ms) implied by kernel lines that carry both a wall-clock and a seconds-since-boot stamp. */
  bootAnchors: number[];
}

export interface ExtractOptions {
  artifact: number;
  zone: Zone;
  year?: number;
  /** A time the log cannot be later than (collection time, file mtime): anchors year-less stamps. */
  notAfterMs: number | null;
  /** Disable the chunk prefilter (every line parsed): for checking the fast path gives identical results. */
  noPrefilter?: boolean;
  custom?: CustomPattern[];
  maxRefText?: number;
}

/** Proofs kept between stalls, for density views; the first proof after an unhealthy line is always kept. */
const PROOF_SPACING_MS = 60_000;

const CLOCK_DISAGREE_MS = 60_000;
/** Lines always parsed at the top of a file (the scanner's `headLines`): host, headers, start-up. */
export const HEAD_LINES = 64;
/** A log whose head names several hosts (must-gather's merged node logs) samples this much denser, about one line in
 *  60: with hundreds of hosts interleaved, one line in 500 dates a host's log only every few minutes. */
const MULTI_HOST_SAMPLE_BYTES = 32 * 1024;
/** …and reads its last few MB once more at the end: every host still logging then has its last line there. */
const MULTI_HOST_TAIL_BYTES = 2 << 20;

/** Journal hosts named by records, for telling a log of one host from a merged one (the same test everywhere). */
export function distinctHosts(hosts: Iterable<string | null>): number {
  let n = 0;
  for (const h of hosts) if (h) n++;
  return n;
}
/** The line at every so many bytes of the file is parsed too, to date each host's log between the lines of interest
 *  (merged multi-host logs): about one line in 500. Not a power of two, so that hosts interleaved in a regular rhythm
 *  are not sampled in the same few phases. */
const SAMPLE_BYTES = 127_997;

const prefilters = new Map<string, MultiSearch>();

/**
 * The needle search for the built-in matchers plus `custom` (built once per needle set: tables take ~1 MB).
 * `onDemand`: include the relist-proof needles. SyncLoop (PLEG) lines are ~10 % of a -v=2 kubelet log, and the
 * model needs one only right after an unhealthy line, so they are searched for only while a host waits for one.
 */
export function buildPrefilter(custom: CustomPattern[] = [], onDemand = true): MultiSearch {
  const needles = allNeedles(custom.flatMap((c) => c.needles), onDemand);
  const key = needles.join('\u0000');
  let ms = prefilters.get(key);
  if (!ms) {
    ms = new MultiSearch(needles);
    prefilters.set(key, ms);
  }
  return ms;
}

/** Which matchers (by index in MATCHERS) and custom patterns each needle of the prefilter wakes. */
function needleRoutes(search: MultiSearch, custom: CustomPattern[]): Array<{ matchers: number[]; custom: number[] }> {
  return search.needles.map((n) => ({
    matchers: MATCHERS.map((m, i) => (m.needles.includes(n) ? i : -1)).filter((i) => i >= 0),
    custom: custom.map((c, i) => (c.needles.includes(n) ? i : -1)).filter((i) => i >= 0),
  }));
}

interface HostState {
  window: HostWindow;
  awaitingProof: boolean;
  lastProofKept: number;
  pidByIdent: Map<string, number>;
}

/** What one segment of a file leaves for the merge that stitches segments back into one ArtifactSignals. */
export interface SegmentTail {
  /** Year walk at the segment's end and the month of its first dated line (for year fix-ups between segments). */
  yearEnd: { year: number; lastMonth: number };
  firstMonth: number | null;
  /** First and last kubelet PID per host|identifier, to find restarts that fall on a segment boundary. */
  firstPid: Record<string, { pid: number; ts: number; host: string | null; ref: Ref; ident: string | null }>;
  lastPid: Record<string, number>;
  nodeNameCounts: Record<string, number>;
  firstTs: number;
  lastTs: number;
  backwardJumps: number;
  disagreements: number;
  firstDisagreement: { line: number; deltaMs: number } | null;
}

export interface SegmentOptions {
  /** The file's first segment (head lines, year anchor) or a later one (continues the year walk, expects proofs). */
  first: boolean;
  yearStart?: { year: number; lastMonth: number };
  /** Position in the file of the segment's first byte (its sampled lines are fixed by file position). */
  offset?: number;
}

/**
 * The extractor as an object: bytes in through push(), signals out of finish(). A whole file is one run; a large file
 * can also be cut at line boundaries into segments scanned separately (on worker threads) and merged (merge.ts).
 */
export class SignalExtractor {
  private readonly years: YearClock;
  private readonly ctx: ParseContext;
  private readonly events: SignalEvent[] = [];
  private readonly hosts = new Map<string | null, HostState>();
  /** The head named several hosts: denser sample, and the tail read again at the end (see MULTI_HOST_*). */
  private multiHost = false;
  private readonly nodeNames = new Map<string, number>();
  private readonly bootAnchors: number[] = [];
  private readonly maxText: number;
  private readonly custom: CustomPattern[];
  private readonly searchBase: MultiSearch;
  private readonly searchFull: MultiSearch;
  private readonly routesBase: Array<{ matchers: number[]; custom: number[] }>;
  private readonly routesFull: Array<{ matchers: number[]; custom: number[] }>;
  private readonly wokenMatchers: Uint8Array;
  private readonly wokenCustom: Uint8Array;
  private readonly scanner: LineScanner;
  private readonly headLines: number;
  private readonly expectProof: boolean;
  private disagreements = 0;
  private firstDisagreement: { line: number; deltaMs: number } | null = null;
  private firstTs = NaN;
  private lastTs = NaN;
  private backwardJumps = 0;
  private firstMonth: number | null = null;
  private readonly firstPid: SegmentTail['firstPid'] = {};
  /** Hosts waiting for their first relist proof after an unhealthy line. */
  private awaitingHosts = 0;
  /** A later segment parses relist proofs until it keeps one: the stall may have begun in the previous segment. */
  private forceProof: boolean;

  constructor(private readonly opts: ExtractOptions, segment: SegmentOptions = { first: true }) {
    const wall = new WallClock(opts.zone);
    this.years = new YearClock(wall, { year: opts.year, notAfterMs: opts.notAfterMs });
    if (segment.yearStart) this.years.resume(segment.yearStart);
    this.ctx = { years: this.years, wall };
    this.maxText = opts.maxRefText ?? 16384;
    this.custom = opts.custom ?? [];
    this.searchBase = buildPrefilter(this.custom, false);
    this.searchFull = buildPrefilter(this.custom, true);
    this.routesBase = needleRoutes(this.searchBase, this.custom);
    this.routesFull = needleRoutes(this.searchFull, this.custom);
    this.wokenMatchers = new Uint8Array(MATCHERS.length);
    this.wokenCustom = new Uint8Array(this.custom.length);
    this.headLines = segment.first ? HEAD_LINES : 0;
    // A later segment cannot know whether its host was unhealthy just before it: keep its first proof.
    this.expectProof = !segment.first;
    this.forceProof = this.expectProof;
    this.scanner = new LineScanner({
      line: (text, lineNo, offset, buf, from, to, sampled) => {
        if (text.charCodeAt(0) === 45 && text.startsWith('-- ')) {
          const mk = parseMarker(text);
          if (mk?.type === 'begin') this.years.setYear(mk.year, mk.month);
          return;
        }
        const woken = this.route(buf, from, to);
        const head = lineNo <= this.headLines;
        if (!woken && !head && !sampled) return;
        const rec = parseLine(text, lineNo, offset, this.ctx);
        if (rec) this.onRecord(rec, woken || head);
        if (!opts.noPrefilter) this.scanner.setPrefilter(this.wantsProof() ? this.searchFull : this.searchBase);
      },
      headDone: () => {
        if (distinctHosts(this.hosts.keys()) < 2) return;
        this.multiHost = true;
        this.scanner.setSampleBytes(MULTI_HOST_SAMPLE_BYTES);
        this.scanner.keepTail(MULTI_HOST_TAIL_BYTES);
      },
    }, { prefilter: opts.noPrefilter ? null : this.expectProof ? this.searchFull : this.searchBase, headLines: this.headLines, sampleBytes: SAMPLE_BYTES, baseOffset: segment.offset ?? 0 });
  }

  push(chunk: Buffer): void {
    this.scanner.push(chunk);
  }

  private hostState(h: string | null): HostState {
    let s = this.hosts.get(h);
    if (!s) {
      // A later segment does not know which hosts were unhealthy when it began: each host keeps its first proof.
      s = { window: { host: h, first: NaN, last: NaN, kubeletLast: NaN }, awaitingProof: this.expectProof, lastProofKept: -Infinity, pidByIdent: new Map() };
      if (s.awaitingProof) this.awaitingHosts++;
      this.hosts.set(h, s);
    }
    return s;
  }

  private refOf(rec: LogRecord): Ref {
    return {
      artifact: this.opts.artifact, line: rec.line, offset: rec.offset, ts: rec.ts, mono: rec.mono,
      text: rec.text.length > this.maxText ? rec.text.slice(0, this.maxText) : rec.text,
    };
  }

  // The same needle search decides which matchers see a line, with or without the chunk prefilter, so both paths
  // give the same events by construction. Only lines a needle woke (and the head of the file) are parsed at all.
  private wantsProof(): boolean {
    return this.awaitingHosts > 0 || this.forceProof;
  }

  private route(buf: Buffer, from: number, to: number): boolean {
    const full = this.wantsProof();
    const search = full ? this.searchFull : this.searchBase;
    const routes = full ? this.routesFull : this.routesBase;
    const wokenMatchers = this.wokenMatchers;
    const wokenCustom = this.wokenCustom;
    wokenMatchers.fill(0);
    wokenCustom.fill(0);
    let any = false;
    for (let p = from; p < to;) {
      const at = search.next(buf, p, to);
      if (at < 0) break;
      const r = routes[search.lastNeedle];
      if (r) {
        for (const i of r.matchers) wokenMatchers[i] = 1;
        for (const i of r.custom) wokenCustom[i] = 1;
        any = true;
      }
      p = at + 1;
    }
    return any;
  }

  /** `full`: a line a needle woke (or the file's head); otherwise a sample line that only dates its host's log. */
  private onRecord(rec: LogRecord, full: boolean): void {
    const wokenMatchers = this.wokenMatchers;
    const wokenCustom = this.wokenCustom;
    if (Number.isNaN(rec.ts) && Number.isNaN(rec.mono)) return;
    if (this.firstMonth === null && this.years.state().lastMonth >= 0) this.firstMonth = this.years.state().lastMonth;
    if (!Number.isNaN(rec.ts) && !Number.isNaN(rec.mono) && this.bootAnchors.length < 16) this.bootAnchors.push(rec.ts - rec.mono * 1000);
    const st = this.hostState(rec.host);
    noteWindow(st.window, rec);
    if (!Number.isNaN(rec.ts) && Number.isNaN(this.firstTs)) this.firstTs = rec.ts;
    if (!full) return;
    if (!Number.isNaN(this.lastTs) && rec.ts < this.lastTs - 3600_000) this.backwardJumps++;
    if (!Number.isNaN(rec.ts)) this.lastTs = rec.ts;

    if (!Number.isNaN(rec.payloadTs) && rec.ts !== rec.payloadTs && Math.abs(rec.ts - rec.payloadTs) > CLOCK_DISAGREE_MS && rec.kind === 'klog') {
      this.disagreements++;
      if (!this.firstDisagreement) this.firstDisagreement = { line: rec.line, deltaMs: rec.ts - rec.payloadTs };
    }

    // A new kubelet PID on the same host and identifier = the kubelet restarted in between.
    if ((rec.kind === 'klog' || rec.kind === 'json') && rec.pid !== null) {
      const key = rec.ident ?? '';
      const prev = st.pidByIdent.get(key);
      if (prev === undefined) {
        this.firstPid[`${rec.host ?? ''}|${key}`] ??= { pid: rec.pid, ts: rec.ts, host: rec.host, ref: this.refOf(rec), ident: rec.ident };
      } else if (prev !== rec.pid) {
        this.events.push({ type: 'kubelet-line', pid: rec.pid, ident: rec.ident, ts: rec.ts, host: rec.host, ref: this.refOf(rec) });
      }
      st.pidByIdent.set(key, rec.pid);
    }

    for (let mi = 0; mi < MATCHERS.length; mi++) {
      if (!wokenMatchers[mi]) continue;
      const m = MATCHERS[mi] as Matcher;
      if (m.kinds && !m.kinds.includes(rec.kind)) continue;
      const out = m.match(rec);
      if (!out) continue;
      for (const d of Array.isArray(out) ? out : [out]) {
        if (d.type === 'relist-proof') {
          if (!st.awaitingProof && rec.ts - st.lastProofKept < PROOF_SPACING_MS) continue;
          if (st.awaitingProof) this.awaitingHosts--;
          st.awaitingProof = false;
          st.lastProofKept = rec.ts;
          this.forceProof = false;
        } else if (d.type === 'relist-unhealthy' || d.type === 'node-not-ready') {
          if (!st.awaitingProof) this.awaitingHosts++;
          st.awaitingProof = true;
        } else if (d.type === 'node-name') {
          this.nodeNames.set(d.node, (this.nodeNames.get(d.node) ?? 0) + 1);
          continue;
        }
        this.events.push({ ...d, ts: rec.ts, host: rec.host, ref: this.refOf(rec) } as SignalEvent);
      }
    }
    for (let ci = 0; ci < this.custom.length; ci++) {
      const c = this.custom[ci] as CustomPattern;
      if (wokenCustom[ci] && c.test(rec.text)) this.events.push({ type: 'custom', signal: c.id, ts: rec.ts, host: rec.host, ref: this.refOf(rec) });
    }
  }

  /** Ends a segment: raw results plus what the merge needs; no last-line handling, no warnings. */
  finishSegment(): { signals: ArtifactSignals; tail: SegmentTail } {
    const scan = this.scanner.finish();
    if (this.multiHost) this.readTail();
    const lastPid: Record<string, number> = {};
    for (const [h, st] of this.hosts) for (const [ident, pid] of st.pidByIdent) lastPid[`${h ?? ''}|${ident}`] = pid;
    return {
      signals: {
        artifact: this.opts.artifact,
        events: this.events,
        hosts: [...this.hosts.values()].map((h) => h.window).filter((w) => !Number.isNaN(w.first)),
        scan,
        warnings: [],
        nodeNames: [],
        bootAnchors: this.bootAnchors,
      },
      tail: {
        yearEnd: this.years.state(),
        firstMonth: this.firstMonth,
        firstPid: this.firstPid,
        lastPid,
        nodeNameCounts: Object.fromEntries(this.nodeNames),
        firstTs: this.firstTs,
        lastTs: this.lastTs,
        backwardJumps: this.backwardJumps,
        disagreements: this.disagreements,
        firstDisagreement: this.firstDisagreement,
      },
    };
  }

  /** Every line of the kept tail dates its host's window (nothing else: its events were found in the pass). */
  private readTail(): void {
    const years = new YearClock(this.ctx.wall, { year: this.opts.year, notAfterMs: this.opts.notAfterMs });
    years.resume(this.years.state());
    const ctx: ParseContext = { years, wall: this.ctx.wall };
    this.scanner.tailLines((text, offset) => {
      const rec = parseLine(text, 0, offset, ctx);
      if (!rec || !rec.host || (Number.isNaN(rec.ts) && Number.isNaN(rec.mono))) return;
      noteWindow(this.hostState(rec.host).window, rec);
    });
  }

  /** Ends a whole file. `readError`: the stream failed (truncated gzip…) after what was pushed. */
  finish(readError?: Error): ArtifactSignals {
    const { signals, tail } = this.finishSegment();
    return completeSignals(signals, tail, this.opts, readError);
  }
}

function noteWindow(w: HostWindow, rec: LogRecord): void {
  if (!Number.isNaN(rec.ts)) {
    if (!(w.first <= rec.ts)) w.first = rec.ts;
    if (!(w.last >= rec.ts)) w.last = rec.ts;
  }
  if ((rec.kind === 'klog' || rec.kind === 'json') && !(w.kubeletLast >= rec.ts)) w.kubeletLast = rec.ts;
}

/** Whole-file results from a (merged) segment: the last line's window, node names, warnings. */
export function completeSignals(signals: ArtifactSignals, tail: SegmentTail, opts: ExtractOptions, readError?: Error): ArtifactSignals {
  const { scan } = signals;
  const warnings: ExtractWarning[] = [];
  if (readError) warnings.push({ line: scan.lines || null, message: `read stopped after line ${scan.lines}: ${readError.message}` });
  // The last line fixes the end of the log window even when the prefilter skipped it.
  if (scan.lastLine) {
    const wall = new WallClock(opts.zone);
    const years = new YearClock(wall, { year: opts.year, notAfterMs: opts.notAfterMs });
    years.resume(tail.yearEnd);
    const rec = parseLine(scan.lastLine.text, scan.lastLine.lineNo, scan.lastLine.offset, { years, wall });
    if (rec && !Number.isNaN(rec.ts)) {
      let w = signals.hosts.find((x) => x.host === rec.host);
      if (!w) {
        w = { host: rec.host, first: rec.ts, last: rec.ts, kubeletLast: NaN };
        signals.hosts.push(w);
      }
      if (!(w.last >= rec.ts)) w.last = rec.ts;
      if (!(w.first <= rec.ts)) w.first = rec.ts;
      if ((rec.kind === 'klog' || rec.kind === 'json') && !(w.kubeletLast >= rec.ts)) w.kubeletLast = rec.ts;
    }
  }
  if (tail.disagreements > 0 && tail.firstDisagreement) {
    const d = tail.firstDisagreement;
    warnings.push({
      line: d.line,
      message: `journal time and klog header time disagree by ${Math.round(d.deltaMs / 1000)} s on ${tail.disagreements} line(s) (first here): the kubelet was stalled writing logs, or the two clocks use different zones; journal time used`,
    });
  }
  if (tail.backwardJumps > 0) {
    warnings.push({ line: null, message: `${tail.backwardJumps} time jump(s) backwards by more than an hour: merged or out-of-order log, or a clock step` });
  }
  if (scan.longLineCount > 0) {
    warnings.push({ line: scan.longLines[0] ?? null, message: `${scan.longLineCount} over-long line(s) cut (first at line ${scan.longLines[0]})` });
  }
  return {
    ...signals,
    warnings,
    nodeNames: Object.entries(tail.nodeNameCounts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map((e) => e[0]),
  };
}

export async function extractSignals(stream: Readable, opts: ExtractOptions): Promise<ArtifactSignals> {
  const ex = new SignalExtractor(opts);
  try {
    for await (const chunk of stream) ex.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  } catch (err) {
    return ex.finish(err as Error);
  }
  return ex.finish();
}
