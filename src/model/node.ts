// Combines what every artifact said into one model per node (the combiner step, as in insights-core): which node each
// artifact belongs to, the node's merged events, its relist timeline, CRI errors, metrics summary and log coverage.
import type { Role, RuntimeName } from '../contract/analysis.js';
import type { ArtifactSignals } from '../signals/extract.js';
import { lineCount, type Component, type Ref, type SignalEvent } from '../signals/events.js';
import { criFromLogs, type CriOpLog } from './cri.js';
import { summarize, toSnapshots, type MetricsSource, type MetricsSummary, type Snapshot } from './metrics.js';
import { buildTimeline, type Timeline } from './timeline.js';
import { withMetricStalls } from './metric-stalls.js';
import type { ParsedGoroutines } from '../parse/goroutines.js';
import type { NodeObject } from '../parse/node-object.js';
import type { ContainerCounts } from '../parse/container-list.js';
import type { DescribeNode } from '../parse/describe-node.js';
import { applyNodeObject, dedupeKey, emptyBundleInfo, mergeCounts, type NodeBundleInfo } from './bundle-nodes.js';
import { conditionEvents } from '../signals/conditions.js';
import { dumpEvents } from '../signals/dumps.js';
import { isoTime } from '../util/instant.js';

/** Something a collection could not fetch, why, and the command that fetches it once fixed. */
export interface Refusal {
  what: string;
  status: number | null;
  reason: string;
  command: string | null;
}

export interface ArtifactData {
  id: number;
  path: string;
  role: Role;
  format: string;
  nodeHint: string | null;
  /** The zone the file's zone-less times were read in (logs). */
  zone?: string;
  /** Where the path's node name came from (layout, folder, file name): what content says outranks it. */
  nodeHintFrom?: 'layout' | 'folder' | 'file-name';
  signals: ArtifactSignals | null;
  metrics: MetricsSource | null;
  goroutines: ParsedGoroutines | null;
  truncated: boolean;
  // From bundle placement (src/sources/files/bundle.ts); absent for loose files.
  /** 0 = the most specific copy of a log; higher copies only fill gaps (their duplicate lines are dropped first). */
  priority?: number;
  /** Files of one single-node bundle: what carries no identity goes to the node the rest of the group names. */
  group?: string | null;
  bundleKind?: string | null;
  collectedAt?: number | null;
  nodeRole?: 'master' | 'worker' | null;
  /** What a collection through the API server could not fetch for this node (src/sources/files/collected.ts). */
  refusals?: Refusal[];
  nodeObjects?: NodeObject[] | null;
  /** The file held a single Node (must-gather) rather than a list (kubectl get nodes on a master). */
  singleNodeObject?: boolean;
  containers?: ContainerCounts | null;
  skippedNodes?: string[] | null;
  /** `kubectl describe node` as read (its events are in `signals`; versions and pod counts feed the bundle info). */
  describe?: DescribeNode | null;
  /** The name of the path the user gave that holds this file (a folder's name, a file's name): the node of what carries
   *  no identity at all. */
  inputName?: string;
}

export interface NodeModel {
  name: string;
  aliases: string[];
  artifacts: number[];
  roles: Role[];
  kubeletVersion: string | null;
  runtime: RuntimeName | null;
  runtimeVersion: string | null;
  windowStart: number | null;
  windowEnd: number | null;
  kubeletLast: number | null;
  events: SignalEvent[];
  /** Events dropped as copies of lines another file of the node holds (the same journal in two files). */
  duplicates?: SignalEvent[];
  /** Files holding several hosts' lines, of which this node's are those of this host (artifact id → host). */
  hostFilter?: Map<number, string>;
  timeline: Timeline;
  cri: CriOpLog[];
  metrics: MetricsSummary | null;
  /** Goroutine dumps of this node's kubelet and runtime. */
  goroutines: ParsedGoroutines[];
  /** The versions the input states, per component (the last one stated wins), with the line that states it. */
  versions: Partial<Record<Component, { version: string; ref: Ref }>>;
  truncated: boolean;
  /** What the bundle (Node object, container tables, layout) says about the node. */
  bundle: NodeBundleInfo;
}

export interface ModelWarning {
  artifact: number | null;
  message: string;
}

function shortName(n: string): string {
  return n.split('.')[0]?.toLowerCase() ?? n.toLowerCase();
}

class NodeSet {
  /** `shared`: the part also takes the controller manager's lines that name no node (a controller log). */
  readonly nodes = new Map<string, { name: string; order: number; aliases: Set<string>; parts: Array<{ artifact: ArtifactData; host: string | null; shared?: boolean }>; snapshots: Snapshot[] }>();
  /** Short name (of a node's name or an alias) → the nodes it names: a lookup, not a pass over every node (a folder of
   *  100 000 files of as many hosts made that quadratic). */
  private readonly byShort = new Map<string, Set<string>>();

  /** The node `name` is (by name, short name or alias); the first made when several match. */
  find(name: string): string | null {
    if (this.nodes.has(name)) return name;
    let best: { key: string; order: number } | null = null;
    for (const k of this.byShort.get(shortName(name)) ?? []) {
      const order = this.nodes.get(k)?.order ?? Infinity;
      if (best === null || order < best.order) best = { key: k, order };
    }
    return best?.key ?? null;
  }

  private index(short: string, key: string): void {
    const set = this.byShort.get(short);
    if (set) set.add(key);
    else this.byShort.set(short, new Set([key]));
  }

  get(name: string) {
    const k = this.find(name) ?? name;
    let n = this.nodes.get(k);
    if (!n) {
      n = { name: k, order: this.nodes.size, aliases: new Set(), parts: [], snapshots: [] };
      this.nodes.set(k, n);
      this.index(shortName(k), k);
    }
    return n;
  }

  /** `alias` is another name of node `name`. */
  alias(name: string, alias: string): void {
    const n = this.get(name);
    n.aliases.add(alias);
    this.index(shortName(alias), n.name);
  }
}

function isUsableHost(h: string | null): h is string {
  return h !== null && h !== '' && h !== 'localhost' && h !== '(none)';
}

/** A merged log (must-gather) holds hundreds of hosts: its events are split by host once, not scanned per node. */
const byHost = new WeakMap<ArtifactSignals, Map<string | null, SignalEvent[]>>();

function eventsOfHost(sig: ArtifactSignals, host: string | null): SignalEvent[] {
  let m = byHost.get(sig);
  if (!m) {
    m = new Map();
    for (const e of sig.events) {
      const h = isUsableHost(e.host) ? e.host : null;
      const list = m.get(h);
      if (list) list.push(e);
      else m.set(h, [e]);
    }
    byHost.set(sig, m);
  }
  return m.get(host) ?? [];
}

const DAY_MS = 86_400_000;

/** `01:00` for an offset in ms. */
function hhmm(ms: number): string {
  const m = Math.round(ms / 60_000);
  return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

/** The zone a node's logs were read in (as the extractor reports it), or UTC. */
function logZone(parts: Array<{ artifact: ArtifactData }>): string {
  return parts.map((p) => p.artifact.zone).find((z): z is string => typeof z === 'string') ?? 'UTC';
}

/** When a nameless snapshot lies more than a day outside the time a node's logs cover: the times, in words; else null. */
function farFrom(n: { parts: Array<{ artifact: ArtifactData; host: string | null }> }, snapshots: Snapshot[]): { at: string; span: string } | null {
  let start = Infinity;
  let end = -Infinity;
  for (const p of n.parts) {
    for (const w of p.artifact.signals?.hosts ?? []) {
      if (p.host !== null && w.host !== p.host) continue;
      if (Number.isFinite(w.first)) start = Math.min(start, w.first);
      if (Number.isFinite(w.last)) end = Math.max(end, w.last);
    }
  }
  const t = snapshots.find((s) => s.timeMs !== null)?.timeMs ?? null;
  if (t === null || !Number.isFinite(start) || (t >= start - DAY_MS && t <= end + DAY_MS)) return null;
  const day = (ms: number): string => isoTime(ms).slice(0, 16).replace('T', ' ') + 'Z';
  return { at: day(t), span: `${day(start)} → ${day(end)}` };
}

export function buildNodes(artifacts: ArtifactData[]): { nodes: NodeModel[]; warnings: ModelWarning[] } {
  const set = new NodeSet();
  const warnings: ModelWarning[] = [];
  const orphanLogs: ArtifactData[] = [];
  const orphanSnapshots: Array<{ artifact: ArtifactData; snapshots: Snapshot[] }> = [];
  const orphanDumps: ArtifactData[] = [];
  // Logs that name no node but whose path does, and the hosts each path name was seen with.
  const hinted: ArtifactData[] = [];
  const hintHosts = new Map<string, Set<string>>();

  // 1. Logs with a journal host, or a node name the kubelet printed, name their node.
  for (const a of artifacts) {
    const sig = a.signals;
    if (!sig) continue;
    if (a.role === 'controller-log') {
      // The controller manager speaks of other nodes: each event belongs to the node it names (its host field), and
      // what names none (leader election) stays with the log's own host.
      // What names no node (a leader change) is told to every node the log names.
      const named = new Set(sig.events.filter((e) => e.type === 'controller-node' && e.node).map((e) => e.host).filter(isUsableHost));
      for (const h of new Set(sig.events.map((e) => e.host).filter(isUsableHost))) set.get(h).parts.push({ artifact: a, host: h, shared: named.has(h) });
      continue;
    }
    // Hosts of the log's windows, and of events that name their node (a listing of nodes, a describe output).
    const hosts = [...new Set([...sig.hosts.map((h) => h.host), ...sig.events.filter((e) => Number.isNaN(e.ts)).map((e) => e.host)].filter(isUsableHost))];
    if (hosts.length > 0) {
      for (const h of hosts) set.get(h).parts.push({ artifact: a, host: h });
      if (sig.hosts.some((h) => !isUsableHost(h.host)) || sig.events.some((e) => !isUsableHost(e.host))) {
        // Lines without a host (continuations, `-- ` markers, pasted fragments) in a one-host file belong to that host.
        const only = hosts.length === 1 ? hosts[0] as string : null;
        if (only) set.get(only).parts.push({ artifact: a, host: null });
      }
      for (const n of sig.nodeNames) if (hosts.length === 1) set.alias(hosts[0] as string, n);
    } else if (sig.nodeNames.length > 0) {
      set.get(sig.nodeNames[0] as string).parts.push({ artifact: a, host: null });
    } else if (a.nodeHint) {
      hinted.push(a);
    } else {
      orphanLogs.push(a);
    }
    // A folder or file name the user gave a node (`node-5/`, `node-5-kubelet.log`) and the host its lines name are
    // the same node when every such file says the same host: the name becomes the host's alias.
    if (hosts.length === 1 && a.nodeHint && a.nodeHintFrom !== 'layout') {
      const hs = hintHosts.get(a.nodeHint) ?? new Set<string>();
      hs.add(hosts[0] as string);
      hintHosts.set(a.nodeHint, hs);
    }
  }
  for (const [hint, hs] of hintHosts) if (hs.size === 1) set.alias([...hs][0] as string, hint);
  for (const a of hinted) set.get(a.nodeHint as string).parts.push({ artifact: a, host: null });
  // A Prometheus query names the node it was asked for: an explicit identity.
  for (const a of artifacts) if (a.format === 'prometheus-query' && a.nodeHint) set.get(a.nodeHint);
  for (const a of artifacts) {
    if (a.metrics) {
      const snaps = toSnapshots(a.metrics);
      const named = new Map<string | null, Snapshot[]>();
      for (const s of snaps) {
        const k = s.node !== null && set.find(s.node) !== null ? set.find(s.node) : s.node;
        const list = named.get(k) ?? [];
        list.push(s);
        named.set(k, list);
      }
      for (const [k, list] of named) {
        if (k !== null && set.find(k) !== null) for (const s of list) set.get(k).snapshots.push(s);
        else orphanSnapshots.push({ artifact: a, snapshots: list });
      }
    }
    if (a.goroutines) orphanDumps.push(a);
  }

  // 2. What carries no identity belongs to the node its bundle group names, else to the only node of the input; with
  // several nodes it is not guessed.
  const groupNode = groupNodes(set, artifacts);
  // Nothing in the whole input names a node (a folder of pasted excerpts): each path the user gave is one node, named
  // as they named it.
  const anonymous = set.nodes.size === 0;
  const only = (): string | null => (set.nodes.size === 1 ? [...set.nodes.keys()][0] as string : null);
  // The only node of the path the user named (a node's folder next to another's): its nameless files are that node's,
  // whatever the neighbours hold.
  const perInput = namesBy(set, (a) => a.inputName);
  const inputOnly = (a: ArtifactData): string | null => {
    const s = a.inputName ? perInput.get(a.inputName) : undefined;
    return s && s.size === 1 ? [...s][0] as string : null;
  };
  for (const a of orphanLogs) {
    const g = a.group ? groupNode.get(a.group) : undefined;
    const o = g ?? (anonymous ? null : inputOnly(a) ?? only());
    if (o) set.get(o).parts.push({ artifact: a, host: null });
    else if (anonymous) set.get(a.inputName ?? a.path.split('/').pop() ?? a.path).parts.push({ artifact: a, host: null });
    else if (a.role !== 'kubelet-log') {
      // Only a kubelet's log can tell a node's PLEG state. A kernel or runtime log, command output, describe text with
      // no node named (a kind export's docker-info.txt is the host's) is not made a node of its own among several.
      warnings.push({ artifact: a.id, message: `no node name in this file (no journal host, no node in its folder or file name) among ${set.nodes.size} nodes: not tied to a node. Put it in a folder named after its node, or name it <node>-${a.role === 'kernel-log' ? 'dmesg.txt' : a.role === 'runtime-log' ? 'runtime.log' : 'output.txt'}` });
    } else {
      const name = `unattributed:${a.path}`;
      set.get(name).parts.push({ artifact: a, host: null });
      warnings.push({ artifact: a.id, message: 'no node name in this log (no journal host, no node= field): analyzed as a node of its own' });
    }
  }
  for (const { artifact, snapshots } of orphanSnapshots) {
    const label = snapshots[0]?.node;
    // A snapshot that names its node (kubelet_node_name, a node label, the file's path) is that node's, even when no
    // log of it is in the input: one node's metrics are never another's evidence.
    if (label) {
      for (const s of snapshots) set.get(label).snapshots.push(s);
      continue;
    }
    const group = artifact.group ? groupNode.get(artifact.group) : undefined;
    const o = group ?? only();
    if (o) {
      // The only node of the input takes a nameless snapshot only if it is of the same time as the node's logs.
      const far = group ? null : farFrom(set.get(o), snapshots);
      if (far) {
        warnings.push({ artifact: artifact.id, message: `metrics with no node name, taken ${far.at}, not attached to ${o}: its logs cover ${far.span} (more than a day apart). Name the file ${o}-<time>.metrics if it is ${o}'s` });
        continue;
      }
      for (const s of snapshots) set.get(o).snapshots.push(s);
    } else if (set.nodes.size === 0 || anonymous) {
      for (const s of snapshots) set.get(artifact.inputName ?? 'node').snapshots.push(s);
    } else {
      warnings.push({ artifact: artifact.id, message: `metrics with no node name (no kubelet_node_name, no node label, no node in the path) among ${set.nodes.size} nodes: left unattached` });
    }
  }

  // A dump alone (nothing else names a node) is a node of its own input.
  if (anonymous) for (const d of orphanDumps) if (!d.group || !groupNode.has(d.group)) set.get(d.nodeHint ?? d.inputName ?? 'node');

  const extra = attachBundleData(set, artifacts, groupNode, only, warnings);

  const nodes: NodeModel[] = [];
  for (const n of [...set.nodes.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    const info: BundleExtra = extra.get(n.name) ?? { ...emptyBundleInfo(), containersFrom: [], objects: [] };
    const objectEvents = objectEventsOf(n.name, extra);
    // Most specific copies first, so that a line found in several files is cited from the best one.
    n.parts.sort((x, y) => (x.artifact.priority ?? 0) - (y.artifact.priority ?? 0) || x.artifact.id - y.artifact.id);
    const arts = new Map<number, ArtifactData>();
    const seen = new Set<string>();
    const events: SignalEvent[] = [];
    // Lines dropped as copies of a line another file holds (a count check's command still finds them in their file).
    const duplicates: SignalEvent[] = [];
    const hostFilter = new Map<number, string>();
    let start = Infinity;
    let end = -Infinity;
    let kubeletLast = -Infinity;
    for (const p of n.parts) {
      arts.set(p.artifact.id, p.artifact);
      const sig = p.artifact.signals as ArtifactSignals;
      for (const w of sig.hosts) {
        if (w.host !== p.host && !(p.host === null && !isUsableHost(w.host))) continue;
        start = Math.min(start, w.first);
        end = Math.max(end, w.last);
        if (!Number.isNaN(w.kubeletLast)) kubeletLast = Math.max(kubeletLast, w.kubeletLast);
      }
      const own = eventsOfHost(sig, p.host);
      if (p.host !== null && new Set(sig.hosts.map((h) => h.host).filter(isUsableHost)).size > 1) hostFilter.set(p.artifact.id, p.host);
      const extra = p.shared ? sig.events.filter((e) => e.type === 'controller-node' && e.node === null && e.host !== p.host) : [];
      // The same line read from two files (unit journal, full journal, messages) counts once; the same line twice in
      // one file (mounts of one dead server, a kubelet repeating itself within the second) is two lines. So the k-th
      // copy of a line in this file is a copy of the k-th in an earlier file.
      const mine = new Map<string, number>();
      for (const e of extra.length ? [...own, ...extra] : own) {
        const base = dedupeKey(e);
        const k = (mine.get(base) ?? 0) + 1;
        mine.set(base, k);
        const key = `${base}#${k}`;
        if (seen.has(key)) {
          duplicates.push(e);
          continue;
        }
        seen.add(key);
        events.push(e);
      }
    }
    for (const e of objectEvents.events) events.push(e);
    for (const [id, a] of objectEvents.artifacts) arts.set(id, a);
    for (const id of info.containersFrom) arts.set(id, artifacts.find((a) => a.id === id) as ArtifactData);
    const anchors = n.parts.flatMap((p) => p.artifact.signals?.bootAnchors ?? []);
    const aligned = alignMonotonic(events, anchors);
    if (aligned.unplaced > 0) {
      warnings.push({ artifact: aligned.artifact, message: `${aligned.unplaced} kernel line(s) carry only seconds-since-boot stamps and nothing in the input gives the boot time (a \`dmesg -T\` copy or journal kernel lines would): used without a time` });
    }
    // Lines without a time go last; they can still support a cause, not date a stall.
    events.sort((a, b) => (Number.isNaN(a.ts) ? Infinity : a.ts) - (Number.isNaN(b.ts) ? Infinity : b.ts));
    for (const s of n.snapshots) {
      const a = artifacts.find((x) => x.path === s.file);
      if (a) arts.set(a.id, a);
      if (s.timeMs !== null) {
        start = Math.min(start, s.timeMs);
        end = Math.max(end, s.timeMs);
      }
    }
    // Dumps name no node: they go with their bundle group's node, the input's only node, or the node named like their input.
    const dumps = orphanDumps.filter((d) => (d.nodeHint && set.find(d.nodeHint) !== null ? set.find(d.nodeHint) === n.name
      : d.group ? groupNode.get(d.group) === n.name : set.nodes.size === 1 || (anonymous && (d.inputName ?? 'node') === n.name)));
    for (const d of dumps) {
      arts.set(d.id, d);
      for (const e of dumpEvents({ ...(d.goroutines as ParsedGoroutines), artifact: d.id }, d.id, n.name)) events.push(e);
    }
    const metrics = n.snapshots.length ? summarize(n.snapshots) : null;
    // A node known only from its Node object: its "log" ends with the last status it posted.
    if (!Number.isFinite(end)) {
      for (const e of objectEvents.events) {
        start = Math.min(start, e.ts);
        end = Math.max(end, e.ts);
      }
    }
    const logEnd = Number.isFinite(end) ? end : 0;
    const timeline = withMetricStalls(buildTimeline({
      events, kubeletLast: Number.isFinite(kubeletLast) ? kubeletLast : logEnd, logEnd,
      logStart: Number.isFinite(start) ? start : NaN, kubeletLog: Number.isFinite(kubeletLast),
    }), n.snapshots, (file) => artifacts.find((x) => x.path === file)?.id ?? -1, (shift) => {
      const h = Math.abs(shift) / 3_600_000;
      const zone = shift > 0 ? `+${hhmm(shift)}` : `-${hhmm(-shift)}`;
      warnings.push({ artifact: n.parts[0]?.artifact.id ?? null, message: `${n.name}: its logs and its metrics put the same stall ${h} h apart: the logs' times carry no zone and were read as ${logZone(n.parts)}; if the node's clock ran at UTC${zone}, read them with --tz ${zone}` });
    });
    const versions = timeline.restarts.map((r) => r.version).filter((v): v is string => v !== null);
    const stated = versionsOf(events);
    const rtInfo = [...events].reverse().find((e) => e.type === 'runtime-info');
    const runtime = rtInfo && rtInfo.type === 'runtime-info' ? rtInfo.runtime : inferRuntime(events);
    nodes.push({
      name: n.name,
      aliases: [...n.aliases].filter((a) => a !== n.name).sort(),
      artifacts: [...arts.keys()].sort((a, b) => a - b),
      roles: [...new Set([...arts.values()].flatMap(rolesOf))].sort(),
      kubeletVersion: versions[versions.length - 1] ?? info.kubeletVersion ?? stated.kubelet?.version ?? null,
      runtime: runtime ?? info.runtime,
      runtimeVersion: (rtInfo && rtInfo.type === 'runtime-info' ? rtInfo.version : null) ?? info.runtimeVersion ?? (runtime ? stated[runtime]?.version ?? null : null),
      windowStart: Number.isFinite(start) ? start : null,
      windowEnd: Number.isFinite(end) ? end : null,
      kubeletLast: Number.isFinite(kubeletLast) ? kubeletLast : null,
      events,
      duplicates,
      hostFilter,
      timeline,
      cri: criFromLogs(events),
      metrics,
      goroutines: dumps.map((d) => d.goroutines as ParsedGoroutines),
      versions: versionsOf(events),
      truncated: [...arts.values()].some((a) => a.truncated),
      bundle: stripInternal(info, [...arts.values()]),
    });
    const cut = serviceLogCut(nodes[nodes.length - 1] as NodeModel, [...arts.values()]);
    if (cut) warnings.push(cut);
  }
  return { nodes, warnings };
}

/** must-gather reads node journals through the API with a 30 s limit: a log ending long before collection was probably cut. */
const CUT_SLACK_MS = 30 * 60_000;

function serviceLogCut(n: NodeModel, arts: ArtifactData[]): ModelWarning | null {
  const log = arts.find((a) => a.role === 'kubelet-log' && a.bundleKind === 'must-gather');
  const collected = n.bundle.collectedAt;
  if (!log || collected === null || n.windowEnd === null || n.windowEnd >= collected - CUT_SLACK_MS) return null;
  const mins = Math.round((collected - n.windowEnd) / 60_000);
  return {
    artifact: log.id,
    message: `${n.name}: its log ends ${mins} min before the must-gather was collected (${isoTime(collected)}): node-logs stops reading after 30 s, so the newest lines may be missing (or the kubelet stopped logging); collect them with \`oc adm node-logs ${n.name} -u kubelet\``,
  };
}

type BundleExtra = NodeBundleInfo & { containersFrom: number[]; objects: Array<{ artifact: ArtifactData; object: NodeObject }> };

function stripInternal(info: NodeBundleInfo & Partial<BundleExtra>, arts: ArtifactData[]): NodeBundleInfo {
  const { containersFrom: _c, objects: _o, ...rest } = info as BundleExtra;
  void _c;
  void _o;
  const kinds = arts.map((a) => a.bundleKind).filter((k): k is string => !!k);
  const roles = arts.map((a) => a.nodeRole).filter((r): r is 'master' | 'worker' => !!r);
  const collected = arts.map((a) => a.collectedAt).filter((t): t is number => typeof t === 'number');
  return {
    ...rest,
    kind: rest.kind ?? kinds[0] ?? null,
    role: rest.role ?? roles[0] ?? null,
    collectedAt: rest.collectedAt ?? (collected.length ? collected.reduce((m, x) => Math.max(m, x), -Infinity) : null),
    refusals: [...new Map(arts.flatMap((a) => a.refusals ?? []).map((r) => [`${r.what}\0${r.reason}`, r])).values()],
  };
}

/** Per key of a file (its bundle group, the path the user named), the nodes its logs name. */
function namesBy(set: NodeSet, keyOf: (a: ArtifactData) => string | null | undefined): Map<string, Set<string>> {
  const by = new Map<string, Set<string>>();
  for (const [name, n] of set.nodes) {
    for (const p of n.parts) {
      const k = keyOf(p.artifact);
      if (!k) continue;
      const s = by.get(k) ?? new Set<string>();
      s.add(name);
      by.set(k, s);
    }
  }
  return by;
}

/** Group → the one node its logs name (groups whose logs name several nodes, or none, are left out). */
function groupNodes(set: NodeSet, artifacts: ArtifactData[]): Map<string, string> {
  const byGroup = namesBy(set, (a) => a.group);
  const out = new Map<string, string>();
  for (const [g, names] of byGroup) if (names.size === 1) out.set(g, [...names][0] as string);
  // A single-node bundle with no log naming a node still has one node: the one its layout names (sos hostname).
  for (const a of artifacts) {
    if (a.group && !out.has(a.group) && !byGroup.has(a.group) && a.nodeHint) out.set(a.group, set.get(a.nodeHint).name);
  }
  return out;
}

/** Node objects, container tables and skipped-node lists onto the nodes (creating nodes a must-gather only knows from its API objects). */
function attachBundleData(
  set: NodeSet, artifacts: ArtifactData[], groupNode: Map<string, string>, only: () => string | null, warnings: ModelWarning[],
): Map<string, BundleExtra> {
  const out = new Map<string, BundleExtra>();
  const infoOf = (name: string): BundleExtra => {
    let i = out.get(name);
    if (!i) {
      i = { ...emptyBundleInfo(), containersFrom: [], objects: [] };
      out.set(name, i);
    }
    return i;
  };
  for (const a of artifacts) {
    for (const o of a.nodeObjects ?? []) {
      const known = set.find(o.name);
      const ready = o.conditions.find((c) => c.type === 'Ready');
      // A list from `kubectl get nodes` on one node describes the whole cluster: only its NotReady nodes earn a section.
      const create = a.singleNodeObject || a.bundleKind === 'must-gather' || a.bundleKind === 'inspect' || (ready !== undefined && ready.status !== 'True');
      if (known === null && !create) continue;
      const node = set.get(o.name).name;
      const info = infoOf(node);
      applyNodeObject(info, o);
      info.objects.push({ artifact: a, object: o });
    }
  }
  for (const a of artifacts) {
    if (!a.containers) continue;
    const target = (a.group ? groupNode.get(a.group) : undefined) ?? (a.nodeHint ? set.find(a.nodeHint) : null) ?? only();
    if (!target) {
      warnings.push({ artifact: a.id, message: 'container table with no node identity among several nodes: left unattached' });
      continue;
    }
    const info = infoOf(target);
    info.containers = mergeCounts(info.containers, a.containers);
    info.containersFrom.push(a.id);
  }
  for (const a of artifacts) {
    for (const raw of a.skippedNodes ?? []) {
      const node = set.find(raw);
      if (node === null) continue;
      infoOf(node).skipped = true;
      warnings.push({ artifact: a.id, message: `must-gather skipped node ${node} (its gather pod did not run, typical of a NotReady node): its node-side files are missing` });
    }
  }
  return out;
}

function objectEventsOf(name: string, extra: Map<string, BundleExtra>): { events: SignalEvent[]; artifacts: Map<number, ArtifactData> } {
  const info = extra.get(name);
  const events: SignalEvent[] = [];
  const artifacts = new Map<number, ArtifactData>();
  for (const { artifact, object } of info?.objects ?? []) {
    artifacts.set(artifact.id, artifact);
    for (const e of conditionEvents(object.conditions, object.name, artifact.id)) events.push(e);
  }
  return { events, artifacts };
}

/** The version each component states (the last one stated wins). */
function versionsOf(events: SignalEvent[]): NodeModel['versions'] {
  const out: NodeModel['versions'] = {};
  for (const e of events) if (e.type === 'component-version') out[e.component] = { version: e.version, ref: e.ref };
  return out;
}

function inferRuntime(events: SignalEvent[]): RuntimeName | null {
  for (const e of events) {
    if (e.type === 'component-version' && (e.component === 'docker' || e.component === 'containerd' || e.component === 'cri-o')) return e.component;
    if ((e.type === 'runtime-daemon-error' || e.type === 'runtime-lifecycle') && e.runtime) return e.runtime;
    if (e.type === 'crio-stopping' || e.type === 'crio-stopped') return 'cri-o';
    if (e.type === 'cri-error' && /docker/i.test(e.detail)) return 'docker';
    if (e.type === 'cri-error' && /containerd\.sock/.test(e.detail)) return 'containerd';
    if (e.type === 'cri-error' && /crio\.sock/.test(e.detail)) return 'cri-o';
  }
  return null;
}

const STAMP = /^(?:.*? kernel: )?(?:\[[^\]]*\] )?/;

function kernelText(text: string): string {
  return text.replace(STAMP, '');
}

/**
 * Puts raw dmesg lines (`[ 4711.123456] …`, seconds since boot) on the wall clock when another copy of the kernel log
 * in the input says when they happened: journal kernel lines that carry both stamps, or a `dmesg -T` twin with the same
 * text. The boot time is the median of (wall time − seconds since boot) over the matches.
 */
export function alignMonotonic(events: SignalEvent[], anchors: number[] = []): { unplaced: number; artifact: number | null } {
  const loose = events.filter((e) => Number.isNaN(e.ts) && Number.isFinite(e.ref.mono));
  if (loose.length === 0) return { unplaced: 0, artifact: null };
  const boots: number[] = [...anchors];
  for (const e of events) if (Number.isFinite(e.ts) && Number.isFinite(e.ref.mono)) boots.push(e.ts - e.ref.mono * 1000);
  if (boots.length === 0) {
    const byText = new Map<string, number>();
    for (const e of events) if (Number.isFinite(e.ts)) byText.set(`${e.type}|${kernelText(e.ref.text)}`, e.ts);
    for (const e of loose) {
      const t = byText.get(`${e.type}|${kernelText(e.ref.text)}`);
      if (t !== undefined) boots.push(t - e.ref.mono * 1000);
    }
  }
  if (boots.length === 0) return { unplaced: lineCount(loose), artifact: loose[0]?.ref.artifact ?? null };
  boots.sort((a, b) => a - b);
  const boot = boots[Math.floor(boots.length / 2)] as number;
  for (const e of loose) {
    e.ts = boot + e.ref.mono * 1000;
    e.ref.ts = e.ts;
  }
  return { unplaced: 0, artifact: null };
}

/** What a log gives its node evidence of: its role and, for a journal of every unit (`journalctl -o json`, a binary
 *  journal, a cloud export's JSON lines), the runtime's and the kernel's entries it was seen to hold. */
function rolesOf(a: ArtifactData): Role[] {
  const origins = a.format === 'journal-json' || a.format === 'export-json' ? a.signals?.origins : undefined;
  if (!origins) return [a.role];
  return [a.role, ...((origins.runtime ?? 0) > 0 ? ['runtime-log' as const] : []), ...((origins.kernel ?? 0) > 0 ? ['kernel-log' as const] : [])];
}
