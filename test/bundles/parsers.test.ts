// Node objects and container tables: the non-log files a bundle adds to a node.
import { describe, expect, it } from 'vitest';
import { countContainers } from '../../src/parse/container-list.js';
import { parseNodeObjects, runtimeOf, withoutImageLists } from '../../src/parse/node-object.js';
import { CRICTL_PODS, CRICTL_PS_A, nodeYaml } from './fixtures.js';

describe('node objects', () => {
  it('a must-gather node YAML: versions, capacity, role, the Ready condition with its line', () => {
    const y = nodeYaml('master-1', { ready: false, role: 'master', plegAgeS: 245, heartbeat: '2024-01-11T09:14:05Z', transition: '2024-01-11T09:13:01Z' });
    const { nodes, error } = parseNodeObjects(y);
    expect(error).toBeNull();
    expect(nodes).toHaveLength(1);
    const n = nodes[0]!;
    expect(n).toMatchObject({ name: 'master-1', kubeletVersion: 'v1.27.6+f67aeb3', containerRuntimeVersion: 'cri-o://1.27.1-3.rhaos4.14.git', podsCapacity: 250, roles: ['master'] });
    const ready = n.conditions.find((c) => c.type === 'Ready')!;
    expect(ready).toMatchObject({ status: 'False', reason: 'KubeletNotReady', lastHeartbeatTime: Date.parse('2024-01-11T09:14:05Z'), lastTransitionTime: Date.parse('2024-01-11T09:13:01Z') });
    expect(ready.message).toMatch(/^PLEG is not healthy: pleg was last seen active 4m5.0s ago/);
    expect(y.split('\n')[ready.line - 1]).toContain('PLEG is not healthy');
    expect(runtimeOf(n.containerRuntimeVersion)).toEqual({ runtime: 'cri-o', version: '1.27.1-3.rhaos4.14.git' });
  });

  it('kubectl get nodes -o json (a List), and node status Unknown', () => {
    const list = {
      apiVersion: 'v1', kind: 'List',
      items: [
        { apiVersion: 'v1', kind: 'Node', metadata: { name: 'a', labels: { 'node-role.kubernetes.io/worker': '' } }, status: { nodeInfo: { kubeletVersion: 'v1.28.3', containerRuntimeVersion: 'containerd://1.7.13' }, capacity: { pods: '110' }, conditions: [{ type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: '2024-01-11T09:20:00Z', lastHeartbeatTime: '2024-01-11T09:15:00Z' }] } },
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'not-a-node' } },
      ],
    };
    const { nodes } = parseNodeObjects(JSON.stringify(list, null, 4));
    expect(nodes.map((n) => [n.name, n.kubeletVersion, n.podsCapacity, n.conditions[0]?.status])).toEqual([['a', 'v1.28.3', 110, 'Unknown']]);
    expect(runtimeOf('containerd://1.7.13').runtime).toBe('containerd');
  });

  it('damaged input says why', () => {
    expect(parseNodeObjects('{"kind": "Node", ').error).toMatch(/not valid JSON/);
    const bad = parseNodeObjects('kind: Node\nmetadata:\n  name: [unclosed\n');
    expect(bad.nodes).toEqual([]);
    expect(bad.error).toMatch(/^not valid YAML: \S/);
    expect(bad.error).not.toContain('\n');
  });

  it('YAML as kubectl and hand edits write it: several documents, a repeated key (the last wins), unquoted dates', () => {
    const y = [
      'kind: Node', 'metadata:', '  name: first', '  name: w-1', 'status:', '  conditions:', '  - type: Ready', '    status: "True"',
      '    lastTransitionTime: 2024-01-11T09:13:01Z', '  nodeInfo:', '    kubeletVersion: v1.29.6', '---', 'kind: Node', 'metadata:', '  name: w-2', '',
    ].join('\n');
    const { nodes, error } = parseNodeObjects(y);
    expect(error).toBeNull();
    expect(nodes.map((n) => n.name)).toEqual(['w-1', 'w-2']);
    expect(nodes[0]?.conditions[0]?.lastTransitionTime).toBe(Date.parse('2024-01-11T09:13:01Z'));
    expect(nodes[0]?.kubeletVersion).toBe('v1.29.6');
  });

  it("skips the image list (most of a Node's YAML) line for line: same node, same evidence lines", () => {
    const images = ['  images:', ...Array.from({ length: 40 }, (_, k) => [`  - names:`, `    - quay.io/x/y@sha256:${String(k).padStart(64, '0')}`, `    sizeBytes: ${400000 + k}`]).flat()];
    const base = nodeYaml('w-7', { ready: false, role: 'worker', plegAgeS: 200 });
    // oc writes status.images between status.conditions and status.nodeInfo; also at the end, and in a NodeList.
    const lines = base.split('\n');
    const at = lines.findIndex((l) => /^  nodeInfo:/.test(l));
    const withImages = [...lines.slice(0, at), ...images, '', ...lines.slice(at)].join('\n');
    const lean = withoutImageLists(withImages.split('\n')) as string;
    expect(lean.split('\n')).toHaveLength(withImages.split('\n').length);
    expect(lean).not.toContain('sha256');
    expect(lean).toContain('  nodeInfo:');
    const a = parseNodeObjects(withImages);
    const b = parseNodeObjects(base);
    expect(a.error).toBeNull();
    expect(a.nodes.map((n) => ({ ...n, conditions: n.conditions.map((c) => ({ ...c, line: 0 })) }))).toEqual(b.nodes.map((n) => ({ ...n, conditions: n.conditions.map((c) => ({ ...c, line: 0 })) })));
    const ready = a.nodes[0]!.conditions.find((c) => c.type === 'Ready')!;
    expect(withImages.split('\n')[ready.line - 1]).toContain('PLEG is not healthy');
    const list = ['apiVersion: v1', 'kind: NodeList', 'items:', ...withImages.split('\n').map((l) => (l ? `  ${l}` : l)).map((l, i) => (i === 0 ? `- ${l.trimStart()}` : l))].join('\n');
    expect(withoutImageLists(list.split('\n'))).not.toContain('sha256');
    expect(parseNodeObjects(list).nodes.map((n) => n.kubeletVersion)).toEqual(b.nodes.map((n) => n.kubeletVersion));
    // Nothing to cut, or a flow list: untouched.
    expect(withoutImageLists(base.split('\n'))).toBeNull();
    expect(withoutImageLists(['status:', '  images: []', '  nodeInfo: {}'])).toBeNull();
  });

  it('an alias bomb is read in linear time (aliases share one object; each is walked once)', () => {
    const ls = ['a0: &a0 {kind: Node, metadata: {name: bomb}}'];
    for (let i = 1; i <= 30; i++) ls.push(`a${i}: &a${i} {items: [*a${i - 1}, *a${i - 1}, *a${i - 1}, *a${i - 1}]}`);
    ls.push('items: [*a30]');
    const t0 = Date.now();
    const { nodes } = parseNodeObjects(ls.join('\n') + '\n');
    expect(nodes.map((n) => n.name)).toEqual(['bomb']);
    // 4^30 paths if each alias were expanded or walked anew.
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});

describe('container tables', () => {
  it('crictl pods: sandboxes and how many are Ready', () => {
    expect(countContainers(CRICTL_PODS)).toMatchObject({ kind: 'crictl-pods', sandboxes: 3, sandboxesReady: 2 });
  });
  it('crictl ps -a: running and exited', () => {
    expect(countContainers(CRICTL_PS_A)).toMatchObject({ kind: 'crictl-ps', containers: 3, running: 2, exited: 1 });
  });
  it('docker ps -a: k8s_POD_ sandboxes apart from containers', () => {
    const t = [
      'CONTAINER ID   IMAGE                  COMMAND                  CREATED        STATUS                    PORTS     NAMES',
      'a1b2c3d4e5f6   k8s.gcr.io/pause:3.2   "/pause"                 2 hours ago    Up 2 hours                          k8s_POD_web-0_default_0892e7d7_0',
      'b1b2c3d4e5f6   nginx                  "/docker-entrypoint.…"   2 hours ago    Up 2 hours                          k8s_web_web-0_default_0892e7d7_0',
      'c1b2c3d4e5f6   nginx                  "/docker-entrypoint.…"   3 hours ago    Exited (137) 2 hours ago            k8s_web_web-0_default_0892e7d7_1',
      'd1b2c3d4e5f6   k8s.gcr.io/pause:3.2   "/pause"                 3 hours ago    Exited (0) 2 hours ago              k8s_POD_old_default_1111_0',
    ].join('\n');
    expect(countContainers(t)).toEqual({ kind: 'docker-ps', sandboxes: 2, sandboxesReady: 1, containers: 2, running: 1, exited: 1 });
  });
  it('not a table', () => {
    expect(countContainers('hello\nworld\n')).toBeNull();
  });
});
