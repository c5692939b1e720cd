// A loopback HTTPS stand-in for the Kubernetes API server, speaking the real paths and shapes: /version, the Node object
// and NodeList, a chunked watch stream of nodes, events by involvedObject, pods by spec.nodeName, Status objects for
// 401/403/404/503, and behind each node's proxy the kubelet's answers (/metrics, /debug/pprof/goroutine?debug=2,
// /healthz?verbose, /configz, the node log query `/logs/?query=kubelet&sinceTime=…` in journalctl's short-precise
// output, Go's http.FileServer listing of /var/log at /logs/, and its files) — serving fixtures/sample-incident.
// Shapes checked against kubernetes/kubernetes: pkg/kubelet/kubelet_server_journal{,_linux}.go (journalctl --utc
// --no-pager --output=short-precise; sinceTime RFC 3339), pkg/kubelet/server/server.go (/logs/ is the file server when
// the query is off; 405 "logs endpoint is disabled." when the handler is), apimachinery's metav1.Status.
// It records every request: the tests assert that nothing but GETs came.
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';

const TLS = join(__dirname, 'kube-tls');
const SAMPLE = join(__dirname, '..', '..', 'fixtures', 'sample-incident');
export const CA_FILE = join(TLS, 'ca.crt');
export const CLIENT_CERT = join(TLS, 'client.crt');
export const CLIENT_KEY = join(TLS, 'client.key');

export interface StandInOptions {
  /** Bearer tokens accepted (besides the client certificate signed by the test CA). */
  tokens?: string[];
  /** Paths (a substring of path+query) answered 403 Forbidden. */
  forbid?: string[];
  /** The node log query: on; off (the file server's listing answers, the query ignored); disabled (404). */
  logQuery?: 'on' | 'off' | 'disabled';
  /** The kubelet does not answer the node proxy: 503 from the API server. */
  kubeletDown?: boolean;
  /** The API server's clock at start (it then runs with real time): the sample incident's hour. */
  clock?: string;
  /** What the kubelet's file server lists in /var/log (default: journal/, kern.log, messages, syslog). */
  varLog?: string[];
  /** /metrics always the same snapshot: the relist does not advance. */
  frozenRelist?: boolean;
  /** A binary journal file served as /var/log/journal/<machine-id>/system.journal. */
  journal?: string;
}

const MACHINE_ID = '3f1c0a6e9b2d4c8e8f7a6b5c4d3e2f10';

export interface Request { method: string; path: string; user: string | null }

interface NodeState { name: string; ready: 'True' | 'False' | 'Unknown'; message: string; reason: string; transition: string }

export class KubeApiStandIn {
  readonly requests: Request[] = [];
  private server!: https.Server;
  private rv = 1000;
  private readonly nodes = new Map<string, NodeState>();
  private readonly watchers = new Set<ServerResponse>();
  private metricsCalls = 0;
  private readonly t0 = Date.now();
  private readonly clock0: number;
  url = '';

  constructor(readonly opts: StandInOptions = {}) {
    this.clock0 = Date.parse(opts.clock ?? '2024-03-11T11:00:00Z');
    this.nodes.set('worker-3', { name: 'worker-3', ready: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', transition: '2024-03-11T10:21:27Z' });
  }

  async start(): Promise<string> {
    this.server = https.createServer({
      key: readFileSync(join(TLS, 'server.key')), cert: readFileSync(join(TLS, 'server.crt')), ca: readFileSync(CA_FILE),
      requestCert: true, rejectUnauthorized: false,
    }, (req, res) => this.handle(req, res));
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    for (const w of this.watchers) w.end();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  /** The node's Ready condition changes (a watch event goes out). */
  setReady(name: string, ready: NodeState['ready'], reason: string, message: string): void {
    const n: NodeState = { name, ready, reason, message, transition: new Date(this.now()).toISOString().replace(/\.\d+Z$/, 'Z') };
    const had = this.nodes.has(name);
    this.nodes.set(name, n);
    this.rv++;
    const line = `${JSON.stringify({ type: had ? 'MODIFIED' : 'ADDED', object: this.nodeObject(n) })}\n`;
    for (const w of this.watchers) w.write(line);
  }

  /** Ends every open watch stream (a disconnect the client must resume from). */
  dropWatches(): void {
    for (const w of this.watchers) w.destroy();
    this.watchers.clear();
  }

  get watching(): number {
    return this.watchers.size;
  }

  private now(): number {
    return this.clock0 + (Date.now() - this.t0);
  }

  private status(res: ServerResponse, code: number, reason: string, message: string, details?: Record<string, string>): void {
    res.writeHead(code, { 'Content-Type': 'application/json', Date: new Date(this.now()).toUTCString() });
    res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code }));
  }

  private user(req: IncomingMessage): string | null {
    const auth = req.headers['authorization'];
    if (typeof auth === 'string' && auth.startsWith('Bearer ')) {
      const t = auth.slice(7);
      return (this.opts.tokens ?? []).includes(t) ? `token:${t.slice(0, 6)}` : null;
    }
    const sock = req.socket as import('node:tls').TLSSocket;
    if (sock.authorized) return `cert:${String(sock.getPeerCertificate().subject?.CN ?? '')}`;
    return null;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'https://x');
    const path = url.pathname;
    const full = path + url.search;
    const user = this.user(req);
    this.requests.push({ method: req.method ?? '?', path: full, user });
    if (req.method !== 'GET') return this.status(res, 405, 'MethodNotAllowed', `the stand-in answers GET only, not ${req.method}`);
    if (user === null) return this.status(res, 401, 'Unauthorized', 'Unauthorized');
    const date = new Date(this.now()).toUTCString();
    const send = (body: string | Buffer, type = 'application/json') => {
      res.writeHead(200, { 'Content-Type': type, Date: date });
      res.end(body);
    };
    const nodeM = /^\/api\/v1\/nodes\/([^/]+)(\/proxy(\/.*)?)?$/.exec(path);
    const forbidden = (this.opts.forbid ?? []).find((f) => full.includes(f));
    if (forbidden) {
      const name = nodeM?.[1] ?? '';
      const resource = nodeM?.[2] ? 'nodes/proxy' : nodeM ? 'nodes' : path.includes('/pods') ? 'pods' : path.includes('/events') ? 'events' : 'nodes';
      const verb = nodeM ? 'get' : url.searchParams.get('watch') === 'true' ? 'watch' : 'list';
      return this.status(res, 403, 'Forbidden', `${resource.split('/')[0]} ${name ? `"${name}" ` : ''}is forbidden: User "jane" cannot ${verb} resource "${resource}" in API group "" at the cluster scope`, { ...(name ? { name } : {}), kind: resource.split('/')[0] as string });
    }
    if (path === '/version') return send(JSON.stringify({ major: '1', minor: '28', gitVersion: 'v1.28.3', gitCommit: 'a8a1abc25cad87333840cd7d54be2efaf31a3177', gitTreeState: 'clean', buildDate: '2023-10-18T11:33:18Z', goVersion: 'go1.20.10', compiler: 'gc', platform: 'linux/amd64' }));
    // Discovery, as kubectl asks before a typed get (`kubectl get node N`).
    if (path === '/api') return send(JSON.stringify({ kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: this.url.replace('https://', '') }] }));
    if (path === '/apis') return send(JSON.stringify({ kind: 'APIGroupList', apiVersion: 'v1', groups: [] }));
    if (path === '/api/v1') {
      const r = (name: string, kind: string, namespaced: boolean, verbs: string[]) => ({ name, singularName: name.includes('/') ? '' : name.replace(/s$/, ''), namespaced, kind, verbs });
      return send(JSON.stringify({ kind: 'APIResourceList', groupVersion: 'v1', resources: [
        r('nodes', 'Node', false, ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']), r('nodes/proxy', 'NodeProxyOptions', false, ['create', 'delete', 'get', 'patch', 'update']),
        r('pods', 'Pod', true, ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']), r('events', 'Event', true, ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']),
      ] }));
    }
    if (path === '/api/v1/nodes') {
      if (url.searchParams.get('watch') === 'true') return this.watch(res, date);
      return send(JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', metadata: { resourceVersion: String(this.rv) }, items: [...this.nodes.values()].map((n) => this.nodeObject(n)) }));
    }
    if (nodeM) {
      const n = this.nodes.get(decodeURIComponent(nodeM[1] as string));
      if (!n) return this.status(res, 404, 'NotFound', `nodes "${decodeURIComponent(nodeM[1] as string)}" not found`, { name: decodeURIComponent(nodeM[1] as string), kind: 'nodes' });
      if (!nodeM[2]) return send(JSON.stringify(this.nodeObject(n)));
      if (this.opts.kubeletDown) return this.status(res, 503, 'ServiceUnavailable', 'error trying to reach service: dial tcp 10.0.1.23:10250: connect: connection refused');
      return this.kubelet(nodeM[3] ?? '/', url, res, date);
    }
    if (path === '/api/v1/events') {
      return send(JSON.stringify({ kind: 'EventList', apiVersion: 'v1', metadata: { resourceVersion: String(this.rv) }, items: [
        event('worker-3.17bb8a3c1f2e0a01', 'NodeNotReady', 'Node worker-3 status is now: NodeNotReady', '2024-03-11T10:09:16Z', 'node-controller'),
        event('worker-3.17bb8a3c1f2e0a02', 'NodeReady', 'Node worker-3 status is now: NodeReady', '2024-03-11T10:21:27Z', 'kubelet'),
      ] }));
    }
    if (path === '/api/v1/pods') {
      const on = /spec\.nodeName=([^,]+)/.exec(url.searchParams.get('fieldSelector') ?? '')?.[1];
      const items = on && this.nodes.has(on) ? Array.from({ length: 3 }, (_, i) => ({ metadata: { name: `app-${i}`, namespace: 'payments' }, spec: { nodeName: on, containers: [{ name: 'app' }, ...(i === 0 ? [{ name: 'sidecar' }] : [])] } })) : [];
      return send(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: String(this.rv) }, items }));
    }
    return this.status(res, 404, 'NotFound', 'the server could not find the requested resource');
  }

  private watch(res: ServerResponse, date: string): void {
    // A chunked stream of JSON lines (no Content-Length): the client reads events as they come.
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', Date: date });
    res.write('');
    this.watchers.add(res);
    res.on('close', () => this.watchers.delete(res));
  }

  private nodeObject(n: NodeState): Record<string, unknown> {
    return {
      kind: 'Node', apiVersion: 'v1',
      metadata: { name: n.name, uid: '4f8a6c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b', resourceVersion: String(this.rv), labels: { 'kubernetes.io/hostname': n.name, 'kubernetes.io/os': 'linux', 'node-role.kubernetes.io/worker': '' } },
      spec: { providerID: 'aws:///eu-west-1a/i-0abc123def4567890' },
      status: {
        capacity: { cpu: '8', memory: '32564468Ki', pods: '110' },
        conditions: [
          { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: '2024-03-11T10:59:00Z', lastTransitionTime: '2024-03-11T09:00:10Z', reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available' },
          { type: 'Ready', status: n.ready, lastHeartbeatTime: '2024-03-11T10:59:00Z', lastTransitionTime: n.transition, reason: n.reason, message: n.message },
        ],
        nodeInfo: { kubeletVersion: 'v1.28.3', kubeProxyVersion: 'v1.28.3', containerRuntimeVersion: 'containerd://1.7.13', kernelVersion: '5.15.0-1053-aws', osImage: 'Ubuntu 20.04.6 LTS', operatingSystem: 'linux', architecture: 'amd64' },
      },
    };
  }

  private kubelet(sub: string, url: URL, res: ServerResponse, date: string): void {
    const send = (body: string | Buffer, type: string) => {
      res.writeHead(200, { 'Content-Type': type, Date: date });
      res.end(body);
    };
    const notFound = () => {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', Date: date });
      res.end('404 page not found\n');
    };
    if (sub === '/metrics') {
      const f = this.opts.frozenRelist || this.metricsCalls++ % 2 === 0 ? 'metrics-20240311T101000Z.txt' : 'metrics-20240311T102000Z.txt';
      return send(readFileSync(join(SAMPLE, f)), 'text/plain; version=0.0.4; charset=utf-8');
    }
    if (sub === '/debug/pprof/goroutine' && url.searchParams.get('debug') === '2') {
      return send('goroutine 1 [chan receive, 62 minutes]:\nk8s.io/kubernetes/cmd/kubelet/app.Run({0x4d6c1a0, 0xc0000a2000}, 0xc000516000, {0x4d81b38, 0xc00052a000}, 0x0)\n\tk8s.io/kubernetes/cmd/kubelet/app/server.go:482 +0x1c5\nmain.main()\n\tk8s.io/kubernetes/cmd/kubelet/kubelet.go:36 +0x1b\n', 'text/plain; charset=utf-8');
    }
    if (sub === '/healthz' && url.searchParams.has('verbose')) return send('[+]ping ok\n[+]log ok\n[+]syncloop ok\nhealthz check passed\n', 'text/plain; charset=utf-8');
    if (sub === '/configz') return send(JSON.stringify({ kubeletconfig: { enableSystemLogHandler: true, enableSystemLogQuery: this.opts.logQuery !== 'off', featureGates: { NodeLogQuery: true }, runtimeRequestTimeout: '2m0s' } }), 'application/json');
    if (sub === '/logs/' || sub.startsWith('/logs/')) {
      if (this.opts.logQuery === 'disabled') {
        res.writeHead(405, { 'Content-Type': 'text/plain; charset=utf-8', Date: date });
        return void res.end('logs endpoint is disabled.\n');
      }
      const queries = url.searchParams.getAll('query');
      if (sub === '/logs/' && queries.length > 0 && this.opts.logQuery !== 'off') {
        const since = Date.parse(url.searchParams.get('sinceTime') ?? '');
        const out: string[] = [];
        for (const q of queries) {
          const file = q === 'kubelet' ? 'kubelet.log' : q === 'containerd' ? 'containerd.log' : null;
          if (file) out.push(...shortPrecise(readFileSync(join(SAMPLE, file), 'utf8'), Number.isFinite(since) ? since : null));
        }
        return send(out.length ? `${out.join('\n')}\n` : '-- No entries --\n', 'text/plain;charset=UTF-8');
      }
      // Go's http.FileServer over /var/log (the query, when off, is ignored).
      const rel = sub.slice('/logs/'.length);
      const names = this.opts.varLog ?? ['journal/', 'kern.log', 'messages', 'syslog'];
      if (rel === '') return send(listing(names), 'text/html; charset=utf-8');
      if (!names.includes(rel.split('/')[0] + (rel.includes('/') ? '/' : ''))) return notFound();
      if (rel === 'kern.log') return send(kernLog(), 'text/plain; charset=utf-8');
      if (rel === 'messages' || rel === 'syslog') return send(messages(), 'text/plain; charset=utf-8');
      if (rel === 'journal/') return send(listing(this.opts.journal ? [`${MACHINE_ID}/`] : []), 'text/html; charset=utf-8');
      if (this.opts.journal && rel === `journal/${MACHINE_ID}/`) return send(listing(['system.journal']), 'text/html; charset=utf-8');
      if (this.opts.journal && rel === `journal/${MACHINE_ID}/system.journal`) return send(readFileSync(this.opts.journal), 'application/octet-stream');
      return notFound();
    }
    return notFound();
  }
}

function event(name: string, reason: string, message: string, at: string, component: string): Record<string, unknown> {
  return {
    metadata: { name, namespace: 'default' }, involvedObject: { kind: 'Node', name: 'worker-3', uid: 'worker-3' }, reason, message,
    source: { component, host: 'worker-3' }, firstTimestamp: at, lastTimestamp: at, count: 1, type: 'Normal',
  };
}

/** Go's dirList: `<!doctype html>\n<meta …>\n<pre>\n<a href="x">x</a>\n</pre>\n`. */
function listing(names: string[]): string {
  return `<!doctype html>\n<meta name="viewport" content="width=device-width">\n<pre>\n${names.map((n) => `<a href="${n}">${n}</a>\n`).join('')}</pre>\n`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The sample's journal `short` lines as `journalctl --utc -o short-precise` prints them (microseconds from the klog
 *  header of the same second when there is one), from `since` on. */
function shortPrecise(text: string, since: number | null): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^([A-Z][a-z]{2}) ([ \d]\d) (\d\d):(\d\d):(\d\d) (.*)$/.exec(line);
    if (!m) continue;
    const t = Date.UTC(2024, MONTHS.indexOf(m[1] as string), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]));
    if (since !== null && t < since - 999) continue;
    const us = new RegExp(`${m[3]}:${m[4]}:${m[5]}\\.(\\d{6})`).exec(m[6] as string)?.[1] ?? '000000';
    out.push(`${m[1]} ${m[2]} ${m[3]}:${m[4]}:${m[5]}.${us} ${m[6]}`);
  }
  return out;
}

/** The sample's `dmesg -T` lines as rsyslog's kern.log has them. */
function kernLog(): string {
  const out: string[] = [];
  for (const line of readFileSync(join(SAMPLE, 'dmesg.txt'), 'utf8').split('\n')) {
    const m = /^\[\w{3} (\w{3}) +(\d+) (\d\d:\d\d:\d\d) \d{4}\] (.*)$/.exec(line);
    if (m) out.push(`${m[1]} ${(m[2] as string).padStart(2, ' ')} ${m[3]} worker-3 kernel: ${m[4]}`);
  }
  return `${out.join('\n')}\n`;
}

/** /var/log/messages: the kubelet's and containerd's lines, merged in time order as rsyslog writes them. */
function messages(): string {
  const lines = ['kubelet.log', 'containerd.log'].flatMap((f) => readFileSync(join(SAMPLE, f), 'utf8').split('\n').filter((l) => l !== ''));
  const key = (l: string) => `${String(MONTHS.indexOf(l.slice(0, 3))).padStart(2, '0')}${l.slice(3, 15)}`;
  return `${lines.map((l, i) => ({ l, i, k: key(l) })).sort((a, b) => a.k.localeCompare(b.k) || a.i - b.i).map((x) => x.l).join('\n')}\n`;
}
