// What bundles add to a node beyond its logs: the API server's Node object (versions, pod capacity, the Ready
// condition with its PLEG message and times), container tables (crictl/docker), and the must-gather list of nodes it
// could not reach. Kept apart from node.ts so the log combiner stays readable.
import type { RuntimeName } from '../contract/analysis.js';
import type { ContainerCounts } from '../parse/container-list.js';
import { runtimeOf, type NodeObject } from '../parse/node-object.js';
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
  /** What a collection through the API server could not fetch (one entry per thing). */
  refusals: Array<{ what: string; status: number | null; reason: string; command: string | null }>;
}

export function emptyBundleInfo(): NodeBundleInfo {
  return { kind: null, role: null, kubeletVersion: null, runtime: null, runtimeVersion: null, podsCapacity: null, ready: null, containers: null, skipped: false, collectedAt: null, refusals: [] };
}

const SYSLOG_PREFIX = /^(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)?|\d{4}-\d\d-\d\dT\S+) \S+ [^\s:[\]]+(?:\[\d+\])?: /;

/**
 * Identity of a line for de-duplication across copies of the same log: time (to the second), meaning and the message
 * without the syslog envelope (the unit journal writes `kubelet[1234]:`, rsyslog's `messages` may not; both are the
 * same line). A journal JSON line (`journalctl -o json`, a binary journal) is its MESSAGE, and its time, journald's
 * (µs), falls in the second a text copy's line prints: a sosreport's binary journal and its journalctl outputs count once.
 */
export function dedupeKey(e: SignalEvent): string {
  const t = e.ref.text;
  const payload = journalMessage(t) ?? t.replace(SYSLOG_PREFIX, '');
  // A line with no time at all is only ever the same line read twice (the same file, the same line number).
  if (Number.isNaN(e.ts) && Number.isNaN(e.ref.mono)) return `u${e.ref.artifact}:${e.ref.line}|${e.type}|${payload}`;
  return `${Number.isNaN(e.ts) ? `m${e.ref.mono}` : Math.floor(e.ts / 1000)}|${e.type}|${payload}`;
}

function journalMessage(t: string): string | null {
  if (!t.startsWith('{') || !t.includes('"__REALTIME_TIMESTAMP"')) return null;
  try {
    const m = (JSON.parse(t) as { MESSAGE?: unknown }).MESSAGE;
    return typeof m === 'string' ? m : null;
  } catch {
    return null;
  }
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
