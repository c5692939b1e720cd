// Numbers a user can check (issue 14): inputs built the way an SRE builds them (files in a folder, plegscope run as a
// command), and every count a finding states checked against grep.
import { execSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Analysis, Finding } from '../src/contract/analysis.js';
import { cli } from './helpers/cli.js';
import { at, jl, kl, lines, skipLines, syncLoopEvent } from './helpers/scenario.js';

const FIX = join(__dirname, '..', 'fixtures');
const tmp = mkdtempSync(join(tmpdir(), 'plegscope-numbers-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const DE = 'rpc error: code = DeadlineExceeded desc = context deadline exceeded';

function folder(name: string, files: Record<string, string>): string {
  const d = join(tmp, name);
  execSync(`mkdir -p ${d}`);
  for (const [f, text] of Object.entries(files)) writeFileSync(join(d, f), text);
  return d;
}

function analysisOf(dir: string, extra: string[] = []): Analysis {
  const r = cli(['analyze', dir, '--format', 'json', ...extra]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Analysis;
}

/** Runs every grep a finding prints in the folder it analyzed and compares it with the count it states. */
function checkGreps(dir: string, f: Finding): number {
  let n = 0;
  for (const c of f.checks ?? []) {
    const out = execSync(`${c.grep} || true`, { cwd: dir, encoding: 'utf8', shell: '/bin/sh' }).trim().split('\n');
    // One file: the count; several: `file:count` per file.
    const total = out.reduce((s, l) => s + Number(l.split(':').pop()), 0);
    expect(total, `${f.ruleId}: ${c.grep}`).toBe(c.total);
    if (c.window === null) expect(c.count).toBe(c.total);
    expect(f.summary, `${f.ruleId} states ${c.what}`).toContain(String(c.count));
    n++;
  }
  return n;
}

describe('counts match grep', () => {
  it('the sample: every count a finding states is what its grep finds (30 timed-out calls, not 53; 153 runtime-down lines, not 24)', () => {
    const dir = join(FIX, 'sample-incident');
    const a = analysisOf(dir);
    const f = a.nodes[0]!.findings.find((x) => x.ruleId === 'runtime-hung-lists')!;
    expect(checkGreps(dir, f)).toBeGreaterThanOrEqual(4);
    expect(f.summary).toContain('30 CRI calls timed out');
    expect(f.summary).toContain('153 lines saying the container runtime is down');
    expect(f.summary).toContain('2024-03-11 10:04:12 → 10:22:27 +00:00');
    expect(a.nodes[0]!.operations.find((o) => o.operation === 'unknown')).toBeUndefined();
  });

  it('every finding of every real incident: its greps find what it counts', () => {
    let checked = 0;
    for (const c of ['kubermatic-mc-989-runc-rc93-sandbox-stop-timeout', 'k8s-pr103732-event-channel-full-on-restart', 'k8s-108049-leaked-sandboxes-grpc-limit-1.22', 'flatcar-294-dockerd-hung-task-sync-inodes', 'containerd-10583-updatecontainerresources-lock-blocks-cri']) {
      const dir = join(FIX, 'incidents', c);
      for (const n of analysisOf(dir).nodes) for (const f of n.findings) checked += checkGreps(dir, f);
    }
    expect(checked).toBeGreaterThanOrEqual(4);
  });

  it('one refused call is one line, though it is both a "runtime down" and an Unavailable error', () => {
    const dir = join(FIX, 'corpus', 'containerd-restart');
    const n = analysisOf(dir, ['--year', '2024']).nodes[0]!;
    const lines = Number(execSync("grep -cE 'code = Unavailable|connection refused' journal.log", { cwd: dir, encoding: 'utf8' }).trim());
    expect(lines).toBe(2);
    expect(n.verdict.primaryCause).toBe('runtime_restart');
    expect(n.findings.find((f) => f.ruleId === 'runtime-restarted')!.summary).toContain(`${lines} lines where a call found the runtime unreachable`);
  });

  it('one OOM kill is one kill, though the kernel tells it in two lines', () => {
    const dir = folder('oom', {
      'kubelet.log': lines([...skipLines(at('10:00:00'), at('10:06:00')), syncLoopEvent(at('10:06:03'))]),
      'kernel.log': lines([
        jl(at('10:00:30'), 'kernel', 'dockerd invoked oom-killer: gfp_mask=0x6200ca(GFP_HIGHUSER_MOVABLE), order=0, oom_score_adj=-999'),
        jl(at('10:00:30'), 'kernel', 'oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/system.slice/containerd.service,task=containerd,pid=912,uid=0'),
        jl(at('10:00:30'), 'kernel', 'Out of memory: Killed process 912 (containerd) total-vm:4201312kB, anon-rss:1812000kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4212kB oom_score_adj:-999'),
      ]),
    });
    const f = analysisOf(dir).nodes[0]!.findings.find((x) => x.cause === 'memory_pressure')!;
    expect(f.summary).toContain('ran 1 time');
    checkGreps(dir, f);
  });
});

describe('only CRI calls are CRI timeouts', () => {
  it('a hung CSI driver is not the runtime: no "did not answer the relist", no containerd restart', () => {
    const L = at('10:00:00');
    const csi = (t: number) => kl(t, 'E', 'nestedpendingoperations.go:348', `"MountVolume.SetUp failed for volume \\"pvc-1\\" (UniqueName: \\"kubernetes.io/csi/ebs.csi.aws.com^vol-0abc\\") pod \\"db-0\\" (UID: \\"u1\\") : rpc error: code = DeadlineExceeded desc = context deadline exceeded"`);
    const dir = folder('csi', { 'kubelet.log': lines([...skipLines(L, L + 300_000), csi(L + 30_000), csi(L + 150_000), csi(L + 270_000)]) });
    const n = analysisOf(dir).nodes[0]!;
    expect(n.verdict.plegUnhealthy).toBe(true);
    expect(n.verdict.primaryCause).not.toBe('runtime_timeout');
    expect(n.findings.map((f) => f.ruleId)).not.toContain('runtime-hung-lists');
    for (const f of n.findings) expect(f.summary).not.toMatch(/\b0 (?:DeadlineExceeded|CRI call)/);
    expect(n.operations).toEqual([]);
  });

  it('negative: a CRI list call that timed out still is', () => {
    const L = at('10:00:00');
    const dir = folder('cri', { 'kubelet.log': lines([...skipLines(L, L + 300_000), kl(L + 120_000, 'E', 'log.go:32', `"ListPodSandbox with filter from runtime service failed" err="${DE}" filter="nil"`)]) });
    expect(analysisOf(dir).nodes[0]!.verdict.primaryCause).toBe('runtime_timeout');
  });
});

describe('times that are in the input', () => {
  it('a stall whose unhealthy lines just stop ended between the last of them and the next line; its end time is marked estimated', () => {
    const L = at('03:10:00');
    const ls = [...skipLines(L, at('03:19:06')), syncLoopEvent(at('03:20:30')), kl(at('03:40:00'), 'I', 'kubelet.go:1', '"x"')];
    const dir = folder('end', { 'kubelet.log': lines(ls) });
    const out = analysisOf(dir, ['--year', '2024']);
    const s = out.nodes[0]!.stalls[0]!;
    const lastUnhealthy = ls.filter((l) => l.includes('pleg was last seen')).pop()!;
    const last = Date.parse(`2024-03-11T${/ (\d\d:\d\d:\d\d\.\d{3})/.exec(lastUnhealthy)![1]}Z`);
    // Both ends of the range are lines of the input; the estimate inside it (the sync loop repeats its complaint
    // within 5 s while unhealthy) is what endedAt holds, and the range says it is one.
    expect(s.endedBetween).toEqual({ from: new Date(last).toISOString(), to: '2024-03-11T03:20:30.000Z' });
    expect(s.endedAt).toBe(new Date(last + 5000).toISOString());
    expect(s.endedBy).toBe('recovered');
    const text = cli(['analyze', dir, '--year', '2024']).stdout.replace(/\s+/g, ' ');
    expect(text).toContain(`ended between ${new Date(last).toISOString().slice(11, 19)} and 03:20:30`);
  });

  it('the runtime\'s sub-second time wins over the journal\'s whole second, so merged lines sort right', () => {
    const dir = folder('subsec', { 'containerd.log': 'Mar 11 10:12:44 worker-3 containerd[901]: time="2024-03-11T10:12:44.918307051Z" level=error msg="get state for 3f1c0a" error="context deadline exceeded: unknown"\n' });
    const f = analysisOf(dir, ['--year', '2024']).nodes[0]!.findings[0]!;
    expect(f.evidence[0]!.ts).toBe('2024-03-11T10:12:44.918Z');
  });
});
