// What bundles add to a node beyond its logs: the API server's Node object (versions, pod capacity, the Ready
// condition with its PLEG message and times), container tables (crictl/docker), and the must-gather list of nodes it
// could not reach. Kept apart from node.ts so the log combiner stays readable.
import type { RuntimeName } from '../contract/analysis.js';
import type { ContainerCounts } from '../parse/container-list.js';
import { runtimeOf, type NodeObject } from '../parse/node-object.js';
import { parseGoDuration } from '../parse/time.js';
import type { SignalEvent } from '../signals/events.js';

export interface NodeBundleInfo {
  /** Kind of the bundle the node's files came from (first seen), or null for loose files. */
  kind: string | null;
  /** master / worker (from the Node's role labels, else the must-gather directory). */
  role: string | null;
  kubeletVersion: string | null;
  runtime: RuntimeName | null;
  runtimeVersion: string | null;
  podsCapacity: number | null;
  /** Ready condition at collection time. */
  ready: { status: string; reason: string | null; message: string | null; since: number } | null;
  containers: ContainerCounts | null;
  /** must-gather could not gather from this node (nodes/skipped_nodes.txt). */
  skipped: boolean;
  collectedAt: number | null;
}

export function emptyBundleInfo(): NodeBundleInfo {
  return { kind: null, role: null, kubeletVersion: null, runtime: null, runtimeVersion: null, podsCapacity: null, ready: null, containers: null, skipped: false, collectedAt: null };
}

const SYSLOG_PREFIX = /^(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)?|\d{4}-\d\d-\d\dT\S+) \S+ [^\s:[\]]+(?:\[\d+\])?: /;

/**
 * Identity of a line for de-duplication across copies of the same log: time, meaning and the message without the
 * syslog envelope (the unit journal writes `kubelet[1234]:`, rsyslog's `messages` may not; both are the same line).
 */
export function dedupeKey(e: SignalEvent): string {
  const t = e.ref.text;
  const payload = t.replace(SYSLOG_PREFIX, '');
  return `${Number.isNaN(e.ts) ? `m${e.ref.mono}` : Math.round(e.ts)}|${e.type}|${payload}`;
}

/** Merges what a Node object says into the node's bundle info. */
export function applyNodeObject(info: NodeBundleInfo, o: NodeObject): void {
  info.kubeletVersion ??= o.kubeletVersion;
  const rt = runtimeOf(o.containerRuntimeVersion);
  info.runtime ??= rt.runtime;
  info.runtimeVersion ??= rt.version;
  info.podsCapacity ??= o.podsCapacity;
  if (info.role === null) {
    const r = o.roles.find((x) => x === 'master' || x === 'control-plane') ? 'master' : o.roles.includes('worker') ? 'worker' : o.roles[0] ?? null;
    info.role = r;
  }
  const ready = o.conditions.find((c) => c.type === 'Ready');
  if (ready && info.ready === null) {
    info.ready = { status: ready.status, reason: ready.reason, message: ready.message, since: ready.lastTransitionTime };
  }
}

const AGE = /pleg was last seen active ([0-9hmsuµn.]+) ago; threshold is ([0-9hms.]+)/;

/**
 * The Ready condition as timeline events: NotReady since its transition, and, when its message is the PLEG one, an
 * unhealthy report at the last heartbeat (the age it states dates the last relist like any log line does).
 */
export function conditionEvents(o: NodeObject, artifact: number): SignalEvent[] {
  const out: SignalEvent[] = [];
  const ready = o.conditions.find((c) => c.type === 'Ready');
  if (!ready || ready.status === 'True') return out;
  const ref = (ts: number) => ({ artifact, line: ready.line, offset: 0, ts, mono: NaN, text: ready.text });
  if (Number.isFinite(ready.lastTransitionTime)) {
    out.push({ type: 'node-not-ready', message: ready.message ?? ready.reason, ts: ready.lastTransitionTime, host: o.name, ref: ref(ready.lastTransitionTime) });
  }
  const m = ready.message ? AGE.exec(ready.message) : null;
  const at = Number.isFinite(ready.lastHeartbeatTime) ? ready.lastHeartbeatTime : ready.lastTransitionTime;
  if (m && Number.isFinite(at)) {
    const age = parseGoDuration(m[1] as string);
    const threshold = parseGoDuration(m[2] as string);
    out.push({
      type: 'relist-unhealthy', ageSeconds: Number.isFinite(age) ? age : null, thresholdSeconds: Number.isFinite(threshold) ? threshold : 180,
      neverSucceeded: false, source: 'node-condition', runtimeDown: /container runtime is down/.test(ready.message ?? ''),
      ts: at, host: o.name, ref: ref(at),
    });
  } else if (ready.message && /PLEG is not healthy: pleg has yet to be successful/.test(ready.message) && Number.isFinite(at)) {
    out.push({ type: 'relist-unhealthy', ageSeconds: null, thresholdSeconds: 180, neverSucceeded: true, source: 'node-condition', runtimeDown: false, ts: at, host: o.name, ref: ref(at) });
  }
  return out;
}

/** Adds a container table's counts to what is known (one table per kind; sandboxes and containers come from different ones). */
export function mergeCounts(cur: ContainerCounts | null, c: ContainerCounts): ContainerCounts {
  if (!cur) return { ...c };
  return {
    kind: cur.kind,
    sandboxes: cur.sandboxes ?? c.sandboxes,
    sandboxesReady: cur.sandboxesReady ?? c.sandboxesReady,
    containers: cur.containers ?? c.containers,
    running: cur.running ?? c.running,
    exited: cur.exited ?? c.exited,
  };
}
