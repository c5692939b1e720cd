// Latencies that are true (issue 14, point 6): inputs built the way an SRE builds them — kubelet /metrics snapshots
// saved with `kubectl get --raw /api/v1/nodes/NODE/proxy/metrics > NODE-$(date -u +%Y%m%dT%H%M%SZ).metrics`, two or
// one, a 1.13 kubelet's summaries, a log beside them — and plegscope run as a command. What a person reads (the text
// report at 80 columns, Markdown, HTML, the TUI) and the JSON numbers are checked.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Analysis, NodeReport } from '../src/contract/analysis.js';
import { cli } from './helpers/cli.js';
import { HAS_TMUX, Tmux, shq } from './tui/tmux.js';

const ROOT = join(__dirname, '..');
const SAMPLE = join(ROOT, 'fixtures', 'sample-incident');
const CHROMIUM = '/usr/bin/chromium';
const tmp = mkdtempSync(join(tmpdir(), 'plegscope-latency-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A folder of files as the user saved them. */
function folder(name: string, files: Record<string, string>): string {
  const d = join(tmp, name);
  mkdirSync(d, { recursive: true });
  for (const [f, text] of Object.entries(files)) writeFileSync(join(d, f), text);
  return d;
}

/** What `kubectl get --raw …/proxy/metrics` saves: the kubelet's exposition, no sample timestamps (the sample's
 *  snapshots carry Prometheus-dump timestamps; the scrape time is then the one in the file name). */
function asScraped(file: string): string {
  return readFileSync(join(SAMPLE, file), 'utf8').replace(/^([^#\n].*?) \d{13}$/gm, '$1');
}

const SCRAPE_A = 'worker-3-20240311T101000Z.metrics';
const SCRAPE_B = 'worker-3-20240311T102000Z.metrics';

function text(dir: string, extra: string[] = []): string {
  const r = cli(['analyze', dir, ...extra], { env: { COLUMNS: '80' } });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

function json(dir: string): NodeReport {
  const r = cli(['analyze', dir, '--format', 'json']);
  expect(r.code, r.stderr).toBe(0);
  const a = JSON.parse(r.stdout) as Analysis;
  expect(a.nodes).toHaveLength(1);
  return a.nodes[0]!;
}

/** The lines of one section of the text report (from its heading to the next heading at the same indent). */
function section(report: string, heading: string): string[] {
  const lines = report.split('\n');
  const from = lines.findIndex((l) => l.startsWith(`  ${heading}`));
  expect(from, `no "${heading}" section in:\n${report}`).toBeGreaterThanOrEqual(0);
  const rest = lines.slice(from + 1);
  const end = rest.findIndex((l) => /^ {0,2}\S/.test(l));
  return [lines[from]!, ...(end < 0 ? rest : rest.slice(0, end))];
}

describe('1. quantiles from histograms and summaries say what they are', () => {
  const two = folder('two-snapshots', { [SCRAPE_A]: asScraped('metrics-20240311T101000Z.txt'), [SCRAPE_B]: asScraped('metrics-20240311T102000Z.txt') });

  it('relists beyond the last bucket read "> 10s (5 of 5)", with the window mean (~120 s), never "10.0s" as if measured', () => {
    const t = text(two);
    const relist = section(t, 'Relist').join('\n');
    expect(relist).toContain('Relist  metrics 2024-03-11 10:10:00 +00:00 → 10:20:00 · 5 relists finished');
    expect(relist).toMatch(/duration {2}mean 120s · p50 p90 p99 max > 10s \(5 of 5 beyond the last bucket\)/);
    expect(relist).toMatch(/interval {2}mean 485s · p50 p90 p99 max > 10s \(5 of 5 beyond the last bucket\)/);
    expect(t).not.toMatch(/10\.0s/);

    const n = json(two);
    // The plain numbers stay what they were (PromQL's value: the last finite bound), and say they are a lower bound.
    expect(n.relist.durationSeconds).toMatchObject({ p50: 10, p99: 10, max: 10 });
    expect(n.relist.duration).toMatchObject({
      source: 'histogram', count: 5, beyond: { bound: 10, count: 5 }, quantileWindow: 'metrics',
      p99: { from: 10, to: null },
      max: { from: 10, to: null },
    });
    // _sum went 160.14 → 760.14 over 5 relists: 120.0 s each, exactly.
    expect(n.relist.duration!.meanSeconds).toBeCloseTo((760.13967578125 - 160.13624682617186) / 5, 9);
    expect(n.metricsWindow).toEqual({ from: '2024-03-11T10:10:00.000Z', to: '2024-03-11T10:20:00.000Z', scrapes: 2, cumulative: false });
  });

  it('an interpolated quantile is marked with its bucket: no bare 208.6s; the JSON keeps the number and the bounds', () => {
    const t = text(two);
    const ops = section(t, 'CRI operations');
    const ps = ops.find((l) => l.includes('list_podsandbox'))!;
    // At 80 columns with no log columns beside them, p50, p90 and p99 all fit.
    expect(ops[2]).toMatch(/^ {4}operation +calls +errors +mean +p50 +p90 +p99$/);
    expect(ps).toMatch(/list_podsandbox +5 +5 +120s +119–298s +119–298s +119–298s$/);
    expect(ops.join('\n')).toContain('a–b: a quantile from a histogram is known only to lie in that bucket');
    expect(ops.join('\n')).toContain('mean: exact, from _sum and _count over the window');
    expect(t).not.toMatch(/208\.6|280\.1|296\.2/);

    const o = json(two).operations.find((x) => x.operation === 'list_podsandbox')!;
    expect(o.p50Seconds).toBeCloseTo(208.6, 1);
    expect(o.latency).toMatchObject({
      source: 'histogram', count: 5, beyond: { bound: 745.0580596923828, count: 0 },
      p50: { from: 119.20928955078125, to: 298.0232238769531 },
      p99: { from: 119.20928955078125, to: 298.0232238769531 },
      max: { from: 119.20928955078125, to: 298.0232238769531 },
    });
    expect(o.latency!.meanSeconds).toBeCloseTo((864.8094513053859 - 264.8071422233546) / 5, 9);
  });

  it('a single snapshot: counts since the kubelet started, said so; one relist beyond the last bucket is "1 of 3987"', () => {
    const one = folder('one-snapshot', { [SCRAPE_A]: asScraped('metrics-20240311T101000Z.txt') });
    const relist = section(text(one), 'Relist').join(' ').replace(/\s+/g, ' ');
    expect(relist).toContain('Relist metrics since the kubelet started (one scrape, 2024-03-11 10:10:00 +00:00) · 3987 relists finished');
    // 3986 relists within 50 ms, one beyond 10 s: the max is only known to be above 10 s.
    expect(relist).toContain('duration mean 40.2ms · p50 (5ms, 10ms] ≈9.13ms · p90 (10ms, 25ms] ≈21.8ms · p99 (25ms, 50ms] ≈32ms · max > 10s (1 of 3987 beyond the last bucket)');
    const d = json(one).relist.duration!;
    expect(d).toMatchObject({ count: 3987, beyond: { bound: 10, count: 1 }, max: { from: 10, to: null } });
    expect(d.meanSeconds).toBeCloseTo(160.13624682617186 / 3987, 9);
  });

  it('a 1.13 kubelet\'s µs summaries: exact quantiles of the exporter\'s own 10-minute window, said so, no bucket marks', () => {
    const dir = folder('kubelet-1.13', { 'node-7-20190402T101000Z.metrics': kubelet113(0), 'node-7-20190402T102000Z.metrics': kubelet113(1) });
    const t = text(dir);
    const relist = section(t, 'Relist').join(' ').replace(/\s+/g, ' ');
    expect(relist).toContain('Relist metrics 2019-04-02 10:10:00 +00:00 → 10:20:00 · 500 relists finished');
    expect(relist).toContain('duration mean 900ms · p50 12ms · p90 1.5s · p99 4.2s · max ≥ 4.2s');
    expect(relist).toContain('a summary\'s quantiles are exact but cover the kubelet\'s own last 10 minutes, not the window');
    const ops = section(t, 'CRI operations').join('\n');
    expect(ops).toMatch(/list_podsandbox +1200 +3 +250ms +4ms +120ms +2.5s\n/);
    expect(ops).not.toMatch(/–|≈/);

    const n = json(dir);
    expect(n.relist.duration).toMatchObject({
      source: 'summary', count: 500, beyond: null, quantileWindow: 'exporter',
      p50: null, p90: null, p99: null, max: null,
    });
    // The exact quantiles are the plain numbers (the largest any scrape showed), with no bucket.
    expect(n.relist.durationSeconds).toMatchObject({ p50: 0.012, p90: 1.5, p99: 4.2, max: 4.2 });
    expect(n.relist.duration!.meanSeconds).toBeCloseTo(0.9, 9);
    expect(n.operations.find((o) => o.operation === 'list_podsandbox')!.latency).toMatchObject({ source: 'summary', count: 1200, quantileWindow: 'exporter', meanSeconds: expect.closeTo(0.25, 9) });
  });
});

describe('2. the operations table hides all-zero rows, says how many, and keeps them in JSON', () => {
  it('the sample\'s snapshots: 5 operations that did something; 16 idle ones counted in one line', () => {
    const dir = folder('hide-idle', { [SCRAPE_A]: asScraped('metrics-20240311T101000Z.txt'), [SCRAPE_B]: asScraped('metrics-20240311T102000Z.txt') });
    const ops = section(text(dir), 'CRI operations');
    const rows = ops.filter((l) => /^ {4}[a-z_]+ +(\d+|—) /.test(l)).map((l) => l.trim().split(/ +/)[0]);
    expect(rows).toEqual(['exec_sync', 'list_containers', 'list_podsandbox', 'status', 'version']);
    expect(ops.join(' ').replace(/\s+/g, ' ')).toContain('16 operations with no call, error or timeout not shown (--format json lists them)');
    const all = json(dir).operations;
    expect(all).toHaveLength(21);
    expect(all.filter((o) => o.count === 0 && o.errors === 0 && o.timeouts === 0)).toHaveLength(16);
  });
});

describe('3. the metrics window and the whole log are never mixed in one row unsaid', () => {
  it('a log plus snapshots: calls and errors of the window left of │, the log\'s errors and timeouts right of it; 80 columns', () => {
    const t = text(SAMPLE);
    for (const l of t.split('\n')) {
      if (!/^ {7}\$ /.test(l)) expect(l.length, l).toBeLessThanOrEqual(80); // commands are never wrapped
    }
    const ops = section(t, 'CRI operations');
    expect(ops[1]).toMatch(/^ {4}metrics 2024-03-11 10:10:00 \+00:00 → 10:20:00 +│ whole log$/);
    expect(ops[2]).toMatch(/^ {4}operation +calls +errors +mean +p50 +p99 │ errors +timeouts$/);
    // 5 calls and 5 errors in the 10 minutes between the scrapes; 8 timed-out calls in the whole log.
    expect(ops.find((l) => l.includes('list_podsandbox'))).toMatch(/list_podsandbox +5 +5 +120s +119–298s +119–298s │ +8 +8$/);
    expect(ops[1]!.indexOf('│')).toBe(ops[2]!.indexOf('│'));

    const o = json(SAMPLE).operations.find((x) => x.operation === 'list_podsandbox')!;
    expect(o).toMatchObject({ source: 'both', count: 5, errors: 5, timeouts: 8, logErrors: 8, latency: { count: 5, quantileWindow: 'metrics' } });
  });

  it('metrics alone: no log columns (a timeout count of 0 would claim a log that is not there)', () => {
    const dir = folder('no-log', { [SCRAPE_A]: asScraped('metrics-20240311T101000Z.txt'), [SCRAPE_B]: asScraped('metrics-20240311T102000Z.txt') });
    const ops = section(text(dir), 'CRI operations');
    expect(ops.join('\n')).not.toMatch(/│|timeouts|whole log/);
    // No log: no log errors to state.
    expect(json(dir).operations.find((x) => x.operation === 'status')).not.toHaveProperty('logErrors');
  });
});

describe('4. every view says the same truth', () => {
  it('findings quote p99s with their bucket or as "above" the last bound; the rules still see them as ≥ the bound', () => {
    const a = json(SAMPLE);
    const hung = a.findings.find((f) => f.ruleId === 'runtime-hung-lists')!;
    expect(hung.summary).toContain('list calls\' p99 in metrics between 119 s and 298 s');
    expect(hung.summary).not.toMatch(/p99 296 s/);
    // Metrics alone: the pod-count rule still reads relist p99 ≥ 10 (PromQL's bound) and now says what it is.
    const dir = folder('findings-metrics', { [SCRAPE_A]: asScraped('metrics-20240311T101000Z.txt'), [SCRAPE_B]: asScraped('metrics-20240311T102000Z.txt') });
    const slow = json(dir).findings.find((f) => f.ruleId === 'slow-relist-pod-count')!;
    expect(slow.summary).toContain('relist p99 above 10 s, with 5 of 5 relists beyond the last bucket');
    expect(slow.summary).toContain('Supporting: relist p99 ≥ 10 s in metrics');
  });

  it('Markdown and HTML: the value with its bucket, "> 10s (5 of 5)", and the window of each column group', () => {
    const md = cli(['analyze', SAMPLE, '--format', 'markdown']).stdout;
    expect(md).toContain('### Relist\n\nMetrics 2024-03-11 10:10:00 +00:00 → 10:20:00 · 5 relists finished.\n\n- **duration**: mean 120s · p50 p90 p99 max \\> 10s (5 of 5 beyond the last bucket)');
    expect(md).toContain('Calls, errors and latency: metrics 2024-03-11 10:10:00 +00:00 → 10:20:00; columns marked (log): the whole log (2024-03-11 08:58:25 +00:00 → 10:59:51).');
    expect(md).toContain('| `list_podsandbox` | 5 | 5 | 120s | (119s, 298s\\] ≈209s | (119s, 298s\\] ≈280s | (119s, 298s\\] ≈296s | 8 | 8 |');
    expect(md).toContain('| operation | calls | errors | mean | p50 | p90 | p99 | errors (log) | timeouts (log) |');
    expect(md).toContain('16 operations with no call, error or timeout not shown');
    expect(md).not.toMatch(/208\.6|10\.0s/);

    const html = cli(['analyze', SAMPLE, '--format', 'html']).stdout;
    expect(html).toContain('<th colspan="6" class="group">metrics 2024-03-11 10:10:00 +00:00 → 10:20:00</th><th colspan="2" class="group">whole log (2024-03-11 08:58:25 +00:00 → 10:59:51)</th>');
    expect(html).toContain('<td class="num">(119s, 298s] ≈209s</td>');
    expect(html).toContain('<td>duration</td><td>mean 120s · p50 p90 p99 max &gt; 10s (5 of 5 beyond the last bucket)</td>');
    expect(html).not.toMatch(/208\.6|10\.0s/);
    const table = html.slice(html.indexOf('<table class="operations">'), html.indexOf('</table>', html.indexOf('<table class="operations">')));
    expect(table.match(/<code>[a-z_]+<\/code><\/td>/g)).toHaveLength(5);
  });

  it.skipIf(!existsSync(CHROMIUM))('in a browser, each window heads the columns it covers (chromium missing: skipped)', async () => {
    const page = join(tmp, 'report.html');
    writeFileSync(page, cli(['analyze', SAMPLE, '--format', 'html']).stdout);
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
    try {
      const p = await (await browser.newContext({ viewport: { width: 1100, height: 900 } })).newPage();
      await p.goto('file://' + page);
      const box = async (sel: string) => (await p.locator(sel).boundingBox())!;
      const metrics = await box('table.operations thead th.group >> nth=0');
      const log = await box('table.operations thead th.group >> nth=1');
      const head = p.locator('table.operations thead tr:nth-child(2) th');
      const calls = (await head.nth(1).boundingBox())!;
      const p99 = (await head.nth(6).boundingBox())!;
      const timeouts = (await head.nth(8).boundingBox())!;
      expect(await p.locator('table.operations thead th.group >> nth=0').innerText()).toBe('metrics 2024-03-11 10:10:00 +00:00 → 10:20:00');
      expect(await p.locator('table.operations thead th.group >> nth=1').innerText()).toMatch(/^whole log \(2024-03-11 08:58:25 \+00:00 →\s+10:59:51\)$/);
      expect(metrics.x).toBeCloseTo(calls.x, 0);
      expect(metrics.x + metrics.width).toBeCloseTo(p99.x + p99.width, 0);
      expect(log.x + log.width).toBeCloseTo(timeouts.x + timeouts.width, 0);
      const rows = await p.locator('table.operations tbody tr').allInnerTexts();
      expect(rows).toHaveLength(5);
      expect(rows.find((r) => r.startsWith('list_podsandbox'))!.split('\t')).toEqual(['list_podsandbox', '5', '5', '120s', '(119s, 298s] ≈209s', '(119s, 298s] ≈280s', '(119s, 298s] ≈296s', '8', '8']);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it.skipIf(!HAS_TMUX)('the TUI\'s operations section: relist figures, windows per column group, idle operations counted', async () => {
    const tm = new Tmux();
    try {
      tm.start('ops', 80, 32, `cd ${shq(ROOT)} && CI=true ${shq(process.execPath)} ${shq(join(ROOT, 'bin', 'plegscope'))} tui ${shq(SAMPLE)}`);
      await tm.waitFor('ops', (s) => s.includes('sorted by'), 'the overview', 30_000);
      await tm.keys('ops', 'Enter');
      await tm.waitFor('ops', (s) => s.includes('5:Operations'), 'the node view');
      await tm.keys('ops', '5');
      const s = await tm.waitFor('ops', (x) => x.includes('relist duration'), 'the operations section');
      expect(s).toContain('5:Operations (5)');
      expect(s).toMatch(/relist duration mean 120s · p50 p90 p99 max > 10s \(5 of 5 beyond the last\n {18}bucket\)/);
      expect(s).toMatch(/metrics 2024-03-11 10:10:00 \+00:00 → 10:20:00 +│ whole log/);
      expect(s).toMatch(/▸ exec_sync +4 +4 +121s +119–298s +119–298s │ +6 +6/);
      expect(s).toMatch(/ list_podsandbox +5 +5 +120s +119–298s +119–298s │ +8 +8/);
      expect(s.replace(/\s+/g, ' ')).toContain('16 operations with no call, error or timeout not shown');
      expect(s).not.toMatch(/208\.6|10\.0s|container_stats/);
    } finally {
      tm.kill();
    }
  }, 60_000);
});

/**
 * A kubelet 1.13 /metrics at a scrape `k` (0, 1) ten minutes apart: relist and CRI latencies as µs summaries (the
 * client_golang defaults: 0.5/0.9/0.99 over a sliding 10 minutes), old counter names. Between the scrapes: 500 relists
 * taking 450 s in all (mean 0.9 s), 1200 list_podsandbox calls taking 300 s (mean 0.25 s), 3 of them failed.
 */
function kubelet113(k: number): string {
  return [
    '# HELP kubelet_pleg_relist_latency_microseconds Latency in microseconds for relisting pods in PLEG.',
    '# TYPE kubelet_pleg_relist_latency_microseconds summary',
    'kubelet_pleg_relist_latency_microseconds{quantile="0.5"} 12000',
    'kubelet_pleg_relist_latency_microseconds{quantile="0.9"} 1.5e+06',
    `kubelet_pleg_relist_latency_microseconds{quantile="0.99"} ${k ? '4.2e+06' : '3.1e+06'}`,
    `kubelet_pleg_relist_latency_microseconds_sum ${1.2e9 + k * 450e6}`,
    `kubelet_pleg_relist_latency_microseconds_count ${40000 + k * 500}`,
    '# HELP kubelet_pleg_relist_interval_microseconds Interval in microseconds between relisting in PLEG.',
    '# TYPE kubelet_pleg_relist_interval_microseconds summary',
    'kubelet_pleg_relist_interval_microseconds{quantile="0.5"} 1.012e+06',
    'kubelet_pleg_relist_interval_microseconds{quantile="0.9"} 2.5e+06',
    'kubelet_pleg_relist_interval_microseconds{quantile="0.99"} 5.2e+06',
    `kubelet_pleg_relist_interval_microseconds_sum ${4.4e10 + k * 1.2e9}`,
    `kubelet_pleg_relist_interval_microseconds_count ${40000 + k * 500}`,
    '# HELP kubelet_runtime_operations Cumulative number of runtime operations by operation type.',
    '# TYPE kubelet_runtime_operations counter',
    `kubelet_runtime_operations{operation_type="list_podsandbox"} ${90000 + k * 1200}`,
    'kubelet_runtime_operations{operation_type="version"} 3000',
    '# HELP kubelet_runtime_operations_errors Cumulative number of runtime operation errors by operation type.',
    '# TYPE kubelet_runtime_operations_errors counter',
    `kubelet_runtime_operations_errors{operation_type="list_podsandbox"} ${2 + k * 3}`,
    '# HELP kubelet_runtime_operations_latency_microseconds Latency in microseconds of runtime operations. Broken down by operation type.',
    '# TYPE kubelet_runtime_operations_latency_microseconds summary',
    'kubelet_runtime_operations_latency_microseconds{operation_type="list_podsandbox",quantile="0.5"} 4000',
    'kubelet_runtime_operations_latency_microseconds{operation_type="list_podsandbox",quantile="0.9"} 120000',
    'kubelet_runtime_operations_latency_microseconds{operation_type="list_podsandbox",quantile="0.99"} 2.5e+06',
    `kubelet_runtime_operations_latency_microseconds_sum{operation_type="list_podsandbox"} ${9e9 + k * 300e6}`,
    `kubelet_runtime_operations_latency_microseconds_count{operation_type="list_podsandbox"} ${90000 + k * 1200}`,
    'kubelet_runtime_operations_latency_microseconds{operation_type="version",quantile="0.5"} NaN',
    'kubelet_runtime_operations_latency_microseconds{operation_type="version",quantile="0.9"} NaN',
    'kubelet_runtime_operations_latency_microseconds{operation_type="version",quantile="0.99"} NaN',
    'kubelet_runtime_operations_latency_microseconds_sum{operation_type="version"} 2.1e+06',
    'kubelet_runtime_operations_latency_microseconds_count{operation_type="version"} 3000',
    '# HELP kubelet_running_pod_count Number of pods currently running',
    '# TYPE kubelet_running_pod_count gauge',
    'kubelet_running_pod_count 43',
    '',
  ].join('\n');
}
