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

/**
 * The names of one quantity and part, the preferred first: a histogram before a ≤1.13 microsecond summary, then new
 * names before old (rank). `group` narrows to one family (runtime, docker, …). Alert rules are built from these, so
 * they read the same names the model does.
 *   familyNames('relist_duration', 'count') → kubelet_pleg_relist_duration_seconds_count, kubelet_pleg_relist_latency_microseconds_count
 *   familyNames('operation', 'errors', 'runtime') → kubelet_runtime_operations_errors_total, kubelet_runtime_operations_errors
 */
export function familyNames(quantity: Quantity, part: Part, group?: Group, source?: Source): Array<{ name: string; info: NameInfo }> {
  const order: Record<Source, number> = { histogram: 0, counter: 0, gauge: 0, summary: 1 };
  return [...table]
    .filter(([, i]) => i.quantity === quantity && i.part === part && (group === undefined || i.group === group) && (source === undefined || i.source === source))
    .sort(([a, x], [b, y]) => order[x.source] - order[y.source] || x.rank - y.rank || (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, info]) => ({ name, info }));
}

/** The per-operation families (CRI, dockershim's docker calls, dockershim's CNI calls) and their name prefixes. */
export function operationFamilies(): ReadonlyArray<{ group: Group; prefix: string }> {
  return OPERATION_FAMILIES;
}

/**
 * Series the model does not read but alert rules do (kubelet-catalog.md §8, pkg/kubelet/metrics/metrics.go):
 * - Evented PLEG (1.27+): counters of CRI event streams obtained and failed, and the event latency histogram. The
 *   kubelet registers them whatever the EventedPLEG gate says, so every 1.27+ kubelet exposes them at 0: only a value
 *   above 0 says the gate is on (the event stream is opened at start, so one of them moves within seconds).
 * - dockershim's timeouts by operation (≤1.23): `_timeout_total` (1.14+), `_timeout` (before).
 */
export const EVENTED_PLEG_NAMES: readonly string[] = [
  'kubelet_evented_pleg_connection_success_count',
  'kubelet_evented_pleg_connection_error_count',
  'kubelet_evented_pleg_connection_latency_seconds_count',
];
export const DOCKER_TIMEOUT_NAMES: readonly string[] = ((p) => [`${p}_timeout_total`, `${p}_timeout`])(
  OPERATION_FAMILIES.find((f) => f.group === 'docker')!.prefix,
);
