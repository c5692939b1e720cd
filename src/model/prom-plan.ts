// What to ask a Prometheus about a kubelet: which series are whose (node identity), the PromQL that fetches the
// series the model reads (old and new names, metric-names.ts), and the windows and steps. Pure: no I/O.
// Node identity, in order: the `node` label (kube-prometheus-stack, OpenShift), `kubernetes_io_hostname` (the classic
// kubernetes-nodes job), the kubelet's own kubelet_node_name{node} on the same instance, kube-state-metrics'
// kube_node_info{internal_ip} for an IP:port instance, Node objects of the input; else the instance's host.
// Example: {__name__="kubelet_running_pods", instance="10.0.0.13:10250", job="kubelet"} with
// kube_node_info{node="worker-3", internal_ip="10.0.0.13"} → worker-3, selected by instance="10.0.0.13:10250".
import { modelMetricNames } from './metric-names.js';
import { stripPort } from './metrics.js';
import { isoTime } from '../util/instant.js';

export type LabelSet = Record<string, string>;

export interface KubeletTarget {
  /** Node name as plegscope reports it. */
  name: string;
  /** The label that identifies the kubelet's series, and its value. */
  idLabel: string;
  idValue: string;
  /** How the name was found. */
  via: 'node label' | 'kubernetes_io_hostname label' | 'kubelet_node_name' | 'kube_node_info' | 'node object' | 'instance';
}

/** Series that every kubelet exposes in one version or another: enough to list the kubelets a server knows. */
export const TARGET_MATCH = [
  'kubelet_pleg_relist_duration_seconds_count', 'kubelet_pleg_relist_latency_microseconds_count',
  'kubelet_running_pods', 'kubelet_running_pod_count', 'kubelet_node_name',
];
export const NODE_INFO_MATCH = ['kube_node_info'];

export function shortName(n: string): string {
  return (n.split('.')[0] ?? n).toLowerCase();
}

/**
 * The kubelets among `series` (label sets of TARGET_MATCH), named. `nodeInfo` are kube_node_info label sets, `ipNames`
 * IPs the input's Node objects give. Sorted by name; one target per name (the node label wins).
 */
export function kubeletTargets(series: LabelSet[], nodeInfo: LabelSet[] = [], ipNames: Map<string, string> = new Map()): KubeletTarget[] {
  const byInstance = new Map<string, string>();
  for (const s of series) {
    if (s['__name__'] === 'kubelet_node_name' && s['node'] && s['instance']) byInstance.set(s['instance'], s['node']);
  }
  const byIp = new Map<string, string>();
  for (const s of nodeInfo) if (s['internal_ip'] && s['node']) byIp.set(s['internal_ip'], s['node']);
  const out = new Map<string, KubeletTarget>();
  const rank: Record<KubeletTarget['via'], number> = { 'node label': 0, 'kubernetes_io_hostname label': 1, kubelet_node_name: 2, kube_node_info: 3, 'node object': 4, instance: 5 };
  // Instances with a series other than kubelet_node_name and no node label (one pass: lists hold 100 000s of series).
  const unlabelled = new Set<string | undefined>();
  for (const o of series) if (o['__name__'] !== 'kubelet_node_name' && !o['node']) unlabelled.add(o['instance']);
  for (const s of series) {
    // kubelet_node_name carries the kubelet's own node label even where its other series have none.
    if (s['__name__'] === 'kubelet_node_name' && unlabelled.has(s['instance'])) continue;
    let t: KubeletTarget | null = null;
    if (s['node']) t = { name: s['node'], idLabel: 'node', idValue: s['node'], via: 'node label' };
    else if (s['kubernetes_io_hostname']) t = { name: s['kubernetes_io_hostname'], idLabel: 'kubernetes_io_hostname', idValue: s['kubernetes_io_hostname'], via: 'kubernetes_io_hostname label' };
    else if (s['instance']) {
      const host = stripPort(s['instance']);
      const viaNodeName = byInstance.get(s['instance']);
      const name = viaNodeName ?? byIp.get(host) ?? ipNames.get(host) ?? host;
      const via = viaNodeName ? 'kubelet_node_name' : byIp.has(host) ? 'kube_node_info' : ipNames.has(host) ? 'node object' : 'instance';
      t = { name, idLabel: 'instance', idValue: s['instance'], via };
    }
    if (!t) continue;
    const cur = out.get(t.name);
    if (!cur || rank[t.via] < rank[cur.via] || (rank[t.via] === rank[cur.via] && t.idValue < cur.idValue)) out.set(t.name, t);
  }
  return [...out.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The target of a node the input names (exact name, else the same short name: worker-3 = worker-3.ec2.internal). */
export function findTarget(targets: KubeletTarget[], names: string[]): KubeletTarget | null {
  for (const n of names) {
    const t = targets.find((x) => x.name === n);
    if (t) return t;
  }
  const shorts = new Set(names.map(shortName));
  return targets.find((x) => shorts.has(shortName(x.name))) ?? null;
}

export function promString(v: string): string {
  return `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

export function selector(t: KubeletTarget): string {
  return `${t.idLabel}=${promString(t.idValue)}`;
}

/** What one node window is asked in two queries: the PLEG series at scrape resolution, the rest at a coarser step. */
export type QueryPart = 'pleg' | 'runtime';

const NAMES: Record<QueryPart, string[]> = {
  pleg: [...modelMetricNames(['pleg']), 'kubelet_node_name'],
  runtime: modelMetricNames(['runtime', 'docker', 'network_plugin', 'pods']),
};

/**
 * One series per metric name and bucket/quantile/operation/state for this kubelet: `max` folds copies of it (two
 * jobs, HA replicas) without adding them up; the identity labels stay, so a saved answer still says whose it is.
 */
export function nodeQuery(part: QueryPart, t: KubeletTarget): string {
  const by = ['__name__', 'le', 'quantile', ...(part === 'runtime' ? ['operation_type', 'container_state'] : []), 'node'];
  if (!by.includes(t.idLabel)) by.push(t.idLabel);
  return `max by (${by.join(', ')}) ({__name__=~"${NAMES[part].join('|')}", ${selector(t)}})`;
}

/**
 * The PLEG series as scraped (a range selector: every sample with its scrape time, so a stall ends at the scrape that
 * saw it end, and the window's edges are the scrapes the runtime query's first and last steps read). Copies of a
 * series (two jobs, replicas) are folded by dedupeSamples.
 */
export function plegRawQuery(t: KubeletTarget, rangeS: number): string {
  return `{__name__=~"${NAMES.pleg.join('|')}", ${selector(t)}}[${rangeS}s]`;
}

/** Relist counters, for the scrape interval probe (raw samples of one of them). */
export function scrapeProbeQuery(t: KubeletTarget, rangeS: number): string {
  const names = ['kubelet_pleg_relist_duration_seconds_count', 'kubelet_pleg_relist_latency_microseconds_count', 'kubelet_running_pods', 'kubelet_running_pod_count'];
  return `{__name__=~"${names.join('|')}", ${selector(t)}}[${rangeS}s]`;
}

/** The scrape interval from the raw sample times of a probe (median spacing, whole seconds), null when unknown. */
export function scrapeInterval(times: number[][]): number | null {
  const gaps: number[] = [];
  for (const ts of times) for (let i = 1; i < ts.length; i++) gaps.push(ts[i]! - ts[i - 1]!);
  if (gaps.length === 0) return null;
  gaps.sort((a, b) => a - b);
  const s = Math.round(gaps[Math.floor(gaps.length / 2)]! / 1000);
  return s >= 1 ? s : 1;
}

export type Window = [number, number];

/** Overlapping or touching windows merged, in order. */
export function mergeWindows(ws: Window[]): Window[] {
  const sorted = ws.filter((w) => w[1] > w[0]).sort((a, b) => a[0] - b[0]);
  const out: Window[] = [];
  for (const w of sorted) {
    const last = out[out.length - 1];
    if (last && w[0] <= last[1]) last[1] = Math.max(last[1], w[1]);
    else out.push([w[0], w[1]]);
  }
  return out;
}

export interface WindowPlan {
  startMs: number;
  endMs: number;
  /** Step of the PLEG series (the scrape interval, or coarser for a long window). */
  stepS: number;
  /** Step of the runtime and pod series: a multiple of stepS on the same grid, so their points fall on PLEG points. */
  coarseS: number;
}

/** Points per series the PLEG part may have before its step grows past the scrape interval. */
export const MAX_FINE_POINTS = 1500;
/** Points per series of the runtime part (its window increase and last values are what the model reads). */
const COARSE_POINTS = 60;

/** Steps for a window: the PLEG series at the scrape interval (coarser when the window is long), the rest ~60 points;
 *  the window is widened to whole steps so that its edges are points of both queries. */
export function planWindow(w: Window, scrapeS: number): WindowPlan {
  const span = (w[1] - w[0]) / 1000;
  const stepS = Math.max(scrapeS, Math.ceil(span / MAX_FINE_POINTS / scrapeS) * scrapeS);
  const coarseS = Math.max(stepS, Math.ceil(span / COARSE_POINTS / stepS) * stepS);
  const startMs = Math.floor(w[0] / (stepS * 1000)) * stepS * 1000;
  const n = Math.max(1, Math.ceil((w[1] - startMs) / (coarseS * 1000)));
  return { startMs, endMs: startMs + n * coarseS * 1000, stepS, coarseS };
}

/** A short name for a query's answer, cited as the "file" of its samples: part, kubelet, window and step. */
export function queryLabel(part: QueryPart, t: KubeletTarget, startMs: number, endMs: number, stepS: number | null): string {
  const a = isoTime(startMs).replace('.000Z', 'Z');
  const b = isoTime(endMs).replace('.000Z', 'Z');
  return stepS === null ? `query ${part}{${selector(t)}} ${a}..${b} as scraped` : `query_range ${part}{${selector(t)}} ${a}..${b} step ${stepS}s`;
}

/** The labels the node identity reads of a series list (kubeletTargets, targetOf): the rest of a label set is not kept. */
export const IDENTITY_LABELS: ReadonlySet<string> = new Set(['__name__', 'node', 'kubernetes_io_hostname', 'instance', 'internal_ip']);

/** One series per metric name and bucket/quantile/operation/state: where copies of a series came back (two jobs
 *  scraping one kubelet, HA replicas), the samples of the copy with the most points (each series' samples share one
 *  labels object), in their order. */
export function dedupeSamples<T extends { name: string; labels: LabelSet }>(samples: T[]): T[] {
  const count = new Map<LabelSet, number>();
  for (const s of samples) count.set(s.labels, (count.get(s.labels) ?? 0) + 1);
  const keyOf = (name: string, m: LabelSet) => [name, m['le'] ?? '', m['quantile'] ?? '', m['operation_type'] ?? '', m['container_state'] ?? ''].join('\u0000');
  const best = new Map<string, { labels: LabelSet; n: number }>();
  const nameOf = new Map<LabelSet, string>();
  for (const s of samples) nameOf.set(s.labels, s.name);
  for (const [labels, n] of count) {
    const k = keyOf(nameOf.get(labels)!, labels);
    const cur = best.get(k);
    if (!cur || n > cur.n) best.set(k, { labels, n });
  }
  const keep = new Set([...best.values()].map((b) => b.labels));
  return keep.size === count.size ? samples : samples.filter((s) => keep.has(s.labels));
}
