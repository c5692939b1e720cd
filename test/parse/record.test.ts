import { describe, expect, it } from 'vitest';
import { parseLine, parseMarker, type ParseContext } from '../../src/parse/record.js';
import { resolveZone, WallClock, YearClock } from '../../src/parse/time.js';

function ctx(year = 2024, tz = 'UTC'): ParseContext {
  const wall = new WallClock(resolveZone(tz));
  return { wall, years: new YearClock(wall, { year }) };
}

const iso = (ms: number): string => new Date(ms).toISOString();

describe('journal envelopes', () => {
  it('short: host, identifier, pid, structured klog payload', () => {
    const r = parseLine('Nov 21 10:00:03 node-1 kubelet[1234]: E1121 10:00:03.123456    1234 generic.go:238] "GenericPLEG: Unable to retrieve pods" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded"', 7, 100, ctx())!;
    expect(r.host).toBe('node-1');
    expect(r.ident).toBe('kubelet');
    expect(r.pid).toBe(1234);
    expect(r.kind).toBe('klog');
    expect(r.level).toBe('E');
    expect(r.caller).toBe('generic.go:238');
    expect(r.msg).toBe('GenericPLEG: Unable to retrieve pods');
    expect(r.fields['err']).toBe('rpc error: code = DeadlineExceeded desc = context deadline exceeded');
    // journal has whole seconds; the klog header of the same second gives the fraction
    expect(iso(r.ts)).toBe('2024-11-21T10:00:03.123Z');
    expect(r.line).toBe(7);
    expect(r.offset).toBe(100);
  });

  it('short-precise (oc adm node-logs) with kubenswrapper', () => {
    const r = parseLine('Mar 09 16:58:52.133046 master01 kubenswrapper[3195]: I0309 16:58:52.132866    3195 kubelet_getters.go:182] "Pod status updated" pod="openshift-etcd/etcd-master01" status="Running"', 1, 0, ctx())!;
    expect(r.host).toBe('master01');
    expect(r.ident).toBe('kubenswrapper');
    expect(iso(r.ts)).toBe('2024-03-09T16:58:52.133Z');
    expect(r.fields['pod']).toBe('openshift-etcd/etcd-master01');
  });

  it('short-iso and short-iso-precise with both offset styles', () => {
    const a = parseLine('2024-11-21T10:00:03+0100 node-1 hyperkube[77]: I1121 10:00:03.000001      77 kubelet.go:1846] skipping pod synchronization - PLEG is not healthy: pleg was last seen active 4m38.209858468s ago; threshold is 3m0s', 1, 0, ctx())!;
    expect(iso(a.ts)).toBe('2024-11-21T09:00:03.000Z');
    expect(a.ident).toBe('hyperkube');
    expect(a.msg.startsWith('skipping pod synchronization')).toBe(true);
    const b = parseLine('2024-11-21T10:00:03.250000+00:00 node-1 k3s[1636]: E1121 10:00:03.249000    1636 kubelet.go:1846] x', 1, 0, ctx())!;
    expect(iso(b.ts)).toBe('2024-11-21T10:00:03.250Z');
    expect(b.ident).toBe('k3s');
  });

  it('syslog /var/log/messages without a pid, space-padded day', () => {
    const r = parseLine('Mar  2 16:06:10 node1 kubelet: E0302 16:06:10.112233    2001 generic.go:197] GenericPLEG: Unable to retrieve pods: rpc error: code = DeadlineExceeded desc = context deadline exceeded', 1, 0, ctx())!;
    expect(r.ident).toBe('kubelet');
    expect(r.pid).toBe(2001); // from the klog header
    expect(iso(r.ts)).toBe('2024-03-02T16:06:10.112Z');
    expect(r.msg).toBe('GenericPLEG: Unable to retrieve pods: rpc error: code = DeadlineExceeded desc = context deadline exceeded');
  });

  it('journalctl -o json, MESSAGE as string and as byte array', () => {
    const msg = 'E1121 10:00:04.000217    1234 generic.go:318] "Event channel is full, discard this relist() cycle event"';
    const line = JSON.stringify({ __REALTIME_TIMESTAMP: '1732183204000300', _HOSTNAME: 'node-1', SYSLOG_IDENTIFIER: 'kubelet', _PID: '1234', MESSAGE: msg });
    const r = parseLine(line, 1, 0, ctx())!;
    expect(r.host).toBe('node-1');
    expect(r.pid).toBe(1234);
    expect(r.msg).toBe('Event channel is full, discard this relist() cycle event');
    expect(r.ts).toBeCloseTo(1732183204000.3, 1);
    const bytes = JSON.stringify({ __REALTIME_TIMESTAMP: '1732183204000300', _HOSTNAME: 'node-1', SYSLOG_IDENTIFIER: 'kubelet', MESSAGE: [...Buffer.from(msg)] });
    expect(parseLine(bytes, 1, 0, ctx())!.msg).toBe('Event channel is full, discard this relist() cycle event');
  });

  it('kubelet --logging-format=json, inside a journal and bare', () => {
    const payload = '{"ts":1757010283211.4668,"caller":"kubelet/kubelet.go:2460","msg":"Skipping pod synchronization","err":"PLEG is not healthy: pleg was last seen active 16h14m34.439643899s ago; threshold is 3m0s","errCauses":[{"error":"x"}]}';
    const bare = parseLine(payload, 1, 0, ctx())!;
    expect(bare.kind).toBe('json');
    expect(bare.level).toBe('E');
    expect(bare.caller).toBe('kubelet/kubelet.go:2460');
    expect(bare.ts).toBeCloseTo(1757010283211.4668, 3);
    expect(bare.fields['err']).toContain('16h14m34.439643899s');
    const inJournal = parseLine(`Sep 04 18:24:43 node-2 kubelet[9]: ${payload}`, 1, 0, ctx(2025))!;
    expect(inJournal.kind).toBe('json');
    expect(inJournal.host).toBe('node-2');
    const info = parseLine('{"ts":1753121331919.7622,"caller":"app/server.go:520","msg":"Kubelet version","v":0,"kubeletVersion":"v1.32.4"}', 1, 0, ctx())!;
    expect(info.level).toBe('I');
    expect(info.fields['kubeletVersion']).toBe('v1.32.4');
  });

  it('bare klog file (glog 1.11 printf) takes its year from the clock', () => {
    const r = parseLine('I0715 10:43:28.049240   16315 kubelet.go:1835] skipping pod synchronization - [container runtime is down PLEG is not healthy: pleg was last seen active 2562047h47m16.854775807s ago; threshold is 3m0s]', 1, 0, ctx(2018))!;
    expect(r.host).toBeNull();
    expect(r.pid).toBe(16315);
    expect(iso(r.ts)).toBe('2018-07-15T10:43:28.049Z');
    expect(r.msg).toContain('[container runtime is down PLEG is not healthy');
  });

  it('CRI container log prefix and docker -t prefix', () => {
    const a = parseLine('2023-12-18T06:13:36.831359143+00:00 stderr F I1218 06:13:36.831000       1 kubelet.go:2434] "SyncLoop (PLEG): event for pod" pod="a/b"', 1, 0, ctx(2023))!;
    expect(a.kind).toBe('klog');
    expect(a.msg).toBe('SyncLoop (PLEG): event for pod');
    expect(iso(a.ts)).toBe('2023-12-18T06:13:36.831Z');
    const b = parseLine('2024-01-11T10:00:00.123456789Z E0111 10:00:00.120000    4321 kubelet.go:1846] skipping pod synchronization - PLEG is not healthy: pleg was last seen active 3m1s ago; threshold is 3m0s', 1, 0, ctx())!;
    expect(b.kind).toBe('klog');
    expect(iso(b.ts)).toBe('2024-01-11T10:00:00.123Z');
  });

  it('logrus runtime lines (containerd in the journal)', () => {
    const r = parseLine('Mar 11 10:12:44 worker-3 containerd[901]: time="2024-03-11T10:12:44.118307051Z" level=error msg="get state for 3f1c0a" error="context deadline exceeded: unknown"', 1, 0, ctx())!;
    expect(r.kind).toBe('logrus');
    expect(r.level).toBe('E');
    expect(r.msg).toBe('get state for 3f1c0a');
    expect(r.fields['error']).toBe('context deadline exceeded: unknown');
    expect(r.ident).toBe('containerd');
  });

  it('struct values (%+v before 1.28, JSON from 1.28) stay one field', () => {
    const r = parseLine('I0907 21:49:17.170974    1234 setters.go:552] "Node became not ready" node="minikube" condition={Type:Ready Status:False LastHeartbeatTime:2023-09-07 21:49:17.170974959 +0000 UTC m=+1962.581166852 Reason:KubeletNotReady Message:PLEG is not healthy: pleg was last seen active 3m1.104514415s ago; threshold is 3m0s}', 1, 0, ctx(2023))!;
    expect(r.fields['node']).toBe('minikube');
    expect(r.fields['condition']).toContain('Message:PLEG is not healthy');
    const j = parseLine('I1121 10:03:01.218901    1234 setters.go:552] "Node became not ready" node="node-1" condition={"type":"Ready","status":"False","reason":"KubeletNotReady","message":"PLEG is not healthy: pleg was last seen active 3m0.096s ago; threshold is 3m0s"}', 1, 0, ctx())!;
    expect(j.fields['condition']).toContain('"message":"PLEG is not healthy');
  });

  it('a journal line whose host was removed keeps identifier and PID, and no bogus host', () => {
    const r = parseLine('Jun 06 09:53:52 kubelet[1248]: I0606 09:53:52.264339    1248 kubelet.go:1752] skipping pod synchronization - [PLEG is not healthy: pleg was last seen active 3m0.08s ago; threshold is 3m0s]', 1, 0, ctx(2017))!;
    expect(r.host).toBeNull();
    expect(r.ident).toBe('kubelet');
    expect(r.pid).toBe(1248);
    expect(r.msg.startsWith('skipping pod synchronization')).toBe(true);
  });

  it('indented entries (pasted into an issue) parse and cite the line as written', () => {
    const line = '    Nov 21 10:00:03 node-1 kubelet[1234]: E1121 10:00:03.123456    1234 generic.go:238] "GenericPLEG: Unable to retrieve pods" err="x"';
    const r = parseLine(line, 3, 0, ctx())!;
    expect(r.host).toBe('node-1');
    expect(r.msg).toBe('GenericPLEG: Unable to retrieve pods');
    expect(r.text).toBe(line);
    expect(parseLine('\tI1121 10:00:03.123456    1234 kubelet.go:1] "SyncLoop (PLEG): event for pod"', 1, 0, ctx())!.kind).toBe('klog');
  });

  it('markers, continuations and blank lines are not records', () => {
    expect(parseMarker('-- Logs begin at Mon 2024-03-11 08:00:01 UTC, end at Mon 2024-03-11 11:00:00 UTC. --')).toEqual({ type: 'begin', year: 2024, month: 2 });
    expect(parseMarker('-- Journal begins at Fri 2023-12-29 08:00:01 CET, ends at Tue 2024-01-02 11:00:00 CET. --')).toEqual({ type: 'begin', year: 2023, month: 11 });
    expect(parseMarker('-- Reboot --')).toEqual({ type: 'reboot' });
    expect(parseMarker('-- Boot 0f3c0b7e4f2a4d6b9f3b1e0d6e8a9c11 --')).toEqual({ type: 'reboot' });
    expect(parseLine('\tgoroutine 1 [running]:', 1, 0, ctx())).toBeNull();
    expect(parseLine('', 1, 0, ctx())).toBeNull();
    expect(parseLine('-- No entries --', 1, 0, ctx())).toBeNull();
  });
});
