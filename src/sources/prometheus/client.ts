// The Prometheus HTTP API as an input (network is input): /api/v1/query_range, /api/v1/query and /api/v1/series of a
// Prometheus, Thanos querier (OpenShift's thanos-querier route), Mimir or VictoriaMetrics. A bearer token from a file,
// extra headers (proxies), a CA file or --prometheus-insecure, a timeout per request, gzip, and a bound on what one
// answer may hold. Every failure is a PrometheusError with one line a person can act on; a token never appears in one.
// Example exchange:
//   GET /api/v1/query_range?query=kubelet_pleg_last_seen_seconds%7Bnode%3D%22worker-2%22%7D&start=…&end=…&step=30
//   → {"status":"success","data":{"resultType":"matrix","result":[{"metric":{…},"values":[[1710151800,"1710151632"],…]}]}}
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createGunzip } from 'node:zlib';
import { readSmallTextFile } from '../text-file.js';

export interface PrometheusOptions {
  url: string;
  /** File holding a bearer token (`oc whoami -t > token`); read once, never printed. */
  tokenFile?: string;
  /** `Name=value` (or `Name: value`) headers added to every request (X-Scope-OrgID for Mimir, proxy auth…). */
  headers?: string[];
  /** PEM file of the CA that signed the server's certificate. */
  ca?: string;
  /** Do not verify the server's certificate. */
  insecure?: boolean;
  /** Per request, ms. */
  timeoutMs?: number;
}

export type PrometheusErrorKind = 'usage' | 'unreachable' | 'tls' | 'auth' | 'server' | 'rejected' | 'protocol' | 'too-large' | 'timeout';

/** `where` is the server as shown to people (or the option at fault); the message does not repeat it. */
export class PrometheusError extends Error {
  constructor(readonly kind: PrometheusErrorKind, message: string, readonly where = '--prometheus') {
    super(message);
  }
}

/** The `data` of a query answer. */
export interface QueryData {
  resultType: 'matrix' | 'vector' | 'scalar' | 'string';
  result: unknown;
}

export type LabelSet = Record<string, string>;

/** One answer may not hold more than this (decompressed): plegscope stays under its memory bound. */
const MAX_RESPONSE_BYTES = 48 << 20;
const DEFAULT_TIMEOUT_MS = 30_000;
/** Longer queries go as a form POST (both Prometheus and Thanos take one). */
const MAX_GET_URL = 6_000;

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER', 'EPROTO', 'CERT_UNTRUSTED', 'CERT_SIGNATURE_FAILURE',
]);

export class PrometheusClient {
  /** The URL as shown in reports: scheme, host, port and path; never the user:password part. */
  readonly display: string;
  private readonly base: URL;
  private readonly headers: Record<string, string> = {};
  private readonly ca: string | undefined;
  private readonly insecure: boolean;
  private readonly timeoutMs: number;

  constructor(opts: PrometheusOptions) {
    let u: URL;
    try {
      u = new URL(opts.url);
    } catch {
      throw new PrometheusError('usage', `--prometheus: "${opts.url}" is not a URL (e.g. http://prometheus.monitoring:9090)`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new PrometheusError('usage', `--prometheus: "${u.protocol}" URLs are not supported: use http:// or https://`);
    if (u.username || u.password) {
      this.headers['authorization'] = `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`;
      u.username = '';
      u.password = '';
    }
    // The API root: what the user gave, without a trailing /api/v1 or slash.
    u.pathname = u.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
    u.search = '';
    u.hash = '';
    this.base = u;
    this.display = `${u.origin}${u.pathname.replace(/\/$/, '')}`;
    for (const h of opts.headers ?? []) {
      const m = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+)\s*[=:]\s*(.*)$/.exec(h);
      if (!m) throw new PrometheusError('usage', `--prometheus-header: "${h.replace(/[=:].*$/, '=…')}" is not NAME=VALUE`);
      this.headers[m[1]!.toLowerCase()] = m[2]!;
    }
    if (opts.tokenFile) {
      let token: string;
      try {
        token = readSmallTextFile(opts.tokenFile).trim();
      } catch (e) {
        throw new PrometheusError('usage', `--prometheus-token-file: ${opts.tokenFile}: ${(e as Error).message}`);
      }
      if (token === '' || /\s/.test(token)) throw new PrometheusError('usage', `--prometheus-token-file: ${opts.tokenFile} does not hold one token`);
      this.headers['authorization'] = `Bearer ${token}`;
    }
    if (opts.ca) {
      try {
        this.ca = readSmallTextFile(opts.ca);
      } catch (e) {
        throw new PrometheusError('usage', `--prometheus-ca: ${opts.ca}: ${(e as Error).message}`);
      }
    }
    this.insecure = opts.insecure === true;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** A matrix over [start, end] (epoch ms) at `stepS` seconds. */
  queryRange(query: string, startMs: number, endMs: number, stepS: number): Promise<QueryData> {
    return this.call('query_range', { query, start: sec(startMs), end: sec(endMs), step: String(stepS) }) as Promise<QueryData>;
  }

  /** An instant query at `timeMs` (a range selector gives the raw samples as a matrix). */
  query(query: string, timeMs: number): Promise<QueryData> {
    return this.call('query', { query, time: sec(timeMs) }) as Promise<QueryData>;
  }

  /** Label sets of the series matching any of `match` within [start, end]. */
  async series(match: string[], startMs: number, endMs: number): Promise<LabelSet[]> {
    const data = await this.call('series', { 'match[]': match, start: sec(startMs), end: sec(endMs) });
    if (!Array.isArray(data)) throw new PrometheusError('protocol', '/api/v1/series did not answer a list', this.display);
    return data as LabelSet[];
  }

  private async call(endpoint: string, params: Record<string, string | string[]>): Promise<unknown> {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) for (const x of Array.isArray(v) ? v : [v]) form.append(k, x);
    const url = new URL(this.base.toString());
    url.pathname = `${url.pathname.replace(/\/$/, '')}/api/v1/${endpoint}`;
    const body = form.toString();
    const post = body.length + url.toString().length > MAX_GET_URL;
    if (!post) url.search = body;
    const { status, text } = await this.send(url, post ? body : null);
    type Answer = { status?: string; data?: unknown; error?: string; errorType?: string };
    let parsed: Answer | null;
    try {
      const v: unknown = JSON.parse(text);
      parsed = v && typeof v === 'object' ? (v as Answer) : null;
    } catch {
      parsed = null;
    }
    const where = `/api/v1/${endpoint}`;
    const err = (kind: PrometheusErrorKind, m: string) => new PrometheusError(kind, m, this.display);
    const said = parsed?.error ? `: ${oneLine(parsed.error)}` : text.trim() ? `: ${oneLine(text)}` : '';
    if (status === 401 || status === 403) {
      throw err('auth', `${where}: ${status} ${status === 401 ? 'Unauthorized' : 'Forbidden'}${said} — give a token that may read metrics with --prometheus-token-file (OpenShift: oc whoami -t > token)`);
    }
    if (status === 404) throw err('protocol', `${where}: 404 Not Found — not a Prometheus API root: give the URL the query API answers under (https://host[:port][/prefix])`);
    if (status >= 500) throw err('server', `${where}: server error ${status}${said}`);
    if (status === 429) throw err('server', `${where}: 429 Too Many Requests${said}`);
    if (!parsed) throw err('protocol', `${where}: answered ${status} with something that is not JSON${said ? said.slice(0, 120) : ''}`);
    if (parsed.status !== 'success') {
      if (parsed.errorType === 'timeout') throw err('timeout', `${where}: the query timed out on the server${said}: narrow --since/--until`);
      throw err('rejected', `${where}: ${status} ${parsed.errorType ?? 'error'}${said}`);
    }
    return parsed.data;
  }

  private send(url: URL, body: string | null): Promise<{ status: number; text: string }> {
    const https = url.protocol === 'https:';
    const headers: Record<string, string> = { accept: 'application/json', 'accept-encoding': 'gzip', 'user-agent': 'plegscope', ...this.headers };
    if (body !== null) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    const options = { method: body !== null ? 'POST' : 'GET', headers, ...(https ? { ca: this.ca, rejectUnauthorized: !this.insecure } : {}) };
    return new Promise((resolve, reject) => {
      let done = false;
      const fail = (e: PrometheusError): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        req.destroy();
        reject(e);
      };
      const req = (https ? httpsRequest : httpRequest)(url, options, (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        const stream = /\bgzip\b/.test(String(res.headers['content-encoding'] ?? '')) ? res.pipe(createGunzip()) : res;
        const chunks: Buffer[] = [];
        let size = 0;
        stream.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_RESPONSE_BYTES) {
            fail(new PrometheusError('too-large', `an answer larger than ${MAX_RESPONSE_BYTES >> 20} MiB: narrow --since/--until or name fewer nodes`, this.display));
            return;
          }
          chunks.push(c);
        });
        stream.on('error', (e: Error) => fail(new PrometheusError('protocol', `the answer could not be read: ${e.message}`, this.display)));
        stream.on('end', () => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          resolve({ status, text: Buffer.concat(chunks).toString('utf8') });
        });
      });
      const timer = setTimeout(() => fail(new PrometheusError('timeout', `no answer within ${Math.round(this.timeoutMs / 1000)} s (--prometheus-timeout)`, this.display)), this.timeoutMs);
      req.on('error', (e: NodeJS.ErrnoException) => fail(this.networkError(e)));
      if (body !== null) req.end(body);
      else req.end();
    });
  }

  private networkError(e: NodeJS.ErrnoException): PrometheusError {
    const code = e.code ?? '';
    if (TLS_CODES.has(code) || /certificate|SSL|TLS/i.test(e.message)) {
      const hint = code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'EPROTO' ? ' (is it plain http?)' : ' — give its CA with --prometheus-ca FILE, or --prometheus-insecure to skip the check';
      return new PrometheusError('tls', `TLS: ${oneLine(e.message)}${hint}`, this.display);
    }
    const why: Record<string, string> = {
      ECONNREFUSED: 'connection refused', ENOTFOUND: 'no such host', EAI_AGAIN: 'name lookup failed', ECONNRESET: 'connection reset',
      EHOSTUNREACH: 'host unreachable', ENETUNREACH: 'network unreachable', ETIMEDOUT: 'connection timed out',
    };
    return new PrometheusError('unreachable', `unreachable (${why[code] ?? oneLine(e.message)})`, this.display);
  }
}

function sec(ms: number): string {
  return String(Math.round(ms) / 1000);
}

/** A server's words, on one line and short (they end up in a terminal: only printable ASCII-ish text). */
function oneLine(s: string): string {
  // oxlint-disable-next-line no-control-regex -- controls are what is removed
  const t = s.replace(/[\x00-\x1f\x7f-\x9f]+/g, ' ').trim();
  return t.length > 200 ? `${t.slice(0, 199)}…` : t;
}
