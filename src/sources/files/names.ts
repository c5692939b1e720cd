// What a path says about its file: a collection time (metrics snapshots, rotated logs) and, rarely, a node.
// Both are hints; content wins wherever it speaks.

const MIN_YEAR = 2000;
const MAX_YEAR = 2099;
const MIN_EPOCH_S = Date.UTC(MIN_YEAR, 0, 1) / 1000;
const MAX_EPOCH_S = Date.UTC(MAX_YEAR + 1, 0, 1) / 1000;

// Date and time, extended or compact. Separators inside the time may be ':' or '-'/'_' (':' is awkward in file
// names). Digits must not continue on either side, so IDs and sizes are not read as times.
const RE_DATETIME_EXT =
  /(?<!\d)(\d{4})-(\d{2})-(\d{2})[T_ -](\d{2})[:_-]?(\d{2})[:_-]?(\d{2})(?:[.,](\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?(?!\d)/;
const RE_DATETIME_COMPACT = /(?<!\d)(\d{4})(\d{2})(\d{2})[T_-]?(\d{2})(\d{2})(\d{2})(?:[.,](\d{1,9}))?(Z|[+-]\d{4})?(?!\d)/;
// A bare date is easy to hit by chance inside other digits or hex, so it must stand alone.
const RE_DATE = /(?<![0-9A-Za-z])(\d{4})(-?)(\d{2})\2(\d{2})(?!\d)/;
const RE_EPOCH = /(?<![0-9A-Za-z])(\d{10}|\d{13})(?:\.\d+)?(?![0-9A-Za-z])/;

/** A time named in the file name, as epoch ms (names without a zone are read as UTC), or null. */
export function nameTime(fileName: string): number | null {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  for (const re of [RE_DATETIME_EXT, RE_DATETIME_COMPACT]) {
    const m = re.exec(base);
    if (!m) continue;
    const t = toEpoch(m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]);
    if (t !== null) return t;
  }
  const d = RE_DATE.exec(base);
  if (d) {
    const t = toEpoch(d[1], d[3], d[4], '00', '00', '00', undefined, undefined);
    if (t !== null) return t;
  }
  const e = RE_EPOCH.exec(base);
  if (e && e[1]) {
    const seconds = e[1].length === 13 ? Number(e[1]) / 1000 : Number(e[1]);
    if (seconds >= MIN_EPOCH_S && seconds < MAX_EPOCH_S) return Math.round(seconds * 1000);
  }
  return null;
}

function toEpoch(
  ys: string | undefined, mos: string | undefined, ds: string | undefined, hs: string | undefined,
  mis: string | undefined, ss: string | undefined, frac: string | undefined, zone: string | undefined,
): number | null {
  const y = Number(ys), mo = Number(mos), d = Number(ds), h = Number(hs), mi = Number(mis), s = Number(ss);
  if (!(y >= MIN_YEAR && y <= MAX_YEAR && mo >= 1 && mo <= 12 && d >= 1 && h <= 23 && mi <= 59 && s <= 60)) return null;
  if (d > new Date(Date.UTC(y, mo, 0)).getUTCDate()) return null;
  const ms = frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0;
  let t = Date.UTC(y, mo - 1, d, h, mi, Math.min(s, 59), ms);
  if (zone && zone !== 'Z') {
    const zm = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
    if (!zm) return null;
    const offset = (Number(zm[2]) * 60 + Number(zm[3])) * (zm[1] === '-' ? -1 : 1);
    if (Math.abs(offset) > 14 * 60) return null;
    t -= offset * 60_000;
  }
  return t;
}

// RFC 1123 subdomain, the shape of a Kubernetes node name.
const RE_NODE_NAME = /^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/;

/**
 * A node named by the path: only the unambiguous `nodes/<name>/…` layout (must-gather and our own exports).
 * Anything else is left to the content (journal host field, node objects).
 */
export function nodeHint(displayPath: string): string | null {
  const segments = displayPath.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');
  for (let i = segments.length - 3; i >= 0; i--) {
    if (segments[i] !== 'nodes') continue;
    const name = segments[i + 1] as string;
    return RE_NODE_NAME.test(name) ? name : null;
  }
  return null;
}

/** Words that name what a file or folder holds, not whose it is (`kubelet.log`, `logs/`, `metrics-…`). */
const CONTENT_WORDS = new Set([
  'kubelet', 'kubenswrapper', 'containerd', 'crio', 'cri-o', 'docker', 'dockerd', 'runtime', 'runc', 'kernel', 'dmesg',
  'journal', 'journalctl', 'messages', 'syslog', 'goroutine', 'goroutines', 'stacks', 'stack', 'dump', 'dumps', 'metrics',
  'describe', 'node', 'nodes', 'log', 'logs', 'var', 'tmp', 'data', 'output', 'out', 'files', 'incident', 'incidents',
  'bundle', 'case', 'ticket', 'excerpt', 'excerpts', 'paste', 'pastes', 'before', 'after', 'old', 'new', 'current',
  'previous', 'rotated', 'archive', 'backup', 'collected', 'collection', 'snapshots', 'snapshot', 'prometheus', 'cri',
  'system', 'host', 'hosts', 'all', 'other', 'misc', 'extra', 'debug', 'kube', 'k8s', 'kubernetes', 'openshift',
]);
const ROLE_WORD = 'kubelet|kubenswrapper|containerd|crio|cri-o|docker|dockerd|runtime|kernel|dmesg|journal|journalctl|messages|syslog|goroutines?|stacks?|metrics|describe';
const ROLE_FIRST = new RegExp(`^(?:${ROLE_WORD})(?:[-_.]|$)`);
/** `<node>-kubelet.log`, `<node>_dmesg.txt`, `<node>.metrics`, `<node>-crio.log.gz` (what the gap advice writes). */
const RE_NODE_THEN_ROLE = new RegExp(`^(.+?)[-_.](?:${ROLE_WORD})(?:[-_.].*)?$`);
/** `<node>-20240311T101000Z.metrics`, `<node>_2024-03-11T10:10:00Z.txt`. */
const RE_NODE_THEN_TIME = /^(.+?)[-_](?:\d{8}T\d{4,6}Z?|\d{4}-\d{2}-\d{2}(?:[T_][\d:_-]+Z?)?)(?:\.[A-Za-z0-9]+)*$/;

/** Whether a path segment can be a node's name: RFC 1123, not a word for contents, not a date or a number. */
function nodeLike(s: string): boolean {
  if (!RE_NODE_NAME.test(s) || /^\d+$/.test(s) || nameTime(s) !== null) return false;
  // `kubelet-old`, `crio-node1`: named for what they hold, whatever follows.
  return !CONTENT_WORDS.has(s) && !ROLE_FIRST.test(s);
}

/** The node a file's own name gives, as plegscope's gap advice names files (`node-a-kubelet.log`, `node-a-<time>.metrics`). */
export function fileNameNode(fileName: string): string | null {
  const base = (fileName.split(/[\\/]/).pop() ?? fileName).replace(/\.(?:gz|xz|bz2|zst)$/i, '');
  for (const re of [RE_NODE_THEN_ROLE, RE_NODE_THEN_TIME]) {
    const m = re.exec(base);
    if (m && nodeLike(m[1] as string)) return m[1] as string;
  }
  return null;
}

/** The node a loose folder names (`node-5/kubelet.log`, `worker-3/logs/dmesg.txt`): the nearest folder above the file,
 *  below the input, whose name can be a node's. `relPath` is relative to the folder the user named. */
export function folderNode(relPath: string): string | null {
  const segments = relPath.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');
  for (let i = segments.length - 2; i >= 0; i--) if (nodeLike(segments[i] as string)) return segments[i] as string;
  return null;
}

/** Where a node name read from a path came from: a bundle's `nodes/<name>/` layout, a loose folder, the file's name. */
export type NodeHintFrom = 'layout' | 'folder' | 'file-name';

/**
 * The node a path names, if any. `fullPath` is the path as the user typed it plus the path inside (for the `nodes/<name>/`
 * layout); `relPath` is the path below the folder they named (the file's name alone for a file they named). Loose files
 * only (`loose`): a bundle's layout says whose its files are. The file's own name is the nearest, then its folders.
 */
export function pathNode(fullPath: string, relPath: string, loose: boolean): { name: string; from: NodeHintFrom } | null {
  const layout = nodeHint(fullPath);
  if (layout) return { name: layout, from: 'layout' };
  if (!loose) return null;
  const file = fileNameNode(relPath);
  if (file) return { name: file, from: 'file-name' };
  const folder = folderNode(relPath);
  return folder ? { name: folder, from: 'folder' } : null;
}

/** Whose lines a file's name says it holds: `kubelet.log`, `containerd.log`, `dockerd-journal.txt`, `crio.log`,
 *  `dmesg.txt`, `kern.log`. Only a tie-breaker: a line whose own prefix or content names its writer keeps that. */
export function originOfName(path: string): 'kubelet' | 'runtime' | 'kernel' | undefined {
  const base = (path.split(/[\\/]/).pop() ?? path).toLowerCase();
  if (/kubelet|kubenswrapper|hyperkube|origin-node|atomic-openshift-node/.test(base)) return 'kubelet';
  if (/containerd|dockerd|docker|crio|cri-o|runc|conmon|podman/.test(base)) return 'runtime';
  if (/dmesg|kern(?:el)?[._-]|kern\.log|kmsg/.test(base)) return 'kernel';
  return undefined;
}
