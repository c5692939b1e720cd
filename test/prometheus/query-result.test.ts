// Saved Prometheus answers: the parsers (real-shaped answers, as curl and promtool print them) and their sniffing.
import { describe, expect, it } from 'vitest';
import { parseQueryJson, parseSeries, QueryTextParser, seriesText } from '../../src/parse/metrics/query-result.js';
import { sniff } from '../../src/sources/files/sniff.js';
import { kubeletTargets, planWindow, scrapeInterval } from '../../src/model/prom-plan.js';
import { parseWhen } from '../../src/cli/scan-command.js';

const MATRIX = JSON.stringify({
  status: 'success',
  data: {
    resultType: 'matrix',
    result: [
      { metric: { __name__: 'kubelet_pleg_last_seen_seconds', instance: '10.0.0.12:10250', job: 'kubelet', node: 'worker-2' }, values: [[1710151800, '1710151632'], [1710151830.5, '1710151632']] },
      { metric: { __name__: 'kubelet_running_pods', node: 'worker-2' }, values: [[1710151800, '30']] },
      { metric: { __name__: 'go_goroutines', node: 'worker-2' }, values: [[1710151800, '300']] },
    ],
  },
});

const TEXT = [
  'kubelet_pleg_last_seen_seconds{instance="10.0.0.12:10250", job="kubelet", node="worker-2"} =>',
  '1710151632 @[1710151800]',
  '1710151632 @[1710151830.5]',
  'kubelet_running_pods{node="worker-2"} =>',
  '30 @[1710151800]',
  'go_goroutines{node="worker-2"} =>',
  '300 @[1710151800]',
].join('\n') + '\n';

function parseText(text: string) {
  const p = new QueryTextParser((n) => n.startsWith('kubelet_'));
  text.split('\n').forEach((l, i) => p.push(l, i + 1));
  return p.finish();
}

describe('query answers → samples', () => {
  it('a query_range answer and its promtool text give the same samples; lines are the text rendering', () => {
    const j = parseQueryJson(MATRIX, (n) => n.startsWith('kubelet_'));
    const t = parseText(TEXT);
    const strip = (xs: typeof j.samples) => xs.map((s) => ({ name: s.name, labels: { ...s.labels }, value: s.value, tsMs: s.tsMs, line: s.line, text: s.text }));
    expect(strip(j.samples)).toEqual(strip(t.samples));
    expect(j.samples.map((s) => s.line)).toEqual([2, 3, 5]);
    expect(j.samples[1]!.tsMs).toBe(1710151830500);
    expect(j.samples[0]!.text).toBe('kubelet_pleg_last_seen_seconds{instance="10.0.0.12:10250", job="kubelet", node="worker-2"} => 1710151632 @[1710151800]');
    expect(j.points).toBe(4);
    expect(j.errors).toEqual([]);
  });

  it('instant vectors, one line per sample, with Go-quoted label values', () => {
    const t = parseText('kubelet_running_pods{node="we\\"ird\\\\name", zone="a\\u00e9"} => 12 @[1710151800.25]\n');
    expect(t.samples).toHaveLength(1);
    expect(t.samples[0]!.labels).toEqual({ node: 'we"ird\\name', zone: 'aé' });
    expect(t.samples[0]!.value).toBe(12);
    expect(parseQueryJson(JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [{ metric: { __name__: 'kubelet_running_pods' }, value: [1710151800, '12'] }] } })).samples[0]!.value).toBe(12);
  });

  it('says what it could not read: an error answer, series without a name, stray lines', () => {
    expect(parseQueryJson('{"status":"error","errorType":"bad_data","error":"parse error"}').errors[0]!.message).toMatch(/an error: parse error/);
    expect(parseQueryJson(JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: [{ metric: { le: '1' }, values: [[1, '2']] }] } })).errors[0]!.message).toMatch(/without a metric name/);
    expect(parseText('kubelet_running_pods{node="a"} =>\n30 @[1710151800]\nnot a line\n').errors[0]).toEqual({ line: 3, message: '1 line(s) that are neither `series =>` nor `value @[time]` skipped' });
  });

  it('series text round-trips through its parser', () => {
    const labels = { __name__: 'kubelet_runtime_operations_total', operation_type: 'list_podsandbox', node: 'a"b' };
    expect(parseSeries(seriesText(labels))).toEqual(labels);
  });
});

describe('sniffing saved answers', () => {
  it('recognises the JSON of query and query_range, and promtool text, by content', () => {
    expect(sniff(Buffer.from(MATRIX), 'answer.txt')).toEqual({ role: 'metrics', format: 'prometheus-query-json' });
    expect(sniff(Buffer.from(JSON.stringify(JSON.parse(MATRIX), null, 2)), 'x')).toEqual({ role: 'metrics', format: 'prometheus-query-json' });
    expect(sniff(Buffer.from(TEXT), 'pleg.log')).toEqual({ role: 'metrics', format: 'prometheus-query-text' });
    expect(sniff(Buffer.from('kubelet_running_pods{node="a"} => 30 @[1710151800]\nkubelet_running_pods{node="b"} => 31 @[1710151800]\n'), 'x')).toEqual({ role: 'metrics', format: 'prometheus-query-text' });
    // Not answers: a Kubernetes object, exposition text.
    expect(sniff(Buffer.from('{"apiVersion":"v1","kind":"Pod","metadata":{}}'), 'x').format).not.toMatch(/^prometheus-query/);
    expect(sniff(Buffer.from('# TYPE kubelet_running_pods gauge\nkubelet_running_pods 30\n'), 'x').format).toBe('prometheus-text');
  });
});

describe('node identity and windows', () => {
  it('names a kubelet by node label, kubernetes_io_hostname, kubelet_node_name or kube_node_info for an IP:port instance', () => {
    const t = kubeletTargets([
      { __name__: 'kubelet_running_pods', instance: '10.0.0.11:10250', job: 'kubelet', node: 'worker-1' },
      { __name__: 'kubelet_running_pods', instance: 'worker-4', kubernetes_io_hostname: 'worker-4' },
      { __name__: 'kubelet_running_pods', instance: '10.0.0.5:10250', job: 'kubelet' },
      { __name__: 'kubelet_node_name', instance: '10.0.0.5:10250', job: 'kubelet', node: 'master-0' },
      { __name__: 'kubelet_running_pod_count', instance: '10.0.0.13:10250', job: 'kubelet' },
      { __name__: 'kubelet_running_pod_count', instance: '[fd00::7]:10250', job: 'kubelet' },
    ], [{ __name__: 'kube_node_info', node: 'worker-3', internal_ip: '10.0.0.13' }]);
    expect(t.map((x) => [x.name, x.idLabel, x.idValue, x.via])).toEqual([
      ['fd00::7', 'instance', '[fd00::7]:10250', 'instance'],
      ['master-0', 'instance', '10.0.0.5:10250', 'kubelet_node_name'],
      ['worker-1', 'node', 'worker-1', 'node label'],
      ['worker-3', 'instance', '10.0.0.13:10250', 'kube_node_info'],
      ['worker-4', 'kubernetes_io_hostname', 'worker-4', 'kubernetes_io_hostname label'],
    ]);
  });

  it('steps: PLEG at the scrape interval, the rest on the same grid, window edges on both', () => {
    const p = planWindow([Date.parse('2024-03-11T09:37:12Z'), Date.parse('2024-03-11T10:51:27Z')], 30);
    expect(p.stepS).toBe(30);
    expect(p.coarseS % p.stepS).toBe(0);
    expect((p.endMs - p.startMs) % (p.coarseS * 1000)).toBe(0);
    expect(p.startMs).toBeLessThanOrEqual(Date.parse('2024-03-11T09:37:12Z'));
    expect(p.endMs).toBeGreaterThanOrEqual(Date.parse('2024-03-11T10:51:27Z'));
    // a week at 60 s is read at a coarser step
    expect(planWindow([0, 7 * 86_400_000], 60).stepS).toBeGreaterThan(60);
    expect(scrapeInterval([[0, 30_000, 60_100, 90_000]])).toBe(30);
  });

  it('--since/--until: durations back from now and RFC 3339 times', () => {
    const now = Date.parse('2024-03-18T12:00:00Z');
    expect(parseWhen('7d', now, '--since')).toBe(Date.parse('2024-03-11T12:00:00Z'));
    expect(parseWhen('1h30m', now, '--since')).toBe(Date.parse('2024-03-18T10:30:00Z'));
    expect(parseWhen('2024-03-11T10:00:00+01:00', now, '--since')).toBe(Date.parse('2024-03-11T09:00:00Z'));
    expect(() => parseWhen('2024-03-11', now, '--since')).toThrow(/RFC 3339/);
  });
});

describe('saved answers name their node', () => {
  it('by node, kubernetes_io_hostname, or an instance kubelet_node_name maps', async () => {
    const { toSnapshots } = await import('../../src/model/metrics.js');
    const parsed = parseQueryJson(JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [
      { metric: { __name__: 'kubelet_running_pods', instance: 'worker-4', kubernetes_io_hostname: 'worker-4' }, value: [1710151800, '12'] },
      { metric: { __name__: 'kubelet_running_pods', instance: '10.0.0.5:10250' }, value: [1710151800, '7'] },
      { metric: { __name__: 'kubelet_node_name', instance: '10.0.0.5:10250', node: 'master-0' }, value: [1710151800, '1'] },
    ] } }));
    const nodes = toSnapshots({ file: 'a.json', nodeHint: null, nameTime: null, parsed }).map((s) => s.node);
    expect(nodes.sort()).toEqual(['master-0', 'worker-4']);
  });
});

describe('query windows (segments)', () => {
  it('no increase is counted across the gap between two windows of one node', async () => {
    const { summarize, toSnapshots } = await import('../../src/model/metrics.js');
    const win = (seg: number, pts: Array<[number, string]>) => toSnapshots({
      file: `w${seg}`, nodeHint: 'n', nameTime: null, segment: seg,
      parsed: parseQueryJson(JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: [
        { metric: { __name__: 'kubelet_runtime_operations_errors_total', node: 'n', operation_type: 'status' }, values: pts },
        { metric: { __name__: 'kubelet_runtime_operations_total', node: 'n', operation_type: 'status' }, values: pts.map(([t, v]) => [t, String(Number(v) * 10)]) },
      ] } })),
    });
    const snaps = [...win(0, [[1000, '10'], [1060, '20']]), ...win(1, [[9000, '100'], [9060, '110']])];
    const op = summarize(snaps).operations.find((o) => o.operation === 'status')!;
    expect(op.errors).toBe(20);
    expect(op.count).toBe(200);
    // the same points as one window: the gap counts
    const one = [...win(0, [[1000, '10'], [1060, '20']]), ...win(0, [[9000, '100'], [9060, '110']])];
    expect(summarize(one).operations.find((o) => o.operation === 'status')!.errors).toBe(100);
  });
});
