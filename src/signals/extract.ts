// One log artifact → signal events, streamed. Holds per-host state so that frequent lines (SyncLoop (PLEG) events,
// every kubelet line's PID) become a handful of events rather than millions: the model needs the first proof of a
// relist after a stall, a PID change, and each host's log window, not every occurrence.
import { Thinner, runKey, thinTime, type BuildEvent, type EventDraft } from './thin.js';
import { isAscii, Template, Templates, type Offer } from './templates.js';
import type { Readable } from 'node:stream';
import { LineScanner, type LineVisitor, type ScanResult } from '../parse/lines.js';
import { finerTime, isElision, klogHeaderTimeAt, parseLine, parseMarker, prefixTimeAt, readEnvelope, recordOf, type Envelope, type LogRecord, type Origin, type ParseContext } from '../parse/record.js';
import { YearClock, WallClock, type Zone } from '../parse/time.js';
import type { Ref, SignalEvent } from './events.js';
import { PLAUSIBLE_MIN_MS, plausibleMs, possibleAge } from '../util/instant.js';
import type { Role } from '../contract/analysis.js';
import { MATCHERS, allNeedles, type Matcher } from './matchers.js';
import { MatchList, MultiSearch } from '../parse/multisearch.js';
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
  /** `undated`: the file's lines without a time (said once per file; a document's lines have none by nature). */
  code?: 'undated';
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
  /** Lines read, by who wrote them (record.ts `Origin`; bare text that says nothing is not counted): with the events,
   *  what decides the role of a file whose envelope said nothing. */
  origins: Partial<Record<Origin, number>>;
}

export interface ExtractOptions {
  artifact: number;
  zone: Zone;
  year?: number;
  /** A time the log cannot be later than (collection time, file mtime): anchors year-less stamps. */
  notAfterMs: number | null;
  /** Disable the chunk prefilter and the folding of lines unread (every line parsed): for checking the fast paths give
   *  identical results. */
  noPrefilter?: boolean;
  custom?: CustomPattern[];
  /** Whose lines the file's name says it holds (input/names.ts originOfName): the tie-breaker for bare messages. */
  nameOrigin?: Origin;
  maxRefText?: number;
}

const CLOCK_DISAGREE_MS = 60_000;
/** Lines always parsed at the top of a file (the scanner's `headLines`): host, headers, start-up. */
export const HEAD_LINES = 64;
/** A log whose head names several hosts (must-gather's merged node logs) samples this much denser, about one line in
 *  60: with hundreds of hosts interleaved, one line in 500 dates a host's log only every few minutes. */
const MULTI_HOST_SAMPLE_BYTES = 32 * 1024;
/** …and reads its last few MB once more at the end: every host still logging then has its last line there. */
export const MULTI_HOST_TAIL_BYTES = 2 << 20;

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

interface Prefilter {
  search: MultiSearch;
  /** 1 at the index of each base needle (see buildPrefilter). */
  base: Uint8Array;
}
const prefilters = new Map<string, Prefilter>();
const PROOF_MATCHER = MATCHERS.findIndex((m) => m.id === 'relist-proof');
let proofOnly: MultiSearch | null = null;
/** The relist-proof needles alone: a fix-up pass looks for nothing else. */
function proofSearch(): MultiSearch {
  return (proofOnly ??= new MultiSearch((MATCHERS[PROOF_MATCHER] as Matcher).needles));
}

/**
 * The needle search for the built-in matchers plus `custom` (built once per needle set), and which of its needles are
 * base needles: the others (relist proofs) wake a line only while some host waits for one. SyncLoop (PLEG) lines are
 * ~10 % of a -v=2 kubelet log, and the model needs one only right after an unhealthy line.
 */
export function buildPrefilter(custom: CustomPattern[] = []): Prefilter {
  // Once per pack (the array analyze compiled), not once per file: a folder of 100 000 small files builds 100 000
  // extractors.
  const known = custom.length === 0 ? builtinPrefilter : prefilterOf.get(custom);
  if (known) return known;
  const p = prefilterFor(custom);
  if (custom.length === 0) builtinPrefilter = p;
  else prefilterOf.set(custom, p);
  return p;
}

/**
 * How many of the lines in `b` a base needle wakes (with `custom`'s needles): a sample's count tells a dense log (most
 * lines read, a runtime outage's spam) from an ordinary one (a few in a hundred) before it is read.
 */
export function wokenLines(b: Buffer, custom: CustomPattern[] = []): number {
  const { search, base } = buildPrefilter(custom);
  const found = new MatchList();
  search.findAll(b, 0, b.length, found);
  let n = 0;
  let lineEnd = -1;
  for (let f = 0; f < found.length; f++) {
    const at = found.starts[f] as number;
    if (at <= lineEnd || base[found.needles[f] as number] !== 1) continue;
    n++;
    lineEnd = b.indexOf(10, at);
    if (lineEnd < 0) break;
  }
  return n;
}

let builtinPrefilter: Prefilter | null = null;
const prefilterOf = new WeakMap<CustomPattern[], Prefilter>();

function prefilterFor(custom: CustomPattern[]): Prefilter {
  const needles = allNeedles(custom.flatMap((c) => c.needles), true);
  const key = needles.join('\u0000');
  let p = prefilters.get(key);
  if (!p) {
    const search = new MultiSearch(needles);
    const base = new Set(allNeedles(custom.flatMap((c) => c.needles), false));
    p = { search, base: Uint8Array.from(search.needles, (n) => (base.has(n) ? 1 : 0)) };
    prefilters.set(key, p);
  }
  return p;
}

type Routes = Array<{ matchers: number[]; custom: number[] }>;
/** Routes per needle set (MultiSearch) and custom patterns: an extractor is made per file (and per range), and a bundle
 *  has hundreds; a pack of many signals must not cost its routing per file. Keyed by the patterns' array, which analyze
 *  (and each worker) compiles once per pack. */
const routeCache = new WeakMap<readonly CustomPattern[], WeakMap<MultiSearch, Routes>>();
const NO_CUSTOM: readonly CustomPattern[] = [];

/** Which matchers (by index in MATCHERS) and custom patterns each needle of the prefilter wakes. */
function needleRoutes(search: MultiSearch, custom: readonly CustomPattern[]): Routes {
  const key = custom.length > 0 ? custom : NO_CUSTOM;
  let bySearch = routeCache.get(key);
  if (!bySearch) routeCache.set(key, (bySearch = new WeakMap()));
  let r = bySearch.get(search);
  if (!r) {
    r = routesOf(search, custom);
    bySearch.set(search, r);
  }
  return r;
}

/** One pass over the matchers' and patterns' needles, then one lookup per needle of the search: linear in the needles. */
function routesOf(search: MultiSearch, custom: readonly CustomPattern[]): Routes {
  const byNeedle = new Map<string, { matchers: number[]; custom: number[] }>();
  const routeOf = (n: string) => {
    let r = byNeedle.get(n);
    if (!r) byNeedle.set(n, (r = { matchers: [], custom: [] }));
    return r;
  };
  MATCHERS.forEach((m, i) => {
    for (const n of new Set(m.needles)) routeOf(n).matchers.push(i);
  });
  custom.forEach((c, i) => {
    for (const n of new Set(c.needles)) routeOf(n).custom.push(i);
  });
  return search.needles.map((n) => byNeedle.get(n) ?? { matchers: [], custom: [] });
}

interface HostState {
  window: HostWindow;
  awaitingProof: boolean;
  pidByIdent: Map<string, number>;
  /** The host's first relist-unhealthy or NotReady line in this segment (offset in the segment), and the relist proof
   *  before it found while warming up: what the merge needs if the host was waiting for a proof when the segment began. */
  firstUnhealthy: number | null;
  /** With the index in the events where one pass would have put it. */
  leadingProof: { event: SignalEvent; index: number } | null;
}

/**
 * Per host, what a later segment tells the merge about the relist-proof state machine, which it runs as if no host
 * were waiting at its start. A host that was waiting (unhealthy in an earlier segment) recovers at `proof` (the first
 * proof before `firstUnhealthy`, searched for in the segment's first `warmupEnd` bytes); failing that, the merge looks
 * for one in [warmupEnd, firstUnhealthy ?? end) (a fix-up pass). From `firstUnhealthy` on the segment's own run is exact.
 */
export interface HostEdge {
  host: string | null;
  proof: { event: SignalEvent; index: number } | null;
  firstUnhealthy: number | null;
  awaitingEnd: boolean;
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
  /** Lines read that carried no time and had no dated line before them to be placed after (used without a time). */
  undated: number;
  firstUndated: number | null;
  /** Lines whose time no log means (util/instant.ts), read as undated; and records whose duration is impossible (a
   *  relist "last seen active" before 1970, or longer than a Go duration can be), dropped. */
  absurd: { times: number; firstTime: number | null; durations: number; firstDuration: number | null };
  /** Of those, lines with a time of day but no date anywhere before them. */
  timeOfDayOnly: number;
  /** Keyed by host (`hostKey`). */
  edges: Record<string, HostEdge>;
  /** Lines starting before this offset (in the segment) were searched for every host's leading relist proof. */
  warmupEnd: number;
}

export interface SegmentOptions {
  /** The file's first segment (head lines, year anchor) or a later one (continues the year walk). */
  first: boolean;
  /** The file's last segment (default: the first, i.e. one pass): a log of many hosts re-reads its tail there. */
  last?: boolean;
  yearStart?: { year: number; lastMonth: number };
  /** Position in the file of the segment's first byte (its sampled lines are fixed by file position). */
  offset?: number;
  /** A later segment of a log whose head named several hosts: sampled densely from its start, like the first after
   *  its head. */
  multiHost?: boolean;
  /** A later segment searches its first so many bytes for every host's first relist proof (default WARMUP_BYTES). */
  warmupBytes?: number;
  /** A later last segment of a many-host log: the file position from which it reads the file's tail again. */
  tailFrom?: number;
  /** How many ranges the file is cut into (thin.ts: each thins as if it held that many times its events). */
  parts?: number;
  /** A fix-up pass: only the first relist proof of each of these hosts before its limit (offset in the segment). */
  proofsFor?: Array<{ host: string | null; before: number }>;
}

/** Bytes at the start of a later segment in which every host's first relist proof is looked for (see HostEdge). */
export const WARMUP_BYTES = 4 << 20;

const NO_HOST = '\u0000';

/** The key of a host in per-host records (null: lines without a host field). */
export function hostKey(h: string | null): string {
  return h === null ? NO_HOST : h;
}

/**
 * The extractor as an object: bytes in through push(), signals out of finish(). A whole file is one run; a large file
 * can also be cut at line boundaries into segments scanned separately (on worker threads) and merged (merge.ts).
 */
export class SignalExtractor implements LineVisitor {
  private readonly years: YearClock;
  private readonly ctx: ParseContext;
  private readonly events: SignalEvent[] = [];
  /** Adds what matchers find, folding dense runs of one kind of line (memory does not grow with matched lines); a line
   *  that fits a template (templates.ts) is folded unread, and its event remade only if it ends its run's bucket. */
  private readonly thin: Thinner;
  private readonly templates = new Templates();
  /** Lines folded unread so far, and templates learned. */
  unread = 0;
  /** The line fold() was asked about: routed already, and the template it fit (but was not folded by). */
  private routed = false;
  private fit: Template | null = null;
  private learned = 0;
  /** What the line being read offered the thinner (null: not collected), and whether it did anything else. */
  private offers: Offer[] | null = null;
  private offbeat = false;
  private readonly hosts = new Map<string | null, HostState>();
  /** The head named several hosts: denser sample, and the tail read again at the end (see MULTI_HOST_*). */
  private multiHost = false;
  private readonly nodeNames = new Map<string, number>();
  private readonly bootAnchors: number[] = [];
  private readonly maxText: number;
  private readonly custom: CustomPattern[];
  /** Every needle (base and on-demand); `routes` says which matchers each wakes. */
  private readonly search: MultiSearch;
  private readonly routes: Routes;
  /** The needles holding a digit (templates.ts Template.stable). */
  private readonly digitNeedles: readonly string[];
  /** Found needles, for routing the line being handled. */
  private readonly found = new MatchList();
  private readonly wokenMatchers: Uint8Array;
  /** Custom patterns a needle woke on this line, each once, in pattern order once sorted (a pack may hold thousands:
   *  a line costs what it woke, not the pack's size). */
  private readonly wokenCustom: Uint8Array;
  private readonly wokenList: number[] = [];
  private readonly scanner: LineScanner;
  private readonly headLines: number;
  private disagreements = 0;
  private firstDisagreement: { line: number; deltaMs: number } | null = null;
  private readonly origins: Partial<Record<Origin, number>> = {};
  private undated = 0;
  private firstUndated: number | null = null;
  private readonly absurd: SegmentTail['absurd'] = { times: 0, firstTime: null, durations: 0, firstDuration: null };
  private timeOfDayOnly = 0;
  /** The last dated record read: where an undated line that follows it is placed, when the bytes before that line
   *  are no longer at hand. */
  private lastDated: { ts: number; host: string | null; ident: string | null; pid: number | null } | null = null;
  private firstTs = NaN;
  private lastTs = NaN;
  private backwardJumps = 0;
  private firstMonth: number | null = null;
  private readonly firstPid: SegmentTail['firstPid'] = {};
  /** Hosts waiting for their first relist proof after an unhealthy line. */
  private awaitingHosts = 0;
  /** Lines starting before this offset search relist proofs for every host (0 in a first segment). */
  private readonly warmupEnd: number;
  /** Routing of the line being handled: a base needle (or none) woke it; only an on-demand (proof) needle did. */
  private baseWoken = false;
  private proofWoken = false;
  /** A fix-up pass: host key → offset before which its first proof is wanted. */
  private readonly proofsFor: Map<string, number> | null;
  private readonly isBaseNeedle: Uint8Array;
  /** The file's last segment (or its only one): a many-host log keeps its tail. */
  private readonly lastSegment: boolean;

  constructor(private readonly opts: ExtractOptions, segment: SegmentOptions = { first: true }) {
    this.thin = new Thinner(this.events, (key, text, line, offset, ts) => this.rebuild(key, text, line, offset, ts), segment.parts ?? 1);
    const wall = new WallClock(opts.zone);
    this.years = new YearClock(wall, { year: opts.year, notAfterMs: opts.notAfterMs });
    if (segment.yearStart) this.years.resume(segment.yearStart);
    this.ctx = { years: this.years, wall, paste: null, ...(opts.nameOrigin ? { nameOrigin: opts.nameOrigin } : {}) };
    this.maxText = opts.maxRefText ?? 16384;
    this.custom = opts.custom ?? [];
    const prefilter = buildPrefilter(this.custom);
    this.search = prefilter.search;
    this.isBaseNeedle = prefilter.base;
    this.routes = needleRoutes(this.search, this.custom);
    this.digitNeedles = this.search.needles.filter((n) => /\d/.test(n));
    this.wokenMatchers = new Uint8Array(MATCHERS.length);
    this.wokenCustom = new Uint8Array(this.custom.length);
    this.proofsFor = segment.proofsFor ? new Map(segment.proofsFor.map((p) => [hostKey(p.host), p.before])) : null;
    this.headLines = segment.first && !this.proofsFor ? HEAD_LINES : 0;
    this.warmupEnd = segment.first || this.proofsFor ? 0 : (segment.warmupBytes ?? WARMUP_BYTES);
    this.lastSegment = segment.last ?? segment.first;
    // The extractor is its scanner's visitor: every extractor shares the same two methods, so the scanner's calls to
    // them stay monomorphic. (A fresh pair of closures per extractor, i.e. per range, made the optimized scan loop
    // deoptimize at a worker's next range: "wrong call target".)
    this.scanner = new LineScanner(this, {
      prefilter: opts.noPrefilter ? null : this.proofsFor ? proofSearch() : this.search,
      active: this.proofsFor || this.wantsProof(0) ? null : this.isBaseNeedle,
      headLines: this.headLines,
      sampleBytes: this.proofsFor ? 0 : segment.multiHost && !segment.first ? MULTI_HOST_SAMPLE_BYTES : SAMPLE_BYTES,
      baseOffset: segment.offset ?? 0,
    });
    if (segment.multiHost && !segment.first) this.multiHost = true;
  }

  push(chunk: Buffer): void {
    this.scanner.push(chunk);
  }

  /** Whether `buf[from, to)` holds a relist-proof needle (one that is not a base needle). */
  private holdsProofNeedle(buf: Buffer, from: number, to: number): boolean {
    const found = new MatchList();
    this.search.findAll(buf, from, to, found);
    for (let f = 0; f < found.length; f++) if (this.isBaseNeedle[found.needles[f] as number] !== 1) return true;
    return false;
  }

  /** A line of a dense run: one a base needle alone woke, past the head, in a file that folds (thin.ts). */
  private dense(head: boolean): boolean {
    return !this.opts.noPrefilter && this.baseWoken && !this.proofWoken && !head && this.wokenList.length === 0 && this.thin.active;
  }

  /**
   * LineVisitor: a line the scanner visits, before it is decoded. A line of a dense run that fits a template, past its
   * run's kept lines, is folded with its time read from its bytes, nothing more (templates.ts); any other line is
   * routed here and read by line().
   */
  fold(buf: Buffer, from: number, to: number, lineNo: number, offset: number): boolean {
    if (this.proofsFor !== null || this.opts.noPrefilter || !this.thin.active || lineNo <= this.headLines || (buf[from] === 45 && buf[from + 1] === 45)) return false;
    const full = this.wantsProof(offset);
    let t = this.templates.find(buf, from, to, null);
    // A line that fits a stable template holds its needles: they woke its matchers, and nothing else (dense()).
    const known = t !== null && t.stable && !(full && t.proof);
    if (known && this.foldUnread(buf, from, to, lineNo, offset, t as Template)) {
      this.scanner.setActive(this.wantsProof(offset + 1) ? null : this.isBaseNeedle);
      return true;
    }
    this.scanner.setActive(full ? null : this.isBaseNeedle);
    this.route(buf, from, to, full);
    this.routed = true;
    if (t === null || !this.dense(false)) return false;
    if (!t.sameWoken(this.wokenMatchers)) t = this.templates.find(buf, from, to, this.wokenMatchers);
    this.fit = t;
    // (A known line foldUnread() said no to is read in full.)
    if (t === null || known || !this.foldUnread(buf, from, to, lineNo, offset, t)) return false;
    this.routed = false;
    this.fit = null;
    this.scanner.setActive(this.wantsProof(offset + 1) ? null : this.isBaseNeedle);
    return true;
  }

  /** LineVisitor: a line the scanner visits. */
  line(text: string, lineNo: number, offset: number, buf: Buffer, from: number, to: number, sampled: boolean): void {
    // (fold() was asked first: it may have routed the line already, and found the template it fits.)
    const routed = this.routed;
    const fit = this.fit;
    this.routed = false;
    this.fit = null;
    if (text.charCodeAt(0) === 45 && text.startsWith('-- ')) {
      const mk = parseMarker(text);
      if (mk?.type === 'begin') this.years.setYear(mk.year, mk.month);
      return;
    }
    if (this.proofsFor) {
      // A fix-up pass: relist proofs of the hosts asked for, nothing else (a line naming none of them is not read).
      if (!this.namesWanted(text)) return;
      this.route(buf, from, to, true);
      const rec = this.proofWoken ? parseLine(text, lineNo, offset, this.ctx) : null;
      if (rec && this.proofsFor.has(hostKey(rec.host))) this.onProofLine(rec, this.hostState(rec.host));
      return;
    }
    const prefilter = !this.opts.noPrefilter;
    if (!routed) {
      const full = this.wantsProof(offset);
      if (prefilter) this.scanner.setActive(full ? null : this.isBaseNeedle);
      this.route(buf, from, to, full);
    }
    const head = lineNo <= this.headLines;
    if (!this.baseWoken && !this.proofWoken && !head && !sampled) return;
    if (text.length <= 24 && isElision(text, 0)) {
      // Lines were left out here: what the log says after it cannot end what it said before.
      const at = this.lastDated;
      this.events.push({ type: 'gap', ts: at?.ts ?? NaN, host: at?.host ?? null, ref: { artifact: this.opts.artifact, line: lineNo, offset, ts: at?.ts ?? NaN, mono: NaN, text } });
      return;
    }
    const dense = this.dense(head);
    const env = readEnvelope(text, lineNo, offset, this.ctx);
    const rec = env === null ? null : recordOf(env, this.ctx);
    if (rec) {
      if (rec.absurdTime) {
        this.absurd.times++;
        this.absurd.firstTime ??= lineNo;
      }
      if (Number.isNaN(rec.ts) && Number.isNaN(rec.mono)) this.place(rec, buf, from);
      else this.lastDated = { ts: rec.ts, host: rec.host, ident: rec.ident, pid: rec.pid };
      // A template needs a time it can read again: the prefix's (journal, syslog, RFC 3339), or a klog header alone.
      const timed = env !== null && (env.timeForm !== 'other' || (Number.isNaN(env.ts) && Number.isNaN(env.timeOfDay) && rec.kind === 'klog'));
      // Learning costs a read of the line's durations and a little memory: only while lines fit what was learned (a
      // log whose lines never repeat stops after a thousand).
      // Only ASCII lines longer than an elision mark: a template's places are its bytes'.
      const learn = dense && fit === null && this.learned <= 2 * this.unread + 1000 && timed && !(env as Envelope).json && !Number.isNaN(rec.ts) && Number.isNaN(rec.mono) && rec.absurdTime !== true && text.length > 24 && to - from === text.length && isAscii(buf, from, to);
      if (learn) {
        this.offers = [];
        this.offbeat = false;
      }
      this.onRecord(rec, this.baseWoken || head, head || sampled || this.baseWoken);
      if (learn) {
        const offers = this.offers as Offer[];
        this.offers = null;
        if (!this.offbeat && offers.length > 0) {
          this.learned++;
          this.templates.add(new Template(text, env as Envelope, rec.ts, rec.pid, rec.kind, rec.origin, this.wokenMatchers.slice(), offers, this.holdsProofNeedle(buf, from, to), this.digitNeedles));
        }
      }
    }
    if (prefilter) this.scanner.setActive(this.wantsProof(offset + 1) ? null : this.isBaseNeedle);
  }

  /**
   * A line with no time of its own (a pasted fragment, a wrapped line's continuation, a time of day with no date) is
   * placed right after the dated line before it: that line's time, and its host, identifier and PID when it has none
   * (a continuation belongs to the entry it continues). The line before is read from the bytes at hand (a chunk starts
   * at a line start), a few lines back at most; else the last dated record read stands in. With no dated line before
   * it, it keeps no time.
   */
  private place(rec: LogRecord, buf: Buffer, from: number): void {
    let prev: LogRecord | null = null;
    let end = from - 1;
    for (let k = 0; k < 8 && end >= 0 && buf[end] === 10; k++) {
      const nl = end > 0 ? buf.lastIndexOf(10, end - 1) : -1;
      const start = nl + 1;
      const r = parseLine(buf.toString('utf8', start, end > start && buf[end - 1] === 13 ? end - 1 : end), 0, 0, this.ctx);
      if (r && !Number.isNaN(r.ts)) {
        prev = r;
        break;
      }
      end = nl;
    }
    const before = prev ? { ts: prev.ts, host: prev.host, ident: prev.ident, pid: prev.pid } : this.lastDated;
    if (!before) {
      this.undated++;
      this.firstUndated ??= rec.line;
      if (!Number.isNaN(rec.timeOfDay)) this.timeOfDayOnly++;
      return;
    }
    const own = Number.isNaN(rec.timeOfDay) ? NaN : this.ctx.years.onDayOf(rec.timeOfDay);
    rec.ts = Number.isNaN(own) ? before.ts : own;
    if (rec.host === null && rec.ident === null) {
      rec.host = before.host;
      rec.ident = before.ident;
      rec.pid ??= before.pid;
    }
  }

  /** LineVisitor: the head lines are read; a head naming several hosts makes this a many-host log. */
  headDone(): void {
    if (distinctHosts(this.hosts.keys()) < 2) return;
    this.multiHost = true;
    this.scanner.setSampleBytes(MULTI_HOST_SAMPLE_BYTES);
    if (this.lastSegment) this.scanner.keepTail(MULTI_HOST_TAIL_BYTES);
  }

  /** Whether a line can be one of the hosts a fix-up pass looks for (its host field is part of its text). */
  private namesWanted(text: string): boolean {
    for (const k of (this.proofsFor as Map<string, number>).keys()) if (k === NO_HOST || text.includes(k)) return true;
    return false;
  }

  /** A fix-up pass that has found every proof it was asked for. */
  get done(): boolean {
    return this.proofsFor !== null && this.proofsFor.size === 0;
  }

  private hostState(h: string | null): HostState {
    let s = this.hosts.get(h);
    if (!s) {
      // A later segment does not know which hosts were unhealthy when it began: each host keeps its first proof.
      s = { window: { host: h, first: NaN, last: NaN, kubeletLast: NaN }, awaitingProof: false, pidByIdent: new Map(), firstUnhealthy: null, leadingProof: null };
      this.hosts.set(h, s);
    }
    return s;
  }

  /** A matcher's draft and its line made one event (only for the events the thinner keeps). The draft is completed in
   *  place (a matcher returns fresh objects): same keys in the same order as a copy, at a twentieth of the cost of an
   *  object spread (V8 copies a spread of these drafts through its slow path: ~30 µs an event, measured). */
  private readonly buildEvent: BuildEvent<LogRecord> = (d, host, rec) => {
    const e = d as SignalEvent;
    e.ts = rec.ts;
    e.host = host;
    e.ref = this.refOf(rec);
    return e;
  };

  private refOf(rec: LogRecord): Ref {
    return {
      artifact: this.opts.artifact, line: rec.line, offset: rec.offset, ts: rec.ts, mono: rec.mono,
      text: rec.text.length > this.maxText ? rec.text.slice(0, this.maxText) : rec.text,
    };
  }

  // The same needle search decides which matchers see a line, with or without the chunk prefilter, so both paths
  // give the same events by construction. Only lines a needle woke (and the head of the file) are parsed at all.
  // Relist-proof needles are searched only while some host waits for a proof (or in a later segment's warm-up), so
  // what a line woken by them alone says counts only for that: windows, PIDs and counters come from lines every
  // pass parses (head, sampled, base needles), the same wherever a file is cut into segments.
  private wantsProof(offset: number): boolean {
    return this.awaitingHosts > 0 || offset < this.warmupEnd || this.proofsFor !== null;
  }

  /** Which matchers the needles in buf[from, to) wake (all of them: `full`; else the base needles'). */
  private route(buf: Buffer, from: number, to: number, full: boolean): void {
    const routes = this.routes;
    const wokenMatchers = this.wokenMatchers;
    const wokenCustom = this.wokenCustom;
    wokenMatchers.fill(0);
    for (const i of this.wokenList) wokenCustom[i] = 0;
    this.wokenList.length = 0;
    let base = false;
    let proof = false;
    const found = this.found;
    // What the scanner's search of the chunk found in this line, else a search of the line.
    if (!this.scanner.needlesIn(this.search, from, to, found)) {
      found.length = 0;
      this.search.findAll(buf, from, to, found);
    }
    for (let f = 0; f < found.length; f++) {
      const k = found.needles[f] as number;
      const isBase = this.isBaseNeedle[k] === 1;
      if (!full && !isBase) continue;
      const r = routes[k];
      if (r && (r.matchers.length > 0 || r.custom.length > 0)) {
        for (const i of r.matchers) wokenMatchers[i] = 1;
        for (const i of r.custom) {
          if (wokenCustom[i]) continue;
          wokenCustom[i] = 1;
          this.wokenList.push(i);
        }
        if (isBase) base = true;
        else proof = true;
      }
    }
    this.baseWoken = base;
    this.proofWoken = proof;
  }

  /**
   * `full`: a line a base needle woke (or the file's head): every matcher and counter sees it. `dates`: a line every
   * pass parses (those, and sampled lines): it dates its host's log. Otherwise only a relist-proof needle woke it.
   */
  private onRecord(rec: LogRecord, full: boolean, dates: boolean): void {
    const wokenMatchers = this.wokenMatchers;
    const st = this.hostState(rec.host);
    if (full && rec.origin !== 'unknown') this.origins[rec.origin] = (this.origins[rec.origin] ?? 0) + 1;
    if (dates) {
      if (!Number.isNaN(rec.ts) && !Number.isNaN(rec.mono) && this.bootAnchors.length < 16) this.bootAnchors.push(rec.ts - rec.mono * 1000);
      this.noteDated(st, rec.ts, rec.kind);
    }
    if (!full) {
      if (this.proofWoken) this.onProofLine(rec, st);
      return;
    }
    this.noteOrder(rec.ts, rec.payloadTs, rec.kind, rec.line);

    // A new kubelet PID on the same host and identifier = the kubelet restarted in between.
    if ((rec.kind === 'klog' || rec.kind === 'json') && rec.pid !== null) {
      const key = rec.ident ?? '';
      const prev = st.pidByIdent.get(key);
      if (prev === undefined) {
        this.firstPid[`${rec.host ?? ''}|${key}`] ??= { pid: rec.pid, ts: rec.ts, host: rec.host, ref: this.refOf(rec), ident: rec.ident };
      } else if (prev !== rec.pid) {
        this.events.push({ type: 'kubelet-line', pid: rec.pid, ident: rec.ident, ts: rec.ts, host: rec.host, ref: this.refOf(rec) });
        this.offbeat = true;
      }
      st.pidByIdent.set(key, rec.pid);
    }

    for (let mi = 0; mi < MATCHERS.length; mi++) {
      if (!wokenMatchers[mi]) continue;
      const m = MATCHERS[mi] as Matcher;
      if (m.from && !m.from.includes(rec.origin) && !(rec.originByName && m.from.includes('unknown'))) continue;
      const out = m.match(rec);
      if (!out) continue;
      for (const d of Array.isArray(out) ? out : [out]) {
        if (d.type === 'relist-proof') {
          this.offbeat = true;
          if (!this.keepProof(rec, st, d)) continue;
        } else if (d.type === 'relist-unhealthy' && !possibleAge(d.ageSeconds, rec.ts)) {
          this.absurd.durations++;
          this.absurd.firstDuration ??= rec.line;
          this.offbeat = true;
          continue;
        } else if (d.type === 'relist-unhealthy' || d.type === 'node-not-ready') {
          this.awaitProof(st, rec.offset);
        } else if (d.type === 'node-name') {
          this.nodeNames.set(d.node, (this.nodeNames.get(d.node) ?? 0) + 1);
          this.offbeat = true;
          continue;
        }
        const host = eventHost(d, rec);
        if (this.offers !== null) {
          const key = runKey(d, host);
          if (key === null) this.offbeat = true;
          else this.offers.push({ key, type: d.type });
        }
        this.thin.offer(d, host, thinTime(rec), rec, this.buildEvent);
      }
    }
    const woken = this.wokenList;
    if (woken.length > 1) woken.sort((a, b) => a - b);
    for (const ci of woken) {
      const c = this.custom[ci] as CustomPattern;
      if (c.test(rec.text)) this.thin.offer({ type: 'custom', signal: c.id }, rec.host, thinTime(rec), rec, this.buildEvent);
    }
  }

  /** A dated line every pass parses: its host's window, the file's first month and time. */
  private noteDated(st: HostState, ts: number, kind: LogRecord['kind']): void {
    if (this.firstMonth === null && this.years.state().lastMonth >= 0) this.firstMonth = this.years.state().lastMonth;
    noteTimes(st.window, ts, kind);
    if (!Number.isNaN(ts) && Number.isNaN(this.firstTs)) this.firstTs = ts;
  }

  /** A line every matcher sees: whether the log went back in time, and whether a klog header's time (`headerTs`)
   *  disagrees with the journal's. */
  private noteOrder(ts: number, headerTs: number, kind: LogRecord['kind'], line: number): void {
    if (!Number.isNaN(this.lastTs) && ts < this.lastTs - 3600_000) this.backwardJumps++;
    if (!Number.isNaN(ts)) this.lastTs = ts;
    if (!Number.isNaN(headerTs) && ts !== headerTs && Math.abs(ts - headerTs) > CLOCK_DISAGREE_MS && kind === 'klog') {
      this.disagreements++;
      if (!this.firstDisagreement) this.firstDisagreement = { line, deltaMs: ts - headerTs };
    }
  }

  /** A relist-unhealthy or NotReady line: its host waits for a relist proof. */
  private awaitProof(st: HostState, offset: number): void {
    if (!st.awaitingProof) this.awaitingHosts++;
    st.awaitingProof = true;
    st.firstUnhealthy ??= offset;
  }

  /**
   * A line that fits template `t`: when every run it would add to is past its kept lines for the bucket, it is folded
   * with only its time read, doing what onRecord() does for such a line (windows, counters, relist waits); else false,
   * and it is read in full.
   */
  private foldUnread(buf: Buffer, from: number, to: number, line: number, offset: number, t: Template): boolean {
    const env = t.env;
    const years = this.ctx.years;
    let ts: number;
    let headerTs = NaN;
    if (env.timeForm === 'other') {
      // No time before the payload: the klog header's is the line's (as recordOf reads it).
      if (!t.klog) return false;
      years.klogAt(buf, from + env.start + 1, to, NaN, true);
      ts = headerTs = years.at[1] as number;
    } else {
      prefixTimeAt(buf, from, to, env.timeAt, env.start, env.timeForm, this.ctx);
      ts = years.at[0] as number;
      if (t.klog && !Number.isNaN(ts)) {
        klogHeaderTimeAt(buf, from + env.start + 1, to, this.ctx);
        headerTs = years.at[1] as number;
        ts = finerTime(ts, headerTs);
      }
    }
    // Times recordOf() would drop; a time so early that a duration under 1000 h could put a relist before 1970, or
    // earlier than the template's (whose durations it may print as they are).
    if (!(ts >= PLAUSIBLE_MIN_MS + 3.6e9 && ts >= t.ts && plausibleMs(ts)) || (!Number.isNaN(headerTs) && !plausibleMs(headerTs))) return false;
    const st = this.hostState(env.host);
    if ((t.kind === 'klog' || t.kind === 'json') && t.pid !== null && st.pidByIdent.get(env.ident ?? '') !== t.pid) return false;
    for (const o of t.offers) if (!this.thin.canFold(o.key, ts)) return false;
    this.ctx.years.noteTime(ts);
    const last = this.lastDated;
    if (last === null) this.lastDated = { ts, host: env.host, ident: env.ident, pid: t.pid };
    else {
      last.ts = ts;
      last.host = env.host;
      last.ident = env.ident;
      last.pid = t.pid;
    }
    if (t.origin !== 'unknown') this.origins[t.origin] = (this.origins[t.origin] ?? 0) + 1;
    this.noteDated(st, ts, t.kind);
    this.noteOrder(ts, headerTs, t.kind, line);
    for (const o of t.offers) {
      if (o.type === 'relist-unhealthy' || o.type === 'node-not-ready') this.awaitProof(st, offset);
      this.thin.foldLine(o.key, ts, t, buf, from, line, offset);
    }
    this.unread++;
    return true;
  }

  /** The event of a line folded unread (foldUnread), when it ends its run's bucket: the line read in full again, with
   *  the time it was folded at, and its matchers' draft for that run. */
  private rebuild(key: string, text: string, line: number, offset: number, ts: number): SignalEvent | null {
    const years = new YearClock(this.ctx.wall, { year: this.years.currentYear });
    const rec = parseLine(text, line, offset, { years, wall: this.ctx.wall, paste: this.ctx.paste ?? undefined, ...(this.ctx.nameOrigin ? { nameOrigin: this.ctx.nameOrigin } : {}) });
    if (!rec) return null;
    rec.ts = ts;
    for (const m of MATCHERS) {
      if (m.from && !m.from.includes(rec.origin) && !(rec.originByName && m.from.includes('unknown'))) continue;
      if (!m.needles.some((n) => text.includes(n))) continue;
      const out = m.match(rec);
      for (const d of out ? (Array.isArray(out) ? out : [out]) : []) {
        const host = eventHost(d, rec);
        if (runKey(d as EventDraft, host) === key) return this.buildEvent(d as EventDraft, host, rec);
      }
    }
    return null;
  }

  /** A line only a relist-proof needle woke: the proof a waiting host needs (or a later segment's leading one). */
  private onProofLine(rec: LogRecord, st: HostState): void {
    const m = MATCHERS[PROOF_MATCHER] as Matcher;
    if (!this.wokenMatchers[PROOF_MATCHER] || (m.from && !m.from.includes(rec.origin))) return;
    const out = m.match(rec);
    for (const d of out ? (Array.isArray(out) ? out : [out]) : []) {
      if (d.type === 'relist-proof' && this.keepProof(rec, st, d)) this.events.push({ ...d, ts: rec.ts, host: rec.host, ref: this.refOf(rec) } as SignalEvent);
    }
  }

  /**
   * Whether a relist proof becomes an event: the first one after a host's unhealthy line. Before a later segment's
   * first unhealthy line of a host, the first proof in its warm-up is kept aside for the merge (HostEdge); a fix-up pass
   * keeps the first proof of each host it was asked for.
   */
  private keepProof(rec: LogRecord, st: HostState, d: { type: 'relist-proof'; what: string }): boolean {
    if (this.proofsFor) {
      const k = hostKey(rec.host);
      const before = this.proofsFor.get(k);
      if (before === undefined || rec.offset >= before) return false;
      this.proofsFor.delete(k);
      return true;
    }
    if (st.awaitingProof) {
      this.awaitingHosts--;
      st.awaitingProof = false;
      return true;
    }
    if (st.firstUnhealthy === null && st.leadingProof === null && rec.offset < this.warmupEnd) {
      st.leadingProof = { event: { ...d, ts: rec.ts, host: rec.host, ref: this.refOf(rec) } as SignalEvent, index: this.events.length };
    }
    return false;
  }

  /** Ends a segment: raw results plus what the merge needs; no last-line handling, no warnings. `tail`: the lines of
   *  the file's last bytes, for a later last segment of a many-host log (the first reads its own, kept as it goes). */
  finishSegment(tail?: (line: (text: string, offset: number) => void) => void): { signals: ArtifactSignals; tail: SegmentTail } {
    const scan = this.scanner.finish();
    this.thin.settleAll();
    if (this.multiHost && !this.proofsFor) this.readTail(tail ?? ((fn) => this.scanner.tailLines(fn)));
    const lastPid: Record<string, number> = {};
    const edges: Record<string, HostEdge> = {};
    for (const [h, st] of this.hosts) {
      for (const [ident, pid] of st.pidByIdent) lastPid[`${h ?? ''}|${ident}`] = pid;
      edges[hostKey(h)] = { host: h, proof: st.leadingProof, firstUnhealthy: st.firstUnhealthy, awaitingEnd: st.awaitingProof };
    }
    return {
      signals: {
        artifact: this.opts.artifact,
        events: this.events,
        hosts: [...this.hosts.values()].map((h) => h.window).filter((w) => !Number.isNaN(w.first)),
        scan,
        warnings: [],
        nodeNames: [],
        bootAnchors: this.bootAnchors,
        origins: this.origins,
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
        undated: this.undated,
        firstUndated: this.firstUndated,
        absurd: this.absurd,
        timeOfDayOnly: this.timeOfDayOnly,
        edges,
        warmupEnd: this.warmupEnd,
      },
    };
  }

  /** Every line of the file's tail dates its host's window (nothing else: its events were found in the pass). */
  private readTail(lines: (line: (text: string, offset: number) => void) => void): void {
    const years = new YearClock(this.ctx.wall, { year: this.opts.year, notAfterMs: this.opts.notAfterMs });
    years.resume(this.years.state());
    const ctx: ParseContext = { years, wall: this.ctx.wall };
    lines((text, offset) => {
      const rec = parseLine(text, 0, offset, ctx);
      if (!rec || !rec.host || (Number.isNaN(rec.ts) && Number.isNaN(rec.mono))) return;
      noteTimes(this.hostState(rec.host).window, rec.ts, rec.kind);
    });
  }

  /** Ends a whole file. `readError`: the stream failed (truncated gzip…) after what was pushed. */
  finish(readError?: Error): ArtifactSignals {
    const { signals, tail } = this.finishSegment();
    return completeSignals(signals, tail, this.opts, readError);
  }
}

function noteTimes(w: HostWindow, ts: number, kind: LogRecord['kind']): void {
  if (!Number.isNaN(ts)) {
    if (!(w.first <= ts)) w.first = ts;
    if (!(w.last >= ts)) w.last = ts;
  }
  if ((kind === 'klog' || kind === 'json') && !(w.kubeletLast >= ts)) w.kubeletLast = ts;
}

/** Whose event a draft is: what the controller manager (or a node condition) says of a node belongs to the node it
 *  names; an event the controller manager recorded about a node (`"Event occurred" object="w1" kind="Node"`) is w1's;
 *  anything else the line's host's. */
function eventHost(d: { type: string; node?: string | null }, rec: LogRecord): string | null {
  return (d.type === 'controller-node' || d.type === 'node-status-unknown') && d.node ? d.node
    : (d.type === 'node-not-ready' || d.type === 'node-ready') && rec.fields['kind'] === 'Node' && rec.fields['object'] ? rec.fields['object'] : rec.host;
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
  if (tail.undated > 0) {
    // Said once per file: what the report can and cannot say about these lines.
    warnings.push({
      line: tail.firstUndated,
      code: 'undated',
      message: tail.timeOfDayOnly === tail.undated
        ? `${tail.undated} line(s) carry a time of day but no date, and no dated line comes before them: used without a time (their order is kept)`
        : `${tail.undated} line(s) carry no time (a pasted fragment, a header cut off) and no dated line comes before them: used without a time (their order is kept)`,
    });
  }
  const ab = tail.absurd;
  if (ab.times > 0) {
    warnings.push({ line: ab.firstTime, message: `${ab.times} line(s) with a time no log means (before 1970 or after 2199; first here): read as undated lines` });
  }
  if (ab.durations > 0) {
    warnings.push({ line: ab.firstDuration, message: `${ab.durations} PLEG health line(s) with an impossible age of the last relist (before 1970, or longer than a Go duration; first here): dropped` });
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

/** One extraction over whatever `feed` pushes (a stream, or a file's reused buffers: extractFile in
 *  src/sources/files/ranges.ts); a read that fails ends it there ("read stopped after line N"). */
export async function extractFed(opts: ExtractOptions, feed: (push: (chunk: Buffer) => void) => Promise<void>): Promise<ArtifactSignals> {
  const ex = new SignalExtractor(opts);
  try {
    await feed((chunk) => ex.push(chunk));
  } catch (err) {
    return ex.finish(err as Error);
  }
  return ex.finish();
}

/** Pieces of a stream smaller than half this are gathered into one reused buffer before the scanner sees them: a
 *  decoder's pipe (xz, bzip2) gives 64 KiB at a time, and every push costs the scanner a chunk's set-up. */
const BATCH_BYTES = 1 << 20;

export function extractSignals(stream: Readable, opts: ExtractOptions): Promise<ArtifactSignals> {
  return extractFed(opts, async (push) => {
    let batch: Buffer | null = null;
    let used = 0;
    // A first small piece is held as it is, and copied into the batch only when another follows: a small file is one
    // piece, and a 1 MiB batch for each of 100 000 of them was most of what a folder of them allocated.
    let lone: Buffer | null = null;
    const flush = () => {
      if (lone !== null) push(lone);
      else if (batch !== null && used > 0) push(batch.subarray(0, used));
      lone = null;
      used = 0;
    };
    try {
      for await (const c of stream) {
        const chunk = typeof c === 'string' ? Buffer.from(c) : (c as Buffer);
        if (chunk.length >= BATCH_BYTES / 2) {
          flush();
          push(chunk);
          continue;
        }
        if (lone === null && used === 0) {
          lone = chunk;
          continue;
        }
        if (lone !== null) {
          batch ??= Buffer.allocUnsafe(BATCH_BYTES);
          lone.copy(batch, 0);
          used = lone.length;
          lone = null;
        }
        if (used + chunk.length > BATCH_BYTES) flush();
        batch ??= Buffer.allocUnsafe(BATCH_BYTES);
        chunk.copy(batch, used);
        used += chunk.length;
      }
    } finally {
      // What was read before a failure is scanned too ("read stopped after line N" counts it).
      flush();
    }
  });
}

/** Events that only the kubelet's (or the controller manager's, the runtime's, the kernel's) own lines produce. */
const EVENT_ROLE: Partial<Record<SignalEvent['type'], 'kubelet' | 'runtime' | 'kernel' | 'controller'>> = {
  'relist-unhealthy': 'kubelet', 'sync-skipped': 'kubelet', 'node-not-ready': 'kubelet', 'node-ready': 'kubelet', 'relist-proof': 'kubelet',
  'relist-failed': 'kubelet', 'kubelet-start': 'kubelet', 'kubelet-line': 'kubelet', 'runtime-info': 'kubelet', 'cri-error': 'kubelet',
  'runtime-down': 'kubelet', 'cni-error': 'kubelet', 'cni-call': 'kubelet', 'event-channel-full': 'kubelet', 'evented-pleg': 'kubelet', 'pod-inspect-failed': 'kubelet',
  'housekeeping-slow': 'kubelet', 'eviction': 'kubelet',
  'runtime-lifecycle': 'runtime', 'runtime-repair': 'runtime', 'runtime-daemon-error': 'runtime', 'crio-stopping': 'runtime', 'crio-stopped': 'runtime', 'runtime-call': 'runtime',
  'hung-task': 'kernel', 'nfs-not-responding': 'kernel', 'netdev-unregister': 'kernel', 'oom-kill': 'kernel', 'kernel-io-frame': 'kernel',
  'controller-node': 'controller',
};

const ROLE_OF: Record<'kubelet' | 'runtime' | 'kernel' | 'controller', Role> = {
  kubelet: 'kubelet-log', runtime: 'runtime-log', kernel: 'kernel-log', controller: 'controller-log',
};

/**
 * The role of a log by what its lines turned out to be: whose messages it holds (kubelet, runtime, kernel, controller
 * manager), then who wrote the lines it read. Null when nothing in it was recognised.
 */
export function contentRole(sig: ArtifactSignals): Role | null {
  const score = { kubelet: 0, runtime: 0, kernel: 0, controller: 0 };
  for (const e of sig.events) {
    const r = EVENT_ROLE[e.type];
    if (r) score[r] += 1000;
  }
  for (const k of ['kubelet', 'runtime', 'kernel', 'controller'] as const) score[k] += sig.origins[k] ?? 0;
  // The controller manager runs inside the same binary as the kubelet on old masters (hyperkube): its own messages
  // decide, unless the kubelet's are there too.
  if (score.controller >= 1000 && score.kubelet < 1000) return 'controller-log';
  let best: keyof typeof score | null = null;
  for (const k of ['kubelet', 'runtime', 'kernel', 'controller'] as const) if (score[k] > 0 && (best === null || score[k] > score[best])) best = k;
  if (best) return ROLE_OF[best];
  return sig.events.length > 0 ? 'other' : null;
}
