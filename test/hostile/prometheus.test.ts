// Hostile Prometheus answers (issue 28, point 1): a loopback server (test/support/hostile-prometheus.ts) answers hugely,
// slowly, malformed, cut short and endlessly, next to a good kubelet log; `analyze` and `scan` keep the bounds of every
// hostile run (a minute, 200 MB, exit 0/1 with the good parts reported, no stack trace) and say what they cut.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetScan } from '../../src/contract/analysis.js';
import {
  cutShort, endless, endlessNulls, fleetSets, healthyAnswer, hugeMatrix, matrix, nodeOf, seriesList, startHostilePrometheus, streamJson, trickle, type HostileOptions,
} from '../support/hostile-prometheus.js';
import { analyzed, bounded, runAsync, warned } from './harness.js';
// @ts-expect-error -- plain .mjs generators, shared with people building an input by hand
import * as gen from './inputs.mjs';

const g = gen as { GOOD_NODE: string; write(dir: string, name: string, data: Buffer | string): string; goodLog(host?: string): string };
const T = 150_000;
const WINDOW = ['--since', '2024-03-11T09:00:00Z', '--until', '2024-03-11T11:00:00Z'];

let dir: string;
let logs: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'plegscope-hostile-prom-'));
  g.write(dir, 'logs/kubelet.log', g.goodLog());
  logs = join(dir, 'logs');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** analyze of the good log next to a server answering as `opts` says. */
async function analyzeWith(opts: HostileOptions, extra: string[] = []): Promise<Awaited<ReturnType<typeof runAsync>> & { requests: number }> {
  const srv = await startHostilePrometheus(opts);
  try {
    const r = await runAsync(dir, ['analyze', logs, '--prometheus', srv.url, '--format', 'json', ...extra]);
    return { ...r, requests: srv.total() };
  } finally {
    await srv.stop();
  }
}

describe('analyze next to a hostile Prometheus: the files\' report survives', () => {
  it('a 45 MiB answer of one series sampled every second: cut at the bound, with a warning', async () => {
    const r = await analyzeWith({ query: (p, res) => hugeMatrix(res, nodeOf(p) ?? g.GOOD_NODE, 45 << 20) });
    bounded(r, [0, 1]);
    expect(warned(analyzed(r, g.GOOD_NODE), /only the first \d+ points are read .*the rest of the answer \(from this line\) is not read \(plegscope's memory bound\)/)).toBe(true);
  }, T);

  it('the same for 4 --node besides the files: the run\'s point budget holds', async () => {
    const nodes = ['n1', 'n2', 'n3', 'n4'];
    const r = await analyzeWith({ nodes: [g.GOOD_NODE, ...nodes], query: (p, res) => hugeMatrix(res, nodeOf(p) ?? g.GOOD_NODE, 45 << 20) }, [...nodes.flatMap((n) => ['--node', n]), ...WINDOW]);
    bounded(r, [0, 1]);
    analyzed(r, g.GOOD_NODE);
  }, T);

  it('a series list of 200 000 series: read once, linearly', async () => {
    const sets = function* () {
      yield* fleetSets([g.GOOD_NODE]);
      for (let i = 0; i < 200_000; i++) yield { __name__: 'kubelet_running_pods', node: `node-${i}`, instance: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:10250`, job: 'kubelet' };
    };
    const r = await analyzeWith({ series: (_p, res) => seriesList(res, sets()) });
    bounded(r, [0, 1]);
    const a = analyzed(r, g.GOOD_NODE);
    expect(a.nodes.find((n) => n.name === g.GOOD_NODE)?.metricsFrom?.some((m) => m.kind === 'prometheus')).toBe(true);
  }, T);

  it('null in the series list, an object as a label value: skipped with a warning', async () => {
    const r = await analyzeWith({
      series: (_p, res) => seriesList(res, [null, { __name__: 'kubelet_running_pods', node: { evil: 1 }, instance: 'x:10250' }, 42, ...fleetSets([g.GOOD_NODE])]),
      query: (p, res) => streamJson(res, ['{"status":"success","data":{"resultType":"matrix","result":[null,', `{"metric":{"__name__":"kubelet_running_pods","node":{"a":[1]}},"values":[[1710147600,"3"]]},`, ...[...matrix([{ metric: { __name__: 'kubelet_running_pods', node: nodeOf(p) ?? g.GOOD_NODE }, points: [[1710147600, '12'], [1710147630, '12']] }])].join('').replace(/^.*?"result":\[/, '').split('')]),
    });
    bounded(r, [0, 1]);
    const a = analyzed(r, g.GOOD_NODE);
    expect(warned(a, /entries of its series list are not series \(null, a number, a list\): skipped/)).toBe(true);
    expect(warned(a, /series with a label that is not a string \(an object, a number, null\): skipped/)).toBe(true);
  }, T);

  it('a server that trickles a byte at a time, forever: the request\'s time bound, a warning', async () => {
    const r = await analyzeWith({ query: (_p, res) => trickle(res) }, ['--prometheus-timeout', '3']);
    bounded(r, [0, 1]);
    expect(warned(analyzed(r, g.GOOD_NODE), /no whole answer within 3 s \(--prometheus-timeout\)/)).toBe(true);
  }, T);

  it('an answer of points that never ends: read up to the bound, the rest not read, a warning', async () => {
    const r = await analyzeWith({ query: (p, res) => endless(res, nodeOf(p) ?? g.GOOD_NODE) });
    bounded(r, [0, 1]);
    expect(warned(analyzed(r, g.GOOD_NODE), /only the first \d+ points are read .*the rest of the answer \(from this line\) is not read/)).toBe(true);
  }, T);

  it('an answer of no points that never ends: stopped at the byte bound, a warning', async () => {
    const r = await analyzeWith({ query: (_p, res) => endlessNulls(res) });
    bounded(r, [0, 1]);
    expect(warned(analyzed(r, g.GOOD_NODE), /an answer larger than 48 MiB/)).toBe(true);
  }, T);

  it('answers cut short, and answers that are not JSON: warnings beside the report', async () => {
    let n = 0;
    const r = await analyzeWith({
      query: (p, res) => {
        if (n++ === 0) return healthyAnswer(p, res); // the scrape-interval probe
        if (n % 2 === 0) return cutShort(res, nodeOf(p) ?? g.GOOD_NODE, 3000);
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><body>502 Bad Gateway</body></html>');
      },
    });
    bounded(r, [0, 1]);
    const a = analyzed(r, g.GOOD_NODE);
    expect(warned(a, /cut short/), JSON.stringify(a.warnings)).toBe(true);
    expect(warned(a, /not JSON/), JSON.stringify(a.warnings)).toBe(true);
  }, T);
});

describe('scan: a budget for the whole scan', () => {
  const flagging = (nodes: string[], delayMs = 0): HostileOptions => ({
    nodes,
    query: async (p, res) => {
      const q = p.get('query') ?? '';
      if (q.includes('count_over_time')) {
        // Every kubelet flagged at three steps: thousands of stretches to read.
        const end = Number(p.get('end'));
        return streamJson(res, matrix(nodes.map((node) => ({ metric: { node }, points: [[end - 36_000, '9'], [end - 20_000, '9'], [end - 3600, '9']] as Array<[number, string]> }))));
      }
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      return healthyAnswer(p, res);
    },
  });
  const many = Array.from({ length: 3000 }, (_, i) => `node-${i}`);
  const scanArgs = (url: string) => ['scan', '--prometheus', url, '--since', '2024-03-10T09:00:00Z', '--until', '2024-03-11T09:00:00Z', '--format', 'json'];

  it('3000 flagged kubelets: stops at --max-requests, says so', async () => {
    const srv = await startHostilePrometheus(flagging(many));
    try {
      const r = await runAsync(dir, [...scanArgs(srv.url), '--max-requests', '200']);
      bounded(r, [0, 1]);
      expect(srv.total()).toBeLessThanOrEqual(200);
      const s = JSON.parse(r.stdout) as FleetScan;
      expect(s.nodesScanned).toBe(3000);
      expect(s.warnings.some((w) => /^scan stopped early: 200 requests made \(--max-requests\): no more asked; \d+ of \d+ flagged stretch/.test(w))).toBe(true);
    } finally {
      await srv.stop();
    }
  }, T);

  it('slow answers: stops at --timeout, says so', async () => {
    const srv = await startHostilePrometheus(flagging(many.slice(0, 500), 500));
    try {
      const r = await runAsync(dir, [...scanArgs(srv.url), '--timeout', '5s']);
      bounded(r, [0, 1]);
      expect(r.ms).toBeLessThan(30_000);
      const s = JSON.parse(r.stdout) as FleetScan;
      expect(s.warnings.some((w) => /^scan stopped early: .*\(--timeout\)/.test(w))).toBe(true);
    } finally {
      await srv.stop();
    }
  }, T);

  it('a series list of 400 000 series: no quadratic work', async () => {
    const sets = function* () {
      for (let i = 0; i < 400_000; i++) yield { __name__: i % 2 ? 'kubelet_pleg_last_seen_seconds' : 'kubelet_running_pods', node: `node-${i >> 1}`, instance: `n${i >> 1}:10250` };
    };
    const srv = await startHostilePrometheus({ series: (_p, res) => seriesList(res, sets()), query: (_p, res) => streamJson(res, matrix([])) });
    try {
      const r = await runAsync(dir, scanArgs(srv.url));
      bounded(r, [0, 1]);
      // Two series per kubelet: the list's first 200 000 series name 100 000 of them; the rest is said, not read.
      const s = JSON.parse(r.stdout) as FleetScan;
      expect(s.nodesScanned).toBe(100_000);
      expect(s.warnings).toContain('the kubelet series list: only its first 200000 series are read; 200000 more not read (plegscope\'s memory bound)');
    } finally {
      await srv.stop();
    }
  }, T);
});
