// Partial evidence still answers: with no kubelet stall in the input, findings say what the evidence points to (and what
// to collect); the look-alikes are not PLEG; a node condition the log contradicts makes no stall; known bugs by version.
import { describe, expect, it } from 'vitest';
import { analyzeFiles, at, kl, lines, nodeOf, skipLines, syncLoopEvent } from '../helpers/scenario.js';
import { compareVersions, inRange, KNOWN_BUGS } from '../../src/rules/known-bugs.js';

const L = at('10:00:00');
const raw = (...l: string[]) => l.join('\n') + '\n';
const rules = (n: { findings: Array<{ ruleId: string }> }) => n.findings.map((f) => f.ruleId);

describe('partial evidence (no stall in the input)', () => {
  it('runtime side: containerd state timeouts right after a call that never finished', async () => {
    const n = await nodeOf({ 'containerd.log': raw(
      'time="2024-06-02T03:04:05.100000000Z" level=info msg="UpdateContainerResources for \\"aaaabbbbccccdddd0000\\" with Linux: &LinuxContainerResources{CpusetCpus:0-7,}"',
      'time="2024-06-02T03:04:07.200000000Z" level=error msg="get state for 1111222233334444" error="context deadline exceeded: unknown"',
      'time="2024-06-02T03:04:07.300000000Z" level=error msg="get state for 5555666677778888" error="context deadline exceeded: unknown"',
    ) });
    expect(n.verdict.plegUnhealthy).toBe(false);
    const f = n.findings.find((x) => x.ruleId === 'sign-runtime-hang')!;
    expect(f.cause).toBe('runtime_timeout');
    expect(f.summary).toContain('2 "get state" timeouts');
    expect(f.summary).toContain('UpdateContainerResources of aaaabbbbcccc started and never finished');
    expect(rules(n)).toContain('known-bug-containerd-update-lock');
  });

  it('`kubectl get events`: GC calls to the runtime timing out (ContainerGCFailed, ImageGCFailed) on the node each row names', async () => {
    const events = raw(
      'LAST SEEN   TYPE      REASON              OBJECT                            MESSAGE',
      '14m         Normal    NodeNotReady        node/ip-10-0-1-23.ec2.internal    Node ip-10-0-1-23.ec2.internal status is now: NodeNotReady',
      '13m         Warning   ContainerGCFailed   node/ip-10-0-1-23.ec2.internal    rpc error: code = DeadlineExceeded desc = context deadline exceeded',
      '13m         Warning   ImageGCFailed       node/ip-10-0-1-23.ec2.internal    rpc error: code = DeadlineExceeded desc = context deadline exceeded',
    );
    const n = await nodeOf({ 'events.txt': events });
    expect(n.name).toBe('ip-10-0-1-23.ec2.internal');
    const f = n.findings.find((x) => x.ruleId === 'sign-runtime-hang')!;
    expect(f.cause).toBe('runtime_timeout');
    expect(f.summary).toContain('2 kubelet lines where a call to the runtime timed out');
    expect(f.evidence.map((e) => e.line)).toEqual([3, 4]);
    // One such event is noise, not a hung runtime.
    const one = await nodeOf({ 'events.txt': events.split('\n').slice(0, 3).join('\n') + '\n' });
    expect(rules(one)).not.toContain('sign-runtime-hang');
  });

  it('a runtime that crash-loops: panic, new start lines', async () => {
    const n = await nodeOf({ 'containerd.log': raw(
      'Apr 02 08:00:01 w5 containerd[100]: time="2024-04-02T08:00:01.1Z" level=info msg="Start streaming server"',
      'Apr 02 08:00:09 w5 containerd[100]: panic: runtime error: invalid memory address or nil pointer dereference',
      'Apr 02 08:01:05 w5 containerd[200]: time="2024-04-02T08:01:05.1Z" level=info msg="Start streaming server"',
    ), }, { year: 2024 });
    expect(n.findings[0]?.ruleId).toBe('sign-runtime-restart');
    expect(n.findings[0]?.summary).toContain('1 Go panic');
    expect(n.findings[0]?.summary).toContain('2 runtime starts');
  });

  it('fork/exec EAGAIN, a grpc size limit, hung tasks waiting on writeback, a full PLEG channel', async () => {
    const pid = await nodeOf({ 'k.log': raw(kl(L, 'E', 'remote_runtime.go:734', '"ExecSync cmd from runtime service failed" err="rpc error: code = Unknown desc = failed to exec in container: OCI runtime exec failed: fork/exec /usr/bin/runc: resource temporarily unavailable: unknown" containerID="abc"')) });
    expect(pid.findings.map((f) => f.cause)).toContain('pid_exhaustion');
    const big = await nodeOf({ 'k.log': raw(kl(L, 'E', 'log.go:32', '"ListPodSandbox with filter from runtime service failed" err="rpc error: code = ResourceExhausted desc = grpc: trying to send message larger than max (16800000 vs. 16777216)" filter="nil"')) });
    expect(big.findings[0]).toMatchObject({ ruleId: 'sign-list-too-big', cause: 'exited_containers' });
    expect(big.findings[0]?.summary).toContain('16800000 vs. 16777216');
    const io = await nodeOf({ 'dmesg.log': raw(
      'Jan 10 04:00:00 w1 kernel: INFO: task containerd:812 blocked for more than 120 seconds.',
      'Jan 10 04:00:00 w1 kernel:  schedule+0x28/0x80',
      'Jan 10 04:00:00 w1 kernel:  rpc_wait_bit_killable+0x1e/0x90 [sunrpc]',
    ) }, { year: 2024 });
    expect(io.findings[0]).toMatchObject({ ruleId: 'sign-storage', cause: 'disk_io' });
    expect(io.findings[0]?.summary).toContain('rpc_wait_bit_killable');
    const chan = await nodeOf({ 'k.log': raw(...Array.from({ length: 4 }, (_, i) => kl(L + i, 'E', 'generic.go:354', 'event channel is full, discard this relist() cycle event'))) });
    expect(chan.findings[0]).toMatchObject({ ruleId: 'sign-event-channel-full', cause: 'event_channel_full' });
    expect(chan.findings[0]?.summary).toContain('4 times');
  });

  it('negative: a quiet log has no sign', async () => {
    const n = await nodeOf({ 'k.log': lines([syncLoopEvent(L), syncLoopEvent(L + 60_000)]) });
    expect(n.findings).toEqual([]);
  });
});

describe('not a PLEG stall', () => {
  it('"Kubelet stopped posting node status" is the kubelet gone silent, not a stale PLEG', async () => {
    const n = await nodeOf({ 'describe.txt': '  Ready   Unknown   Tue, 03 Jan 2023 10:05:00 +0000   Tue, 03 Jan 2023 10:06:10 +0000   NodeStatusUnknown   Kubelet stopped posting node status.\n' });
    expect(n.verdict.plegUnhealthy).toBe(false);
    expect(rules(n)).toEqual(['notready-kubelet-silent']);
  });

  it('a kubelet that crashed with a fatal error is not a stall', async () => {
    const n = await nodeOf({ 'k.log': raw(
      'Mar 03 19:21:03 w2 kubelet[88624]: fatal error: concurrent map read and map write',
      'Mar 03 19:21:05 w2 kubelet[90001]: I0303 19:21:05.000000   90001 server.go:440] "Kubelet version" kubeletVersion="v1.17.0"',
    ) }, { year: 2020 });
    expect(n.verdict.plegUnhealthy).toBe(false);
    expect(rules(n)).toContain('kubelet-crashed');
  });

  it('the same sentinel right after start is start-up; repeating for minutes, relist never succeeded', async () => {
    const sentinel = 'skipping pod synchronization - [container runtime is down PLEG is not healthy: pleg was last seen active 2562047h47m16.854775807s ago; threshold is 3m0s]';
    const startup = await nodeOf({ 'k.log': raw(kl(L, 'I', 'kubelet.go:1835', sentinel)) });
    expect(startup.verdict.plegUnhealthy).toBe(false);
    const stuck = await nodeOf({ 'k.log': raw(...Array.from({ length: 8 }, (_, i) => kl(L + i * 60_000, 'I', 'kubelet.go:1835', sentinel))) });
    expect(stuck.verdict.plegUnhealthy).toBe(true);
  });

  it('a condition the kubelet log contradicts makes no stall, and says so', async () => {
    const node = 'worker-3';
    const yaml = raw('apiVersion: v1', 'kind: Node', 'metadata:', `  name: ${node}`, 'status:', '  conditions:',
      '  - lastHeartbeatTime: "2024-03-11T10:05:00Z"', '    lastTransitionTime: "2024-03-11T10:05:00Z"',
      "    message: 'PLEG is not healthy: pleg was last seen active 4m0s ago; threshold is 3m0s'", '    reason: KubeletNotReady', '    status: "False"', '    type: Ready');
    // The kubelet logged relists in the four minutes the condition calls stale.
    const log = lines([syncLoopEvent(at('10:02:00')), syncLoopEvent(at('10:03:30')), syncLoopEvent(at('10:06:00'))]);
    const n = await nodeOf({ 'kubelet.log': log, 'node.yaml': yaml });
    expect(n.stalls).toEqual([]);
    expect(rules(n)).toContain('condition-disagrees');
  });

  it('negative: a condition the log agrees with is the log\'s stall', async () => {
    const ls = [kl(at('09:00:00'), 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.27.4"'), ...skipLines(L, L + 400_000)];
    const yaml = raw('apiVersion: v1', 'kind: Node', 'metadata:', '  name: worker-3', 'status:', '  conditions:',
      '  - lastHeartbeatTime: "2024-03-11T10:05:00Z"', '    lastTransitionTime: "2024-03-11T10:03:00Z"',
      "    message: 'PLEG is not healthy: pleg was last seen active 5m0s ago; threshold is 3m0s'", '    reason: KubeletNotReady', '    status: "False"', '    type: Ready');
    const n = await nodeOf({ 'kubelet.log': lines(ls), 'node.yaml': yaml });
    expect(n.stalls).toHaveLength(1);
    expect(rules(n)).not.toContain('condition-disagrees');
  });
});

describe('stalls from lines without a time', () => {
  it('a pasted fragment is a stall of unknown date; its copy in a describe output is the same stall', async () => {
    const a = await analyzeFiles({
      'kubelet.log': 'Jun 01 16:46:01 node-a kubelet[9]: E0601 16:46:01.993106       9 kubelet.go:1799] skipping pod synchronization - [container runtime status check may not have completed yet, PLEG is not healthy: pleg was last seen active 11m54.676753691s ago; threshold is 3m0s]\n',
      'describe.txt': 'PLEG is not healthy: pleg was last seen active 11m54.676753691s ago; threshold is 3m0s\n',
    }, { year: 2021 });
    expect(a.nodes).toHaveLength(1);
    expect(a.nodes[0]!.stalls).toHaveLength(1);
    const alone = await analyzeFiles({ 'paste.txt': '"Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3m30s ago; threshold is 3m0s"\n' });
    expect(alone.nodes[0]!.stalls).toMatchObject([{ lastRelistAt: null, endedAt: null, durationSeconds: 210 }]);
  });

  it('lines left out after a stall: its end is not in the input', async () => {
    const a = await analyzeFiles({ 'kubelet.log': raw(
      'I0523 11:25:06.087934   20904 kubelet.go:1828] skipping pod synchronization - PLEG is not healthy: pleg was last seen active 3m41.3s ago; threshold is 3m0s.',
      '......',
      'I0524 10:01:42.180287   28586 kubelet.go:1828] skipping pod synchronization - PLEG is not healthy: pleg was last seen active 1h17m57.1s ago; threshold is 3m0s.',
    ) }, { year: 2019 });
    const st = a.nodes[0]!.stalls;
    expect(st.map((s) => s.endedBy)).toEqual(['unknown', 'end-of-log']);
    expect(st[0]!.durationSeconds).toBeCloseTo(221.3, 1);
  });
});

describe('known bugs by version', () => {
  it('versions compare as releases do (rc numbers as numbers, a release after its rcs)', () => {
    expect(compareVersions('1.0.0-rc93', '1.0.0-rc5')! > 0).toBe(true);
    expect(compareVersions('1.0.0-rc95', '1.0.0')! < 0).toBe(true);
    expect(compareVersions('18.03.1-ce', '17.07.0')! > 0).toBe(true);
    expect(compareVersions('v1.13.12', '1.14.0')! < 0).toBe(true);
  });

  it('a fix on an older branch counts for that branch only', () => {
    const r = { component: 'cri-o' as const, before: '1.34.0', fixedIn: ['1.31.10', '1.32.6', '1.33.1'] };
    expect(['1.31.9', '1.31.10', '1.32.5', '1.33.1', '1.30.4'].map((v) => inRange(v, r))).toEqual([true, false, true, false, true]);
  });

  it('every entry cites a link and a cause; wide ranges need a sign', () => {
    for (const b of KNOWN_BUGS) {
      expect(b.links.length, b.id).toBeGreaterThan(0);
      const wide = b.match.some((m) => m.from === undefined && m.pattern === undefined);
      if (wide && b.cause !== 'memory_pressure') expect(b.needs?.length, `${b.id}: a version range open below needs a sign`).toBeGreaterThan(0);
    }
  });

  it('docker info on a RHEL 7 kernel with a kmem-accounting runc: memory pressure, with the link', async () => {
    const n = await nodeOf({ 'docker-info.txt': raw('# docker info', 'Containers: 12', 'Server Version: 18.06.1-ce', 'Kernel Version: 3.10.0-957.el7.x86_64', 'runc version: 69663f0bd4b60df09991c08812a60108003fa340') });
    const f = n.findings.find((x) => x.ruleId === 'known-bug-runc-kmem-rhel7')!;
    expect(f.cause).toBe('memory_pressure');
    expect(f.references).toContain('https://github.com/kubernetes/kubernetes/issues/61937');
    // The runc version is stated: the docker-wide entry defers to it.
    expect(rules(n)).not.toContain('known-bug-docker-kmem-rhel7');
  });

  it('negative: a current runtime matches nothing', async () => {
    const n = await nodeOf({ 'v.txt': raw('$ containerd --version', 'containerd containerd.io 1.7.20 8fc6bcff51318944179630522a095cc9dbf9f353', '$ runc -v', 'runc version 1.1.13') });
    expect(n.findings.filter((f) => f.ruleId.startsWith('known-bug-'))).toEqual([]);
  });
});
