// From parsed metric samples to per-node summaries: relist duration/interval, per-operation CRI latency and
// errors, PLEG last-seen, pod/container counts, and the windows in which relist metrics froze.
// Example input: two scrapes of one kubelet, 60 s apart, each with
//   kubelet_pleg_relist_duration_seconds_bucket{le="0.005"} 3201 1700000000000
//   kubelet_pleg_relist_duration_seconds_count 3300 1700000000000
// → relist.count = increase of the _count over the window, quantiles over the increase of each bucket (each with the
// bucket it lies in, or flagged beyond the last finite bucket), mean = increase of _sum / increase of _count.
import type { EvidenceRef, Latency, LatencyBucket, Quantiles } from '../contract/analysis.js';
import type { ParsedMetrics, Sample } from '../parse/metrics/exposition.js';
import { parseMetricNumber } from '../parse/metrics/exposition.js';
import { nameInfo, type Group, type NameInfo } from './metric-names.js';
import { beyondLastBucket, bucketMax, quantilePlace, type Bucket } from './quantile.js';
import { isoTime, plausibleMs } from '../util/instant.js';

export { histogramQuantile } from './quantile.js';

export type Evidence = EvidenceRef;

export interface MetricsSource {
  /** Path of the metrics file as the user finds it (used in evidence). */
  file: string;
  /** Node suggested by the bundle path, used when samples carry no node/instance label. */
  nodeHint: string | null;
  /** Time parsed from the file name (epoch ms): the scrape time of samples without timestamps. */
  nameTime: number | null;
  /** Only the samples are read: an exposition file's parse, or a query answer's. */
  parsed: Pick<ParsedMetrics, 'samples'>;
  /** The query window these samples came from (a Prometheus history asked per stall): snapshots of different windows
   *  are never joined, so no increase is counted across the gap between two windows. Absent for files. */
  segment?: number | null;
}

export interface Snapshot {
  node: string | null;
  timeMs: number | null;
  file: string;
  samples: Sample[];
  /** See MetricsSource.segment. */
  segment?: number | null;
}

/** Quantiles in seconds. `max` is only a lower bound when observations fell into +Inf (or came from a summary).
 *  `latency` says how each figure is known (its bucket, or beyond the last one; a summary's own), with the window mean. */
export interface Distribution extends Quantiles {
  maxIsLowerBound: boolean;
  latency: Latency;
}

export interface OperationSummary {
  operation: string;
  source: 'histogram' | 'summary' | null;
  count: number | null;
  errors: number | null;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
  maxIsLowerBound: boolean;
  /** How the quantiles are known, the window mean; null when the operation has no latency series. */
  latency: Latency | null;
  evidence: Evidence[];
}

/** dockershim (`kubelet_docker_operations_*`) and CNI (`kubelet_network_plugin_operations_*`) timings, ≤1.23. */
export interface ExtraOperationSummary extends OperationSummary {
  family: 'docker' | 'network_plugin';
}

export interface RelistSummary {
  duration: Distribution | null;
  interval: Distribution | null;
  /** Relists finished in the window (or since kubelet start when cumulative). */
  count: number | null;
  /** Two or more scrapes saw the relist count and it never moved: no relist finished in the window. */
  countFrozen: boolean;
  source: 'histogram' | 'summary' | null;
  evidence: Evidence[];
}

export interface LastSeen {
  /** kubelet_pleg_last_seen_seconds as epoch ms: the start of the last relist the health check saw succeed. */
  valueMs: number;
  scrapeMs: number | null;
  /** scrape − last seen; above 180 s the node was PLEG-unhealthy at scrape time. */
  ageSeconds: number | null;
  evidence: Evidence;
}

export interface FrozenInterval {
  fromMs: number;
  toMs: number;
  evidence: Evidence[];
}

export interface MetricsSummary {
  snapshots: number;
  windowStartMs: number | null;
  windowEndMs: number | null;
  /** A single snapshot: values are cumulative since kubelet start, not over a window. */
  cumulative: boolean;
  relist: RelistSummary;
  lastSeen: LastSeen | null;
  discardEvents: number | null;
  discardEvidence: Evidence[];
  operations: OperationSummary[];
  extraOperations: ExtraOperationSummary[];
  runningPods: number | null;
  runningContainers: number | null;
  /** kubelet_running_containers{container_state="exited"} in the last snapshot (1.16+), null when not exposed. */
  exitedContainers: number | null;
  runningEvidence: Evidence[];
  /** Runs of consecutive snapshots between which the relist count did not move (merged into one interval). */
  frozenIntervals: FrozenInterval[];
  /** Each file (or query answer) the samples came from, with the scrape times it holds: the report's provenance. */
  sources: { file: string; fromMs: number | null; toMs: number | null; points: number }[];
}

// ---------------------------------------------------------------------------------------------------------------
// Snapshots

/** `10.0.1.5:10250` → `10.0.1.5`, `[fe80::1]:10250` → `fe80::1`; a bare IPv6 address is left alone. */
export function stripPort(instance: string): string {
  const bracket = /^\[(.*)\]:\d+$/.exec(instance);
  if (bracket) return bracket[1]!;
  const m = /^([^:]*):\d+$/.exec(instance);
  return m ? m[1]! : instance;
}

/**
 * Splits one file's samples by node and scrape time. A Prometheus dump labels most kubelet series only with
 * `instance`, while `kubelet_node_name{node=…}` names the node behind that instance, so instances are mapped to
 * node names when the file says so; a direct scrape (no instance label) is named by its own kubelet_node_name.
 */
export function toSnapshots(src: MetricsSource): Snapshot[] {
  const samples = src.parsed.samples;
  const instanceNode = new Map<string, string>();
  const scrapeNodes = new Set<string>();
  const visited = new Set<Record<string, string>>();
  for (const s of samples) {
    const node = s.labels['node'];
    if (node === undefined || node === '') continue;
    const instance = s.labels['instance'];
    if (instance === undefined) {
      if (s.name === 'kubelet_node_name') scrapeNodes.add(node);
      continue;
    }
    if (visited.has(s.labels)) continue;
    visited.add(s.labels);
    const host = stripPort(instance);
    if (!instanceNode.has(host)) instanceNode.set(host, node);
  }
  const scrapeNode = scrapeNodes.size === 1 ? [...scrapeNodes][0]! : null;

  const nodeOf = (labels: Record<string, string>): string | null => {
    // The `node` label (kube-prometheus-stack, OpenShift), else the classic kubernetes-nodes job's hostname label.
    const node = labels['node'] || labels['kubernetes_io_hostname'];
    if (node) return node;
    const instance = labels['instance'];
    if (instance) {
      const host = stripPort(instance);
      return instanceNode.get(host) ?? host;
    }
    return scrapeNode ?? src.nodeHint ?? null;
  };
  // The parser shares one label object per series, so node identity is worked out once per series.
  const nodeByLabels = new Map<Record<string, string>, string | null>();
  const byNode = new Map<string | null, Map<number | null, Snapshot>>();
  const all: Snapshot[] = [];
  for (const s of samples) {
    let node = nodeByLabels.get(s.labels);
    if (node === undefined) {
      node = nodeOf(s.labels);
      nodeByLabels.set(s.labels, node);
    }
    const timeMs = s.tsMs === null ? null : Math.round(s.tsMs / 1000) * 1000;
    let byTime = byNode.get(node);
    if (!byTime) byNode.set(node, (byTime = new Map()));
    let snap = byTime.get(timeMs);
    if (!snap) {
      snap = { node, timeMs: timeMs ?? src.nameTime, file: src.file, samples: [] };
      if (src.segment != null) snap.segment = src.segment;
      byTime.set(timeMs, snap);
      all.push(snap);
    }
    snap.samples.push(s);
  }
  return sortSnapshots(all);
}

function sortSnapshots<T extends { timeMs: number | null; node?: string | null }>(list: T[]): T[] {
  return list.sort((a, b) => {
    if (a.timeMs !== b.timeMs) {
      if (a.timeMs === null) return 1;
      if (b.timeMs === null) return -1;
      return a.timeMs - b.timeMs;
    }
    const an = a.node ?? null;
    const bn = b.node ?? null;
    if (an === bn) return 0;
    if (an === null) return 1;
    if (bn === null) return -1;
    return an < bn ? -1 : 1;
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Series timelines

interface Point {
  snap: number;
  value: number;
  sample: Sample;
  file: string;
  timeMs: number | null;
  segment: number | null;
}

interface Line {
  name: string;
  info: NameInfo;
  op: string;
  /** `le` for buckets, `quantile` for summary quantiles, NaN otherwise. */
  bound: number;
  state: string | null;
  points: Point[];
  /** Index of the last snapshot that gave this line a point (a second copy in the same snapshot is ignored). */
  lastSnap: number;
}

interface Timelines {
  snaps: { timeMs: number | null; groups: Set<Group>; segment: number | null }[];
  lines: Line[];
}

const labelKeys = new WeakMap<object, string>();

function labelKey(labels: Record<string, string>): string {
  let key = labelKeys.get(labels);
  if (key === undefined) {
    key = Object.keys(labels).sort().map((k) => `${k}\u0001${labels[k]}`).join('\u0002');
    labelKeys.set(labels, key);
  }
  return key;
}

/**
 * Merges snapshots taken at the same second (the same scrape read from two files, or split by endpoint), drops
 * snapshots without any kubelet series we model, and lays every modelled series out along the remaining ones.
 */
function buildTimelines(snapshots: Snapshot[]): Timelines {
  const ordered = sortSnapshots([...snapshots]);
  const merged: { timeMs: number | null; parts: Snapshot[] }[] = [];
  for (const s of ordered) {
    const last = merged[merged.length - 1];
    if (last && s.timeMs !== null && last.timeMs === s.timeMs) last.parts.push(s);
    else merged.push({ timeMs: s.timeMs, parts: [s] });
  }

  // Keyed by label content (two files hold equal label sets in different objects), then by name.
  const byLabels = new Map<string, Map<string, Line | null>>();
  const keyed: { key: string; line: Line }[] = [];
  const snaps: Timelines['snaps'] = [];
  for (const m of merged) {
    const groups = new Set<Group>();
    const idx = snaps.length;
    for (const part of m.parts) {
      for (const sample of part.samples) {
        const info = nameInfo(sample.name);
        if (!info) continue;
        const lk = labelKey(sample.labels);
        let byName = byLabels.get(lk);
        if (!byName) byLabels.set(lk, (byName = new Map()));
        let line = byName.get(sample.name);
        if (line === undefined) {
          line = makeLine(sample, info);
          byName.set(sample.name, line);
          if (line) keyed.push({ key: `${sample.name}\u0000${lk}`, line });
        }
        if (line === null || line.lastSnap === idx) continue; // unusable, or a second copy of this scrape
        line.lastSnap = idx;
        groups.add(info.group);
        line.points.push({ snap: idx, value: sample.value, sample, file: part.file, timeMs: m.timeMs, segment: part.segment ?? null });
      }
    }
    if (groups.size > 0) snaps.push({ timeMs: m.timeMs, groups, segment: m.parts[0]!.segment ?? null });
  }
  // Sorted so that evidence picks the same series every run.
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { snaps, lines: keyed.map((k) => k.line) };
}

function makeLine(sample: Sample, info: NameInfo): Line | null {
  const labels = sample.labels;
  let op = '';
  if (info.quantity === 'operation') {
    op = labels['operation_type'] ?? '';
    if (op === '') return null;
  }
  let bound = NaN;
  if (info.part === 'bucket' || info.part === 'quantile') {
    const raw = labels[info.part === 'bucket' ? 'le' : 'quantile'];
    const parsed = raw === undefined ? undefined : parseMetricNumber(raw);
    if (parsed === undefined || Number.isNaN(parsed)) return null;
    bound = parsed;
  }
  return { name: sample.name, info, op, bound, state: labels['container_state'] ?? null, points: [], lastSnap: -1 };
}

/**
 * Increase of a counter-like series over the window, pairwise like PromQL's increase() without extrapolation:
 * a drop is a reset and the new value is the increase for that step. Unlike PromQL, a series missing from a
 * scrape that holds its metric group counts as 0 there: the kubelet creates labelled children lazily, so the
 * first error of an operation (the one that matters in a stall) would otherwise never show as an increase.
 * A single snapshot yields the cumulative value.
 */
function increase(line: Line, t: Timelines): number {
  if (t.snaps.length < 2) return line.points.reduce((acc, p) => acc + (Number.isNaN(p.value) ? 0 : p.value), 0);
  let total = 0;
  let prev: number | null = null;
  let pi = 0;
  for (let i = 0; i < t.snaps.length; i++) {
    if (i > 0 && t.snaps[i]!.segment !== t.snaps[i - 1]!.segment) prev = null; // another query window: no step across the gap
    let v: number | null = null;
    const p = line.points[pi];
    if (p && p.snap === i) {
      pi++;
      if (!Number.isNaN(p.value)) v = p.value;
    } else if (t.snaps[i]!.groups.has(line.info.group)) v = 0;
    if (v === null) continue;
    if (prev !== null) total += v >= prev ? v - prev : v;
    prev = v;
  }
  return total;
}

// ---------------------------------------------------------------------------------------------------------------
// Distributions

function ref(p: Point): Evidence {
  const t = p.sample.tsMs ?? p.timeMs;
  return {
    file: p.file,
    line: p.sample.line,
    ts: t !== null && Number.isFinite(t) ? isoTime(t) : null,
    text: p.sample.text,
  };
}

function pushRef(out: Evidence[], p: Point | undefined): void {
  if (!p) return;
  const r = ref(p);
  if (!out.some((e) => e.file === r.file && e.line === r.line)) out.push(r);
}

interface DistResult {
  source: 'histogram' | 'summary';
  dist: Distribution;
  count: number | null;
  countLines: Line[];
  evidence: Evidence[];
}

/** Quantiles and count for one distribution (relist duration, or one operation), from its lines. */
function distribution(lines: Line[], t: Timelines): DistResult | null {
  const hist = lines.filter((l) => l.info.source === 'histogram');
  const summ = lines.filter((l) => l.info.source === 'summary');
  if (hist.length > 0) return histogramDist(hist, t);
  if (summ.length > 0) return summaryDist(summ, t);
  return null;
}

function histogramDist(lines: Line[], t: Timelines): DistResult {
  const byLe = new Map<number, number>();
  for (const l of lines) {
    if (l.info.part !== 'bucket') continue;
    byLe.set(l.bound, (byLe.get(l.bound) ?? 0) + increase(l, t));
  }
  const buckets: Bucket[] = [...byLe].map(([le, count]) => ({ le, count }));
  const countLines = lines.filter((l) => l.info.part === 'count');
  const infLines = lines.filter((l) => l.info.part === 'bucket' && l.bound === Infinity);
  const counted = countLines.length > 0 ? countLines : infLines;
  const count = counted.length > 0 ? counted.reduce((acc, l) => acc + increase(l, t), 0) : null;
  const hasInf = byLe.has(Infinity);
  const { max, isLowerBound, from } = hasInf ? bucketMax(buckets) : { max: null, isLowerBound: false, from: undefined };
  const places = [0.5, 0.9, 0.99].map((q) => quantilePlace(q, buckets));
  const bucketOf = (p: (typeof places)[number]): LatencyBucket | null => (p ? { from: p.from, to: p.to === Infinity ? null : p.to } : null);
  const latency: Latency = {
    source: 'histogram',
    count,
    meanSeconds: mean(lines, t, count),
    beyond: hasInf ? beyondLastBucket(buckets) : null,
    p50: bucketOf(places[0]!),
    p90: bucketOf(places[1]!),
    p99: bucketOf(places[2]!),
    max: max === null ? null : isLowerBound ? { from: max, to: null } : { from: from ?? 0, to: max },
    quantileWindow: 'metrics',
  };
  const dist: Distribution = {
    p50: places[0]?.value ?? null,
    p90: places[1]?.value ?? null,
    p99: places[2]?.value ?? null,
    max,
    maxIsLowerBound: isLowerBound,
    latency,
  };
  const evidence: Evidence[] = [];
  const c = counted[0];
  if (c) {
    pushRef(evidence, c.points[0]);
    pushRef(evidence, c.points[c.points.length - 1]);
  }
  const inf = infLines[0];
  if (inf) pushRef(evidence, inf.points[inf.points.length - 1]);
  return { source: 'histogram', dist, count, countLines: counted, evidence };
}

/** Increase of `_sum` (in seconds) over the observations counted in the same window: exact, whatever the buckets. */
function mean(lines: Line[], t: Timelines, count: number | null): number | null {
  const sums = lines.filter((l) => l.info.part === 'sum');
  if (sums.length === 0 || count === null || count <= 0) return null;
  const total = sums.reduce((acc, l) => acc + increase(l, t) * l.info.scale, 0);
  // 12 significant digits: the same window read as two snapshots or as a series of query steps sums its increases in
  // another order, and must give the same mean.
  return Number.isFinite(total) ? Number((total / count).toPrecision(12)) : null;
}

function near(a: number, b: number): boolean {
  return Math.abs(a - b) < 1e-9;
}

/**
 * Summary quantiles describe the kubelet's own sliding 10-minute window and cannot be combined over ours; with
 * several scrapes we report the worst value seen, which during a stall is the one that matters.
 */
function summaryDist(lines: Line[], t: Timelines): DistResult {
  const worst = (q: number): number | null => {
    let best: number | null = null;
    for (const l of lines) {
      if (l.info.part !== 'quantile' || !near(l.bound, q)) continue;
      for (const p of l.points) {
        if (Number.isNaN(p.value)) continue;
        const v = p.value * l.info.scale;
        if (best === null || v > best) best = v;
      }
    }
    return best;
  };
  let max: number | null = null;
  for (const l of lines) {
    if (l.info.part !== 'quantile') continue;
    for (const p of l.points) {
      if (!Number.isNaN(p.value) && (max === null || p.value * l.info.scale > max)) max = p.value * l.info.scale;
    }
  }
  const countLines = lines.filter((l) => l.info.part === 'count');
  const count = countLines.length > 0 ? countLines.reduce((acc, l) => acc + increase(l, t), 0) : null;
  const evidence: Evidence[] = [];
  const c = countLines[0];
  if (c) {
    pushRef(evidence, c.points[0]);
    pushRef(evidence, c.points[c.points.length - 1]);
  }
  const p99 = lines.find((l) => l.info.part === 'quantile' && near(l.bound, 0.99));
  if (p99) pushRef(evidence, p99.points[p99.points.length - 1]);
  const q = { p50: worst(0.5), p90: worst(0.9), p99: worst(0.99) };
  // Exact quantiles: no bucket to give.
  const latency: Latency = {
    source: 'summary', count, meanSeconds: mean(lines, t, count), beyond: null, p50: null, p90: null, p99: null, max: null, quantileWindow: 'exporter',
  };
  return {
    source: 'summary',
    dist: { ...q, max, maxIsLowerBound: max !== null, latency },
    count,
    countLines,
    evidence,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Summary

/** Lines of the best-ranked name present (new names before the deprecated ones a 1.14–1.16 kubelet also exposes). */
function preferred(lines: Line[]): Line[] {
  if (lines.length === 0) return lines;
  const best = lines.reduce((m, l) => Math.min(m, l.info.rank), Infinity);
  return lines.filter((l) => l.info.rank === best);
}

function operations(lines: Line[], t: Timelines): Map<string, OperationSummary> {
  const byOp = new Map<string, Line[]>();
  for (const l of lines) {
    const list = byOp.get(l.op);
    if (list) list.push(l);
    else byOp.set(l.op, [l]);
  }
  const out = new Map<string, OperationSummary>();
  for (const op of [...byOp.keys()].sort()) {
    const opLines = byOp.get(op)!;
    const d = distribution(opLines, t);
    const counters = preferred(opLines.filter((l) => l.info.part === 'counter'));
    const errorLines = preferred(opLines.filter((l) => l.info.part === 'errors'));
    let count: number | null = null;
    if (counters.length > 0) count = counters.reduce((acc, l) => acc + increase(l, t), 0);
    else if (d) count = d.count;
    let errors: number | null = null;
    if (errorLines.length > 0) errors = errorLines.reduce((acc, l) => acc + increase(l, t), 0);
    else if (count !== null) errors = 0; // the kubelet creates an error series only on the first error
    const evidence: Evidence[] = [];
    const c = counters[0];
    if (c) {
      pushRef(evidence, c.points[0]);
      pushRef(evidence, c.points[c.points.length - 1]);
    }
    const e = errorLines[0];
    if (e && errors !== null && errors > 0) pushRef(evidence, e.points[e.points.length - 1]);
    for (const r of d?.evidence ?? []) {
      if (evidence.length < 5 && !evidence.some((x) => x.line === r.line && x.file === r.file)) evidence.push(r);
    }
    out.set(op, {
      operation: op,
      source: d?.source ?? null,
      count,
      errors,
      p50: d?.dist.p50 ?? null,
      p90: d?.dist.p90 ?? null,
      p99: d?.dist.p99 ?? null,
      max: d?.dist.max ?? null,
      maxIsLowerBound: d?.dist.maxIsLowerBound ?? false,
      latency: d?.dist.latency ?? null,
      evidence,
    });
  }
  return out;
}

/** Total of the lines' values per snapshot in which any of them was present. */
function totalsBySnap(lines: Line[]): Map<number, { total: number; point: Point }> {
  const out = new Map<number, { total: number; point: Point }>();
  for (const l of lines) {
    for (const p of l.points) {
      const cur = out.get(p.snap);
      if (cur) cur.total += p.value;
      else out.set(p.snap, { total: p.value, point: p });
    }
  }
  return out;
}

function frozenIntervals(countLines: Line[]): FrozenInterval[] {
  const totals = [...totalsBySnap(countLines)].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
  const out: FrozenInterval[] = [];
  let open: { from: Point; to: Point } | null = null;
  const close = (): void => {
    if (!open) return;
    out.push({ fromMs: open.from.timeMs!, toMs: open.to.timeMs!, evidence: [ref(open.from), ref(open.to)] });
    open = null;
  };
  for (let i = 1; i < totals.length; i++) {
    const a = totals[i - 1]!;
    const b = totals[i]!;
    const frozen =
      a.total === b.total && a.point.timeMs !== null && b.point.timeMs !== null && b.point.timeMs > a.point.timeMs &&
      a.point.segment === b.point.segment;
    if (!frozen) {
      close();
      continue;
    }
    if (open && open.to === a.point) open.to = b.point;
    else {
      close();
      open = { from: a.point, to: b.point };
    }
  }
  close();
  return out;
}

function lastSeen(lines: Line[], t: Timelines): LastSeen | null {
  let best: Point | null = null;
  for (const l of lines) {
    for (const p of l.points) {
      // 0 = the health check never ran; a value past 2199 is no time (util/instant.ts).
      if (!Number.isFinite(p.value) || p.value <= 0 || !plausibleMs(p.value * 1000)) continue;
      if (!best || p.snap > best.snap || (p.snap === best.snap && p.value > best.value)) best = p;
    }
  }
  if (!best) return null;
  const valueMs = Math.round(best.value * 1000);
  const scrapeMs = best.sample.tsMs ?? t.snaps[best.snap]!.timeMs;
  return {
    valueMs,
    scrapeMs,
    ageSeconds: scrapeMs === null ? null : (scrapeMs - valueMs) / 1000,
    evidence: ref(best),
  };
}

/** Value of a gauge in the last snapshot that has it; running containers keep only container_state="running". */
function lastGauge(lines: Line[], containers: boolean): { value: number; point: Point } | null {
  let lastSnap = -1;
  for (const l of lines) for (const p of l.points) if (p.snap > lastSnap) lastSnap = p.snap;
  if (lastSnap < 0) return null;
  const atLast = preferred(lines.filter((l) => l.points.some((p) => p.snap === lastSnap)));
  let chosen = atLast;
  if (containers) {
    const plain = atLast.filter((l) => l.state === null);
    chosen = plain.length > 0 ? plain : atLast.filter((l) => l.state === 'running');
    if (chosen.length === 0) {
      const any = atLast[0]!.points.find((p) => p.snap === lastSnap)!;
      return { value: 0, point: any }; // states reported, none running
    }
  }
  let best: { value: number; point: Point } | null = null;
  for (const l of chosen) {
    const p = l.points.find((x) => x.snap === lastSnap)!;
    // Duplicate series of one gauge (two jobs scraping the same kubelet) must not add up.
    if (!best || p.value > best.value) best = { value: p.value, point: p };
  }
  return best;
}

/** The exited-state series of the container gauge in the last snapshot that has it. */
function exitedGauge(lines: Line[]): number | null {
  const exited = lines.filter((l) => l.state === 'exited');
  let best: { snap: number; value: number } | null = null;
  for (const l of exited) for (const p of l.points) if (!best || p.snap > best.snap) best = { snap: p.snap, value: p.value };
  return best ? best.value : null;
}

/** Summarises the snapshots of ONE node (any order; snapshots taken at the same second are merged). */
export function summarize(snapshots: Snapshot[]): MetricsSummary {
  const t = buildTimelines(snapshots);
  const of = (pred: (l: Line) => boolean): Line[] => t.lines.filter(pred);

  const duration = distribution(of((l) => l.info.quantity === 'relist_duration'), t);
  const interval = distribution(of((l) => l.info.quantity === 'relist_interval'), t);
  const countLines = duration?.countLines ?? [];
  const countSnaps = totalsBySnap(countLines).size;
  const relistEvidence: Evidence[] = [...(duration?.evidence ?? [])];
  const intervalCount = interval?.countLines[0];
  if (intervalCount) pushRef(relistEvidence, intervalCount.points[intervalCount.points.length - 1]);

  const discardLines = preferred(of((l) => l.info.quantity === 'discard_events'));
  const discardEvidence: Evidence[] = [];
  const d0 = discardLines[0];
  if (d0) {
    pushRef(discardEvidence, d0.points[0]);
    pushRef(discardEvidence, d0.points[d0.points.length - 1]);
  }

  const pods = lastGauge(of((l) => l.info.quantity === 'running_pods'), false);
  const containers = lastGauge(of((l) => l.info.quantity === 'running_containers'), true);
  const runningEvidence: Evidence[] = [];
  pushRef(runningEvidence, pods?.point);
  pushRef(runningEvidence, containers?.point);

  const ops = operations(of((l) => l.info.quantity === 'operation' && l.info.group === 'runtime'), t);
  const extra: ExtraOperationSummary[] = [];
  for (const family of ['docker', 'network_plugin'] as const) {
    const m = operations(of((l) => l.info.quantity === 'operation' && l.info.group === family), t);
    for (const o of m.values()) extra.push({ family, ...o });
  }

  const times = t.snaps.map((s) => s.timeMs).filter((x): x is number => x !== null);
  return {
    snapshots: t.snaps.length,
    windowStartMs: times.length > 0 ? times.reduce((m, x) => Math.min(m, x), Infinity) : null,
    windowEndMs: times.length > 0 ? times.reduce((m, x) => Math.max(m, x), -Infinity) : null,
    cumulative: t.snaps.length === 1,
    relist: {
      duration: duration?.dist ?? null,
      interval: interval?.dist ?? null,
      count: duration?.count ?? null,
      countFrozen: t.snaps.length >= 2 && countSnaps >= 2 && duration?.count === 0,
      source: duration?.source ?? interval?.source ?? null,
      evidence: relistEvidence,
    },
    lastSeen: lastSeen(of((l) => l.info.quantity === 'last_seen'), t),
    discardEvents: discardLines.length > 0 ? discardLines.reduce((acc, l) => acc + increase(l, t), 0) : null,
    discardEvidence,
    operations: [...ops.values()],
    extraOperations: extra,
    runningPods: pods?.value ?? null,
    runningContainers: containers?.value ?? null,
    exitedContainers: exitedGauge(of((l) => l.info.quantity === 'running_containers')),
    runningEvidence,
    frozenIntervals: t.snaps.length >= 2 ? frozenIntervals(countLines) : [],
    sources: sourcesOf(snapshots),
  };
}

function sourcesOf(snapshots: Snapshot[]): MetricsSummary['sources'] {
  const by = new Map<string, Set<number>>();
  for (const s of snapshots) {
    let times = by.get(s.file);
    if (!times) by.set(s.file, (times = new Set()));
    if (s.timeMs !== null) times.add(s.timeMs);
  }
  // A loop, not Math.min(...times): one series sampled a million times would overflow the stack.
  return [...by].map(([file, times]) => {
    let fromMs: number | null = null;
    let toMs: number | null = null;
    for (const t of times) {
      if (fromMs === null || t < fromMs) fromMs = t;
      if (toMs === null || t > toMs) toMs = t;
    }
    return { file, fromMs, toMs, points: times.size };
  }).sort((a, b) => (a.fromMs ?? 0) - (b.fromMs ?? 0) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}
