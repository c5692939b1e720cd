// The fast paths (chunk prefilter, on-demand needles, sampled lines, worker threads reading byte ranges) change nothing
// but speed: every shipped fixture, and a merged many-host log like must-gather's, gives the same report with them as
// without. PLEGSCOPE_SPLIT_BYTES=0 makes every plain log large enough to be cut into ranges, one per worker.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from './helpers/cli.js';

const FIX = join(__dirname, '..', 'fixtures');
const inputs = [join(FIX, 'sample-incident'), ...readdirSync(join(FIX, 'corpus'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => join(FIX, 'corpus', d.name))];

const strip = (s: string) => s.replace(/"generatedAt": "[^"]+"/, '');
const FAST = { PLEGSCOPE_WORKERS: '3', PLEGSCOPE_SPLIT_BYTES: '0' };
const SLOW = { PLEGSCOPE_WORKERS: '0' };

const tmp = mkdtempSync(join(tmpdir(), 'plegscope-fastpath-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** `oc adm node-logs` style: short-precise, UTC, 40 hosts interleaved; three stall for 10 minutes, one restarts. */
function mergedLog(): string {
  const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const p2 = (n: number) => String(n).padStart(2, '0');
  const stalled = new Set([3, 17, 31]);
  const out: string[] = [];
  const L = Date.UTC(2024, 2, 11, 0, 5, 0);
  for (let k = 0, t = Date.UTC(2024, 2, 11, 0, 0, 0); t < Date.UTC(2024, 2, 11, 0, 40, 0); k++, t += 83) {
    const i = k % 40;
    const pid = i === 9 && t > L + 600_000 ? 7777 : 3000 + i;
    const d = new Date(t);
    const hms = `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.${String(d.getUTCMilliseconds() * 1000).padStart(6, '0')}`;
    const head = `${MON[d.getUTCMonth()]} ${p2(d.getUTCDate())} ${hms} worker-${p2(i)} kubenswrapper[${pid}]:`;
    const klog = (sev: string, src: string) => `${sev}${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())} ${hms} ${String(pid).padStart(7)} ${src}]`;
    if (stalled.has(i) && t > L + 180_000 && t < L + 780_000 && k % 3 === 0) {
      const age = (t - L) / 1000;
      out.push(`${head} ${klog('E', 'kubelet.go:2392')} "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active ${Math.floor(age / 60)}m${(age % 60).toFixed(3)}s ago; threshold is 3m0s"`);
    } else if (stalled.has(i) && t > L + 120_000 && t < L + 780_000 && k % 11 === 0) {
      out.push(`${head} ${klog('E', 'remote_runtime.go:294')} "ListPodSandbox with filter from runtime service failed" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded" filter="&PodSandboxFilter{Id:,State:nil,LabelSelector:map[string]string{},}"`);
    } else if (k % 13 === 0) {
      out.push(`${head} ${klog('I', 'kubelet.go:2435')} "SyncLoop (PLEG): event for pod" pod="openshift-dns/dns-default-${i}" event={"ID":"0892e7d7","Type":"ContainerStarted","Data":"a13cf8c0"}`);
    } else {
      out.push(`${head} ${klog('I', 'prober.go:107')} "Probe succeeded" probeType="Readiness" pod="openshift-dns/dns-default-${i}" containerName="dns"`);
    }
  }
  return out.join('\n') + '\n';
}

describe('fast paths', () => {
  for (const p of inputs) {
    it(`${p.split('/').slice(-2).join('/')}: same JSON with the prefilter and threads as without`, () => {
      const fast = cli(['analyze', p, '--format', 'json', '--year', '2024'], { env: FAST });
      const slow = cli(['analyze', p, '--format', 'json', '--year', '2024', '--no-prefilter'], { env: SLOW });
      expect(fast.code).toBe(0);
      expect(strip(fast.stdout)).toBe(strip(slow.stdout));
    });
  }

  it('a merged 40-host log on a worker: same stalls, restarts and per-host windows as one pass of every line', () => {
    const file = join(tmp, 'kubelet_service.log');
    writeFileSync(file, mergedLog());
    const fast = cli(['analyze', file, '--format', 'json', '--year', '2024'], { env: FAST });
    const slow = cli(['analyze', file, '--format', 'json', '--year', '2024', '--no-prefilter'], { env: SLOW });
    expect(fast.code).toBe(0);
    expect(strip(fast.stdout)).toBe(strip(slow.stdout));
    const a = JSON.parse(fast.stdout) as { nodes: Array<{ name: string; stalls: unknown[]; restarts: unknown[]; window: { start: string; end: string } }> };
    expect(a.nodes).toHaveLength(40);
    // Every host logs until 00:40: each window ends with its host's last line (the tail is read again), not with the
    // last line that happened to be sampled.
    for (const n of a.nodes) expect(n.window.end >= '2024-03-11T00:39:56.000Z').toBe(true);
    for (const n of a.nodes) expect(n.window.start <= '2024-03-11T00:00:04.000Z').toBe(true);
    expect(a.nodes.filter((n) => n.stalls.length > 0).map((n) => n.name)).toEqual(['worker-03', 'worker-17', 'worker-31']);
    expect(a.nodes.find((n) => n.name === 'worker-09')?.restarts).toHaveLength(1);
  });
});
