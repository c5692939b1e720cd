import { describe, expect, it } from 'vitest';
import { eventsOf, signalsOf } from '../helpers/signals.js';
import type { EventOf } from '../../src/signals/events.js';

const one = async <T extends string>(line: string, type: T) => {
  const evs = (await eventsOf(line + '\n')).filter((e) => e.type === type);
  expect(evs).toHaveLength(1);
  return evs[0] as EventOf<T & EventOf<never>['type']> & Record<string, unknown>;
};

describe('PLEG health lines across versions', () => {
  it('1.21+ structured skip line', async () => {
    const e = await one('Nov 28 14:02:06 n1 kubelet[308309]: E1128 14:02:06.631719  308309 kubelet.go:1870] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3m0.416753742s ago; threshold is 3m0s"', 'relist-unhealthy');
    expect(e['ageSeconds']).toBeCloseTo(180.416753742, 6);
    expect(e['source']).toBe('sync-loop');
    expect(e['neverSucceeded']).toBe(false);
  });
  it('1.15 printf (I level) and 1.16-1.20 printf (E level)', async () => {
    expect((await one('I0811 16:05:03.437165    3696 kubelet.go:1826] skipping pod synchronization - PLEG is not healthy: pleg was last seen active 3m0.322579259s ago; threshold is 3m0s', 'relist-unhealthy'))['ageSeconds']).toBeCloseTo(180.322579259, 6);
    expect((await one('Oct 08 16:37:11 worker9 kubelet[1636]: E1008 16:37:11.985620    1636 kubelet.go:1846] skipping pod synchronization - PLEG is not healthy: pleg was last seen active 4m38.209858468s ago; threshold is 3m0s', 'relist-unhealthy'))['ageSeconds']).toBeCloseTo(278.209858468, 6);
  });
  it('≤1.12 sentinel and "yet to be successful" mean never succeeded, with runtime-down noted', async () => {
    const s = await one('I0715 10:43:28.049240   16315 kubelet.go:1835] skipping pod synchronization - [container runtime is down PLEG is not healthy: pleg was last seen active 2562047h47m16.854775807s ago; threshold is 3m0s]', 'relist-unhealthy');
    expect(s['neverSucceeded']).toBe(true);
    expect(s['ageSeconds']).toBeNull();
    expect(s['runtimeDown']).toBe(true);
    const y = await one('I0330 01:26:49.557551    4210 kubelet.go:1823] skipping pod synchronization - [container runtime status check may not have completed yet., PLEG is not healthy: pleg has yet to be successful.]', 'relist-unhealthy');
    expect(y['neverSucceeded']).toBe(true);
  });
  it('node condition lines (%+v and JSON) and NotReady / Ready records', async () => {
    const evs = await eventsOf([
      'Jul 03 20:02:28 xxx-worker-004 kubelet[9]: I0703 20:02:28.966255       9 setters.go:559] Node became not ready: {Type:Ready Status:False LastHeartbeatTime:2023-07-03 20:02:28.966255129 +0800 CST m=+7095087.092396567 LastTransitionTime:2023-07-03 20:02:28.966255129 +0800 CST m=+7095087.092396567 Reason:KubeletNotReady Message:PLEG is not healthy: pleg was last seen active 3m3.111515826s ago; threshold is 3m0s}',
      'Nov 21 10:03:01 node-1 kubelet[1234]: I1121 10:03:01.218877    1234 kubelet_node_status.go:669] "Recording event message for node" node="node-1" event="NodeNotReady"',
      'Nov 21 10:03:01 node-1 kubelet[1234]: I1121 10:03:01.218901    1234 setters.go:552] "Node became not ready" node="node-1" condition={"type":"Ready","status":"False","reason":"KubeletNotReady","message":"PLEG is not healthy: pleg was last seen active 3m0.096s ago; threshold is 3m0s"}',
      'Nov 21 10:09:01 node-1 kubelet[1234]: I1121 10:09:01.218877    1234 kubelet_node_status.go:669] "Recording event message for node" node="node-1" event="NodeReady"',
      'Jul 03 20:10:00 xxx-worker-004 kubelet[9]: I0703 20:10:00.000000       9 kubelet_node_status.go:486] Recording NodeReady event message for node xxx-worker-004',
    ].join('\n') + '\n', { year: 2023 });
    const types = evs.map((e) => e.type);
    expect(types.filter((t) => t === 'node-not-ready')).toHaveLength(3);
    expect(types.filter((t) => t === 'node-ready')).toHaveLength(2);
    expect(types.filter((t) => t === 'relist-unhealthy')).toHaveLength(2);
    const cond = evs.find((e) => e.type === 'relist-unhealthy' && e.source === 'node-condition');
    expect(cond).toBeTruthy();
  });
});

describe('CRI errors', () => {
  it('printf ≤1.20 chain: client, wrapper, relist failure', async () => {
    const evs = await eventsOf([
      'E0410 11:00:24.552145     642 remote_runtime.go:203] ListPodSandbox with filter nil from runtime service failed: rpc error: code = DeadlineExceeded desc = context deadline exceeded',
      'E0410 11:00:24.552193     642 kuberuntime_sandbox.go:218] ListPodSandbox failed: rpc error: code = DeadlineExceeded desc = context deadline exceeded',
      'E0410 11:00:24.552210     642 generic.go:205] GenericPLEG: Unable to retrieve pods: rpc error: code = DeadlineExceeded desc = context deadline exceeded',
    ].join('\n') + '\n');
    const cri = evs.filter((e) => e.type === 'cri-error') as Array<EventOf<'cri-error'>>;
    expect(cri.map((e) => [e.op, e.layer, e.code])).toEqual([['list_podsandbox', 'client', 'DeadlineExceeded'], ['list_podsandbox', 'caller', 'DeadlineExceeded']]);
    expect(evs.some((e) => e.type === 'relist-failed' && e.code === 'DeadlineExceeded')).toBe(true);
  });
  it('1.31+ log.go:32 caller, JSON logging, container IDs', async () => {
    const a = await one('E1121 10:00:03.121001    1234 log.go:32] "ContainerStatus from runtime service failed" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded" containerID="a13cf8c09114353463c0deac39ac541c9c774f8a34dc4b3b911b1832b9f5302e"', 'cri-error');
    expect(a['op']).toBe('container_status');
    expect(a['containerId']).toBe('a13cf8c09114353463c0deac39ac541c9c774f8a34dc4b3b911b1832b9f5302e');
    const j = await one('{"ts":1753121294157.29,"caller":"internal/log.go:32","msg":"RunPodSandbox from runtime service failed","err":"rpc error: code = DeadlineExceeded desc = context deadline exceeded"}', 'cri-error');
    expect(j['op']).toBe('run_podsandbox');
    const p = await one('E0302 16:05:01.000102    2001 remote_runtime.go:295] ContainerStatus "4b6e5b0f5d7e" from runtime service failed: rpc error: code = 4 desc = context deadline exceeded', 'cri-error');
    expect(p['code']).toBe('DeadlineExceeded');
    expect(p['containerId']).toBe('4b6e5b0f5d7e');
  });
  it('PodSandboxStatus errors come from kuberuntime (the client does not log them)', async () => {
    const e = await one('E0620 23:59:19.340936  105799 kuberuntime_manager.go:861] PodSandboxStatus of sandbox "9c3b1f" for pod "coredns-7f9c544f75-8thxc_kube-system(90811698-2454-44cf-9d92-2b4bece37207)" error: rpc error: code = DeadlineExceeded desc = context deadline exceeded', 'cri-error');
    expect(e['op']).toBe('podsandbox_status');
    expect(e['sandboxId']).toBe('9c3b1f');
    expect(e['pod']).toContain('coredns-7f9c544f75-8thxc');
  });
  it('runtime unreachable', async () => {
    const e = await one('E1121 10:00:03.121001    1234 remote_runtime.go:277] "ListPodSandbox with filter from runtime service failed" err="rpc error: code = Unavailable desc = connection error: desc = \\"transport: Error while dialing: dial unix /run/containerd/containerd.sock: connect: connection refused\\"" filter="nil"', 'cri-error');
    expect(e['code']).toBe('Unavailable');
  });
});

describe('kernel, runtime daemons, CNI', () => {
  it('kernel lines in a journal and in raw dmesg (no time: kept, not placed)', async () => {
    const evs = await eventsOf([
      'Mar 11 10:05:00 worker-3 kernel: INFO: task dockerd:1234 blocked for more than 120 seconds.',
      '[ 4711.123456] nfs: server 10.0.0.5 not responding, still trying',
      '[ 4712.000001] unregister_netdevice: waiting for eth0 to become free. Usage count = 1',
      'Mar 11 10:06:00 worker-3 kernel: Out of memory: Killed process 901 (containerd) total-vm:1GB',
    ].join('\n') + '\n');
    expect(evs.map((e) => e.type).sort()).toEqual(['hung-task', 'netdev-unregister', 'nfs-not-responding', 'oom-kill']);
    expect(Number.isNaN((evs.find((e) => e.type === 'nfs-not-responding') as EventOf<'nfs-not-responding'>).ts)).toBe(true);
  });
  it('dockerd broken pipe, containerd get state timeout, cri-o stop without stopped', async () => {
    const evs = await eventsOf([
      'Mar 11 10:01:00 w dockerd[800]: time="2024-03-11T10:01:00.000000000Z" level=error msg="Handler for GET /v1.41/containers/json returned error: write unix /var/run/docker.sock->@: write: broken pipe"',
      'Mar 11 10:01:01 w containerd[901]: time="2024-03-11T10:01:01.118307051Z" level=error msg="get state for 3f1c0a9b8c7d" error="context deadline exceeded: unknown"',
      'Mar 11 10:01:02 w crio[1100]: time="2024-03-11 10:01:02.000000000Z" level=info msg="Stopping container: 5e6f7a8b9c0d1e2f (timeout: 30s)" id=abc name=/runtime.v1.RuntimeService/StopContainer',
    ].join('\n') + '\n');
    expect(evs.find((e) => e.type === 'runtime-daemon-error' && e.kind === 'broken-pipe')).toBeTruthy();
    expect(evs.find((e) => e.type === 'runtime-daemon-error' && e.kind === 'state-timeout')).toBeTruthy();
    expect(evs.find((e) => e.type === 'crio-stopping')).toMatchObject({ containerId: '5e6f7a8b9c0d1e2f', timeoutSeconds: 30 });
  });
  it('dockershim CNI status hook (both casings) and set-up calls', async () => {
    const evs = await eventsOf([
      'Mar 28 15:10:51 master01 kubelet: W0328 15:10:51.563163   21732 docker_sandbox.go:394] failed to read pod IP from plugin/docker: networkPlugin cni failed on the status hook for pod "coredns-67c766df46-pvbxt_kube-system": CNI failed to retrieve network namespace path: cannot find network namespace for the terminated container "ff30af42"',
      'E0101 00:00:01.000000   21732 pod_workers.go:190] Error syncing pod: NetworkPlugin cni failed on the status hook for pod "web-1_default": timeout',
      'I0101 00:00:02.000000   21732 plugins.go:391] Calling network plugin cni to set up pod "web-2_default"',
    ].join('\n') + '\n', { year: 2019 });
    const cni = evs.filter((e) => e.type === 'cni-error') as Array<EventOf<'cni-error'>>;
    // The first one is the everyday "container already gone" noise, not a hang.
    expect(cni.map((e) => [e.phase, e.plugin])).toEqual([['other', 'cni'], ['status', 'cni']]);
    expect(evs.find((e) => e.type === 'cni-call')).toMatchObject({ phase: 'setup', pod: 'web-2_default', plugin: 'cni' });
  });
  it('pid exhaustion and slow du', async () => {
    const evs = await eventsOf([
      'E0101 00:00:01.000000    999 pod_workers.go:190] Error syncing pod: failed to start container: fork/exec /usr/bin/runc: resource temporarily unavailable',
      'W0101 00:00:02.000000    999 fsHandler.go:135] du and find on following dirs took 1m22.497011342s: [/var/lib/docker/overlay2/abc]',
    ].join('\n') + '\n', { year: 2019 });
    expect(evs.map((e) => e.type)).toEqual(['pid-exhaustion', 'slow-disk-usage']);
  });
});

describe('extractor', () => {
  it('a PID change on the same identifier is a restart marker; windows per host', async () => {
    const s = await signalsOf([
      'Mar 11 10:00:00 w kubelet[100]: E0311 10:00:00.000000     100 generic.go:205] GenericPLEG: Unable to retrieve pods: rpc error: code = Unknown desc = x',
      'Mar 11 10:05:00 w kubelet[200]: E0311 10:05:00.000000     200 generic.go:205] GenericPLEG: Unable to retrieve pods: rpc error: code = Unknown desc = x',
      'Mar 11 10:06:00 w kubelet[200]: I0311 10:06:00.000000     200 kubelet.go:1 something unrelated',
    ].join('\n') + '\n');
    expect(s.events.filter((e) => e.type === 'kubelet-line')).toHaveLength(1);
    expect(s.hosts).toHaveLength(1);
    expect(new Date(s.hosts[0]!.last).toISOString()).toBe('2024-03-11T10:06:00.000Z');
  });
  it('the prefilter changes nothing but speed', async () => {
    const text = [
      '-- Logs begin at Mon 2024-03-11 08:00:01 UTC, end at Mon 2024-03-11 11:00:00 UTC. --',
      ...Array.from({ length: 300 }, (_, i) => `Mar 11 10:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')} w kubelet[1]: I0311 10:00:00.000000       1 prober.go:1] "Probe succeeded" probeType="Readiness" pod="ns/p-${i}"`),
      'Mar 11 10:06:00 w kubelet[1]: E0311 10:06:00.000000       1 kubelet.go:2373] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3m0.5s ago; threshold is 3m0s"',
      'Mar 11 10:06:01 w kubelet[1]: I0311 10:06:01.000000       1 kubelet.go:2434] "SyncLoop (PLEG): event for pod" pod="a/b" event={"ID":"x","Type":"ContainerStarted","Data":"y"}',
    ].join('\n');
    const fast = await signalsOf(text, { chunk: 50 });
    const slow = await signalsOf(text, { noPrefilter: true, chunk: 4096 });
    expect(fast.events).toEqual(slow.events);
    expect(fast.hosts).toEqual(slow.hosts);
    expect(fast.scan.lines).toBe(303);
  });
});

describe('other CRI timeouts', () => {
  it('a gRPC timeout in a line no specific matcher knows counts once, with the operation when named; one that names none is not a CRI timeout', async () => {
    const evs = await eventsOf([
      'E0715 10:00:01.000000    1248 pod_workers.go:186] Error syncing pod 0a8b ("nginx-1_default(0a8b)"), skipping: failed to "CreatePodSandbox" for "nginx-1_default(0a8b)" with CreatePodSandboxError: "RunPodSandbox for \\"nginx-1_default(0a8b)\\" failed: rpc error: code = DeadlineExceeded desc = context deadline exceeded"',
      'E0715 10:00:02.000000    1248 docker_service.go:400] failed to get the docker client version: operation timeout: context deadline exceeded',
      'E0715 10:00:03.000000    1248 remote_runtime.go:203] ListPodSandbox with filter nil from runtime service failed: rpc error: code = DeadlineExceeded desc = context deadline exceeded',
      'E0715 10:00:04.000000    1248 kubelet_node_status.go:377] Error updating node status, will retry: error getting node "n1": Get https://10.0.0.1:6443/api/v1/nodes/n1: context deadline exceeded',
    ].join('\n') + '\n', { year: 2019 });
    const cri = evs.filter((e) => e.type === 'cri-error') as Array<EventOf<'cri-error'>>;
    expect(cri.map((e) => [e.op, e.layer])).toEqual([['run_podsandbox', 'caller'], ['list_podsandbox', 'client']]);
    expect(evs.filter((e) => e.type === 'timeout-other').map((e) => (e as EventOf<'timeout-other'>).target)).toEqual(['runtime-wrapper']);
  });
});
