// The CLI end to end, spawned as a user runs it.
import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync, symlinkSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from './helpers/cli.js';
import { at, kl, lines, skipLines, syncLoopEvent } from './helpers/scenario.js';
import type { Analysis } from '../src/contract/analysis.js';
import { TOOL_VERSION } from '../src/version.js';

const EXP_BUCKETS = [0.005, 0.0125, 0.03125, 0.078125, 0.1953125, 0.48828125, 1.220703125, 3.0517578125, 7.62939453125, 19.073486328125, 47.6837158203125, 119.20928955078125, 298.0232238769531, 745.0580596923828];
// list_podsandbox observations added between the two snapshots, per bucket (not cumulative).
const DELTA = [100, 50, 10, 10, 0, 0, 0, 0, 0, 0, 0, 5, 5, 0, 0];
const BASE = [4000, 300, 100, 50, 20, 10, 5, 0, 0, 0, 0, 0, 0, 0, 0];

function metricsText(tsMs: number, withDelta: boolean, relistCount: number, errors: number): string {
  const out: string[] = [
    '# HELP kubelet_runtime_operations_duration_seconds [ALPHA] Duration in seconds of runtime operations. Broken down by operation type.',
    '# TYPE kubelet_runtime_operations_duration_seconds histogram',
  ];
  let cum = 0;
  let sum = 0;
  EXP_BUCKETS.forEach((le, i) => {
    cum += BASE[i]! + (withDelta ? DELTA[i]! : 0);
    out.push(`kubelet_runtime_operations_duration_seconds_bucket{operation_type="list_podsandbox",le="${le}"} ${cum} ${tsMs}`);
  });
  cum += BASE[14]! + (withDelta ? DELTA[14]! : 0);
  out.push(`kubelet_runtime_operations_duration_seconds_bucket{operation_type="list_podsandbox",le="+Inf"} ${cum} ${tsMs}`);
  sum = cum * 0.01;
  out.push(`kubelet_runtime_operations_duration_seconds_sum{operation_type="list_podsandbox"} ${sum} ${tsMs}`);
  out.push(`kubelet_runtime_operations_duration_seconds_count{operation_type="list_podsandbox"} ${cum} ${tsMs}`);
  out.push('# TYPE kubelet_runtime_operations_total counter', `kubelet_runtime_operations_total{operation_type="list_podsandbox"} ${cum} ${tsMs}`);
  out.push('# TYPE kubelet_runtime_operations_errors_total counter', `kubelet_runtime_operations_errors_total{operation_type="list_podsandbox"} ${errors} ${tsMs}`);
  out.push('# TYPE kubelet_pleg_relist_duration_seconds histogram');
  for (const le of [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]) out.push(`kubelet_pleg_relist_duration_seconds_bucket{le="${le}"} ${le < 0.05 ? relistCount - 10 : relistCount} ${tsMs}`);
  out.push(`kubelet_pleg_relist_duration_seconds_bucket{le="+Inf"} ${relistCount} ${tsMs}`, `kubelet_pleg_relist_duration_seconds_sum ${relistCount * 0.02} ${tsMs}`, `kubelet_pleg_relist_duration_seconds_count ${relistCount} ${tsMs}`);
  out.push('# TYPE kubelet_running_pods gauge', `kubelet_running_pods 43 ${tsMs}`);
  out.push('# TYPE kubelet_running_containers gauge', `kubelet_running_containers{container_state="running"} 97 ${tsMs}`, `kubelet_running_containers{container_state="exited"} 12 ${tsMs}`);
  out.push('# TYPE go_goroutines gauge', `go_goroutines 512 ${tsMs}`);
  return out.join('\n') + '\n';
}

const TRUE_LAST_RELIST = at('10:00:00.250');
const LAST_SKIP = at('10:14:00');
const DE = 'rpc error: code = DeadlineExceeded desc = context deadline exceeded';

function journal(): string {
  const o = { host: 'worker-7', pid: 2817 };
  const ls = [
    kl(at('09:00:00'), 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.28.3"', o),
    kl(at('09:00:01'), 'I', 'kuberuntime_manager.go:257', '"Container runtime initialized" containerRuntime="containerd" version="1.7.2" apiVersion="v1"', o),
    syncLoopEvent(at('09:59:59'), 'structured', o),
    ...skipLines(TRUE_LAST_RELIST, LAST_SKIP, 'structured', o),
    kl(at('10:03:01'), 'I', 'kubelet_node_status.go:669', '"Recording event message for node" node="worker-7" event="NodeNotReady"', o),
    syncLoopEvent(LAST_SKIP + 3000, 'structured', o),
    kl(LAST_SKIP + 9000, 'I', 'kubelet_node_status.go:669', '"Recording event message for node" node="worker-7" event="NodeReady"', o),
    kl(at('10:40:00'), 'I', 'prober.go:107', '"Probe failed" probeType="Readiness" pod="default/web-0"', o),
  ];
  for (let t = TRUE_LAST_RELIST + 120_000; t < LAST_SKIP; t += 120_000) {
    ls.push(kl(t, 'E', 'remote_runtime.go:277', `"ListPodSandbox with filter from runtime service failed" err="${DE}" filter="nil"`, o));
    ls.push(kl(t + 1, 'E', 'kuberuntime_sandbox.go:297', `"Failed to list pod sandboxes" err="${DE}"`, o));
    ls.push(kl(t + 2, 'E', 'generic.go:238', `"GenericPLEG: Unable to retrieve pods" err="${DE}"`, o));
  }
  return lines(ls);
}

/** PromQL histogram_quantile on cumulative buckets, written out independently of src/ for the oracle. */
function promQuantile(q: number, cum: Array<[number, number]>): number {
  const total = cum[cum.length - 1]![1];
  const rank = q * total;
  let i = cum.findIndex(([, c]) => c >= rank);
  if (cum[i]![0] === Infinity) return cum[cum.length - 2]![0];
  const [upper, count] = cum[i]!;
  const [lower, below] = i === 0 ? [0, 0] : cum[i - 1]!;
  return lower + (upper - lower) * ((rank - below) / (count - below));
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'plegscope-cli-'));
  const incident = join(dir, 'incident');
  mkdirSync(incident);
  writeFileSync(join(incident, 'kubelet.log'), journal());
  writeFileSync(join(incident, 'm1.prom'), metricsText(at('10:02:00'), false, 52000, 3));
  writeFileSync(join(incident, 'm2.prom'), metricsText(at('10:12:00'), true, 52000, 8));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('plegscope analyze (end to end)', () => {
  it('the 14-minute ListPodSandbox stall with two metric snapshots', () => {
    const r = cli(['analyze', join(dir, 'incident'), '--format', 'json', '--year', '2024', '--tz', 'UTC']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const a = JSON.parse(r.stdout) as Analysis;
    expect(a.schemaVersion).toBe(1);
    expect(a.nodes.map((n) => n.name)).toEqual(['worker-7']);
    const n = a.nodes[0]!;
    expect(n.stalls).toHaveLength(1);
    const s = n.stalls[0]!;
    expect(Math.abs(Date.parse(s.lastRelistAt) - TRUE_LAST_RELIST)).toBeLessThanOrEqual(2000);
    const ended = Date.parse(s.endedAt!);
    expect(ended).toBeGreaterThan(LAST_SKIP);
    expect(ended - LAST_SKIP).toBeLessThanOrEqual(15_000);
    expect(s.endedBy).toBe('recovered');
    expect(s.durationSeconds).toBeCloseTo((ended - Date.parse(s.lastRelistAt)) / 1000, 1);
    expect(s.nodeNotReady).toBe(true);
    expect(n.verdict).toMatchObject({ plegUnhealthy: true, primaryCause: 'runtime_timeout' });
    const op = n.operations.find((o) => o.operation === 'list_podsandbox')!;
    const cum: Array<[number, number]> = [];
    let c = 0;
    [...EXP_BUCKETS, Infinity].forEach((le, i) => { c += DELTA[i]!; cum.push([le, c]); });
    expect(op.count).toBe(180);
    expect(op.errors).toBe(5);
    expect(op.source).toBe('both');
    expect(op.p50Seconds).toBeCloseTo(promQuantile(0.5, cum), 9);
    expect(op.p90Seconds).toBeCloseTo(promQuantile(0.9, cum), 9);
    expect(op.p99Seconds).toBeCloseTo(promQuantile(0.99, cum), 9);
    expect(n.pods.running).toBe(43);
    expect(n.runtime).toBe('containerd');
    expect(n.kubeletVersion).toBe('v1.28.3');
    // Evidence names the file as given and a real line holding the text.
    const text = readFileSync(join(dir, 'incident', 'kubelet.log'), 'utf8').split('\n');
    for (const f of n.findings) for (const e of f.evidence) {
      if (e.file === 'kubelet.log') expect(text[e.line - 1]).toBe(e.text);
    }
  });

  it('JSON is deterministic apart from generatedAt; text report leads with the verdict, no colour off a TTY', () => {
    const a = cli(['analyze', join(dir, 'incident'), '--format', 'json', '--year', '2024']).stdout.replace(/"generatedAt": "[^"]+"/, '');
    const b = cli(['analyze', join(dir, 'incident'), '--format', 'json', '--year', '2024']).stdout.replace(/"generatedAt": "[^"]+"/, '');
    expect(a).toBe(b);
    const t = cli(['analyze', join(dir, 'incident'), '--year', '2024']);
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/worker-7\s+PLEG unhealthy — cause: runtime_timeout/);
    expect(t.stdout).not.toContain('\x1b[');
    const forced = cli(['analyze', join(dir, 'incident'), '--year', '2024'], { env: { FORCE_COLOR: '1' } });
    expect(forced.stdout).toContain('\x1b[');
    const noColor = cli(['analyze', join(dir, 'incident'), '--year', '2024'], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } });
    expect(noColor.stdout).not.toContain('\x1b[');
  });

  it('--fail-on: exit 1 at or above the level, 0 below; --output writes the file', () => {
    expect(cli(['analyze', join(dir, 'incident'), '--fail-on', 'critical', '--year', '2024']).code).toBe(1);
    expect(cli(['analyze', join(dir, 'incident'), '--fail-on', 'stall', '--year', '2024']).code).toBe(1);
    const out = join(dir, 'r.json');
    const r = cli(['analyze', join(dir, 'incident', 'm1.prom'), '--fail-on', 'stall', '--format', 'json', '-o', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect((JSON.parse(readFileSync(out, 'utf8')) as Analysis).nodes).toHaveLength(1);
  });

  it('stdin and single .gz files', () => {
    const viaStdin = cli(['analyze', '-', '--format', 'json', '--year', '2024'], { input: journal() });
    expect(viaStdin.code).toBe(0);
    expect((JSON.parse(viaStdin.stdout) as Analysis).nodes[0]!.stalls).toHaveLength(1);
    const gz = join(dir, 'kubelet.log.gz');
    writeFileSync(gz, gzipSync(journal()));
    const viaGz = cli(['analyze', gz, '--format', 'json', '--year', '2024']);
    expect((JSON.parse(viaGz.stdout) as Analysis).nodes[0]!.verdict.primaryCause).toBe('runtime_timeout');
  });
});

describe('bad input', () => {
  it('a named file that is missing, empty, binary or a truncated .gz: exit 2, one line naming it', () => {
    const empty = join(dir, 'empty.log');
    writeFileSync(empty, '');
    const bin = join(dir, 'blob.bin');
    writeFileSync(bin, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)));
    const trunc = join(dir, 'cut.log.gz');
    const full = gzipSync(journal());
    writeFileSync(trunc, full.subarray(0, Math.floor(full.length / 2)));
    for (const p of [join(dir, 'nope.log'), empty, bin, trunc]) {
      const r = cli(['analyze', p]);
      expect(r.code, p).toBe(2);
      const errLines = r.stderr.trim().split('\n');
      expect(errLines, r.stderr).toHaveLength(1);
      expect(errLines[0]).toContain(p);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('inside a folder the same files are warnings and the rest is analyzed', () => {
    const f = join(dir, 'mixed');
    mkdirSync(f);
    writeFileSync(join(f, 'kubelet.log'), journal());
    writeFileSync(join(f, 'empty.log'), '');
    writeFileSync(join(f, 'blob.bin'), Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)));
    const full = gzipSync(journal());
    writeFileSync(join(f, 'cut.log.gz'), full.subarray(0, Math.floor(full.length / 2)));
    const r = cli(['analyze', f, '--format', 'json', '--year', '2024']);
    expect(r.code).toBe(0);
    const a = JSON.parse(r.stdout) as Analysis;
    expect(a.nodes[0]!.verdict.primaryCause).toBe('runtime_timeout');
    const files = a.warnings.map((w) => w.file);
    expect(files).toEqual(expect.arrayContaining(['empty.log', 'blob.bin', 'cut.log.gz']));
  });

  it('a symlink leading outside the named folder is not followed', () => {
    const outside = join(dir, 'outside.log');
    writeFileSync(outside, journal().replace(/worker-7/g, 'secret-host'));
    const f = join(dir, 'withlink');
    mkdirSync(f);
    writeFileSync(join(f, 'kubelet.log'), journal());
    symlinkSync(outside, join(f, 'escape.log'));
    const r = cli(['analyze', f, '--format', 'json', '--year', '2024']);
    expect(r.stdout).not.toContain('secret-host');
    const a = JSON.parse(r.stdout) as Analysis;
    expect(a.warnings.some((w) => w.file?.includes('escape.log') && /outside/.test(w.message))).toBe(true);
  });

  it('input with nothing to analyze (a text file that is no log, a folder of them) is unusable: exit 2', () => {
    const f = join(dir, 'notes');
    mkdirSync(f);
    writeFileSync(join(f, 'readme.txt'), 'just some notes\nabout nothing\n');
    for (const p of [join(f, 'readme.txt'), f]) {
      const r = cli(['analyze', p]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain('nothing to analyze');
    }
  });

  it('usage errors exit 2; --debug adds the stack; --help teaches', () => {
    expect(cli(['analyze']).code).toBe(2);
    expect(cli(['analyze', 'x', '--format', 'yaml']).code).toBe(2);
    expect(cli(['analyze', join(dir, 'incident'), '--tz', 'Mars/Base']).stderr).toMatch(/^plegscope: --tz: unknown time zone/);
    const h = cli(['analyze', '--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain('Exit codes');
    expect(cli(['--version']).stdout.trim()).toBe(TOOL_VERSION);
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };
    expect(TOOL_VERSION).toBe(pkg.version);
  });
});

describe('plegscope rules', () => {
  it('lists and shows the catalog', () => {
    const l = cli(['rules', 'list']);
    expect(l.code).toBe(0);
    expect(l.stdout).toContain('runtime-hung-lists');
    const s = cli(['rules', 'show', 'relist-deadlock']);
    expect(s.stdout).toContain('Remedy:');
    expect(s.stdout).toContain('goroutine.relistChanSend');
    expect(cli(['rules', 'show', 'nope']).code).toBe(2);
  });
  it('a bad rule pack fails with one line naming the rule and the field', () => {
    const p = join(dir, 'bad-pack.yaml');
    writeFileSync(p, 'rules:\n  - id: mine\n    cause: runtime_timeout\n    severity: high\n    title: t\n    base: 2\n    summary: s\n    remediation: r\n');
    const r = cli(['analyze', join(dir, 'incident'), '--rules', p]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`plegscope: ${p}: rule "mine": field "base" must be a number from 0 to 1`);
  });
});
