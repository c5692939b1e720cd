// Each rule: a positive and a negative case built from real-shaped lines (kubelet-catalog.md), across eras.
import { describe, expect, it } from 'vitest';
import { at, jl, kl, lines, nodeOf, skipLines, syncLoopEvent, type Style } from '../helpers/scenario.js';

const L = at('10:00:00');
const END = at('10:14:00');

function baseStall(style: Style = 'structured', o: { version?: string; end?: number; runtimeDown?: boolean } = {}): string[] {
  const version = o.version ?? 'v1.28.3';
  const startLine = style === 'structured'
    ? kl(at('09:00:00'), 'I', 'server.go:487', `"Kubelet version" kubeletVersion="${version}"`)
    : kl(at('09:00:00'), 'I', 'server.go:408', `Version: ${version}`);
  const end = o.end ?? END;
  return [
    startLine,
    kl(at('09:00:01'), 'I', 'kubelet.go:2303', style === 'structured' ? '"Starting kubelet main sync loop"' : 'Starting kubelet main sync loop.'),
    syncLoopEvent(at('09:59:58'), style),
    ...skipLines(L, end, style, { runtimeDown: o.runtimeDown }),
    syncLoopEvent(end + 2000, style),
    kl(at('10:40:00'), 'I', 'prober.go:107', style === 'structured' ? '"Probe failed" probeType="Readiness" pod="default/web-0"' : 'Readiness probe for "web-0_default" failed'),
  ];
}

const DE = 'rpc error: code = DeadlineExceeded desc = context deadline exceeded';

function listTimeouts(style: Style): string[] {
  const out: string[] = [];
  for (let t = L + 120_000; t < END; t += 121_000) {
    if (style === 'structured') {
      out.push(kl(t, 'E', 'log.go:32', `"ListPodSandbox with filter from runtime service failed" err="${DE}" filter="nil"`));
      out.push(kl(t + 1, 'E', 'kuberuntime_sandbox.go:297', `"Failed to list pod sandboxes" err="${DE}"`));
      out.push(kl(t + 2, 'E', 'generic.go:238', `"GenericPLEG: Unable to retrieve pods" err="${DE}"`));
    } else {
      const de = style === 'glog' ? 'rpc error: code = 4 desc = context deadline exceeded' : DE;
      out.push(kl(t, 'E', 'remote_runtime.go:203', `ListPodSandbox with filter nil from runtime service failed: ${de}`));
      out.push(kl(t + 1, 'E', 'kuberuntime_sandbox.go:218', `ListPodSandbox failed: ${de}`));
      out.push(kl(t + 2, 'E', 'generic.go:205', `GenericPLEG: Unable to retrieve pods: ${de}`));
    }
  }
  return out;
}

describe('runtime_timeout', () => {
  for (const style of ['structured', 'printf', 'glog'] as Style[]) {
    it(`hung runtime: list calls time out (${style})`, async () => {
      const n = await nodeOf({ 'kubelet.log': lines([...baseStall(style, { version: style === 'glog' ? 'v1.11.4' : style === 'printf' ? 'v1.19.4' : 'v1.31.2' }), ...listTimeouts(style)]) });
      expect(n.verdict.primaryCause).toBe('runtime_timeout');
      expect(n.findings[0]!.ruleId).toBe('runtime-hung-lists');
      expect(n.findings[0]!.evidence.some((e) => e.text.includes('ListPodSandbox'))).toBe(true);
    });
  }
  it('JSON logging', async () => {
    const j = (t: number, o: Record<string, unknown>) => JSON.stringify({ ts: t + 0.123, caller: 'x', ...o });
    const ls = [
      j(at('09:00:00'), { msg: 'Kubelet version', v: 0, kubeletVersion: 'v1.32.4' }),
      ...[130, 251, 372, 493, 614].map((s) => j(L + s * 1000, { caller: 'internal/log.go:32', msg: 'ListPodSandbox with filter from runtime service failed', err: DE })),
      ...[181, 300, 600, 800].map((s) => j(L + s * 1000, { caller: 'kubelet/kubelet.go:2460', msg: 'Skipping pod synchronization', err: `PLEG is not healthy: pleg was last seen active ${Math.floor(s / 60)}m${s % 60}.5s ago; threshold is 3m0s` })),
      j(L + 900_000, { caller: 'kubelet/kubelet.go:2500', msg: 'SyncLoop (PLEG): event for pod', v: 2, pod: 'a/b' }),
      j(L + 2_000_000, { caller: 'prober/prober.go:1', msg: 'Probe failed', v: 1 }),
    ];
    const n = await nodeOf({ 'kubelet.json.log': ls.join('\n') + '\n' });
    expect(n.stalls).toHaveLength(1);
    expect(n.verdict.primaryCause).toBe('runtime_timeout');
  });
  it('one stuck container while lists succeed: names the container and the pod', async () => {
    const cid = '7c1f0a53de2b9e0c0e8f6e2a5d3b1c4f7e8d9a0b1c2d3e4f5a6b7c8d9e0f1a2b';
    const extra: string[] = [];
    for (let t = L + 60_000; t < END; t += 120_000) {
      extra.push(kl(t, 'E', 'log.go:32', `"ContainerStatus from runtime service failed" err="${DE}" containerID="${cid}"`));
      extra.push(kl(t + 5, 'E', 'generic.go:476', `"PLEG: Ignoring events for pod" err="${DE}" pod="team-a/batch-7f9c"`));
    }
    const n = await nodeOf({ 'kubelet.log': lines([...baseStall(), ...extra]) });
    expect(n.verdict.primaryCause).toBe('runtime_timeout');
    expect(n.findings[0]!.ruleId).toBe('runtime-stuck-container');
    expect(n.findings[0]!.summary).toContain(cid);
    expect(n.findings[0]!.summary).toContain('team-a/batch-7f9c');
  });
  it('negative: a stall with no runtime error is not called a runtime timeout', async () => {
    const n = await nodeOf({ 'kubelet.log': lines(baseStall()) });
    expect(n.verdict.primaryCause).not.toBe('runtime_timeout');
    expect(n.findings.some((f) => f.ruleId === 'runtime-hung-lists' || f.ruleId === 'runtime-stuck-container')).toBe(false);
    expect(n.ruledOut.some((r) => r.cause === 'runtime_timeout')).toBe(true);
  });
});

describe('runtime_restart', () => {
  it('refused connections and runtime start lines', async () => {
    const refused = 'rpc error: code = Unavailable desc = connection error: desc = \\"transport: Error while dialing: dial unix /run/containerd/containerd.sock: connect: connection refused\\"';
    const extra: string[] = [];
    for (let t = L + 5000; t < L + 400_000; t += 1000) extra.push(kl(t, 'E', 'log.go:32', `"ListPodSandbox with filter from runtime service failed" err="${refused}" filter="nil"`));
    extra.push(jl(L + 2000, 'systemd[1]', 'Stopping containerd container runtime...'));
    extra.push(jl(L + 400_500, 'systemd[1]', 'Started containerd container runtime.'));
    const n = await nodeOf({ 'kubelet.log': lines([...baseStall('structured', { end: L + 420_000 }), ...extra]) });
    expect(n.verdict.primaryCause).toBe('runtime_restart');
  });
  it('negative: a hung runtime (timeouts, no refusal) is not a restart', async () => {
    const n = await nodeOf({ 'kubelet.log': lines([...baseStall(), ...listTimeouts('structured')]) });
    expect(n.findings.some((f) => f.cause === 'runtime_restart')).toBe(false);
  });
});

describe('relist_deadlock', () => {
  const grow = (until: number) => {
    const out = [kl(at('09:00:00'), 'I', 'server.go:408', 'Version: v1.11.4'), syncLoopEvent(at('09:59:59'), 'glog')];
    out.push(...skipLines(L, until, 'glog'));
    return out;
  };
  it('1.11, age grows for 40 minutes, no CRI error, ended by a kubelet restart', async () => {
    const ls = grow(L + 2_400_000);
    ls.push(jl(L + 2_401_000, 'systemd[1]', 'Stopping kubelet: The Kubernetes Node Agent...'));
    ls.push(kl(L + 2_402_000, 'I', 'server.go:408', 'Version: v1.11.4', { pid: 9001 }));
    ls.push(kl(L + 2_500_000, 'I', 'kubelet.go:1', 'Something', { pid: 9001 }));
    const n = await nodeOf({ 'kubelet.log': lines(ls) });
    expect(n.stalls[0]!.endedBy).toBe('restart');
    expect(n.verdict.primaryCause).toBe('relist_deadlock');
  });
  it('goroutine dump: relist waits in chan send', async () => {
    const dump = [
      'goroutine 417 [chan send, 38 minutes]:',
      'k8s.io/kubernetes/pkg/kubelet/pleg.(*GenericPLEG).relist(0xc0004a2000)',
      '\t/workspace/anago-v1.12.3/src/k8s.io/kubernetes/pkg/kubelet/pleg/generic.go:259 +0x8c5',
      'k8s.io/kubernetes/pkg/kubelet/pleg.(*GenericPLEG).(k8s.io/kubernetes/pkg/kubelet/pleg.relist)-fm()',
      '\t/workspace/anago-v1.12.3/src/k8s.io/kubernetes/pkg/kubelet/pleg/generic.go:130 +0x2a',
      'k8s.io/kubernetes/vendor/k8s.io/apimachinery/pkg/util/wait.JitterUntil.func1(0xc000b2c0a0)',
      '\t/workspace/anago-v1.12.3/src/k8s.io/kubernetes/vendor/k8s.io/apimachinery/pkg/util/wait/wait.go:133 +0x54',
      '',
      'goroutine 1 [select]:',
      'main.main()',
      '\t/x/main.go:1 +0x1',
      '',
    ].join('\n');
    const n = await nodeOf({ 'kubelet.log': lines(baseStall('printf', { version: 'v1.12.3', end: L + 2_400_000 })), 'goroutines.txt': dump });
    expect(n.verdict.primaryCause).toBe('relist_deadlock');
    expect(n.findings[0]!.evidence.some((e) => e.file === 'goroutines.txt' && e.line === 1)).toBe(true);
  });
  it('negative: the same silence on 1.20 is not the deadlock (fixed in 1.14)', async () => {
    const n = await nodeOf({ 'kubelet.log': lines(baseStall('printf', { version: 'v1.20.4', end: L + 2_400_000 })) });
    expect(n.verdict.primaryCause).not.toBe('relist_deadlock');
    expect(n.ruledOut.find((r) => r.cause === 'relist_deadlock')?.reason).toContain('v1.20.4');
  });
});

describe('cni_hang', () => {
  it('dockershim status hook failures and PodSandboxStatus timeouts on one sandbox', async () => {
    const extra: string[] = [];
    for (let t = L + 30_000; t < END; t += 120_000) {
      extra.push(kl(t, 'W', 'docker_sandbox.go:394', 'failed to read pod IP from plugin/docker: networkPlugin cni failed on the status hook for pod "coredns-67c766df46-pvbxt_kube-system": netplugin failed but error parsing its diagnostic message ""'));
      extra.push(kl(t + 100_000, 'E', 'kuberuntime_manager.go:861', `PodSandboxStatus of sandbox "9c3b1f0e2d" for pod "coredns-67c766df46-pvbxt_kube-system(5e1a)" error: ${DE}`));
    }
    const n = await nodeOf({ 'kubelet.log': lines([...baseStall('printf', { version: 'v1.19.4' }), ...extra]) });
    expect(n.verdict.primaryCause).toBe('cni_hang');
  });
  it('negative: no network plugin evidence', async () => {
    const n = await nodeOf({ 'kubelet.log': lines([...baseStall(), ...listTimeouts('structured')]) });
    expect(n.findings.some((f) => f.cause === 'cni_hang')).toBe(false);
  });
});

describe('disk_io, pid_exhaustion, memory_pressure', () => {
  const cs = (n: number) => Array.from({ length: n }, (_, i) => kl(L + 60_000 + i * 120_000, 'E', 'log.go:32', `"ContainerStatus from runtime service failed" err="${DE}" containerID="c${i}0000000000"`));
  it('kernel hung tasks + NFS under CRI timeouts → disk_io', async () => {
    const kern = [jl(L + 30_000, 'kernel', 'INFO: task containerd-shim:4121 blocked for more than 120 seconds.'), jl(L + 31_000, 'kernel', 'nfs: server 10.20.0.5 not responding, still trying')];
    const n = await nodeOf({ 'kubelet.log': lines([...baseStall(), ...cs(5)]), 'messages': lines(kern) });
    expect(n.verdict.primaryCause).toBe('disk_io');
  });
  it('negative: no kernel evidence → not disk_io', async () => {
    const n = await nodeOf({ 'kubelet.log': lines([...baseStall(), ...cs(5)]) });
    expect(n.findings.some((f) => f.cause === 'disk_io')).toBe(false);
  });
  it('fork failures → pid_exhaustion', async () => {
    const extra = [0, 1, 2, 3].map((i) => kl(L + 10_000 + i * 60_000, 'E', 'pod_workers.go:190', `Error syncing pod 1234 ("web-${i}_default(1234)"), skipping: failed to "StartContainer" for "web" with RunContainerError: "failed to start container: fork/exec /usr/bin/runc: resource temporarily unavailable"`));
    const n = await nodeOf({ 'kubelet.log': lines([...baseStall('printf', { version: 'v1.18.2' }), ...extra]) });
    expect(n.verdict.primaryCause).toBe('pid_exhaustion');
  });
  it('negative: no fork failure → not pid_exhaustion', async () => {
    const n = await nodeOf({ 'kubelet.log': lines(baseStall()) });
    expect(n.findings.some((f) => f.cause === 'pid_exhaustion')).toBe(false);
  });
  it('OOM kill of containerd → memory_pressure', async () => {
    const kern = [jl(L + 20_000, 'kernel', 'containerd invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0, oom_score_adj=-999'), jl(L + 20_100, 'kernel', 'Out of memory: Killed process 901 (containerd) total-vm:2389120kB, anon-rss:1803224kB')];
    const n = await nodeOf({ 'kubelet.log': lines(baseStall()), 'kern.log': lines(kern) });
    expect(n.verdict.primaryCause).toBe('memory_pressure');
  });
  it('negative: an OOM kill of a workload alone is not memory pressure on the runtime', async () => {
    const kern = [jl(L + 20_100, 'kernel', 'Out of memory: Killed process 7777 (java) total-vm:2389120kB, anon-rss:1803224kB')];
    const n = await nodeOf({ 'kubelet.log': lines(baseStall()), 'kern.log': lines(kern) });
    expect(n.findings.some((f) => f.cause === 'memory_pressure')).toBe(false);
  });
});

describe('event_channel_full, clock_jump, pod_count, unknown', () => {
  it('event channel full (1.14+)', async () => {
    const extra = [0, 1, 2, 3].map((i) => kl(L + 1000 + i * 500, 'E', 'generic.go:274', 'event channel is full, discard this relist() cycle event'));
    const n = await nodeOf({ 'kubelet.log': lines([...baseStall('printf', { version: 'v1.15.3' }), ...extra]) });
    expect(n.verdict.primaryCause).toBe('event_channel_full');
  });
  it('negative: no discard line → not event_channel_full', async () => {
    const n = await nodeOf({ 'kubelet.log': lines(baseStall('printf', { version: 'v1.15.3' })) });
    expect(n.findings.some((f) => f.cause === 'event_channel_full')).toBe(false);
  });
  it('one enormous age right after a clock step', async () => {
    const t = at('10:00:00');
    const ls = [
      kl(at('09:00:00'), 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.27.4"'),
      syncLoopEvent(t - 1000),
      jl(t, 'systemd[1]', 'Time has been changed'),
      kl(t + 500, 'E', 'kubelet.go:2373', '"Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 5h0m2.1s ago; threshold is 3m0s"'),
      syncLoopEvent(t + 1500),
      kl(at('10:30:00'), 'I', 'prober.go:107', '"Probe failed" probeType="Readiness" pod="default/web-0"'),
    ];
    const n = await nodeOf({ 'kubelet.log': lines(ls) });
    expect(n.verdict.primaryCause).toBe('clock_jump');
  });
  it('negative: a real long stall with runtime timeouts is not a clock jump', async () => {
    const n = await nodeOf({ 'kubelet.log': lines([...baseStall(), ...listTimeouts('structured')]) });
    expect(n.findings.some((f) => f.cause === 'clock_jump')).toBe(false);
  });
  it('slow relists that finish, ages just over 3 m that reset, no errors: the shape alone names no pod count (issue 21)', async () => {
    const ls = [kl(at('09:00:00'), 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.24.9"')];
    let relist = L;
    for (let k = 0; k < 4; k++) {
      const end = relist + 180_000 + 25_000;
      ls.push(...skipLines(relist, end));
      relist = end + 1000;
    }
    ls.push(syncLoopEvent(relist + 5000), kl(relist + 3_600_000, 'I', 'prober.go:107', '"Probe failed"'));
    const n = await nodeOf({ 'kubelet.log': lines(ls) });
    expect(n.stalls.length).toBe(4);
    // A hung call on one object that times out just past the threshold looks the same: without a count of pods or
    // containers (or relist latency) the cause stays unknown.
    expect(n.verdict.primaryCause).toBe('unknown');
    expect(n.findings.some((f) => f.cause === 'pod_count')).toBe(false);
  });
  it('negative and unknown: one long silent stall on a modern kubelet is unknown, with gaps', async () => {
    const n = await nodeOf({ 'kubelet.log': lines(baseStall('structured', { end: L + 2_400_000 })) });
    expect(n.findings.some((f) => f.cause === 'pod_count')).toBe(false);
    expect(n.verdict.primaryCause).toBe('unknown');
    expect(n.gaps.map((g) => g.missing)).toEqual(expect.arrayContaining(['kubelet metrics', 'container runtime log', 'kubelet goroutine dump']));
  });
});

describe('not a PLEG stall', () => {
  it('NotReady for network while relists succeed', async () => {
    const ls = [kl(at('09:00:00'), 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.28.3"')];
    for (let t = at('09:00:05'); t < at('09:06:00'); t += 5000) {
      ls.push(kl(t, 'E', 'kubelet.go:2855', '"Container runtime network not ready" networkReady="NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized"'));
    }
    ls.push(kl(at('09:00:10'), 'I', 'setters.go:552', '"Node became not ready" node="worker-3" condition={"type":"Ready","status":"False","reason":"KubeletNotReady","message":"container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized"}'));
    ls.push(syncLoopEvent(at('09:01:00')));
    const n = await nodeOf({ 'kubelet.log': lines(ls) });
    expect(n.verdict.plegUnhealthy).toBe(false);
    expect(n.verdict.primaryCause).toBeNull();
    const f = n.findings.find((x) => x.ruleId === 'notready-network');
    expect(f?.summary).toContain('network not ready');
  });
  it('negative: a real PLEG stall is not reported as another reason', async () => {
    const n = await nodeOf({ 'kubelet.log': lines(baseStall()) });
    expect(n.findings.some((f) => f.ruleId === 'notready-not-pleg' || f.ruleId === 'notready-network')).toBe(false);
  });
});
