// The Prometheus HTTP API as an input (network is input): /api/v1/query_range, /api/v1/query and /api/v1/series of a
// Prometheus, Thanos querier (OpenShift's thanos-querier route), Mimir or VictoriaMetrics. A bearer token from a file,
// extra headers (proxies), a CA file or --prometheus-insecure, a timeout per request, gzip, and a bound on what one
// answer may hold. Every failure is a PrometheusError with one line a person can act on; a token never appears in one.
// Example exchange:
//   GET /api/v1/query_range?query=kubelet_pleg_last_seen_seconds%7Bnode%3D%22worker-2%22%7D&start=…&end=…&step=30
//   → {"status":"success","data":{"resultType":"matrix","result":[{"metric":{…},"values":[[1710151800,"1710151632"],…]}]}}
import { readSmallTextFile } from '../text-file.js';
import { boundedRequest, BoundedHttpError } from '../../util/bounded-http.js';
import { JsonStream, JsonSyntaxError } from '../../parse/json-stream.js';
import { AnswerCut, MAX_ANSWER_POINTS, MAX_ANSWER_SERIES, QueryAnswerReader, type AnswerSummary, type SeriesSink } from '../../parse/metrics/query-result.js';

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
  /** What one run may ask of the server (default RUN_BUDGET). */
  budget?: Partial<RunBudget>;
}

/** What one run may ask of a server: requests, time and points kept. Past it, asking stops with a 'budget' error. */
export interface RunBudget {
  maxRequests: number;
  /** The option that sets it, for messages. */
  requestsOption: string;
  timeoutMs: number;
  timeoutOption: string;
  /** Points kept over every answer of the run (the model of them stays under plegscope's memory bound). */
  maxPoints: number;
}

export const RUN_BUDGET: RunBudget = { maxRequests: 1000, requestsOption: 'the bound on requests per run', timeoutMs: 600_000, timeoutOption: 'the bound on time per run', maxPoints: 150_000 };

/** An answer read: what it said and skipped (AnswerSummary); `damaged`: it was cut short or malformed after its start
 *  (what came before it is read; the line says what happened, the reader of the answer says what it kept). */
export interface Answer {
  summary: AnswerSummary;
  damaged: string | null;
}

/** Label sets kept of one /api/v1/series answer. */
export const MAX_LABEL_SETS = 200_000;

const NO_SERIES: SeriesSink = { series: () => null, point: () => undefined };

/** Answers whose body is the API's JSON (a 400/422 carries its error as JSON too). */
const JSON_STATUS = (s: number): boolean => s === 200 || s === 400 || s === 422;

export type PrometheusErrorKind = 'usage' | 'unreachable' | 'tls' | 'auth' | 'server' | 'rejected' | 'protocol' | 'too-large' | 'timeout' | 'budget';

/** `where` is the server as shown to people (or the option at fault); the message does not repeat it. */
export class PrometheusError extends Error {
  constructor(readonly kind: PrometheusErrorKind, message: string, readonly where = '--prometheus') {
    super(message);
  }
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
  private readonly budget: RunBudget & { deadlineMs: number };
  private requests = 0;
  private points = 0;

  constructor(private readonly opts: PrometheusOptions) {
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
    const budget = { ...RUN_BUDGET, ...opts.budget };
    this.budget = { ...budget, deadlineMs: Date.now() + budget.timeoutMs };
  }

  /** A matrix over [start, end] (epoch ms) at `stepS` seconds, streamed into `sink`. */
  queryRange(query: string, startMs: number, endMs: number, stepS: number, sink: SeriesSink): Promise<Answer> {
    return this.call('query_range', { query, start: sec(startMs), end: sec(endMs), step: String(stepS) }, sink);
  }

  /** An instant query at `timeMs` (a range selector gives the raw samples as a matrix), streamed into `sink`. */
  query(query: string, timeMs: number, sink: SeriesSink): Promise<Answer> {
    return this.call('query', { query, time: sec(timeMs) }, sink);
  }

  /** Label sets of the series matching any of `match` within [start, end]: only the labels in `keep`, at most
   *  MAX_LABEL_SETS of them (the answer says how many more). */
  async series(match: string[], startMs: number, endMs: number, keep: ReadonlySet<string>): Promise<{ sets: LabelSet[]; answer: Answer }> {
    const answer = await this.call('series', { 'match[]': match, start: sec(startMs), end: sec(endMs) }, null, { keep, max: MAX_LABEL_SETS });
    return { sets: answer.summary.labelSets, answer };
  }

  /** The same server and options with a budget of its own, counted from now (a long-lived MCP server: each scan). */
  forRun(budget?: Partial<RunBudget>): PrometheusClient {
    return new PrometheusClient({ ...this.opts, budget: { ...this.opts.budget, ...budget } });
  }

  /** What this client has asked so far (requests, points kept) against its budget. */
  get spent(): { requests: number; points: number } {
    return { requests: this.requests, points: this.points };
  }

  private async call(endpoint: string, params: Record<string, string | string[]>, sink: SeriesSink | null, labelSets?: { keep: ReadonlySet<string>; max: number }): Promise<Answer> {
    const where = `/api/v1/${endpoint}`;
    const err = (kind: PrometheusErrorKind, m: string) => new PrometheusError(kind, m, this.display);
    const b = this.budget;
    if (this.requests >= b.maxRequests) throw err('budget', `${b.maxRequests} requests made (${b.requestsOption}): no more asked`);
    const left = b.deadlineMs - Date.now();
    if (left <= 0) throw err('budget', `${Math.round(b.timeoutMs / 1000)} s spent (${b.timeoutOption}): no more asked`);
    this.requests++;
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) for (const x of Array.isArray(v) ? v : [v]) form.append(k, x);
    const url = new URL(this.base.toString());
    url.pathname = `${url.pathname.replace(/\/$/, '')}/api/v1/${endpoint}`;
    const body = form.toString();
    const post = body.length + url.toString().length > MAX_GET_URL;
    if (!post) url.search = body;
    const headers: Record<string, string> = { accept: 'application/json', 'accept-encoding': 'gzip', 'user-agent': 'plegscope', ...this.headers };
    if (post) headers['content-type'] = 'application/x-www-form-urlencoded';
    // The points this answer may keep: what is left of the run's budget, at most one answer's bound.
    const pointsLeft = Math.max(0, Math.min(MAX_ANSWER_POINTS, b.maxPoints - this.points));
    const counting: SeriesSink | null = sink && {
      series: (labels, line) => sink.series(labels, line),
      point: (h, t, v, line) => {
        this.points++;
        sink.point(h, t, v, line);
      },
    };
    const reader = new QueryAnswerReader(counting ?? NO_SERIES, { maxPoints: pointsLeft, maxSeries: MAX_ANSWER_SERIES, stopAtCut: true }, labelSets ? { labelSets } : {});
    const json = new JsonStream(reader.handler());
    let head = '';
    let damaged: string | null = null;
    let status = 0;
    try {
      ({ status } = await boundedRequest({
        url, method: post ? 'POST' : 'GET', headers, body: post ? body : null, tls: { ca: this.ca, rejectUnauthorized: !this.insecure },
        timeoutMs: Math.min(this.timeoutMs, left), maxBytes: MAX_RESPONSE_BYTES,
      }, (chunk, st) => {
        if (head.length < 4096) head += chunk.toString('utf8', 0, Math.min(chunk.length, 4096 - head.length));
        if (!JSON_STATUS(st) || damaged !== null) return;
        try {
          json.push(chunk);
        } catch (e) {
          if (!(e instanceof JsonSyntaxError)) throw e;
          damaged = e.message;
        }
      }));
    } catch (e) {
      if (e instanceof PrometheusError) throw e;
      // At the answer's bound: the rest is not read (the summary says so), the exchange is ended.
      if (e instanceof AnswerCut) return { summary: reader.summary, damaged: null };
      if (!(e instanceof BoundedHttpError)) throw e;
      if (e.kind === 'network') throw this.networkError(e);
      const what = e.kind === 'timeout' ? `${e.message} (${left < this.timeoutMs ? b.timeoutOption : '--prometheus-timeout'})` : e.kind === 'too-large' ? `${e.message}: narrow --since/--until or name fewer nodes` : e.message;
      // An answer cut short after its start: what came is read, the rest said.
      if (reader.summary.points > 0 || reader.summary.labelSets.length > 0) return { summary: reader.summary, damaged: `${where}: ${what}` };
      throw err(e.kind === 'timeout' ? 'timeout' : e.kind === 'too-large' ? 'too-large' : 'protocol', e.kind === 'timeout' ? what : `${where}: ${what}`);
    }
    if (damaged === null && JSON_STATUS(status)) {
      try {
        json.end();
      } catch (e) {
        if (!(e instanceof JsonSyntaxError)) throw e;
        damaged = e.message;
      }
    }
    const s = reader.summary;
    // An error status's body was not parsed as it came: its head (4 KiB) may be the API's JSON with its error.
    let error = s.error;
    if (error === null && !JSON_STATUS(status)) {
      try {
        const v = JSON.parse(head) as { error?: unknown } | null;
        if (v && typeof v.error === 'string') error = v.error;
      } catch { /* not JSON: said as it is */ }
    }
    const said = error ? `: ${oneLine(error)}` : head.trim() && (damaged !== null || !JSON_STATUS(status)) ? `: ${oneLine(head)}` : '';
    if (status === 401 || status === 403) {
      throw err('auth', `${where}: ${status} ${status === 401 ? 'Unauthorized' : 'Forbidden'}${said} — give a token that may read metrics with --prometheus-token-file (OpenShift: oc whoami -t > token)`);
    }
    if (status === 404) throw err('protocol', `${where}: 404 Not Found — not a Prometheus API root: give the URL the query API answers under (https://host[:port][/prefix])`);
    if (status >= 500) throw err('server', `${where}: server error ${status}${said}`);
    if (status === 429) throw err('server', `${where}: 429 Too Many Requests${said}`);
    if (damaged !== null && s.status === null) throw err('protocol', `${where}: answered ${status} with something that is not JSON${said ? said.slice(0, 120) : ''}`);
    if (s.status !== null && s.status !== 'success') {
      if (s.errorType === 'timeout') throw err('timeout', `${where}: the query timed out on the server${said}: narrow --since/--until`);
      throw err('rejected', `${where}: ${status} ${s.errorType ?? 'error'}${said}`);
    }
    if (s.status === null && damaged === null) throw err('protocol', `${where}: answered ${status} without a "status": not a Prometheus API answer`);
    return { summary: s, damaged: damaged === null ? null : `${where}: ${damaged}` };
  }

  private networkError(e: { code?: string; message: string }): PrometheusError {
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
