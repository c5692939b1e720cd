// Issue 22.4: a node's answer does not depend on its neighbours. A node's folder analyzed alone and next to another
// node's folder gives the same year, the same evidence and the same cause.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Analysis } from '../src/contract/analysis.js';

const BIN = join(__dirname, '..', 'bin', 'plegscope');
const root = mkdtempSync(join(tmpdir(), 'neighbours-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(rel: string, text: string): void {
  const p = join(root, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
  // Copied off the nodes two years later: the files' dates say nothing of the incident's year.
  const later = new Date('2026-06-01T00:00:00Z');
  utimesSync(p, later, later);
}

write('node-a/kubelet.log', [
  'Mar 11 10:04:12 worker-a kubelet[2211]: E0311 10:04:12.000150    2211 kubelet.go:2373] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3m30s ago; threshold is 3m0s"',
  'Mar 11 10:05:12 worker-a kubelet[2211]: E0311 10:05:12.000150    2211 kubelet.go:2373] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 4m30s ago; threshold is 3m0s"',
  '',
].join('\n'));
write('node-a/dmesg.txt', '[Mon Mar 11 10:03:01 2024] Out of memory: Killed process 1234 (containerd) total-vm:1000kB, anon-rss:500kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:100kB oom_score_adj:-999\n');
write('node-b/kubelet.log', 'Mar 11 11:04:12 worker-b kubelet[2211]: I0311 11:04:12.000150    2211 kubelet.go:2204] "SyncLoop (PLEG): event for pod" pod="default/web-1"\n');

function analyze(...paths: string[]): Analysis {
  const p = spawnSync(process.execPath, [BIN, 'analyze', ...paths.map((x) => join(root, x)), '--format', 'json'], { encoding: 'utf8', timeout: 60_000 });
  expect([0, 1]).toContain(p.status);
  return JSON.parse(p.stdout) as Analysis;
}

describe('a node next to another node', () => {
  it('keeps its year (from its own dmesg -T), its kernel log and its cause', () => {
    const alone = analyze('node-a');
    const beside = analyze('node-a', 'node-b');
    const a = alone.nodes.find((n) => n.name === 'worker-a');
    const b = beside.nodes.find((n) => n.name === 'worker-a');
    expect(a?.stalls[0]?.lastRelistAt).toBe('2024-03-11T10:00:42.000Z');
    expect(b?.stalls[0]?.lastRelistAt).toBe(a?.stalls[0]?.lastRelistAt);
    expect(a?.verdict.primaryCause).toBe('memory_pressure');
    expect(b?.verdict.primaryCause).toBe(a?.verdict.primaryCause);
    expect(beside.inputs.flatMap((i) => i.artifacts).find((x) => x.path.endsWith('dmesg.txt'))?.node).toBe('worker-a');
  });
});
