// Issue 25: `plegscope alerts` against Debian's promtool (scripts/install-test-deps.sh). The rules are printed by the
// real binary, checked with `promtool check rules` in both formats, and unit-tested with `promtool test rules`: kubelets
// scraped every 15 s for 30 min (synthetic series, one test group per story), each alert asked at chosen times. The
// behaviour tests drop the annotations (promtool compares them whole); one test renders them (the analyze command).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { cli } from '../helpers/cli.js';

const SCRAPE = 15;
const SPAN = 30 * 60;
const ALERTS = ['KubeletPLEGNotHealthy', 'KubeletPLEGRelistStopped', 'KubeletPLEGRelistSlow', 'KubeletRuntimeOperationsFailing', 'KubeletRuntimeOperationsSlow', 'KubeletRestarted'];

type V = number | 'stale' | null;
interface Series { series: string; values: string }
type Rules = { groups: Array<{ name: string; rules: Array<Record<string, unknown>> }> };

let dir: string;

function promtool(args: string[]): { code: number; out: string } {
  const r = spawnSync('promtool', args, { cwd: dir, encoding: 'utf8' });
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

beforeAll(() => {
  if (spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status !== 0) throw new Error('promtool is needed: run scripts/install-test-deps.sh (Debian package "prometheus")');
  dir = mkdtempSync(join(tmpdir(), 'plegscope-alerts-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `plegscope alerts ARGS`, parsed. */
function alerts(args: string[] = []): { text: string; doc: Record<string, unknown> } {
  const r = cli(['alerts', ...args]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return { text: r.stdout, doc: yaml.load(r.stdout) as Record<string, unknown> };
}

const values = (vs: V[]): string => vs.map((v) => (v === null ? '_' : v === 'stale' ? 'stale' : String(v))).join(' ');
/** One value per scrape, t = 0, 15, …, 30 min. */
const over = (f: (t: number) => V): string => values(Array.from({ length: SPAN / SCRAPE + 1 }, (_, i) => f(i * SCRAPE)));

interface Kubelet {
  node: string;
  /** A hard stall from this second on: no relist finishes, the gauge and the relist series freeze. */
  stallFrom?: number;
  /** Every relist takes this long (slow but alive). */
  relistSeconds?: number;
  /** EventedPLEG gate on: the gauge is "now" at every scrape, the generic relist runs every 300 s. */
  evented?: boolean;
  /** With evented: no relist finishes from this second on (the gauge still moves). */
  eventedStallFrom?: number;
  /** Down for a minute from this second, then a new process (counters from 0, gauge 0 until its first check). */
  restartAt?: number;
  /** The runtime hangs from this second on: list_podsandbox calls time out after 2 min. */
  hungRuntimeFrom?: number;
  /** A 1.13 kubelet: microsecond summaries and the old names, no gauge. */
  old?: boolean;
}

/** The series one kubelet's /metrics gives, as promtool input. */
function kubelet(k: Kubelet): Series[] {
  const ip = `10.0.0.${k.node.replace(/\D/g, '') || '9'}`;
  const target = `job="kubelet",instance="${ip}:10250",node="${k.node}"`;
  const s = (name: string, f: (t: number) => V, extra = ''): Series => ({ series: `${name}{${target}${extra ? `,${extra}` : ''}}`, values: over(f) });
  const down = (t: number): boolean => k.restartAt !== undefined && t >= k.restartAt && t < k.restartAt + 60;
  // Seconds since the process started (the restart resets every counter).
  const since = (t: number): number => (k.restartAt !== undefined && t >= k.restartAt + 60 ? t - (k.restartAt + 60) : t + 3600);
  const live = (f: (t: number) => number) => (t: number): V => (down(t) ? 'stale' : f(t));
  const frozenAt = (t: number): number => (k.stallFrom !== undefined && t > k.stallFrom ? k.stallFrom : k.evented && k.eventedStallFrom !== undefined && t > k.eventedStallFrom ? k.eventedStallFrom : t);
  const period = k.evented ? 300 : (k.relistSeconds ?? 0) + 1;
  const relists = (t: number): number => Math.floor(since(frozenAt(t)) / period);
  const lastSeen = (t: number): number => {
    if (k.evented) return t; // EventedPLEG's Healthy() sets it to now.
    if (k.restartAt !== undefined && t === k.restartAt + 60) return 0; // not checked yet
    const at = frozenAt(t);
    return at - (at % period) - (k.relistSeconds ?? 0);
  };
  const out: Series[] = [
    { series: `up{${target}}`, values: over((t) => (down(t) ? 0 : 1)) },
    s('process_start_time_seconds', live((t) => (k.restartAt !== undefined && t >= k.restartAt + 60 ? k.restartAt + 60 : 50))),
  ];
  if (k.old) {
    out.push(s('kubelet_pleg_relist_latency_microseconds_count', live(relists)));
    out.push(s('kubelet_pleg_relist_latency_microseconds', live(() => (k.relistSeconds ?? 0.02) * 1e6), 'quantile="0.99"'));
  } else {
    out.push(s('kubelet_pleg_last_seen_seconds', live(lastSeen)));
    out.push(s('kubelet_pleg_relist_duration_seconds_count', live(relists)));
    const slow = (k.relistSeconds ?? 0) > 10;
    for (const le of ['0.1', '1', '10', '+Inf']) out.push(s('kubelet_pleg_relist_duration_seconds_bucket', live((t) => (slow && le !== '+Inf' ? 0 : relists(t))), `le="${le}"`));
    for (const name of k.evented ? ['kubelet_evented_pleg_connection_success_count', 'kubelet_evented_pleg_connection_latency_seconds_count'] : []) {
      out.push(s(name, live((t) => (name.endsWith('success_count') ? 1 : Math.floor(t / 10)))));
    }
    // Registered at 0 on every 1.27+ kubelet, gate on or off.
    out.push(s('kubelet_evented_pleg_connection_error_count', live(() => 0)));
    if (!k.evented) out.push(s('kubelet_evented_pleg_connection_success_count', live(() => 0)));
  }
  // CRI calls: list_podsandbox once a second (timing out every 2 min once the runtime hangs), container_status with an
  // occasional NotFound (a removed container).
  const calls = k.old ? 'kubelet_runtime_operations' : 'kubelet_runtime_operations_total';
  const errors = k.old ? 'kubelet_runtime_operations_errors' : 'kubelet_runtime_operations_errors_total';
  const hung = (t: number): number => (k.hungRuntimeFrom !== undefined && t >= k.hungRuntimeFrom ? Math.floor((t - k.hungRuntimeFrom) / 120) : 0);
  const healthyUntil = (t: number): number => (k.hungRuntimeFrom !== undefined ? Math.min(t, k.hungRuntimeFrom) : t);
  out.push(s(calls, live((t) => since(healthyUntil(t)) + hung(t)), 'operation_type="list_podsandbox"'));
  out.push(s(errors, live(hung), 'operation_type="list_podsandbox"'));
  out.push(s(calls, live((t) => Math.floor(since(t) / 2)), 'operation_type="container_status"'));
  out.push(s(errors, live((t) => (t > 900 ? 1 : 0)), 'operation_type="container_status"'));
  if (!k.old) {
    for (const le of ['0.0125', '47.6837158203125', '119.20928955078125', '298.0232238769531', '+Inf']) {
      const fast = le === '0.0125' || le === '47.6837158203125' || le === '119.20928955078125';
      out.push(s('kubelet_runtime_operations_duration_seconds_bucket', live((t) => since(healthyUntil(t)) + (fast ? 0 : hung(t))), `operation_type="list_podsandbox",le="${le}"`));
    }
  }
  return out;
}

interface Expect { at: string; firing: Record<string, Array<Record<string, string>>> }

/** A promtool test file for one story: every alert asked at every time (absent from `firing`: expected silent). */
function unitTest(rulesFile: string, series: Series[], checks: Expect[]): string {
  const alertTests = checks.flatMap((c) => ALERTS.map((alertname) => ({
    eval_time: c.at,
    alertname,
    exp_alerts: (c.firing[alertname] ?? []).map((labels) => ({ exp_labels: labels })),
  })));
  return yaml.dump({ rule_files: [rulesFile], evaluation_interval: '15s', tests: [{ interval: '15s', input_series: series, alert_rule_test: alertTests }] }, { lineWidth: -1 });
}

function run(name: string, rulesFile: string, series: Series[], checks: Expect[]): void {
  writeFileSync(join(dir, `${name}.test.yaml`), unitTest(rulesFile, series, checks));
  const r = promtool(['test', 'rules', `${name}.test.yaml`]);
  if (r.code !== 0) throw new Error(`promtool test rules (${name}) failed:\n${r.out.slice(0, 6000)}`);
}

const who = (node: string) => ({ job: 'kubelet', instance: `10.0.0.${node.replace(/\D/g, '')}:10250`, node });
const stuck = (node: string) => ({ ...who(node), severity: 'critical' });

describe('plegscope alerts: the rules files', () => {
  it('the default rules file passes promtool check rules', () => {
    const { text } = alerts();
    writeFileSync(join(dir, 'rules.yaml'), text);
    const r = promtool(['check', 'rules', 'rules.yaml']);
    expect(r.out).toContain('SUCCESS: 6 rules found');
    expect(r.code).toBe(0);
  });

  it('a PrometheusRule whose spec passes promtool check rules, with --selector in every selector', () => {
    const { doc } = alerts(['--format', 'prometheusrule', '--namespace', 'monitoring', '--selector', 'job="kubelet", metrics_path="/metrics"']);
    expect(doc['apiVersion']).toBe('monitoring.coreos.com/v1');
    expect(doc['kind']).toBe('PrometheusRule');
    expect(doc['metadata']).toMatchObject({ name: 'plegscope-pleg', namespace: 'monitoring' });
    const spec = doc['spec'] as Rules;
    writeFileSync(join(dir, 'spec.yaml'), yaml.dump(spec, { lineWidth: -1 }));
    const r = promtool(['check', 'rules', 'spec.yaml']);
    expect(r.out).toContain('SUCCESS: 6 rules found');
    expect(r.code).toBe(0);
    // Every metric selector carries the matchers (a bare name or a {__name__=~…} alike).
    for (const rule of spec.groups[0]!.rules) {
      const expr = rule['expr'] as string;
      // Metric names outside strings (not in a __name__ regex, not a label_replace value).
      const selectors = [...expr.matchAll(/(?<!["|])\b(up|process_start_time_seconds|kubelet_[a-z_]+)\b(\{[^}]*\})?/g)];
      expect(selectors.length).toBeGreaterThan(0);
      for (const m of selectors) expect(m[2] ?? '', `${rule['alert']}: ${m[0]}`).toContain('job="kubelet", metrics_path="/metrics"');
      for (const m of expr.matchAll(/\{__name__=~[^}]*\}/g)) expect(m[0]).toContain('job="kubelet", metrics_path="/metrics"');
    }
  });

  it('each alert has a severity, a summary, a description, a runbook anchor and the analyze command', () => {
    const { doc } = alerts(['--runbook-url', 'https://runbooks.example/pleg.md']);
    const rules = (doc as unknown as Rules).groups[0]!.rules;
    expect(rules.map((r) => r['alert'])).toEqual(ALERTS);
    const runbook = readFileSync(join(__dirname, '..', '..', 'docs', 'runbook.md'), 'utf8');
    for (const r of rules) {
      const a = r['annotations'] as Record<string, string>;
      expect(['critical', 'warning', 'info']).toContain((r['labels'] as Record<string, string>)['severity']);
      expect(a['summary']).toBeTruthy();
      expect(a['description']).toBeTruthy();
      const anchor = `${r['alert']}`.toLowerCase();
      expect(a['runbook_url']).toBe(`https://runbooks.example/pleg.md#${anchor}`);
      expect(runbook).toMatch(new RegExp(`^## ${r['alert']}$`, 'm'));
      expect(a['plegscope']).toMatch(/^plegscope analyze --prometheus \{\{ \$externalURL \}\} --node .* --since .* --until .*$/);
    }
  });

  it('usage mistakes are one line, exit 2', () => {
    for (const args of [['--threshold', '3 minutes'], ['--selector', 'job=kubelet'], ['--selector', 'up{job="a"} or vector(1)'], ['--format', 'yaml'], ['--namespace', 'x']]) {
      const r = cli(['alerts', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
    }
  });
});

describe('plegscope alerts: promtool test rules', () => {
  let rules: string;
  beforeAll(() => {
    // Annotations dropped: promtool compares them whole; their rendering is tested below.
    const doc = alerts().doc as unknown as Rules;
    for (const r of doc.groups[0]!.rules) delete r['annotations'];
    rules = 'behaviour.rules.yaml';
    writeFileSync(join(dir, rules), yaml.dump(doc, { lineWidth: -1 }));
  });

  it('a frozen last-seen gauge (hard stall from 10:00) fires KubeletPLEGNotHealthy and KubeletPLEGRelistStopped within threshold + for', () => {
    run('frozen-gauge', rules, kubelet({ node: 'worker-1', stallFrom: 600 }), [
      { at: '9m', firing: {} },
      // 3 min after the last relist: not yet (the threshold is "more than 3 min"; then `for: 1m`).
      { at: '13m30s', firing: {} },
      // threshold 3m + for 1m + a scrape and an evaluation.
      { at: '14m30s', firing: { KubeletPLEGNotHealthy: [stuck('worker-1')], KubeletPLEGRelistStopped: [stuck('worker-1')] } },
      // Still stalled 20 min on; the frozen histogram never makes it "slow".
      { at: '30m', firing: { KubeletPLEGNotHealthy: [stuck('worker-1')], KubeletPLEGRelistStopped: [stuck('worker-1')] } },
    ]);
  });

  it('a frozen relist count on a 1.13 kubelet (no gauge) fires KubeletPLEGRelistStopped within threshold + for', () => {
    run('frozen-count', rules, kubelet({ node: 'worker-2', stallFrom: 600, old: true }), [
      { at: '13m30s', firing: {} },
      { at: '14m30s', firing: { KubeletPLEGRelistStopped: [stuck('worker-2')] } },
    ]);
  });

  it('slow relists that still finish (12 s each) fire KubeletPLEGRelistSlow only', () => {
    const slow = { ...who('worker-3'), severity: 'warning' };
    run('slow-alive', rules, kubelet({ node: 'worker-3', relistSeconds: 12 }), [
      { at: '10m', firing: { KubeletPLEGRelistSlow: [slow] } },
      { at: '30m', firing: { KubeletPLEGRelistSlow: [slow] } },
    ]);
  });

  it('a 1.13 kubelet\'s slow relists (its summary\'s p99 at 12 s) fire KubeletPLEGRelistSlow only', () => {
    run('slow-alive-old', rules, kubelet({ node: 'worker-9', relistSeconds: 12, old: true }), [
      { at: '10m', firing: { KubeletPLEGRelistSlow: [{ ...who('worker-9'), severity: 'warning' }] } },
    ]);
  });

  it('a healthy kubelet (an occasional container_status error) fires nothing', () => {
    run('healthy', rules, kubelet({ node: 'worker-4' }), ['5m', '12m', '20m', '30m'].map((at) => ({ at, firing: {} })));
  });

  it('a kubelet restart fires KubeletRestarted and nothing else (gauge at 0 before the first check, counters reset)', () => {
    const restarted = { ...who('worker-5'), severity: 'info' };
    run('restart', rules, kubelet({ node: 'worker-5', restartAt: 600 }), [
      { at: '10m30s', firing: {} },
      { at: '11m15s', firing: { KubeletRestarted: [restarted] } },
      { at: '16m', firing: { KubeletRestarted: [restarted] } },
      { at: '27m', firing: {} },
    ]);
  });

  it('an Evented PLEG node (gauge moving, a relist every 5 min) fires nothing', () => {
    run('evented', rules, kubelet({ node: 'worker-6', evented: true }), ['4m', '8m', '12m', '14m', '19m', '24m', '29m', '30m'].map((at) => ({ at, firing: {} })));
  });

  it('an Evented PLEG node whose relists stop while the gauge moves fires KubeletPLEGRelistStopped after 10 min + for', () => {
    // Last relist at 10:00 (a multiple of 300 s); the generic PLEG's threshold there is 10 min.
    run('evented-stall', rules, kubelet({ node: 'worker-7', evented: true, eventedStallFrom: 600 }), [
      { at: '19m', firing: {} },
      { at: '21m30s', firing: { KubeletPLEGRelistStopped: [stuck('worker-7')] } },
    ]);
  });

  it('a hung runtime (list_podsandbox timing out every 2 min) fires KubeletRuntimeOperationsFailing and KubeletRuntimeOperationsSlow by operation', () => {
    const op = { ...who('worker-8'), operation_type: 'list_podsandbox', severity: 'warning' };
    run('hung-runtime', rules, kubelet({ node: 'worker-8', hungRuntimeFrom: 300 }), [
      { at: '4m', firing: {} },
      // 10 min into the hang: every list_podsandbox call of the last 10 min failed.
      { at: '20m', firing: { KubeletRuntimeOperationsFailing: [{ ...op, family: 'kubelet_runtime_operations' }], KubeletRuntimeOperationsSlow: [op] } },
    ]);
  });

  it('renders the annotations: the node, the age and the analyze command for the stall\'s window', () => {
    const doc = alerts(['--prometheus-url', 'http://prometheus.example:9090', '--runbook-url', 'https://runbooks.example/pleg.md']).doc as unknown as Rules;
    writeFileSync(join(dir, 'annotated.rules.yaml'), yaml.dump(doc, { lineWidth: -1 }));
    const rule = doc.groups[0]!.rules.find((r) => r['alert'] === 'KubeletPLEGNotHealthy')!;
    const description = (rule['annotations'] as Record<string, string>)['description']!.replace('{{ $value | humanizeDuration }}', '4m 30s');
    const test = {
      rule_files: ['annotated.rules.yaml'],
      evaluation_interval: '15s',
      tests: [{
        interval: '15s',
        input_series: kubelet({ node: 'worker-1', stallFrom: 600 }),
        alert_rule_test: [{
          eval_time: '14m30s',
          alertname: 'KubeletPLEGNotHealthy',
          exp_alerts: [{
            exp_labels: stuck('worker-1'),
            exp_annotations: {
              summary: 'PLEG on worker-1 last seen active 4m 30s ago',
              description,
              runbook_url: 'https://runbooks.example/pleg.md#kubeletplegnothealthy',
              // Last relist at 00:10:00 (epoch), minus 30 min; the evaluation plus 30 min.
              plegscope: 'plegscope analyze --prometheus http://prometheus.example:9090 --node worker-1 --since 1969-12-31T23:40:00Z --until 1970-01-01T00:44:30Z',
            },
          }],
        }],
      }],
    };
    writeFileSync(join(dir, 'annotated.test.yaml'), yaml.dump(test, { lineWidth: -1 }));
    const r = promtool(['test', 'rules', 'annotated.test.yaml']);
    expect(r.out).toContain('SUCCESS');
    expect(r.code).toBe(0);
  });
});
