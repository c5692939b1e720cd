// Odd times and one series sampled many times (issue 28, points 1 and 2): an absurd time next to a good log costs the
// line or the sample it is on, said with its file and line, never the report; a metrics file or a saved query answer
// of one series sampled hundreds of thousands of times stays within the memory bound.
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzed, bounded, runAsync } from './harness.js';
// @ts-expect-error -- plain .mjs generators, shared with people building an input by hand
import * as gen from './inputs.mjs';

const g = gen as { GOOD_NODE: string; write(dir: string, name: string, data: Buffer | string): string; goodLog(host?: string): string; kubeletLine(t: number, level: string, caller: string, payload: string, host?: string): string };
const T = 120_000;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'plegscope-hostile-times-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A folder with the good log and `name` holding `text`. */
function beside(folder: string, name: string, text: string): string {
  g.write(dir, `${folder}/kubelet.log`, g.goodLog());
  g.write(dir, `${folder}/${name}`, text);
  return join(dir, folder);
}

const unhealthy = (age: string) => `"Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active ${age} ago; threshold is 3m0s"`;

describe('one out-of-range time next to a good log', () => {
  const cases: Array<{ what: string; folder: () => string; file: string; warning: RegExp }> = [
    {
      what: 'a journal export entry at 9e21 µs',
      file: 'journal.json',
      folder: () => beside('t-journal', 'journal.json', `${JSON.stringify({ __REALTIME_TIMESTAMP: '9000000000000000000000', _HOSTNAME: 'bad-node', SYSLOG_IDENTIFIER: 'kubelet', MESSAGE: `E0311 10:04:00.000000 2817 kubelet.go:2373] ${unhealthy('3m4s')}` })}\n`),
      warning: /^1 line with a time no log means \(before 1970 or after 2199; first here\): read as undated lines$/,
    },
    {
      what: 'a metrics sample stamped 9e15 ms',
      file: 'metrics-20240311T101000Z.txt',
      folder: () => beside('t-metrics', 'metrics-20240311T101000Z.txt', 'kubelet_pleg_last_seen_seconds{node="bad-node"} 1710151632 9000000000000000\nkubelet_running_pods{node="bad-node"} 3 1710151800000\n'),
      warning: /1 sample stamped with a time no scrape means/,
    },
    {
      what: 'a saved query point at 1e13 s',
      file: 'query.json',
      folder: () => beside('t-query', 'query.json', JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: [{ metric: { __name__: 'kubelet_pleg_last_seen_seconds', node: 'bad-node' }, values: [[1e13, '1710151632'], [1710151800, '1710151632']] }] } })),
      warning: /^the answer: 1 point skipped, not \[time, "value"\] with a time between 1970 and 2199 \(first here\)$/,
    },
    {
      what: '"last seen active 99999999999h"',
      file: 'kubelet.log',
      folder: () => {
        g.write(dir, 't-age/kubelet.log', `${g.goodLog()}${g.kubeletLine(Date.UTC(2024, 2, 11, 10, 20), 'E', 'kubelet.go:2373', unhealthy('99999999999h0m0s'), 'bad-node')}\n`);
        return join(dir, 't-age');
      },
      warning: /^1 PLEG health line with an impossible age of the last relist \(before 1970, or longer than a Go duration; first here\): dropped$/,
    },
  ];
  for (const c of cases) {
    it(`${c.what}: a warning naming file and line, the good node reported`, async () => {
      const r = await runAsync(dir, ['analyze', c.folder(), '--format', 'json']);
      bounded(r, [0, 1]);
      const a = analyzed(r, g.GOOD_NODE);
      const w = a.warnings.find((x) => x.file === c.file && c.warning.test(x.message));
      expect(w, JSON.stringify(a.warnings)).toBeDefined();
      expect(w?.line).toBeGreaterThan(0);
    }, T);
  }
});

describe('one series sampled many times', () => {
  it('10 MiB of metrics text: the first samples read, the rest counted in one warning', async () => {
    const p = g.write(dir, 'one-series/metrics-dump.txt', '');
    g.write(dir, 'one-series/kubelet.log', g.goodLog());
    const fd = openSync(p, 'w');
    const t0 = Date.UTC(2024, 2, 11, 9, 0, 0);
    let size = 0;
    for (let i = 0; size < 10 << 20; i += 1000) {
      const lines: string[] = [];
      for (let k = i; k < i + 1000; k++) lines.push(`kubelet_pleg_last_seen_seconds{node="other"} ${t0 / 1000 + k} ${t0 + k * 1000}\n`);
      const s = lines.join('');
      size += s.length;
      writeSync(fd, s);
    }
    closeSync(fd);
    const r = await runAsync(dir, ['analyze', join(dir, 'one-series'), '--format', 'json']);
    bounded(r, [0, 1]);
    const a = analyzed(r, g.GOOD_NODE);
    expect(a.warnings.some((w) => w.file === 'metrics-dump.txt' && /^only the first 50000 samples are read \(100000 samples or 50000 sample times at most\); \d+ more samples \(from this line\) not read/.test(w.message))).toBe(true);
  }, T);

  it('47 MiB of saved query JSON: streamed, cut at the bound, one warning', async () => {
    const p = g.write(dir, 'one-query/query.json', '');
    g.write(dir, 'one-query/kubelet.log', g.goodLog());
    const fd = openSync(p, 'w');
    writeSync(fd, '{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"kubelet_pleg_last_seen_seconds","node":"other"},"values":[');
    const s0 = Date.UTC(2024, 2, 11, 9, 0, 0) / 1000;
    let size = 0;
    for (let i = 0; size < 47 << 20; i += 10_000) {
      const pts: string[] = [];
      for (let k = i; k < i + 10_000; k++) pts.push(`${k ? ',' : ''}[${s0 + k},"${s0 + k - 1}"]`);
      const s = pts.join('');
      size += s.length;
      writeSync(fd, s);
    }
    writeSync(fd, ']}]}}');
    closeSync(fd);
    const r = await runAsync(dir, ['analyze', join(dir, 'one-query'), '--format', 'json']);
    bounded(r, [0, 1]);
    const a = analyzed(r, g.GOOD_NODE);
    expect(a.warnings.filter((w) => w.file === 'query.json' && /^only the first 50000 points are read .*; the rest of the answer \(from this line\) is not read \(plegscope's memory bound\)/.test(w.message))).toHaveLength(1);
  }, T);
});
