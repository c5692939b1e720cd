// A Prometheus stand-in on loopback that answers as the test says: normally (a small fleet whose kubelets are up), or
// hugely, slowly, malformed, cut short or endlessly. Reusable by any test of a client of a server's answers (the
// API server's client can take the helpers: streamJson, trickle, endless, cutShort). GET and POST alike (plegscope
// sends long queries as a form POST); every request counted.
// Example:
//   const srv = await startHostilePrometheus({ query: (q, res) => hugeMatrix(res, 'good-node', 45 << 20) });
//   spawn plegscope analyze dir --prometheus srv.url …; srv.requests; await srv.stop();
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export type Handler = (params: URLSearchParams, res: ServerResponse, endpoint: string) => void | Promise<void>;

export interface HostileOptions {
  /** /api/v1/series (default: the fleet's label sets). */
  series?: Handler;
  /** /api/v1/query and /api/v1/query_range (default: a small healthy answer for the node the query names). */
  query?: Handler;
  /** Node names of the default fleet (default ['good-node']). */
  nodes?: string[];
}

export interface HostilePrometheus {
  url: string;
  /** Requests answered or begun, per endpoint. */
  requests: Map<string, number>;
  total(): number;
  stop(): Promise<void>;
}

const T0 = Date.UTC(2024, 2, 11, 9, 0, 0) / 1000;

/** Writes a JSON text in pieces, waiting for the socket to drain (a large answer is not built in memory). */
export async function streamJson(res: ServerResponse, pieces: Iterable<string>, opts: { status?: number } = {}): Promise<void> {
  if (!res.headersSent) res.writeHead(opts.status ?? 200, { 'content-type': 'application/json' });
  let batch = '';
  for (const p of pieces) {
    batch += p;
    if (batch.length >= 64 << 10) {
      if (res.destroyed) return;
      if (!res.write(batch)) await drained(res);
      batch = '';
    }
  }
  if (!res.destroyed) res.end(batch);
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** `{"status":"success","data":{"resultType":"matrix","result":[` + series + `]}}`, each series' points as given. */
export function* matrix(series: Iterable<{ metric: Record<string, unknown>; points: Iterable<[number, string]> }>): Generator<string> {
  yield '{"status":"success","data":{"resultType":"matrix","result":[';
  let firstSeries = true;
  for (const s of series) {
    yield `${firstSeries ? '' : ','}{"metric":${JSON.stringify(s.metric)},"values":[`;
    firstSeries = false;
    let first = true;
    for (const [t, v] of s.points) {
      yield `${first ? '' : ','}[${t},"${v}"]`;
      first = false;
    }
    yield ']}';
  }
  yield ']}}';
}

/** One series of kubelet_pleg_last_seen_seconds of `node` sampled every second for about `bytes` of JSON (written in
 *  pieces of 10 000 points: the server's own cost stays small). */
export function hugeMatrix(res: ServerResponse, node: string, bytes: number): Promise<void> {
  const n = Math.ceil(bytes / 26);
  function* body(): Generator<string> {
    yield `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"kubelet_pleg_last_seen_seconds","node":"${node}"},"values":[[${T0},"${T0 - 1}"]`;
    for (let i = 1; i < n; i += 10_000) yield pointsFrom(i, Math.min(n, i + 10_000));
    yield ']}]}}';
  }
  return streamJson(res, body());
}

/** `,[t,"v"]` for points i..j (exclusive), one string. */
function pointsFrom(i: number, j: number): string {
  const out: string[] = [];
  for (let k = i; k < j; k++) out.push(`,[${T0 + k},"${T0 + k - 1}"]`);
  return out.join('');
}

/** Points of one series, written as fast as the client reads, never ending. */
export async function endless(res: ServerResponse, node: string): Promise<void> {
  function* forever(): Generator<string> {
    yield `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"kubelet_pleg_last_seen_seconds","node":"${node}"},"values":[[${T0},"${T0}"]`;
    for (let i = 1; ; i += 10_000) yield pointsFrom(i, i + 10_000);
  }
  await streamJson(res, forever());
}

/** A result list of `null` entries that never ends (no point in it: only the byte bound stops a reader). */
export async function endlessNulls(res: ServerResponse): Promise<void> {
  const piece = 'null,'.repeat(20_000);
  function* forever(): Generator<string> {
    yield '{"status":"success","data":{"resultType":"matrix","result":[';
    for (;;) yield piece;
  }
  await streamJson(res, forever());
}

/** The start of an answer, then one byte every `everyMs`, forever (until the client hangs up). */
export function trickle(res: ServerResponse, everyMs = 200): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"status":"success","data":{"resultType":"matrix","result":[');
  const timer = setInterval(() => {
    if (res.destroyed) clearInterval(timer);
    else res.write(' ');
  }, everyMs);
  res.on('close', () => clearInterval(timer));
}

/** The first `bytes` of a healthy answer, then the connection closed (the length said was longer). */
export function cutShort(res: ServerResponse, node: string, bytes: number): void {
  const text = [...matrix([{ metric: { __name__: 'kubelet_pleg_last_seen_seconds', node }, points: Array.from({ length: 2000 }, (_, i): [number, string] => [T0 + i * 30, String(T0 + i * 30)]) }])].join('');
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(text.length) });
  res.write(text.slice(0, bytes));
  setTimeout(() => res.socket?.destroy(), 50);
}

/** The node a query names (`node="…"`), if any. */
export function nodeOf(params: URLSearchParams): string | null {
  return /node="([^"]+)"/.exec(params.get('query') ?? '')?.[1] ?? null;
}

/** A healthy kubelet's answer to any query: relist counters, last-seen and running pods every 30 s over the window. */
export function healthyAnswer(params: URLSearchParams, res: ServerResponse): Promise<void> {
  const node = nodeOf(params);
  const end = Number(params.get('end') ?? params.get('time') ?? T0 + 3600);
  const start = Number(params.get('start') ?? end - 600);
  const points = (f: (t: number) => number): Array<[number, string]> => {
    const out: Array<[number, string]> = [];
    for (let t = Math.ceil(start / 30) * 30; t <= end && out.length < 2000; t += 30) out.push([t, String(f(t))]);
    return out;
  };
  if (!node) return streamJson(res, matrix([]));
  return streamJson(res, matrix([
    { metric: { __name__: 'kubelet_pleg_relist_duration_seconds_count', node }, points: points((t) => (t - T0) * 1) },
    { metric: { __name__: 'kubelet_pleg_last_seen_seconds', node }, points: points((t) => t - 1) },
    { metric: { __name__: 'kubelet_running_pods', node }, points: points(() => 12) },
  ]));
}

/** A series list answer of `sets` label sets (written as a stream: 400 000 of them cost the server nothing). */
export function seriesList(res: ServerResponse, sets: Iterable<unknown>): Promise<void> {
  function* body(): Generator<string> {
    yield '{"status":"success","data":[';
    let first = true;
    for (const s of sets) {
      yield `${first ? '' : ','}${JSON.stringify(s)}`;
      first = false;
    }
    yield ']}';
  }
  return streamJson(res, body());
}

/** The default fleet's series list: kubelet_running_pods and kubelet_pleg_last_seen_seconds of each node. */
export function* fleetSets(nodes: string[]): Generator<Record<string, string>> {
  for (const node of nodes) {
    yield { __name__: 'kubelet_running_pods', node, instance: `${node}:10250`, job: 'kubelet' };
    yield { __name__: 'kubelet_pleg_last_seen_seconds', node, instance: `${node}:10250`, job: 'kubelet' };
  }
}

async function paramsOf(req: IncomingMessage, url: URL): Promise<URLSearchParams> {
  if (req.method !== 'POST') return url.searchParams;
  let body = '';
  for await (const c of req) {
    body += (c as Buffer).toString('utf8');
    if (body.length > 1 << 20) break;
  }
  return new URLSearchParams(body);
}

export async function startHostilePrometheus(opts: HostileOptions = {}): Promise<HostilePrometheus> {
  const requests = new Map<string, number>();
  const nodes = opts.nodes ?? ['good-node'];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const endpoint = url.pathname.replace(/^.*\/api\/v1\//, '');
      requests.set(endpoint, (requests.get(endpoint) ?? 0) + 1);
      const params = await paramsOf(req, url);
      res.on('error', () => undefined);
      if (endpoint === 'series') await (opts.series ?? ((_p, r) => seriesList(r, fleetSets(nodes))))(params, res, endpoint);
      else if (endpoint === 'query' || endpoint === 'query_range') await (opts.query ?? healthyAnswer)(params, res, endpoint);
      else {
        res.writeHead(404);
        res.end('not found');
      }
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    total: () => [...requests.values()].reduce((a, b) => a + b, 0),
    stop: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
