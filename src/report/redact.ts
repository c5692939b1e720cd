// `--redact`: reports get attached to tickets, and a kubelet journal names the customer's hosts, addresses, workloads
// and namespaces on every line. Redaction rewrites the Analysis itself before any renderer runs, so every format is
// covered at once and cannot drift apart. Each name gets one pseudonym for the whole report (`node-1`, `host-2`,
// `ip-3`, `ns-1`, `pod-4`, `uid-2`, `id-6`, `domain-1`) so the report still reads: the same pod in a finding and in a
// stall is the same `pod-4`.
//
// Two kinds of secret: names recognised by where they stand (a node's name, the host field of a journal line,
// `pod="ns/name"`, `name_ns(uid)`, …) are collected first and then replaced wherever they occur; addresses and IDs
// (IPv4/IPv6, UUIDs, 64-hex container/sandbox IDs and their short forms) are recognised by shape anywhere.
// Kept as is: loopback and unspecified addresses, the Kubernetes system namespaces (`default`, `kube-system`,
// `kube-public`, `kube-node-lease`, `openshift` and `openshift-*`: they name the product, not the customer, and say
// where a stuck pod belonged), and the tool's own vocabulary (rule ids, causes, severities, references, times).
import { isIPv6 } from 'node:net';
import type { Analysis, NodeReport } from '../contract/analysis.js';

export type RedactKind = 'node' | 'host' | 'domain' | 'ip' | 'namespace' | 'pod' | 'uid' | 'id';

export interface RedactionEntry {
  kind: RedactKind;
  original: string;
  pseudonym: string;
}

export interface RedactionMap {
  /** Sorted by kind, then by pseudonym number. Several originals may share a pseudonym (a node's FQDN and short name). */
  entries: RedactionEntry[];
}

export interface Redacted {
  analysis: Analysis;
  mapping: RedactionMap;
}

const PREFIX: Record<RedactKind, string> = {
  node: 'node', host: 'host', domain: 'domain', ip: 'ip', namespace: 'ns', pod: 'pod', uid: 'uid', id: 'id',
};
const KIND_ORDER: RedactKind[] = ['node', 'host', 'domain', 'ip', 'namespace', 'pod', 'uid', 'id'];

/** Fields that hold the tool's own vocabulary or times, never log text: copied untouched. */
const KEEP_KEYS = new Set([
  'schemaVersion', 'tool', 'generatedAt', 'ruleId', 'cause', 'primaryCause', 'severity', 'ruleSeverity', 'explains', 'role', 'roles', 'format', 'kind',
  'endedBy', 'runtime', 'operation', 'references', 'kubeletVersion', 'trait',
  'ts', 'lastRelistAt', 'unhealthyFrom', 'endedAt', 'at', 'from', 'to', 'start', 'end', 'firstUnhealthyFrom', 'lastEndedAt',
]);

const SYSTEM_NAMESPACES = new Set(['default', 'kube-system', 'kube-public', 'kube-node-lease', 'openshift']);
/** Words that happen to be valid names but carry no secret; replacing them everywhere would wreck the text. */
const NEVER = new Set([
  'localhost', 'localhost.localdomain', 'kubelet', 'kubernetes', 'containerd', 'docker', 'dockerd', 'crio', 'cri-o',
  'node', 'nodes', 'pod', 'pods', 'unknown', 'none', 'nil', 'null', 'true', 'false', 'systemd', 'kernel', 'host',
]);
/** Public hosts that show up in image references and links; their names identify nobody. */
const PUBLIC_HOST = /(^|\.)(docker\.io|docker\.com|gcr\.io|k8s\.io|quay\.io|ghcr\.io|github\.com|githubusercontent\.com|kubernetes\.io|redhat\.io|redhat\.com|mcr\.microsoft\.com|googleapis\.com|golang\.org|go\.dev)$/i;

const DNS_NAME = '[a-z0-9](?:[a-z0-9-]*[a-z0-9])?';
const POD_NAME = '[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?';
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const HOSTISH = '[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?';

// Where a host name stands in a line: the journal's host field (short, precise and ISO stamps), journald JSON, klog
// key/values naming a node or host, kubelet's own sentences about its node, URLs and dial/lookup errors.
// The flag says whether the name is a machine's own (then its short name is the same machine: sosreport and journal
// use the short name of an FQDN node), or some other host named in passing (`registry.example.com`: its first label
// is no name of its own).
const HOST_PATTERNS: Array<[RegExp, boolean]> = [
  [new RegExp(`^[A-Z][a-z]{2} [ 0-3]?\\d \\d\\d:\\d\\d:\\d\\d(?:\\.\\d+)? (${HOSTISH}) [^\\s:]+?(?:\\[\\d+\\])?:`, 'g'), true],
  [new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(?:[.,]\\d+)?(?:Z|[+-]\\d\\d:?\\d\\d)? (${HOSTISH}) [^\\s:]+?(?:\\[\\d+\\])?:`, 'g'), true],
  [new RegExp(`"_HOSTNAME"\\s*:\\s*"(${HOSTISH})"`, 'g'), true],
  [new RegExp(`\\b(?:node|nodeName|node_name|hostname|hostName|hostnameOverride)\\s*[=:]\\s*\\\\?"?(${HOSTISH})`, 'g'), true],
  [new RegExp(`"(?:node|nodeName|hostname)"\\s*:\\s*"(${HOSTISH})"`, 'g'), true],
  [new RegExp(`\\b[Nn]ode \\\\?"?(${HOSTISH})\\\\?"? (?:status is now|not found|event message)`, 'g'), true],
  [new RegExp(`\\bevent message for node \\\\?"?(${HOSTISH})`, 'g'), true],
  [new RegExp(`\\b(?:registered|register|registering) node \\\\?"?(${HOSTISH})`, 'g'), true],
  [new RegExp(`\\bnodes/(${HOSTISH})(?=/|\\b)`, 'g'), true],
  [new RegExp(`\\bhttps?://(?:[^@/\\s]*@)?(${HOSTISH})`, 'g'), false],
  [new RegExp(`\\b(?:dial tcp|lookup) (${HOSTISH})`, 'g'), false],
  // The kernel's NFS client: `nfs: server nfs01.corp.example.com not responding, still trying`, `… OK`.
  [new RegExp(`\\bserver (${HOSTISH}) (?:not responding|OK)\\b`, 'g'), false],
  // An image or endpoint reference: `registry.corp:5000/team/app`, `"quay.internal/x"` (a dotted name before a path).
  [new RegExp(`(?:^|[\\s"'=(\\[])(${HOSTISH}\\.${HOSTISH})(?::\\d{1,5})?/[A-Za-z0-9._-]`, 'g'), false],
  // Any fully qualified name in a line (three labels or more, the last a word): NFS servers, API endpoints, registries.
  [new RegExp(`(?<![A-Za-z0-9._/-])([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?){2,}\\.?)(?![A-Za-z0-9_-]|\\.[A-Za-z0-9])`, 'g'), false],
];

/** Last labels that make a dotted word a file name (`kern.log.gz`, `kubelet.service`), not a host. */
const FILE_SUFFIX = new Set([
  'log', 'gz', 'xz', 'bz2', 'zst', 'lz4', 'txt', 'json', 'yaml', 'yml', 'go', 'tar', 'tgz', 'zip', 'conf', 'service',
  'slice', 'scope', 'socket', 'mount', 'so', 'sh', 'py', 'js', 'ts', 'html', 'md', 'xml', 'pem', 'crt', 'key', 'sock',
  'pid', 'd', 'tmp', 'out', 'err', 'journal', 'prom', 'csv', 'jsonl', 'ndjson', 'old', 'bak', 'name', 'id', 'hash', 'uid',
]);
/** First labels of reverse-DNS keys (`io.kubernetes.container.name`), never hosts. */
const REVERSE_DNS = new Set(['io', 'com', 'org', 'net', 'dev', 'sh', 'k8s', 'x-k8s']);

/** Whether a known name starts the dotted word (`worker-3.example.com.metrics`: a file named after a node). */
function knownPrefix(name: string, p: Pseudonyms): boolean {
  const labels = name.toLowerCase().split('.');
  for (let k = 1; k < labels.length; k++) if (p.literal.has(labels.slice(0, k).join('.'))) return true;
  return false;
}

/** Whether a dotted word a pattern found reads as a host name (not a version, a file, a Go package or a label key). */
function hostLike(name: string): boolean {
  const labels = name.replace(/\.$/, '').toLowerCase().split('.');
  const last = labels[labels.length - 1] as string;
  if (labels.length < 2) return /[a-z]/.test(last);
  return /^[a-z]{2,63}$/.test(last) && !FILE_SUFFIX.has(last) && !REVERSE_DNS.has(labels[0] as string);
}

interface PodHit { ns?: string; pod?: string; uid?: string }
// Where pods and namespaces stand: structured `pod="ns/name"` (KObj), pod lists, JSON KObj, the pre-1.21
// `name_ns(uid)` and dockershim `"name_ns"` forms, the old `pod name/ns` PLEG lines (name first, as the code prints),
// log paths, docker container names, containerd's sandbox metadata and must-gather paths.
const POD_PATTERNS: Array<[RegExp, (m: RegExpExecArray) => PodHit[]]> = [
  [new RegExp(`\\bpod[=:] ?\\\\?"?(${DNS_NAME})/(${POD_NAME})`, 'g'), (m) => [{ ns: m[1], pod: m[2] }]],
  [new RegExp(`\\bpod \\\\?"(${DNS_NAME})/(${POD_NAME})\\\\?"`, 'g'), (m) => [{ ns: m[1], pod: m[2] }]],
  [/\bpods=\[([^\]]*)\]/g, (m) => [...(m[1] ?? '').matchAll(new RegExp(`(${DNS_NAME})/(${POD_NAME})`, 'g'))].map((x) => ({ ns: x[1], pod: x[2] }))],
  [new RegExp(`"name"\\s*:\\s*"(${POD_NAME})"\\s*,\\s*"namespace"\\s*:\\s*"(${DNS_NAME})"`, 'g'), (m) => [{ pod: m[1], ns: m[2] }]],
  [new RegExp(`\\b(${POD_NAME})_(${DNS_NAME})\\((${UUID})\\)`, 'g'), (m) => [{ pod: m[1], ns: m[2], uid: m[3] }]],
  [new RegExp(`\\bpod \\\\?"(${POD_NAME})_(${DNS_NAME})\\\\?"`, 'g'), (m) => [{ pod: m[1], ns: m[2] }]],
  [new RegExp(`\\b(?:events for pod|PLEG: pod) (${POD_NAME})/(${DNS_NAME})\\b`, 'g'), (m) => [{ pod: m[1], ns: m[2] }]],
  [new RegExp(`/var/log/pods/(${DNS_NAME})_(${POD_NAME})_(${UUID})`, 'g'), (m) => [{ ns: m[1], pod: m[2], uid: m[3] }]],
  [new RegExp(`/var/log/containers/(${POD_NAME})_(${DNS_NAME})_`, 'g'), (m) => [{ pod: m[1], ns: m[2] }]],
  [new RegExp(`\\bk8s_[A-Za-z0-9.-]+_(${POD_NAME})_(${DNS_NAME})_(${UUID})_\\d+`, 'g'), (m) => [{ pod: m[1], ns: m[2], uid: m[3] }]],
  [new RegExp(`\\bnamespaces/(${DNS_NAME})/pods/(${POD_NAME})`, 'g'), (m) => [{ ns: m[1], pod: m[2] }]],
  [new RegExp(`PodSandboxMetadata\\{Name:(${POD_NAME}),Uid:(${UUID}),Namespace:(${DNS_NAME})`, 'g'), (m) => [{ pod: m[1], uid: m[2], ns: m[3] }]],
  [new RegExp(`\\b(?:podName|pod_name)[=:] ?\\\\?"?(${POD_NAME})`, 'g'), (m) => [{ pod: m[1] }]],
  [new RegExp(`"(?:podName|pod_name)"\\s*:\\s*"(${POD_NAME})"`, 'g'), (m) => [{ pod: m[1] }]],
  [new RegExp(`\\b(?:namespace|podNamespace|pod_namespace)[=:] ?\\\\?"?(${DNS_NAME})\\b`, 'g'), (m) => [{ ns: m[1] }]],
  [new RegExp(`"(?:namespace|podNamespace)"\\s*:\\s*"(${DNS_NAME})"`, 'g'), (m) => [{ ns: m[1] }]],
];

const isAlnum = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const isDigit = (c: number): boolean => c >= 48 && c <= 57;

class Pseudonyms {
  private readonly next = new Map<RedactKind, number>();
  /** Lower-cased name → pseudonym, for names matched as words. */
  readonly literal = new Map<string, { kind: RedactKind; pseudonym: string }>();
  /** Addresses and IDs (exact text as found, lower-cased) → pseudonym. */
  readonly shaped = new Map<string, { kind: RedactKind; pseudonym: string }>();
  readonly entries: RedactionEntry[] = [];
  private buckets: Map<string, string[]> | null = null;
  private fullIds: string[] = [];

  private fresh(kind: RedactKind): string {
    const n = (this.next.get(kind) ?? 0) + 1;
    this.next.set(kind, n);
    return `${PREFIX[kind]}-${n}`;
  }

  addLiteral(kind: RedactKind, name: string, pseudonym?: string): string | null {
    const key = name.toLowerCase();
    if (key.length < 2 || NEVER.has(key)) return null;
    const have = this.literal.get(key);
    if (have) return have.pseudonym;
    const p = pseudonym ?? this.fresh(kind);
    this.literal.set(key, { kind, pseudonym: p });
    this.entries.push({ kind, original: name, pseudonym: p });
    this.buckets = null;
    return p;
  }

  /** A host or node name, with its short name (same pseudonym) and its parent domains (their own pseudonyms). */
  addHost(kind: 'node' | 'host', name: string, withShort = true): void {
    if (looksLikeIp(name) || PUBLIC_HOST.test(name)) return;
    const key = name.toLowerCase().replace(/\.$/, '');
    const labels = key.split('.');
    const short = labels[0] as string;
    // A host known by its short name (the journal's host field) is the node of that FQDN, and vice versa.
    const known = this.literal.get(key) ?? (withShort && labels.length > 1 ? this.literal.get(short) : undefined);
    const existing = known && (known.kind === 'node' || known.kind === 'host') ? known : undefined;
    const p = this.addLiteral(existing?.kind ?? kind, name, existing?.pseudonym);
    if (p === null) return;
    if (withShort && labels.length > 1 && !/^\d+$/.test(short)) this.addLiteral(existing?.kind ?? kind, short, p);
    for (let i = 1; i < labels.length - 1; i++) this.addLiteral('domain', labels.slice(i).join('.'));
  }

  addShaped(kind: RedactKind, text: string): string {
    // A pod UID is one UID in every spelling: dashes, or underscores (systemd's cgroup slices).
    const key = kind === 'uid' ? text.toLowerCase().replace(/_/g, '-') : text.toLowerCase();
    const have = this.shaped.get(key);
    if (have) return have.pseudonym;
    const p = this.fresh(kind);
    this.shaped.set(key, { kind, pseudonym: p });
    this.entries.push({ kind, original: text, pseudonym: p });
    return p;
  }

  setFullIds(ids: string[]): void {
    this.fullIds = ids;
  }

  /** The pseudonym of the one known 64-hex ID this short form abbreviates, if exactly one. */
  idByPrefix(short: string): string | null {
    const s = short.toLowerCase();
    const hits = this.fullIds.filter((f) => f.startsWith(s));
    return hits.length === 1 ? this.addShaped('id', hits[0] as string) : null;
  }

  /** Literal names grouped by their first two characters, longest first, for matching at a word start. */
  bucketsOf(): Map<string, string[]> {
    if (this.buckets) return this.buckets;
    const b = new Map<string, string[]>();
    for (const k of this.literal.keys()) {
      const head = k.slice(0, 2);
      const list = b.get(head) ?? [];
      list.push(k);
      b.set(head, list);
    }
    for (const list of b.values()) list.sort((x, y) => y.length - x.length || x.localeCompare(y));
    this.buckets = b;
    return b;
  }
}

function looksLikeIp(s: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(s) || (s.includes(':') && isIPv6(s));
}

function keepIp(ip: string): boolean {
  return ip.startsWith('127.') || ip === '0.0.0.0' || ip === '::1' || ip === '::';
}

/** Every log-derived string of the analysis, in report order (the order pseudonyms are numbered in). */
function strings(v: unknown, out: string[], key?: string): void {
  if (key !== undefined && KEEP_KEYS.has(key)) return;
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) strings(x, out, k);
}

function mapStrings<T>(v: T, f: (s: string) => string, key?: string): T {
  if (key !== undefined && KEEP_KEYS.has(key)) return v;
  if (typeof v === 'string') return f(v) as T;
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f)) as T;
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = mapStrings(x, f, k);
    return o as T;
  }
  return v;
}

function harvest(analysis: Analysis, p: Pseudonyms, texts: string[]): void {
  for (const n of analysis.nodes) p.addHost('node', n.name);
  for (const i of analysis.inputs) for (const a of i.artifacts) if (a.node) p.addHost('node', a.node);
  for (const i of analysis.inputs) for (const u of i.unlisted ?? []) if (u.node) p.addHost('node', u.node);
  const uids: string[] = [];
  for (const t of texts) {
    for (const [re, own] of HOST_PATTERNS) {
      for (const m of t.matchAll(re)) if (m[1] && /[A-Za-z]/.test(m[1]) && (own || (hostLike(m[1]) && !knownPrefix(m[1], p)))) p.addHost('host', m[1].replace(/\.$/, ''), own);
    }
    for (const [re, hits] of POD_PATTERNS) {
      re.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = re.exec(t)) !== null) {
        for (const h of hits(m)) {
          if (h.ns && !SYSTEM_NAMESPACES.has(h.ns) && !h.ns.startsWith('openshift-')) p.addLiteral('namespace', h.ns);
          if (h.pod) p.addLiteral('pod', h.pod);
          if (h.uid) uids.push(h.uid);
        }
      }
    }
  }
  const full = new Set<string>();
  for (const t of texts) for (const m of t.matchAll(/(?<![0-9A-Za-z])[0-9a-fA-F]{64}(?![0-9A-Za-z])/g)) full.add(m[0].toLowerCase());
  p.setFullIds([...full]);
}

/** Replaces every known name, address and ID in one pass, so a pseudonym is never itself replaced again. */
function rewrite(s: string, p: Pseudonyms): string {
  const buckets = p.bucketsOf();
  let out = '';
  let last = 0;
  let i = 0;
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    // Right after a percent-encoded byte (`%3D10.0.77.5`, `%2Fnode-a`) a word starts too.
    const pct = i >= 3 && s.charCodeAt(i - 3) === 37 && isHex(s.charCodeAt(i - 2)) && isHex(s.charCodeAt(i - 1));
    const prev = i > 0 && !pct ? s.charCodeAt(i - 1) : 0;
    const wordStart = isAlnum(c) && !isAlnum(prev);
    const v6Start = c === 58 && s.charCodeAt(i + 1) === 58 && !isHex(prev) && prev !== 58;
    if (!wordStart && !v6Start) {
      i++;
      continue;
    }
    let len = 0;
    let rep = '';
    if (wordStart) {
      for (const k of buckets.get(s.slice(i, i + 2).toLowerCase()) ?? []) {
        if (i + k.length <= n && !isAlnum(s.charCodeAt(i + k.length)) && s.slice(i, i + k.length).toLowerCase() === k) {
          len = k.length;
          rep = (p.literal.get(k) as { pseudonym: string }).pseudonym;
          break;
        }
      }
    }
    if (len === 0) [len, rep] = shaped(s, i, prev, p);
    if (len > 0) {
      out += s.slice(last, i) + rep;
      i += len;
      last = i;
    } else {
      i++;
    }
  }
  return last === 0 ? s : out + s.slice(last);
}

/** A UID with dashes or underscores (systemd's `kubepods-burstable-pod<uid_with_underscores>.slice`). */
const UID_ANY = '[0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12}';
const UUID_AT = new RegExp(UID_ANY, 'iy');
/** A pod's cgroup: `pod<uid>` (cgroupfs `/kubepods/burstable/pod<uid>/`, systemd `…-pod<uid>.slice`). */
const POD_UID_AT = new RegExp(`pod(${UID_ANY})`, 'iy');
const V4_AT = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})/y;
/** A port after a dot (tcpdump, conntrack: `10.0.77.8.443`): the address is still an address. */
const DOT_PORT_AT = /\.\d{1,5}(?![0-9A-Za-z]|\.\d)/y;
const V6_AT = /[0-9A-Fa-f:]*:[0-9A-Fa-f:]*(?:\d{1,3}(?:\.\d{1,3}){3})?/y;
/** IPv6 ending in a dotted IPv4 (`::ffff:10.0.77.6`): taken whole. */
const V6V4_AT = /[0-9A-Fa-f:]*:\d{1,3}(?:\.\d{1,3}){3}(?![0-9A-Za-z]|\.\d)/y;

/** An address or ID starting at `i`: [length, pseudonym], or [0, ''] for none. */
function shaped(s: string, i: number, prev: number, p: Pseudonyms): [number, string] {
  const after = (j: number): number => s.charCodeAt(j);
  UUID_AT.lastIndex = i;
  const u = UUID_AT.exec(s);
  if (u && !isAlnum(after(i + 36))) return [36, p.addShaped('uid', u[0])];
  POD_UID_AT.lastIndex = i;
  const pu = POD_UID_AT.exec(s);
  if (pu && !isAlnum(after(i + 39))) return [39, `pod${p.addShaped('uid', pu[1] as string)}`];

  V6V4_AT.lastIndex = i;
  const v6v4 = V6V4_AT.exec(s);
  if (v6v4 && v6v4[0].includes('::') && isIPv6(v6v4[0])) return [v6v4[0].length, p.addShaped('ip', v6v4[0])];

  V6_AT.lastIndex = i;
  const v6 = V6_AT.exec(s);
  if (v6 && v6[0].length > 2) {
    let cand = v6[0];
    while (cand.length > 2 && !isIPv6(cand) && /[:.]$/.test(cand)) cand = cand.slice(0, -1);
    const colons = cand.split(':').length - 1;
    if ((cand.includes('::') || colons === 7) && isIPv6(cand) && !isAlnum(after(i + cand.length))) {
      return [cand.length, keepIp(cand) ? cand : p.addShaped('ip', cand)];
    }
  }

  if (prev !== 46) {
    V4_AT.lastIndex = i;
    const v4 = V4_AT.exec(s);
    if (v4 && v4.slice(1).every((o) => Number(o) <= 255)) {
      const end = i + v4[0].length;
      const next = after(end);
      DOT_PORT_AT.lastIndex = end;
      if (!isAlnum(next) && (!(next === 46 && isDigit(after(end + 1))) || DOT_PORT_AT.test(s))) {
        return [v4[0].length, keepIp(v4[0]) ? v4[0] : p.addShaped('ip', v4[0])];
      }
    }
  }

  let j = i;
  let letters = 0;
  let digits = 0;
  while (j < s.length && isHex(s.charCodeAt(j))) {
    if (isDigit(s.charCodeAt(j))) digits++;
    else letters++;
    j++;
  }
  const len = j - i;
  // Numbers are never names: the fraction of a decimal (`1.710151632348e+09`, `32.348123456`) and a mantissa with its
  // exponent (`1710151632348e+09`, `5e10`) are made of hex digits too.
  if (len >= 8 && len !== 64 && isNumberPart(s, i, j, prev) && (/[eE][+-]$/.test(s.slice(i, j + 1)) || p.idByPrefix(s.slice(i, j)) === null)) return [0, ''];
  if (len >= 8 && !isAlnum(after(j))) {
    if (len === 64) return [64, p.addShaped('id', s.slice(i, j))];
    const byPrefix = len < 64 && (letters > 0 || len >= 12) ? p.idByPrefix(s.slice(i, j)) : null;
    if (byPrefix) return [len, byPrefix];
    // A run this long of both digits and hex letters is an ID (short container ID, machine or boot ID), not a word.
    if (len >= 12 && letters > 0 && digits > 0) return [len, p.addShaped('id', s.slice(i, j))];
  }
  return [0, ''];
}

/** Whether the hex run s[i, j) is part of a number: digits (with at most an exponent's `e`) after `digit.`, or digits
 *  ending in an exponent (`e+09`, `e-5`, `e10`). */
function isNumberPart(s: string, i: number, j: number, prev: number): boolean {
  const run = s.slice(i, j);
  const exp = /^\d+[eE]\d*$/.exec(run);
  const signedExp = exp && /[eE]$/.test(run) && /^[+-]\d/.test(s.slice(j, j + 2));
  const plainExp = exp && /^\d+[eE]\d+$/.test(run);
  if (signedExp || plainExp) return true;
  return prev === 46 && isDigit(s.charCodeAt(i - 2)) && /^\d+(?:[eE]\d*)?$/.test(run);
}

/**
 * The analysis with every node and host name, IP address, pod and namespace name, pod UID and container/sandbox ID
 * replaced by a pseudonym, and the mapping from originals to pseudonyms. Pure: the input is not modified.
 */
export function redact(analysis: Analysis): Redacted {
  const { text: _text, ...r } = redactor(analysis);
  void _text;
  return r;
}

/** redact(), and the rewrite it used, for text the report does not hold but a view shows next to it (the TUI's log
 *  lines and paths): the same name gets the same pseudonym. */
export function redactor(analysis: Analysis): Redacted & { text: (s: string) => string } {
  const p = new Pseudonyms();
  const texts: string[] = [];
  strings(analysis, texts);
  harvest(analysis, p, texts);
  const out = mapStrings(analysis, (s) => rewrite(s, p));
  // A count check's command names files and hosts: redacted, it no longer runs as printed. It says so, and where its
  // numbers come from (the original files, under the names the redaction map gives back).
  out.nodes.forEach((n, i) => n.findings.forEach((f, j) => {
    const before = analysis.nodes[i]?.findings[j]?.checks;
    f.checks?.forEach((c, k) => {
      if (before?.[k] !== undefined && c.grep !== before[k].grep) c.grep = `# names redacted; counted on the original files (names: --redact-map): ${c.grep}`;
    });
  }));
  const order = (e: RedactionEntry): number => Number(e.pseudonym.slice(e.pseudonym.lastIndexOf('-') + 1));
  const entries = [...p.entries].sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || order(a) - order(b) || a.original.localeCompare(b.original));
  return { analysis: out, mapping: { entries }, text: (s) => rewrite(s, p) };
}

/** The mapping as written by `--redact-map FILE` (keep it apart from the report: it undoes the redaction). */
export function renderRedactionMap(m: RedactionMap): string {
  return JSON.stringify({ note: 'plegscope redaction map: pseudonym ← original. Keep it apart from the report.', entries: m.entries }, null, 2) + '\n';
}

/** A per-node map (JUnit's rules evaluated) re-keyed from the original node names to the redacted ones. */
export function rekeyByNode<T>(before: Analysis, after: Analysis, m: ReadonlyMap<string, T>): Map<string, T> {
  const out = new Map<string, T>();
  before.nodes.forEach((n: NodeReport, i) => {
    const v = m.get(n.name);
    const to = after.nodes[i]?.name;
    if (v !== undefined && to !== undefined) out.set(to, v);
  });
  return out;
}
