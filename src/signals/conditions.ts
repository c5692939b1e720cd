// Node conditions (a Node object's status, `kubectl describe node`'s Conditions table) as timeline events: NotReady
// since the Ready condition's transition, the PLEG report it carries dated at its last heartbeat (the age it states
// dates the last relist like any log line does), and the node controller's Unknown ("Kubelet stopped posting node
// status": the kubelet went silent, not PLEG).
import type { NodeCondition } from '../parse/node-object.js';
import type { SignalEvent } from './events.js';
import { plegHealth } from './matchers.js';

export function conditionEvents(conditions: NodeCondition[], node: string | null, artifact: number): SignalEvent[] {
  const out: SignalEvent[] = [];
  const ready = conditions.find((c) => c.type === 'Ready');
  if (!ready) return out;
  if (ready.status === 'True') {
    // Ready at its last heartbeat: the kubelet posts Ready only while its runtime checks, PLEG's included, pass.
    if (Number.isFinite(ready.lastHeartbeatTime)) out.push({ type: 'node-ready', ts: ready.lastHeartbeatTime, host: node, ref: { artifact, line: ready.line, offset: 0, ts: ready.lastHeartbeatTime, mono: NaN, text: ready.text } });
    return out;
  }
  const at = Number.isFinite(ready.lastHeartbeatTime) ? ready.lastHeartbeatTime : ready.lastTransitionTime;
  const ref = (ts: number) => ({ artifact, line: ready.line, offset: 0, ts, mono: NaN, text: ready.text });
  const message = ready.message ?? '';
  if (ready.status === 'Unknown' || ready.reason === 'NodeStatusUnknown' || /Kubelet stopped posting node status/.test(message)) {
    out.push({ type: 'node-status-unknown', node, ts: ready.lastTransitionTime, host: node, ref: ref(ready.lastTransitionTime) });
    return out;
  }
  out.push({ type: 'node-not-ready', message: ready.message ?? ready.reason, ts: ready.lastTransitionTime, host: node, ref: ref(ready.lastTransitionTime) });
  const h = plegHealth(message);
  if (h) {
    out.push({ type: 'relist-unhealthy', ...h, source: 'api-condition', runtimeDown: /container runtime is down/.test(message), uptimeSeconds: null, ts: at, host: node, ref: ref(at) });
  } else if (/NetworkReady=false|network plugin is not ready|cni config uninitialized|cni plugin not initialized/.test(message)) {
    out.push({ type: 'network-not-ready', reason: message.slice(0, 200), ts: at, host: node, ref: ref(at) });
  }
  return out;
}
