// Issue 22.2: --redact touches names, never numbers. bin/plegscope on real-shaped lines (metric samples with
// exponents, 64-hex container IDs, pod UIDs, IPs, klog headers, Go durations, epoch values) in every format: the IDs,
// IPs and names are gone, every number the plain report prints is printed the same, in the same order.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';

const SAMPLE = path.join(__dirname, '..', '..', 'fixtures', 'sample-incident');
const CID = 'a13cf8c09114353463c0deac39ac541c9c774f8a34dc4b3b911b1832b9f5302e';
const UID = '0892e7d7-4185-4b43-ac7d-497027d06088';
const DE = 'rpc error: code = DeadlineExceeded desc = context deadline exceeded';
// Inside the sample's stall (10:09 → 10:21), so that the report cites them.
const EXTRA = [
  `Mar 11 10:14:02 worker-3 kubelet[2817]: E0311 10:14:02.348123    2817 remote_runtime.go:432] "ContainerStatus from runtime service failed" err="${DE}" containerID="${CID}"`,
  `Mar 11 10:14:03 worker-3 kubelet[2817]: E0311 10:14:03.500000    2817 pod_workers.go:1300] "Error syncing pod, skipping" err="failed to \\"KillPodSandbox\\" for \\"${UID}\\" with KillPodSandboxError: \\"${DE}\\"" pod="payments-prod/checkout-api-7d9f8c6b5-x2x9z" podUID="${UID}"`,
  `Mar 11 10:14:04 worker-3 kubelet[2817]: E0311 10:14:04.000000    2817 kubelet_node_status.go:544] "Error updating node status, will retry" err="error getting node \\"worker-3\\": Get \\"https://10.42.7.1:6443/api/v1/nodes/worker-3?timeout=10s\\": dial tcp 10.42.7.1:6443: i/o timeout"`,
  `Mar 11 10:14:05 worker-3 kubelet[2817]: I0311 10:14:05.100000    2817 generic.go:205] "GenericPLEG: Relisting" took="3m12.345s" since=1710151632 epochMs=1710151632348`,
];
const FORMATS = ['text', 'json', 'markdown', 'junit', 'html'] as const;
const PSEUDONYM = /\b(?:node|host|domain|ip|ns|pod|uid|id)-\d+\b/g;
/** Numbers as reports print them: integers, decimals, exponents, clock times, Go durations. */
const NUMBER = /\d+(?:[.:]\d+)*(?:[eE][+-]?\d+)?/g;

describe('--redact keeps every number', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plegscope-redact-'));
    for (const f of fs.readdirSync(SAMPLE)) fs.copyFileSync(path.join(SAMPLE, f), path.join(dir, f));
    const lines = fs.readFileSync(path.join(dir, 'kubelet.log'), 'utf8').split('\n').filter(Boolean);
    fs.writeFileSync(path.join(dir, 'kubelet.log'), [...lines, ...EXTRA].sort().join('\n') + '\n');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it.each(FORMATS)('%s: the IDs, IPs and names are gone, the numbers are as in the plain report', (format) => {
    const plain = cli(['analyze', '.', '--format', format, '--evidence', 'all'], { cwd: dir });
    const red = cli(['analyze', '.', '--format', format, '--evidence', 'all', '--redact', '--redact-map', 'map.json'], { cwd: dir });
    expect(plain.code, plain.stderr).toBe(0);
    expect(red.code, red.stderr).toBe(0);
    const map = JSON.parse(fs.readFileSync(path.join(dir, 'map.json'), 'utf8')) as { entries: Array<{ original: string; pseudonym: string }> };
    fs.rmSync(path.join(dir, 'map.json'));
    for (const secret of [CID, UID, '10.42.7.1', 'worker-3', 'payments-prod', 'checkout-api-7d9f8c6b5-x2x9z']) expect(red.stdout, secret).not.toContain(secret);
    // What the plain report printed of the real-shaped numbers is printed the same.
    for (const n of ['1.710151632348e+09', '3m12.345s', '10:14:02.348123    2817 remote_runtime.go:432]', '1710151632348', 'since=1710151632']) {
      if (plain.stdout.includes(n)) expect(red.stdout, n).toContain(n);
    }
    expect(red.stdout).not.toMatch(/\d\.id-\d/);
    // Every number, in order, once the names (originals there, pseudonyms here) are taken out. The JSON's generatedAt
    // and the HTML's are the run's clock, its anchors (`#node-1`) the page's own: not compared.
    const originals = map.entries.map((e) => e.original).sort((a, b) => b.length - a.length);
    const strip = (s: string, names: string[]) => {
      let out = s.replace(/"generatedAt": "[^"]*"|generated [^<\n]*|(?:href="#|id=")[^"]*"/g, '');
      for (const o of names) out = out.split(o).join(' ');
      return out;
    };
    const numbersOf = (s: string) => s.match(NUMBER) ?? [];
    const a = numbersOf(strip(plain.stdout, originals));
    const b = numbersOf(strip(red.stdout, []).replace(PSEUDONYM, ' '));
    expect(b).toEqual(a);
    expect(a.length).toBeGreaterThan(50);
  });

  it('json: every numeric field is the same', () => {
    const plain = JSON.parse(cli(['analyze', '.', '--format', 'json'], { cwd: dir }).stdout) as unknown;
    const red = JSON.parse(cli(['analyze', '.', '--format', 'json', '--redact'], { cwd: dir }).stdout) as unknown;
    const nums = (v: unknown, out: number[] = []): number[] => {
      if (typeof v === 'number') out.push(v);
      else if (Array.isArray(v)) for (const x of v) nums(x, out);
      else if (v && typeof v === 'object') for (const x of Object.values(v)) nums(x, out);
      return out;
    };
    expect(nums(red)).toEqual(nums(plain));
  });
});
