import { describe, it, expect } from 'vitest';
import { parseMetricsText } from '../../src/parse/metrics/exposition.js';
import { summarize, toSnapshots, type MetricsSource } from '../../src/model/metrics.js';
import { isModelMetric } from '../../src/model/metric-names.js';

const EXP = [
  '0.005', '0.0125', '0.03125', '0.078125', '0.1953125', '0.48828125', '1.220703125', '3.0517578125',
  '7.62939453125', '19.073486328125', '47.6837158203125', '119.20928955078125', '298.0232238769531',
  '745.0580596923828', '+Inf',
];
const DEF = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'];

function buckets(name: string, labels: string, les: string[], counts: number[]): string[] {
  const sep = labels === '' ? '' : `${labels},`;
  return les.map((le, i) => `${name}_bucket{${sep}le="${le}"} ${counts[i]}`);
}

// A kubelet 1.28 /metrics excerpt. Counts per bucket are cumulative, as exposed.
// list_podsandbox: 7000 ≤ 5 ms, 8500 ≤ 12.5 ms, 9200 ≤ 31.25 ms, 9500 ≤ 78 ms, all 9600 ≤ 195 ms.
// container_status: 50, 80, then 98 up to the last finite bucket, 100 in +Inf (2 calls hit the 2 min deadline).
function kubelet128(o: { ps?: number[]; cs?: number[]; relist?: number[]; relistCount?: number; lastSeen?: string } = {}): string {
  const ps = o.ps ?? [7000, 8500, 9200, 9500, 9600, 9600, 9600, 9600, 9600, 9600, 9600, 9600, 9600, 9600, 9600];
  const cs = o.cs ?? [50, 80, 98, 98, 98, 98, 98, 98, 98, 98, 98, 98, 98, 98, 100];
  const rl = o.relist ?? [0, 1000, 4000, 4800, 4900, 4950, 4990, 5000, 5000, 5000, 5000, 5000];
  const rc = o.relistCount ?? rl[rl.length - 1]!;
  return [
    '# HELP kubelet_node_name [ALPHA] The node\'s name. The count is always 1.',
    '# TYPE kubelet_node_name gauge',
    'kubelet_node_name{node="worker-1"} 1',
    '# HELP kubelet_pleg_discard_events [ALPHA] The number of discard events in PLEG.',
    '# TYPE kubelet_pleg_discard_events counter',
    'kubelet_pleg_discard_events 0',
    '# HELP kubelet_pleg_last_seen_seconds [ALPHA] Timestamp in seconds when PLEG was last seen active.',
    '# TYPE kubelet_pleg_last_seen_seconds gauge',
    `kubelet_pleg_last_seen_seconds ${o.lastSeen ?? '1.7000000123456e+09'}`,
    '# HELP kubelet_pleg_relist_duration_seconds [ALPHA] Duration in seconds for relisting pods in PLEG.',
    '# TYPE kubelet_pleg_relist_duration_seconds histogram',
    ...buckets('kubelet_pleg_relist_duration_seconds', '', DEF, rl),
    'kubelet_pleg_relist_duration_seconds_sum 98.70000000000017',
    `kubelet_pleg_relist_duration_seconds_count ${rc}`,
    '# HELP kubelet_pleg_relist_interval_seconds [ALPHA] Interval in seconds between relisting in PLEG.',
    '# TYPE kubelet_pleg_relist_interval_seconds histogram',
    ...buckets('kubelet_pleg_relist_interval_seconds', '', DEF, [0, 0, 0, 0, 0, 0, 0, 0, 4990, 4999, 4999, 4999]),
    'kubelet_pleg_relist_interval_seconds_sum 5102.3',
    'kubelet_pleg_relist_interval_seconds_count 4999',
    '# HELP kubelet_running_containers [ALPHA] Number of containers currently running',
    '# TYPE kubelet_running_containers gauge',
    'kubelet_running_containers{container_state="created"} 2',
    'kubelet_running_containers{container_state="exited"} 10',
    'kubelet_running_containers{container_state="running"} 87',
    '# HELP kubelet_running_pods [ALPHA] Number of pods that have a running pod sandbox',
    '# TYPE kubelet_running_pods gauge',
    'kubelet_running_pods 43',
    '# HELP kubelet_runtime_operations_duration_seconds [ALPHA] Duration in seconds of runtime operations. Broken down by operation type.',
    '# TYPE kubelet_runtime_operations_duration_seconds histogram',
    ...buckets('kubelet_runtime_operations_duration_seconds', 'operation_type="container_status"', EXP, cs),
    'kubelet_runtime_operations_duration_seconds_sum{operation_type="container_status"} 241.7',
    `kubelet_runtime_operations_duration_seconds_count{operation_type="container_status"} ${cs[14]}`,
    ...buckets('kubelet_runtime_operations_duration_seconds', 'operation_type="list_podsandbox"', EXP, ps),
    'kubelet_runtime_operations_duration_seconds_sum{operation_type="list_podsandbox"} 48.5',
    `kubelet_runtime_operations_duration_seconds_count{operation_type="list_podsandbox"} ${ps[14]}`,
    '# HELP kubelet_runtime_operations_errors_total [ALPHA] Cumulative number of runtime operation errors by operation type.',
    '# TYPE kubelet_runtime_operations_errors_total counter',
    'kubelet_runtime_operations_errors_total{operation_type="container_status"} 2',
    '# HELP kubelet_runtime_operations_total [ALPHA] Cumulative number of runtime operations by operation type.',
    '# TYPE kubelet_runtime_operations_total counter',
    `kubelet_runtime_operations_total{operation_type="container_status"} ${cs[14]}`,
    `kubelet_runtime_operations_total{operation_type="list_podsandbox"} ${ps[14]}`,
    'kubelet_runtime_operations_total{operation_type="version"} 12',
    '# HELP go_goroutines Number of goroutines that currently exist.',
    '# TYPE go_goroutines gauge',
    'go_goroutines 412',
  ].join('\n');
}

function source(text: string, file: string, nameTime: number | null, nodeHint: string | null = null): MetricsSource {
  return { file, nodeHint, nameTime, parsed: parseMetricsText(text, { keep: isModelMetric }) };
}

function lineOf(text: string, needle: string): number {
  return text.split('\n').findIndex((l) => l.startsWith(needle)) + 1;
}

describe('kubelet 1.28 /metrics, one snapshot (cumulative since kubelet start)', () => {
  const text = kubelet128();
  const T = Date.UTC(2023, 10, 14, 22, 13, 33); // 1700000013000
  const snaps = toSnapshots(source(text, 'worker-1/metrics.txt', T, 'hint-ignored'));
  const s = summarize(snaps);

  it('is one snapshot of the node named by kubelet_node_name, at the file-name time', () => {
    expect(snaps).toHaveLength(1);
    expect(snaps[0]!.node).toBe('worker-1');
    expect(snaps[0]!.timeMs).toBe(T);
    expect(s.snapshots).toBe(1);
    expect(s.cumulative).toBe(true);
    expect(s.windowStartMs).toBe(T);
    expect(s.windowEndMs).toBe(T);
  });

  it('relist duration quantiles from the DefBuckets histogram', () => {
    expect(s.relist.source).toBe('histogram');
    expect(s.relist.count).toBe(5000);
    expect(s.relist.countFrozen).toBe(false);
    // p50 0.01 + 0.015*(1500/3000); p90 0.025 + 0.025*(500/800); p99 0.1 + 0.15*(50/50); max: last gain at le=1
    expect(s.relist.duration!.p50).toBeCloseTo(0.0175, 12);
    expect(s.relist.duration!.p90).toBeCloseTo(0.040625, 12);
    expect(s.relist.duration!.p99).toBeCloseTo(0.25, 12);
    expect(s.relist.duration!.max).toBe(1);
    expect(s.relist.duration!.maxIsLowerBound).toBe(false);
  });

  it('relist interval', () => {
    // p50: rank 2499.5 in (1, 2.5] holding 0..4990 → 1 + 1.5 * 2499.5/4990
    expect(s.relist.interval!.p50).toBeCloseTo(1 + 1.5 * (2499.5 / 4990), 12);
    // p99: rank 4949.01 ≤ 4990 → same bucket → 1 + 1.5 * 4949.01/4990
    expect(s.relist.interval!.p99).toBeCloseTo(1 + 1.5 * (4949.01 / 4990), 12);
    expect(s.relist.interval!.max).toBe(5);
  });

  it('per-operation counts, errors and quantiles from the Exp(.005,2.5,14) buckets', () => {
    expect(s.operations.map((o) => o.operation)).toEqual(['container_status', 'list_podsandbox', 'version']);
    const [cs, ps, version] = s.operations;
    // list_podsandbox: p50 rank 4800 in (0, 0.005] → 0.005*4800/7000
    expect(ps!.p50).toBeCloseTo((0.005 * 4800) / 7000, 12);
    // p90 rank 8640 in (0.0125, 0.03125] holding 8500..9200 → 0.0125 + 0.01875*(140/700) = 0.01625
    expect(ps!.p90).toBeCloseTo(0.01625, 12);
    // p99 rank 9504 in (0.078125, 0.1953125] holding 9500..9600 → 0.078125 + 0.1171875*(4/100) = 0.0828125
    expect(ps!.p99).toBeCloseTo(0.0828125, 12);
    expect(ps).toMatchObject({ count: 9600, errors: 0, max: 0.1953125, maxIsLowerBound: false, source: 'histogram' });
    // container_status: p50 rank 50 → 0.005*(50/50); p90 rank 90 in (0.0125, 0.03125] holding 80..98
    expect(cs!.p50).toBeCloseTo(0.005, 12);
    expect(cs!.p90).toBeCloseTo(0.0125 + 0.01875 * (10 / 18), 12);
    // p99 rank 99 > 98 (all finite buckets) → +Inf bucket → highest finite bound
    expect(cs!.p99).toBe(745.0580596923828);
    expect(cs).toMatchObject({ count: 100, errors: 2, max: 745.0580596923828, maxIsLowerBound: true });
    // version: a counter only
    expect(version).toMatchObject({ count: 12, errors: 0, p50: null, p99: null, max: null, source: null });
  });

  it('gauges: last seen, running pods and running containers (state running only)', () => {
    // 1.7000000123456e+09 s = 1700000012345.6 ms → 1700000012346; scrape at the file-name time
    expect(s.lastSeen).toMatchObject({ valueMs: 1700000012346, scrapeMs: T, ageSeconds: 0.654 });
    expect(s.lastSeen!.evidence.line).toBe(lineOf(text, 'kubelet_pleg_last_seen_seconds'));
    expect(s.runningPods).toBe(43);
    expect(s.runningContainers).toBe(87);
    expect(s.discardEvents).toBe(0);
    expect(s.frozenIntervals).toEqual([]);
  });

  it('cites the _count, +Inf and interval lines with file, line and time', () => {
    expect(s.relist.evidence.map((e) => e.text)).toEqual([
      'kubelet_pleg_relist_duration_seconds_count 5000',
      'kubelet_pleg_relist_duration_seconds_bucket{le="+Inf"} 5000',
      'kubelet_pleg_relist_interval_seconds_count 4999',
    ]);
    expect(s.relist.evidence[0]).toEqual({
      file: 'worker-1/metrics.txt',
      line: lineOf(text, 'kubelet_pleg_relist_duration_seconds_count'),
      ts: '2023-11-14T22:13:33.000Z',
      text: 'kubelet_pleg_relist_duration_seconds_count 5000',
    });
    const cs = s.operations[0]!;
    expect(cs.evidence.map((e) => e.text)).toContain('kubelet_runtime_operations_errors_total{operation_type="container_status"} 2');
    expect(cs.evidence.map((e) => e.text)).toContain(
      'kubelet_runtime_operations_duration_seconds_bucket{operation_type="container_status",le="+Inf"} 100',
    );
  });
});

describe('two 1.28 scrapes five minutes apart (window deltas)', () => {
  const T0 = Date.UTC(2024, 2, 11, 10, 0, 0);
  const T1 = T0 + 300_000;
  const first = kubelet128();
  // +300 relists: 0.005:0 0.01:+100 0.025:+150 0.05..1:+290 then +300 (10 above 1 s)
  const second = kubelet128({
    relist: [0, 1100, 4150, 5090, 5190, 5240, 5280, 5290, 5300, 5300, 5300, 5300],
    // list_podsandbox +300 calls: +100 ≤ 5 ms, +200 ≤ 12.5 ms, everything else unchanged
    ps: [7100, 8800, 9500, 9800, 9900, 9900, 9900, 9900, 9900, 9900, 9900, 9900, 9900, 9900, 9900],
    lastSeen: '1.7101513e+09',
  });
  const snaps = [
    ...toSnapshots(source(first, 'm-1000.txt', T0)),
    ...toSnapshots(source(second, 'm-1005.txt', T1)),
  ];
  const s = summarize([snaps[1]!, snaps[0]!]); // any order

  it('counts and quantiles are over the window', () => {
    expect(s).toMatchObject({ snapshots: 2, cumulative: false, windowStartMs: T0, windowEndMs: T1 });
    expect(s.relist.count).toBe(300);
    // delta buckets: 0.005:0 0.01:100 0.025:150 0.05:290 0.1:290 0.25:290 0.5:290 1:290 2.5:300 …
    // p50 rank 150 → (0.01, 0.025] holding 100..150 → 0.025 exactly
    expect(s.relist.duration!.p50).toBeCloseTo(0.025, 12);
    // p90 rank 270 → (0.025, 0.05] holding 150..290 → 0.025 + 0.025*(120/140)
    expect(s.relist.duration!.p90).toBeCloseTo(0.025 + 0.025 * (120 / 140), 12);
    // p99 rank 297 → (1, 2.5] holding 290..300 → 1 + 1.5*(7/10) = 2.05
    expect(s.relist.duration!.p99).toBeCloseTo(2.05, 12);
    expect(s.relist.duration!.max).toBe(2.5);
    const ps = s.operations.find((o) => o.operation === 'list_podsandbox')!;
    // +300 calls: 100 ≤ 5 ms, 300 ≤ 12.5 ms → p50 rank 150: 0.005 + 0.0075*(50/200) = 0.006875
    expect(ps.count).toBe(300);
    expect(ps.p50).toBeCloseTo(0.006875, 12);
    expect(ps.max).toBe(0.0125);
    // container_status did not move: an empty window, no quantiles
    const cs = s.operations.find((o) => o.operation === 'container_status')!;
    expect(cs).toMatchObject({ count: 0, errors: 0, p50: null, p90: null, p99: null, max: null });
  });

  it('last seen comes from the last snapshot; evidence spans first and last _count', () => {
    expect(s.lastSeen!.valueMs).toBe(1710151300000);
    expect(s.lastSeen!.ageSeconds).toBe((T1 - 1710151300000) / 1000);
    expect(s.relist.evidence.slice(0, 2).map((e) => [e.file, e.text])).toEqual([
      ['m-1000.txt', 'kubelet_pleg_relist_duration_seconds_count 5000'],
      ['m-1005.txt', 'kubelet_pleg_relist_duration_seconds_count 5300'],
    ]);
  });

  it('a frozen relist: same _count in both scrapes → count 0, no quantiles, one frozen interval', () => {
    const stuck = summarize([
      ...toSnapshots(source(first, 'a.txt', T0)),
      ...toSnapshots(source(kubelet128({ lastSeen: '1.7101512e+09' }), 'b.txt', T1)),
    ]);
    expect(stuck.relist.count).toBe(0);
    expect(stuck.relist.countFrozen).toBe(true);
    expect(stuck.relist.duration).toMatchObject({ p50: null, p90: null, p99: null, max: null });
    expect(stuck.frozenIntervals).toHaveLength(1);
    expect(stuck.frozenIntervals[0]).toMatchObject({ fromMs: T0, toMs: T1 });
    expect(stuck.frozenIntervals[0]!.evidence.map((e) => e.file)).toEqual(['a.txt', 'b.txt']);
  });

  it('the same scrape read twice is merged, not mistaken for a freeze', () => {
    const twice = summarize([...toSnapshots(source(first, 'a.txt', T0)), ...toSnapshots(source(first, 'copy/a.txt', T0))]);
    expect(twice.snapshots).toBe(1);
    expect(twice.frozenIntervals).toEqual([]);
    expect(twice.relist.count).toBe(5000);
  });
});

describe('kubelet 1.11 microsecond summaries', () => {
  const text = [
    '# HELP kubelet_pleg_relist_latency_microseconds Latency in microseconds for relisting pods in PLEG.',
    '# TYPE kubelet_pleg_relist_latency_microseconds summary',
    'kubelet_pleg_relist_latency_microseconds{quantile="0.5"} 12345',
    'kubelet_pleg_relist_latency_microseconds{quantile="0.9"} 45678',
    'kubelet_pleg_relist_latency_microseconds{quantile="0.99"} 1.234567e+06',
    'kubelet_pleg_relist_latency_microseconds_sum 3.4e+08',
    'kubelet_pleg_relist_latency_microseconds_count 23000',
    '# HELP kubelet_pleg_relist_interval_microseconds Interval in microseconds between relisting in PLEG.',
    '# TYPE kubelet_pleg_relist_interval_microseconds summary',
    'kubelet_pleg_relist_interval_microseconds{quantile="0.5"} 1.013e+06',
    'kubelet_pleg_relist_interval_microseconds{quantile="0.9"} 1.05e+06',
    'kubelet_pleg_relist_interval_microseconds{quantile="0.99"} 2.2e+06',
    'kubelet_pleg_relist_interval_microseconds_sum 2.4e+10',
    'kubelet_pleg_relist_interval_microseconds_count 22999',
    '# HELP kubelet_runtime_operations Cumulative number of runtime operations by operation type.',
    '# TYPE kubelet_runtime_operations counter',
    'kubelet_runtime_operations{operation_type="list_podsandbox"} 46000',
    'kubelet_runtime_operations{operation_type="version"} 7',
    '# HELP kubelet_runtime_operations_errors Cumulative number of runtime operation errors by operation type.',
    '# TYPE kubelet_runtime_operations_errors counter',
    'kubelet_runtime_operations_errors{operation_type="list_podsandbox"} 3',
    '# HELP kubelet_runtime_operations_latency_microseconds Latency in microseconds of runtime operations. Broken down by operation type.',
    '# TYPE kubelet_runtime_operations_latency_microseconds summary',
    'kubelet_runtime_operations_latency_microseconds{operation_type="list_podsandbox",quantile="0.5"} 2345',
    'kubelet_runtime_operations_latency_microseconds{operation_type="list_podsandbox",quantile="0.9"} 5678',
    'kubelet_runtime_operations_latency_microseconds{operation_type="list_podsandbox",quantile="0.99"} 1.2e+08',
    'kubelet_runtime_operations_latency_microseconds_sum{operation_type="list_podsandbox"} 4.1e+09',
    'kubelet_runtime_operations_latency_microseconds_count{operation_type="list_podsandbox"} 46000',
    'kubelet_runtime_operations_latency_microseconds{operation_type="version",quantile="0.5"} NaN',
    'kubelet_runtime_operations_latency_microseconds{operation_type="version",quantile="0.9"} NaN',
    'kubelet_runtime_operations_latency_microseconds{operation_type="version",quantile="0.99"} NaN',
    'kubelet_runtime_operations_latency_microseconds_sum{operation_type="version"} 8200',
    'kubelet_runtime_operations_latency_microseconds_count{operation_type="version"} 7',
    '# HELP kubelet_running_pod_count Number of pods currently running',
    '# TYPE kubelet_running_pod_count gauge',
    'kubelet_running_pod_count 43',
    '# HELP kubelet_running_container_count Number of containers currently running',
    '# TYPE kubelet_running_container_count gauge',
    'kubelet_running_container_count 91',
  ].join('\n');
  const s = summarize(toSnapshots(source(text, 'node3.metrics', null, 'node3')));

  it('converts µs to seconds and uses the summary quantiles', () => {
    expect(s.relist.source).toBe('summary');
    expect(s.relist.count).toBe(23000);
    expect(s.relist.duration!.p50).toBeCloseTo(0.012345, 12);
    expect(s.relist.duration!.p90).toBeCloseTo(0.045678, 12);
    expect(s.relist.duration!.p99).toBeCloseTo(1.234567, 12);
    // a summary knows no maximum; its largest quantile is a lower bound for it
    expect(s.relist.duration!.max).toBeCloseTo(1.234567, 12);
    expect(s.relist.duration!.maxIsLowerBound).toBe(true);
    expect(s.relist.interval!.p99).toBeCloseTo(2.2, 12);
    expect(s.lastSeen).toBeNull();
    expect(s.discardEvents).toBeNull();
    expect(s.windowStartMs).toBeNull();
  });

  it('old counters and summaries per operation; NaN quantiles (idle window) → null', () => {
    expect(s.operations).toHaveLength(2);
    expect(s.operations[0]).toMatchObject({ operation: 'list_podsandbox', source: 'summary', count: 46000, errors: 3 });
    expect(s.operations[0]!.p99).toBeCloseTo(120, 9);
    expect(s.operations[1]).toMatchObject({ operation: 'version', count: 7, errors: 0, p50: null, p99: null, max: null });
  });

  it('old pod and container gauges; node from the hint; cites the summary lines', () => {
    expect(s.runningPods).toBe(43);
    expect(s.runningContainers).toBe(91);
    expect(toSnapshots(source(text, 'node3.metrics', null, 'node3'))[0]!.node).toBe('node3');
    expect(s.relist.evidence.map((e) => e.line)).toEqual([
      lineOf(text, 'kubelet_pleg_relist_latency_microseconds_count'),
      lineOf(text, 'kubelet_pleg_relist_latency_microseconds{quantile="0.99"}'),
      lineOf(text, 'kubelet_pleg_relist_interval_microseconds_count'),
    ]);
    expect(s.relist.evidence[0]!.ts).toBeNull();
  });
});

describe('kubelet 1.14–1.16 exposing old and new names', () => {
  it('prefers the seconds histogram and the _total counters', () => {
    const text = [
      'kubelet_pleg_relist_latency_microseconds{quantile="0.99"} 9.9e+06',
      'kubelet_pleg_relist_latency_microseconds_count 10',
      ...buckets('kubelet_pleg_relist_duration_seconds', '', ['0.01', '+Inf'], [10, 10]),
      'kubelet_pleg_relist_duration_seconds_count 10',
      'kubelet_runtime_operations{operation_type="list_containers"} 10',
      'kubelet_runtime_operations_total{operation_type="list_containers"} 10',
      'kubelet_runtime_operations_errors{operation_type="list_containers"} 1',
      'kubelet_runtime_operations_errors_total{operation_type="list_containers"} 1',
      'kubelet_running_pod_count 5',
      'kubelet_running_pods 6',
      'kubelet_running_container_count{container_state="running"} 9',
      'kubelet_running_containers{container_state="running"} 8',
    ].join('\n');
    const s = summarize(toSnapshots(source(text, 'f', 1)));
    expect(s.relist.source).toBe('histogram');
    expect(s.relist.duration!.p99).toBeCloseTo(0.0099, 12); // 0.01 * 9.9/10, not 9.9 s from the summary
    expect(s.operations).toEqual([expect.objectContaining({ operation: 'list_containers', count: 10, errors: 1 })]);
    expect(s.runningPods).toBe(6);
    expect(s.runningContainers).toBe(8);
  });
});

describe('must-gather metrics.openmetrics (promtool tsdb dump-openmetrics)', () => {
  // promtool prints series by series, every sample of a series in time order, `%.3f` seconds, then # EOF.
  const A = 'instance="10.0.1.5:10250", job="kubelet", metrics_path="/metrics"';
  const B = 'instance="10.0.1.6:10250", job="kubelet", metrics_path="/metrics"';
  const tA = [1700000000, 1700000030, 1700000060, 1700000090].map((t) => t.toFixed(3));
  const tB = [1700000007.321, 1700000037.3, 1700000067.299, 1700000097.31].map((t) => t.toFixed(3));
  // Node A: relists until tA[1], then the _count stays at 1030 (a hard stall).
  const relistA: Record<string, number[]> = {
    '0.005': [100, 100, 100, 100],
    '0.01': [900, 920, 920, 920],
  };
  // Node B: the kubelet restarted between tB[1] and tB[2] (all counters reset).
  const relistB: Record<string, number[]> = {
    '0.005': [4000, 4010, 10, 20],
    '0.01': [4900, 4925, 15, 40],
  };
  const totalA = [1000, 1030, 1030, 1030];
  const totalB = [5000, 5030, 20, 50];
  const lines: string[] = [];
  const series = (name: string, labels: string, values: number[], ts: string[]): void => {
    values.forEach((v, i) => lines.push(`${name}{${labels}} ${v} ${ts[i]}`));
  };
  for (const [labels, table, total, ts] of [
    [A, relistA, totalA, tA],
    [B, relistB, totalB, tB],
  ] as const) {
    for (const le of DEF) {
      const v = table[le] ?? total;
      series('kubelet_pleg_relist_duration_seconds_bucket', `${labels}, le="${le}"`, v, ts);
    }
    series('kubelet_pleg_relist_duration_seconds_count', labels, total, ts);
  }
  series('kubelet_node_name', `${A}, node="worker-a"`, [1, 1, 1, 1], tA);
  series('kubelet_node_name', `${B}, node="worker-b"`, [1, 1, 1, 1], tB);
  series('kubelet_pleg_last_seen_seconds', A, [1700000000, 1700000029.5, 1700000029.5, 1700000029.5], tA);
  // Node A: list_podsandbox keeps being called; its first error appears at tA[2] (a lazily created series).
  series('kubelet_runtime_operations_total', `${A}, operation_type="list_podsandbox"`, [2000, 2060, 2061, 2062], tA);
  series('kubelet_runtime_operations_errors_total', `${A}, operation_type="list_podsandbox"`, [1, 2], tA.slice(2));
  lines.push('# EOF');
  const text = lines.join('\n');
  const parsed = parseMetricsText(text, { keep: isModelMetric });
  const snaps = toSnapshots({ file: 'monitoring/metrics/metrics.openmetrics', nodeHint: null, nameTime: null, parsed });
  const nodeA = snaps.filter((s) => s.node === 'worker-a');
  const nodeB = snaps.filter((s) => s.node === 'worker-b');

  it('splits by node (instance mapped through kubelet_node_name) and by scrape second', () => {
    expect(parsed.format).toBe('openmetrics');
    expect(parsed.errors).toEqual([]);
    expect(new Set(snaps.map((s) => s.node))).toEqual(new Set(['worker-a', 'worker-b']));
    expect(nodeA.map((s) => s.timeMs)).toEqual([1700000000000, 1700000030000, 1700000060000, 1700000090000]);
    // 1700000007.321 → rounded to the second
    expect(nodeB.map((s) => s.timeMs)).toEqual([1700000007000, 1700000037000, 1700000067000, 1700000097000]);
    // sorted by time across nodes
    expect(snaps.map((s) => s.timeMs)).toEqual([...snaps.map((s) => s.timeMs)].sort((a, b) => a! - b!));
  });

  it('node A: relist froze after its second scrape; the first error of a new series counts', () => {
    const s = summarize(nodeA);
    expect(s.snapshots).toBe(4);
    expect(s.relist.count).toBe(30);
    expect(s.relist.countFrozen).toBe(false);
    // delta buckets 0.005:0 0.01:20 0.025…+Inf:30
    // p50 rank 15 → 0.005 + 0.005*(15/20) = 0.00875; p90 rank 27 → 0.01 + 0.015*(7/10) = 0.0205
    // p99 rank 29.7 → 0.01 + 0.015*(9.7/10) = 0.02455
    expect(s.relist.duration!.p50).toBeCloseTo(0.00875, 12);
    expect(s.relist.duration!.p90).toBeCloseTo(0.0205, 12);
    expect(s.relist.duration!.p99).toBeCloseTo(0.02455, 12);
    expect(s.relist.duration!.max).toBe(0.025);
    expect(s.frozenIntervals).toHaveLength(1);
    expect(s.frozenIntervals[0]).toMatchObject({ fromMs: 1700000030000, toMs: 1700000090000 });
    expect(s.frozenIntervals[0]!.evidence.map((e) => e.ts)).toEqual(['2023-11-14T22:13:50.000Z', '2023-11-14T22:14:50.000Z']);
    expect(s.lastSeen).toMatchObject({ valueMs: 1700000029500, scrapeMs: 1700000090000, ageSeconds: 60.5 });
    expect(s.operations).toEqual([expect.objectContaining({ operation: 'list_podsandbox', count: 62, errors: 2 })]);
  });

  it('node B: a counter reset between scrapes adds the new value as that step’s increase', () => {
    const s = summarize(nodeB);
    // _count: 5000 → 5030 (+30) → 20 (reset: +20) → 50 (+30) = 80
    expect(s.relist.count).toBe(80);
    // buckets: 0.005: 10+10+10 = 30; 0.01: 25+15+25 = 65; the rest 80
    // p50 rank 40 → 0.005 + 0.005*(10/35); p90 rank 72 → 0.01 + 0.015*(7/15) = 0.017; p99 rank 79.2 → 0.0242
    expect(s.relist.duration!.p50).toBeCloseTo(0.005 + 0.005 * (10 / 35), 12);
    expect(s.relist.duration!.p90).toBeCloseTo(0.017, 12);
    expect(s.relist.duration!.p99).toBeCloseTo(0.0242, 12);
    expect(s.frozenIntervals).toEqual([]);
    expect(s.windowStartMs).toBe(1700000007000);
    expect(s.relist.evidence[0]!.ts).toBe('2023-11-14T22:13:27.321Z');
  });
});

describe('toSnapshots node identity', () => {
  it('instance without port when nothing maps it to a node name, else the hint, else null', () => {
    const parsed = parseMetricsText(
      ['kubelet_running_pods{instance="10.0.0.9:10250"} 3 1700000000000', 'kubelet_running_pods 4', 'kubelet_running_pods{instance="[fe80::1]:10250"} 5'].join('\n'),
    );
    const snaps = toSnapshots({ file: 'f', nodeHint: 'hint', nameTime: 1700000100000, parsed });
    expect(snaps.map((s) => [s.node, s.timeMs, s.samples.length])).toEqual([
      ['10.0.0.9', 1700000000000, 1],
      ['fe80::1', 1700000100000, 1],
      ['hint', 1700000100000, 1],
    ]);
    const bare = toSnapshots({ file: 'f', nodeHint: null, nameTime: null, parsed: parseMetricsText('kubelet_running_pods 4') });
    expect(bare).toEqual([{ node: null, timeMs: null, file: 'f', samples: [expect.objectContaining({ value: 4 })] }]);
  });

  it('a node label wins over instance', () => {
    const parsed = parseMetricsText('kubelet_running_pods{instance="10.0.0.9:10250",node="n1"} 3');
    expect(toSnapshots({ file: 'f', nodeHint: 'x', nameTime: null, parsed })[0]!.node).toBe('n1');
  });

  it('summarize of nothing modelled is empty, not an error', () => {
    const s = summarize(toSnapshots({ file: 'f', nodeHint: null, nameTime: null, parsed: parseMetricsText('go_goroutines 3') }));
    expect(s).toMatchObject({
      snapshots: 0,
      cumulative: false,
      relist: { duration: null, interval: null, count: null, countFrozen: false, source: null, evidence: [] },
      lastSeen: null,
      operations: [],
      runningPods: null,
    });
  });
});

describe('dockershim and CNI operations (≤1.23) as extras', () => {
  it('summarises kubelet_docker_operations_* and kubelet_network_plugin_operations_* per operation', () => {
    const text = [
      'kubelet_docker_operations{operation_type="inspect_container"} 900',
      'kubelet_docker_operations_errors{operation_type="inspect_container"} 4',
      'kubelet_docker_operations_latency_microseconds{operation_type="inspect_container",quantile="0.5"} 1500',
      'kubelet_docker_operations_latency_microseconds{operation_type="inspect_container",quantile="0.9"} 3000',
      'kubelet_docker_operations_latency_microseconds{operation_type="inspect_container",quantile="0.99"} 1.2e+08',
      'kubelet_docker_operations_latency_microseconds_count{operation_type="inspect_container"} 900',
      ...buckets('kubelet_network_plugin_operations_duration_seconds', 'operation_type="get_pod_network_status"', DEF, [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 4,
      ]),
      'kubelet_network_plugin_operations_duration_seconds_count{operation_type="get_pod_network_status"} 4',
      'kubelet_runtime_operations_total{operation_type="podsandbox_status"} 4',
    ].join('\n');
    const s = summarize(toSnapshots(source(text, 'f', null)));
    expect(s.operations.map((o) => o.operation)).toEqual(['podsandbox_status']);
    expect(s.extraOperations.map((o) => [o.family, o.operation, o.count, o.errors])).toEqual([
      ['docker', 'inspect_container', 900, 4],
      ['network_plugin', 'get_pod_network_status', 4, 0],
    ]);
    expect(s.extraOperations[0]!.p99).toBeCloseTo(120, 9);
    // 2 of 4 CNI status calls ≤ 10 s (all in (5, 10]), 2 beyond: p50 rank 2 → 5 + 5*(2/2) = 10; p90 → +Inf → 10
    expect(s.extraOperations[1]).toMatchObject({ p50: 10, p90: 10, max: 10, maxIsLowerBound: true });
  });
});
