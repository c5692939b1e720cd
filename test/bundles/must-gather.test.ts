// The acceptance scenario: a 3-node must-gather .tar.gz whose masters' service log merges three hosts (UTC,
// short-precise), with node YAMLs and one node NotReady with PLEG.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import type { Analysis } from '../../src/contract/analysis.js';
import { nodeLogs, nodeYaml, writeBundle, type Files } from './fixtures.js';

const IMG = 'quay-io-openshift-release-dev-ocp-v4-0-art-dev-sha256-' + '0123456789abcdef'.repeat(4);
const NAME = 'must-gather.local.5464029130631179436';
const VERSION = 'v1.27.6+f67aeb3';

function mustGather(): Files {
  const hosts = ['master-0', 'master-1', 'master-2'];
  const logs = hosts.map((h) => nodeLogs(h, { ident: 'kubenswrapper', precise: true, version: VERSION, stallAt: h === 'master-1' ? 10 * 60_000 : null }));
  // oc merges the nodes' journals by taking the lexically smallest next line: near-chronological, hosts interleaved.
  const merged = logs.flatMap((l) => l.kubelet.split('\n').filter(Boolean)).sort().join('\n') + '\n';
  const crio = hosts.map((h, i) => `Jan 11 09:0${i}:00.123456 ${h} crio[1500]: time="2024-01-11 09:0${i}:00.123456789Z" level=info msg="Starting CRI-O, version: 1.27.1-3.rhaos4.14.git"`).join('\n') + '\n';
  const d = `${NAME}/${IMG}`;
  return {
    [`${NAME}/timestamp`]: '2024-01-11 09:49:58.000000000 +0000 UTC m=+0.01\n',
    [`${NAME}/event-filter.html`]: '<html></html>\n',
    [`${d}/version`]: 'openshift/must-gather\n4.14.0\n',
    [`${d}/timestamp`]: '2024-01-11 09:50:00.000000000 +0000 UTC m=+0.01\n2024-01-11 09:55:00.000000000 +0000 UTC m=+300.0\n',
    [`${d}/gather.logs`]: 'gather starting\n',
    [`${d}/aggregated-discovery-api.yaml`]: 'apiVersion: apidiscovery.k8s.io/v2\nkind: APIGroupDiscoveryList\nitems: []\n',
    [`${d}/cluster-scoped-resources/core/nodes/master-0.yaml`]: nodeYaml('master-0', { ready: true, role: 'master', version: VERSION }),
    [`${d}/cluster-scoped-resources/core/nodes/master-1.yaml`]: nodeYaml('master-1', { ready: false, role: 'master', version: VERSION, plegAgeS: 245, heartbeat: '2024-01-11T09:14:05Z', transition: '2024-01-11T09:13:01Z' }),
    [`${d}/cluster-scoped-resources/core/nodes/master-2.yaml`]: nodeYaml('master-2', { ready: true, role: 'master', version: VERSION }),
    [`${d}/cluster-scoped-resources/config.openshift.io/clusterversions/version.yaml`]: 'apiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata:\n  name: version\n',
    [`${d}/namespaces/default/core/events.yaml`]: 'apiVersion: v1\nitems: []\nkind: EventList\n',
    [`${d}/host_service_logs/masters/kubelet_service.log`]: merged,
    [`${d}/host_service_logs/masters/crio_service.log`]: crio,
    [`${d}/host_service_logs/masters/NetworkManager_service.log`]: 'Jan 11 09:00:00.000000 master-0 NetworkManager[900]: <info>  [1704963600.0000] manager: startup complete\n',
    [`${d}/nodes/master-0/dmesg`]: '[    0.000000] Linux version 5.14.0-284.30.1.el9_2.x86_64\n',
    [`${d}/nodes/master-2/dmesg`]: '[    0.000000] Linux version 5.14.0-284.30.1.el9_2.x86_64\n',
    [`${d}/nodes/skipped_nodes.txt`]: 'master-1\n',
    [`${d}/monitoring/prometheus/rules.json`]: '{"status":"success","data":{"groups":[]}}\n',
  };
}

let tmp: string;
let a: Analysis;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'plegscope-mg-'));
  const p = await writeBundle(tmp, NAME, mustGather(), 'tar.gz');
  a = (await analyze({ paths: [p], workers: 0 })).analysis;
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('3-node must-gather .tar.gz', () => {
  it('one section per node, named from the journal host field and the node YAMLs', () => {
    expect(a.inputs[0]?.kind).toBe('must-gather');
    expect(a.nodes.map((n) => n.name)).toEqual(['master-0', 'master-1', 'master-2']);
    for (const n of a.nodes) {
      expect(n.kubeletVersion).toBe(VERSION);
      expect(n.runtime).toBe('cri-o');
    }
    const arts = a.inputs[0]?.artifacts ?? [];
    expect(arts.find((x) => x.path === 'host_service_logs/masters/kubelet_service.log')).toMatchObject({ role: 'kubelet-log', format: 'journal-short-precise' });
    expect(arts.filter((x) => x.role === 'node-object').map((x) => [x.path, x.node])).toEqual([
      ['cluster-scoped-resources/core/nodes/master-0.yaml', 'master-0'],
      ['cluster-scoped-resources/core/nodes/master-1.yaml', 'master-1'],
      ['cluster-scoped-resources/core/nodes/master-2.yaml', 'master-2'],
    ]);
    // Another unit's service log is not read as a node log.
    expect(arts.some((x) => x.path.includes('NetworkManager'))).toBe(false);
  });

  it('the NotReady node has its PLEG stall (UTC), the others none', () => {
    const [m0, m1, m2] = a.nodes;
    expect(m0?.stalls).toEqual([]);
    expect(m2?.stalls).toEqual([]);
    expect(m0?.verdict.plegUnhealthy).toBe(false);
    expect(m1?.verdict).toMatchObject({ plegUnhealthy: true, primaryCause: 'runtime_timeout' });
    expect(m1?.stalls).toHaveLength(1);
    const s = m1!.stalls[0]!;
    expect(Math.abs(Date.parse(s.lastRelistAt) - Date.parse('2024-01-11T09:10:00Z'))).toBeLessThan(2000);
    expect(s.endedBy).toBe('recovered');
    expect(s.nodeNotReady).toBe(true);
    expect(s.evidence[0]?.file).toBe('host_service_logs/masters/kubelet_service.log');
    // Every cited line of master-1 is master-1's, though the file interleaves three hosts.
    for (const e of s.evidence) expect(e.text).toMatch(/ master-1 kubenswrapper\[/);
  });

  it('coverage per node from its own lines; gaps know must-gather', () => {
    for (const n of a.nodes) {
      expect(n.coverage.from?.slice(0, 16)).toBe('2024-01-11T09:00');
      // A merged file interleaves hosts, and the scanner skips lines no signal needs without parsing them, so a host's
      // last line is known only up to its last line that carried a signal: the end lies within the log, not after it.
      expect(n.coverage.to! > '2024-01-11T09:10' && n.coverage.to! <= '2024-01-11T09:45:01', `${n.name} ${n.coverage.to}`).toBe(true);
      expect(n.coverage.roles).toContain('kubelet-log');
      expect(n.coverage.roles).toContain('node-object');
      expect(n.gaps.find((g) => g.missing === 'kubelet metrics')?.collect).toMatch(/^oc get --raw \/api\/v1\/nodes\/master-\d\/proxy\/metrics/m);
    }
    const s1 = a.nodes[1]!.stalls[0]!;
    expect(a.nodes[1]?.coverage.to! >= (s1.endedAt ?? s1.endedBetween!.from)).toBe(true);
    expect(a.nodes[1]?.gaps.some((g) => /skipped_nodes/.test(g.why))).toBe(true);
    expect(a.warnings.some((w) => /skipped node master-1/.test(w.message))).toBe(true);
  });

  it('a worker known only from its YAML gets a section that says where its logs are', async () => {
    const files = mustGather();
    files[`${NAME}/${IMG}/cluster-scoped-resources/core/nodes/worker-0.yaml`] = nodeYaml('worker-0', { ready: false, role: 'worker', plegAgeS: 305, heartbeat: '2024-01-11T09:30:05Z', transition: '2024-01-11T09:28:00Z' });
    const dir = fs.mkdtempSync(path.join(tmp, 'w-'));
    const p = await writeBundle(dir, NAME, files, 'dir');
    const b = (await analyze({ paths: [p], workers: 0 })).analysis;
    const w = b.nodes.find((n) => n.name === 'worker-0');
    expect(w?.stalls).toHaveLength(1);
    expect(w?.stalls[0]?.lastRelistAt).toBe('2024-01-11T09:25:00.000Z');
    // The node's own journal from its stall on (still open when the must-gather ran: no end), or every worker's.
    expect(w?.gaps.find((g) => g.missing === 'kubelet log of this node')?.collect.split('\n')).toEqual([
      'oc adm node-logs worker-0 -u kubelet --since=2024-01-11T09:15:00Z > worker-0-kubelet.log',
      'oc adm node-logs worker-0 -u crio --since=2024-01-11T09:15:00Z > worker-0-crio.log',
      '# or every worker at once: oc adm must-gather -- /usr/bin/gather_service_logs worker',
    ]);
    expect(w?.stalls[0]?.evidence[0]?.file).toBe('cluster-scoped-resources/core/nodes/worker-0.yaml');
  });
});
