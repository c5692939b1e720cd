// One node's evidence, through the API server only (no pod on the node: a NotReady node would never run it): the Node
// object, its events, the pods bound to it (counted), the kubelet's /metrics twice, its goroutine dump, healthz?verbose
// and configz through the node proxy, and the kubelet's, the runtime's and the kernel's logs — by the node log query
// (`/proxy/logs/?query=kubelet&sinceTime=…`, which runs `journalctl --utc --no-pager --output=short-precise`), else
// from the kubelet's /logs/ file server (`messages`, `syslog`, `kern.log`, the binary `journal/`). Written to
// DIR/<node>/… with the manifest DIR/collected.json (src/sources/files/collected.ts reads it back). A refusal is
// recorded with what it means; a node that does not exist is an error (NodeNotFound).
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ClusterError, type Answer, type KubeClient } from './client.js';
import { MANIFEST_NAME, parseManifest, type CollectedFile, type CollectedManifest, type CollectedNode } from '../collected-manifest.js';
import { isoTime } from '../../util/instant.js';

export class NodeNotFound extends Error {
  constructor(readonly node: string, readonly detail: string) {
    super(`node "${node}" not found: ${detail}`);
  }
}

export interface CollectOptions {
  client: KubeClient;
  nodes: string[];
  dir: string;
  /** `sinceTime` of the log queries: a duration back from the API server's clock (ms), or a time (epoch ms). */
  since: { agoMs: number } | { at: number };
  /** Seconds between the two /metrics snapshots. */
  intervalSeconds: number;
  /** A line per step, for the terminal (stderr). */
  say?: (line: string) => void;
  signal?: AbortSignal;
  /** The context's name, for the manifest and the commands it suggests. */
  context?: string;
}

export interface Manifest extends CollectedManifest {
  version: 1;
  tool: string;
  server: string;
  context: string | null;
  clusterVersion: string | null;
  startedAt: string;
  finishedAt: string;
  nodes: Array<CollectedNode & { runtime: string | null; pods: number | null; containers: number | null; ready: string | null }>;
}

/** Caps: an answer past these is cut there (and marked so). Logs and journals are streamed to disk, never held. */
const MAX_SMALL = 16 * 1024 * 1024;
const MAX_PODS = 16 * 1024 * 1024;
const MAX_LOG = 512 * 1024 * 1024;
/** /metrics and the goroutine dump (a kubelet's is a few MiB; a stuck one's, tens). */
const MAX_LARGE = 128 * 1024 * 1024;
const MAX_JOURNAL_TOTAL = 1024 * 1024 * 1024;
const LOG_TIMEOUT_MS = 10 * 60_000;

/** What a 403 on each kind of path lacks, and the RBAC rule that grants it. */
export function permissionFor(url: string): { permission: string; rule: string } {
  if (/\/nodes\/[^/]+\/proxy/.test(url)) return { permission: 'get nodes/proxy', rule: '{apiGroups: [""], resources: ["nodes/proxy"], verbs: ["get"]}' };
  if (/\/api\/v1\/nodes/.test(url)) return { permission: url.includes('watch=') ? 'watch nodes' : url.includes('/nodes/') ? 'get nodes' : 'list nodes', rule: '{apiGroups: [""], resources: ["nodes"], verbs: ["get", "list", "watch"]}' };
  if (/\/events/.test(url)) return { permission: 'list events', rule: '{apiGroups: [""], resources: ["events"], verbs: ["list"]}' };
  if (/\/pods/.test(url)) return { permission: 'list pods', rule: '{apiGroups: [""], resources: ["pods"], verbs: ["list"]}' };
  return { permission: `get ${url.split('?')[0]}`, rule: `{nonResourceURLs: ["${url.split('?')[0]}"], verbs: ["get"]}` };
}

/** What an answer that is not 200 means, in one sentence. */
export function refusalReason(a: Pick<Answer, 'status' | 'message' | 'url'>): string {
  const said = a.message ? ` (the server said: ${a.message.slice(0, 300)})` : '';
  if (a.status === 401) return `the API server did not accept the credentials${said}: renew them (kubectl get --raw /version must work)`;
  if (a.status === 403) {
    const p = permissionFor(a.url);
    return `forbidden: needs "${p.permission}"; the ClusterRole rule that grants it: ${p.rule}${said}`;
  }
  if (a.status === 503) return `the API server could not reach the kubelet through the node proxy${said}: the kubelet's HTTP server did not answer — itself evidence that the kubelet is down, hung or the node unreachable`;
  if (a.status === 404) return `not found${said}`;
  return `HTTP ${a.status}${said}`;
}

const LOG_QUERY_OFF = 'the node log query is off on this kubelet (it needs the NodeLogQuery feature gate — beta, on by default, from 1.30 — and enableSystemLogQuery: true in the kubelet configuration, plus enableSystemLogHandler: true); the logs were read from its /logs/ file server instead, where reachable';

const enc = encodeURIComponent;

export async function collect(opts: CollectOptions): Promise<Manifest> {
  const { client } = opts;
  const say = opts.say ?? (() => {});
  const startedAt = new Date().toISOString();
  const version = await client.get('/version', { maxBytes: 64 * 1024, timeoutMs: 30_000 });
  if (version.status === 401) throw new ClusterError(version.url, refusalReason(version));
  let clusterVersion: string | null = null;
  try {
    clusterVersion = version.status === 200 ? String((JSON.parse(version.body.toString('utf8')) as { gitVersion?: unknown }).gitVersion ?? '') || null : null;
  } catch {
    clusterVersion = null;
  }
  const manifest: Manifest = {
    kind: 'plegscope-collect', version: 1, tool: 'plegscope', server: client.server, context: opts.context ?? null, clusterVersion,
    startedAt, finishedAt: startedAt, nodes: [],
  };
  // Every node first checked to exist: a typo is one line and exit 2, before minutes of collecting.
  const objects = new Map<string, Answer>();
  for (const node of opts.nodes) {
    const a = await client.get(`/api/v1/nodes/${enc(node)}`, { maxBytes: MAX_SMALL, timeoutMs: 30_000 });
    if (a.status === 404) throw new NodeNotFound(node, a.message ?? 'the API server has no such node');
    if (a.status === 401) throw new ClusterError(a.url, refusalReason(a));
    objects.set(node, a);
  }
  // The folder is made once the API server has answered and every node exists: a failed run leaves nothing behind.
  mkdirSync(opts.dir, { recursive: true });
  // Collected into a folder that holds an earlier collection (the TUI's `c`): the other nodes stay in the manifest, and
  // this run's nodes replace their earlier folders (only folders the manifest says we wrote).
  const earlier = earlierManifest(opts.dir);
  for (const n of earlier?.nodes ?? []) if (opts.nodes.includes(n.name)) rmSync(join(opts.dir, n.dir), { recursive: true, force: true });
  const serverNow = version.date ?? Date.now();
  const sinceMs = 'at' in opts.since ? opts.since.at : serverNow - opts.since.agoMs;
  const sinceTime = new Date(Math.floor(sinceMs / 1000) * 1000).toISOString().replace(/\.000Z$/, 'Z');
  for (const node of opts.nodes) {
    say(`${node}: collecting through ${client.server}`);
    manifest.nodes.push(await collectNode(opts, node, objects.get(node) as Answer, sinceTime));
  }
  manifest.finishedAt = new Date().toISOString();
  if (earlier) {
    const kept = (earlier.raw as Manifest['nodes']).filter((n) => typeof n?.name === 'string' && !opts.nodes.includes(n.name));
    manifest.nodes = [...kept, ...manifest.nodes];
    manifest.startedAt = typeof earlier.startedAt === 'string' ? earlier.startedAt : startedAt;
  }
  writeAtomic(join(opts.dir, MANIFEST_NAME), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

async function collectNode(opts: CollectOptions, node: string, object: Answer, sinceTime: string): Promise<Manifest['nodes'][number]> {
  const { client } = opts;
  const dir = join(opts.dir, node);
  mkdirSync(dir, { recursive: true });
  const out: Manifest['nodes'][number] = { name: node, dir: node, serverDate: null, files: [], refusals: [], runtime: null, pods: null, containers: null, ready: null };
  const proxy = `/api/v1/nodes/${enc(node)}/proxy`;
  const noteDate = (a: Answer) => {
    if (a.date !== null) out.serverDate = isoTime(a.date);
  };
  const refuse = (what: string, a: Answer) => out.refusals.push({ what, url: a.url, status: a.status, reason: refusalReason(a) });
  const keep = (file: string, a: Answer, extra: Partial<CollectedFile> = {}) => {
    writeAtomic(join(dir, file), a.body);
    record(file, a, a.body.length, extra);
  };
  const record = (file: string, a: Answer, bytes: number, extra: Partial<CollectedFile>) => {
    out.files.push({ file, url: a.url, status: a.status, bytes, fetchedAt: new Date().toISOString(), ...(a.truncated ? { truncated: true } : {}), ...extra });
  };
  /** GET, recording a network failure as a refusal (null). */
  const tryGet = async (what: string, path: string, o: Parameters<KubeClient['get']>[1]): Promise<Answer | null> => {
    try {
      const a = await client.get(path, o);
      noteDate(a);
      return a;
    } catch (err) {
      out.refusals.push({ what, url: path, reason: `no answer: ${(err as Error).message}` });
      return null;
    }
  };

  noteDate(object);
  if (object.status === 200) {
    keep('node.json', object, { role: 'node-object' });
    try {
      const o = JSON.parse(object.body.toString('utf8')) as { status?: { nodeInfo?: { containerRuntimeVersion?: string }; conditions?: Array<{ type?: string; status?: string; message?: string }> } };
      out.runtime = o.status?.nodeInfo?.containerRuntimeVersion ?? null;
      const ready = o.status?.conditions?.find((c) => c.type === 'Ready');
      out.ready = ready ? `${ready.status ?? '?'}${ready.message ? `: ${ready.message}` : ''}` : null;
    } catch {
      // Kept as fetched; the files source says what it makes of it.
    }
  } else refuse('the Node object', object);

  const events = await tryGet('the node\'s events', `/api/v1/events?fieldSelector=${enc(`involvedObject.kind=Node,involvedObject.name=${node}`)}`, { maxBytes: MAX_SMALL });
  if (events) {
    if (events.status === 200) keep('events.json', events);
    else refuse('the node\'s events', events);
  }
  const pods = await tryGet('the pods bound to the node', `/api/v1/pods?fieldSelector=${enc(`spec.nodeName=${node}`)}`, { maxBytes: MAX_PODS });
  if (pods) {
    if (pods.status === 200 && !pods.truncated) {
      try {
        const list = JSON.parse(pods.body.toString('utf8')) as { items?: Array<{ spec?: { containers?: unknown[] } }> };
        out.pods = list.items?.length ?? 0;
        out.containers = (list.items ?? []).reduce((s, p) => s + (p.spec?.containers?.length ?? 0), 0);
      } catch {
        out.pods = null;
      }
    } else if (pods.status !== 200) refuse('the pods bound to the node', pods);
  }

  // The kubelet through the node proxy: one 503 means it did not answer; the rest would wait for the same timeout.
  const viaProxy = async (what: string, path: string, o: Parameters<KubeClient['get']>[1]): Promise<Answer | null> => {
    if (out.refusals.some((r) => r.status === 503)) {
      out.refusals.push({ what, url: path, status: 503, reason: 'not asked: the kubelet did not answer through the node proxy (above)' });
      return null;
    }
    const a = await tryGet(what, path, o);
    if (a && a.status !== 200) refuse(what, a);
    return a && a.status === 200 ? a : null;
  };
  const stamp = (ms: number) => isoTime(ms).replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  /** A large answer (metrics, goroutines) streamed to its file, never held whole. */
  const toFile = async (what: string, path: string, name: (a: Answer) => string, role: string): Promise<Answer | null> => {
    if (out.refusals.some((r) => r.status === 503)) {
      out.refusals.push({ what, url: path, status: 503, reason: 'not asked: the kubelet did not answer through the node proxy (above)' });
      return null;
    }
    const tmp = join(dir, `.${role}.download`);
    const d = await download(client, path, tmp, MAX_LARGE, LOG_TIMEOUT_MS).catch((err: Error) => {
      out.refusals.push({ what, url: path, reason: `no answer: ${err.message}` });
      return null;
    });
    if (!d) return null;
    noteDate(d.answer);
    if (d.answer.status !== 200) {
      d.discard();
      refuse(what, d.answer);
      return null;
    }
    const file = name(d.answer);
    d.keep();
    renameSync(tmp, join(dir, file));
    record(file, d.answer, d.bytes, { role });
    return d.answer;
  };
  const m1 = await toFile('kubelet metrics', `${proxy}/metrics`, (a) => `metrics-${stamp(a.date ?? Date.now())}.txt`, 'metrics');
  await toFile('the kubelet goroutine dump', `${proxy}/debug/pprof/goroutine?debug=2`, () => 'goroutines.txt', 'goroutine-dump');
  const h = await viaProxy('kubelet healthz', `${proxy}/healthz?verbose`, { maxBytes: 1024 * 1024 });
  if (h) keep('healthz.txt', h, { role: 'healthz' });
  const c = await viaProxy('kubelet configz', `${proxy}/configz`, { maxBytes: MAX_SMALL });
  if (c) keep('configz.json', c);

  // Logs: the node log query, one unit at a time (each its own file and role).
  const runtime = runtimeUnit(out.runtime);
  let queryOff = false;
  for (const [unit, file, role] of [['kubelet', 'kubelet.log', 'kubelet-log'], [runtime, `${runtime}.log`, 'runtime-log']] as const) {
    if (queryOff) break;
    const path = `${proxy}/logs/?query=${enc(unit)}&sinceTime=${enc(sinceTime)}`;
    if (out.refusals.some((r) => r.status === 503)) {
      out.refusals.push({ what: `the ${unit} journal`, url: path, status: 503, reason: 'not asked: the kubelet did not answer through the node proxy (above)' });
      continue;
    }
    const a = await download(client, path, join(dir, file), MAX_LOG, LOG_TIMEOUT_MS).catch((err: Error) => {
      out.refusals.push({ what: `the ${unit} journal`, url: path, reason: `no answer: ${err.message}` });
      return null;
    });
    if (!a) continue;
    noteDate(a.answer);
    // Off: 404/405 (no /logs/ at all, or disabled), or the file server's listing of /var/log (the query ignored).
    if (a.answer.status === 404 || a.answer.status === 405 || (a.answer.status === 200 && isListing(a.answer))) {
      queryOff = true;
      a.discard();
      out.refusals.push({ what: 'the node log query', url: path, status: a.answer.status, reason: LOG_QUERY_OFF });
      break;
    }
    if (a.answer.status !== 200) {
      a.discard();
      refuse(`the ${unit} journal`, a.answer);
      continue;
    }
    a.keep();
    record(file, a.answer, a.bytes, { role, zone: 'UTC' });
  }
  // The file server: the kernel's log always (the query reads units, and the kernel has none), everything when the query is off.
  if (!out.refusals.some((r) => r.status === 503)) await fromFileServer(opts, proxy, dir, queryOff, out, record);

  if (m1) {
    const wait = Math.max(0, opts.intervalSeconds) * 1000;
    if (wait > 0) {
      opts.say?.(`${node}: second metrics snapshot in ${opts.intervalSeconds} s`);
      await sleep(wait, undefined, opts.signal ? { signal: opts.signal } : {}).catch(() => {});
    }
    await toFile('kubelet metrics (second snapshot)', `${proxy}/metrics`, (a) => `metrics-${stamp(a.date ?? Date.now())}${a.date !== null && m1.date !== null && a.date <= m1.date ? '-2' : ''}.txt`, 'metrics');
  }
  return out;
}

/** The runtime's journal unit, from the Node's `containerRuntimeVersion` (`containerd://1.7.13`, `cri-o://1.28.1`, `docker://24.0.7`). */
function runtimeUnit(v: string | null): string {
  const scheme = v ? /^([a-z-]+):\/\//.exec(v)?.[1] : undefined;
  if (scheme === 'cri-o') return 'crio';
  if (scheme === 'docker') return 'docker';
  return 'containerd';
}

/** Go's http.FileServer directory listing: `<pre>\n<a href="messages">messages</a>\n…</pre>`. */
function isListing(a: Answer): boolean {
  return /text\/html/.test(a.contentType) && /<pre>\s*(?:<a href="[^"]*">[^<]*<\/a>\s*)*<\/pre>/.test(a.body.subarray(0, 1024 * 1024).toString('utf8'));
}

function listingNames(a: Answer): string[] {
  const names: string[] = [];
  for (const m of a.body.toString('utf8').matchAll(/<a href="([^"]+)">/g)) {
    const href = (m[1] as string).replace(/&amp;/g, '&').replace(/&#34;/g, '"').replace(/&#39;/g, "'");
    let name: string;
    try {
      name = decodeURIComponent(href.replace(/^\.\//, ''));
    } catch {
      continue;
    }
    if (name.includes('..') || name.startsWith('/') || name.includes('\\')) continue;
    names.push(name);
  }
  return names;
}

async function fromFileServer(opts: CollectOptions, proxy: string, dir: string, everything: boolean, out: CollectedNode, record: (file: string, a: Answer, bytes: number, extra: Partial<CollectedFile>) => void): Promise<void> {
  const { client } = opts;
  let listing: Answer;
  try {
    listing = await client.get(`${proxy}/logs/`, { maxBytes: 4 * 1024 * 1024, timeoutMs: 60_000 });
  } catch (err) {
    out.refusals.push({ what: 'the /logs/ file server', url: `${proxy}/logs/`, reason: `no answer: ${(err as Error).message}` });
    return;
  }
  if (listing.status !== 200 || !isListing(listing)) {
    if (everything || listing.status === 403) out.refusals.push({ what: 'the /logs/ file server', url: listing.url, status: listing.status, reason: refusalReason(listing) });
    return;
  }
  const names = new Set(listingNames(listing));
  // messages (RHEL, SUSE) or syslog (Debian, Ubuntu): the same stream where both exist, so the first one there.
  const system = ['messages', 'syslog'].find((n) => names.has(n));
  const wanted = [...(everything && system ? [system] : []), 'kern.log'].filter((n) => names.has(n));
  mkdirSync(join(dir, 'var-log'), { recursive: true });
  for (const name of wanted) {
    const path = `${proxy}/logs/${enc(name)}`;
    const a = await download(client, path, join(dir, 'var-log', name), MAX_LOG, LOG_TIMEOUT_MS).catch(() => null);
    if (!a || a.answer.status !== 200) {
      a?.discard();
      if (a) out.refusals.push({ what: `/var/log/${name}`, url: path, status: a.answer.status, reason: refusalReason(a.answer) });
      continue;
    }
    a.keep();
    // Written in the node's own zone, which the API does not tell: --tz says it.
    record(`var-log/${name}`, a.answer, a.bytes, { role: name === 'kern.log' ? 'kernel-log' : 'other', zone: null });
  }
  if (!everything || !names.has('journal/')) return;
  // The binary journal: journal/<machine-id>/system.journal and its archives, read natively by the files source.
  let left = MAX_JOURNAL_TOTAL;
  const machines = await client.get(`${proxy}/logs/journal/`, { maxBytes: 1024 * 1024 }).catch(() => null);
  if (!machines || machines.status !== 200) return;
  for (const m of listingNames(machines).filter((n) => /^[0-9a-f]{32}\/$/.test(n))) {
    const files = await client.get(`${proxy}/logs/journal/${m}`, { maxBytes: 1024 * 1024 }).catch(() => null);
    if (!files || files.status !== 200) continue;
    mkdirSync(join(dir, 'var-log', 'journal', m), { recursive: true });
    for (const f of listingNames(files).filter((n) => /^[\w@.-]+\.journal~?$/.test(n))) {
      if (left <= 0) {
        out.refusals.push({ what: `/var/log/journal/${m}${f}`, reason: `not fetched: the ${MAX_JOURNAL_TOTAL >> 20} MiB cap on journal files was reached` });
        continue;
      }
      const path = `${proxy}/logs/journal/${m}${enc(f)}`;
      const a = await download(client, path, join(dir, 'var-log', 'journal', m, f), left, LOG_TIMEOUT_MS).catch(() => null);
      if (!a || a.answer.status !== 200) {
        a?.discard();
        continue;
      }
      a.keep();
      left -= a.bytes;
      record(`var-log/journal/${m}${f}`, a.answer, a.bytes, { zone: 'UTC' });
    }
  }
}

/** A GET streamed to `file` (a temporary name until kept): logs and journals are never held in memory whole. */
async function download(client: KubeClient, path: string, file: string, maxBytes: number, timeoutMs: number): Promise<{ answer: Answer; bytes: number; keep(): void; discard(): void }> {
  const tmp = `${file}.part`;
  const fd = openSync(tmp, 'w', 0o600);
  let bytes = 0;
  let answer: Answer;
  try {
    answer = await client.get(path, { maxBytes, timeoutMs, accept: '*/*', sink: (b) => {
      writeSync(fd, b);
      bytes += b.length;
    } });
  } finally {
    closeSync(fd);
  }
  return {
    answer,
    bytes,
    keep: () => renameSync(tmp, file),
    discard: () => rmSync(tmp, { force: true }),
  };
}

function earlierManifest(dir: string): { nodes: CollectedNode[]; raw: unknown[]; startedAt: unknown } | null {
  const file = join(dir, MANIFEST_NAME);
  try {
    if (statSync(file).size > 8 * 1024 * 1024) return null;
    const text = readFileSync(file, 'utf8');
    const m = parseManifest(text);
    if (!m) return null;
    const doc = JSON.parse(text) as { nodes: unknown[]; startedAt?: unknown };
    return { nodes: m.nodes, raw: doc.nodes, startedAt: doc.startedAt };
  } catch {
    return null;
  }
}

function writeAtomic(file: string, data: string | Buffer): void {
  const tmp = `${file}.part`;
  writeFileSync(tmp, data, { mode: 0o600 });
  renameSync(tmp, file);
}
