// The API server, read: GET only, each answer bounded (bytes, time), on node:https. A small client of our own rather
// than @kubernetes/client-node (a large dependency tree, unbounded reads, verbs we must never send) or the user's
// kubectl (a process per request, and not every machine that runs plegscope has it): see README "From a live cluster".
//
// A refusal is an answer: the Status object the API server sends with 401/403/404/503 is parsed for its message, e.g.
//   {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"nodes \"worker-3\" is forbidden:
//    User \"jane\" cannot get resource \"nodes/proxy\" in API group \"\" at the cluster scope","reason":"Forbidden",
//    "details":{"name":"worker-3","kind":"nodes"},"code":403}
import https from 'node:https';
import http from 'node:http';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';
import type { ClusterAccess } from './kubeconfig.js';

export interface Answer {
  url: string;
  status: number;
  /** The body as read (at most `maxBytes`). */
  body: Buffer;
  /** The body went past `maxBytes` and was cut there. */
  truncated: boolean;
  contentType: string;
  /** The API server's clock (its Date header), epoch ms, or null. */
  date: number | null;
  /** A Status object's message and reason (error answers). */
  message: string | null;
  reason: string | null;
}

export class ClusterError extends Error {
  constructor(readonly url: string, message: string) {
    super(message);
  }
}

export interface GetOptions {
  maxBytes?: number;
  timeoutMs?: number;
  accept?: string;
  /** Where the body goes as it streams in (a file): then `body` keeps only its first MiB (for a Status or a listing). */
  sink?: (chunk: Buffer) => void;
}

const DEFAULT_MAX = 16 * 1024 * 1024;
const SINK_HEAD = 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 60_000;
/** A watch line (one event: a Node object) longer than this ends the watch: no server may bloat us. */
const MAX_WATCH_LINE = 4 * 1024 * 1024;

export class KubeClient {
  private readonly base: URL;
  private readonly agent: https.Agent | http.Agent;

  constructor(readonly access: ClusterAccess, private readonly env: NodeJS.ProcessEnv = process.env) {
    this.base = new URL(access.server);
    const tlsOpts: https.AgentOptions = {
      keepAlive: true,
      maxSockets: 4,
      ...(access.ca ? { ca: access.ca } : {}),
      ...(access.cert && access.key ? { cert: access.cert, key: access.key } : {}),
      // Only when the kubeconfig says so (insecure-skip-tls-verify: true).
      rejectUnauthorized: !access.insecure,
      ...(access.tlsServerName ? { servername: access.tlsServerName } : {}),
    };
    this.agent = this.base.protocol === 'https:' ? new https.Agent(tlsOpts) : new http.Agent({ keepAlive: true, maxSockets: 4 });
  }

  get server(): string {
    return this.base.origin;
  }

  close(): void {
    this.agent.destroy();
  }

  /** GET `path` (with its query): the answer whatever its status; network failures and timeouts throw ClusterError. */
  async get(path: string, opts: GetOptions = {}): Promise<Answer> {
    const maxBytes = opts.maxBytes ?? DEFAULT_MAX;
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const url = new URL(path, this.base);
    const headers = await this.headers(opts.accept ?? 'application/json, */*');
    const socket = await this.tunnel(url, timeoutMs);
    return new Promise<Answer>((resolve, reject) => {
      const lib = url.protocol === 'https:' ? https : http;
      const req = lib.request(url, {
        method: 'GET',
        headers,
        ...(socket ? { createConnection: () => socket, agent: false as const, ...this.tlsOptions() } : { agent: this.agent }),
      }, (res) => {
        const parts: Buffer[] = [];
        let n = 0;
        let truncated = false;
        const sink = opts.sink;
        let held = 0;
        const hold = (b: Buffer) => {
          if (sink) {
            sink(b);
            if (held >= SINK_HEAD) return;
            b = b.subarray(0, SINK_HEAD - held);
          }
          held += b.length;
          parts.push(b);
        };
        res.on('data', (b: Buffer) => {
          if (truncated) return;
          if (n + b.length > maxBytes) {
            hold(b.subarray(0, maxBytes - n));
            n = maxBytes;
            truncated = true;
            // Enough: the rest is not read (a hostile or huge answer cannot bloat us).
            req.destroy();
            finish();
            return;
          }
          hold(b);
          n += b.length;
        });
        let done = false;
        const finish = () => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          const body = Buffer.concat(parts);
          const status = res.statusCode ?? 0;
          const st = status >= 400 ? statusOf(body) : { message: null, reason: null };
          const date = Date.parse(String(res.headers['date'] ?? ''));
          resolve({
            url: url.pathname + url.search, status, body, truncated, contentType: String(res.headers['content-type'] ?? ''),
            date: Number.isFinite(date) ? date : null, message: st.message, reason: st.reason,
          });
        };
        res.on('end', finish);
        res.on('error', (err) => {
          if (truncated) return;
          clearTimeout(timer);
          reject(new ClusterError(url.href, err.message));
        });
        res.on('close', () => {
          if (!done && n > 0 && res.complete === false) {
            // Cut short by the server: what came is kept, marked cut.
            truncated = true;
            finish();
          }
        });
      });
      const timer = setTimeout(() => {
        req.destroy();
        reject(new ClusterError(url.href, `no complete answer within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      req.on('error', (err) => {
        clearTimeout(timer);
        reject(new ClusterError(url.href, netMessage(err)));
      });
      req.end();
    });
  }

  /**
   * A watch (`?watch=true`): each line of the chunked stream is one event `{"type":"MODIFIED","object":{…}}`, handed to
   * `onEvent`. Resolves when the server ends the stream (the caller resumes from the last resourceVersion), rejects on
   * an error status or a network failure. `signal` ends it.
   */
  async watch(path: string, onEvent: (e: { type: string; object: Record<string, unknown> }) => void, signal: AbortSignal, idleMs = 5 * 60_000): Promise<void> {
    const url = new URL(path, this.base);
    const headers = await this.headers('application/json');
    const socket = await this.tunnel(url, 30_000);
    await new Promise<void>((resolve, reject) => {
      const lib = url.protocol === 'https:' ? https : http;
      const req = lib.request(url, {
        method: 'GET', headers, signal,
        ...(socket ? { createConnection: () => socket, agent: false as const, ...this.tlsOptions() } : { agent: this.agent }),
      }, (res) => {
        const status = res.statusCode ?? 0;
        if (status !== 200) {
          const parts: Buffer[] = [];
          let n = 0;
          res.on('data', (b: Buffer) => {
            if (n < 64 * 1024) parts.push(b);
            n += b.length;
          });
          res.on('end', () => reject(new ClusterError(url.href, `HTTP ${status}: ${statusOf(Buffer.concat(parts)).message ?? 'watch refused'}`)));
          return;
        }
        let pending = '';
        let idle = setTimeout(() => req.destroy(), idleMs);
        res.setEncoding('utf8');
        res.on('data', (s: string) => {
          clearTimeout(idle);
          idle = setTimeout(() => req.destroy(), idleMs);
          pending += s;
          let i: number;
          while ((i = pending.indexOf('\n')) >= 0) {
            const line = pending.slice(0, i).trim();
            pending = pending.slice(i + 1);
            if (line === '') continue;
            try {
              const e = JSON.parse(line) as { type?: unknown; object?: unknown };
              if (typeof e.type === 'string' && e.object && typeof e.object === 'object') onEvent({ type: e.type, object: e.object as Record<string, unknown> });
            } catch {
              // Not an event: skipped.
            }
          }
          if (pending.length > MAX_WATCH_LINE) {
            clearTimeout(idle);
            req.destroy();
            reject(new ClusterError(url.href, `a watch event longer than ${MAX_WATCH_LINE} bytes`));
          }
        });
        res.on('end', () => {
          clearTimeout(idle);
          resolve();
        });
        res.on('close', () => {
          clearTimeout(idle);
          resolve();
        });
        res.on('error', () => {
          clearTimeout(idle);
          resolve();
        });
      });
      req.on('error', (err) => (signal.aborted ? resolve() : reject(new ClusterError(url.href, netMessage(err)))));
      req.end();
    });
  }

  private tlsOptions(): tls.ConnectionOptions {
    const a = this.access;
    return {
      ...(a.ca ? { ca: a.ca } : {}),
      ...(a.cert && a.key ? { cert: a.cert, key: a.key } : {}),
      rejectUnauthorized: !a.insecure,
      ...(a.tlsServerName ? { servername: a.tlsServerName } : {}),
    };
  }

  private async headers(accept: string): Promise<Record<string, string>> {
    const h: Record<string, string> = { Accept: accept, 'User-Agent': 'plegscope' };
    const token = await this.access.token();
    if (token) h['Authorization'] = `Bearer ${token}`;
    else if (this.access.basic) h['Authorization'] = `Basic ${Buffer.from(`${this.access.basic.user}:${this.access.basic.password}`).toString('base64')}`;
    return h;
  }

  /** Through an HTTP proxy (kubeconfig proxy-url, else HTTPS_PROXY unless NO_PROXY matches): a CONNECT tunnel. */
  private async tunnel(url: URL, timeoutMs: number): Promise<Duplex | null> {
    const proxy = this.access.proxyUrl ?? proxyFor(url, this.env);
    if (!proxy) return null;
    const p = new URL(proxy);
    if (p.protocol !== 'http:') throw new ClusterError(url.href, `proxy ${p.protocol}// is not supported (only http:// proxies, through CONNECT)`);
    const target = `${url.hostname.replace(/^\[|\]$/g, '')}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`;
    return new Promise<Duplex>((resolve, reject) => {
      const req = http.request({
        host: p.hostname, port: p.port || 80, method: 'CONNECT', path: target,
        headers: { Host: target, ...(p.username ? { 'Proxy-Authorization': `Basic ${Buffer.from(`${decodeURIComponent(p.username)}:${decodeURIComponent(p.password)}`).toString('base64')}` } : {}) },
      });
      const timer = setTimeout(() => {
        req.destroy();
        reject(new ClusterError(url.href, `proxy ${p.host} did not connect within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      req.on('connect', (res, socket) => {
        clearTimeout(timer);
        if (res.statusCode !== 200) {
          socket.destroy();
          reject(new ClusterError(url.href, `proxy ${p.host} refused the tunnel (HTTP ${res.statusCode})`));
          return;
        }
        resolve(url.protocol === 'https:' ? tls.connect({ socket, servername: this.access.tlsServerName ?? (/^[\d.:[\]]+$/.test(url.hostname) ? undefined : url.hostname), ...this.tlsOptions() }) : socket);
      });
      req.on('error', (err) => {
        clearTimeout(timer);
        reject(new ClusterError(url.href, `proxy ${p.host}: ${netMessage(err)}`));
      });
      req.end();
    });
  }
}

/** HTTPS_PROXY / https_proxy (HTTP_PROXY for http://), unless NO_PROXY names the host (suffix, `.suffix`, `*`, host:port, IP). */
export function proxyFor(url: URL, env: NodeJS.ProcessEnv): string | null {
  const proxy = url.protocol === 'https:' ? env['HTTPS_PROXY'] ?? env['https_proxy'] : env['HTTP_PROXY'] ?? env['http_proxy'];
  if (!proxy) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  for (const raw of (env['NO_PROXY'] ?? env['no_proxy'] ?? '').split(',')) {
    const e = raw.trim().toLowerCase();
    if (e === '') continue;
    if (e === '*') return null;
    const [h, p] = e.includes(']:') || (!e.includes('[') && e.split(':').length === 2) ? [e.slice(0, e.lastIndexOf(':')).replace(/^\[|\]$/g, ''), e.slice(e.lastIndexOf(':') + 1)] : [e.replace(/^\[|\]$/g, ''), null];
    if (p !== null && p !== port) continue;
    const bare = (h as string).replace(/^\*?\./, '');
    if (host === bare || host.endsWith(`.${bare}`)) return null;
  }
  return proxy.includes('://') ? proxy : `http://${proxy}`;
}

function statusOf(body: Buffer): { message: string | null; reason: string | null } {
  try {
    const s = JSON.parse(body.subarray(0, 64 * 1024).toString('utf8')) as { kind?: unknown; message?: unknown; reason?: unknown };
    if (s.kind === 'Status') return { message: typeof s.message === 'string' ? s.message : null, reason: typeof s.reason === 'string' ? s.reason : null };
  } catch {
    // Not a Status object: a plain-text error (the kubelet's own, through the proxy).
  }
  const text = body.subarray(0, 500).toString('utf8').trim().split('\n')[0] ?? '';
  return { message: text || null, reason: null };
}

function netMessage(err: Error): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND') return 'host not found';
  if (code === 'DEPTH_ZERO_SELF_SIGNED_CERT' || code === 'SELF_SIGNED_CERT_IN_CHAIN' || code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE') return `the server's certificate is not trusted (${code}): the kubeconfig's certificate-authority does not sign it`;
  return err.message;
}
