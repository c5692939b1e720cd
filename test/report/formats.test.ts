// CI and sharing formats (issue 6): JUnit valid against the schema CI servers read, Markdown that renders as tables,
// a self-contained HTML page checked in a real browser, redaction that leaves no name behind, --fail-on exit codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import { cli } from '../helpers/cli.js';
import { at, kl, jl, lines, skipLines, syncLoopEvent } from '../helpers/scenario.js';
import { failOnTriggered } from '../../src/cli/main.js';
import type { Analysis, Finding, Severity } from '../../src/contract/analysis.js';

const XSD = join(__dirname, 'junit.xsd');
const OUT = join(__dirname, '..', 'out');
const DE = 'rpc error: code = DeadlineExceeded desc = context deadline exceeded';
const SECRET = {
  hosts: ['prod-eu-west-worker-17', 'prod-eu-west-worker-18'],
  ips: ['10.42.7.19'],
  pods: ['payments-api-7d9f8b6c5-kq2x9', 'ledger-writer-0'],
  namespaces: ['acme-payments'],
  ids: ['9f8e7d6c5b4a39281706f5e4d3c2b1a0f9e8d7c6b5a4'],
};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'plegscope-formats-'));
  const L = at('10:00:00');
  const [a, b] = SECRET.hosts as [string, string];
  const ls = [
    kl(at('09:00:00'), 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.28.3"', { host: a }),
    kl(at('09:00:00'), 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.28.3"', { host: b, pid: 3300 }),
    ...skipLines(L, L + 600_000, 'structured', { host: a }),
    syncLoopEvent(L + 602_000, 'structured', { host: a }),
    syncLoopEvent(L + 700_000, 'structured', { host: b, pid: 3300 }),
    kl(at('11:00:00'), 'I', 'prober.go:107', '"Probe failed" probeType="Readiness" pod="acme-payments/ledger-writer-0"', { host: b, pid: 3300 }),
  ];
  for (let t = L + 60_000; t < L + 600_000; t += 120_000) {
    ls.push(kl(t, 'E', 'log.go:32', `"ContainerStatus from runtime service failed" err="${DE}" containerID="${SECRET.ids[0]}"`, { host: a }));
    ls.push(kl(t + 5, 'E', 'generic.go:415', `"PLEG: Ignoring events for pod" err="${DE}" pod="acme-payments/payments-api-7d9f8b6c5-kq2x9"`, { host: a }));
    ls.push(kl(t + 9, 'E', 'kubelet_node_status.go:544', `"Error updating node status, will retry" err="error getting node \\"${a}\\": Get \\"https://${SECRET.ips[0]}:6443/api/v1/nodes/${a}\\": dial tcp ${SECRET.ips[0]}:6443: i/o timeout"`, { host: a }));
  }
  ls.push(jl(L + 30_000, 'kernel', `<script>alert(1)</script> | not a table | \x1b[2J evil`, a));
  writeFileSync(join(dir, 'kubelet.log'), lines(ls));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]): { code: number; out: string } {
  const r = cli(['analyze', dir, '--year', '2024', ...args]);
  if (r.code === 2) throw new Error(r.stderr);
  return { code: r.code, out: r.stdout };
}

describe('--format junit', () => {
  it('validates against the JUnit XSD; one testsuite per node, one testcase per rule, failures at --fail-on', () => {
    const { out } = run(['--format', 'junit', '--fail-on', 'high']);
    const f = join(dir, 'pleg.xml');
    writeFileSync(f, out);
    const v = spawnSync('xmllint', ['--noout', '--schema', XSD, f], { encoding: 'utf8' });
    expect(v.status, v.stderr).toBe(0);
    // One suite per node, plus the cluster summary's (no testcases) when there are several nodes.
    const suites = out.match(/<testsuite name="[^"]*"/g) ?? [];
    expect(suites).toEqual(['<testsuite name="cluster"', ...SECRET.hosts.map((h) => `<testsuite name="${h}"`)]);
    const rules = Number(/tests="(\d+)"/.exec(out.slice(out.indexOf(`name="${SECRET.hosts[0]}"`)))![1]);
    expect(rules).toBeGreaterThan(10);
    expect(out).toContain('<failure');
    expect(out).toContain('ContainerStatus from runtime service failed');
    // The healthy node's suite has no failure.
    const healthy = out.slice(out.indexOf(`name="${SECRET.hosts[1]}"`));
    expect(healthy.slice(0, healthy.indexOf('</testsuite>'))).not.toContain('<failure');
  });
});

describe('--format markdown', () => {
  it('renders as CommonMark/GFM tables, evidence in code blocks, log text inert', () => {
    const { out } = run(['--format', 'markdown']);
    const md = new MarkdownIt();
    const tokens = md.parse(out, {});
    expect(tokens.filter((t) => t.type === 'table_open').length).toBeGreaterThanOrEqual(2);
    expect(tokens.some((t) => (t.type === 'fence' || t.type === 'code_block') && t.content.includes('ContainerStatus'))).toBe(true);
    const html = md.render(out);
    expect(html).not.toContain('<script>');
    expect(out).not.toContain('\x1b');
    expect(out).toMatch(/Cluster|cluster/);
  });
});

describe('--format html', () => {
  const chromium = '/usr/bin/chromium';
  it.skipIf(!existsSync(chromium))('is one self-contained page; the browser shows the timeline and findings (chromium missing: skipped)', async () => {
    const { out } = run(['--format', 'html']);
    expect(out).not.toMatch(/<script[^>]+src=|<link[^>]+href="http|@import|url\(http/);
    expect(out).not.toContain('<script>alert(1)</script>');
    const page = join(dir, 'report.html');
    writeFileSync(page, out);
    const { chromium: pw } = await import('playwright-core');
    const browser = await pw.launch({
      executablePath: chromium,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const p = await ctx.newPage();
      const requests: string[] = [];
      p.on('request', (r) => { if (!r.url().startsWith('file:')) requests.push(r.url()); });
      await p.goto('file://' + page);
      expect(await p.locator('svg').count()).toBeGreaterThanOrEqual(1);
      const text = await p.locator('body').innerText();
      expect(text).toContain('runtime_timeout');
      expect(text).toContain('ContainerStatus from runtime service failed');
      expect(requests).toEqual([]);
      mkdirSync(OUT, { recursive: true });
      await p.screenshot({ path: join(OUT, 'report.png'), fullPage: true });
      expect(existsSync(join(OUT, 'report.png'))).toBe(true);
    } finally {
      await browser.close();
    }
  }, 60_000);
});

describe('--redact', () => {
  it('no host name, IP, pod, namespace or ID survives in any format; the analysis is otherwise the same', () => {
    const mapFile = join(dir, 'map.json');
    const plain = JSON.parse(run(['--format', 'json']).out) as Analysis;
    const red = JSON.parse(run(['--format', 'json', '--redact', '--redact-map', mapFile]).out) as Analysis;
    for (const fmt of ['json', 'text', 'markdown', 'junit', 'html']) {
      const out = run(['--format', fmt, '--redact']).out;
      for (const s of Object.values(SECRET).flat()) expect(out, `${fmt} leaks ${s}`).not.toContain(s);
    }
    expect(red.nodes.map((n) => [n.verdict, n.stalls.length, n.stalls.map((s) => s.durationSeconds), n.findings.map((f) => [f.ruleId, f.confidence])]))
      .toEqual(plain.nodes.map((n) => [n.verdict, n.stalls.length, n.stalls.map((s) => s.durationSeconds), n.findings.map((f) => [f.ruleId, f.confidence])]));
    const map = readFileSync(mapFile, 'utf8');
    for (const h of SECRET.hosts) expect(map).toContain(h);
    // The same name maps to the same pseudonym everywhere.
    expect(new Set(red.nodes.map((n) => n.name)).size).toBe(2);
    expect(() => execFileSync(process.execPath, [join(__dirname, '..', '..', 'bin', 'plegscope'), 'analyze', dir, '--redact-map', mapFile], { stdio: 'pipe' })).toThrow();
  });
});

describe('--fail-on', () => {
  const sev = (s: Severity): Finding => ({ ruleId: 'x', cause: 'unknown', severity: s, confidence: 0.5, title: '', summary: '', evidence: [], remediation: '', references: [] });
  const analysis = (sevs: Severity[], stalls: number): Analysis => ({
    schemaVersion: 1, tool: { name: 'plegscope', version: '0' }, generatedAt: '', inputs: [], warnings: [],
    nodes: [{ findings: sevs.map(sev), stalls: Array.from({ length: stalls }), verdict: { plegUnhealthy: stalls > 0, primaryCause: null, confidence: 0 } } as unknown as Analysis['nodes'][number]],
  });
  const levels: Array<Severity | 'stall'> = ['critical', 'high', 'medium', 'low', 'info', 'stall'];
  const table: Array<[Severity[], number, boolean[]]> = [
    [[], 0, [false, false, false, false, false, false]],
    [['info'], 0, [false, false, false, false, true, false]],
    [['medium'], 0, [false, false, true, true, true, false]],
    [['critical'], 1, [true, true, true, true, true, true]],
    [['low', 'high'], 0, [false, true, true, true, true, false]],
    [[], 1, [false, false, false, false, false, true]],
  ];
  for (const [sevs, stalls, want] of table) {
    it(`findings [${sevs.join(',')}], ${stalls} stall(s)`, () => {
      expect(levels.map((l) => failOnTriggered(analysis(sevs, stalls), l))).toEqual(want);
      expect(failOnTriggered(analysis(sevs, stalls), undefined)).toBe(false);
    });
  }
  it('end to end: exit 1 when matched, 0 otherwise, 2 stays for unusable input', () => {
    expect(run(['--fail-on', 'high', '--format', 'junit', '-o', join(dir, 'x.xml')]).code).toBe(1);
    expect(run(['--fail-on', 'critical', '--format', 'junit', '-o', join(dir, 'x.xml')]).code).toBe(0);
    expect(run(['--fail-on', 'stall', '--format', 'markdown', '-o', join(dir, 'x.md')]).code).toBe(1);
    expect(cli(['analyze', join(dir, 'missing'), '--fail-on', 'info']).code).toBe(2);
  });
});

describe('--redact on a bundle', () => {
  it('a sosreport keeps none of the names, IPs, pods or IDs the plain report shows', async () => {
    const { fixtures } = await import('../bundles/kinds.js');
    const { writeBundle } = await import('../bundles/fixtures.js');
    const fx = (await fixtures()).find((f) => f.kind === 'sosreport')!;
    const bundle = await writeBundle(dir, fx.name, fx.files, 'tar.gz');
    const plain = cli(['analyze', bundle, '--format', 'json']).stdout;
    const a = JSON.parse(plain) as Analysis;
    const secrets = new Set<string>();
    for (const n of a.nodes) secrets.add(n.name);
    for (const m of plain.matchAll(/\b[0-9a-f]{64}\b/g)) secrets.add(m[0]);
    for (const m of plain.matchAll(/\bpod=\\"([^"\\]+)\\"/g)) secrets.add(m[1]!);
    for (const m of plain.matchAll(/\b(?:\d{1,3}\.){3}\d{1,3}\b/g)) if (!m[0].startsWith('0.')) secrets.add(m[0]);
    expect(secrets.size).toBeGreaterThan(0);
    for (const fmt of ['json', 'text', 'markdown', 'junit', 'html']) {
      const out = cli(['analyze', bundle, '--format', fmt, '--redact']).stdout;
      for (const s of secrets) expect(out, `${fmt} leaks ${s}`).not.toContain(s);
    }
  }, 60_000);
});
