// Redaction on the lines kubelets, runtimes and bundles really write: every form a node, host, IP, pod, namespace, UID
// or container ID takes must come out as its pseudonym, the same one everywhere, and nothing else may change.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { redact, rekeyByNode, renderRedactionMap } from '../../src/report/redact.js';
import { analyze } from '../../src/analyze.js';
import type { Analysis, EvidenceRef, NodeReport } from '../../src/contract/analysis.js';

const CID = 'a13cf8c09114353463c0deac39ac541c9c774f8a34dc4b3b911b1832b9f5302e';
const SID = 'ff30af42b1c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6a7b8c9d0e1f2a3';
const UID = '0892e7d7-4185-4b43-ac7d-497027d06088';
const NODE = 'worker-3.prod.acme.example';
const DE = 'rpc error: code = DeadlineExceeded desc = context deadline exceeded';

// One line per form a name takes (kubelet-catalog.md examples, with this test's names).
const LINES = [
  `Mar 11 10:03:02 worker-3 kubelet[2817]: E0311 10:03:02.500000    2817 kubelet.go:2373] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3m0.5s ago; threshold is 3m0s"`,
  `2024-03-11T10:03:01+0000 worker-3 kubelet[2817]: I0311 10:03:01.218877    2817 kubelet_node_status.go:669] "Recording event message for node" node="${NODE}" event="NodeNotReady"`,
  `Mar 11 10:00:02 worker-3 kubelet[2817]: E0311 10:00:02.100000    2817 log.go:32] "ContainerStatus from runtime service failed" err="${DE}" containerID="${CID}"`,
  `Mar 11 10:01:10 worker-3 kubelet[2817]: E0311 10:01:10.000000    2817 pod_workers.go:1300] "Error syncing pod, skipping" err="failed to \\"KillPodSandbox\\" for \\"${UID}\\" with KillPodSandboxError: \\"${DE}\\"" pod="payments-prod/checkout-api-7d9f8c6b5-x2x9z" podUID="${UID}"`,
  `Mar 11 10:02:05 worker-3 kubelet[2817]: E0311 10:02:05.100000    2817 kuberuntime_manager.go:1400] "PodSandboxStatus of sandbox for pod" err="${DE}" podSandboxID="${SID}" pod="payments-prod/checkout-api-7d9f8c6b5-x2x9z"`,
  `Jul 15 10:43:28 worker-3 kubelet[16315]: I0715 10:43:28.049240   16315 kubelet.go:1851] SyncLoop (PLEG): "ledger-0_finance(${UID})", event: &pleg.PodLifecycleEvent{ID:"${UID}", Type:"ContainerDied", Data:"${CID}"}`,
  `Mar 02 16:05:01 worker-3 kubelet[2001]: E0302 16:05:01.000102    2001 generic.go:241] PLEG: Ignoring events for pod billing-worker-1/finance: ${DE}`,
  `Mar 28 15:10:51 worker-3 kubelet: W0328 15:10:51.563163   21732 docker_sandbox.go:394] failed to read pod IP from plugin/docker: networkPlugin cni failed on the status hook for pod "fraud-scorer-5c8d9_risk-eng": CNI failed to retrieve network namespace path`,
  `Mar 11 10:05:00 worker-3 kubelet[2817]: E0311 10:05:00.000000    2817 kubelet_node_status.go:544] "Error updating node status, will retry" err="error getting node \\"${NODE}\\": Get \\"https://10.42.7.1:6443/api/v1/nodes/${NODE}?timeout=10s\\": dial tcp 10.42.7.1:6443: i/o timeout"`,
  `Mar 11 10:05:01 worker-3 kubelet[2817]: I0311 10:05:01.000000    2817 kubelet.go:2200] "Node IP" ip="10.42.7.13" ipv6="fd00:10:42::13" loopback="127.0.0.1" any="::1"`,
  `Mar 11 10:05:02 worker-3 containerd[1021]: time="2024-03-11T10:05:02.1Z" level=info msg="RunPodSandbox for &PodSandboxMetadata{Name:audit-sink-0,Uid:${UID},Namespace:compliance,Attempt:0,} returns sandbox id \\"${SID}\\""`,
  `Mar 11 10:05:03 worker-3 dockerd[900]: level=error msg="Handler for GET /containers/${CID.slice(0, 12)}/json returned error: context deadline exceeded" container=k8s_app_checkout-api-7d9f8c6b5-x2x9z_payments-prod_${UID}_0`,
  `Mar 11 10:05:04 worker-3 kubelet[2817]: I0311 10:05:04.000000    2817 kuberuntime_container.go:700] "Killing container" containerID="containerd://${CID.slice(0, 8)}…" log="/var/log/pods/payments-prod_checkout-api-7d9f8c6b5-x2x9z_${UID}/app/0.log"`,
  `{"__REALTIME_TIMESTAMP":"1710151505000000","_HOSTNAME":"${NODE}","SYSLOG_IDENTIFIER":"kubelet","MESSAGE":"\\"Probe failed\\" probeType=\\"Readiness\\" pod=\\"kube-system/coredns-6dk9bb4kqx-wnjvw\\""}`,
];
const SECRETS = [
  'worker-3', 'acme', '10.42.7.1', '10.42.7.13', 'fd00:10:42::13', CID, CID.slice(0, 12), CID.slice(0, 8), SID, UID,
  'payments-prod', 'checkout-api-7d9f8c6b5-x2x9z', 'ledger-0', 'finance', 'billing-worker-1', 'fraud-scorer-5c8d9', 'risk-eng',
  'audit-sink-0', 'compliance', 'coredns-6dk9bb4kqx-wnjvw',
];

const ev = (text: string, i: number): EvidenceRef => ({ file: `sos_commands/kubernetes/journalctl_--no-pager_--unit_kubelet`, line: i + 1, ts: '2024-03-11T10:03:02.500+00:00', text });

function node(name: string, texts: string[]): NodeReport {
  return {
    name, kubeletVersion: 'v1.28.4', runtime: 'containerd',
    window: { start: '2024-03-11T09:58:00.000+00:00', end: '2024-03-11T10:09:00.000+00:00' },
    verdict: { plegUnhealthy: true, primaryCause: 'runtime_timeout', confidence: 0.86 },
    stalls: [{
      lastRelistAt: '2024-03-11T10:00:02.000+00:00', unhealthyFrom: '2024-03-11T10:03:02.000+00:00', endedAt: '2024-03-11T10:07:07.000+00:00',
      endedBy: 'recovered', durationSeconds: 425, maxLastSeenAgoSeconds: 421, nodeNotReady: true, evidence: texts.slice(0, 1).map(ev),
    }],
    notReady: [{ from: '2024-03-11T10:03:02.000+00:00', to: '2024-03-11T10:08:30.000+00:00', reason: 'PLEG is not healthy', evidence: [] }],
    restarts: [{ at: '2024-03-11T09:58:01.000+00:00', version: 'v1.28.4', evidence: [] }],
    relist: { source: 'none', durationSeconds: null, intervalSeconds: null },
    operations: [{ operation: 'container_status', source: 'logs', count: null, errors: 1, timeouts: 1, p50Seconds: null, p90Seconds: null, p99Seconds: null }],
    pods: { running: 42, containers: 80 },
    findings: [{
      ruleId: 'runtime-hung-lists', cause: 'runtime_timeout', severity: 'critical', confidence: 0.86, title: 'Container runtime did not answer',
      summary: `PLEG on ${name} stalled while containerd timed out on ${CID}.`, evidence: texts.map(ev), remediation: 'Restart `containerd`.',
      references: ['https://github.com/kubernetes/kubernetes/issues/45419'],
    }],
    ruledOut: [{ cause: 'pod_count', reason: `42 running pods on ${name}` }],
    coverage: { from: '2024-03-11T09:58:00.000+00:00', to: '2024-03-11T10:09:00.000+00:00', truncated: false, roles: ['kubelet-log'] },
    gaps: [{ missing: 'kubelet metrics', why: 'relist duration', collect: `kubectl get --raw /api/v1/nodes/${name}/proxy/metrics > ${name}.metrics` }],
  };
}

function analysis(nodes: NodeReport[]): Analysis {
  return {
    schemaVersion: 1, tool: { name: 'plegscope', version: '0.1.0' }, generatedAt: '2024-03-11T12:00:00.000Z',
    inputs: [{ path: '/cases/sosreport-worker-3-2024-03-11-abcdefg.tar.xz', kind: 'sosreport', artifacts: nodes.map((n) => ({ path: `sosreport-worker-3-2024-03-11-abcdefg/sos_commands/kubernetes/journalctl_--no-pager_--unit_kubelet`, node: n.name, role: 'kubelet-log', format: 'journal-short', lines: 10, warnings: 0 })) }],
    nodes, warnings: [{ file: 'sosreport-worker-3-2024-03-11-abcdefg/var/log/messages', line: 3, message: `unreadable line naming ${CID}` }],
  };
}

/** Every string of a value, in order. */
function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => strings(x, out));
  else if (v && typeof v === 'object') Object.values(v).forEach((x) => strings(x, out));
  return out;
}

/** The value with every string replaced by a marker: what must not change under redaction. */
function shape(v: unknown): unknown {
  if (typeof v === 'string') return '<s>';
  if (Array.isArray(v)) return v.map(shape);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shape(x)]));
  return v;
}

describe('redact()', () => {
  const before = analysis([node(NODE, LINES)]);
  const snapshot = JSON.stringify(before);
  const { analysis: after, mapping } = redact(before);
  const json = JSON.stringify(after);

  it('leaves none of the names, addresses and IDs in any field', () => {
    for (const s of SECRETS) expect(json, `leaks ${s}`).not.toContain(s);
  });

  it('maps each name to one pseudonym everywhere: a node by FQDN and short name, a pod in every form', () => {
    const n = after.nodes[0]!;
    expect(n.name).toBe('node-1');
    expect(after.inputs[0]!.artifacts[0]!.node).toBe('node-1');
    expect(after.inputs[0]!.artifacts[0]!.path).toMatch(/^sosreport-node-1-2024-03-11-abcdefg\//);
    const texts = n.findings[0]!.evidence.map((e) => e.text);
    expect(texts[0]).toMatch(/^Mar 11 10:03:02 node-1 kubelet\[2817\]:/);
    expect(texts[1]).toContain('node="node-1"');
    const pod = mapping.entries.find((e) => e.original === 'checkout-api-7d9f8c6b5-x2x9z')!;
    const ns = mapping.entries.find((e) => e.original === 'payments-prod')!;
    expect(pod.kind).toBe('pod');
    expect(ns.kind).toBe('namespace');
    expect(texts[3]).toContain(`pod="${ns.pseudonym}/${pod.pseudonym}"`);
    expect(texts[11]).toContain(`_${pod.pseudonym}_${ns.pseudonym}_`);
    expect(texts[12]).toContain(`/var/log/pods/${ns.pseudonym}_${pod.pseudonym}_`);
    const id = mapping.entries.find((e) => e.original === CID)!.pseudonym;
    expect(texts[2]).toContain(`containerID="${id}"`);
    // Short and truncated forms of a known ID become that ID's pseudonym.
    expect(texts[11]).toContain(`/containers/${id}/json`);
    expect(texts[12]).toContain(`containerd://${id}…`);
    expect(n.findings[0]!.summary).toBe(`PLEG on node-1 stalled while containerd timed out on ${id}.`);
    expect(n.gaps[0]!.collect).toBe('kubectl get --raw /api/v1/nodes/node-1/proxy/metrics > node-1.metrics');
  });

  it('keeps what identifies nobody: loopback, system namespaces, the tool\'s own words, references and times', () => {
    const texts = after.nodes[0]!.findings[0]!.evidence.map((e) => e.text);
    expect(texts[9]).toContain('loopback="127.0.0.1" any="::1"');
    expect(texts[9]).toMatch(/ip="ip-\d+" ipv6="ip-\d+"/);
    expect(texts[13]).toMatch(/pod=\\"kube-system\/pod-\d+\\"/);
    expect(texts[0]).toContain('pleg was last seen active 3m0.5s ago; threshold is 3m0s');
    expect(after.nodes[0]!.findings[0]!.references).toEqual(before.nodes[0]!.findings[0]!.references);
    expect(after.nodes[0]!.stalls[0]!.lastRelistAt).toBe(before.nodes[0]!.stalls[0]!.lastRelistAt);
    expect(after.nodes[0]!.findings[0]!.remediation).toBe('Restart `containerd`.');
  });

  it('changes nothing but strings, and does not touch its input', () => {
    expect(shape(after)).toEqual(shape(before));
    expect(JSON.stringify(before)).toBe(snapshot);
    // Strings without a secret come through byte for byte.
    const a = strings(before);
    const b = strings(after);
    a.forEach((s, i) => { if (!SECRETS.some((x) => s.includes(x)) && !s.includes('acme')) expect(b[i]).toBe(s); });
  });

  it('is deterministic and numbers pseudonyms in report order, per kind', () => {
    expect(JSON.stringify(redact(before))).toBe(JSON.stringify({ analysis: after, mapping }));
    for (const kind of ['node', 'ip', 'pod', 'namespace', 'uid', 'id'] as const) {
      const nums = [...new Set(mapping.entries.filter((e) => e.kind === kind).map((e) => Number(e.pseudonym.split('-').pop())))];
      expect(nums, kind).toEqual(nums.map((_, i) => i + 1));
    }
  });

  it('never replaces a pseudonym again, even where a real name looks like one', () => {
    const tricky = analysis([node('node-2', [`Mar 11 10:00:00 node-2 kubelet[1]: "x" node="node-2" other="node-1"`]), node('node-1', [`Mar 11 10:00:00 node-1 kubelet[1]: "y"`])]);
    const r = redact(tricky);
    expect(r.analysis.nodes.map((n) => n.name)).toEqual(['node-1', 'node-2']);
    // "node-1" in node-2's line is the real node-1, now node-2: one pass, no chain.
    expect(r.analysis.nodes[0]!.findings[0]!.evidence[0]!.text).toBe('Mar 11 10:00:00 node-1 kubelet[1]: "x" node="node-1" other="node-2"');
  });

  it('writes the mapping as JSON, pseudonyms grouped by kind', () => {
    const m = JSON.parse(renderRedactionMap(mapping)) as { entries: Array<{ kind: string; original: string; pseudonym: string }> };
    expect(m.entries.find((e) => e.original === NODE)?.pseudonym).toBe('node-1');
    expect(m.entries.find((e) => e.original === 'worker-3')?.pseudonym).toBe('node-1');
    expect(m.entries.find((e) => e.original === 'acme.example')?.kind).toBe('domain');
    const kinds = m.entries.map((e) => e.kind);
    expect(kinds).toEqual([...kinds].sort((a, b) => ['node', 'host', 'domain', 'ip', 'namespace', 'pod', 'uid', 'id'].indexOf(a) - ['node', 'host', 'domain', 'ip', 'namespace', 'pod', 'uid', 'id'].indexOf(b)));
  });

  it('re-keys the per-node rules evaluated to the redacted names', () => {
    const m = rekeyByNode(before, after, new Map([[NODE, [{ id: 'r', fired: true }]]]));
    expect([...m.keys()]).toEqual(['node-1']);
  });
});

describe('redact() on the sample incident', () => {
  it('no host, IP, pod, namespace, UID or ID of any fixture line survives, cited or not', async () => {
    const dir = join(__dirname, '..', '..', 'fixtures', 'sample-incident');
    const run = await analyze({ paths: [dir] });
    const a = run.analysis;
    // Cite every fixture line that names something, so redaction is tried on all of them, not only on what the
    // rules happened to pick.
    const secrets = new Set<string>(a.nodes.map((n) => n.name));
    const cited: EvidenceRef[] = [];
    for (const f of readdirSync(dir)) {
      readFileSync(join(dir, f), 'utf8').split('\n').forEach((t, i) => {
        const found = [
          ...[...t.matchAll(/\b(?:\d{1,3}\.){3}\d{1,3}\b/g)].map((m) => m[0]).filter((ip) => !/^(0\.0\.0\.0|127\.)/.test(ip)),
          ...[...t.matchAll(/pod="([^"/]+)\/([^"]+)"/g)].flatMap((m) => [m[2]!, ...(['default', 'kube-system'].includes(m[1]!) ? [] : [`"${m[1]}/`])]),
          ...[...t.matchAll(/\b[0-9a-f]{64}\b/g)].map((m) => m[0]),
          ...[...t.matchAll(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g)].map((m) => m[0]),
        ];
        if (found.length === 0) return;
        found.forEach((s) => secrets.add(s));
        cited.push({ file: f, line: i + 1, ts: null, text: t });
      });
    }
    expect(cited.length).toBeGreaterThan(1000);
    expect(secrets.size).toBeGreaterThan(100);
    a.nodes[0]!.findings[0]!.evidence.push(...cited);
    const out = JSON.stringify(redact(a).analysis);
    const leaks = [...secrets].filter((s) => out.includes(s));
    expect(leaks).toEqual([]);
  }, 60_000);
});
