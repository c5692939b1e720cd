// Kubernetes Node objects (must-gather `cluster-scoped-resources/core/nodes/<n>.yaml`, `kubectl get nodes -o json|yaml`):
// what the API server knew at collection time. Conditions carry the PLEG message and when Ready last changed;
// nodeInfo the kubelet and runtime versions; capacity the pod limit.
// js-yaml rather than yaml (used for rule packs): a must-gather holds hundreds of Node YAMLs of ~15 KB, and js-yaml
// reads one in ~0.5 ms against ~4 ms (measured); this sits on the reading thread of every must-gather analysis.
import type jsyamlApi from 'js-yaml';
import { lazyRequire } from '../util/lazy-require.js';

// Loaded with the first Node object (a bundle's): runs on loose logs never need it.
const jsyaml = lazyRequire<typeof jsyamlApi>('js-yaml');

export interface NodeCondition {
  type: string;
  status: string;
  reason: string | null;
  message: string | null;
  /** Epoch ms, NaN when absent. */
  lastTransitionTime: number;
  lastHeartbeatTime: number;
  /** 1-based line of the condition's message (or type) in the file, for evidence. */
  line: number;
  /** The line's text. */
  text: string;
}

export interface NodeObject {
  name: string;
  kubeletVersion: string | null;
  containerRuntimeVersion: string | null;
  podsCapacity: number | null;
  roles: string[];
  conditions: NodeCondition[];
  /** Unschedulable (cordoned) per spec. */
  unschedulable: boolean;
  /** status.addresses of type InternalIP/ExternalIP: how a Prometheus IP:port instance is matched to this node. */
  addresses?: string[];
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null;
}

function time(v: unknown): number {
  const s = str(v);
  return s ? Date.parse(s) : NaN;
}

/** Nodes in a YAML or JSON text (a Node, a NodeList/List, or several YAML documents). Other objects are ignored. */
export function parseNodeObjects(text: string): { nodes: NodeObject[]; error: string | null } {
  let roots: unknown[] = [];
  let error: string | null = null;
  const lines = text.split('\n');
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      roots = [JSON.parse(text)];
    } catch (e) {
      error = `not valid JSON: ${(e as Error).message}`;
    }
  } else {
    // CORE_SCHEMA: YAML 1.2 scalars, unquoted dates stay strings; json: a repeated key keeps its last value.
    const load = (t: string) => {
      const out: unknown[] = [];
      jsyaml().loadAll(t, (d) => out.push(d), { schema: jsyaml().CORE_SCHEMA, json: true });
      return out;
    };
    const lean = withoutImageLists(lines);
    try {
      roots = load(lean ?? text);
    } catch (e) {
      try {
        // The cut is a shortcut, never a reason to fail: the whole text decides.
        if (lean === null) throw e;
        roots = load(text);
      } catch (e2) {
        error = `not valid YAML: ${((e2 as Error).message.split('\n')[0] ?? '').trim()}`;
      }
    }
  }
  const items: Obj[] = [];
  // Anchors and aliases share objects: each is walked once (no exponential walk over a "billion laughs" file).
  const seen = new Set<unknown>();
  const walk = (v: unknown) => {
    if (v === null || typeof v !== 'object' || seen.has(v)) return;
    seen.add(v);
    if (Array.isArray(v)) v.forEach(walk);
    else if (isObj(v)) {
      if (v.kind === 'Node') items.push(v);
      else if (Array.isArray(v.items)) v.items.forEach(walk);
    }
  };
  roots.forEach(walk);
  const nodes = items.map((o) => toNode(o, lines)).filter((n): n is NodeObject => n !== null);
  return { nodes, error: nodes.length > 0 ? null : error };
}

/**
 * The text with each block-style `images:` list (status.images: every image on the node with its digests and size)
 * blanked out, line for line, or null when there is none. It is most of a Node's YAML (~80 % of a 15 KB must-gather
 * Node) and nothing here reads it. A list's lines are those after the key indented deeper than it, or as deep and
 * starting with "- " (oc writes sequences at their key's indentation).
 */
export function withoutImageLists(lines: string[]): string | null {
  let out: string[] | null = null;
  for (let i = 0; i < lines.length; i++) {
    const m = /^( *)images:\s*$/.exec(lines[i] as string);
    if (!m) continue;
    const k = (m[1] as string).length;
    let j = i + 1;
    for (; j < lines.length; j++) {
      const l = lines[j] as string;
      const t = l.trimStart();
      if (t === '' || t.startsWith('#')) continue;
      const ind = l.length - t.length;
      if (ind > k || (ind === k && (t === '-' || t.startsWith('- ')))) continue;
      break;
    }
    // Trailing blank lines stay: they are not the list's.
    while (j > i + 1 && (lines[j - 1] as string).trim() === '') j--;
    if (j === i + 1) continue;
    out ??= [...lines];
    out[i] = `${' '.repeat(k)}images: []`;
    for (let x = i + 1; x < j; x++) out[x] = '';
    i = j - 1;
  }
  return out ? out.join('\n') : null;
}

function toNode(o: Obj, lines: string[]): NodeObject | null {
  const meta = isObj(o.metadata) ? o.metadata : {};
  const name = str(meta.name);
  if (!name) return null;
  const status = isObj(o.status) ? o.status : {};
  const info = isObj(status.nodeInfo) ? status.nodeInfo : {};
  const cap = isObj(status.capacity) ? status.capacity : {};
  const labels = isObj(meta.labels) ? meta.labels : {};
  const roles = Object.keys(labels)
    .filter((k) => k.startsWith('node-role.kubernetes.io/'))
    .map((k) => k.slice('node-role.kubernetes.io/'.length))
    .filter((r) => r !== '')
    .sort();
  const pods = Number(str(cap.pods));
  // Evidence lines: the node's own block starts at its `name:`; conditions are found after it.
  const nameRe = new RegExp(`^\\s*"?name"?:\\s*"?${escape(name)}"?,?\\s*$`);
  const nameLine = findLine(lines, 0, (l) => nameRe.test(l));
  const conditions = toConditions(Array.isArray(status.conditions) ? status.conditions : [], lines, nameLine);
  return {
    name,
    kubeletVersion: str(info.kubeletVersion),
    containerRuntimeVersion: str(info.containerRuntimeVersion),
    podsCapacity: Number.isFinite(pods) && pods > 0 ? pods : null,
    roles,
    conditions,
    unschedulable: isObj(o.spec) && o.spec.unschedulable === true,
    addresses: ips(o.status),
  };
}

/** Condition objects → conditions with the line that states each (its message, else its type), from `fromLine` on. */
function toConditions(list: unknown[], lines: string[], fromLine: number): NodeCondition[] {
  const nameLine = fromLine;
  const conditions: NodeCondition[] = [];
  for (const c of list) {
    if (!isObj(c)) continue;
    const type = str(c.type);
    if (!type) continue;
    const message = str(c.message);
    const probe = message ? message.slice(0, 40) : null;
    let line = probe ? findLine(lines, Math.max(0, nameLine - 1), (l) => l.includes(probe)) : 0;
    if (line === 0) {
      const typeRe = new RegExp(`"?type"?:\\s*"?${escape(type)}"?,?\\s*$`);
      line = findLine(lines, Math.max(0, nameLine - 1), (l) => typeRe.test(l));
    }
    conditions.push({
      type,
      status: str(c.status) ?? 'Unknown',
      reason: str(c.reason),
      message,
      lastTransitionTime: time(c.lastTransitionTime),
      lastHeartbeatTime: time(c.lastHeartbeatTime),
      line: line || nameLine || 1,
      text: (lines[(line || nameLine || 1) - 1] ?? '').trim(),
    });
  }
  return conditions;
}

/**
 * Node conditions pasted without their Node (`kubectl get node -o yaml`'s `conditions:` block, a JSON `"conditions":
 * […]` or a single condition object), as YAML or JSON, indented or not:
 *
 *   conditions:
 *   - lastHeartbeatTime: "2021-03-01T10:00:00Z"
 *     lastTransitionTime: "2021-03-01T09:55:41Z"
 *     message: 'PLEG is not healthy: pleg was last seen active 3m30.5s ago; threshold is 3m0s'
 *     reason: KubeletNotReady
 *     status: "False"
 *     type: Ready
 */
export function parseConditionFragments(text: string): { name: string | null; conditions: NodeCondition[] } {
  const lines = text.split('\n');
  let root: unknown = null;
  const t = text.trim();
  const json = (x: string): unknown => {
    try {
      return JSON.parse(x);
    } catch {
      return null;
    }
  };
  // A JSON object or list, or a fragment cut from one (`"conditions": [ … ],`): wrapped back into an object.
  if (t.startsWith('{') || t.startsWith('[')) root = json(t) ?? json(`{${t.replace(/,\s*$/, '')}}`);
  else if (t.startsWith('"')) root = json(`{${t.replace(/,\s*$/, '')}}`);
  if (root === null) {
    // YAML: the fragment's own indentation removed, so that it is a document of its own.
    const body = lines.filter((l) => l.trim() !== '');
    const indent = Math.min(...body.map((l) => /^ */.exec(l)?.[0].length ?? 0));
    try {
      root = jsyaml().load(lines.map((l) => l.slice(Math.min(indent, /^ */.exec(l)?.[0].length ?? 0))).join('\n'), { schema: jsyaml().CORE_SCHEMA, json: true });
    } catch {
      root = null;
    }
  }
  let list: unknown[] = [];
  let name: string | null = null;
  const seen = new Set<unknown>();
  const walk = (v: unknown): void => {
    if (v === null || typeof v !== 'object' || seen.has(v) || list.length > 0) return;
    seen.add(v);
    if (Array.isArray(v)) {
      if (v.some((x) => isObj(x) && typeof x.type === 'string' && 'status' in x)) list = v;
      else v.forEach(walk);
      return;
    }
    const o = v as Obj;
    if (isObj(o.metadata) && typeof o.metadata.name === 'string') name = o.metadata.name;
    if (typeof o.type === 'string' && 'status' in o && ('lastHeartbeatTime' in o || 'lastTransitionTime' in o || 'reason' in o)) list = [o];
    else Object.values(o).forEach(walk);
  };
  walk(root);
  return { name, conditions: toConditions(list, lines, 0) };
}

function ips(status: unknown): string[] {
  const list = isObj(status) && Array.isArray(status.addresses) ? status.addresses : [];
  return list.filter((a): a is Obj => isObj(a) && (a.type === 'InternalIP' || a.type === 'ExternalIP')).map((a) => str(a.address)).filter((x): x is string => !!x);
}

function findLine(lines: string[], from: number, test: (l: string) => boolean): number {
  for (let i = from; i < lines.length; i++) if (test(lines[i] as string)) return i + 1;
  return 0;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `containerd://1.7.13`, `cri-o://1.27.1-3.rhaos4.14`, `docker://20.10.24` → runtime and version. */
export function runtimeOf(v: string | null): { runtime: 'docker' | 'containerd' | 'cri-o' | null; version: string | null } {
  const m = v ? /^([a-z-]+):\/\/(.+)$/.exec(v) : null;
  if (!m) return { runtime: null, version: null };
  const r = m[1] === 'containerd' ? 'containerd' : m[1] === 'cri-o' ? 'cri-o' : m[1] === 'docker' ? 'docker' : null;
  return { runtime: r, version: m[2] ?? null };
}
