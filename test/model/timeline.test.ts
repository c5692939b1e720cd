import { describe, expect, it } from 'vitest';
import { buildTimeline } from '../../src/model/timeline.js';
import { signalsOf } from '../helpers/signals.js';

const T = (hms: string) => Date.parse(`2024-03-11T${hms}Z`);
const skip = (hms: string, age: string, pid = 2817) =>
  `Mar 11 ${hms} worker-3 kubelet[${pid}]: E0311 ${hms}.000000    ${pid} kubelet.go:2373] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active ${age} ago; threshold is 3m0s"`;
const plegEvent = (hms: string) => `Mar 11 ${hms} worker-3 kubelet[2817]: I0311 ${hms}.000000    2817 kubelet.go:2434] "SyncLoop (PLEG): event for pod" pod="default/web-0" event={"ID":"u","Type":"ContainerStarted","Data":"c"}`;
const other = (hms: string, pid = 2817) => `Mar 11 ${hms} worker-3 kubelet[${pid}]: I0311 ${hms}.000000    ${pid} prober.go:107] "Probe failed" probeType="Readiness" pod="default/web-0"`;

async function timelineOf(lines: string[]) {
  const s = await signalsOf(lines.join('\n') + '\n');
  const w = s.hosts[0]!;
  return buildTimeline({ events: s.events, kubeletLast: w.kubeletLast, logEnd: w.last });
}

describe('stalls', () => {
  it('lines of one stall are grouped by the back-computed last relist; ends at the first relist proof', async () => {
    const t = await timelineOf([
      other('10:00:00'),
      skip('10:03:01', '3m0.5s'), skip('10:03:06', '3m5.5s'), skip('10:10:01', '10m0.5s'),
      plegEvent('10:10:04'),
      other('10:30:00'),
    ]);
    expect(t.stalls).toHaveLength(1);
    const s = t.stalls[0]!;
    expect(s.lastRelistAt).toBeCloseTo(T('10:00:00.5'), -1);
    expect(s.endedAt).toBe(T('10:10:04'));
    expect(s.endedBy).toBe('recovered');
    expect(s.durationSeconds).toBeCloseTo(603.5, 0);
    expect(s.maxAgeSeconds).toBeCloseTo(600.5, 3);
    expect(s.unhealthyLines).toBe(3);
    expect(s.evidence.map((r) => r.line)).toEqual([2, 4]);
  });

  it('ages that reset make separate stalls (slow relists that still finish)', async () => {
    const t = await timelineOf([
      skip('10:03:01', '3m0.5s'), skip('10:03:40', '3m39.5s'),
      skip('10:07:10', '3m0.1s'), skip('10:07:30', '3m20.1s'),
      other('10:20:00'),
    ]);
    expect(t.stalls).toHaveLength(2);
    expect(t.stalls[0]!.endedBy).toBe('recovered');
    // the second stall's last relist is when the first one ended
    expect(t.stalls[0]!.endedAt).toBe(t.stalls[1]!.lastRelistAt);
  });

  it('a kubelet restart ends a stall (PID change), and the log end leaves one open', async () => {
    const t = await timelineOf([
      skip('10:03:01', '3m0.5s'), skip('10:20:01', '20m0.5s'),
      other('10:20:05', 3001),
      skip('11:00:01', '3m0s', 3001), skip('11:05:01', '8m0s', 3001),
    ]);
    expect(t.stalls.map((s) => s.endedBy)).toEqual(['restart', 'end-of-log']);
    expect(t.stalls[0]!.endedAt).toBe(T('10:20:05'));
    expect(t.stalls[1]!.endedAt).toBeNull();
    expect(t.stalls[1]!.durationSeconds).toBeCloseTo(480, 0);
    expect(t.restarts.length).toBeGreaterThanOrEqual(1);
  });

  it('the ≤1.12 sentinel and "pleg has yet to be successful" at start-up are not stalls', async () => {
    const t = await timelineOf([
      'Mar 11 10:00:00 worker-3 kubelet[2817]: I0311 10:00:00.000000    2817 server.go:408] Version: v1.11.3',
      'Mar 11 10:00:05 worker-3 kubelet[2817]: I0311 10:00:05.000000    2817 kubelet.go:1835] skipping pod synchronization - [container runtime is down PLEG is not healthy: pleg was last seen active 2562047h47m16.854775807s ago; threshold is 3m0s]',
      'Mar 11 10:00:06 worker-3 kubelet[2817]: I0311 10:00:06.000000    2817 kubelet.go:1835] skipping pod synchronization - [PLEG is not healthy: pleg was last seen active 2562047h47m16.854775807s ago; threshold is 3m0s]',
      plegEvent('10:00:08'),
      other('10:30:00'),
    ]);
    expect(t.stalls).toHaveLength(0);
    expect(t.startupArtefacts).toHaveLength(1);
    // Every line of the start-up counts (what grep finds), one start-up.
    expect(t.startupLines).toBe(2);
  });

  it('"never succeeded" that outlives the threshold is a stall from the kubelet start', async () => {
    const lines = ['Mar 11 10:00:00 worker-3 kubelet[2817]: I0311 10:00:00.000000    2817 server.go:417] "Kubelet version" kubeletVersion="v1.27.4"'];
    for (let s = 5; s < 400; s += 5) {
      const hms = `10:${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
      lines.push(`Mar 11 ${hms} worker-3 kubelet[2817]: E0311 ${hms}.000000    2817 kubelet.go:2373] "Skipping pod synchronization" err="[container runtime status check may not have completed yet, PLEG is not healthy: pleg has yet to be successful]"`);
    }
    lines.push(other('10:30:00'));
    const t = await timelineOf(lines);
    expect(t.stalls).toHaveLength(1);
    expect(t.stalls[0]!.neverSucceeded).toBe(true);
    expect(t.stalls[0]!.lastRelistAt).toBe(T('10:00:00'));
  });

  it('NotReady windows carry their reason; a non-PLEG NotReady is kept apart', async () => {
    const t = await timelineOf([
      'Mar 11 10:00:00 worker-3 kubelet[2817]: I0311 10:00:00.000000    2817 setters.go:552] "Node became not ready" node="worker-3" condition={Type:Ready Status:False Reason:KubeletNotReady Message:container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized}',
      'Mar 11 10:05:00 worker-3 kubelet[2817]: I0311 10:05:00.000000    2817 kubelet_node_status.go:669] "Recording event message for node" node="worker-3" event="NodeReady"',
      other('10:30:00'),
    ]);
    expect(t.stalls).toHaveLength(0);
    expect(t.notReady).toHaveLength(1);
    expect(t.notReady[0]!.plegReason).toBe(false);
    expect(t.notReady[0]!.reason).toContain('network not ready');
    expect(t.notReady[0]!.to).toBe(T('10:05:00'));
  });
});
