// Issue 21/22: partial evidence as people paste it — shapes and signals on real-shaped lines (not the corpus's), and
// what the input can and cannot show (PLEG state unknown, "not seen" instead of "ruled out").
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Analysis, NodeReport } from '../src/contract/analysis.js';

const BIN = join(__dirname, '..', 'bin', 'plegscope');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Writes the files into a fresh folder and runs `plegscope analyze FOLDER --format json` as a user would. */
function run(files: Record<string, string>, extra: string[] = []): { status: number | null; a: Analysis; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'partial-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const p = spawnSync(process.execPath, [BIN, 'analyze', dir, '--format', 'json', '--year', '2024', ...extra], { encoding: 'utf8', timeout: 60_000 });
  return { status: p.status, a: p.status === 0 || p.status === 1 ? (JSON.parse(p.stdout) as Analysis) : ({} as Analysis), stderr: p.stderr };
}
const node = (a: Analysis): NodeReport => a.nodes[0] as NodeReport;
const causes = (n: NodeReport): string[] => n.findings.map((f) => f.cause);

describe('goroutine dumps judged by their longest waits', () => {
  it('a containerd goroutine parked for hours under a CRI status call is a frozen runtime', () => {
    const dump = [
      'goroutine 88123 [semacquire, 312 minutes]:',
      'sync.runtime_SemacquireMutex(0xc000a2c0e4, 0x0, 0x1)',
      '\t/usr/local/go/src/runtime/sema.go:77 +0x25',
      'sync.(*Mutex).lockSlow(0xc000a2c0e0)',
      '\t/usr/local/go/src/sync/mutex.go:171 +0x165',
      'github.com/containerd/containerd/pkg/cri/server.(*criService).ContainerStatus(0xc0003f2000, {0x55d0c8, 0xc00ad4e0c0}, 0xc00b1e2a80)',
      '\t/go/src/github.com/containerd/containerd/pkg/cri/server/container_status.go:41 +0x8e',
      '',
      'goroutine 1 [IO wait, 9000 minutes]:',
      'internal/poll.runtime_pollWait(0x7f3c, 0x72)',
      '\t/usr/local/go/src/runtime/netpoll.go:302 +0x89',
      'github.com/containerd/containerd/services/server.(*Server).ServeGRPC(0xc000180000, {0x55d0c8, 0xc00012c000})',
      '\t/go/src/github.com/containerd/containerd/services/server/server.go:250 +0x3a',
      '',
    ].join('\n');
    const { status, a } = run({ 'containerd-stacks.txt': dump });
    expect(status).toBe(0);
    const n = node(a);
    expect(n.verdict.plegState).toBe('unknown');
    const f = n.findings.find((x) => x.cause === 'runtime_timeout');
    expect(f?.summary).toMatch(/parked 312 min .*ContainerStatus/);
    expect(f?.evidence.some((e) => e.text === 'goroutine 88123 [semacquire, 312 minutes]:')).toBe(true);
  });

  it('idle runtime goroutines waiting for hours (signals, listeners) are not a frozen runtime', () => {
    const dump = [
      'goroutine 5 [syscall, 9000 minutes]:',
      'os/signal.signal_recv()',
      '\t/usr/local/go/src/runtime/sigqueue.go:169 +0x98',
      'os/signal.loop()',
      '\t/usr/local/go/src/os/signal/signal_unix.go:24 +0x19',
      '',
      'goroutine 1 [IO wait, 9000 minutes]:',
      'github.com/containerd/containerd/services/server.(*Server).ServeGRPC(0xc000180000, {0x55d0c8, 0xc00012c000})',
      '\t/go/src/github.com/containerd/containerd/services/server/server.go:250 +0x3a',
      '',
    ].join('\n');
    const { a } = run({ 'goroutines.txt': dump });
    expect(causes(node(a))).not.toContain('runtime_timeout');
  });

  it('a kubelet relist goroutine parked in a CRI call for minutes is a stall, with no log line', () => {
    const dump = [
      'goroutine 412 [select, 14 minutes]:',
      'google.golang.org/grpc.(*ClientConn).Invoke(0xc000612000, {0x4a2b1c0, 0xc0014d6060}, {0x43e5a31, 0x2c})',
      '\t/workspace/src/k8s.io/kubernetes/vendor/google.golang.org/grpc/call.go:35 +0x223',
      'k8s.io/kubernetes/pkg/kubelet/cri/remote.(*remoteRuntimeService).ListPodSandbox(0xc0003a4e40, 0x0)',
      '\t/workspace/src/k8s.io/kubernetes/pkg/kubelet/cri/remote/remote_runtime.go:223 +0x16e',
      'k8s.io/kubernetes/pkg/kubelet/kuberuntime.(*kubeGenericRuntimeManager).GetPods(0xc0006ba000, 0x1)',
      '\t/workspace/src/k8s.io/kubernetes/pkg/kubelet/kuberuntime/kuberuntime_manager.go:341 +0x6a',
      'k8s.io/kubernetes/pkg/kubelet/pleg.(*GenericPLEG).relist(0xc000b84000)',
      '\t/workspace/src/k8s.io/kubernetes/pkg/kubelet/pleg/generic.go:191 +0xd3',
      '',
    ].join('\n');
    const { a } = run({ 'kubelet-goroutines.txt': dump });
    const n = node(a);
    expect(n.verdict.plegUnhealthy).toBe(true);
    expect(n.stalls[0]?.maxLastSeenAgoSeconds).toBe(14 * 60);
    expect(n.verdict.primaryCause).toBe('runtime_timeout');
    // Which step, which call: the question users ask most.
    expect(n.findings[0]?.summary).toMatch(/the relist goroutine has waited 14 min \(select\) listing pods and containers \(GetPods\), in ListPodSandbox/);
  });

  it('a pprof debug=1 dump cut by grep -C (no header): a dockershim goroutine in the CNI status call', () => {
    const dump = [
      '$ grep -C 8 relist goroutine-dump.txt',
      '#\t0x3a1c2f0\tk8s.io/kubernetes/pkg/kubelet/dockershim/network/cni.(*cniNetworkPlugin).GetPodNetworkStatus+0x2a0\t/workspace/src/k8s.io/kubernetes/pkg/kubelet/dockershim/network/cni/cni.go:339',
      '#\t0x3a0d1a1\tk8s.io/kubernetes/pkg/kubelet/dockershim/network.(*PluginManager).GetPodNetworkStatus+0x130\t/workspace/src/k8s.io/kubernetes/pkg/kubelet/dockershim/network/plugins.go:389',
      '#\t0x3a2e801\tk8s.io/kubernetes/pkg/kubelet/dockershim.(*dockerService).getIPFromPlugin+0x1c1\t/workspace/src/k8s.io/kubernetes/pkg/kubelet/dockershim/docker_sandbox.go:329',
      '#\t0x3a2f28e\tk8s.io/kubernetes/pkg/kubelet/dockershim.(*dockerService).PodSandboxStatus+0x12e\t/workspace/src/k8s.io/kubernetes/pkg/kubelet/dockershim/docker_sandbox.go:445',
    ].join('\n');
    const log = 'Mar 04 02:11:09 node-7 kubelet[2210]: I0304 02:11:09.412017    2210 kubelet.go:1839] skipping pod synchronization - [PLEG is not healthy: pleg was last seen active 3m9.01s ago; threshold is 3m0s]\n';
    const { a } = run({ 'stack.txt': dump, 'kubelet.log': log });
    expect(node(a).verdict.primaryCause).toBe('cni_hang');
    expect(a.inputs[0]?.artifacts.find((x) => x.path === 'stack.txt')?.role).toBe('goroutine-dump');
  });
});

describe('shapes with no prefix, and prompts of any kind', () => {
  it('a Ready row cut to reason and message is a stall at second hand', () => {
    const { a } = run({ 'describe.txt': 'KubeletNotReady    PLEG is not healthy: pleg was last seen active 4m2.5s ago; threshold is 3m0s\n' });
    expect(node(a).verdict.plegUnhealthy).toBe(true);
    expect(node(a).stalls[0]?.maxLastSeenAgoSeconds).toBe(242.5);
  });

  it('a transcript whose prompt is a bare path, ^C after a docker command: the runtime hung', () => {
    const { a } = run({ 'notes.txt': ['~/incident-42$ sudo docker ps -a', '^C', '~/incident-42$ crictl ps', 'FATA[0010] listing containers: rpc error: code = DeadlineExceeded desc = context deadline exceeded', ''].join('\n') });
    expect(causes(node(a))).toContain('runtime_timeout');
  });

  it('runtime messages with no time or prefix in a file named for the runtime get a report, not "nothing to analyze"', () => {
    const { status, a } = run({ 'containerd.log': 'failed to shutdown shim task  error="context deadline exceeded"  id=4f0c9a7e1b2d\nStopContainer for "4f0c9a7e1b2d" returns successfully\n' });
    expect(status).toBe(0);
    expect(a.inputs[0]?.artifacts.find((x) => x.path === 'containerd.log')?.role).toBe('runtime-log');
    expect(causes(node(a))).toContain('runtime_timeout');
  });

  it('console points pasted without their series line are read and described', () => {
    const pts = ['1.2 @1700000000.1', '1.2 @1700000030.1', '1.2 @1700000060.1', '1.2 @1700000090.1', ''].join('\n');
    const { status, a } = run({ 'prom.txt': pts });
    expect(status).toBe(0);
    expect(a.warnings.some((w) => /4 points of a series whose name was not pasted.*held one value \(1\.2\)/.test(w.message))).toBe(true);
  });

  it('paste damage inside the age (blanks in the digits) is repaired', () => {
    const { a } = run({ 'kubelet.log': 'I0811 16:05:03.437165    3696 kubelet.go:1826] skipping pod synchronization - PLEG is not healthy: pleg was last seen active 3m5.1    20934s ago; threshold is 3m0s\n' });
    expect(node(a).stalls[0]?.maxLastSeenAgoSeconds).toBeCloseTo(185.120934, 3);
  });

  it('a containerized kubelet (klog lines under the runtime\'s journal name) is the kubelet', () => {
    const line = (t: string, age: string) => `Jun 02 10:${t} edge-3 docker[911]: I0602 10:${t}.000100     702 kubelet.go:1820] skipping pod synchronization - [PLEG is not healthy: pleg was last seen active ${age} ago; threshold is 3m0s]`;
    const { a } = run({ 'syslog': [line('00:00', '5m1s'), line('00:05', '5m6s'), ''].join('\n') });
    expect(node(a).verdict.plegUnhealthy).toBe(true);
  });
});

describe('signals of the added cases, in general form', () => {
  it('connection reset by peer on the runtime socket and systemd starting the runtime: a runtime restart', () => {
    const log = [
      'Apr 02 08:00:01 w5 systemd[1]: Starting containerd container runtime...',
      'Apr 02 08:00:01 w5 kubelet[900]: E0402 08:00:01.100000     900 remote_runtime.go:356] "ListContainers with filter from runtime service failed" err="rpc error: code = Unknown desc = read unix @->/run/containerd/containerd.sock: read: connection reset by peer"',
      '',
    ].join('\n');
    const { a } = run({ 'journal.log': log });
    expect(causes(node(a))).toContain('runtime_restart');
  });

  it('"never succeeded" for longer than a start-up takes, with no kubelet start in the input, is a stall', () => {
    const line = (s: string) => `Nov 08 16:25:${s} n1 kubelet[7]: I1108 16:25:${s}.761754       7 kubelet.go:1758] skipping pod synchronization - [PLEG is not healthy: pleg was last seen active 2562047h47m16.854775807s ago; threshold is 3m0s]`;
    const { a } = run({ 'kubelet.log': [line('10'), line('15'), line('20'), line('25'), ''].join('\n') });
    const s = node(a).stalls[0];
    expect(s?.relistNeverSucceeded).toBe(true);
    expect(s?.lastRelistAt).toBeNull();
  });

  it('the same sentinel in the first second after a kubelet start is start-up, not a stall', () => {
    const { a } = run({ 'kubelet.log': [
      'Nov 08 16:25:10 n1 kubelet[7]: I1108 16:25:10.100000       7 kubelet.go:1799] Starting kubelet main sync loop.',
      'Nov 08 16:25:10 n1 kubelet[7]: I1108 16:25:10.200000       7 kubelet.go:1758] skipping pod synchronization - [PLEG is not healthy: pleg was last seen active 2562047h47m16.854775807s ago; threshold is 3m0s]',
      '',
    ].join('\n') });
    expect(node(a).verdict.plegUnhealthy).toBe(false);
  });
});

describe('say no more than the input shows', () => {
  it('a goroutine dump, a runtime log or a few event rows alone: PLEG state unknown, never healthy', () => {
    const { a } = run({ 'events.txt': 'Events:\n  Type    Reason        Age   From     Message\n  ----    ------        ----  ----     -------\n  Normal  NodeNotReady  10s   kubelet  Node w1 status is now: NodeNotReady\n' });
    expect(node(a).verdict.plegState).toBe('unknown');
    expect(node(a).coverage.plegHealthyBy).toBeUndefined();
  });

  it('healthy only with what shows relist working, named in coverage', () => {
    const lines: string[] = [];
    for (let m = 0; m <= 6; m++) lines.push(`Mar 11 10:0${m}:00 w1 kubelet[5]: I0311 10:0${m}:00.000000       5 kubelet.go:2204] "SyncLoop (PLEG): event for pod" pod="default/web-${m}" event=&{ID:1 Type:ContainerStarted Data:abc}`);
    const { a } = run({ 'kubelet.log': `${lines.join('\n')}\n` });
    expect(node(a).verdict.plegState).toBe('healthy');
    expect(node(a).coverage.plegHealthyBy?.join(' ')).toMatch(/working relist|kubelet log of 6 min/);
  });

  it('one unhealthy line rules nothing out: the absences are "not seen", with a gap', () => {
    const { a } = run({ 'kubelet.log': 'Mar 11 10:20:00 w1 kubelet[5]: E0311 10:20:00.000000       5 kubelet.go:2200] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3m20s ago; threshold is 3m0s"\n' });
    const n = node(a);
    expect(n.ruledOut).toEqual([]);
    expect(n.notSeen?.map((x) => x.cause)).toContain('runtime_timeout');
    expect(n.gaps[0]?.missing).toBe('log lines around the stall');
  });
});

describe('repair tools restart the runtime: who, and why', () => {
  it("GKE's health-monitor.sh killing containerd is the restart's cause, named", () => {
    const log = [
      'May 20 03:10:02 gke-pool-1-abcd health-monitor.sh[1201]: Container runtime containerd failed!',
      'May 20 03:10:03 gke-pool-1-abcd systemd[1]: containerd.service: Main process exited, code=killed, status=9/KILL',
      'May 20 03:10:08 gke-pool-1-abcd systemd[1]: Started containerd container runtime.',
      '',
    ].join('\n');
    const { a } = run({ 'journal.log': log });
    const f = node(a).findings.find((x) => x.cause === 'runtime_restart');
    expect(f?.summary).toMatch(/GKE health-monitor\.sh \(health-monitor\.sh\) killed the runtime 1 time because its health check failed/);
    expect(f?.evidence.some((e) => e.line === 1)).toBe(true);
  });
});

describe('Evented PLEG', () => {
  const log = [
    'Jan 10 09:00:00 w9 kubelet[42]: I0110 09:00:00.000000      42 flags.go:64] FLAG: --feature-gates="EventedPLEG=true"',
    'Jan 10 09:10:00 w9 kubelet[42]: I0110 09:10:00.000000      42 evented.go:218] "Evented PLEG: Failed to get container events, retrying: " err="rpc error: code = Unimplemented desc = unknown method GetContainerEvents"',
    'Jan 10 09:10:02 w9 kubelet[42]: I0110 09:10:02.000000      42 evented.go:205] "Fall back to Generic PLEG relisting since Evented PLEG is not working"',
  ];
  it('the fall-back to generic relisting is a finding', () => {
    const { a } = run({ 'kubelet.log': `${log.join('\n')}\n` });
    expect(node(a).findings.map((f) => f.ruleId)).toContain('evented-pleg-fallback');
  });
  it('its channel-full unhealthy line is a finding, and no "healthy" verdict stands beside it', () => {
    const full = 'Jan 10 09:20:00 w9 kubelet[42]: E0110 09:20:00.000000      42 kubelet.go:2395] "Skipping pod synchronization" err="PLEG is not healthy: EventedPLEG: pleg event channel capacity is full with 1000 events"';
    const { a } = run({ 'kubelet.log': `${[...log, full].join('\n')}\n` });
    expect(node(a).findings.map((f) => f.ruleId)).toContain('evented-channel-full');
    expect(node(a).verdict.plegState).not.toBe('healthy');
  });
});

describe('no "PLEG healthy" from inputs that cannot show relist, in JUnit too', () => {
  const kcm = [
    'Sep 12 01:00:08 master1 hyperkube[8135]: I0912 01:00:08.572421    8135 leaderelection.go:215] sucessfully acquired lease kube-system/kube-controller-manager',
    'Sep 12 01:00:48 master1 hyperkube[8135]: I0912 01:00:48.920296    8135 nodecontroller.go:608] NodeController detected that node-2 has not updated its status: its Ready condition is Unknown',
    '',
  ].join('\n');
  it('a controller manager\'s log: unknown, and pleg-healthy skipped with the reason', () => {
    const { a } = run({ 'kube-controller-manager.log': kcm });
    for (const n of a.nodes) expect(n.verdict.plegState).not.toBe('healthy');
    const dir = dirs[dirs.length - 1] as string;
    const junit = spawnSync(process.execPath, [BIN, 'analyze', dir, '--format', 'junit', '--year', '2016'], { encoding: 'utf8', timeout: 60_000 }).stdout;
    expect(junit).toMatch(/<testcase [^>]*name="pleg-healthy"[^>]*>\s*<skipped message="PLEG state unknown/);
  });
});

describe('describe fragments without their headers', () => {
  it('a few Events rows pasted without the table header are describe output', () => {
    const { a } = run({ 'events.txt': '  Warning  ContainerGCFailed  3m (x5 over 20m)  kubelet  rpc error: code = DeadlineExceeded desc = context deadline exceeded\n  Normal   NodeNotReady       2m                 kubelet  Node w1 status is now: NodeNotReady\n' });
    expect(a.inputs[0]?.artifacts.find((x) => x.path === 'events.txt')?.role).toBe('node-describe');
    expect(node(a).verdict.plegState).toBe('unknown');
  });
});
