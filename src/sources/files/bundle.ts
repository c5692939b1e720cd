// Bundle kinds and where things live in them (shared/reference/bundle-layouts.md). A tree (folder or archive) is
// searched for bundle roots by their marker files; every file is then placed by the deepest root above it: which
// node it belongs to, whether the layout fixes its role (a pod's log is never the node's kubelet log, the API
// server's /metrics is not the kubelet's), how much to trust it against other copies of the same lines, the zone
// of its year-less stamps and when the bundle was collected. What the layout does not place keeps its sniffed role.
import path from 'node:path';
import type { InputKind, Role } from '../../contract/analysis.js';
import { nameTime } from './names.js';
import { isContainerList } from './sniff.js';
import { NO_ALIASES, type Tree, type TreeFile } from './tree-types.js';
import { MANIFEST_NAME, manifestTime, parseManifest, type CollectedManifest } from '../collected-manifest.js';
import { placeCollected } from './collected.js';

export type BundleKind = 'sosreport' | 'sos-collect' | 'must-gather' | 'inspect' | 'eks-logs' | 'aks' | 'rancher' | 'kind' | 'plegscope-collect' | 'directory';

export interface Placement {
  /** Path to report (relative to the bundle root when the input holds one root). */
  display: string;
  aliases: string[];
  role: Role;
  bundleKind: BundleKind;
  nodeHint: string | null;
  group: string | null;
  priority: number;
  zone: string | null;
  collectedAt: number | null;
  truncated: boolean;
  parseAs: 'container-list' | 'skipped-nodes' | null;
  nodeRole: 'master' | 'worker' | null;
  /** When the layout says the file is not to be read (a duplicate, a pod's log): why, for the artifact list. */
  skip: string | null;
}

export interface BundleRoot {
  dir: string;
  kind: BundleKind;
  node: string | null;
  collectedAt: number | null;
  zone: string | null;
  /** sos manifest: command outputs known to be cut (paths relative to the root). */
  truncatedPaths: Set<string>;
  /** `plegscope collect`'s manifest (collected.ts). */
  collected?: CollectedManifest;
}

/** Basenames whose whole content bundle detection reads (all small). */
const META_NAMES = new Set([
  'version.txt', 'version', 'timestamp', 'hostname', 'timedatectl', 'date', 'date_--utc', 'manifest.json', 'timezone',
  'kind-version.txt', 'kubernetes-version.txt', 'instance-id.txt', 'versions', 'skipped_nodes.txt', 'hostnamefqdn',
  MANIFEST_NAME,
]);

export function wantMeta(p: string, size: number | null): boolean {
  return META_NAMES.has(path.posix.basename(p)) && (size === null || size <= 8 * 1024 * 1024);
}

const MONTHS: Record<string, number> = { Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11 };
/** Zone abbreviations printed by `date` that name one offset (minutes); ambiguous ones (CST, IST) are left out. */
const ABBR: Record<string, number> = {
  UTC: 0, GMT: 0, Z: 0, WET: 0, WEST: 60, BST: 60, CET: 60, CEST: 120, EET: 120, EEST: 180, MSK: 180, EST: -300, EDT: -240,
  CDT: -300, MST: -420, MDT: -360, PST: -480, PDT: -420, AKST: -540, AKDT: -480, HST: -600, JST: 540, KST: 540,
  AEST: 600, AEDT: 660, ACST: 570, AWST: 480, NZST: 720, NZDT: 780, SGT: 480, HKT: 480,
};

function text(f: TreeFile | undefined): string | null {
  return f?.meta ? f.meta.toString('utf8') : null;
}

/** `Thu Jan 11 10:00:00 CET 2024` (date) → epoch ms and the offset it states, if the abbreviation is known. */
export function parseDateOutput(s: string): { ms: number; offsetMin: number | null } | null {
  const m = /\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (\w{3}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (?:([A-Z]{1,5}|[+-]\d{2,4}) )?(\d{4})\b/.exec(s);
  if (!m) return null;
  const mon = MONTHS[m[1] as string];
  if (mon === undefined) return null;
  const local = Date.UTC(Number(m[7]), mon, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]));
  const z = m[6];
  let off: number | null = z === undefined ? null : ABBR[z] ?? null;
  if (z && /^[+-]\d{2,4}$/.test(z)) off = (z[0] === '-' ? -1 : 1) * (Number(z.slice(1, 3)) * 60 + Number(z.slice(3) || 0));
  return { ms: local - (off ?? 0) * 60000, offsetMin: off };
}

/** timedatectl: `Universal time: Thu 2024-01-11 09:00:00 UTC`, `Time zone: Europe/Berlin (CET, +0100)`. */
export function parseTimedatectl(s: string): { ms: number | null; zone: string | null } {
  const u = /Universal time: \w{3} (\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) UTC/.exec(s);
  const z = /Time zone: ([A-Za-z0-9_+\-/]+)/.exec(s);
  return {
    ms: u ? Date.UTC(Number(u[1]), Number(u[2]) - 1, Number(u[3]), Number(u[4]), Number(u[5]), Number(u[6])) : null,
    zone: z && z[1] !== 'n/a' ? (z[1] as string) : null,
  };
}

/** must-gather `timestamp`: Go time text per line (`2024-01-11 10:00:00.123456789 +0100 CET m=+0.01`): the last one. */
export function parseGoTimestamps(s: string): number | null {
  let last: number | null = null;
  const re = /(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.\d+)? ([+-])(\d{2})(\d{2})/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    const off = (m[7] === '-' ? -1 : 1) * (Number(m[8]) * 60 + Number(m[9]));
    const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) - off * 60000;
    last = Math.max(last ?? t, t);
  }
  return last;
}

function fixedZone(offsetMin: number): string {
  const a = Math.abs(offsetMin);
  return `${offsetMin < 0 ? '-' : '+'}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

class Index {
  readonly byPath = new Map<string, TreeFile>();
  constructor(readonly tree: Tree) {
    for (const f of tree.files) {
      this.byPath.set(f.path, f);
      for (const a of f.aliases) this.byPath.set(a, f);
    }
  }
  file(p: string): TreeFile | undefined {
    return this.byPath.get(p);
  }
  has(p: string): boolean {
    return this.byPath.has(p) || this.tree.dirs.has(p) || this.tree.links.has(p);
  }
  dir(p: string): boolean {
    return this.tree.dirs.has(p);
  }
}

const j = (d: string, p: string): string => (d ? `${d}/${p}` : p);

/** Every kind of root holds at least one entry of these names (see detect): only their folders are candidates. */
const ROOT_MARKERS = new Set([MANIFEST_NAME, 'version.txt', 'sos_commands', 'sos_logs', 'cluster-scoped-resources', 'namespaces', 'host_service_logs', 'kubelet', 'systemlogs', 'systeminfo', 'kind-version.txt']);

/** Finds the bundle roots in a tree, with their metadata. `label` is the input as the user named it. */
export function findRoots(tree: Tree, label: string): BundleRoot[] {
  const ix = new Index(tree);
  const roots: BundleRoot[] = [];
  // Not every folder: a must-gather has tens of thousands (one per pod and container), and detect() asks a score of
  // questions of each.
  const marked = new Set<string>();
  const note = (p: string) => {
    const slash = p.lastIndexOf('/');
    if (ROOT_MARKERS.has(p.slice(slash + 1)) && slash > 0) marked.add(p.slice(0, slash));
  };
  // The names Index.has answers for: folders, files and their other names, links.
  for (const d of tree.dirs) note(d);
  for (const p of ix.byPath.keys()) note(p);
  for (const p of tree.links.keys()) note(p);
  const candidates = ['', ...[...tree.dirs].filter((d) => marked.has(d)).sort()];
  const base = path.basename(label);
  for (const d of candidates) {
    const r = detect(ix, d, base, tree);
    if (r) roots.push(r);
  }
  // A kind root's per-node directories and a sos-collect's nested reports are roots of their own.
  return roots;
}

function detect(ix: Index, d: string, inputBase: string, tree: Tree): BundleRoot | null {
  const name = d ? path.posix.basename(d) : inputBase;
  const root = (kind: BundleKind, extra: Partial<BundleRoot> = {}): BundleRoot => ({
    dir: d, kind, node: null, collectedAt: null, zone: null, truncatedPaths: new Set(), ...extra,
  });
  const collected = parseManifest(text(ix.file(j(d, MANIFEST_NAME))));
  if (collected) return root('plegscope-collect', { collectedAt: manifestTime(collected), zone: null, collected });
  const version = text(ix.file(j(d, 'version.txt')));
  if ((version && /^(?:sosreport|sos report):/.test(version)) || (ix.dir(j(d, 'sos_commands')) && (ix.dir(j(d, 'sos_reports')) || ix.dir(j(d, 'sos_logs')) || ix.has(j(d, 'version.txt'))))) {
    return sosRoot(ix, d, name, tree);
  }
  if (ix.dir(j(d, 'sos_logs')) && !ix.dir(j(d, 'sos_commands')) && [...tree.files].some((f) => f.path.startsWith(j(d, 'sosreport-')) || f.path.includes('/sosreport-'))) {
    return root('sos-collect', { collectedAt: nameDate(name) });
  }
  const parent = d.includes('/') ? d.slice(0, d.lastIndexOf('/')) : '';
  const apiTree = ix.dir(j(d, 'cluster-scoped-resources')) || ix.dir(j(d, 'namespaces')) || ix.dir(j(d, 'host_service_logs'));
  const stamped = ix.has(j(d, 'timestamp')) || (d !== '' && ix.has(j(parent, 'timestamp')));
  if (apiTree && (stamped || (ix.dir(j(d, 'cluster-scoped-resources')) && ix.dir(j(d, 'namespaces'))))) {
    const v = text(ix.file(j(d, 'version')));
    const mg = (v !== null && v.startsWith('openshift/must-gather')) || ix.dir(j(d, 'host_service_logs')) || /-sha256-[0-9a-f]{64}$/.test(name) || /(^|\/)must-gather/.test(d);
    const ts = parseGoTimestamps(text(ix.file(j(d, 'timestamp'))) ?? '') ?? parseGoTimestamps(text(ix.file(j(parent, 'timestamp'))) ?? '');
    return root(mg ? 'must-gather' : 'inspect', { collectedAt: ts, zone: 'UTC' });
  }
  if (ix.has(j(d, 'kubelet/kubelet.log')) && (ix.dir(j(d, 'ipamd')) || ix.dir(j(d, 'system')) || ix.dir(j(d, 'var_log')))) {
    return root('eks-logs', { collectedAt: eksDate(name) ?? eksDate(inputBase), zone: 'UTC' });
  }
  const aksFlat = ix.has(j(d, 'kubelet')) && !ix.dir(j(d, 'kubelet')) && (ix.has(j(d, 'kubeletcmd')) || ix.has(j(d, 'var_log_azure_cluster-provision.log')));
  const aksZip = ix.has(j(d, 'systemlogs/kubelet')) && (ix.dir(j(d, 'kubeletcmd')) || ix.dir(j(d, 'nodelogs')) || ix.dir(j(d, 'systemperf')));
  if (aksFlat || aksZip) {
    // The node folder (flat blobs) or the node's zip, named <node>.zip inside it.
    const nodeName = aksZip && /\.zip$/i.test(name) ? name.replace(/\.zip$/i, '') : name;
    const nodeDir = aksZip && /\.zip$/i.test(name) ? path.posix.dirname(d) : d;
    const run = path.posix.basename(path.posix.dirname(nodeDir === '.' ? '' : nodeDir));
    return root('aks', { node: nodeName, collectedAt: runIdDate(run) ?? runIdDate(inputBase), zone: 'UTC' });
  }
  if (ix.dir(j(d, 'systeminfo')) && (ix.dir(j(d, 'journald')) || ix.has(j(d, 'versions')) || ix.has(j(d, 'collector-output.log')))) {
    const host = firstLine(text(ix.file(j(d, 'systeminfo/hostname')))) ?? name.replace(/-\d{4}-\d{2}-\d{2}_\d{2}_\d{2}_\d{2}$/, '');
    const dt = parseDateOutput(text(ix.file(j(d, 'systeminfo/date'))) ?? '');
    const local = rancherDate(name);
    const zone = dt?.offsetMin != null ? fixedZone(dt.offsetMin) : null;
    const collected = dt && dt.offsetMin != null ? dt.ms : local;
    return root('rancher', { node: host, collectedAt: collected, zone });
  }
  if (ix.has(j(d, 'kind-version.txt'))) {
    return root('kind', { collectedAt: null, zone: 'UTC' });
  }
  return null;
}

function firstLine(s: string | null): string | null {
  const l = s?.split('\n').map((x) => x.trim()).find((x) => x !== '');
  return l ?? null;
}

/** The zone an `etc/localtime` link names (`../usr/share/zoneinfo/Europe/Berlin` → Europe/Berlin), or null. */
function zoneOfLocaltime(target: string | undefined): string | null {
  const m = target ? /zoneinfo\/(.+)$/.exec(target) : null;
  return m ? (m[1] as string) : null;
}

/**
 * When a sosreport under `d` was collected and the node's zone, from its metadata, in order of trust: timedatectl, then
 * `date --utc` / `date` and the etc/localtime link, etc/timezone, the offset `date` printed. `text(p)`: the content
 * of the file at path `p` (if known), `link(p)`: the target of the symlink at `p`. Used on the whole tree by the layout,
 * and on what the index pass has met so far by early reads (tree.ts).
 */
export function sosClock(d: string, text: (p: string) => string | null, link: (p: string) => string | undefined): { collectedAt: number | null; zone: string | null } {
  let collectedAt: number | null = null;
  let zone: string | null = null;
  const td = text(j(d, 'sos_commands/systemd/timedatectl'));
  if (td) {
    const t = parseTimedatectl(td);
    collectedAt = t.ms;
    zone = t.zone;
  }
  if (collectedAt === null) collectedAt = parseDateOutput(text(j(d, 'sos_commands/date/date_--utc')) ?? '')?.ms ?? null;
  const dateOut = parseDateOutput(text(j(d, 'sos_commands/date/date')) ?? text(j(d, 'date')) ?? '');
  if (collectedAt === null && dateOut?.offsetMin != null) collectedAt = dateOut.ms;
  if (zone === null) zone = zoneOfLocaltime(link(j(d, 'etc/localtime')));
  if (zone === null) zone = firstLine(text(j(d, 'etc/timezone')));
  if (zone === null && dateOut?.offsetMin != null) zone = fixedZone(dateOut.offsetMin);
  return { collectedAt, zone };
}

function sosRoot(ix: Index, d: string, name: string, tree: Tree): BundleRoot {
  const host = firstLine(text(ix.file(j(d, 'hostname')) ?? ix.file(j(d, 'sos_commands/host/hostname'))))
    ?? (/^sosreport-(.+?)-(?:\d{4}-\d{2}-\d{2}-[a-z0-9]+|\d{8,14})(?:\.tar.*)?$/.exec(name)?.[1] ?? null);
  let { collectedAt, zone } = sosClock(d, (p) => text(ix.file(p)), (p) => tree.links.get(p));
  const truncatedPaths = new Set<string>();
  const manifest = text(ix.file(j(d, 'sos_reports/manifest.json')));
  if (manifest) {
    try {
      const m = JSON.parse(manifest) as { start_time?: string; components?: { report?: { plugins?: Record<string, { commands?: Array<{ filepath?: string; truncated?: boolean }> }> } } };
      for (const plugin of Object.values(m.components?.report?.plugins ?? {})) {
        for (const c of plugin.commands ?? []) if (c.truncated && c.filepath) truncatedPaths.add(c.filepath.replace(/^\/+/, ''));
      }
    } catch {
      // A damaged manifest only costs the truncation marks.
    }
  }
  if (collectedAt === null) {
    const nd = nameDate(name);
    // A name carries the day only: the end of that day is the latest the report can have been made.
    if (nd !== null) collectedAt = nd + 86400000;
  }
  return { dir: d, kind: 'sosreport', node: host, collectedAt, zone, truncatedPaths };
}

function nameDate(name: string): number | null {
  const m = /(\d{4})-(\d{2})-(\d{2})/.exec(name) ?? /(?<!\d)(\d{4})(\d{2})(\d{2})\d{6}(?!\d)/.exec(name);
  return m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : null;
}

function eksDate(name: string): number | null {
  const m = /_(\d{4})-(\d{2})-(\d{2})_(\d{2})(\d{2})-UTC/.exec(name);
  return m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5])) : null;
}

function runIdDate(name: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})Z$/.exec(name);
  return m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) : null;
}

function rancherDate(name: string): number | null {
  const m = /(\d{4})-(\d{2})-(\d{2})_(\d{2})_(\d{2})_(\d{2})$/.exec(name);
  // Local time without zone: a day of slack keeps it a safe "not after" anchor.
  return m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) + 86400000 : null;
}

export function inputKindOf(roots: BundleRoot[]): { kind: InputKind; bundleKind: BundleKind } {
  const top = [...roots].sort((a, b) => a.dir.length - b.dir.length)[0];
  const k = top?.kind ?? 'directory';
  const kind: InputKind = k === 'sosreport' || k === 'sos-collect' ? 'sosreport' : k === 'must-gather' || k === 'inspect' ? 'must-gather' : k === 'eks-logs' ? 'eks-logs' : 'directory';
  return { kind, bundleKind: k };
}

function under(p: string, dir: string): string | null {
  if (dir === '') return p;
  return p.startsWith(`${dir}/`) ? p.slice(dir.length + 1) : null;
}

const POD_LOG = /(^|\/)(?:var\/log\/(?:containers|pods)|namespaces|podlogs|containers-varlogs|podscontainerlogs|kubeobjects)\//;
/** sos: the journal since boot, a subset of the full one. */
const BOOT_JOURNAL = /^sos_commands\/logs\/journalctl_--no-pager_(?:--catalog_)?--boot/;
/** sos: the journals of other Kubernetes components (klog text that mentions the kubelet, but not its log). */
const OTHER_K8S_JOURNAL = /^sos_(?:commands|strings)\/[^/]+\/journalctl_--no-pager_--unit_(?:kube-(?:apiserver|proxy|scheduler|controller-manager)|etcd|atomic-openshift-master)/;
/** must-gather: a unit's merged service log. */
const SERVICE_LOG = /^host_service_logs\/(masters|workers)\/([^/]+)_service\.log/;
const NODE_SERVICES = new Set(['kubelet', 'crio']);
/** sos and EKS: the raw kernel ring buffer, read only when the human-dated copy is missing. */
const SOS_RAW_DMESG = /^sos_commands\/kernel\/dmesg$/;
const EKS_RAW_DMESG = /^kernel\/dmesg\.current$/;
/** EKS: pods' logs under var_log; kind: a node's pod and container logs. */
const EKS_POD_LOGS = /^var_log\/[^/]+\//;
const KIND_POD_LOGS = /^(?:containers|pods)\//;
/** Paths (relative to some root) no layout reads as a node log, or only when a better copy is missing. */
const NEVER_EARLY = [BOOT_JOURNAL, OTHER_K8S_JOURNAL, SOS_RAW_DMESG, EKS_RAW_DMESG, EKS_POD_LOGS, KIND_POD_LOGS];

/**
 * Whether `path`, under whatever bundle root, is one that layouts read as something other than a node log (pod logs,
 * sos's since-boot journal, other components' journals and units), or only when a better copy is missing (raw dmesg).
 * For readers that must decide before the layout is known (early reads of archive members): a wrong `true` costs them
 * only time, since the layout still decides.
 */
export function notANodeLog(path: string): boolean {
  if (POD_LOG.test(path)) return true;
  for (let i = -1; ; i = path.indexOf('/', i + 1)) {
    const rel = path.slice(i + 1);
    const svc = SERVICE_LOG.exec(rel);
    if (NEVER_EARLY.some((re) => re.test(rel)) || (svc && !NODE_SERVICES.has(svc[2] as string))) return true;
    if (path.indexOf('/', i + 1) < 0) return false;
  }
}

/** An API dump's namespaced resources: pod manifests, container logs, events… Tens of thousands of files in a big
 *  cluster's must-gather, and none of them a node log, a Node object or the kubelet's metrics. */
const NAMESPACED = /^namespaces\//;
/** Whether discovery may leave a file unprobed until the layout is known (unreadByLayout then decides): a path that may
 *  be a namespaced resource (a cheap test, before any root is known), and no metadata a root is detected by. */
export function probeLater(path: string, size: number | null): boolean {
  return (path.startsWith('namespaces/') || path.includes('/namespaces/')) && !wantMeta(path, size);
}

/**
 * Whether the layout of the root that holds `path` reads nothing there, whatever the file holds: must-gather's and
 * inspect's namespaced resources (the layout places them as `other`, and no content makes them a Node object or a
 * container list). Such files need not be probed at all. Roots from findRoots, which reads only paths and metadata.
 */
export function unreadByLayout(roots: BundleRoot[], path: string): boolean {
  let best: BundleRoot | null = null;
  for (const r of roots) if (under(path, r.dir) !== null && (!best || r.dir.length > best.dir.length)) best = r;
  if (!best || (best.kind !== 'must-gather' && best.kind !== 'inspect')) return false;
  return NAMESPACED.test(under(path, best.dir) as string);
}

/**
 * Where each file of the tree goes, asked one file at a time (a map of every file's placement held 100 000 of them at
 * once). `multiRoot` paths stay relative to the input; with one root they are relative to
 * it, as the user finds them after unpacking and changing into the bundle.
 */
export function placer(tree: Tree, roots: BundleRoot[]): (f: TreeFile) => Placement {
  const sorted = [...roots].sort((a, b) => b.dir.length - a.dir.length);
  // Made for the first file under a bundle root (an archive without one has no use for a map of its 100 000 paths).
  let index: Index | null = null;
  const strip = roots.length === 1 && roots[0]?.dir ? (roots[0] as BundleRoot).dir : null;
  const show = (p: string): string => (strip && p.startsWith(`${strip}/`) ? p.slice(strip.length + 1) : p);
  return (f) => {
    const root = sorted.find((r) => under(f.path, r.dir) !== null) ?? null;
    const names = [f.path, ...f.aliases];
    const pl: Placement = {
      display: show(f.path),
      aliases: f.aliases.length > 0 ? f.aliases.map(show) : NO_ALIASES,
      role: f.role,
      bundleKind: root?.kind ?? 'directory',
      nodeHint: null,
      group: null,
      priority: 0,
      zone: root?.zone ?? null,
      collectedAt: root?.collectedAt ?? null,
      truncated: f.cut,
      parseAs: isContainerList(f.format) ? 'container-list' : null,
      nodeRole: null,
      skip: null,
    };
    if (root) layout(root, f, names.map((n) => under(n, root.dir)).filter((x): x is string => x !== null), pl, index ??= new Index(tree));
    if (f.role !== 'other' && pl.role === 'other' && !pl.skip) pl.skip = 'not a node log in this layout';
    return pl;
  };
}

function setLog(pl: Placement, f: TreeFile, role: Role, priority: number): void {
  // The layout says what a file is only when its content is a log at all.
  if (f.role !== 'other' || /^(?:journal-|klog$|cri-log$|logrus$|json-log$)/.test(f.format)) pl.role = role;
  pl.priority = priority;
}

function layout(root: BundleRoot, f: TreeFile, rels: string[], pl: Placement, ix: Index): void {
  const rel = rels[0] ?? '';
  const any = (re: RegExp) => rels.some((r) => re.test(r));
  const d = root.dir;
  switch (root.kind) {
    case 'sosreport': {
      pl.nodeHint = root.node;
      pl.group = d || '.';
      if (rels.some((r) => root.truncatedPaths.has(r)) || /(^|\/)sos_strings\/.*\.tailed$/.test(rel)) pl.truncated = true;
      if (any(/^sos_commands\/(?:kubernetes|openshift|origin|microshift)\/journalctl_--no-pager_--unit_(?:kubelet|snap\.kubelet\.daemon|snap\.k8s\.kubelet|atomic-openshift-node|microshift)/) ||
          any(/^sos_strings\/(?:kubernetes|openshift|origin|microshift)\/journalctl_--no-pager_--unit_(?:kubelet|snap\.|atomic-openshift-node|microshift)/)) {
        setLog(pl, f, 'kubelet-log', 0);
      } else if (any(OTHER_K8S_JOURNAL)) {
        // Other Kubernetes units' journals (on masters): klog text that mentions the kubelet, but not its log.
        pl.role = 'other';
        pl.skip = 'journal of another Kubernetes component';
      } else if (any(/^sos_(?:commands|strings)\/(?:crio|containerd|docker)\/journalctl_--no-pager_--unit_(?:crio|containerd|docker)/)) {
        setLog(pl, f, 'runtime-log', 0);
      } else if (BOOT_JOURNAL.test(rel) && (ix.has(j(d, 'sos_commands/logs/journalctl_--no-pager')))) {
        pl.role = 'other';
        pl.skip = 'subset of sos_commands/logs/journalctl_--no-pager (read that instead)';
      } else if (any(/^sos_(?:commands\/logs|strings\/logs)\/journalctl_/)) {
        pl.priority = 1;
      } else if (SOS_RAW_DMESG.test(rel) && ix.has(j(d, 'sos_commands/kernel/dmesg_-T'))) {
        pl.role = 'other';
        pl.skip = 'same kernel ring buffer as sos_commands/kernel/dmesg_-T (read that instead)';
      } else if (any(/^var\/log\/(?:messages|syslog|kern\.log)/) || any(/^sos_strings\/logs\/var\.log\./)) {
        pl.priority = 2;
      } else if (any(/^(?:var\/log|run\/log)\/journal\//)) {
        // The binary journals (sos --all-logs): every unit's entries, as the full journal holds them.
        pl.priority = 1;
      } else if (/^sos_commands\/(?:kubernetes|openshift)\/.*metrics/.test(rel)) {
        pl.role = 'other';
        pl.skip = "the API server's /metrics, not the kubelet's";
      } else if (/^sos_commands\/(?:crio\/crictl_(?:pods|ps_-a|ps)|docker\/docker_ps(?:_-a)?)$/.test(rel)) {
        pl.parseAs = 'container-list';
      } else if (POD_LOG.test(rel)) {
        pl.role = 'other';
      } else if (/^sos_commands\/systemd\/|^sos_commands\/[^/]+\/systemctl_status/.test(rel)) {
        // systemctl status prints the last lines of each unit's journal: a sample, never the log.
        pl.priority = 3;
      }
      return;
    }
    case 'must-gather':
    case 'inspect': {
      const svc = SERVICE_LOG.exec(rel);
      if (svc) {
        pl.nodeRole = svc[1] === 'masters' ? 'master' : 'worker';
        if (svc[2] === 'kubelet') setLog(pl, f, 'kubelet-log', 0);
        else if (svc[2] === 'crio') setLog(pl, f, 'runtime-log', 0);
        else {
          pl.role = 'other';
          pl.skip = 'service log of another unit';
        }
      } else if (rel === 'nodes/skipped_nodes.txt') {
        pl.parseAs = 'skipped-nodes';
      } else if (/^nodes\/([^/]+)\//.test(rel)) {
        pl.nodeHint = /^nodes\/([^/]+)\//.exec(rel)?.[1] ?? null;
        pl.group = `${d}/nodes/${pl.nodeHint}`;
      } else if (POD_LOG.test(rel)) {
        pl.role = 'other';
      }
      return;
    }
    case 'eks-logs': {
      pl.group = d || '.';
      if (rel === 'kubelet/kubelet.log') setLog(pl, f, 'kubelet-log', 0);
      else if (/^(?:containerd\/containerd-log\.txt|docker\/docker\.log)$/.test(rel)) setLog(pl, f, 'runtime-log', 0);
      else if (EKS_RAW_DMESG.test(rel) && ix.has(j(d, 'kernel/dmesg.human.current'))) {
        pl.role = 'other';
        pl.skip = 'same kernel ring buffer as kernel/dmesg.human.current (read that instead)';
      } else if (/^var_log\/(?:messages|syslog)/.test(rel)) pl.priority = 2;
      else if (EKS_POD_LOGS.test(rel) || rel === 'ipamd/metrics.json') pl.role = 'other';
      else if (/^docker\/docker-ps\.txt$/.test(rel)) pl.parseAs = 'container-list';
      return;
    }
    case 'aks': {
      pl.nodeHint = root.node;
      pl.group = `aks:${root.node}`;
      const inZip = /\.zip$/i.test(d);
      if (rel === 'kubelet' || rel === 'systemlogs/kubelet') setLog(pl, f, 'kubelet-log', inZip ? 1 : 0);
      else if (rel === 'docker' || rel === 'systemlogs/docker' || rel === 'containerd' || rel === 'systemlogs/containerd') setLog(pl, f, 'runtime-log', inZip ? 1 : 0);
      else if (POD_LOG.test(rel) || /^(?:systemperf|kubeletcmd|iptables|helm|pdb)\b/.test(rel) || /^kube-system_|^pods$|^nodes$/.test(rel)) pl.role = 'other';
      return;
    }
    case 'rancher': {
      pl.nodeHint = root.node;
      pl.group = d || '.';
      if (rel === 'journald/kubelet' || rel.startsWith('rke2/agent-logs/kubelet.log') || rel === 'rke/containerlogs/kubelet') setLog(pl, f, 'kubelet-log', 0);
      else if (rel === 'journald/k3s') pl.priority = 0;
      else if (/^journald\/(?:containerd|docker)$|^(?:k3s|rke2)\/containerd\.log/.test(rel)) setLog(pl, f, 'runtime-log', 0);
      else if (rel.startsWith('systemlogs/')) pl.priority = 2;
      else if (/^(?:k3s|rke2|rke|kubeadm)\/crictl\/(?:psa|pods)$/.test(rel) || /^docker\/(?:dockerpsa|ps)/.test(rel)) pl.parseAs = 'container-list';
      else if (POD_LOG.test(rel) || rel.startsWith('rke/containerlogs/')) pl.role = 'other';
      return;
    }
    case 'plegscope-collect': {
      const c = root.collected ? placeCollected(root.collected, rel) : null;
      if (!c) return;
      pl.nodeHint = c.node;
      pl.group = c.group;
      pl.zone = c.zone;
      pl.collectedAt = c.collectedAt ?? pl.collectedAt;
      if (c.role === 'kubelet-log' || c.role === 'runtime-log' || c.role === 'kernel-log') setLog(pl, f, c.role, c.priority);
      else pl.priority = c.priority;
      return;
    }
    case 'kind': {
      const m = /^([^/]+)\/(.+)$/.exec(rel);
      if (!m) return;
      const node = m[1] as string;
      const inner = m[2] as string;
      if (!ix.has(j(d, `${node}/kubernetes-version.txt`)) && !ix.has(j(d, `${node}/kubelet.log`))) return;
      pl.nodeHint = node;
      pl.group = j(d, node);
      if (inner === 'kubelet.log') setLog(pl, f, 'kubelet-log', 0);
      else if (inner === 'journal.log') pl.priority = 1;
      else if (inner === 'containerd.log') setLog(pl, f, 'runtime-log', 0);
      else if (KIND_POD_LOGS.test(inner) || inner === 'serial.log' || inner === 'images.log') pl.role = 'other';
      return;
    }
    default:
      return;
  }
}

/** Year anchor of a rotated file: the date in its name (`messages-20240107`, `kubelet.log.20240107-101500`). */
export function rotationAnchor(p: string): number | null {
  const base = path.posix.basename(p);
  if (!/[-._]\d{8}(?:[-_T]?\d{6})?(?:\.gz|\.xz|\.bz2)?$/.test(base)) return null;
  const t = nameTime(base);
  return t === null ? null : t + 86400000;
}

/**
 * Rotated siblings oldest first (`messages-20240101`, `messages-20240107`, `messages`; `syslog.2.gz`, `syslog.1`,
 * `syslog`; `system@….journal`, `system.journal`), everything else in its place. Only for folders: in an archive, reading out of archive order costs a
 * new pass, and each file's stamps are anchored on their own anyway.
 */
export function rotationOrder<T extends { path: string }>(files: T[]): T[] {
  const fam = (p: string): { family: string; age: number } => {
    // journald's archived files: `system@<seqnum id>-<head seqnum>-<head time>.journal`, and `system@<time>-<random>.journal~`
    // for one set aside as dirty, beside the active `system.journal`; the times are µs in hex.
    const journal = /^((?:.*\/)?[^/@]+)@(?:[0-9a-f]{32}-[0-9a-f]{16}-([0-9a-f]{16})|([0-9a-f]{16})-[0-9a-f]{16})\.journal~?$/.exec(p);
    if (journal) return { family: `${journal[1] as string}.journal`, age: parseInt((journal[2] ?? journal[3]) as string, 16) };
    const dated = /^(.*?)[-._](\d{8})(?:[-_T]?\d{6})?(?:\.(?:gz|xz|bz2))?$/.exec(p);
    if (dated) return { family: dated[1] as string, age: Number(dated[2]) };
    const numbered = /^(.*?)\.(\d{1,3})(?:\.(?:gz|xz|bz2))?$/.exec(p);
    if (numbered) return { family: numbered[1] as string, age: -Number(numbered[2]) };
    return { family: p, age: Number.POSITIVE_INFINITY };
  };
  const first = new Map<string, number>();
  const keyed = files.map((f, i) => {
    const k = fam(f.path);
    if (!first.has(k.family)) first.set(k.family, i);
    return { f, i, k };
  });
  // Files numbered .1/.2 and dated siblings never share a family with real dated names of other logs: family is the
  // full path without the rotation suffix.
  return keyed
    .sort((a, b) => (first.get(a.k.family) as number) - (first.get(b.k.family) as number) || (a.k.family === b.k.family ? a.k.age - b.k.age : 0) || a.i - b.i)
    .map((x) => x.f);
}
