// A Prometheus history as a source of metric samples next to the files (issue 17): which kubelets the server knows,
// which of them the input names, and the series of each node over each window asked for, as MetricsSources the model
// reads as it reads snapshot files. Like analyze.ts this file knows several stages: input (the HTTP client), parse
// (query answers → samples) and model (node identity, queries, windows). `plegscope scan` uses the same discovery.
import { PrometheusClient, PrometheusError, type Answer } from './client.js';
import { answerNotes, SampleSink, SeriesList, type QueryParsed } from '../../parse/metrics/query-result.js';
import { isModelMetric } from '../../model/metric-names.js';
import type { MetricsSource } from '../../model/metrics.js';
import { buildNodes, type ArtifactData, type NodeModel } from '../../model/node.js';
import { InputError } from '../artifact.js';
import type { ArtifactInfo, InputInfo, Warning } from '../../contract/analysis.js';
import type { SourceRead } from '../source.js';
import {
  dedupeSamples, findTarget, IDENTITY_LABELS, kubeletTargets, mergeWindows, nodeQuery, NODE_INFO_MATCH, planWindow, plegRawQuery, queryLabel, scrapeInterval,
  scrapeProbeQuery, TARGET_MATCH, type KubeletTarget, type QueryPart, type Window,
} from '../../model/prom-plan.js';
import { flatPassQuery, flaggedWindows, scanStep } from '../../model/fleet-scan.js';
import { isoTime } from '../../util/instant.js';

/** Minutes asked for before and after each stall (issue 17). */
export const STALL_MARGIN_MS = 30 * 60_000;
/** Scrape interval assumed when the server's samples do not tell. */
export const DEFAULT_SCRAPE_S = 30;
/** Queries in flight at once. */
const PARALLEL = 4;

export interface QuerySource {
  /** Cited as the file of its samples. */
  label: string;
  /** The PromQL, for the report's inputs. */
  query: string;
  node: string;
  part: QueryPart;
  startMs: number;
  endMs: number;
  stepS: number;
  metrics: MetricsSource;
  points: number;
  errors: QueryParsed['errors'];
  notes: NonNullable<QueryParsed['notes']>;
}

/** The kubelets the server has series of within [from, to]. Throws a PrometheusError when it has none. */
export async function discoverKubelets(client: PrometheusClient, from: number, to: number, ipNames?: Map<string, string>): Promise<{ targets: KubeletTarget[]; warnings: string[] }> {
  const [series, info] = await Promise.all([
    client.series(TARGET_MATCH, from, to, IDENTITY_LABELS),
    client.series(NODE_INFO_MATCH, from, to, IDENTITY_LABELS).catch(() => null),
  ]);
  const warnings = answerWarnings(series.answer, 'the kubelet series list');
  if (info) warnings.push(...answerWarnings(info.answer, 'the kube_node_info series list'));
  const targets = kubeletTargets(series.sets, info?.sets ?? [], ipNames);
  if (targets.length === 0) {
    throw new PrometheusError('rejected', `no kubelet metrics between ${iso(from)} and ${iso(to)} (no ${TARGET_MATCH.slice(0, 4).join(', ')} series): is this the cluster's Prometheus, and does it scrape the kubelets?`, client.display);
  }
  return { targets, warnings };
}

/** What an answer skipped, was cut to, or lost to damage: one line each. */
export function answerWarnings(a: Answer, what: string): string[] {
  const out = answerNotes(a.summary, what).map((n) => n.message);
  if (a.summary.cutPoints > 0) out.push(`${what}: only its first points are read (a bound per answer and per run); the rest of the answer is not read (plegscope's memory bound)`);
  if (a.summary.cutLabelSets > 0) out.push(`${what}: only its first ${a.summary.labelSets.length} series are read; ${a.summary.cutLabelSets} more not read (plegscope's memory bound)`);
  if (a.damaged) out.push(`${a.damaged}: read up to there`);
  return out;
}

/** The kubelet's scrape interval, from the raw samples of a relist counter around `atMs`. */
export async function probeScrapeInterval(client: PrometheusClient, t: KubeletTarget, atMs: number): Promise<number> {
  return (await measureScrapeInterval(client, t, atMs)) ?? DEFAULT_SCRAPE_S;
}

/** The kubelet's scrape interval as its samples show it; null when they cannot (too few samples in the probe). */
export async function measureScrapeInterval(client: PrometheusClient, t: KubeletTarget, atMs: number): Promise<number | null> {
  const list = new SeriesList();
  await client.query(scrapeProbeQuery(t, 600), atMs, list);
  return scrapeInterval(list.list.map((s) => s.times));
}

export interface NodeAsk {
  /** Names the input knows the node by (the first is its name). */
  names: string[];
  /** Windows to read (a stall ± 30 min each). */
  windows: Window[];
  /** No stall known: first look for stalls in this range (server-side), then read each ± 30 min, else its end. */
  find?: Window;
}

export interface HistoryResult {
  sources: QuerySource[];
  /** One line each: nodes the server does not know, answers with problems. */
  warnings: string[];
}

/** Read when a range shows no stall: its last hours (pods, CRI latency and errors of a healthy node). */
const QUIET_WINDOW_MS = 6 * 3_600_000;

/**
 * The series of each node over its windows (merged where they overlap). Nodes the server does not know are
 * warnings; a server that cannot be asked (unreachable, TLS, 401/403, 5xx, no kubelet metrics) throws.
 */
export async function nodeHistory(client: PrometheusClient, asks: NodeAsk[], ipNames?: Map<string, string>): Promise<HistoryResult> {
  let from = Infinity;
  let to = -Infinity;
  for (const a of asks) {
    for (const w of [...a.windows, ...(a.find ? [a.find] : [])]) {
      from = Math.min(from, w[0]);
      to = Math.max(to, w[1]);
    }
  }
  const { targets, warnings } = await discoverKubelets(client, from, to, ipNames);
  const jobs: Array<() => Promise<QuerySource>> = [];
  let segment = 0;
  for (const ask of asks) {
    const t = findTarget(targets, ask.names);
    if (!t) {
      warnings.push(`no kubelet series for node "${ask.names[0]}" between ${iso(from)} and ${iso(to)} (the server knows ${list(targets.map((x) => x.name))})`);
      continue;
    }
    const scrapeS = await probeScrapeInterval(client, t, (ask.windows[0] ?? ask.find!)[1]);
    const windows = mergeWindows([...ask.windows, ...(ask.find ? await findStalls(client, t, ask.find, scrapeS) : [])]);
    for (const w of windows) {
      const plan = planWindow(w, scrapeS);
      const seg = segment++;
      const node = ask.names[0]!;
      const rangeS = Math.round((plan.endMs - plan.startMs) / 1000) + scrapeS;
      if (rangeS / scrapeS > MAX_RAW_POINTS) warnings.push(`${node}: ${iso(plan.startMs)}..${iso(plan.endMs)} read at a ${plan.stepS} s step (scrapes every ${scrapeS} s): narrow --since/--until for every scrape`);
      // PLEG as scraped, from the scrape the runtime query's first step reads (≤ 1 interval before it) to its last.
      jobs.push(async () => {
        if (rangeS / scrapeS > MAX_RAW_POINTS) {
          const query = nodeQuery('pleg', t);
          const sink = new SampleSink(isModelMetric, { node: t.name });
          return toSource(await client.queryRange(query, plan.startMs, plan.endMs, plan.stepS, sink), sink, { query, label: queryLabel('pleg', t, plan.startMs, plan.endMs, plan.stepS), node, target: t, part: 'pleg', plan, stepS: plan.stepS, segment: seg });
        }
        const query = plegRawQuery(t, rangeS);
        const sink = new SampleSink(isModelMetric, { node: t.name });
        const src = toSource(await client.query(query, plan.endMs, sink), sink, { query, label: queryLabel('pleg', t, plan.endMs - rangeS * 1000, plan.endMs, null), node, target: t, part: 'pleg', plan, stepS: scrapeS, segment: seg });
        src.metrics.parsed.samples = dedupeSamples(src.metrics.parsed.samples);
        return src;
      });
      jobs.push(async () => {
        const query = nodeQuery('runtime', t);
        const sink = new SampleSink(isModelMetric, { node: t.name });
        return toSource(await client.queryRange(query, plan.startMs, plan.endMs, plan.coarseS, sink), sink, { query, label: queryLabel('runtime', t, plan.startMs, plan.endMs, plan.coarseS), node, target: t, part: 'runtime', plan, stepS: plan.coarseS, segment: seg });
      });
    }
  }
  // One answer that fails (cut short, refused, past the run's budget) is a warning; the others are read.
  const results = await runLimited(jobs.map((job) => () => job().catch((e: unknown) => {
    if (!(e instanceof PrometheusError)) throw e;
    return e;
  })), PARALLEL);
  const sources: QuerySource[] = [];
  const failed = new Map<string, number>();
  for (const s of results) {
    if (s instanceof PrometheusError) {
      failed.set(s.message, (failed.get(s.message) ?? 0) + 1);
      continue;
    }
    sources.push(s);
    if (s.points === 0) warnings.push(`${s.node}: no ${s.part} series in ${s.label}`);
    for (const e of s.errors) warnings.push(`${s.label}: ${e.message}`);
    for (const n of s.notes) warnings.push(`${s.label}: ${n.message}`);
  }
  for (const [m, n] of failed) warnings.push(n > 1 ? `${n} queries not answered: ${m}` : `a query not answered: ${m}`);
  // Nothing read and every query failed alike: the server cannot be asked (the caller decides what that costs).
  if (sources.length === 0 && failed.size === 1 && jobs.length > 0) {
    const [m] = [...failed.keys()];
    const first = results.find((r): r is PrometheusError => r instanceof PrometheusError && r.message === m)!;
    throw first;
  }
  return { sources: sources.filter((s) => s.points > 0), warnings };
}

/** Raw PLEG samples per window at most; past it the window is read at a step. */
const MAX_RAW_POINTS = 11_000;

/** Windows (each found stall ± 30 min, within `range`) where the kubelet's last-seen gauge stood still; else the end
 *  of the range. Asked of the server at a step chosen from the range, as the fleet scan does. */
async function findStalls(client: PrometheusClient, t: KubeletTarget, range: Window, scrapeS: number): Promise<Window[]> {
  const stepS = scanStep(range[1] - range[0], scrapeS);
  const list = new SeriesList();
  await client.queryRange(flatPassQuery(stepS, scrapeS, t), range[0], range[1], stepS, list);
  const times: number[] = [];
  for (const s of list.list) for (const x of s.times) times.push(x);
  const found = flaggedWindows([{ labels: { [t.idLabel]: t.idValue }, times }], [t], stepS, scrapeS).get(t) ?? [];
  if (found.length === 0) return [[Math.max(range[0], range[1] - QUIET_WINDOW_MS), range[1]]];
  return found.map((w): Window => [Math.max(range[0], w[0] - STALL_MARGIN_MS), Math.min(range[1], w[1] + STALL_MARGIN_MS)]);
}

function toSource(answer: Answer, sink: SampleSink, o: { query: string; label: string; node: string; target: KubeletTarget; part: QueryPart; plan: { startMs: number; endMs: number }; stepS: number; segment: number }): QuerySource {
  const parsed = sink.finish(answer.summary, answer.damaged);
  return {
    label: o.label,
    query: o.query,
    node: o.node,
    part: o.part,
    startMs: o.plan.startMs,
    endMs: o.plan.endMs,
    stepS: o.stepS,
    points: parsed.points,
    errors: parsed.errors,
    notes: parsed.notes ?? [],
    metrics: { file: o.label, nodeHint: o.node, nameTime: null, parsed, segment: o.segment },
  };
}

/** Runs the jobs, at most `limit` at a time; results in job order. The first failure fails all. */
export async function runLimited<T>(jobs: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, jobs.length) }, async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]!();
    }
  });
  await Promise.all(lanes);
  return out;
}

function iso(ms: number): string {
  return isoTime(ms).replace('.000Z', 'Z');
}

function list(names: string[]): string {
  if (names.length === 0) return 'none';
  return names.length > 8 ? `${names.slice(0, 8).join(', ')} and ${names.length - 8} more` : names.join(', ');
}

// ---------------------------------------------------------------------------------------------------------------
// analyze: the history next to the files

export interface PrometheusAsk {
  client: PrometheusClient;
  /** --node: the nodes to read with no files (or besides them). */
  nodes?: string[];
  /** --since/--until (epoch ms): the window of nodes no file gives stalls or a log window for. */
  sinceMs: number;
  untilMs: number;
}

export interface PrometheusData extends SourceRead {
  data: ArtifactData[];
  input: InputInfo;
  /** Artifact id → the query behind it (report inputs). */
  queries: Map<number, QuerySource>;
  warnings: Warning[];
}

/**
 * The history for the input's nodes: each node of the files over its stalls ± 30 min (else the end of its log), each
 * --node over --since/--until. When the server cannot be asked, files still analyzable make it a warning; with nothing
 * else to analyze it is the error (InputError: one line, exit 2).
 */
export async function prometheusData(ask: PrometheusAsk, files: ArtifactData[], firstId: number): Promise<PrometheusData> {
  const { nodes } = files.length > 0 ? buildNodes(files) : { nodes: [] as NodeModel[] };
  const asks: NodeAsk[] = [];
  for (const n of nodes) {
    if (n.name.startsWith('unattributed:')) continue;
    const stalls = n.timeline.stalls.map((s): Window => [s.lastRelistAt - STALL_MARGIN_MS, (s.endedAt ?? s.lastLineAt) + STALL_MARGIN_MS]);
    if (stalls.length > 0) asks.push({ names: [n.name, ...n.aliases], windows: stalls });
    else if (n.windowStart !== null && n.windowEnd !== null) asks.push({ names: [n.name, ...n.aliases], windows: [], find: [n.windowStart, n.windowEnd] });
  }
  for (const name of ask.nodes ?? []) {
    const known = asks.find((a) => a.names.includes(name));
    if (known && known.find) known.find = [Math.min(known.find[0], ask.sinceMs), Math.max(known.find[1], ask.untilMs)];
    else if (known) known.windows.push([ask.sinceMs, ask.untilMs]);
    else asks.push({ names: [name], windows: [], find: [ask.sinceMs, ask.untilMs] });
  }
  const input: InputInfo = { path: ask.client.display, kind: 'prometheus', artifacts: [] };
  const queries = new Map<number, QuerySource>();
  const served = new Set<string>();
  const result: PrometheusData = {
    data: [], input, queries, warnings: [], served,
    cite: (id) => queries.get(id)?.label,
    inputs: (nodeOf) => (queries.size === 0 ? [] : [{ ...input, artifacts: [...queries].map(([id, q]): ArtifactInfo => ({
      path: q.label, node: nodeOf(id), role: 'metrics', format: 'prometheus-query', lines: q.points, warnings: 0, query: q.query,
    })) }]),
  };
  if (asks.length === 0) return result;
  const ipNames = new Map<string, string>();
  for (const f of files) for (const o of f.nodeObjects ?? []) for (const ip of o.addresses ?? []) ipNames.set(ip, o.name);
  let history: HistoryResult;
  try {
    history = await nodeHistory(ask.client, asks, ipNames);
  } catch (e) {
    if (!(e instanceof PrometheusError)) throw e;
    if (nodes.length === 0) throw new InputError(e.where, e.message);
    result.warnings.push({ file: e.where, line: null, message: `${e.message}: analyzed without it`, unread: true });
    return result;
  }
  const fileNodes = new Set(nodes.map((n) => n.name));
  for (const w of history.warnings) result.warnings.push({ file: ask.client.display, line: null, message: w });
  if (history.sources.length === 0 && fileNodes.size === 0) {
    throw new InputError(ask.client.display, history.warnings[0] ?? 'nothing to analyze');
  }
  history.sources.forEach((s, i) => {
    const id = firstId + i;
    result.data.push({ id, path: s.label, role: 'metrics', format: 'prometheus-query', nodeHint: s.node, signals: null, metrics: s.metrics, goroutines: null, truncated: false });
    queries.set(id, s);
    served.add(s.label);
  });
  return result;
}
