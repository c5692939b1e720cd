// A synthetic incident as a Prometheus would have scraped it, for the tests that run a real Prometheus.
// Three kubelets over 6 hours at a 30 s scrape:
//   worker-1  1.28, healthy; labelled as kube-prometheus-stack does: {instance="10.0.0.11:10250", job="kubelet", node="worker-1", …}
//   worker-2  1.28, a 14-minute PLEG stall 3 h in (containerd hung: CRI calls time out, the relist's finite buckets and
//             kubelet_pleg_last_seen_seconds freeze); same labels; its kubelet journal is written too
//   worker-3  1.13 names (µs summaries, kubelet_runtime_operations, kubelet_running_pod_count), healthy, labelled only
//             {instance="10.0.0.13:10250", job="kubelet"}: named through kube-state-metrics' kube_node_info{internal_ip}
// Counters come from test/support/journal-gen.mjs (kubeletCountersAt), so the journal and the series agree call for
// call. The times are placed a few hours before now (Prometheus keeps what its retention allows; `--since 7d` works).
import { writeFileSync, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
// @ts-expect-error -- plain .mjs without types
import { generateKubeletJournal, kubeletCountersAt, histogramQuantile, CRI_BUCKETS, DEF_BUCKETS } from '../support/journal-gen.mjs';

export const SCRAPE_S = 30;
const HOURS = 6;
/** Operations written (a real kubelet exposes ~25; six keep the fixture small and hold every one the stall touches). */
export const OPS = ['list_podsandbox', 'list_containers', 'container_status', 'status', 'version', 'exec_sync'];

interface Hist { bounds: number[]; counts: number[]; count: number; sum: number }
interface Counters {
  timestampMs: number;
  relistDuration: Hist;
  relistInterval: Hist;
  plegLastSeenSeconds: number;
  operations: Record<string, { duration: Hist; errors: number }>;
  runningPods: number;
  runningContainers: { created: number; exited: number; running: number; unknown: number };
}

export interface NodeSpec {
  name: string;
  ip: string;
  old: boolean;
  /** Seconds after each 30 s tick that this target is scraped (targets are spread over the interval). */
  offsetS: number;
  labels: Record<string, string>;
}

export interface Fixture {
  startMs: number;
  endMs: number;
  nodes: NodeSpec[];
  /** Scrape times per node (ms). */
  scrapes: Map<string, number[]>;
  counters: Map<string, Counters[]>;
  stall: { node: string; lastRelistAtMs: number; endedAtMs: number; durationSeconds: number };
  /** The stalled node's kubelet journal (short-iso). */
  journal: string;
}

export function nodeSpecs(): NodeSpec[] {
  const kps = (name: string, ip: string) => ({ endpoint: 'https-metrics', instance: `${ip}:10250`, job: 'kubelet', metrics_path: '/metrics', namespace: 'kube-system', node: name, service: 'prometheus-kube-prometheus-kubelet' });
  return [
    { name: 'worker-1', ip: '10.0.0.11', old: false, offsetS: 3, labels: kps('worker-1', '10.0.0.11') },
    { name: 'worker-2', ip: '10.0.0.12', old: false, offsetS: 11, labels: kps('worker-2', '10.0.0.12') },
    { name: 'worker-3', ip: '10.0.0.13', old: true, offsetS: 19, labels: { instance: '10.0.0.13:10250', job: 'kubelet' } },
  ];
}

export function buildFixture(dir: string, nowMs = Date.now()): Fixture {
  const startMs = Math.floor(nowMs / 3_600_000) * 3_600_000 - (HOURS + 2) * 3_600_000;
  const endMs = startMs + HOURS * 3_600_000;
  const nodes = nodeSpecs();
  const stallAt = startMs + 3 * 3_600_000 + 17_000;
  const scrapes = new Map<string, number[]>();
  const counters = new Map<string, Counters[]>();
  let journal = '';
  let stall: Fixture['stall'] | null = null;
  for (const n of nodes) {
    // The kubelet started 10 minutes before the window, so every scrape sees it running.
    const gen = generateKubeletJournal({
      host: n.name, start: startMs - 600_000, durationMs: HOURS * 3_600_000 + 900_000, seed: `prom-${n.name}`, envelope: 'short-iso',
      recordActivity: true, pods: 30, ...(n.name === 'worker-2' ? { stalls: [{ at: stallAt, durationMs: 14 * 60_000, cause: 'list_timeout' }] } : {}),
    });
    const lines: string[] = [];
    for (const l of gen) lines.push(l);
    const truth = gen.truth;
    if (n.name === 'worker-2') {
      journal = join(dir, 'worker-2-kubelet.log');
      writeFileSync(journal, lines.join('\n') + '\n');
      const s = truth.stalls[0];
      stall = { node: n.name, lastRelistAtMs: s.lastRelistAtMs, endedAtMs: s.endedAtMs, durationSeconds: s.durationSeconds };
    }
    const times: number[] = [];
    for (let t = startMs + n.offsetS * 1000; t < endMs; t += SCRAPE_S * 1000) times.push(t);
    scrapes.set(n.name, times);
    counters.set(n.name, times.map((t) => kubeletCountersAt(truth, t) as Counters));
  }
  return { startMs, endMs, nodes, scrapes, counters, stall: stall!, journal };
}

type Series = { name: string; labels: Record<string, string>; values: number[] };

function fmt(v: number): string {
  if (v === Infinity) return '+Inf';
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(15)));
}

/** Every series of one node's kubelet (as that version names them), over its scrapes. */
function seriesOf(n: NodeSpec, cs: Counters[]): Series[] {
  const out: Series[] = [];
  const add = (name: string, labels: Record<string, string>, f: (c: Counters) => number) => out.push({ name, labels: { ...n.labels, ...labels }, values: cs.map(f) });
  const hist = (name: string, labels: Record<string, string>, h: (c: Counters) => Hist) => {
    const bounds = h(cs[0]!).bounds;
    bounds.forEach((b, i) => add(`${name}_bucket`, { ...labels, le: fmt(b) }, (c) => h(c).counts[i]!));
    add(`${name}_bucket`, { ...labels, le: '+Inf' }, (c) => h(c).count);
    add(`${name}_sum`, labels, (c) => h(c).sum);
    add(`${name}_count`, labels, (c) => h(c).count);
  };
  // A ≤1.13 summary: quantiles over the kubelet's own window, here taken from the cumulative histogram (µs).
  const summary = (name: string, labels: Record<string, string>, h: (c: Counters) => Hist) => {
    for (const q of [0.5, 0.9, 0.99]) add(name, { ...labels, quantile: String(q) }, (c) => Math.round(histogramQuantile(q, h(c)) * 1e6) || 0);
    add(`${name}_sum`, labels, (c) => Math.round(h(c).sum * 1e6));
    add(`${name}_count`, labels, (c) => h(c).count);
  };
  if (!n.old) {
    add('kubelet_node_name', { node: n.name }, () => 1);
    add('kubelet_pleg_last_seen_seconds', {}, (c) => c.plegLastSeenSeconds);
    add('kubelet_pleg_discard_events', {}, () => 0);
    // 1.27+ kubelets register the Evented PLEG counters whatever the gate says; worker-1 runs with the gate on.
    add('kubelet_evented_pleg_connection_success_count', {}, () => (n.name === 'worker-1' ? 1 : 0));
    add('kubelet_evented_pleg_connection_error_count', {}, () => 0);
    hist('kubelet_pleg_relist_duration_seconds', {}, (c) => c.relistDuration);
    hist('kubelet_pleg_relist_interval_seconds', {}, (c) => c.relistInterval);
    for (const op of OPS) {
      const o = { operation_type: op };
      hist('kubelet_runtime_operations_duration_seconds', o, (c) => c.operations[op]!.duration);
      add('kubelet_runtime_operations_total', o, (c) => c.operations[op]!.duration.count);
      // The kubelet creates an error series at the first error.
      if (cs.some((c) => c.operations[op]!.errors > 0)) add('kubelet_runtime_operations_errors_total', o, (c) => c.operations[op]!.errors);
    }
    add('kubelet_running_pods', {}, (c) => c.runningPods);
    for (const state of ['created', 'exited', 'running', 'unknown'] as const) add('kubelet_running_containers', { container_state: state }, (c) => c.runningContainers[state]);
  } else {
    summary('kubelet_pleg_relist_latency_microseconds', {}, (c) => c.relistDuration);
    summary('kubelet_pleg_relist_interval_microseconds', {}, (c) => c.relistInterval);
    for (const op of OPS) {
      const o = { operation_type: op };
      summary('kubelet_runtime_operations_latency_microseconds', o, (c) => c.operations[op]!.duration);
      add('kubelet_runtime_operations', o, (c) => c.operations[op]!.duration.count);
    }
    add('kubelet_running_pod_count', {}, (c) => c.runningPods);
    add('kubelet_running_container_count', {}, (c) => c.runningContainers.running);
  }
  return out;
}

function labelText(labels: Record<string, string>): string {
  const ks = Object.keys(labels).sort();
  return ks.length ? `{${ks.map((k) => `${k}="${labels[k]}"`).join(',')}}` : '';
}

/** The whole fixture as OpenMetrics with timestamps in seconds, each metric name's samples together (promtool's input). */
export async function writeOpenMetrics(f: Fixture, file: string): Promise<number> {
  const all: { series: Series; times: number[] }[] = [];
  for (const n of f.nodes) for (const s of seriesOf(n, f.counters.get(n.name)!)) all.push({ series: s, times: f.scrapes.get(n.name)! });
  // kube-state-metrics' node info: how IP instances get their node names.
  const ksmTimes: number[] = [];
  for (let t = f.startMs + 7000; t < f.endMs; t += SCRAPE_S * 1000) ksmTimes.push(t);
  for (const n of f.nodes) {
    all.push({ series: { name: 'kube_node_info', labels: { instance: '10.1.0.5:8080', job: 'kube-state-metrics', node: n.name, internal_ip: n.ip, kubelet_version: n.old ? 'v1.13.12' : 'v1.28.3' }, values: ksmTimes.map(() => 1) }, times: ksmTimes });
  }
  all.sort((a, b) => (a.series.name < b.series.name ? -1 : a.series.name > b.series.name ? 1 : 0));
  const ws = createWriteStream(file);
  let samples = 0;
  let buf: string[] = [];
  for (const { series, times } of all) {
    const head = `${series.name}${labelText(series.labels)} `;
    for (let i = 0; i < times.length; i++) {
      buf.push(`${head}${fmt(series.values[i]!)} ${(times[i]! / 1000).toFixed(3)}`);
      samples++;
    }
    if (buf.length > 20_000) {
      if (!ws.write(buf.join('\n') + '\n')) await once(ws, 'drain');
      buf = [];
    }
  }
  buf.push('# EOF');
  ws.end(buf.join('\n') + '\n');
  await once(ws, 'finish');
  return samples;
}

/** One node's /metrics as the kubelet served it at its scrape `index` (Prometheus text with ms timestamps), the way a
 *  user would save it with curl: the "equivalent snapshot file" of a query window's edge. */
export function snapshotText(f: Fixture, node: string, index: number): string {
  const n = f.nodes.find((x) => x.name === node)!;
  const cs = f.counters.get(node)!;
  const ms = f.scrapes.get(node)![index]!;
  const out: string[] = [];
  for (const s of seriesOf({ ...n, labels: {} }, cs)) out.push(`${s.name}${labelText(s.labels)} ${fmt(s.values[index]!)} ${ms}`);
  return out.join('\n') + '\n';
}

export { CRI_BUCKETS, DEF_BUCKETS };
