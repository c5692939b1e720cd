// The renderers on hand-built analyses: the cluster summary's arithmetic, JUnit's fail policy (the verdict whenever a
// node stalled, findings exactly where --fail-on fails) and well-formedness under hostile log text, Markdown and HTML escaping, the HTML timeline's lanes.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import type { Analysis, Finding, NodeReport, Severity } from '../../src/contract/analysis.js';
import { SEVERITIES } from '../../src/contract/analysis.js';
import { clusterSentences, summarizeCluster, withCluster } from '../../src/report/cluster.js';
import { renderJunit } from '../../src/report/junit.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { renderHtml, timelineHtml, type NodeSeries } from '../../src/report/html.js';
import { failOnTriggered } from '../../src/cli/main.js';

const HOSTILE = 'evil <script>alert(1)</script> & | pipe | `tick` ``` ]]> \x1b[2J\x07 \u202e rtl *em* [link](http://x) \ud800 end';

function finding(sev: Severity, ruleId = `rule-${sev}`, text = 'E0311 ok line'): Finding {
  return {
    ruleId, cause: 'runtime_timeout', severity: sev, confidence: 0.8, title: `Finding ${sev}`, summary: `Summary of ${sev}.`,
    evidence: [{ file: 'kubelet.log', line: 7, ts: '2024-03-11T10:00:02.000+00:00', text }], remediation: 'Run `crictl ps`.', references: [],
  };
}

interface NodeOpts {
  stalls?: Array<[string, string | null]>;
  findings?: Finding[];
  kubelet?: string;
  runtime?: NodeReport['runtime'];
  pods?: number | null;
  notReady?: boolean;
  cause?: NodeReport['verdict']['primaryCause'];
}

function node(name: string, o: NodeOpts = {}): NodeReport {
  const stalls = (o.stalls ?? []).map(([from, to]) => {
    const last = Date.parse(`2024-03-11T${from}Z`) - 180_000;
    const end = to ? Date.parse(`2024-03-11T${to}Z`) : Date.parse('2024-03-11T11:00:00Z');
    return {
      lastRelistAt: new Date(last).toISOString(), unhealthyFrom: `2024-03-11T${from}.000Z`, endedAt: to ? `2024-03-11T${to}.000Z` : null,
      endedBy: (to ? 'recovered' : 'end-of-log') as 'recovered' | 'end-of-log', durationSeconds: (end - last) / 1000, maxLastSeenAgoSeconds: (end - last) / 1000 - 2,
      nodeNotReady: true, evidence: [{ file: 'kubelet.log', line: 3, ts: null, text: 'Skipping pod synchronization' }],
    };
  });
  return {
    name, kubeletVersion: o.kubelet ?? 'v1.28.4', runtime: o.runtime === undefined ? 'containerd' : o.runtime,
    window: { start: '2024-03-11T09:00:00.000Z', end: '2024-03-11T11:00:00.000Z' },
    verdict: { plegUnhealthy: stalls.length > 0, primaryCause: stalls.length ? (o.cause === undefined ? 'runtime_timeout' : o.cause) : null, confidence: stalls.length ? 0.9 : 0 },
    stalls,
    notReady: o.notReady || stalls.length ? [{ from: stalls[0]?.unhealthyFrom ?? '2024-03-11T10:30:00.000Z', to: stalls[0]?.endedAt ?? null, reason: 'NodeNotReady', evidence: [] }] : [],
    restarts: [{ at: '2024-03-11T09:00:01.000Z', version: 'v1.28.4', evidence: [] }],
    relist: { source: 'none', durationSeconds: null, intervalSeconds: null },
    operations: [{ operation: 'list_podsandbox', source: 'logs', count: null, errors: 4, timeouts: 4, p50Seconds: null, p90Seconds: null, p99Seconds: null }],
    pods: { running: o.pods === undefined ? null : o.pods, containers: null },
    findings: o.findings ?? [],
    ruledOut: [{ cause: 'pod_count', reason: 'few pods' }],
    coverage: { from: '2024-03-11T09:00:00.000Z', to: '2024-03-11T11:00:00.000Z', truncated: false, roles: ['kubelet-log'] },
    gaps: [{ missing: 'kubelet metrics', why: 'relist duration', collect: 'kubectl get --raw /api/v1/nodes/NODE/proxy/metrics' }],
  };
}

function analysis(nodes: NodeReport[]): Analysis {
  return { schemaVersion: 1, tool: { name: 'plegscope', version: '0.1.0' }, generatedAt: '2024-03-11T12:00:00.000Z', inputs: [], nodes, warnings: [] };
}

describe('cluster summary', () => {
  const nodes = [
    node('w1', { stalls: [['10:03:00', '10:07:00']], pods: 100 }),
    node('w2', { stalls: [['10:05:00', '10:10:00']], pods: 120 }),
    node('w3', { stalls: [['10:30:00', null]], pods: 140, kubelet: 'v1.27.1' }),
    node('w4', { pods: 20, kubelet: 'v1.29.0', notReady: true }),
    node('w5', { pods: 30, kubelet: 'v1.29.0', runtime: 'cri-o' }),
  ];
  const c = summarizeCluster(nodes)!;

  it('lists who flapped, when, in waves of stalls less than 5 min apart', () => {
    expect(c.nodes).toBe(5);
    expect(c.flapped.map((n) => n.name)).toEqual(['w1', 'w2', 'w3']);
    expect(c.notReadyOther).toEqual(['w4']);
    expect(c.healthy).toEqual(['w5']);
    // The unhealthy windows (and, added by issue 22.5, each wave measured as its stalls are: durationSeconds from the
    // earliest last relist).
    expect(c.waves).toMatchObject([
      { from: '2024-03-11T10:03:00.000Z', to: '2024-03-11T10:10:00.000Z', nodes: ['w1', 'w2'] },
      { from: '2024-03-11T10:30:00.000Z', to: null, nodes: ['w3'], durationBound: 'at-least' },
    ]);
    expect(c.flapped[2]!.lastEndedAt).toBeNull();
  });

  it('says what the flapped nodes share against the others, and their pod density', () => {
    const t = Object.fromEntries(c.shared.map((s) => [s.trait, s]));
    expect(t['runtime']!.common).toBe('containerd');
    expect(t['runtime']!.others).toEqual([{ value: 'containerd', nodes: 1 }, { value: 'cri-o', nodes: 1 }]);
    expect(t['kubeletVersion']!.common).toBeNull();
    expect(t['kubeletVersion']!.flapped).toEqual([{ value: 'v1.28.4', nodes: 2 }, { value: 'v1.27.1', nodes: 1 }]);
    expect(t['primaryCause']!.common).toBe('runtime_timeout');
    expect(c.podDensity).toEqual({ flapped: { known: 3, min: 100, median: 120, max: 140 }, others: { known: 2, min: 20, median: 25, max: 30 } });
    const s = clusterSentences(c, 'UTC').join('\n');
    expect(s).toContain('3 of 5 nodes had a PLEG stall: w1, w2, w3.');
    expect(s).toContain('All flapped nodes share runtime containerd — so do 1 of the 2 other nodes.');
    expect(s).toContain('Flapped nodes differ in kubelet: v1.28.4 ×2, v1.27.1 ×1.');
    expect(s).toContain('flapped nodes 100–140 running pods (median 120');
  });

  it('is absent for one node, and placed before the nodes in the JSON', () => {
    expect(summarizeCluster([node('solo', { stalls: [['10:03:00', '10:07:00']] })])).toBeNull();
    expect(Object.keys(withCluster(analysis(nodes)))).toEqual(['schemaVersion', 'tool', 'generatedAt', 'inputs', 'cluster', 'nodes', 'warnings']);
    const one = analysis([node('solo')]);
    expect(withCluster(one)).toBe(one);
  });
});

describe('junit', () => {
  const sevs: Severity[] = ['critical', 'medium', 'info'];
  // w1 stalled: its findings explain the stall, but for the info one; w2 did not: a low warning.
  const explains = (sev: Severity): Finding => ({ ...finding(sev), explains: sev === 'info' ? 'warning' : 'stall' });
  const weak: Finding = { ...finding('low', 'rule-weak'), ruleSeverity: 'critical', confidence: 0.34, explains: 'stall', considered: true };
  const a = analysis([
    node('w1', { stalls: [['10:03:00', '10:07:00']], findings: [...sevs.map(explains), weak] }),
    node('w2', { findings: [{ ...finding('low'), explains: 'warning' }] }),
  ]);
  const evaluated = new Map([
    ['w1', [...sevs.map((s) => ({ id: `rule-${s}`, fired: true })), { id: 'rule-weak', fired: true }, { id: 'rule-quiet', fired: false }]],
    ['w2', [{ id: 'rule-low', fired: true }, { id: 'rule-quiet', fired: false }]],
  ]);
  const failed = (xml: string): string[] => [...xml.matchAll(/<testcase name="([^"]+)" classname="plegscope\.(\w+)"[^/]*?>\s*<failure/g)].map((m) => `${m[2]}:${m[1]}`);

  it('fails pleg-healthy whenever the node stalled, and a rule exactly when --fail-on counts its finding (the exit code)', () => {
    for (const level of [...SEVERITIES, 'stall']) {
      const xml = renderJunit(a, evaluated, { failOn: level });
      const rules = level === 'stall' ? [] : [
        ...sevs.filter((s) => SEVERITIES.indexOf(s) <= SEVERITIES.indexOf(level as Severity)).map((s) => `w1:rule-${s}`),
        ...(SEVERITIES.indexOf('low') <= SEVERITIES.indexOf(level as Severity) ? ['w2:rule-low'] : []),
      ];
      expect(failed(xml), level).toEqual(['w1:pleg-healthy', ...rules]);
      expect(failOnTriggered(a, level), level).toBe(level === 'stall' || rules.length > 0);
    }
    // No policy: the verdict and the findings that explain the stall; not the info warning, the weak alternative, nor
    // the healthy node's low warning.
    expect(failed(renderJunit(a, evaluated))).toEqual(['w1:pleg-healthy', 'w1:rule-critical', 'w1:rule-medium']);
    expect(failOnTriggered(a, undefined)).toBe(false);
  });

  it('has one testcase per rule evaluated plus pleg-healthy, and puts passing findings in system-out', () => {
    const xml = renderJunit(a, evaluated, { failOn: 'critical' });
    expect(xml).toContain('<testsuite name="w1" tests="6" failures="2"');
    expect(xml).toContain('<testsuite name="w2" tests="3" failures="0"');
    expect(xml).toMatch(/<testcase name="rule-quiet" classname="plegscope.w1" time="0"\/>/);
    expect(xml).toMatch(/<testcase name="rule-medium"[^>]*>\s*<system-out>Finding medium/);
    // The weak alternative says so, at the severity it is reported at and its rule's.
    expect(xml).toMatch(/<testcase name="rule-weak"[^>]*>\s*<system-out>Finding low\nruntime_timeout · low \(rule: critical\) · confidence 0\.34\nAlso considered \(weak: confidence below 0\.50 or evidence against\): no --fail-on level counts it\./);
  });

  it('stays well-formed and schema-valid with hostile log text in every field', () => {
    const bad = analysis([node(`w<1>&"'`, { stalls: [['10:03:00', null]], findings: [finding('high', 'rule-x', HOSTILE)] }), node('w2')]);
    bad.nodes[0]!.findings[0]!.title = HOSTILE;
    const xml = renderJunit(bad, new Map(), {});
    expect(xml).not.toContain('<script>');
    // eslint-disable-next-line no-control-regex -- asserting that no control character got through
    expect(xml).not.toMatch(/[\x00-\x08\x0b\x0c\x0e-\x1f]/);
    expect(xml).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    const dir = mkdtempSync(join(tmpdir(), 'plegscope-junit-'));
    try {
      writeFileSync(join(dir, 'j.xml'), xml);
      const v = spawnSync('xmllint', ['--noout', '--schema', join(__dirname, 'junit.xsd'), join(dir, 'j.xml')], { encoding: 'utf8' });
      if (v.error) return; // xmllint missing: formats.test.ts reports that case
      expect(v.status, v.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('markdown', () => {
  const md = new MarkdownIt();
  it('keeps hostile log text inert: no HTML, no extra table cells, fences that no evidence line can close', () => {
    const a = analysis([node('w1', { stalls: [['10:03:00', '10:07:00']], findings: [finding('high', 'rule-x', HOSTILE)] }), node(`w|2<b>`)]);
    a.nodes[0]!.findings[0]!.summary = HOSTILE;
    const out = renderMarkdown(a);
    const html = md.render(out);
    expect(html).not.toMatch(/<script|<b>|<a href/);
    expect(out).not.toContain('\x1b');
    const tokens = md.parse(out, {});
    // The verdict table: one row per node, exactly as many cells as headers, hostile name in one cell.
    const verdict = out.slice(out.indexOf('## Verdict'));
    const rows = verdict.split('\n').filter((l) => l.startsWith('| ')).slice(0, 4);
    expect(rows).toHaveLength(4);
    const cells = (r: string) => r.split(/(?<!\\)\|/).length;
    expect(new Set(rows.map(cells)).size).toBe(1);
    // The evidence line is inside a code block, whole.
    const fence = tokens.find((t) => t.type === 'fence' && t.content.includes('evil'))!;
    expect(fence.content).toContain('``` ]]>');
    expect(tokens.filter((t) => t.type === 'table_open').length).toBeGreaterThanOrEqual(4);
  });
});

describe('html', () => {
  it('escapes every log-derived string and loads nothing from anywhere', () => {
    const a = analysis([node(`w<1>`, { stalls: [['10:03:00', '10:07:00']], findings: [finding('high', 'rule-x', HOSTILE)] })]);
    a.nodes[0]!.findings[0]!.title = HOSTILE;
    a.nodes[0]!.notReady[0]!.reason = HOSTILE;
    const out = renderHtml(a);
    expect(out).not.toContain('<script>');
    expect(out).not.toContain('<1>');
    expect(out).not.toContain('\x1b');
    expect(out).not.toContain('\u202e');
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(out).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`);
    expect(out).not.toMatch(/\bsrc=|<link|@import|url\(/);
    expect(renderHtml(a)).toBe(out);
  });

  it('draws stalls, NotReady, restarts and the time since the last relist; series lanes when the node has them', () => {
    const n = node('w1', { stalls: [['10:03:00', '10:07:00'], ['10:40:00', null]] });
    const tl = timelineHtml(n, 'UTC')!;
    expect(tl.match(/class="stall"/g)).toHaveLength(2);
    expect(tl.match(/class="notready"/g)).toHaveLength(1);
    expect(tl.match(/class="restart-at"/g)).toHaveLength(1);
    expect(tl).toContain('class="age"');
    expect(tl).not.toContain('lane-cri');
    // Text is HTML beside and over the shapes (it keeps its size at any width): lane names, the age lane's scale.
    expect([...tl.matchAll(/class="tl-label"[^>]*>([^<]+)</g)].map((m) => m[1])).toEqual(['PLEG stalls', 'NotReady', 'since last relist']);
    expect(tl).toContain('>threshold 3m00s<');
    expect(tl).not.toMatch(/<text/);
    const series: NodeSeries = {
      criErrors: [{ at: '2024-03-11T10:01:00Z', seconds: 60, errors: 3, timeouts: 3 }, { at: '2024-03-11T10:03:00Z', seconds: 60, errors: 0, timeouts: 0 }],
      relist: [{ at: '2024-03-11T09:30:00Z', seconds: 0.5 }, { at: '2024-03-11T10:30:00Z', seconds: 2 }],
    };
    const withSeries = timelineHtml({ ...n, series } as NodeReport, 'UTC')!;
    expect(withSeries.match(/class="cri"/g)).toHaveLength(1);
    expect(withSeries).toContain('class="relist"');
    // Axis labels on round times of the display zone, which the axis names; none too close to an edge or another.
    const ticks = (h: string) => [...h.matchAll(/class="tick" style="left:([\d.]+)%">([^<]+)</g)].map((m) => [Number(m[1]), m[2]] as const);
    expect(timelineHtml(n, 'Asia/Kolkata')).toContain('>03-11 15:00<');
    expect(timelineHtml(n, 'Asia/Kolkata')).toContain('time, Asia/Kolkata (+05:30)');
    expect(tl).toContain('time, UTC');
    const odd = { ...n, coverage: { ...n.coverage, from: '2024-03-11T08:58:25.000Z', to: '2024-03-11T10:59:51.000Z' } };
    expect(ticks(timelineHtml(odd, 'UTC')!).map(([, l]) => l)).toEqual(['03-11 09:30', '10:00', '10:30']);
    // Over two days the date comes back on the first tick of each day; at 520 px (a 700 px screen) labels keep apart.
    const twoDays = { ...n, coverage: { ...n.coverage, from: '2024-03-10T21:13:00.000Z', to: '2024-03-12T02:40:00.000Z' } };
    const tk = ticks(timelineHtml(twoDays, 'UTC')!);
    expect(tk.filter(([, l]) => /^\d\d-\d\d/.test(l)).map(([, l]) => l.slice(0, 5))).toEqual(['03-11', '03-12']);
    for (let i = 1; i < tk.length; i++) {
      const gap = ((tk[i]![0] - tk[i - 1]![0]) / 100) * 520;
      expect(gap, `${tk[i - 1]![1]} / ${tk[i]![1]}`).toBeGreaterThan(((tk[i]![1].length + tk[i - 1]![1].length) / 2) * 7.5);
    }
  });
});
