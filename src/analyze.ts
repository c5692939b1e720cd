// The pipeline, end to end: input → parse/signals → model → rules → the Analysis (the one contract every view reads).
// Only this file knows every stage; each stage knows only the ones before it.
import { plurals } from './util/plural.js';
import type {
  Analysis, ArtifactInfo, EvidenceRef, Finding, InputInfo, NodeReport, OperationStats, Quantiles, Warning,
} from './contract/analysis.js';
import { SCHEMA_VERSION } from './contract/analysis.js';
import { discover } from './input/discover.js';
import type { Artifact, ReadEarly } from './input/artifact.js';
import { countingStream, logIndexOf, type LogIndex } from './input/line-reader.js';
import { LineScanner, scanStream } from './parse/lines.js';
import { MetricsParser, type DroppedSeries } from './parse/metrics/exposition.js';
import { parseQueryJson, QueryTextParser } from './parse/metrics/query-result.js';
import { GoroutineParser, type ParsedGoroutines } from './parse/goroutines.js';
import { iso, resolveZone, sameZone } from './parse/time.js';
import { contentRole, extractFile, extractSignals, type ArtifactSignals, type ExtractOptions } from './signals/extract.js';
import { chunkCounter } from './signals/progress.js';
import { compileCustom, type CustomSignalSpec } from './signals/custom.js';
import { SignalPool, workerScript } from './signals/pool.js';
import { extractRanges, planRanges, sameYearWalk, type RangePlan } from './signals/segments.js';
import { headAtSync, splitRanges, type FileRange } from './input/ranges.js';
import type { ExtractJob } from './signals/worker-protocol.js';
import { availableParallelism } from 'node:os';
import { buildNodes, type ArtifactData, type NodeModel } from './model/node.js';
import type { MetricsSource } from './model/metrics.js';
import { isModelMetric } from './model/metric-names.js';
import { computeFacts, type Cite } from './rules/facts.js';
import { evaluate, type NodeJudgement } from './rules/engine.js';
import { BUILTIN_RULES } from './rules/catalog.js';
import { BUILTIN_GAPS } from './rules/gaps.js';
import type { GapSpec, RuleSpec } from './rules/spec.js';
import { TOOL_VERSION } from './version.js';
import { artifactNotAfter, artifactZone, bundleFields, hasExtras, isDocument, readDocument, readExtras, selfAnchored } from './bundle-data.js';
import { withLogLines } from './signals/documents.js';
import { Readable } from 'node:stream';
import type { Limits } from './input/limits.js';
import { prometheusData, type PrometheusAsk } from './history.js';

export interface AnalyzeOptions {
  paths: string[];
  year?: number;
  tz?: string;
  /** Parse every line (no chunk prefilter): the slow path the fast one must agree with. */
  noPrefilter?: boolean;
  /** Read the logs inside archives while the archive is indexed (default); false: in a later pass over it, the slow
   *  path the fast one must agree with. */
  earlyReads?: boolean;
  rules?: RuleSpec[];
  gaps?: GapSpec[];
  customSignals?: CustomSignalSpec[];
  /** Bounds for reading archives (decompression ratio, nesting…); defaults in src/input/limits.ts. */
  limits?: Partial<Limits>;
  /** Worker threads for signal extraction: 0 = in this thread; default: one per core (when running compiled). */
  workers?: number;
  stdin?: Readable;
  onProgress?: (p: { file: string; index: number; total: number }) => void;
  /** Bytes and lines of a log read so far, as they stream in (progress displays: the TUI). */
  onRead?: (p: { artifact: Artifact; bytes: number; lines: number }) => void;
  /** An archive member (its path) read while its archive is indexed (progress displays). */
  onIndex?: (member: string) => void;
  now?: () => Date;
  /** A Prometheus history read next to the files (--prometheus): src/history.ts. */
  prometheus?: PrometheusAsk;
}

export interface AnalysisRun {
  analysis: Analysis;
  /** Per node, every rule evaluated (JUnit wants one testcase per rule). */
  evaluated: Map<string, NodeJudgement['evaluated']>;
  /** Artifact id → path and byte offsets known, for views that re-read lines lazily (TUI). */
  artifacts: Artifact[];
  /** For views that re-read lines lazily (TUI): per log artifact id its line checkpoints and clock; per node its
   *  artifact ids and the times of its CRI errors (for density charts). */
  views?: ViewIndex;
  /** Archive members read while the archive was indexed; of them, kept, or read again because the options differed
   *  (the rest turned out not to be read at all). */
  early: { read: number; kept: number; reread: number };
}

export interface ViewIndex {
  logs: Map<number, LogIndex>;
  nodes: Map<string, { artifacts: number[]; criErrors: Array<{ op: string; ts: number; layer: 'client' | 'caller' }> }>;
}

const LOG_ROLES = new Set(['kubelet-log', 'runtime-log', 'kernel-log', 'controller-log', 'healthz']);
/** A loose text file nothing in its head placed (no envelope, no known document): read as a log all the same, since
 *  a pasted excerpt is recognised by its messages; its role is then what its lines turned out to be. Inside bundles
 *  the layout says which files are logs. */
const unplaced = (a: Artifact): boolean => a.role === 'other' && a.format === 'other' && !a.bundleKind;
/** Plain logs from this size are read as ranges (a worker thread or this one takes each); from SPLIT_BYTES they are cut
 *  into several ranges per thread. (A worker's start-up, ~50 ms, is worth it from a few MB; PLEGSCOPE_SPLIT_BYTES
 *  lowers both, for tests.) */
const OFFLOAD_BYTES = 4 << 20;
const SPLIT_BYTES = 32 << 20;
/** Workers by default at most: each holds a heap of its own (~20 MB), and a few threads already read faster than most
 *  disks deliver; PLEGSCOPE_WORKERS sets more. */
const DEFAULT_MAX_WORKERS = 7;
/** Enough of a range's start to find its first dated line. */
const RANGE_HEAD_BYTES = 16 * 1024;
/** Formats whose stamps carry a year: read first, they anchor the year of the year-less ones. */
const YEARFUL = /^(journal-short-iso|journal-json|json-log|cri-log|rfc3339|logrus|docker-json|dmesg-T|openmetrics)/;

/** What an archive member's early read found, with the options it was read with. */
interface EarlyRead {
  signals: ArtifactSignals;
  zone: string;
  notAfterMs: number | null;
}

export async function analyze(opts: AnalyzeOptions): Promise<AnalysisRun> {
  const zone = resolveZone(opts.tz ?? 'UTC');
  const zoneOf = (name: string) => (name === (opts.tz ?? 'UTC') ? zone : resolveZone(name));
  // Worker threads take the large plain logs: each is cut into byte ranges that the workers read and scan themselves,
  // while this thread reads everything else (small files, archive members, compressed logs), then helps with the
  // ranges. Default: one worker per core but one when there is more than one core; PLEGSCOPE_WORKERS=N or `workers`
  // sets it (0 = this thread only).
  const envWorkers = process.env['PLEGSCOPE_WORKERS'] !== undefined ? Number(process.env['PLEGSCOPE_WORKERS']) : undefined;
  const cores = availableParallelism();
  const wanted: number = opts.workers ?? (envWorkers !== undefined && Number.isInteger(envWorkers) ? envWorkers : Math.min(cores - 1, DEFAULT_MAX_WORKERS));
  const size = Math.max(0, Math.min(wanted, cores * 2));
  const envSplit = Number(process.env['PLEGSCOPE_SPLIT_BYTES']);
  const splitAt = Number.isInteger(envSplit) && envSplit >= 0 ? envSplit : SPLIT_BYTES;
  const offloadAt = Math.min(OFFLOAD_BYTES, splitAt);
  // Started as soon as the walk lists enough large files, so the workers boot while the files are being probed.
  const started: { pool: SignalPool | null } = { pool: null };
  const script = size > 0 ? workerScript() : null;
  // Only when there is enough to share: below that, this thread is done before a worker has started (~100 ms).
  const onFileSizes = (sizes: number[]): void => {
    let big = 0;
    for (const n of sizes) if (n >= offloadAt) big += n;
    if (!started.pool && script && big > 0 && big >= splitAt) started.pool = new SignalPool(script, size);
  };
  const custom = opts.customSignals ?? [];
  const compiled = custom.map(compileCustom);
  // Logs inside archives are extracted while the index pass streams them by (an archive is decompressed anew for
  // every pass over it), with the options guessed then: the zone the user gave, else the one the sosreport metadata
  // met earlier names, else UTC; as the year anchor the collection time that metadata gives, else the member's time.
  // Kept when the options the bundle layout then gives agree (keepEarly), read again otherwise.
  const early = new Map<number, EarlyRead>();
  const earlyStats = { read: 0, kept: 0, reread: 0 };
  let nextToken = 0;
  // Every log member, whatever its size: one read later would make another pass over the archive up to it.
  const readEarly: ReadEarly = (m) => {
    if (!LOG_ROLES.has(m.role)) return null;
    const clock = m.clock();
    const zoneName = opts.tz ?? clock.zone ?? 'UTC';
    const notAfterMs = clock.collectedAt ?? m.mtime;
    let z: ReturnType<typeof resolveZone>;
    try {
      z = zoneOf(zoneName);
    } catch {
      return null;
    }
    return async (bytes) => {
      opts.onIndex?.(m.path);
      const signals = await extractSignals(bytes, { artifact: -1, zone: z, year: opts.year, notAfterMs, noPrefilter: opts.noPrefilter, custom: compiled });
      const token = nextToken++;
      earlyStats.read++;
      early.set(token, { signals, zone: zoneName, notAfterMs });
      return token;
    };
  };
  let disc: Awaited<ReturnType<typeof discover>>;
  try {
    disc = await discover(opts.paths, { stdin: opts.stdin, limits: opts.limits, onFileSizes, ...(opts.earlyReads !== false ? { readEarly } : {}) });
  } catch (err) {
    await started.pool?.close();
    throw err;
  }
  const pool = started.pool;
  const offload = (a: Artifact): a is Artifact & { file: NonNullable<Artifact['file']> } => pool !== null && LOG_ROLES.has(a.role) && a.file !== undefined && a.file.size >= offloadAt;
  const warnings: Warning[] = disc.warnings.map((w) => ({ file: w.file, line: w.line, message: w.message }));
  const perArtifactWarnings = new Map<number, number>();
  const lines = new Map<number, number>();
  const logs = new Map<number, LogIndex>();
  const byPath = new Map(disc.artifacts.map((a) => [a.path, a]));
  for (const w of disc.warnings) {
    const a = w.file !== null ? byPath.get(w.file) : undefined;
    if (a) perArtifactWarnings.set(a.id, (perArtifactWarnings.get(a.id) ?? 0) + 1);
  }
  const warn = (a: Artifact, line: number | null, message: string): void => {
    warnings.push({ file: a.path, line, message });
    perArtifactWarnings.set(a.id, (perArtifactWarnings.get(a.id) ?? 0) + 1);
  };

  // Year-carrying formats first: their times anchor the year of the year-less ones (journal short, klog headers).
  // Bundle files anchored by their collection time need no help: they stay in archive order (one pass over a tar).
  const yearful = disc.artifacts.filter((a) => YEARFUL.test(a.format) || selfAnchored(a));
  const rest = disc.artifacts.filter((a) => !YEARFUL.test(a.format) && !selfAnchored(a));
  // Files on disk are read a few at a time so small files overlap their I/O (and keep every worker busy); archive
  // members one after the other.
  const lanes = disc.artifacts.some((a) => a.sequential) ? 1 : Math.max(4, 2 * (pool?.size ?? 0));
  let anchorMs: number | null = null;
  const data: ArtifactData[] = [];
  let done = 0;

  const readOne = async (a: Artifact): Promise<void> => {
    const d: ArtifactData = { id: a.id, path: a.path, role: a.role, format: a.format, nodeHint: a.nodeHint, signals: null, metrics: null, goroutines: null, truncated: false, inputName: inputName(disc.inputs[a.input]?.path ?? a.path), ...bundleFields(a) };
    try {
      const doc = isDocument(a);
      if (LOG_ROLES.has(a.role) || unplaced(a) || doc) {
        const zoneName = artifactZone(a, opts.tz, (m) => warn(a, null, m));
        const job = { artifact: a.id, zone: zoneName, year: opts.year, notAfterMs: artifactNotAfter(a, anchorMs ?? a.mtime), noPrefilter: opts.noPrefilter, custom };
        const here = { ...job, zone: zoneOf(zoneName), custom: compiled };
        const onRead = opts.onRead ? (bytes: number, n: number) => opts.onRead?.({ artifact: a, bytes, lines: n }) : undefined;
        let sig: ArtifactSignals;
        const pre = a.early !== undefined ? early.get(a.early) : undefined;
        if (pre) early.delete(a.early as number);
        if (doc) {
          // A document, and the log lines pasted with it: both read, their events told once.
          const read = await readDocument(a, (line, m) => warn(a, line, m));
          sig = withLogLines(read.signals, await extractSignals(Readable.from([read.bytes]), here), read.consumed);
          d.containers = read.containers;
        } else if (pre && keepEarly(pre, a, zoneName, here)) {
          earlyStats.kept++;
          sig = withArtifact(pre.signals, a.id);
          onRead?.(sig.scan.bytes, sig.scan.lines);
        } else if (pool && offload(a)) {
          // A large log in ranges, several per thread so that they balance; a smaller one (or one whose head lines
          // run on past its first 64 KiB) whole, on a worker.
          const plan = planRanges(a.head, a.file.size, here) ?? { minFirst: a.file.size, multiHost: false };
          const n = a.file.size >= splitAt ? Math.min(4 * pool.threads, Math.max(pool.threads, Math.floor(a.file.size / Math.max(1, splitAt >> 1)))) : 1;
          if (splitAt < SPLIT_BYTES) plan.warmupBytes = splitAt >> 3;
          sig = await readInRanges(pool, splitRanges(a.file.realPath, a.file.size, n, plan.minFirst), job, here, plan, onRead);
        } else {
          if (pre) earlyStats.reread++;
          sig = a.file
            ? await extractFile(a.file.realPath, here, onRead ? chunkCounter(onRead, 0).onChunk : undefined)
            : await extractSignals(onRead ? countingStream(a.open(), onRead) : a.open(), here);
        }
        // Loose files: the role their content shows (a controller manager's journal sniffed as a kubelet's, an excerpt).
        const role = a.bundleKind || doc ? a.role : contentRole(sig) ?? (unplaced(a) ? null : a.role);
        lines.set(a.id, sig.scan.lines);
        if (role === null) {
          warn(a, null, 'not recognised: no kubelet, runtime, kernel or controller message or log line in it');
        } else {
          if (role !== 'other') a.role = d.role = role;
          d.signals = sig;
          logs.set(a.id, logIndexOf(a.id, sig.scan, sig.hosts, zoneName, opts.year));
          // A healthz output has no times by nature.
          for (const w of sig.warnings) if (!(w.code === 'undated' && a.role === 'healthz')) warn(a, w.line, w.message);
          if (sig.warnings.some((w) => w.message.startsWith('read stopped'))) d.truncated = true;
        }
      } else if (hasExtras(a)) {
        Object.assign(d, await readExtras(a, (line, m) => warn(a, line, m)));
      } else if (a.role === 'metrics') {
        d.metrics = await readMetrics(a, (n) => lines.set(a.id, n), (line, msg) => warn(a, line, msg));
      } else if (a.role === 'goroutine-dump') {
        d.goroutines = await readGoroutines(a, (n) => lines.set(a.id, n));
      }
    } catch (err) {
      warn(a, null, `could not be read: ${(err as Error).message}`);
    }
    data.push(d);
    opts.onProgress?.({ file: a.path, index: done++, total: disc.artifacts.length });
  };

  // The large logs are queued first, so the workers scan while this thread reads the rest; then it scans too.
  const phase = async (list: Artifact[]): Promise<void> => {
    const queued = Promise.all(list.filter(offload).map(readOne));
    await runLimited(list.filter((a) => !offload(a)), lanes, readOne);
    await pool?.helpUntil(queued);
    await queued;
  };
  try {
    await phase(yearful);
    for (const d of data) {
      for (const h of d.signals?.hosts ?? []) anchorMs = Math.max(anchorMs ?? -Infinity, h.last + 86400000);
    }
    await phase(rest);
  } finally {
    await pool?.close();
    disc.close?.();
  }
  data.sort((x, y) => x.id - y.id);
  // The Prometheus history, asked for the nodes and stalls the files show (or --node over --since/--until).
  const prom = opts.prometheus ? await prometheusData(opts.prometheus, data, disc.artifacts.length) : null;
  if (prom) {
    data.push(...prom.data);
    warnings.push(...prom.warnings);
  }

  const { nodes, warnings: modelWarnings } = buildNodes(data);
  for (const w of modelWarnings) {
    const a = w.artifact !== null ? disc.artifacts[w.artifact] : undefined;
    if (a) warn(a, null, w.message);
    else warnings.push({ file: null, line: null, message: w.message });
  }

  const rules = opts.rules ?? BUILTIN_RULES;
  const gaps = opts.gaps ?? BUILTIN_GAPS;
  const evaluated = new Map<string, NodeJudgement['evaluated']>();
  const fileOf = (id: number): string => disc.artifacts[id]?.path ?? prom?.queries.get(id)?.label ?? '?';
  const queried = new Set([...prom?.queries.values() ?? []].map((q) => q.label));
  const reports: NodeReport[] = nodes.map((n) => {
    const judgement = evaluate(rules, gaps, computeFacts(n));
    evaluated.set(n.name, judgement.evaluated);
    return toNodeReport(n, judgement, fileOf, queried);
  });

  const inputs: InputInfo[] = disc.inputs.map((inp, i) => ({
    path: inp.path,
    kind: inp.kind,
    artifacts: disc.artifacts.filter((a) => a.input === i).map((a): ArtifactInfo => ({
      path: a.path,
      node: nodes.find((n) => n.artifacts.includes(a.id))?.name ?? null,
      role: a.role,
      format: a.format,
      lines: lines.get(a.id) ?? 0,
      warnings: perArtifactWarnings.get(a.id) ?? 0,
      ...(logs.has(a.id) ? { from: iso(logs.get(a.id)?.firstMs ?? null), to: iso(logs.get(a.id)?.lastMs ?? null) } : {}),
    })),
  }));
  if (prom && prom.queries.size > 0) {
    inputs.push({ ...prom.input, artifacts: [...prom.queries].map(([id, q]): ArtifactInfo => ({
      path: q.label, node: nodes.find((n) => n.artifacts.includes(id))?.name ?? null, role: 'metrics', format: 'prometheus-query', lines: q.points, warnings: 0, query: q.query,
    })) });
  }

  const analysis: Analysis = {
    schemaVersion: SCHEMA_VERSION,
    tool: { name: 'plegscope', version: TOOL_VERSION },
    generatedAt: (opts.now?.() ?? new Date()).toISOString(),
    inputs,
    nodes: reports,
    warnings: sortWarnings(warnings).map((w) => ({ ...w, message: plurals(w.message) })),
  };
  const viewNodes: ViewIndex['nodes'] = new Map(nodes.map((n) => [n.name, {
    artifacts: n.artifacts,
    criErrors: n.events.flatMap((e) => (e.type === 'cri-error' ? [{ op: e.op, ts: e.ts, layer: e.layer }] : [])),
  }]));
  return { analysis, evaluated, artifacts: disc.artifacts, views: { logs, nodes: viewNodes }, early: earlyStats };
}

/** What the user called a path: a folder's or a file's name (`-` for stdin). */
function inputName(p: string): string {
  return p.replace(/\/+$/, '').split('/').pop() || p;
}

/** Whether what was extracted from an archive member during the index pass is what reading it now would give. */
function keepEarly(pre: EarlyRead, a: Artifact, zoneName: string, here: ExtractOptions): boolean {
  // A read that stopped (archive damaged inside the member) is read again, to fail the same way a reader does.
  if (pre.signals.warnings.some((w) => w.message.startsWith('read stopped'))) return false;
  return sameZone(pre.zone, zoneName) && sameYearWalk(a.head, here, pre.notAfterMs, here.notAfterMs);
}

/** Signals extracted before the artifact had its id, given it. */
function withArtifact(s: ArtifactSignals, id: number): ArtifactSignals {
  for (const e of s.events) e.ref.artifact = id;
  return { ...s, artifact: id };
}

/** The ranges of one plain log, each read and scanned by a worker or this thread, merged in file order; progress summed
 *  over them. */
function readInRanges(
  pool: SignalPool, ranges: FileRange[], job: ExtractJob, here: ExtractOptions, plan: RangePlan, onRead?: (bytes: number, lines: number) => void,
): Promise<ArtifactSignals> {
  const heads = ranges.map((r) => headAtSync(r.realPath, r.start, RANGE_HEAD_BYTES));
  const read = ranges.map(() => ({ bytes: 0, lines: 0 }));
  return extractRanges(ranges, heads, here, (r, options) => {
    const k = ranges.indexOf(r);
    // A fix-up pass re-reads a range: it is not progress.
    return pool.runRange(job, here, r, options, onRead && !options.proofsFor ? (bytes, lines) => {
      read[k] = { bytes, lines };
      onRead(read.reduce((t, x) => t + x.bytes, 0), read.reduce((t, x) => t + x.lines, 0));
    } : undefined);
  }, plan);
}

/** How long this thread may run small files back to back before it lets the event loop turn. */
const YIELD_MS = 4;

/** Runs `fn` over `items` with at most `limit` at a time, in order of start. Small files held in memory resolve in
 *  microtasks alone, so the lanes yield to the event loop every few ms: otherwise a worker's finished range waits
 *  unseen (and the worker idles) until all of them are read (measured: 120 ms idle of a 200-node must-gather). */
async function runLimited<T>(items: T[], limit: number, fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  let turned = performance.now();
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      await fn(items[next++] as T);
      if (performance.now() - turned >= YIELD_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        turned = performance.now();
      }
    }
  });
  await Promise.all(lanes);
}

function sortWarnings(ws: Warning[]): Warning[] {
  return [...ws].sort((a, b) => (a.file ?? '').localeCompare(b.file ?? '') || (a.line ?? 0) - (b.line ?? 0) || a.message.localeCompare(b.message));
}

/** A saved query answer in JSON is read whole: larger ones are refused (plegscope's memory bound). */
const MAX_QUERY_JSON_BYTES = 48 << 20;

async function readMetrics(a: Artifact, setLines: (n: number) => void, warn: (line: number | null, m: string) => void): Promise<MetricsSource> {
  let parsed: MetricsSource['parsed'] & { errors: { line: number; message: string }[]; dropped?: DroppedSeries[] };
  if (a.format === 'prometheus-query-json') {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of a.open()) {
      size += (c as Buffer).length;
      if (size > MAX_QUERY_JSON_BYTES) throw new Error(`a saved query answer larger than ${MAX_QUERY_JSON_BYTES >> 20} MiB: save a narrower window or step`);
      chunks.push(c as Buffer);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    setLines(text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
    parsed = parseQueryJson(text, isModelMetric);
  } else {
    const parser = a.format === 'prometheus-query-text' ? new QueryTextParser(isModelMetric) : new MetricsParser({ keep: isModelMetric });
    const scanner = new LineScanner({ line: (t, n) => parser.push(t, n) }, { prefilter: null });
    const res = await scanStream(a.open(), scanner);
    setLines(res.lines);
    parsed = parser.finish();
  }
  if (parsed.errors.length > 0) {
    const first = parsed.errors[0] as { line: number; message: string };
    warn(first.line, `${parsed.errors.length} malformed metrics line(s) skipped (first: ${first.message})`);
  }
  for (const d of parsed.dropped ?? []) {
    warn(d.firstLine, `metric family ${d.family}: only its first ${d.kept} series are read; ${d.atLeast ? 'at least ' : ''}${d.series} more series (${d.samples} samples, the first on this line) dropped (a kubelet exposes a few dozen per family)`);
  }
  return { file: a.path, nodeHint: a.nodeHint, nameTime: a.nameTime, parsed };
}

async function readGoroutines(a: Artifact, setLines: (n: number) => void): Promise<ParsedGoroutines> {
  const parser = new GoroutineParser();
  const scanner = new LineScanner({ line: (t, n) => parser.push(t, n) }, { prefilter: null });
  const res = await scanStream(a.open(), scanner);
  setLines(res.lines);
  const g = parser.finish();
  return { ...g, artifact: a.id };
}

function evidence(refs: Cite[], fileOf: (id: number) => string): EvidenceRef[] {
  return refs.map((r) => ('file' in r ? r : { file: fileOf(r.artifact), line: r.line, ts: iso(r.ts), text: r.text }));
}

function quantiles(q: Quantiles | null | undefined): Quantiles | null {
  if (!q) return null;
  return { p50: q.p50, p90: q.p90, p99: q.p99, max: q.max };
}

function toNodeReport(n: NodeModel, j: NodeJudgement, fileOf: (id: number) => string, queried: Set<string>): NodeReport {
  const m = n.metrics;
  // Calls, errors and latency of the metrics window; errors (logErrors) and timeouts of the whole log.
  const hasLog = n.roles.includes('kubelet-log') || n.cri.length > 0;
  const ops = new Map<string, OperationStats>();
  for (const o of m?.operations ?? []) {
    ops.set(o.operation, {
      operation: o.operation, source: 'metrics', count: o.count, errors: o.errors, timeouts: 0, p50Seconds: o.p50, p90Seconds: o.p90, p99Seconds: o.p99,
      ...(hasLog ? { logErrors: 0 } : {}),
      latency: o.latency,
    });
  }
  for (const c of n.cri) {
    const cur = ops.get(c.operation);
    if (cur) {
      cur.source = 'both';
      cur.timeouts = c.timeouts;
      cur.logErrors = c.errors;
    } else {
      ops.set(c.operation, {
        operation: c.operation, source: 'logs', count: null, errors: c.errors, timeouts: c.timeouts, p50Seconds: null, p90Seconds: null, p99Seconds: null,
        logErrors: c.errors, latency: null,
      });
    }
  }
  const findings: Finding[] = j.fired.map((f) => ({
    ruleId: f.spec.id,
    cause: f.spec.cause,
    severity: f.spec.severity,
    confidence: f.confidence,
    title: f.spec.title,
    summary: f.summary + (f.because.length ? ` Supporting: ${f.because.join('; ')}.` : '') + (f.against.length ? ` Against: ${f.against.join('; ')}.` : ''),
    evidence: evidence(f.evidence, fileOf),
    remediation: f.spec.remediation,
    references: f.spec.references ?? [],
    ...(f.checks.length ? { checks: f.checks.map((c) => ({ ...c, grep: grepCommand(c.grep, fileOf) })) } : {}),
  }));
  const from = [n.windowStart, m?.windowStartMs ?? null].filter((x): x is number => x !== null);
  const to = [n.windowEnd, m?.windowEndMs ?? null].filter((x): x is number => x !== null);
  return {
    name: n.name,
    kubeletVersion: n.kubeletVersion,
    runtime: n.runtime,
    window: { start: iso(n.windowStart), end: iso(n.windowEnd) },
    verdict: j.verdict,
    stalls: n.timeline.stalls.map((s) => ({
      lastRelistAt: iso(s.lastRelistAt),
      unhealthyFrom: iso(s.lastRelistAt + s.thresholdSeconds * 1000),
      endedAt: iso(s.endedAt),
      ...(s.endedBetween ? { endedBetween: { from: iso(s.endedBetween.from) as string, to: iso(s.endedBetween.to) } } : {}),
      endedBy: s.endedBy,
      durationSeconds: round3(s.durationSeconds),
      maxLastSeenAgoSeconds: round3(s.maxAgeSeconds),
      nodeNotReady: s.nodeNotReady,
      evidence: evidence([...s.evidence, ...(s.endEvidence ? [s.endEvidence] : [])], fileOf),
    })),
    notReady: n.timeline.notReady.map((w) => ({ from: iso(w.from) as string, to: iso(w.to), reason: w.reason, evidence: evidence(w.evidence, fileOf) })),
    restarts: n.timeline.restarts.map((r) => ({ at: iso(r.at) as string, version: r.version, evidence: evidence(r.evidence, fileOf) })),
    relist: {
      source: m && (m.relist.duration || m.relist.interval) ? 'metrics' : 'none',
      durationSeconds: quantiles(m?.relist.duration) ?? null,
      intervalSeconds: quantiles(m?.relist.interval) ?? null,
      ...(m ? { duration: m.relist.duration?.latency ?? null, interval: m.relist.interval?.latency ?? null } : {}),
    },
    operations: [...ops.values()].sort((a, b) => a.operation.localeCompare(b.operation)),
    pods: { running: m?.runningPods ?? n.bundle.containers?.sandboxesReady ?? null, containers: m?.runningContainers ?? n.bundle.containers?.running ?? null },
    findings,
    ruledOut: j.ruledOut,
    coverage: {
      from: from.length ? iso(Math.min(...from)) : null,
      to: to.length ? iso(Math.max(...to)) : null,
      truncated: n.truncated,
      roles: n.roles,
    },
    gaps: j.gaps,
    ...(m ? { metricsFrom: m.sources.map((x) => ({ source: x.file, kind: queried.has(x.file) ? 'prometheus' as const : 'file' as const, from: iso(x.fromMs), to: iso(x.toMs), points: x.points })) } : {}),
    ...(m ? { metricsWindow: { from: iso(m.windowStartMs), to: iso(m.windowEndMs), scrapes: m.snapshots, cumulative: m.cumulative } } : {}),
  };
}

/** A path as one shell word (single-quoted unless it is plain). */
/** The shell command a count check prints: `grep -cE 'pattern' file` for one plain file; a compressed file read with
 *  its own tool (`zgrep`, `xzgrep`, `bzgrep`, `zstdgrep`); several files counted as one stream, as the report does. */
function grepCommand(template: string, fileOf: (id: number) => string): string {
  const m = /^\{grep\} ('(?:[^']|'\\'')*'|\S+) ((?:\{file:\d+\} ?)+)$/.exec(template);
  if (!m) return template;
  const files = [...(m[2] as string).matchAll(/\{file:(\d+)\}/g)].map((x) => fileOf(Number(x[1])));
  const cat = (f: string): string => (/\.gz$/i.test(f) ? 'zcat' : /\.xz$/i.test(f) ? 'xzcat' : /\.bz2$/i.test(f) ? 'bzcat' : /\.zst$/i.test(f) ? 'zstdcat' : 'cat');
  if (files.length === 1) {
    const c = cat(files[0] as string);
    const tool = c === 'cat' ? 'grep' : c === 'zcat' ? 'zgrep' : c === 'xzcat' ? 'xzgrep' : c === 'bzcat' ? 'bzgrep' : 'zstdgrep';
    return `${tool} -cE ${m[1]} ${shellWord(files[0] as string)}`;
  }
  const tools = new Set(files.map(cat));
  const stream = tools.size === 1 ? `${[...tools][0]} ${files.map(shellWord).join(' ')}` : `{ ${files.map((f) => `${cat(f)} ${shellWord(f)}`).join('; ')}; }`;
  return `${stream} | grep -cE ${m[1]}`;
}

function shellWord(s: string): string {
  return /^[\w./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

