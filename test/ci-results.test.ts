// Issue 14 point 8: exit codes and CI results agree with the verdict. Inputs built as users build them (a kubelet
// journal excerpt, a folder with kubelet.log and containerd.log, metrics snapshots alone, a pasted fragment, a
// `kubectl describe node`), run through bin/plegscope: the verdict, the stall list, the text header, JUnit's
// `pleg-healthy` and `--fail-on stall` say the same on each; an `info` finding fails no CI run unless asked; a
// contradicted critical alternative at low confidence is "also considered", at a lower severity, and trips nothing.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Analysis, Finding, NodeReport } from '../src/contract/analysis.js';
import { cli } from './helpers/cli.js';
import { at, jl, kl, lines, skipLines, syncLoopEvent } from './helpers/scenario.js';

const tmp = mkdtempSync(join(tmpdir(), 'plegscope-ci-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const SAMPLE = join(__dirname, '..', 'fixtures', 'sample-incident');
const XSD = join(__dirname, 'report', 'junit.xsd');
const DE = 'rpc error: code = DeadlineExceeded desc = context deadline exceeded';

function folder(name: string, files: Record<string, string>): string {
  const d = join(tmp, name);
  mkdirSync(d, { recursive: true });
  for (const [f, text] of Object.entries(files)) writeFileSync(join(d, f), text);
  return d;
}

function analysisOf(path: string): Analysis {
  const r = cli(['analyze', path, '--format', 'json', '--year', '2024']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Analysis;
}

/** JUnit as a CI server gets it: well-formed (xmllint --noout), valid against the Jenkins/Ant schema. */
function junit(path: string, failOn?: string): { code: number; xml: string } {
  const r = cli(['analyze', path, '--format', 'junit', '--year', '2024', ...(failOn ? ['--fail-on', failOn] : [])]);
  expect(r.code === 0 || r.code === 1, r.stderr).toBe(true);
  const f = join(tmp, `junit-${Math.random().toString(36).slice(2)}.xml`);
  writeFileSync(f, r.stdout);
  for (const args of [['--noout', f], ['--noout', '--schema', XSD, f]]) {
    const v = spawnSync('xmllint', args, { encoding: 'utf8' });
    expect(v.status, `xmllint ${args.join(' ')}: ${v.stderr}`).toBe(0);
  }
  return { code: r.code, xml: r.stdout };
}

/** `suite:testcase` of every failed testcase. */
function failed(xml: string): string[] {
  const out: string[] = [];
  for (const suite of xml.split('<testsuite ').slice(1)) {
    const name = /^name="([^"]*)"/.exec(suite)?.[1];
    for (const m of suite.matchAll(/<testcase name="([^"]+)"[^/]*?>\s*<failure/g)) out.push(`${name}:${m[1]}`);
  }
  return out;
}

// --- The inputs -----------------------------------------------------------------------------------------------------

const L = at('10:02:00');
/** `journalctl -u kubelet > kubelet.log` around a 12-minute stall nothing explains. */
const journalExcerpt = (): string => folder('journal', {
  'kubelet.log': lines([
    kl(at('10:00:00'), 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.28.3"'),
    syncLoopEvent(at('10:01:00')),
    ...skipLines(L, L + 720_000),
    syncLoopEvent(L + 722_000),
    kl(at('10:20:00'), 'I', 'prober.go:107', '"Probe succeeded" probeType="Readiness" pod="default/web-0"'),
  ]),
});

/** A folder of the node's kubelet and containerd journals: the runtime hung, list calls timed out. */
const hungRuntime = (): string => {
  const ls = [kl(at('10:00:00'), 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.28.3"'), syncLoopEvent(at('10:01:00')), ...skipLines(L, L + 600_000), syncLoopEvent(L + 602_000)];
  for (let t = L + 60_000; t < L + 600_000; t += 60_000) {
    ls.push(kl(t, 'E', 'remote_runtime.go:294', `"ListPodSandbox with filter from runtime service failed" err="${DE}" filter="nil"`));
  }
  return folder('hung-runtime', {
    'kubelet.log': lines(ls),
    'containerd.log': lines([60_000, 240_000, 420_000].map((d) => jl(L + d, 'containerd[1021]', `time="2024-03-11T10:0${(2 + d / 60_000) % 10}:00.000000000Z" level=error msg="ListPodSandbox failed" error="context deadline exceeded"`))),
  });
};

/** The gap advice's metrics snapshots, alone: `kubectl get --raw …/metrics` twice, during the stall. */
const metricsAlone = (): string => {
  const d = folder('metrics', {});
  for (const f of ['metrics-20240311T101000Z.txt', 'metrics-20240311T102000Z.txt']) copyFileSync(join(SAMPLE, f), join(d, f));
  return d;
};

/** Two lines pasted into a ticket without their journal header: a stall with no time. */
const undated = (): string => folder('undated', {
  'pasted.txt': [
    'skipping pod synchronization - [PLEG is not healthy: pleg was last seen active 4m10.5s ago; threshold is 3m0s]',
    'skipping pod synchronization - [PLEG is not healthy: pleg was last seen active 4m15.5s ago; threshold is 3m0s]',
  ].join('\n') + '\n',
});

/** An excerpt with lines left out (`...`) after the stall: its end is not in the input. */
const endUnknown = (): string => folder('cut', {
  'kubelet.log': lines([syncLoopEvent(at('10:01:00')), ...skipLines(L, L + 300_000)]) + '...\n' +
    lines([kl(at('10:30:00'), 'I', 'prober.go:107', '"Probe succeeded" probeType="Readiness" pod="default/web-0"'), syncLoopEvent(at('10:30:05'))]),
});

/** `kubectl describe node node-b`: NotReady because PLEG is not healthy, the node named in the output. */
const describeNode = (): string => folder('describe', {
  'node-b-describe.txt': [
    'Name:               node-b',
    'Roles:              worker',
    'Conditions:',
    '  Type             Status  LastHeartbeatTime                 LastTransitionTime                Reason                       Message',
    '  ----             ------  -----------------                 ------------------                ------                       -------',
    '  MemoryPressure   False   Mon, 11 Mar 2024 10:12:49 +0000   Mon, 04 Mar 2024 08:00:00 +0000   KubeletHasSufficientMemory   kubelet has sufficient memory available',
    '  Ready            False   Mon, 11 Mar 2024 10:12:49 +0000   Mon, 11 Mar 2024 10:05:40 +0000   KubeletNotReady              PLEG is not healthy: pleg was last seen active 10m18.040734348s ago; threshold is 3m0s',
    'Addresses:',
    '  InternalIP:  10.0.3.17',
  ].join('\n') + '\n',
});

/** A journal of a healthy kubelet. */
const healthy = (): string => folder('healthy', {
  'kubelet.log': lines([syncLoopEvent(at('10:01:00')), kl(at('10:02:00'), 'I', 'prober.go:107', '"Probe succeeded" probeType="Readiness" pod="default/web-0"'), syncLoopEvent(at('10:05:00'))]),
});

describe('JUnit, the text header, --fail-on stall and the JSON verdict agree with the stalls (issue 14.8)', () => {
  const shapes: Array<[string, () => string, boolean]> = [
    ['a kubelet journal excerpt, stall of unknown cause', journalExcerpt, true],
    ['a folder with kubelet.log and containerd.log, the runtime hung', hungRuntime, true],
    ['metrics snapshots alone, taken during the stall', metricsAlone, true],
    ['a pasted fragment without times (undated stall)', undated, true],
    ['an excerpt with lines left out after the stall (its end unknown)', endUnknown, true],
    ['kubectl describe node: NotReady because PLEG is not healthy', describeNode, true],
    ['a healthy kubelet journal', healthy, false],
  ];
  for (const [what, build, stalled] of shapes) {
    it(`${what}: ${stalled ? 'unhealthy everywhere' : 'healthy everywhere'}`, () => {
      const dir = build();
      const a = analysisOf(dir);
      expect(a.nodes).toHaveLength(1);
      const n = a.nodes[0] as NodeReport;
      expect(n.stalls.length > 0, 'the stall list').toBe(stalled);
      expect(n.verdict.plegUnhealthy, 'the JSON verdict').toBe(stalled);
      const text = cli(['analyze', dir, '--year', '2024', '--no-color']).stdout;
      expect(text).toMatch(new RegExp(`^${n.name.replace(/\./g, '\\.')}  ${stalled ? 'PLEG unhealthy' : 'PLEG healthy'}`, 'm'));
      // pleg-healthy fails exactly when the node stalled, under every policy; and where its own output tells a stall.
      for (const level of [undefined, 'critical', 'stall']) {
        const j = junit(dir, level);
        expect(failed(j.xml).includes(`${n.name}:pleg-healthy`), `pleg-healthy, --fail-on ${level}`).toBe(stalled);
        expect(j.xml).not.toMatch(/<testcase name="pleg-healthy"[^>]*>\s*<system-out>/);
        if (level === 'stall') expect(j.code, '--fail-on stall').toBe(stalled ? 1 : 0);
      }
    });
  }
});

describe('an info finding on a healthy node fails no CI run unless asked (issue 14.8)', () => {
  // `journalctl -u kubelet` across a restart: "pleg has yet to be successful" once, then relists work.
  const dir = (): string => folder('restart', {
    'kubelet.log': lines([
      jl(at('10:00:00'), 'systemd[1]', 'Started kubelet: The Kubernetes Node Agent.', 'worker-3'),
      kl(at('10:00:00') + 500, 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.28.3"'),
      kl(at('10:00:01'), 'E', 'kubelet.go:2329', '"Skipping pod synchronization" err="[container runtime status check may not have completed yet, PLEG is not healthy: pleg has yet to be successful]"'),
      syncLoopEvent(at('10:00:03')),
      kl(at('10:05:00'), 'I', 'prober.go:107', '"Probe succeeded" probeType="Readiness" pod="default/web-0"'),
    ]),
  });

  it('without --fail-on: exit 0, and the JUnit file has no failure (the info finding is in system-out)', () => {
    const d = dir();
    const n = analysisOf(d).nodes[0] as NodeReport;
    expect(n.verdict.plegUnhealthy).toBe(false);
    expect(n.findings.map((f) => `${f.ruleId}:${f.severity}`)).toEqual(['startup-artefact:info']);
    const j = junit(d);
    expect(j.code).toBe(0);
    expect(failed(j.xml)).toEqual([]);
    expect(j.xml).toContain('<testsuites name="plegscope" tests="');
    expect(j.xml).toMatch(/ failures="0" errors="0" time="0">/);
    expect(j.xml).toMatch(/<testcase name="startup-artefact"[^>]*>\s*<system-out>Start-up/);
    expect(cli(['analyze', d, '--year', '2024']).code).toBe(0);
  });

  it('--fail-on info asks for it: exit 1, its testcase fails, pleg-healthy passes', () => {
    const j = junit(dir(), 'info');
    expect(j.code).toBe(1);
    expect(failed(j.xml)).toEqual(['worker-3:startup-artefact']);
  });
});

describe('a contradicted critical alternative at low confidence is "also considered" and trips nothing (issue 14.8)', () => {
  // The runtime was restarted under the kubelet: calls refused while it was away, "container runtime is down" with the
  // PLEG lines. The hung-runtime rule fires too (the runtime was reported down) but refused connections speak against a
  // hang: a critical rule at 0.34.
  const build = (): string => {
    const R = at('10:00:00');
    const refused = (t: number) => kl(t, 'E', 'remote_runtime.go:222', '"ListPodSandbox with filter from runtime service failed" err="rpc error: code = Unavailable desc = connection error: desc = \\"transport: Error while dialing dial unix /run/containerd/containerd.sock: connect: no such file or directory\\"" filter="nil"');
    return folder('containerd-restart', {
      'kubelet.log': lines([
        kl(at('09:50:00'), 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.28.3"'),
        syncLoopEvent(R),
        ...[2, 3, 4, 5, 6, 7].map((s) => refused(R + s * 1000)),
        ...skipLines(R, at('10:04:10'), 'structured', { runtimeDown: true }),
        syncLoopEvent(at('10:04:13')),
      ]),
      'containerd.log': lines([
        jl(at('10:00:01'), 'systemd[1]', 'Stopping containerd container runtime...'),
        jl(at('10:04:10'), 'containerd[7781]', 'time="2024-03-11T10:04:10.551274113Z" level=info msg="starting containerd" revision=7e5d31e version=1.6.28'),
        jl(at('10:04:11'), 'systemd[1]', 'Started containerd container runtime.'),
      ]),
    });
  };

  it('JSON keeps it in findings, last, marked considered, at a lower severity than its rule\'s', () => {
    const n = analysisOf(build()).nodes[0] as NodeReport;
    expect(n.verdict.primaryCause).toBe('runtime_restart');
    const alt = n.findings.find((f) => f.ruleId === 'runtime-hung-lists') as Finding;
    expect(alt.confidence).toBeLessThan(0.5);
    expect(alt.summary).toContain('Against: the runtime refused connections (down, not hung).');
    expect(alt).toMatchObject({ ruleSeverity: 'critical', severity: 'low', considered: true, explains: 'stall' });
    expect(n.findings.at(-1)).toBe(alt);
    const primary = n.findings[0] as Finding;
    expect(primary).toMatchObject({ ruleId: 'runtime-restarted', severity: 'high', ruleSeverity: 'high' });
    expect(primary.considered).toBeUndefined();
  });

  it('--fail-on critical exits 0 and fails no rule in JUnit; --fail-on high still exits 1 on the established cause', () => {
    const d = build();
    const crit = junit(d, 'critical');
    expect(crit.code).toBe(0);
    expect(failed(crit.xml)).toEqual(['worker-3:pleg-healthy']);
    expect(crit.xml).toMatch(/<testcase name="runtime-hung-lists"[^>]*>\s*<system-out>[^<]*runtime_timeout · low \(rule: critical\) · confidence 0\.34\nAlso considered/);
    expect(cli(['analyze', d, '--year', '2024', '--fail-on', 'critical']).code).toBe(0);
    const high = junit(d, 'high');
    expect(high.code).toBe(1);
    expect(failed(high.xml)).toEqual(['worker-3:pleg-healthy', 'worker-3:runtime-restarted']);
    // Even --fail-on info never counts a weak alternative.
    expect(failed(junit(d, 'info').xml)).not.toContain('worker-3:runtime-hung-lists');
    // No policy: the verdict and the established cause, not the alternative.
    expect(failed(junit(d).xml)).toEqual(['worker-3:pleg-healthy', 'worker-3:runtime-restarted']);
  });

  it('text, Markdown and HTML list it in an "Also considered" section after the findings, at its lower severity', () => {
    const d = build();
    const text = cli(['analyze', d, '--year', '2024', '--no-color'], { env: { COLUMNS: '200' } }).stdout;
    const findings = text.indexOf('  Findings\n');
    const also = text.indexOf('  Also considered (weak: confidence below 0.50 or evidence against)\n');
    expect(findings).toBeGreaterThan(0);
    expect(also).toBeGreaterThan(findings);
    expect(text.slice(findings, also)).toContain('1. [high] The container runtime was down or restarting under the kubelet');
    expect(text.slice(findings, also)).not.toContain('runtime-hung-lists');
    expect(text.slice(also)).toMatch(/^ {4}- \[low \(rule: critical\)\] Container runtime did not answer the relist \(CRI list calls timed out\) +runtime_timeout · confidence 0\.34 · runtime-hung-lists$/m);
    // No remedy for what the evidence speaks against.
    expect(text.slice(also, text.indexOf('  Ruled out'))).not.toContain('remedy:');
    expect(text).not.toContain('[critical]');

    const md = cli(['analyze', d, '--year', '2024', '--format', 'markdown']).stdout;
    expect(md.indexOf('### Also considered')).toBeGreaterThan(md.indexOf('### Findings'));
    expect(md).toContain('- \\[low (rule: critical)\\] Container runtime did not answer the relist (CRI list calls timed out) · `runtime_timeout` · confidence 0.34');
    expect(md).toContain('#### 1. \\[high\\] The container runtime was down or restarting under the kubelet');

    const html = cli(['analyze', d, '--year', '2024', '--format', 'html']).stdout;
    expect(html.indexOf('<h3>Also considered</h3>')).toBeGreaterThan(html.indexOf('<h3>Findings</h3>'));
    expect(html).toMatch(/<article class="finding sev-low considered" data-rule="runtime-hung-lists"[^>]*><h4><span class="sev">low \(rule: critical\)<\/span>/);
  });
});
