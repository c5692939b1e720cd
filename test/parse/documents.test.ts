// What a ticket carries besides logs, each recognised by its content (sniff) and read by a small parser: kubectl
// describe node (every layout), kubectl get nodes / events, node conditions as YAML or JSON fragments, kubelet
// /healthz output, crictl/docker command transcripts, and goroutine dumps of the kubelet, dockerd and containerd.
import { describe, expect, it } from 'vitest';
import { sniff } from '../../src/sources/files/sniff.js';
import { parseDescribeNode, parseGetNodes, parseAge } from '../../src/parse/describe-node.js';
import { parseConditionFragments } from '../../src/parse/node-object.js';
import { parseCliOutput } from '../../src/parse/cli-output.js';
import { GoroutineParser } from '../../src/parse/goroutines.js';
import { describeSignals, cliSignals, DescribeRows } from '../../src/signals/documents.js';
import { lineCount } from '../../src/signals/events.js';

const s = (text: string) => sniff(Buffer.from(text), 'x');
const lines = (...l: string[]) => l.join('\n') + '\n';

describe('kubectl describe node', () => {
  const modern = lines(
    'Name:               worker-2.example.internal',
    'Roles:              worker',
    'Conditions:',
    '  Type             Status  LastHeartbeatTime                 LastTransitionTime                Reason                       Message',
    '  ----             ------  -----------------                 ------------------                ------                       -------',
    '  MemoryPressure   False   Wed, 12 Apr 2023 09:30:02 +0200   Mon, 10 Apr 2023 08:00:00 +0200   KubeletHasSufficientMemory   kubelet has sufficient memory available',
    '  Ready            False   Wed, 12 Apr 2023 09:30:02 +0200   Wed, 12 Apr 2023 09:26:40 +0200   KubeletNotReady              PLEG is not healthy: pleg was last seen active 6m21.5s ago; threshold is 3m0s',
    'System Info:',
    '  Kernel Version:             5.14.0-284.30.1.el9_2.x86_64',
    '  Container Runtime Version:  cri-o://1.26.4-4.1.rhaos4.13.git92b763a.el9',
    '  Kubelet Version:            v1.26.7+c7ee51f',
    'Capacity:',
    '  pods:               250',
    'Non-terminated Pods:          (61 in total)',
    'Events:',
    '  Type     Reason        Age                  From     Message',
    '  ----     ------        ----                 ----     -------',
    '  Normal   NodeNotReady  3m22s (x3 over 2d)   kubelet  Node worker-2.example.internal status is now: NodeNotReady',
    '  Warning  ContainerGCFailed  3m  kubelet  rpc error: code = ResourceExhausted desc = grpc: trying to send message larger than max (16850112 vs. 16777216)',
  );

  it('is recognised by content and read: conditions, versions, pods, events', () => {
    expect(s(modern)).toEqual({ role: 'node-describe', format: 'kubectl-describe' });
    const d = parseDescribeNode(modern);
    expect(d.name).toBe('worker-2.example.internal');
    expect(d.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([['MemoryPressure', 'False', 'KubeletHasSufficientMemory'], ['Ready', 'False', 'KubeletNotReady']]);
    const ready = d.conditions[1]!;
    expect(new Date(ready.lastHeartbeatTime).toISOString()).toBe('2023-04-12T07:30:02.000Z');
    expect(new Date(ready.lastTransitionTime).toISOString()).toBe('2023-04-12T07:26:40.000Z');
    expect(ready.message).toContain('6m21.5s');
    expect([d.kubeletVersion, d.kernelVersion, d.podsCapacity, d.pods]).toEqual(['v1.26.7+c7ee51f', '5.14.0-284.30.1.el9_2.x86_64', 250, 61]);
    expect(d.events.map((e) => [e.type, e.reason, e.ageSeconds, e.count, e.from])).toEqual([['Normal', 'NodeNotReady', 202, 3, 'kubelet'], ['Warning', 'ContainerGCFailed', 180, 1, 'kubelet']]);
  });

  it('its signals: the stall dated at the heartbeat, NotReady, versions, the messages of its events', () => {
    const sig = describeSignals(parseDescribeNode(modern), 0, 20, 2000);
    const types = sig.events.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['node-not-ready', 'relist-unhealthy', 'grpc-size-limit', 'component-version']));
    const u = sig.events.find((e) => e.type === 'relist-unhealthy') as { ageSeconds: number; source: string; ts: number };
    expect([u.ageSeconds, u.source, new Date(u.ts).toISOString()]).toEqual([381.5, 'api-condition', '2023-04-12T07:30:02.000Z']);
    expect(sig.nodeNames).toEqual(['worker-2.example.internal']);
    expect(sig.events.filter((e) => e.type === 'component-version').map((e) => (e as { component: string; version: string }).component + ' ' + (e as { version: string }).version))
      .toEqual(['kubelet v1.26.7+c7ee51f', 'cri-o 1.26.4-4.1.rhaos4.13.git92b763a.el9', 'kernel 5.14.0-284.30.1.el9_2.x86_64']);
  });

  it('old tab-separated layouts, rows without their header, a single row, Unknown from the node controller', () => {
    const tabs = '  Ready \t\tUnknown \tThu, 06 Jul 2017 18:57:38 -0700 \tThu, 06 Jul 2017 18:58:23 -0700 \tNodeStatusUnknown \tKubelet stopped posting node status.\n';
    expect(s(tabs).role).toBe('node-describe');
    const c = parseDescribeNode(tabs).conditions[0]!;
    expect([c.type, c.status, c.reason, c.message]).toEqual(['Ready', 'Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.']);
    const sig = describeSignals(parseDescribeNode(tabs), 0, 1, tabs.length);
    expect(sig.events.map((e) => e.type)).toEqual(['node-status-unknown']);
    const old = lines(
      'Events:',
      '  FirstSeen\tLastSeen\tCount\tFrom\t\t\tSubObjectPath\tType\t\tReason\t\tMessage',
      '  ---------\t--------\t-----\t----\t\t\t-------------\t--------\t------\t\t-------',
      '  12m\t\t12m\t\t1\tkubelet, node-4\t\t\tNormal\t\tNodeNotReady\tNode node-4 status is now: NodeNotReady',
    );
    expect(parseDescribeNode(old).events.map((e) => [e.reason, e.ageSeconds, e.from])).toEqual([['NodeNotReady', 720, 'kubelet, node-4']]);
  });

  it('node-problem-detector events and conditions go through the same matchers as kernel lines', () => {
    const npd = lines(
      '  KernelDeadlock   True    Tue, 03 Jan 2023 10:00:00 +0000   Tue, 03 Jan 2023 09:50:00 +0000   DockerHung   task docker:4242 blocked for more than 120 seconds.',
      '  Warning  TaskHung  2m  kernel-monitor  INFO: task kworker/u16:3:210 blocked for more than 120 seconds.',
    );
    const sig = describeSignals(parseDescribeNode(npd), 0, 2, npd.length);
    expect(sig.events.filter((e) => e.type === 'hung-task').map((e) => (e as { task: string }).task)).toEqual(['docker', 'kworker/u16:3']);
  });

  it('read from its bytes with the rows handed over one by one: the same output, and a table of 30 000 rows folded with every row counted', () => {
    const rows = new DescribeRows(0);
    const streamed = parseDescribeNode(Buffer.from(modern), (ev, name) => rows.row(ev, name));
    const whole = parseDescribeNode(modern);
    expect(streamed.events).toEqual([]);
    expect({ ...streamed, events: whole.events }).toEqual(whole);
    expect(describeSignals(streamed, 0, 20, 2000, rows)).toEqual(describeSignals(whole, 0, 20, 2000));
    // Every line the output holds is its own (none was a pasted log line).
    expect([1, 10, 19].map((l) => whole.consumed.has(l))).toEqual([true, true, true]);
    expect(whole.consumed.has(20)).toBe(false);
    const many = lines('Name: w1', 'Events:', '  Type     Reason     Age   From            Message', ...Array.from({ length: 30_000 }, (_, i) =>
      i % 2 ? `  Normal   NodeNotReady  ${i}s  kubelet  Node w1 status is now: NodeNotReady` : `  Warning  TaskHung  ${i}s  kernel-monitor  INFO: task foo-${i}:${i} blocked for more than 120 seconds.`));
    const big = new DescribeRows(0);
    const d = parseDescribeNode(Buffer.from(many), (ev, name) => big.row(ev, name));
    const sig = describeSignals(d, 0, 30_003, many.length, big);
    expect(sig.events.length).toBeLessThan(25_000);
    expect(lineCount(sig.events.filter((e) => e.type === 'hung-task'))).toBe(15_000);
    expect(lineCount(sig.events.filter((e) => e.type === 'node-not-ready' && e.host === 'w1'))).toBe(15_000);
    expect(sig.warnings).toEqual([]);
  });

  it('past 50 000 events of a kind that does not fold, the further rows are counted in a warning', () => {
    const rows = new DescribeRows(0);
    for (let i = 0; i < 50_010; i++) rows.row({ type: 'Normal', reason: 'Starting', ageSeconds: 1, count: 1, from: 'kubelet', message: 'Starting kubelet.', node: null, line: i + 4, text: '  Normal  Starting  1s  kubelet  Starting kubelet.' }, 'w1');
    const sig = describeSignals(parseDescribeNode('Name: w1\n'), 0, 50_013, 1 << 20, rows);
    expect(sig.events.filter((e) => e.type === 'kubelet-start')).toHaveLength(50_000);
    expect(sig.warnings.map((w) => w.message)).toEqual(['10 events row(s) past the first 50000 events they gave: counted, not read']);
  });

  it('event ages', () => {
    expect(parseAge('5m23s')).toEqual({ seconds: 323, count: 1 });
    expect(parseAge('2d3h (x12 over 5d)')).toEqual({ seconds: 2 * 86400 + 3 * 3600, count: 12 });
    expect(parseAge('<invalid>')).toEqual({ seconds: null, count: 1 });
  });
});

describe('kubectl get nodes, node conditions as fragments', () => {
  it('a node listing: only NotReady nodes, with their versions', () => {
    const t = lines('NAME          STATUS                        ROLES    AGE   VERSION', 'w-1           Ready                         <none>   9d    v1.24.17', 'w-2           NotReady,SchedulingDisabled   <none>   9d    v1.24.17');
    expect(s(t)).toEqual({ role: 'node-describe', format: 'kubectl-get-nodes' });
    expect(parseGetNodes(t).map((r) => [r.name, r.status, r.version])).toEqual([['w-1', 'Ready', 'v1.24.17'], ['w-2', 'NotReady,SchedulingDisabled', 'v1.24.17']]);
  });

  it('YAML (indented, as cut from `-o yaml`) and JSON (an object, a fragment of one)', () => {
    const yaml = lines(
      '    conditions:',
      '    - lastHeartbeatTime: "2022-05-02T03:04:05Z"',
      '      lastTransitionTime: "2022-05-02T03:00:00Z"',
      "      message: 'PLEG is not healthy: pleg was last seen active 4m5s ago; threshold is 3m0s'",
      '      reason: KubeletNotReady',
      '      status: "False"',
      '      type: Ready',
    );
    expect(s(yaml)).toEqual({ role: 'node-describe', format: 'node-conditions' });
    const y = parseConditionFragments(yaml).conditions[0]!;
    expect([y.type, y.status, y.reason, y.line, new Date(y.lastHeartbeatTime).toISOString()]).toEqual(['Ready', 'False', 'KubeletNotReady', 4, '2022-05-02T03:04:05.000Z']);
    const json = '"conditions": [\n  {"type": "Ready", "status": "False", "lastHeartbeatTime": "2022-05-02T03:04:05Z", "reason": "KubeletNotReady", "message": "PLEG is not healthy: pleg was last seen active 4m5s ago; threshold is 3m0s"}\n],\n';
    expect(s(json).format).toBe('node-conditions');
    expect(parseConditionFragments(json).conditions.map((c) => [c.type, c.line])).toEqual([['Ready', 2]]);
  });

  it('negative: a kubelet log quoting a condition is a log', () => {
    const log = 'Nov 21 10:03:01 node-1 kubelet[1234]: I1121 10:03:01.218901    1234 setters.go:552] "Node became not ready" node="node-1" condition={"type":"Ready","status":"False","reason":"KubeletNotReady","message":"PLEG is not healthy: pleg was last seen active 3m0.096s ago; threshold is 3m0s"}\n';
    expect(s(log).role).toBe('kubelet-log');
  });
});

describe('command transcripts (crictl, docker, versions)', () => {
  it('a crictl call that timed out, a size limit, a hung command, a fast one', () => {
    const t = lines(
      '[root@w3 ~]# crictl pods',
      'FATA[0002] listing pod sandboxes: rpc error: code = ResourceExhausted desc = grpc: trying to send message larger than max (16790000 vs. 16777216)',
      '[root@w3 ~]# crictl ps',
      'FATA[0010] listing containers: rpc error: code = DeadlineExceeded desc = context deadline exceeded',
      '$ docker ps',
      '^C',
      'time docker info',
      'real\t0m0.212s',
    );
    expect(s(t)).toEqual({ role: 'cli-output', format: 'cli-transcript' });
    const c = parseCliOutput(t);
    expect(c.results.map((r) => [r.tool, r.outcome, r.seconds])).toEqual([['crictl', 'size-limit', null], ['crictl', 'timeout', null], ['docker', 'hung', null], ['docker', 'ok', 0.212]]);
    const sig = cliSignals(c, 0, 8, t.length);
    expect(sig.events.filter((e) => e.type === 'grpc-size-limit')).toHaveLength(1);
  });

  it('versions: docker info (with the runc commit it bundles), docker/crictl version, -v outputs, uname', () => {
    const t = lines(
      'Containers: 2511', 'Running: 38', 'Paused: 0', 'Stopped: 2473', 'Server Version: 17.03.2-ce', 'Kernel Version: 3.10.0-862.el7.x86_64',
      'runc version: 4fc53a81fb7c994640722ac585fa9ca548971871',
      '', '$ crictl version', 'Version:  0.1.0', 'RuntimeName:  containerd', 'RuntimeVersion:  v1.4.3', 'RuntimeApiVersion:  v1alpha2',
      '', '$ runc --version', 'runc version 1.0.0-rc93', 'commit: 12644e614e25b05da6fd08a38ffa0cfe1903fdec',
      '', '$ uname -a', 'Linux w3 3.10.0-862.el7.x86_64 #1 SMP Wed Mar 21 18:14:51 EDT 2018 x86_64 x86_64 x86_64 GNU/Linux',
    );
    const c = parseCliOutput(t);
    expect(c.versions.map((v) => `${v.component} ${v.version}`)).toEqual(['docker 17.03.2-ce', 'kernel 3.10.0-862.el7.x86_64', 'runc 1.0.0-rc5', 'containerd 1.4.3', 'runc 1.0.0-rc93', 'kernel 3.10.0-862.el7.x86_64']);
    expect(c.containers).toMatchObject({ kind: 'docker-info', containers: 2511, running: 38, exited: 2473 });
  });

  it('crictl info: the runtime\'s own NetworkReady condition', () => {
    const t = '$ crictl info\n{\n  "status": {\n    "conditions": [\n      {"type": "RuntimeReady", "status": true},\n      {"type": "NetworkReady", "status": false, "reason": "NetworkPluginNotReady", "message": "cni plugin not initialized"}\n    ]\n  }\n}\n';
    const c = parseCliOutput(t);
    expect(c.conditions.map((k) => [k.type, k.reason, k.line])).toEqual([['NetworkReady', 'NetworkPluginNotReady', 6]]);
  });

  it('log lines pasted inside a transcript are left to the log reader', () => {
    const t = lines('$ journalctl -u containerd | tail -1', 'Mar 11 10:12:44 w3 containerd[901]: time="2024-03-11T10:12:44.118Z" level=error msg="get state for 3f1c0a" error="context deadline exceeded: unknown"');
    const c = parseCliOutput(t);
    expect(c.consumed.has(2)).toBe(false);
    expect(c.consumed.has(1)).toBe(true);
  });
});

describe('kubelet /healthz', () => {
  it('is a role of its own', () => {
    expect(s(lines('[+]ping ok', '[+]log ok', '[-]syncloop failed: reason withheld', 'healthz check failed'))).toEqual({ role: 'healthz', format: 'healthz' });
  });
});

describe('goroutine dumps', () => {
  const parse = (text: string) => {
    const p = new GoroutineParser();
    text.split('\n').forEach((l, i) => p.push(l, i + 1));
    return p.finish();
  };

  it('a kubelet dump written to the journal, indentation lost: a goroutine blocked in a file-system call', () => {
    const t = lines(
      '09:14:02 kubelet[5511]: goroutine 771 [syscall, 12 minutes]:',
      '09:14:02 kubelet[5511]: syscall.Syscall6(0x106, 0xffffffffffffff9c, 0xc000e1a0c0, 0xc000f4c4b8, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)',
      '09:14:02 kubelet[5511]: /usr/local/go/src/syscall/asm_linux_amd64.s:43 +0x5',
      '09:14:02 kubelet[5511]: syscall.fstatat(0xffffffffffffff9c, 0xc000e1a0a0, 0x40, 0xc000f4c4b8, 0x0, 0x0, 0x0)',
      '09:14:02 kubelet[5511]: /usr/local/go/src/syscall/zsyscall_linux_amd64.go:1440 +0xd2',
      '09:14:02 kubelet[5511]: k8s.io/kubernetes/vendor/k8s.io/mount-utils.(*Mounter).IsLikelyNotMountPoint(0xc0001d2060, 0xc000e1a0a0, 0x40, 0x0, 0x0, 0x0)',
    );
    expect(s(t)).toEqual({ role: 'goroutine-dump', format: 'goroutine-dump' });
    const g = parse(t);
    expect(g.program).toBe('kubelet');
    expect(g.fsWaits.map((w) => [w.id, w.waitMinutes])).toEqual([[771, 12]]);
    expect(g.fsWaits[0]!.frames).toContain('syscall.fstatat');
  });

  it('the same dump pasted into a ticket (`> ` quoting, indentation, a code fence, double-spaced, grep -n) reads the same', () => {
    const t = lines(
      '09:14:02 kubelet[5511]: goroutine 771 [syscall, 12 minutes]:',
      '09:14:02 kubelet[5511]: syscall.fstatat(0xffffffffffffff9c, 0xc000e1a0a0, 0x40, 0xc000f4c4b8, 0x0, 0x0, 0x0)',
      '09:14:02 kubelet[5511]: /usr/local/go/src/syscall/zsyscall_linux_amd64.go:1440 +0xd2',
      '09:14:02 kubelet[5511]: k8s.io/kubernetes/vendor/k8s.io/mount-utils.(*Mounter).IsLikelyNotMountPoint(0xc0001d2060, 0xc000e1a0a0, 0x40, 0x0, 0x0, 0x0)',
      '',
      'goroutine 12 [semacquire, 5 minutes]:',
      'sync.runtime_SemacquireMutex(0xc42030a4e4, 0xc4208c3c00)',
      '\t/usr/local/go/src/runtime/sema.go:71 +0x3d',
      'k8s.io/kubernetes/pkg/kubelet/pleg.(*GenericPLEG).relist(0xc000788960)',
      '',
    );
    const shape = (g: ReturnType<typeof parse>) => ({
      program: g.program, total: g.total, fs: g.fsWaits.map((w) => [w.id, w.waitMinutes, w.frames]), relist: g.relist.map((r) => [r.id, r.state, r.frames]),
    });
    const plain = shape(parse(t));
    expect(plain.fs).toHaveLength(1);
    expect(plain.relist).toHaveLength(1);
    const quoted = t.split('\n').map((l) => `> ${l}`).join('\n');
    const fenced = ['```', ...t.split('\n').map((l) => `    ${l}`), '```'].join('\n');
    const doubleSpaced = t.split('\n').join('\n\n');
    const grepN = t.split('\n').map((l, i) => `${i + 1}:${l}`).join('\n');
    expect(shape(parse(quoted))).toEqual(plain);
    expect(shape(parse(fenced))).toEqual(plain);
    expect(shape(parse(doubleSpaced))).toEqual(plain);
    expect(shape(parse(grepN))).toEqual(plain);
  });

  it('a dockerd dump with goroutines piled up behind one lock', () => {
    const one = (id: number, m: number) => [
      `goroutine ${id} [semacquire, ${m} minutes]:`, 'sync.runtime_SemacquireMutex(0xc42030a4e4, 0xc4208c3c00)', '\t/usr/local/go/src/runtime/sema.go:71 +0x3d',
      'sync.(*Mutex).Lock(0xc42030a4e0)', '\t/usr/local/go/src/sync/mutex.go:134 +0xee',
      'github.com/docker/docker/container.(*State).Lock(...)', '\t/go/src/github.com/docker/docker/container/state.go:250',
      'github.com/docker/docker/daemon.(*Daemon).ContainerInspectCurrent(0xc4200b2000, 0xc420c1c1a0, 0x40, 0x0)', '\t/go/src/github.com/docker/docker/daemon/inspect.go:41 +0x5f', ''];
    const g = parse([...one(1, 30), ...one(2, 28), ...one(3, 12), ...one(4, 9)].join('\n'));
    expect(g.program).toBe('dockerd');
    expect(g.lockWait).toMatchObject({ count: 4, maxMinutes: 30, site: 'github.com/docker/docker/container.(*State).Lock' });
  });

  it('a crash traceback is a crash, and its relist frames are the crash\'s', () => {
    const t = lines(
      'Mar 03 19:21:03 w2 kubelet[88624]: fatal error: concurrent map read and map write',
      'Mar 03 19:21:03 w2 kubelet[88624]: goroutine 1420 [running]:',
      'Mar 03 19:21:03 w2 kubelet[88624]: k8s.io/kubernetes/pkg/kubelet/pleg.(*GenericPLEG).relist(0xc000788960)',
      'Mar 03 19:21:03 w2 kubelet[88624]:         pkg/kubelet/pleg/generic.go:214 +0x2c9 fp=0xc0011f5e20 sp=0xc0011f5910 pc=0x3316a89',
    );
    const g = parse(t);
    expect(g.crash?.message).toBe('fatal error: concurrent map read and map write');
    expect(g.relist.map((r) => r.state)).toEqual(['running']);
    expect(g.program).toBe('kubelet');
  });

  it('debug=1 (pprof) dumps keep working', () => {
    const g = parse(lines('goroutine profile: total 3', '2 @ 0x43a1c5 0x4069f7 0x1c2a4b5', '#\t0x1c2a4b4\tk8s.io/kubernetes/pkg/kubelet/pleg.(*GenericPLEG).relist+0x8c4\t/workspace/pkg/kubelet/pleg/generic.go:259', ''));
    expect([g.format, g.total, g.relist.length]).toEqual(['debug1', 2, 1]);
  });
});
