// How the views write latencies (src/report/latency.ts): the bucket of a quantile, the lower bound beyond the last one,
// a summary's exact value; the operations table fitted to a width, grouped by window, idle rows counted.
import { describe, expect, it } from 'vitest';
import type { Latency, NodeReport, OperationStats } from '../../src/contract/analysis.js';
import { bucketRange, latencyCell, latencyLine, operationsTable, operationsView } from '../../src/report/latency.js';
import { shortSeconds } from '../../src/util/latency.js';

const lat = (o: Partial<Latency>): Latency => ({
  source: 'histogram', count: 100, meanSeconds: 0.0142, beyond: { bound: 10, count: 0 }, p50: null, p90: null, p99: null, max: null, quantileWindow: 'metrics', ...o,
});

function op(operation: string, o: Partial<OperationStats>): OperationStats {
  return { operation, source: 'metrics', count: 0, errors: 0, timeouts: 0, p50Seconds: null, p90Seconds: null, p99Seconds: null, ...o };
}

function node(ops: OperationStats[], withLog: boolean): NodeReport {
  return {
    name: 'w', kubeletVersion: null, runtime: null, window: { start: '2024-03-11T08:00:00.000Z', end: '2024-03-11T11:00:00.000Z' },
    verdict: { plegUnhealthy: false, primaryCause: null, confidence: 0 }, stalls: [], notReady: [], restarts: [],
    relist: { source: 'none', durationSeconds: null, intervalSeconds: null }, operations: ops, pods: { running: null, containers: null },
    findings: [], ruledOut: [], coverage: { from: null, to: null, truncated: false, roles: withLog ? ['kubelet-log', 'metrics'] : ['metrics'] }, gaps: [],
    metricsWindow: { from: '2024-03-11T10:10:00.000Z', to: '2024-03-11T10:20:00.000Z', scrapes: 2, cumulative: false },
  };
}

describe('figures', () => {
  it('bounds to 3 significant digits in the unit that reads best', () => {
    expect([119.20928955078125, 0.0125, 0.48828125, 10, 2.5, 0.0005, 0.999999].map((x) => shortSeconds(x))).toEqual(['119s', '12.5ms', '488ms', '10s', '2.5s', '500µs', '1s']);
    expect(shortSeconds(119.2, true)).toBe('119 s');
  });

  it('a bucket as a range, one unit when both bounds share it; the first bucket as "≤"', () => {
    expect(bucketRange(119.20928955078125, 298.0232238769531)).toBe('119–298s');
    expect(bucketRange(0.48828125, 1.220703125)).toBe('488ms–1.22s');
    expect(bucketRange(0, 0.005)).toBe('≤5ms');
  });

  it('cells: the bucket, "> bound" beyond the last, a summary as it is; "(k of n)" in the wide style', () => {
    const l = lat({
      count: 5, beyond: { bound: 10, count: 5 },
      p50: { from: 10, to: null },
      p99: { from: 0.1, to: 0.25 },
    });
    expect(latencyCell(l, 'p50', 10, 'compact')).toBe('> 10s');
    expect(latencyCell(l, 'p50', 10, 'wide')).toBe('> 10s (5 of 5)');
    expect(latencyCell(l, 'p99', 0.2, 'compact')).toBe('100–250ms');
    expect(latencyCell(l, 'p99', 0.2, 'wide')).toBe('(100ms, 250ms] ≈200ms');
    expect(latencyCell(lat({ source: 'summary', beyond: null, quantileWindow: 'exporter' }), 'p99', 4.2, 'compact')).toBe('4.2s');
    // An analysis written before `latency` existed: the plain number.
    expect(latencyCell(undefined, 'p99', 0.25, 'compact')).toBe('250ms');
  });

  it('a distribution in a line: quantiles that read alike said once, the beyond share after them', () => {
    const l = lat({
      count: 120, meanSeconds: 1.5, beyond: { bound: 10, count: 3 },
      p50: { from: 0.005, to: 0.01 },
      p90: { from: 5, to: 10 },
      p99: { from: 10, to: null },
      max: { from: 10, to: null },
    });
    expect(latencyLine(l, { p50: 0.0091, p90: 8.2, p99: 10, max: 10 }, 'relist')).toBe('mean 1.5s · p50 (5ms, 10ms] ≈9.1ms · p90 (5s, 10s] ≈8.2s · p99 max > 10s (3 of 120 beyond the last bucket)');
    expect(latencyLine(lat({ count: 0, meanSeconds: null }), null, 'relist')).toBe('no relist finished in the window');
  });
});

describe('the operations table', () => {
  const busy = op('list_podsandbox', {
    source: 'both', count: 5, errors: 5, timeouts: 8, logErrors: 8, p50Seconds: 208.6, p90Seconds: 280.1, p99Seconds: 296.2,
    latency: lat({
      count: 5, meanSeconds: 120, beyond: { bound: 745.0580596923828, count: 0 },
      p50: { from: 119.20928955078125, to: 298.0232238769531 },
      p90: { from: 119.20928955078125, to: 298.0232238769531 },
      p99: { from: 119.20928955078125, to: 298.0232238769531 },
    }),
  });
  const fromLog = op('podsandbox_status', { source: 'logs', count: null, errors: 3, timeouts: 2, logErrors: 3, latency: null });
  const idle = op('image_status', { logErrors: 0, latency: lat({ count: 0, meanSeconds: null }) });

  it('leaves idle operations out and counts them; the log\'s numbers right of │, the metrics\' left', () => {
    const t = operationsTable(node([idle, busy, fromLog], true), 'UTC', 120)!;
    expect(t.rows.map((r) => r.op.operation)).toEqual(['list_podsandbox', 'podsandbox_status']);
    expect(t.head).toMatch(/^operation +calls +errors +mean +p50 +p90 +p99 │ errors +timeouts$/);
    expect(t.rows[0]!.line).toMatch(/^list_podsandbox +5 +5 +120s +119–298s +119–298s +119–298s │ +8 +8$/);
    // A row from the logs alone has no metrics numbers: its errors are the log's, right of the bar.
    expect(t.rows[1]!.line).toMatch(/^podsandbox_status +— +— +— +— +— +— │ +3 +2$/);
    expect(t.groups).toMatch(/^metrics 2024-03-11 10:10:00 \+00:00 → 10:20:00 +│ whole log$/);
    expect(t.groups!.indexOf('│')).toBe(t.head.indexOf('│'));
    expect(t.notes).toContain('1 operation with no call, error or timeout not shown (--format json lists them)');
  });

  it('a 1.14–1.19 kubelet\'s 10 s buckets: "> 10s" cells, and the legend says which calls lay beyond', () => {
    const over = op('list_containers', {
      count: 4, errors: 4, p50Seconds: 10, p90Seconds: 10, p99Seconds: 10,
      latency: lat({
        count: 4, meanSeconds: 120, beyond: { bound: 10, count: 3 },
        p50: { from: 10, to: null },
        p90: { from: 10, to: null },
        p99: { from: 10, to: null },
      }),
    });
    const t = operationsTable(node([over], false), 'UTC', 76)!;
    expect(t.rows[0]!.line).toMatch(/^list_containers +4 +4 +120s +> 10s +> 10s +> 10s$/);
    expect(t.notes).toContain('> 10s: beyond the histogram\'s last bucket, only a lower bound (list_containers 3 of 4 calls)');
    expect(operationsView(node([over], false), 'UTC', 'wide')!.columns.find((c) => c.head === 'p99')!.cell(over)).toBe('> 10s (3 of 4)');
  });

  it('drops p90, then p50, to fit, and says so', () => {
    const t = operationsTable(node([busy], true), 'UTC', 62)!;
    expect(t.head).toMatch(/^operation +calls +errors +mean +p99 │/);
    expect(t.notes).toContain('p50 and p90 left out at this width (--format json has them)');
    expect(Math.max(t.head.length, ...t.rows.map((r) => r.line.length))).toBeLessThanOrEqual(62);
  });

  it('no log columns without a log; an operation is idle only when nothing happened in either window', () => {
    const { logErrors: _l, ...metricsOnly } = { ...busy, source: 'metrics' as const, timeouts: 0 };
    const t = operationsTable(node([metricsOnly], false), 'UTC', 120)!;
    expect(t.head).not.toContain('│');
    expect(t.head).not.toContain('timeouts');
    expect(operationsView(node([op('version', { count: 0, errors: 0, timeouts: 0, logErrors: 1 })], true), 'UTC', 'wide')!.rows).toHaveLength(1);
  });
});
