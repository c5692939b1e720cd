// What in a node's input shows relist working, i.e. can make "PLEG healthy" true. A node with none of these has no PLEG
// state in the input: a runtime or kernel log, a goroutine dump, a controller's log, a few event rows or command output
// say nothing of relist, and the verdict is "unknown" rather than "healthy".
//   - kubelet lines that only a working relist writes (SyncLoop (PLEG), container finished, state transitions);
//   - the node reporting Ready at a known time (the kubelet sets Ready only while PLEG is healthy), or NotReady with a
//     message that names no PLEG problem (the Ready message lists every runtime error, PLEG's included);
//   - a kubelet log that spans the health threshold (3 min) or more: an unhealthy PLEG is logged at every sync;
//   - relist metrics (duration, interval or the last-seen gauge).
import type { NodeModel } from './node.js';
import type { SignalEvent } from '../signals/events.js';

const THRESHOLD_MS = 180_000;

/** Whether the node runs Evented PLEG, as its kubelet's lines show: the gate, the event stream's errors and fall-back,
 *  a channel-full line of the Evented PLEG. A property of the node, whatever window a finding speaks of. */
export function eventedPleg(events: ReadonlyArray<SignalEvent>): boolean {
  return events.some((e) => e.type === 'evented-pleg' || (e.type === 'event-channel-full' && e.evented));
}

export function plegCoverage(n: NodeModel): string[] {
  const by: string[] = [];
  // Evented PLEG reported unhealthy (its event channel full): not healthy, though no relist age dates a stall.
  if (n.events.some((e) => e.type === 'event-channel-full' && e.evented && /PLEG is not healthy/.test(e.ref.text))) return by;
  let proofs = 0;
  let ready = 0;
  let otherNotReady = 0;
  for (const e of n.events) {
    if (e.type === 'relist-proof') proofs += e.n ?? 1;
    else if (e.type === 'node-ready' && Number.isFinite(e.ts)) ready++;
    else if (e.type === 'node-not-ready' && Number.isFinite(e.ts) && e.message && !/PLEG/.test(e.message)) otherNotReady++;
  }
  if (proofs > 0) by.push(`${proofs} kubelet line(s) written by a working relist`);
  if (ready > 0) by.push(`the node reported Ready ${ready} time(s) at a known time`);
  if (otherNotReady > 0) by.push('a NotReady condition whose message names no PLEG problem');
  const span = n.roles.includes('kubelet-log') && n.windowStart !== null && n.kubeletLast !== null ? n.kubeletLast - n.windowStart : 0;
  if (span >= THRESHOLD_MS) by.push(`a kubelet log of ${Math.round(span / 60_000)} min (an unhealthy PLEG is logged at every sync)`);
  const m = n.metrics;
  // With Evented PLEG the last-seen gauge is set to now at every health check: it shows nothing of relist there.
  if (m && (m.relist.duration || m.relist.interval || (m.lastSeen && !eventedPleg(n.events)))) by.push('relist metrics');
  return by;
}
