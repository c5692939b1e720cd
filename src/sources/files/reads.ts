// Reading the inputs: which thread reads each artifact and when, and what each read yields (signals, metrics,
// goroutine dumps, bundle extras). analyze.ts hands the result to the model.
//
// - Logs inside archives are extracted while the index pass streams them by (an archive is decompressed anew for every
//   pass over it), with the options known then; kept when the options the bundle layout then gives agree, read again
//   otherwise (keepEarly).
// - Large plain logs may be cut into byte ranges that worker threads and this one scan (src/sources/files/pool.ts), when the
//   machine has cores to spare and the logs are large enough to repay a worker's start (see wantedWorkers, POOL_BYTES).
// - The rest is read on this thread, a few files at a time.
import { MAX_LISTED_FILES, type ArtifactInfo, type InputInfo, type UnlistedFiles, type Warning } from '../../contract/analysis.js';
import type { SourceRead } from '../source.js';
import { discover } from './discover.js';
import type { Artifact, Discovery, ReadEarly } from '../artifact.js';
import { countingStream, logIndexOf, type LogIndex } from './line-reader.js';
import { extractFile, headAtSync, splitRanges, type FileRange } from './ranges.js';
import type { Limits } from './limits.js';
import { LineScanner, scanStream } from '../../parse/lines.js';
import { MAX_SAMPLE_TIMES, MAX_SAMPLES, MetricsParser, type DroppedSeries, type SampleCut } from '../../parse/metrics/exposition.js';
import type { ParsedGoroutines } from '../../parse/goroutines.js';
import { iso, resolveZone, sameZone, type Zone } from '../../parse/time.js';
import { contentRole, extractSignals, wokenLines, type ArtifactSignals, type ExtractOptions } from '../../signals/extract.js';
import { chunkCounter } from '../../signals/progress.js';
import { compileCustom, type CustomSignalSpec } from '../../signals/custom.js';
import type { SignalPool } from './pool.js';
import type { RangePlan } from './segments.js';
import type { ExtractJob } from './worker-protocol.js';
import type { ArtifactData } from '../../model/node.js';
import type { MetricsSource } from '../../model/metrics.js';
import { isModelMetric } from '../../model/metric-names.js';
import { originOfName } from './names.js';
import { foldLines, wrapWidth } from './fold.js';
import { artifactNotAfter, artifactZone, bundleFields, hasExtras, isDocument, readDocument, readExtras, selfAnchored } from './bundle-data.js';
import { shiftYears, statedYearShift, yearAssumed, YEARFUL, YearAnchors, type YearFrom } from './anchors.js';
import { Readable } from 'node:stream';
import { availableParallelism } from 'node:os';

export interface ReadOptions {
  paths: string[];
  year?: number;
  tz?: string;
  /** Parse every line (no chunk prefilter): the slow path the fast one must agree with. */
  noPrefilter?: boolean;
  /** Read the logs inside archives while the archive is indexed (default); false: in a later pass over it, the slow
   *  path the fast one must agree with. */
  earlyReads?: boolean;
  customSignals?: CustomSignalSpec[];
  /** Bounds for reading archives (decompression ratio, nesting…); defaults in src/sources/files/limits.ts. */
  limits?: Partial<Limits>;
  /** Worker threads for signal extraction: 0 = in this thread; default: see wantedWorkers (when running compiled). */
  workers?: number;
  stdin?: Readable;
  onProgress?: (p: { file: string; index: number; total: number }) => void;
  /** Bytes and lines of a log read so far, as they stream in (progress displays: the TUI). */
  onRead?: (p: { artifact: Artifact; bytes: number; lines: number }) => void;
  /** An archive member (its path) read while its archive is indexed (progress displays). */
  onIndex?: (member: string) => void;
}

/** What reading the inputs gave: per artifact its data (in id order), lines and line index, and the warnings so far. */
export interface Reads extends SourceRead {
  disc: Discovery;
  data: ArtifactData[];
  lines: PerId<number>;
  logs: Map<number, LogIndex>;
  warnings: Warning[];
  /** Warnings per artifact id. */
  perArtifact: Map<number, number>;
  /** A warning about an artifact (later stages add theirs). */
  warn: (a: Artifact, line: number | null, message: string) => void;
  /** Archive members read while the archive was indexed; of them, kept, or read again because the options differed. */
  early: { read: number; kept: number; reread: number };
  /** How each year-less log's year was chosen (src/sources/files/anchors.ts), with the year its first dated line fell in. */
  yearFrom: PerId<{ from: YearFrom; year: number | null }>;
}

const LOG_ROLES = new Set(['kubelet-log', 'runtime-log', 'kernel-log', 'controller-log', 'healthz']);
/** A log of text lines (not JSON, not a decoded journal or export): one a paste may have hard-wrapped. */
const textLog = (a: Artifact): boolean => a.compression !== 'journal' && a.compression !== 'export' && !/json|openmetrics|prometheus/.test(a.format);
/** A loose text file nothing in its head placed (no envelope, no known document): read as a log all the same, since
 *  a pasted excerpt is recognised by its messages; its role is then what its lines turned out to be. Inside bundles
 *  the layout says which files are logs. */
const unplaced = (a: Artifact): boolean => a.role === 'other' && a.format === 'other' && !a.bundleKind;
/** Plain logs from this size are read as ranges once a pool runs (a worker or this thread takes each); from SPLIT_BYTES
 *  they are cut into several ranges per thread. PLEGSCOPE_SPLIT_BYTES lowers all three sizes, for tests. */
const OFFLOAD_BYTES = 4 << 20;
const SPLIT_BYTES = 32 << 20;
/**
 * Plain logs of 4 MB and more must add up to this much before workers start. One thread scans ~1 GB/s; a worker starts
 * scanning 100–300 ms after it is made (its own heap, the modules loaded again), so below this size this thread is done,
 * or nearly, by the time a worker could help, and the pool only costs CPU and memory.
 */
const POOL_BYTES = 256 << 20;
/** Workers by default at most: each holds a heap of its own (measured on a 1 GiB journal: 76 MB peak RSS with none,
 *  89 with one, 139 with four; on a 2 GiB dense one 170, 190 and 244 with three), the bound is 200 MB, and four threads
 *  already read faster than most disks deliver; PLEGSCOPE_WORKERS sets more. */
const DEFAULT_MAX_WORKERS = 3;
/** Enough of a range's start to find its first dated line. */
const RANGE_HEAD_BYTES = 16 * 1024;

/**
 * Worker threads by default: none on one or two cores, one per core but one (at most 3) from three; one for a dense log
 * on two cores or more (denseAmong). On two cores the second one is often not free (another process, a CI neighbour)
 * or not a whole core (two vCPUs on one physical core): measured on a 1 GiB journal on 2 vCPUs, a worker saved 9 % of
 * the wall time with both cores free and cost 10 % with one busy. PLEGSCOPE_WORKERS=N or `workers` sets it (0: this
 * thread only), dense or not (`explicit`).
 */
export function wantedWorkers(opts: { workers?: number }): { workers: number; explicit: boolean; cores: number } {
  const env = process.env['PLEGSCOPE_WORKERS'] !== undefined ? Number(process.env['PLEGSCOPE_WORKERS']) : undefined;
  const cores = availableParallelism();
  const explicit = opts.workers !== undefined || (env !== undefined && Number.isInteger(env));
  const wanted = opts.workers ?? (env !== undefined && Number.isInteger(env) ? env : cores >= 3 ? Math.min(cores - 1, DEFAULT_MAX_WORKERS) : 0);
  return { workers: Math.max(0, Math.min(wanted, cores * 2)), explicit, cores };
}

/** Workers for large plain logs `files`: as many as wanted, or one when one of them is dense (unless set). */
export function poolSize(files: Array<{ realPath: string; size: number }>, want: ReturnType<typeof wantedWorkers>, custom: ExtractOptions['custom']): number {
  if (want.explicit) return want.workers;
  return want.cores >= 2 && denseAmong(files, custom) ? 1 : want.workers;
}

/** A sample of this many bytes at each of DENSE_SAMPLES places of a large log tells whether it is dense. */
const DENSE_SAMPLE_BYTES = 256 * 1024;
const DENSE_SAMPLES = 4;
/** Lines a base needle wakes per MiB from which a log is dense: every such line is read (or fitted to a template), at
 *  ~1 µs, against ~0.3 ms a MiB to scan the rest. An ordinary kubelet journal has a few hundred per MiB at most, a
 *  runtime outage's spam thousands. */
const DENSE_LINES_PER_MIB = 1000;
/** Large logs sampled at most, the largest first. */
const DENSE_PROBES = 8;

/**
 * Whether one of these large plain logs is dense (most lines matter). Such a log costs ~10× an ordinary one per byte,
 * so a second thread halves its time even on two cores (measured on 2 GiB: 16.0 s alone, 7.6 s with a worker), where an
 * ordinary one gains little from it; and each worker's heap holds its share of the events a dense log keeps, so more
 * than one would pass the memory bound (2 GiB: 181 MB peak RSS with one worker, 246 MB with three). A compressed file's
 * bytes show no needle: it is not dense here (and never read in ranges).
 */
export function denseAmong(files: Array<{ realPath: string; size: number }>, custom: ExtractOptions['custom']): boolean {
  for (const f of [...files].sort((a, b) => b.size - a.size).slice(0, DENSE_PROBES)) {
    let bytes = 0;
    let woken = 0;
    try {
      for (let k = 1; k <= DENSE_SAMPLES; k++) {
        const b = headAtSync(f.realPath, Math.floor((f.size * k) / (DENSE_SAMPLES + 1)), DENSE_SAMPLE_BYTES);
        bytes += b.length;
        woken += wokenLines(b, custom);
      }
    } catch {
      continue; // read as any file is (and warned of then)
    }
    if (bytes > 0 && woken / (bytes / 1048576) >= DENSE_LINES_PER_MIB) return true;
  }
  return false;
}

/** What an archive member's early read found, with the options it was read with. */
interface EarlyRead {
  signals: ArtifactSignals;
  zone: string;
  notAfterMs: number | null;
}

export async function readInputs(opts: ReadOptions): Promise<Reads> {
  const zone = resolveZone(opts.tz ?? 'UTC');
  const zoneOf = (name: string): Zone => (name === (opts.tz ?? 'UTC') ? zone : resolveZone(name));
  const want = wantedWorkers(opts);
  const envSplit = Number(process.env['PLEGSCOPE_SPLIT_BYTES']);
  const splitAt = Number.isInteger(envSplit) && envSplit >= 0 ? envSplit : SPLIT_BYTES;
  const offloadAt = Math.min(OFFLOAD_BYTES, splitAt);
  const poolAt = splitAt < SPLIT_BYTES ? splitAt : POOL_BYTES;
  // Started as soon as the walk lists enough large files, so the workers boot while the files are being probed.
  const started: { pool: Promise<SignalPool | null> | null } = { pool: null };
  const custom = opts.customSignals ?? [];
  const compiled = custom.map(compileCustom);
  const onFileSizes = (files: Array<{ realPath: string; size: number }>): void => {
    let big = 0;
    for (const f of files) if (f.size >= offloadAt) big += f.size;
    if (started.pool || big === 0 || big < poolAt) return;
    const n = poolSize(files.filter((f) => f.size >= offloadAt), want, compiled);
    if (n > 0) started.pool = startPool(n);
  };
  // Logs inside archives are extracted while the index pass streams them by, with the options guessed then: the zone
  // the user gave, else the one the sosreport metadata met earlier names, else UTC; as the year anchor the collection
  // time that metadata gives, else the member's time.
  const early = new EarlyReads();
  const earlyStats = { read: 0, kept: 0, reread: 0 };
  let nextToken = 0;
  // Every log member, whatever its size: one read later would make another pass over the archive up to it.
  const readEarly: ReadEarly = (m) => {
    if (!LOG_ROLES.has(m.role)) return null;
    const clock = m.clock();
    const zoneName = opts.tz ?? clock.zone ?? 'UTC';
    const notAfterMs = clock.collectedAt ?? m.mtime;
    let z: Zone;
    try {
      z = zoneOf(zoneName);
    } catch {
      return null;
    }
    return async (bytes) => {
      opts.onIndex?.(m.path);
      const signals = held(lean(await extractSignals(bytes, { artifact: -1, zone: z, year: opts.year, notAfterMs, noPrefilter: opts.noPrefilter, custom: compiled })));
      const token = nextToken++;
      earlyStats.read++;
      early.set(token, signals, zoneName, notAfterMs);
      return token;
    };
  };
  let disc: Discovery;
  try {
    disc = await discover(opts.paths, { stdin: opts.stdin, limits: opts.limits, onFileSizes, ...(opts.earlyReads !== false ? { readEarly } : {}) });
  } catch (err) {
    await (await started.pool)?.close();
    throw err;
  }
  const pool = await started.pool;
  const offload = (a: Artifact): a is Artifact & { file: NonNullable<Artifact['file']> } => pool !== null && LOG_ROLES.has(a.role) && a.file !== undefined && a.file.size >= offloadAt;
  const warnings: Warning[] = disc.warnings.map((w) => ({ file: w.file, line: w.line, message: w.message }));
  const perArtifact = new Map<number, number>();
  const lines = new PerId<number>(disc.artifacts.length);
  const logs = new Map<number, LogIndex>();
  // Discovery's warnings per artifact: a map of the warned paths, not of every artifact's (100 000 files).
  const warnedPaths = new Map<string, number>();
  for (const w of disc.warnings) if (w.file !== null) warnedPaths.set(w.file, (warnedPaths.get(w.file) ?? 0) + 1);
  if (warnedPaths.size > 0) {
    // Of artifacts sharing a path, the last one's.
    const at = new Map<string, number>();
    for (const a of disc.artifacts) if (warnedPaths.has(a.path)) at.set(a.path, a.id);
    for (const [p, id] of at) perArtifact.set(id, warnedPaths.get(p) as number);
  }
  const warn = (a: Artifact, line: number | null, message: string): void => {
    warnings.push({ file: a.path, line, message });
    perArtifact.set(a.id, (perArtifact.get(a.id) ?? 0) + 1);
  };
  /** A paste hard-wrapped at a fixed width (fold.ts): its lines with the wrapped ones joined, and `done()` to call
   *  once read (it says how many were joined); null for any other file, which is read as it is. */
  const unwrap = (a: Artifact, onRead?: (bytes: number, n: number) => void): { stream: Readable; done: () => void } | null => {
    const wrap = textLog(a) ? (a.headless ? a.headless.wrap : wrapWidth(a.head)) : null;
    if (wrap === null) return null;
    const fold = foldLines(onRead ? countingStream(a.open(), onRead) : a.open(), wrap);
    a.wrap = wrap;
    return { stream: fold.stream, done: () => fold.joined() > 0 && warn(a, null, `hard-wrapped at ${wrap} columns: ${fold.joined()} line(s) joined to the line they continue (evidence cites each record's first line)`) };
  };

  // Year-carrying formats first: their times anchor the year of the year-less ones (journal short, klog headers), each
  // on its own node's (src/sources/files/anchors.ts). Bundle files anchored by their collection time need no help: they stay in
  // archive order (one pass over a tar). Metrics snapshots too (their samples carry epoch times, their
  // kubelet_node_name says whose they are).
  const first = (a: Artifact): boolean => YEARFUL.test(a.format) || selfAnchored(a) || a.role === 'metrics';
  const yearful = disc.artifacts.filter(first);
  const rest = disc.artifacts.filter((a) => !first(a));
  // Files on disk are read a few at a time so small files overlap their I/O (and keep every worker busy); archive
  // members one after the other.
  const lanes = disc.artifacts.some((a) => a.sequential) ? 1 : Math.max(4, 2 * (pool?.size ?? 0));
  const inputNames = distinctInputNames(disc.inputs.map((i) => i.path));
  const anchors = new YearAnchors(disc.artifacts);
  const now = Date.now();
  const yearFrom = new PerId<{ from: YearFrom; year: number | null }>(disc.artifacts.length);
  const data: ArtifactData[] = [];
  const folds = new Folds(disc.artifacts, yearFrom);
  let done = 0;

  const readOne = async (a: Artifact): Promise<void> => {
    const d: ArtifactData = { id: a.id, path: a.path, role: a.role, format: a.format, nodeHint: a.nodeHint, ...(a.nodeHintFrom ? { nodeHintFrom: a.nodeHintFrom } : {}), signals: null, metrics: null, goroutines: null, truncated: false, inputName: inputNames[a.input] ?? inputName(a.path), ...bundleFields(a) };
    try {
      const doc = isDocument(a);
      if (LOG_ROLES.has(a.role) || unplaced(a) || doc) {
        const zoneName = artifactZone(a, opts.tz, (m) => warn(a, null, m));
        d.zone = zoneName;
        const anchor = YEARFUL.test(a.format) ? { notAfterMs: artifactNotAfter(a, a.mtime), from: null } : anchors.anchor(a, opts.year, now);
        const nameOrigin = originOfName(a.path);
        const job = { artifact: a.id, zone: zoneName, year: opts.year, notAfterMs: anchor.notAfterMs, noPrefilter: opts.noPrefilter, custom, ...(nameOrigin ? { nameOrigin } : {}) };
        const here = { ...job, zone: zoneOf(zoneName), custom: compiled };
        const onRead = opts.onRead ? (bytes: number, n: number) => opts.onRead?.({ artifact: a, bytes, lines: n }) : undefined;
        let sig: ArtifactSignals;
        const pre = a.early !== undefined ? early.take(a.early) : undefined;
        const unwrapped = doc ? null : unwrap(a, onRead);
        if (unwrapped) {
          sig = await extractSignals(unwrapped.stream, here);
          unwrapped.done();
        } else if (doc) {
          // A document, and the log lines pasted with it: both read, their events told once.
          const read = await readDocument(a, (line, m) => warn(a, line, m));
          const { withLogLines } = await import('../../signals/documents.js');
          sig = withLogLines(read.signals, await extractSignals(Readable.from([read.bytes]), here), read.consumed);
          d.containers = read.containers;
        } else if (pre && await keepEarly(pre, a, zoneName, here)) {
          earlyStats.kept++;
          sig = withArtifact(pre.signals, a.id);
          onRead?.(sig.scan.bytes, sig.scan.lines);
        } else if (pool && offload(a)) {
          // A large log in ranges, several per thread so that they balance; a smaller one (or one whose head lines
          // run on past its first 64 KiB) whole, on a worker.
          const { planRanges } = await import('./segments.js');
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
        // A year assumed from the file's date (or today) that the file's own lines contradict: read again in theirs.
        if (yearAssumed(anchor.from ?? 'option') && anchor.notAfterMs !== null && !doc && !unwrapped && (a.file || !a.sequential)) {
          const shift = statedYearShift(sig.events.slice(0, 2000).map((e) => e.ref));
          if (shift !== 0) {
            const again = { ...here, notAfterMs: shiftYears(anchor.notAfterMs, shift) };
            sig = a.file ? await extractFile(a.file.realPath, again) : await extractSignals(a.open(), again);
            anchor.from = 'content';
          }
        }
        // Loose files: the role their content shows (a controller manager's journal sniffed as a kubelet's, an excerpt).
        const role = a.bundleKind || doc ? a.role : contentRole(sig) ?? (unplaced(a) ? null : a.role);
        lines.set(a.id, sig.scan.lines);
        if (role === null) {
          warn(a, null, 'not recognised: no kubelet, runtime, kernel or controller message or log line in it');
        } else {
          if (role !== 'other') a.role = d.role = role;
          sig = lean(sig);
          if (!doc && folds.take(a, d, sig, anchor.from)) {
            opts.onProgress?.({ file: a.path, index: done++, total: disc.artifacts.length });
            return;
          }
          d.signals = sig;
          if (anchor.from) yearFrom.set(a.id, { from: anchor.from, year: yearOfLogs(sig) });
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
        const unwrapped = unwrap(a);
        d.goroutines = await readGoroutines(a, unwrapped?.stream ?? a.open(), (n) => lines.set(a.id, n));
        unwrapped?.done();
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
      if (d.signals) anchors.note(disc.artifacts[d.id] as Artifact, d.signals.hosts);
      if (d.metrics) anchors.noteSnapshot(snapshotNode(d.metrics) ?? d.nodeHint, snapshotTime(d.metrics));
    }
    await phase(rest);
    early.clear();
  } finally {
    await pool?.close();
    disc.close?.();
  }
  data.sort((x, y) => x.id - y.id);
  // Each input's files, listed up to MAX_LISTED_FILES per node and role; the rest counted per node and role.
  const inputs = (nodeOf: (id: number) => string | null): InputInfo[] => {
    const out: InputInfo[] = disc.inputs.map((inp) => ({ path: inp.path, kind: inp.kind, artifacts: [] }));
    const groups = disc.inputs.map(() => new Map<string, { listed: number; more: UnlistedFiles | null }>());
    for (const a of disc.artifacts) {
      const info = out[a.input] as InputInfo;
      const node = nodeOf(folds.into(a.id));
      const byGroup = groups[a.input] as Map<string, { listed: number; more: UnlistedFiles | null }>;
      const key = `${a.role}\n${node ?? ''}\n${node === null ? 0 : 1}`;
      let g = byGroup.get(key);
      if (!g) byGroup.set(key, g = { listed: 0, more: null });
      if (g.listed < MAX_LISTED_FILES) {
        g.listed++;
        info.artifacts.push({
          path: a.path,
          node,
          role: a.role,
          format: a.format,
          lines: lines.get(a.id) ?? 0,
          warnings: perArtifact.get(a.id) ?? 0,
          ...(logs.has(a.id) ? { from: iso(logs.get(a.id)?.firstMs ?? null), to: iso(logs.get(a.id)?.lastMs ?? null) } : {}),
          ...yearInfo(yearFrom.get(a.id)),
        });
        continue;
      }
      const year = yearInfo(yearFrom.get(a.id)).year;
      if (!g.more) {
        (info.unlisted ??= []).push(g.more = { node, role: a.role, files: 0, lines: 0, warnings: 0, bytes: 0, ...(year ? { year } : {}) });
      } else if (g.more.year && (g.more.year.value !== year?.value || g.more.year.from !== year.from)) {
        delete g.more.year;
      }
      g.more.files++;
      g.more.lines += lines.get(a.id) ?? 0;
      g.more.warnings += perArtifact.get(a.id) ?? 0;
      g.more.bytes += a.size ?? 0;
    }
    return out;
  };
  const cite = (id: number): string | undefined => disc.artifacts[id]?.path;
  return { disc, data, lines, logs, warnings, perArtifact, warn, early: earlyStats, yearFrom, inputs, cite, served: new Set() };
}

/** A value per artifact id (0 … n-1): a list, not a Map (100 000 files: 0.8 MB, not 5 MB). */
export class PerId<T> {
  private readonly values: Array<T | undefined>;
  constructor(n: number) {
    this.values = Array.from({ length: n }, () => undefined);
  }
  get(id: number): T | undefined {
    return this.values[id];
  }
  set(id: number, value: T): void {
    this.values[id] = value;
  }
}

/** Logs of one kind past this many are folded (Folds). */
export const FOLD_AFTER = 1000;

/**
 * Logs that yield no event, folded into one of their kind past FOLD_AFTER of it: a folder of 100 000 tiny
 * kubelet logs held the signals, line index and head of each (1.5 KB a file) for nothing a report shows. Of the same
 * kind means the same input, role, format, zone, bundle placement, hosts and node names; a file is folded into the
 * first of its kind with the same node hint. What the model reads of such a log (its node, its roles, its hosts'
 * windows, the alias a folder name gives) is then that of the one it is folded into, the windows widened to cover it
 * (the model takes a node's window as the least and the most of its files').
 * Each folded file keeps its line count and warnings (the report's counts stay exact) and is listed or counted under
 * its node (`into`); it cites nothing, having no event, and is not among the TUI's files.
 */
class Folds {
  private readonly reps = new Map<string, { data: ArtifactData; hosts: ArtifactSignals['hosts'] }>();
  private readonly counts = new Map<string, number>();
  /** Artifact id → the id it was folded into (-1: not folded). */
  private readonly folded: Int32Array;
  /** One record per year origin and year, shared by the folded files' yearFrom entries. */
  private readonly years = new Map<string, { from: YearFrom; year: number | null }>();

  constructor(private readonly artifacts: Artifact[], private readonly yearFrom: PerId<{ from: YearFrom; year: number | null }>) {
    this.folded = new Int32Array(artifacts.length).fill(-1);
  }

  into(id: number): number {
    const to = this.folded[id];
    return to === undefined || to < 0 ? id : to;
  }

  /** Folds artifact `a` (read as `d`, `sig`) into the first of its kind when it yields no event and FOLD_AFTER of its
   *  kind were kept; false: keep it as it is (then it may be the first of its kind). */
  take(a: Artifact, d: ArtifactData, sig: ArtifactSignals, from: YearFrom | null): boolean {
    if (sig.events.length > 0 || sig.warnings.length > 0 || sig.bootAnchors.length > 0 || d.refusals || d.containers || d.truncated) return false;
    const { id: _id, path: _path, signals: _signals, nodeHint, nodeHintFrom, ...kind } = d;
    void _id;
    void _path;
    void _signals;
    const hosts = sig.hosts.map((h) => h.host).sort();
    // Counted by kind; folded into the first of its kind with the same node hint (the folder it is in, say): what the
    // model makes of a hint (a node of that name, an alias of the host it shows) is then made the same.
    const kindKey = JSON.stringify([a.input, kind, hosts, sig.nodeNames]);
    const repKey = `${JSON.stringify([nodeHint, nodeHintFrom ?? null])}${kindKey}`;
    const count = this.counts.get(kindKey) ?? 0;
    const rep = this.reps.get(repKey);
    if (count < FOLD_AFTER || !rep) {
      this.counts.set(kindKey, count + 1);
      if (!rep) {
        // Kept, and its own windows copied, since folded ones widen them.
        sig.hosts = sig.hosts.map((h) => ({ ...h }));
        sig.origins = { ...sig.origins };
        this.reps.set(repKey, { data: d, hosts: sig.hosts });
      }
      return false;
    }
    for (const w of sig.hosts) {
      const r = rep.hosts.find((x) => x.host === w.host);
      if (!r) continue;
      if (!(r.first <= w.first)) r.first = w.first;
      if (!(r.last >= w.last)) r.last = w.last;
      if (!Number.isNaN(w.kubeletLast) && !(r.kubeletLast >= w.kubeletLast)) r.kubeletLast = w.kubeletLast;
    }
    const origins = rep.data.signals?.origins;
    if (origins) for (const [k, v] of Object.entries(sig.origins) as Array<[keyof typeof origins, number]>) origins[k] = (origins[k] ?? 0) + v;
    this.folded[a.id] = rep.data.id;
    if (from) {
      const y = { from, year: yearOfLogs(sig) };
      const k = `${y.from}:${y.year}`;
      let shared = this.years.get(k);
      if (!shared) this.years.set(k, shared = y);
      this.yearFrom.set(a.id, shared);
    }
    // Nothing of the file is read again: its bytes (a small file's are its head) go, and of the artifact only what the
    // listing of the inputs and a -o check read (path, role, format, size, input) is kept (the bundle placement, the
    // reach and re-open of an archive member, another 150 bytes a file, go).
    a.head = EMPTY_HEAD;
    a.open = readAlready;
    this.artifacts[a.id] = {
      id: a.id, input: a.input, path: a.path, role: a.role, format: a.format, nodeHint: a.nodeHint, nameTime: a.nameTime, mtime: a.mtime, compression: a.compression, size: a.size,
      head: EMPTY_HEAD, open: readAlready,
    };
    return true;
  }
}

const EMPTY_HEAD = Buffer.alloc(0);

/** Shared by every read that found none: never written (frozen), so that a file that yields nothing holds no list of
 *  its own (a folder of 100 000 small logs made half a million empty ones). */
const NONE = Object.freeze([]) as unknown as never[];
const FIRST_LINE_ONLY = Object.freeze([Object.freeze([1, 0])]) as unknown as Array<[number, number]>;

/** A file's signals as kept past its read: its last line's text (needed only to end the read) let go, empty lists
 *  shared. */
function lean(sig: ArtifactSignals): ArtifactSignals {
  const { scan } = sig;
  scan.lastLine = null;
  const c = scan.checkpoints;
  if (c.length === 1 && c[0]?.[0] === 1 && c[0][1] === 0) scan.checkpoints = FIRST_LINE_ONLY;
  if (scan.longLines.length === 0) scan.longLines = NONE;
  if (sig.events.length === 0) sig.events = NONE;
  if (sig.warnings.length === 0) sig.warnings = NONE;
  if (sig.bootAnchors.length === 0) sig.bootAnchors = NONE;
  if (sig.nodeNames.length === 0) sig.nodeNames = NONE;
  return sig;
}

/**
 * What the early reads found, by token, until the read phase takes each: a read that found nothing to tell and whose
 * log named at most one host (most members of an archive of many small logs) packed into columns, six numbers and three
 * references (100 000 tiny members held ~400 bytes each as objects); any other as it is.
 */
class EarlyReads {
  private readonly full = new Map<number, EarlyRead>();
  /** Per token: lines, bytes, first, last, kubeletLast, notAfterMs (NaN: null). */
  private nums = new Float64Array(6 * 1024);
  /** Per token: host (undefined: no host window), origins, zone; `zone` null: not packed. */
  private refs: Array<string | null | undefined | ArtifactSignals['origins']> = [];

  set(token: number, signals: ArtifactSignals, zone: string, notAfterMs: number | null): void {
    const s = signals;
    const c = s.scan;
    const packable = s.events.length === 0 && s.warnings.length === 0 && s.bootAnchors.length === 0 && s.nodeNames.length === 0 && s.hosts.length <= 1
      && c.lastLine === null && c.longLines.length === 0 && c.longLineCount === 0 && c.checkpoints === FIRST_LINE_ONLY;
    if (!packable) {
      this.full.set(token, { signals, zone, notAfterMs });
      return;
    }
    if (6 * (token + 1) > this.nums.length) {
      const more = new Float64Array(Math.max(this.nums.length * 2, 6 * (token + 1)));
      more.set(this.nums);
      this.nums = more;
    }
    const h = s.hosts[0];
    this.nums.set([c.lines, c.bytes, h?.first ?? NaN, h?.last ?? NaN, h?.kubeletLast ?? NaN, notAfterMs ?? NaN], 6 * token);
    const at = 3 * token;
    while (this.refs.length < at) this.refs.push(null);
    this.refs[at] = h ? h.host : undefined;
    this.refs[at + 1] = s.origins;
    this.refs[at + 2] = zone;
  }

  /** Lets go of every read not taken (the columns are as long as the tokens given). */
  clear(): void {
    this.full.clear();
    this.nums = new Float64Array(0);
    this.refs = [];
  }

  /** The read of `token`, once (it is let go). */
  take(token: number): EarlyRead | undefined {
    const f = this.full.get(token);
    if (f) {
      this.full.delete(token);
      return f;
    }
    const at = 3 * token;
    const zone = this.refs[at + 2];
    if (typeof zone !== 'string') return undefined;
    const [lines, bytes, first, last, kubeletLast, notAfter] = this.nums.subarray(6 * token, 6 * token + 6) as unknown as number[];
    const host = this.refs[at] as string | null | undefined;
    const signals: ArtifactSignals = {
      artifact: -1,
      events: NONE,
      hosts: host === undefined ? [] : [{ host, first: first as number, last: last as number, kubeletLast: kubeletLast as number }],
      scan: { lines: lines as number, bytes: bytes as number, lastLine: null, longLines: NONE, longLineCount: 0, checkpoints: FIRST_LINE_ONLY },
      warnings: NONE,
      nodeNames: NONE,
      bootAnchors: NONE,
      origins: this.refs[at + 1] as ArtifactSignals['origins'],
    };
    this.refs[at] = this.refs[at + 1] = this.refs[at + 2] = null;
    return { signals, zone, notAfterMs: Number.isNaN(notAfter) ? null : (notAfter as number) };
  }
}

/**
 * Early reads that found nothing to tell (no event, warning or boot anchor: most members of an archive of many small
 * logs), as they wait for the read phase: every list the exact length it needs, host names copied out of the line they
 * were cut from (a slice keeps its whole line alive), the counts by origin shared by all reads that counted the same.
 * 100 000 tiny members held 1.3 KB each before.
 */
function held(sig: ArtifactSignals): ArtifactSignals {
  if (sig.events.length > 0 || sig.warnings.length > 0 || sig.bootAnchors.length > 0) return sig;
  sig.hosts = sig.hosts.map((h) => ({ host: h.host === null ? null : hostName(h.host), first: h.first, last: h.last, kubeletLast: h.kubeletLast }));
  if (sig.nodeNames.length > 0) sig.nodeNames = sig.nodeNames.map(hostName);
  sig.origins = sharedOrigins(sig.origins);
  return sig;
}

/** One copy of each host name held by early reads. */
const hostNames = new Map<string, string>();
function hostName(h: string): string {
  let s = hostNames.get(h);
  if (s === undefined) hostNames.set(h, s = Buffer.from(h, 'utf8').toString('utf8'));
  return s;
}

/** Counts by origin, one frozen object per distinct content (Folds copies the one it adds to). */
const originSets = new Map<string, ArtifactSignals['origins']>();
function sharedOrigins(o: ArtifactSignals['origins']): ArtifactSignals['origins'] {
  const key = JSON.stringify(o);
  let s = originSets.get(key);
  if (s === undefined) originSets.set(key, s = Object.freeze({ ...o }));
  return s;
}

function readAlready(): Readable {
  const r = new Readable({ read() {} });
  process.nextTick(() => r.destroy(new Error('folded into another file of its kind: not read again')));
  return r;
}

/** The year a log's year-less stamps were read in, and where it came from (only for logs that have such stamps). */
function yearInfo(y: { from: YearFrom; year: number | null } | undefined): Pick<ArtifactInfo, 'year'> {
  return y && y.year !== null && y.from !== 'option' ? { year: { value: y.year, from: y.from } } : {};
}

/** `size` workers, or none when running from TypeScript sources (tests: no compiled worker script). */
async function startPool(size: number): Promise<SignalPool | null> {
  const { SignalPool, workerScript } = await import('./pool.js');
  const script = workerScript();
  return script ? new SignalPool(script, size) : null;
}

/** What the user called a path: a folder's or a file's name (`-` for stdin). */
function inputName(p: string): string {
  return p.replace(/\/+$/, '').split('/').pop() || p;
}

/** Each input's name, told apart: `node-a/kubelet.log` and `node-b/kubelet.log` are `node-a` and `node-b` (the folder
 *  that differs), not "kubelet.log" twice — two paths the user gave are never merged into one node by their name. */
function distinctInputNames(paths: string[]): string[] {
  const names = paths.map(inputName);
  const count = new Map<string, number>();
  for (const n of names) count.set(n, (count.get(n) ?? 0) + 1);
  return paths.map((p, i) => {
    const n = names[i] as string;
    if ((count.get(n) ?? 0) < 2) return n;
    const segs = p.replace(/\/+$/, '').split('/').filter((x) => x !== '' && x !== '.');
    // The nearest folder above that tells this path from the others of the same name, else the path itself.
    for (let k = segs.length - 2; k >= 0; k--) {
      const parent = segs[k] as string;
      if (paths.every((q, j) => j === i || names[j] !== n || !q.replace(/\/+$/, '').split('/').includes(parent))) return parent;
    }
    return p;
  });
}

/** The node a snapshot names itself (`kubelet_node_name{node=…}` of a direct scrape), or null. */
function snapshotNode(m: MetricsSource): string | null {
  for (const x of m.parsed.samples) if (x.name === 'kubelet_node_name' && x.labels['instance'] === undefined && x.labels['node']) return x.labels['node'];
  return null;
}

/** The latest time a snapshot's samples carry (or its file name gives), or null. */
function snapshotTime(m: MetricsSource): number | null {
  let t = -Infinity;
  for (const x of m.parsed.samples) if (x.tsMs !== null && x.tsMs > t) t = x.tsMs;
  return Number.isFinite(t) ? t : m.nameTime;
}

/** The year of a log's first dated line, or null when none is dated. */
function yearOfLogs(sig: ArtifactSignals): number | null {
  let first = Infinity;
  for (const h of sig.hosts) if (Number.isFinite(h.first)) first = Math.min(first, h.first);
  return Number.isFinite(first) ? new Date(first).getUTCFullYear() : null;
}

/** Whether what was extracted from an archive member during the index pass is what reading it now would give. */
async function keepEarly(pre: EarlyRead, a: Artifact, zoneName: string, here: ExtractOptions): Promise<boolean> {
  // A read that stopped (archive damaged inside the member) is read again, to fail the same way a reader does.
  if (pre.signals.warnings.some((w) => w.message.startsWith('read stopped'))) return false;
  const { sameYearWalk } = await import('./segments.js');
  return sameZone(pre.zone, zoneName) && sameYearWalk(a.head, here, pre.notAfterMs, here.notAfterMs);
}

/** Signals extracted before the artifact had its id, given it. */
function withArtifact(s: ArtifactSignals, id: number): ArtifactSignals {
  for (const e of s.events) e.ref.artifact = id;
  return { ...s, artifact: id };
}

/** The ranges of one plain log, each read and scanned by a worker or this thread, merged in file order; progress summed
 *  over them. */
async function readInRanges(
  pool: SignalPool, ranges: FileRange[], job: ExtractJob, here: ExtractOptions, plan: RangePlan, onRead?: (bytes: number, lines: number) => void,
): Promise<ArtifactSignals> {
  const { extractRanges } = await import('./segments.js');
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
  // (Date.now, not performance.now: the global `performance` loads Node's perf_hooks, ~2 ms of every start.)
  let turned = Date.now();
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      await fn(items[next++] as T);
      if (Date.now() - turned >= YIELD_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        turned = Date.now();
      }
    }
  });
  await Promise.all(lanes);
}

async function readMetrics(a: Artifact, setLines: (n: number) => void, warn: (line: number | null, m: string) => void): Promise<MetricsSource> {
  let parsed: MetricsSource['parsed'] & { errors: { line: number; message: string }[]; dropped?: DroppedSeries[]; cut?: SampleCut | null };
  if (a.format === 'prometheus-query-json') {
    // Streamed, never parsed whole: a saved answer of one series sampled millions of times stays within the bound.
    const reader = new (await import('../../parse/metrics/query-result.js')).QueryJsonReader(isModelMetric);
    let lines = 0;
    let last = 10;
    for await (const c of a.open()) {
      const b = c as Buffer;
      for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) lines++;
      if (b.length > 0) last = b[b.length - 1]!;
      reader.push(b);
      if (reader.done) break; // at its bound (said by finish()), or not JSON from here
    }
    setLines(lines + (last === 10 ? 0 : 1));
    parsed = reader.finish();
  } else {
    const parser = a.format === 'prometheus-query-text' ? new (await import('../../parse/metrics/query-result.js')).QueryTextParser(isModelMetric) : new MetricsParser({ keep: isModelMetric });
    const scanner = new LineScanner({ line: (t, n) => parser.push(t, n) }, { prefilter: null });
    const res = await scanStream(a.open(), scanner);
    setLines(res.lines);
    parsed = parser.finish();
  }
  if (parsed.errors.length > 0) {
    const first = parsed.errors[0] as { line: number; message: string };
    warn(first.line, `${parsed.errors.length} malformed metrics line(s) skipped (first: ${first.message})`);
  }
  for (const n of ('notes' in parsed && Array.isArray(parsed.notes) ? parsed.notes as { line: number; message: string }[] : [])) warn(n.line, n.message);
  if (parsed.cut) warn(parsed.cut.firstLine, `only the first ${parsed.cut.kept} samples are read (${MAX_SAMPLES} samples or ${MAX_SAMPLE_TIMES} sample times at most); ${parsed.cut.more} more sample(s) (from this line) not read (plegscope's memory bound): a narrower dump or query holds what the stall needs`);
  for (const d of parsed.dropped ?? []) {
    warn(d.firstLine, `metric family ${d.family}: only its first ${d.kept} series are read; ${d.atLeast ? 'at least ' : ''}${d.series} more series (${d.samples} samples, the first on this line) dropped (a kubelet exposes a few dozen per family)`);
  }
  return { file: a.path, nodeHint: a.nodeHint, nameTime: a.nameTime, parsed };
}

async function readGoroutines(a: Artifact, bytes: Readable, setLines: (n: number) => void): Promise<ParsedGoroutines> {
  const parser = new (await import('../../parse/goroutines.js')).GoroutineParser();
  const scanner = new LineScanner({ line: (t, n) => parser.push(t, n) }, { prefilter: null });
  const res = await scanStream(bytes, scanner);
  setLines(res.lines);
  const g = parser.finish();
  return { ...g, artifact: a.id };
}
