// Maps the kubelet's metric names across versions (kubelet-catalog.md §8) onto one model, so 1.11 microsecond
// summaries and 1.20+ second histograms feed the same fields. Example input → output:
//   kubelet_pleg_relist_latency_microseconds{quantile="0.99"} → relist_duration / summary / quantile, ×1e-6
//   kubelet_runtime_operations_duration_seconds_bucket{operation_type="list_podsandbox",le="0.005"} → op / histogram / bucket

/** Which logical quantity a sample measures. */
export type Quantity =
  | 'relist_duration' | 'relist_interval' | 'operation'
  | 'discard_events' | 'last_seen' | 'running_pods' | 'running_containers';

/** Metric groups: a scrape that holds any member of a group is taken to hold all its live series. */
export type Group = 'pleg' | 'runtime' | 'docker' | 'network_plugin' | 'pods';

/** Where the value came from; `new` names win over `old` ones when a kubelet (1.14–1.16) exposes both. */
export type Part = 'bucket' | 'sum' | 'count' | 'quantile' | 'counter' | 'errors' | 'gauge';
export type Source = 'histogram' | 'summary' | 'counter' | 'gauge';

export interface NameInfo {
  quantity: Quantity;
  group: Group;
  source: Source;
  part: Part;
  /** Multiplier to seconds for sums and quantiles (µs summaries); 1 otherwise. */
  scale: number;
  /** Lower rank = preferred when several names give the same value (new before old). */
  rank: number;
}

const US = 1e-6;
const table = new Map<string, NameInfo>();

function add(name: string, info: Omit<NameInfo, 'scale' | 'rank'> & { scale?: number; rank?: number }): void {
  table.set(name, { scale: 1, rank: 0, ...info });
}

function histogram(base: string, quantity: Quantity, group: Group): void {
  add(`${base}_bucket`, { quantity, group, source: 'histogram', part: 'bucket' });
  add(`${base}_sum`, { quantity, group, source: 'histogram', part: 'sum' });
  add(`${base}_count`, { quantity, group, source: 'histogram', part: 'count' });
}

function summaryUs(base: string, quantity: Quantity, group: Group): void {
  add(base, { quantity, group, source: 'summary', part: 'quantile', scale: US });
  add(`${base}_sum`, { quantity, group, source: 'summary', part: 'sum', scale: US });
  add(`${base}_count`, { quantity, group, source: 'summary', part: 'count' });
}

function counter(name: string, quantity: Quantity, group: Group, part: 'counter' | 'errors', rank: number): void {
  add(name, { quantity, group, source: 'counter', part, rank });
}

histogram('kubelet_pleg_relist_duration_seconds', 'relist_duration', 'pleg');
histogram('kubelet_pleg_relist_interval_seconds', 'relist_interval', 'pleg');
summaryUs('kubelet_pleg_relist_latency_microseconds', 'relist_duration', 'pleg');
summaryUs('kubelet_pleg_relist_interval_microseconds', 'relist_interval', 'pleg');
counter('kubelet_pleg_discard_events', 'discard_events', 'pleg', 'counter', 0);
counter('kubelet_pleg_discard_events_total', 'discard_events', 'pleg', 'counter', 0);
add('kubelet_pleg_last_seen_seconds', { quantity: 'last_seen', group: 'pleg', source: 'gauge', part: 'gauge' });

// Per-operation families: the CRI one we report, and the dockershim/CNI ones (≤1.23) kept as extras.
const OPERATION_FAMILIES: { group: Group; prefix: string }[] = [
  { group: 'runtime', prefix: 'kubelet_runtime_operations' },
  { group: 'docker', prefix: 'kubelet_docker_operations' },
  { group: 'network_plugin', prefix: 'kubelet_network_plugin_operations' },
];
for (const { group, prefix } of OPERATION_FAMILIES) {
  histogram(`${prefix}_duration_seconds`, 'operation', group);
  summaryUs(`${prefix}_latency_microseconds`, 'operation', group);
  counter(`${prefix}_total`, 'operation', group, 'counter', 0);
  counter(prefix, 'operation', group, 'counter', 1);
  counter(`${prefix}_errors_total`, 'operation', group, 'errors', 0);
  counter(`${prefix}_errors`, 'operation', group, 'errors', 1);
}

add('kubelet_running_pods', { quantity: 'running_pods', group: 'pods', source: 'gauge', part: 'gauge' });
add('kubelet_running_pod_count', { quantity: 'running_pods', group: 'pods', source: 'gauge', part: 'gauge', rank: 1 });
add('kubelet_running_containers', { quantity: 'running_containers', group: 'pods', source: 'gauge', part: 'gauge' });
add('kubelet_running_container_count', {
  quantity: 'running_containers', group: 'pods', source: 'gauge', part: 'gauge', rank: 1,
});

export function nameInfo(name: string): NameInfo | undefined {
  return table.get(name);
}

/** True for every sample name the metrics model reads; a cheap `keep` filter for the parser. */
export function isModelMetric(name: string): boolean {
  return table.has(name) || name === 'kubelet_node_name';
}

/** Every name the model reads in these groups, old and new (the series a Prometheus history is asked for). */
export function modelMetricNames(groups: readonly Group[]): string[] {
  return [...table].filter(([, info]) => groups.includes(info.group)).map(([name]) => name).sort();
}
