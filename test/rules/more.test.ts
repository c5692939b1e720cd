// The remaining rules (metrics-driven, warnings, start-up) and the goroutine and kernel-time inputs they read.
import { describe, expect, it } from 'vitest';
import { at, kl, jl, lines, nodeOf, skipLines, syncLoopEvent } from '../helpers/scenario.js';
import { GoroutineParser } from '../../src/parse/goroutines.js';

const L = at('10:00:00');
const DE = 'rpc error: code = DeadlineExceeded desc = context deadline exceeded';

function metrics(ts: number, o: { exited?: number; discard?: number; relistBuckets?: number[]; relistCount?: number } = {}): string {
  const out = ['# TYPE kubelet_running_containers gauge',
    `kubelet_running_containers{container_state="running"} 80 ${ts}`,
    `kubelet_running_containers{container_state="exited"} ${o.exited ?? 10} ${ts}`,
    '# TYPE kubelet_running_pods gauge', `kubelet_running_pods 30 ${ts}`];
  if (o.discard !== undefined) out.push('# TYPE kubelet_pleg_discard_events counter', `kubelet_pleg_discard_events ${o.discard} ${ts}`);
  if (o.relistBuckets) {
    const les = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'];
    out.push('# TYPE kubelet_pleg_relist_duration_seconds histogram');
    les.forEach((le, i) => out.push(`kubelet_pleg_relist_duration_seconds_bucket{le="${le}"} ${o.relistBuckets![i]} ${ts}`));
    out.push(`kubelet_pleg_relist_duration_seconds_count ${o.relistCount} ${ts}`, `kubelet_pleg_relist_duration_seconds_sum 1 ${ts}`);
  }
  return out.join('\n') + '\n';
}

const stall = () => [kl(at('09:00:00'), 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.22.9"'), ...skipLines(L, L + 400_000), syncLoopEvent(L + 402_000), kl(at('11:00:00'), 'I', 'prober.go:107', '"Probe failed"')];

describe('metrics-driven rules', () => {
  it('thousands of exited containers', async () => {
    const n = await nodeOf({ 'kubelet.log': lines(stall()), 'm.prom': metrics(L + 200_000, { exited: 4200 }) });
    expect(n.verdict.primaryCause).toBe('exited_containers');
  });
  it('negative: a few exited containers', async () => {
    const n = await nodeOf({ 'kubelet.log': lines(stall()), 'm.prom': metrics(L + 200_000, { exited: 12 }) });
    expect(n.findings.some((f) => f.cause === 'exited_containers')).toBe(false);
  });
  it('PLEG discarded events (counter in metrics)', async () => {
    const n = await nodeOf({ 'kubelet.log': lines(stall()), 'a.prom': metrics(L - 60_000, { discard: 0 }), 'b.prom': metrics(L + 300_000, { discard: 1400 }) });
    expect(n.verdict.primaryCause).toBe('event_channel_full');
  });
  it('relist p99 high without a stall is a low-severity warning; low p99 is not', async () => {
    const quiet = [kl(at('09:00:00'), 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.22.9"'), syncLoopEvent(at('10:00:00'))];
    const slow = await nodeOf({ 'kubelet.log': lines(quiet), 'm.prom': metrics(at('10:00:00'), { relistBuckets: [0, 0, 0, 0, 10, 20, 30, 40, 50, 60, 70, 100], relistCount: 100 }) });
    expect(slow.verdict.plegUnhealthy).toBe(false);
    expect(slow.findings.map((f) => f.ruleId)).toContain('relist-slow-warning');
    const fast = await nodeOf({ 'kubelet.log': lines(quiet), 'm.prom': metrics(at('10:00:00'), { relistBuckets: [90, 95, 99, 100, 100, 100, 100, 100, 100, 100, 100, 100], relistCount: 100 }) });
    expect(fast.findings.map((f) => f.ruleId)).not.toContain('relist-slow-warning');
  });
});

describe('warnings and start-up', () => {
  it('CRI timeouts without a stall are a warning, not a verdict', async () => {
    const n = await nodeOf({ 'kubelet.log': lines([syncLoopEvent(L), kl(L + 1000, 'E', 'log.go:32', `"ContainerStatus from runtime service failed" err="${DE}" containerID="abc123abc123"`), syncLoopEvent(L + 60_000)]) });
    expect(n.verdict).toMatchObject({ plegUnhealthy: false, primaryCause: null });
    expect(n.findings.map((f) => f.ruleId)).toEqual(['sign-runtime-hang']);
  });
  it('negative: no CRI error, no warning', async () => {
    const n = await nodeOf({ 'kubelet.log': lines([syncLoopEvent(L), syncLoopEvent(L + 60_000)]) });
    expect(n.findings).toEqual([]);
  });
  it('start-up artefacts are an info finding; a stuck start-up is a stall', async () => {
    const ok = await nodeOf({ 'kubelet.log': lines([
      kl(L, 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.27.4"'),
      kl(L + 5000, 'E', 'kubelet.go:2373', '"Skipping pod synchronization" err="[container runtime status check may not have completed yet, PLEG is not healthy: pleg has yet to be successful]"'),
      syncLoopEvent(L + 9000), kl(L + 600_000, 'I', 'prober.go:107', '"Probe failed"'),
    ]) });
    expect(ok.verdict.plegUnhealthy).toBe(false);
    expect(ok.findings.map((f) => f.ruleId)).toEqual(['startup-artefact']);
  });
  it('negative: a per-ID timeout with list calls also timing out is the hung runtime, not one stuck container', async () => {
    const ls = [...stall()];
    for (let t = L + 60_000; t < L + 400_000; t += 120_000) {
      ls.push(kl(t, 'E', 'log.go:32', `"ListPodSandbox with filter from runtime service failed" err="${DE}" filter="nil"`));
      ls.push(kl(t + 10, 'E', 'log.go:32', `"ContainerStatus from runtime service failed" err="${DE}" containerID="c0ffee000001"`));
    }
    const n = await nodeOf({ 'kubelet.log': lines(ls) });
    expect(n.findings[0]!.ruleId).toBe('runtime-hung-lists');
    expect(n.findings.some((f) => f.ruleId === 'runtime-stuck-container')).toBe(false);
  });
});

describe('goroutine dumps', () => {
  it('debug=1 (pprof) groups: relist found, no wait state', () => {
    const p = new GoroutineParser();
    [
      'goroutine profile: total 1234',
      '1 @ 0x43a1c5 0x4069f7 0x1c2a4b5 0x46d761',
      '#\t0x1c2a4b4\tk8s.io/kubernetes/pkg/kubelet/pleg.(*GenericPLEG).relist+0x8c4\t/workspace/src/k8s.io/kubernetes/pkg/kubelet/pleg/generic.go:259',
      '#\t0x1c2b2a9\tk8s.io/kubernetes/vendor/k8s.io/apimachinery/pkg/util/wait.JitterUntil.func1+0x29\t/workspace/wait.go:133',
      '',
      '3 @ 0x43a1c5 0x44b1b0',
      '#\t0x44b1af\tnet/http.(*conn).serve+0x5af\t/usr/local/go/src/net/http/server.go:1800',
      '',
    ].forEach((l, i) => p.push(l, i + 1));
    const g = p.finish();
    expect(g.format).toBe('debug1');
    expect(g.total).toBe(4);
    expect(g.relist).toHaveLength(1);
    expect(g.relist[0]!.state).toBeNull();
    expect(g.relist[0]!.deepestKubeletFrame).toBe('k8s.io/kubernetes/pkg/kubelet/pleg.(*GenericPLEG).relist');
  });
  it('debug=2: the relist goroutine inside GetPodNetworkStatus points at CNI', async () => {
    const dump = [
      'goroutine 733 [semacquire, 24 minutes]:',
      'sync.runtime_SemacquireMutex(0xc00137a2c4, 0x0, 0x1)',
      '\t/usr/local/go/src/runtime/sema.go:71 +0x47',
      'k8s.io/kubernetes/pkg/kubelet/dockershim/network.(*PluginManager).GetPodNetworkStatus(0xc000b4a180, {0xc001e2a7e0, 0xb}, {0xc001e2a7f0, 0x1f}, {0xc00202e140, 0x40})',
      '\t/workspace/src/k8s.io/kubernetes/pkg/kubelet/dockershim/network/plugins.go:391 +0x1b5',
      'k8s.io/kubernetes/pkg/kubelet/dockershim.(*dockerService).PodSandboxStatus(0xc0007f2000, {0x4b8a3c8, 0xc001c3a0c0}, 0xc002a8e2d0)',
      '\t/workspace/src/k8s.io/kubernetes/pkg/kubelet/dockershim/docker_sandbox.go:366 +0x2fa',
      'k8s.io/kubernetes/pkg/kubelet/kuberuntime.(*kubeGenericRuntimeManager).GetPodStatus(0xc0007b4b40, {0xc001c0c300, 0x24}, {0xc001e2a7e0, 0xb}, {0xc001e2a7f0, 0x1f})',
      '\t/workspace/src/k8s.io/kubernetes/pkg/kubelet/kuberuntime/kuberuntime_manager.go:953 +0x3b1',
      'k8s.io/kubernetes/pkg/kubelet/pleg.(*GenericPLEG).updateCache(0xc000bc6000, 0xc0019b7ad0, {0xc001c0c300, 0x24})',
      '\t/workspace/src/k8s.io/kubernetes/pkg/kubelet/pleg/generic.go:409 +0x87',
      'k8s.io/kubernetes/pkg/kubelet/pleg.(*GenericPLEG).relist(0xc000bc6000)',
      '\t/workspace/src/k8s.io/kubernetes/pkg/kubelet/pleg/generic.go:252 +0x8a5',
      '',
    ].join('\n');
    const n = await nodeOf({ 'kubelet.log': lines(skipLines(L, L + 1_500_000, 'printf')), 'stacks.txt': dump + '\n' }, { year: 2021 });
    expect(n.verdict.primaryCause).toBe('cni_hang');
  });
});

describe('kernel log times', () => {
  it('raw dmesg is placed on the clock by journal kernel lines that carry both stamps', async () => {
    const n = await nodeOf({
      'kubelet.log': lines(stall()),
      'messages': lines([jl(L + 10_000, 'kernel', '[ 5000.000000] EXT4-fs (sda1): re-mounted. Opts: (null)')]),
      'dmesg': '[ 5000.000000] EXT4-fs (sda1): re-mounted. Opts: (null)\n[ 5030.500000] INFO: task containerd:921 blocked for more than 120 seconds.\n',
    });
    const f = n.findings.find((x) => x.cause === 'disk_io')!;
    const e = f.evidence.find((x) => x.file === 'dmesg')!;
    expect(e.ts).toBe(new Date(L + 40_500).toISOString());
  });
  it('without a twin, raw dmesg lines have no time: weak support at most, never the cause of a dated stall, and the report says so', async () => {
    const { analyzeFiles } = await import('../helpers/scenario.js');
    const a = await analyzeFiles({ 'kubelet.log': lines(stall()), 'dmesg': '[ 5030.500000] INFO: task containerd:921 blocked for more than 120 seconds.\n' });
    const n = a.nodes[0]!;
    expect(n.verdict.primaryCause).toBe('unknown');
    expect(a.warnings.some((w) => w.file === 'dmesg' && /seconds-since-boot/.test(w.message))).toBe(true);
    // With a CRI timeout as well, the hung task supports the storage reading and says it has no time.
    const b = await analyzeFiles({ 'kubelet.log': lines([...stall(), kl(L + 60_000, 'E', 'log.go:32', `"ContainerStatus from runtime service failed" err="${DE}" containerID="c1"`)]), 'dmesg': '[ 5030.500000] INFO: task containerd:921 blocked for more than 120 seconds.\n', 'messages': lines([jl(L + 20_000, 'kernel', 'nfs: server 10.0.0.9 not responding, still trying')]) });
    const f = b.nodes[0]!.findings.find((x) => x.cause === 'disk_io')!;
    expect(f.summary).toContain('time unknown');
    expect(f.evidence.find((x) => x.file === 'dmesg')?.ts).toBeNull();
  });
});
