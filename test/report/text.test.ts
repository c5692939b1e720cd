import { describe, expect, it } from 'vitest';
import { renderText } from '../../src/report/text.js';
import type { Analysis, NodeReport } from '../../src/contract/analysis.js';

function node(name: string, stalled: boolean): NodeReport {
  return {
    name, kubeletVersion: 'v1.29.6', runtime: 'cri-o', window: { start: '2024-03-11T00:00:00.000Z', end: '2024-03-11T01:00:00.000Z' },
    verdict: { plegUnhealthy: stalled, primaryCause: stalled ? 'unknown' : null, confidence: stalled ? 0.2 : 0 },
    stalls: stalled ? [{ lastRelistAt: '2024-03-11T00:10:00.000Z', unhealthyFrom: '2024-03-11T00:13:00.000Z', endedAt: '2024-03-11T00:20:00.000Z', endedBy: 'recovered', durationSeconds: 600, maxLastSeenAgoSeconds: 590, nodeNotReady: false, evidence: [] }] : [],
    notReady: [], restarts: [], relist: { source: 'none', durationSeconds: null, intervalSeconds: null }, operations: [], pods: { running: null, containers: null },
    findings: stalled ? [{ ruleId: 'unknown-stall', cause: 'unknown', severity: 'medium', confidence: 0.2, title: 'PLEG stalled', summary: 's', evidence: [], remediation: 'r', references: [] }] : [],
    ruledOut: [], coverage: { from: null, to: null, truncated: false, roles: ['kubelet-log'] }, gaps: [],
  };
}

const analysis = (nodes: NodeReport[], warnings: Analysis['warnings'] = []): Analysis => ({
  schemaVersion: 1, tool: { name: 'plegscope', version: '0' }, generatedAt: '2024-03-12T00:00:00.000Z', inputs: [], nodes, warnings,
});

describe('text report', () => {
  it('lists quiet nodes together at the end and shows each flapped node in full', () => {
    const nodes = [node('w-1', false), node('w-2', true), node('w-3', false)];
    const t = renderText(analysis(nodes), { color: false, zone: 'UTC' });
    expect(t).toMatch(/w-2 +PLEG unhealthy/);
    expect(t).not.toMatch(/w-1 +PLEG healthy/);
    expect(t).toContain('PLEG healthy, nothing to report: 2 nodes\n  w-1, w-3');
  });
  it('a single healthy node still gets its own section', () => {
    expect(renderText(analysis([node('solo', false)]), { color: false, zone: 'UTC' })).toMatch(/solo +PLEG healthy/);
  });
  it('warnings that differ only in a node name or number are shown once with a count', () => {
    const ws = Array.from({ length: 50 }, (_, i) => ({ file: 'host_service_logs/workers/kubelet_service.log', line: null, message: `worker-${i}: its log ends ${1900 + i} min before collection` }));
    const t = renderText(analysis([node('a', true), node('b', true)], [...ws, { file: 'x.log', line: 3, message: 'over-long line cut' }]), { color: false, zone: 'UTC', width: 200 });
    expect(t).toContain('worker-0: its log ends 1900 min before collection (and 49 more like it)');
    expect(t).toContain('x.log:3: over-long line cut');
    expect(t.match(/its log ends/g)).toHaveLength(1);
  });
});
