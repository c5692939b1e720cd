// Issue 17 against a real Prometheus (Debian's prometheus + promtool): the synthetic incident of fixture.ts is
// backfilled with promtool and served on 127.0.0.1; plegscope is run as a user runs it (bin/plegscope, spawned).
// No skip: without the binaries this fails and says how to install them (scripts/install-test-deps.sh).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from '../helpers/cli.js';
import { buildFixture, SCRAPE_S, snapshotText, writeOpenMetrics, type Fixture } from './fixture.js';
import { backfill, freePort, haveBinaries, startPrometheus, type RunningPrometheus } from './server.js';

const SCRAPE_MS = SCRAPE_S * 1000;
const TLS_DIR = join(__dirname, 'tls');

interface Run { code: number; stdout: string; stderr: string }

/** bin/plegscope, spawned without blocking this process (the fake servers below answer from it). */
function run(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '' } });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (b: Buffer) => { stdout += b.toString(); });
    p.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
    p.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

async function json(args: string[]) {
  const r = await run([...args, '--format', 'json']);
  if (r.code !== 0 && r.code !== 1) throw new Error(`exit ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const iso = (ms: number) => new Date(ms).toISOString();

let dir: string;
let f: Fixture;
let prom: RunningPrometheus;

beforeAll(async () => {
  if (!haveBinaries()) throw new Error('prometheus and promtool are needed: run scripts/install-test-deps.sh (Debian package "prometheus")');
  dir = mkdtempSync(join(tmpdir(), 'plegscope-prom-'));
  f = buildFixture(dir);
  await writeOpenMetrics(f, join(dir, 'incident.om'));
  backfill(join(dir, 'incident.om'), dir);
  rmSync(join(dir, 'incident.om'));
  prom = await startPrometheus(dir);
}, 300_000);

afterAll(async () => {
  await prom?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** The stalled node's fixture window, as RFC 3339 flags. */
const span = () => ['--since', iso(f.startMs), '--until', iso(f.endMs)];

/** Node report without what differs by source: evidence, provenance, window edges. */
function model(n: Record<string, unknown> & { stalls: Array<Record<string, unknown>>; findings: Array<Record<string, unknown>> }) {
  return {
    verdict: n['verdict'],
    stalls: n.stalls.map(({ evidence: _e, ...s }) => s),
    relist: n['relist'],
    operations: n['operations'],
    pods: n['pods'],
    findings: n.findings.map((x) => ({ ruleId: x['ruleId'], cause: x['cause'], confidence: x['confidence'], summary: x['summary'] })),
  };
}

describe('logs + --prometheus', () => {
  it('give the same stall, cause and window quantiles as the equivalent snapshot files', async () => {
    const live = await json(['analyze', f.journal, '--prometheus', prom.url]);
    const n = live.nodes[0];
    expect(live.nodes).toHaveLength(1);
    expect(n.name).toBe('worker-2');
    // Asked for the stall ± 30 min: PLEG as scraped, the rest at a coarser step.
    const pleg = n.metricsFrom.find((m: { source: string }) => m.source.startsWith('query pleg{node="worker-2"}'));
    const rt = n.metricsFrom.find((m: { source: string }) => m.source.startsWith('query_range runtime{node="worker-2"}'));
    expect(pleg.kind).toBe('prometheus');
    expect(Date.parse(pleg.from)).toBeLessThanOrEqual(f.stall.lastRelistAtMs - 30 * 60_000);
    expect(Date.parse(pleg.to)).toBeGreaterThanOrEqual(f.stall.endedAtMs + 30 * 60_000 - SCRAPE_MS);
    // The equivalent snapshot files: the kubelet's /metrics at the window's first and last scrape.
    const times = f.scrapes.get('worker-2')!;
    const first = times.indexOf(Date.parse(pleg.from));
    const last = times.indexOf(Date.parse(pleg.to));
    expect(first).toBeGreaterThanOrEqual(0);
    expect(last).toBeGreaterThan(first);
    // The runtime query's first and last steps read those same scrapes.
    expect(Date.parse(rt.from) - Date.parse(pleg.from)).toBeLessThan(SCRAPE_MS);
    expect(Date.parse(rt.to) - Date.parse(pleg.to)).toBeLessThan(SCRAPE_MS);
    const snaps = join(dir, 'snapshots');
    mkdirSync(snaps, { recursive: true });
    writeFileSync(join(snaps, 'worker-2-a.metrics'), snapshotText(f, 'worker-2', first));
    writeFileSync(join(snaps, 'worker-2-b.metrics'), snapshotText(f, 'worker-2', last));
    const files = await json(['analyze', f.journal, join(snaps, 'worker-2-a.metrics'), join(snaps, 'worker-2-b.metrics')]);
    const m = files.nodes[0];
    // Same stall (the log's), same cause, same window quantiles and counts.
    expect(n.stalls.map(({ evidence: _e, ...s }: Record<string, unknown>) => s)).toEqual(m.stalls.map(({ evidence: _e, ...s }: Record<string, unknown>) => s));
    expect(n.stalls).toHaveLength(1);
    expect(n.verdict.primaryCause).toBe('runtime_timeout');
    expect(m.verdict.primaryCause).toBe('runtime_timeout');
    expect(n.relist).toEqual(m.relist);
    expect(n.operations).toEqual(m.operations);
    expect(n.pods).toEqual(m.pods);
    // The stall from the log agrees with the truth; the history's last-seen sample corroborates it.
    expect(Math.abs(Date.parse(n.stalls[0].lastRelistAt) - f.stall.lastRelistAtMs)).toBeLessThan(2000);
    expect(n.stalls[0].evidence.some((e: { file: string; text: string }) => e.file.startsWith('query pleg') && e.text.startsWith('kubelet_pleg_last_seen_seconds'))).toBe(true);
    // Provenance: the report's inputs name the server and every query.
    const input = live.inputs.find((i: { kind: string }) => i.kind === 'prometheus');
    expect(input.path).toBe(prom.url);
    expect(input.artifacts.map((a: { query: string }) => a.query)).toEqual(expect.arrayContaining([expect.stringContaining('kubelet_pleg_last_seen_seconds')]));
    const text = await run(['analyze', f.journal, '--prometheus', prom.url]);
    expect(text.stdout).toMatch(/Metrics from\n {4}query pleg\{node="worker-2"\} .* as scraped \(.*, \d+ points\)/);
  }, 120_000);
});

describe('--prometheus alone', () => {
  it('finds the stall from the series (start within one scrape) and names its cause from the CRI error counters', async () => {
    const a = await json(['analyze', '--prometheus', prom.url, '--node', 'worker-2', ...span()]);
    const n = a.nodes[0];
    expect(a.nodes.map((x: { name: string }) => x.name)).toEqual(['worker-2']);
    expect(n.stalls).toHaveLength(1);
    const s = n.stalls[0];
    expect(Math.abs(Date.parse(s.lastRelistAt) - f.stall.lastRelistAtMs)).toBeLessThanOrEqual(SCRAPE_MS);
    // The end: the first scrape that saw a newer relist.
    expect(Date.parse(s.endedAt) - f.stall.endedAtMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(s.endedAt) - f.stall.endedAtMs).toBeLessThanOrEqual(SCRAPE_MS);
    expect(n.verdict.plegUnhealthy).toBe(true);
    expect(n.verdict.primaryCause).toBe('runtime_timeout');
    const top = n.findings[0];
    expect(top.ruleId).toBe('runtime-errors-in-metrics');
    expect(top.evidence.some((e: { text: string }) => e.text.startsWith('kubelet_runtime_operations_errors_total{') && e.text.includes('operation_type="list_podsandbox"'))).toBe(true);
    // Every cited sample says which query it came from.
    for (const e of [...s.evidence, ...top.evidence]) expect(e.file).toMatch(/^query(_range)? (pleg|runtime)\{node="worker-2"\} /);
    // Only the stall's hour was read at scrape resolution (stall ± 30 min).
    const pleg = n.metricsFrom.find((m: { source: string }) => m.source.startsWith('query pleg'));
    expect(Date.parse(pleg.to) - Date.parse(pleg.from)).toBeLessThan(2 * 3_600_000);
    const r = await run(['analyze', '--prometheus', prom.url, '--node', 'worker-2', ...span(), '--fail-on', 'stall']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/worker-2 {2}PLEG unhealthy — cause: runtime_timeout/);
  }, 60_000);

  it('reads a 1.13 kubelet (µs summaries, old counter names) known only by IP:port through kube_node_info', async () => {
    const a = await json(['analyze', '--prometheus', prom.url, '--node', 'worker-3', '--node', 'worker-1', ...span()]);
    expect(a.nodes.map((x: { name: string }) => x.name)).toEqual(['worker-1', 'worker-3']);
    const w3 = a.nodes.find((x: { name: string }) => x.name === 'worker-3');
    expect(w3.verdict.plegUnhealthy).toBe(false);
    expect(w3.relist.durationSeconds.p99).toBeGreaterThan(0);
    expect(w3.pods.running).toBeGreaterThan(0);
    expect(w3.operations.find((o: { operation: string }) => o.operation === 'list_podsandbox').count).toBeGreaterThan(1000);
    expect(w3.metricsFrom[0].source).toContain('instance="10.0.0.13:10250"');
  }, 60_000);
});

describe('plegscope scan', () => {
  it('lists exactly the stalled node, start and end within one scrape; the JSON is the same bytes twice', async () => {
    const args = ['scan', '--prometheus', prom.url, ...span(), '--format', 'json'];
    const one = await run(args);
    const two = await run(args);
    expect(one.code).toBe(0);
    expect(one.stdout).toBe(two.stdout);
    const s = JSON.parse(one.stdout);
    expect(s.schemaVersion).toBe(1);
    expect(s.window).toEqual({ start: iso(f.startMs), end: iso(f.endMs) });
    expect(s.nodesScanned).toBe(3);
    // worker-3 is a 1.13 kubelet: no last-seen gauge, and the scan says so.
    expect(s.warnings).toEqual([
      expect.stringMatching(/^1 kubelet\(s\) expose no kubelet_pleg_last_seen_seconds .*: worker-3 /),
      // worker-1 runs Evented PLEG: its gauge moves at every health check, so scan marks it instead of calling it healthy.
      expect.stringMatching(/^1 kubelet\(s\) run Evented PLEG .*: worker-1 \(not called healthy/),
    ]);
    expect(s.evented).toEqual(['worker-1']);
    expect(s.nodes.map((n: { name: string }) => n.name)).toEqual(['worker-2']);
    const st = s.nodes[0].stalls;
    expect(st).toHaveLength(1);
    expect(Math.abs(Date.parse(st[0].start) - f.stall.lastRelistAtMs)).toBeLessThanOrEqual(SCRAPE_MS);
    expect(Math.abs(Date.parse(st[0].end) - f.stall.endedAtMs)).toBeLessThanOrEqual(SCRAPE_MS);
    expect(s.nodes[0].longestSeconds).toBe(st[0].seconds);
    expect(s.nodes[0].criErrors).toBeGreaterThan(0);
    expect(s.nodes[0].pods).toBeGreaterThan(0);
    expect(s.nodes[0].relistP99Seconds).toBeGreaterThan(0);
  }, 60_000);

  it('takes --since as a duration back from now, prints a ranked table, and --fail-on-stall exits 1', async () => {
    const r = await run(['scan', '--prometheus', prom.url, '--since', '7d', '--fail-on-stall']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/1 of 3 node\(s\) had PLEG stalls/);
    expect(r.stdout).toMatch(/\nworker-2 +1 +14m\d\ds +/);
    expect(r.stderr).toBe('');
  }, 60_000);
});

describe('saved query answers as input files', () => {
  it('query_range/query JSON and promtool `value @[epoch]` text give the model of the live query', async () => {
    const live = await json(['analyze', '--prometheus', prom.url, '--node', 'worker-2', ...span()]);
    const queries = live.inputs.find((i: { kind: string }) => i.kind === 'prometheus').artifacts as Array<{ path: string; query: string }>;
    expect(queries).toHaveLength(2);
    const saved = join(dir, 'saved');
    mkdirSync(saved, { recursive: true });
    for (const [i, q] of queries.entries()) {
      // The label holds the window and step, as a user would re-run it.
      const m = /^(query|query_range) \S+ (\S+)\.\.(\S+) (?:step (\d+)s|as scraped)$/.exec(q.path)!;
      expect(m).not.toBeNull();
      const end = Date.parse(m[3]!) / 1000;
      const params = m[1] === 'query_range'
        ? new URLSearchParams({ query: q.query, start: String(Date.parse(m[2]!) / 1000), end: String(end), step: m[4]! })
        : new URLSearchParams({ query: q.query, time: String(end) });
      const res = await fetch(`${prom.url}/api/v1/${m[1]}?${params}`);
      writeFileSync(join(saved, `answer-${i}.json`), await res.text());
      const promtool = m[1] === 'query_range'
        ? ['query', 'range', `--start=${Date.parse(m[2]!) / 1000}`, `--end=${end}`, `--step=${m[4]}s`, prom.url, q.query]
        : ['query', 'instant', `--time=${end}`, prom.url, q.query];
      const t = spawnSync('promtool', promtool, { encoding: 'utf8', maxBuffer: 64 << 20 });
      expect(t.status).toBe(0);
      expect(t.stdout).toMatch(/^kubelet_[a-z_]+\{.*\} =>\n[\d.e+-]+ @\[\d+(?:\.\d+)?\]\n/m);
      writeFileSync(join(saved, `answer-${i}.txt`), t.stdout);
    }
    const fromJson = await json(['analyze', join(saved, 'answer-0.json'), join(saved, 'answer-1.json')]);
    const fromText = await json(['analyze', join(saved, 'answer-0.txt'), join(saved, 'answer-1.txt')]);
    expect(fromJson.inputs.flatMap((i: { artifacts: Array<{ format: string }> }) => i.artifacts.map((a) => a.format))).toEqual(['prometheus-query-json', 'prometheus-query-json']);
    expect(fromText.inputs.flatMap((i: { artifacts: Array<{ format: string }> }) => i.artifacts.map((a) => a.format))).toEqual(['prometheus-query-text', 'prometheus-query-text']);
    expect(fromJson.nodes.map((n: { name: string }) => n.name)).toEqual(['worker-2']);
    expect(model(fromJson.nodes[0])).toEqual(model(live.nodes[0]));
    expect(model(fromText.nodes[0])).toEqual(model(live.nodes[0]));
    expect(live.nodes[0].stalls).toHaveLength(1);
  }, 120_000);
});

// ---------------------------------------------------------------------------------------------------------------
// Errors, through servers in front of the real one.

function proxyTo(target: string, gate: (req: IncomingMessage) => { status: number; body: string } | null) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const refusal = gate(req);
    if (refusal) {
      res.writeHead(refusal.status, { 'content-type': 'application/json' });
      res.end(refusal.body);
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    // A path prefix picks the behaviour (/empty, /broken); the real server has none.
    const r = await fetch(`${target}${(req.url ?? '').replace(/^\/(?:empty|broken)(?=\/)/, '')}`, { method: req.method, headers: { 'content-type': String(req.headers['content-type'] ?? 'application/x-www-form-urlencoded') }, body: req.method === 'POST' ? Buffer.concat(chunks) : undefined });
    res.writeHead(r.status, { 'content-type': 'application/json' });
    res.end(await r.text());
  };
}

async function listen(server: Server): Promise<string> {
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return `127.0.0.1:${port}`;
}

describe('errors: one line, exit 2 when nothing else is analyzable, a warning otherwise', () => {
  it('an unreachable server', async () => {
    const port = await freePort();
    const r = await run(['analyze', '--prometheus', `http://127.0.0.1:${port}`, '--node', 'worker-2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`plegscope: http://127.0.0.1:${port}: unreachable (connection refused)\n`);
    // With a log to analyze, the same is a warning in the report.
    const w = await json(['analyze', f.journal, '--prometheus', `http://127.0.0.1:${port}`]);
    expect(w.nodes[0].stalls).toHaveLength(1);
    expect(w.warnings).toEqual(expect.arrayContaining([{ file: `http://127.0.0.1:${port}`, line: null, message: 'unreachable (connection refused): analyzed without it', unread: true }]));
  }, 60_000);

  it('a node the server does not know', async () => {
    const r = await run(['analyze', '--prometheus', prom.url, '--node', 'worker-9', ...span()]);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect(r.stderr).toMatch(/^plegscope: http:\/\/127\.0\.0\.1:\d+: no kubelet series for node "worker-9" between .* \(the server knows worker-1, worker-2, worker-3\)\n$/);
    const w = await json(['analyze', f.journal, '--prometheus', prom.url, '--node', 'worker-9', ...span()]);
    expect(w.nodes.map((n: { name: string }) => n.name)).toEqual(['worker-2']);
    expect(w.warnings.map((x: { message: string }) => x.message)).toEqual(expect.arrayContaining([expect.stringMatching(/^no kubelet series for node "worker-9"/)]));
  }, 60_000);

  it('a server without kubelet metrics, a 5xx, and 401/403 without the token it wants', async () => {
    const token = 'sha256~plegscope-test-token';
    const server = createHttp(proxyTo(prom.url, (req) => {
      if (req.url?.startsWith('/empty/')) return { status: 200, body: '{"status":"success","data":[]}' };
      if (req.url?.startsWith('/broken/')) return { status: 503, body: '{"status":"error","errorType":"unavailable","error":"store gateway not ready"}' };
      if (req.headers['authorization'] !== `Bearer ${token}`) return { status: 401, body: 'Unauthorized\n' };
      if (req.headers['x-scope-orgid'] !== 'fleet') return { status: 403, body: '{"status":"error","errorType":"forbidden","error":"no tenant"}' };
      return null;
    }));
    const at = await listen(server);
    try {
      const none = await run(['analyze', '--prometheus', `http://${at}/empty`, '--node', 'worker-2']);
      expect(none.code).toBe(2);
      expect(none.stderr).toMatch(/^plegscope: http:\/\/127\.0\.0\.1:\d+\/empty: no kubelet metrics between .*: is this the cluster's Prometheus, and does it scrape the kubelets\?\n$/);
      const broken = await run(['scan', '--prometheus', `http://${at}/broken`]);
      expect(broken.code).toBe(2);
      expect(broken.stderr).toMatch(/^plegscope: http:\/\/127\.0\.0\.1:\d+\/broken: \/api\/v1\/series: server error 503: store gateway not ready\n$/);
      const anon = await run(['scan', '--prometheus', `http://${at}`]);
      expect(anon.code).toBe(2);
      expect(anon.stderr).toMatch(/^plegscope: http:\/\/127\.0\.0\.1:\d+: \/api\/v1\/series: 401 Unauthorized: Unauthorized — give a token .*--prometheus-token-file.*\n$/);
      const tokenFile = join(dir, 'token');
      writeFileSync(tokenFile, `${token}\n`);
      const noTenant = await run(['scan', '--prometheus', `http://${at}`, '--prometheus-token-file', tokenFile]);
      expect(noTenant.code).toBe(2);
      expect(noTenant.stderr).toMatch(/403 Forbidden: no tenant/);
      expect(noTenant.stderr).not.toContain(token);
      const ok = await json(['scan', '--prometheus', `http://${at}`, '--prometheus-token-file', tokenFile, '--prometheus-header', 'X-Scope-OrgID=fleet', ...span()]);
      expect(ok.nodes.map((n: { name: string }) => n.name)).toEqual(['worker-2']);
    } finally {
      server.close();
    }
  }, 60_000);

  it('TLS: an untrusted certificate is one line naming the options; --prometheus-ca or --prometheus-insecure get through', async () => {
    const server = createHttps({ key: readFileSync(join(TLS_DIR, 'key.pem')), cert: readFileSync(join(TLS_DIR, 'cert.pem')) }, proxyTo(prom.url, () => null));
    const at = await listen(server as unknown as Server);
    try {
      const r = await run(['scan', '--prometheus', `https://${at}`]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^plegscope: https:\/\/127\.0\.0\.1:\d+: TLS: self[- ]signed certificate — give its CA with --prometheus-ca FILE, or --prometheus-insecure to skip the check\n$/);
      const withCa = await json(['scan', '--prometheus', `https://${at}`, '--prometheus-ca', join(TLS_DIR, 'cert.pem'), ...span()]);
      expect(withCa.nodes.map((n: { name: string }) => n.name)).toEqual(['worker-2']);
      const insecure = await json(['scan', '--prometheus', `https://${at}`, '--prometheus-insecure', ...span()]);
      expect(insecure.nodes.map((n: { name: string }) => n.name)).toEqual(['worker-2']);
    } finally {
      server.close();
    }
  }, 60_000);

  it('usage: options that need --prometheus, --prometheus without files or --node, bad times', async () => {
    const a = await run(['analyze', '--node', 'x']);
    expect(a).toMatchObject({ code: 2, stderr: 'plegscope: --node goes with --prometheus URL\n' });
    const b = await run(['analyze', '--prometheus', prom.url]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/needs --node NAME/);
    const c = await run(['scan', '--prometheus', prom.url, '--since', 'yesterday']);
    expect(c).toMatchObject({ code: 2, stderr: 'plegscope: --since: "yesterday" is neither a duration back from now (7d, 6h, 90m) nor an RFC 3339 time (2024-03-11T10:00:00Z)\n' });
  }, 60_000);
});
