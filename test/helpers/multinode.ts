// A multi-node input the tests build: a must-gather whose masters' service log merges three hosts' kubelet journals.
import { nodeLogs, nodeYaml, type Files } from '../bundles/fixtures.js';

/** Three masters' kubelets in one merged service log (must-gather), master-1 stalled; two identical lines in one
 *  second stay two lines. */
export function mustGather(): Files {
  const name = 'must-gather.local.5464029130631179436';
  const d = `${name}/quay-io-openshift-release-dev-ocp-v4-0-art-dev-sha256-${'0123456789abcdef'.repeat(4)}`;
  const hosts = ['master-0', 'master-1', 'master-2'];
  const logs = hosts.map((h) => nodeLogs(h, { ident: 'kubenswrapper', precise: true, stallAt: h === 'master-2' ? null : 10 * 60_000 }));
  const merged = logs.flatMap((l) => l.kubelet.split('\n').filter(Boolean)).sort();
  return {
    [`${name}/timestamp`]: '2024-01-11 09:49:58.000000000 +0000 UTC m=+0.01\n',
    [`${d}/version`]: 'openshift/must-gather\n4.14.0\n',
    [`${d}/timestamp`]: '2024-01-11 09:50:00.000000000 +0000 UTC m=+0.01\n2024-01-11 09:55:00.000000000 +0000 UTC m=+300.0\n',
    [`${d}/cluster-scoped-resources/core/nodes/master-0.yaml`]: nodeYaml('master-0', { ready: true, role: 'master' }),
    [`${d}/cluster-scoped-resources/core/nodes/master-1.yaml`]: nodeYaml('master-1', { ready: false, role: 'master', plegAgeS: 245, heartbeat: '2024-01-11T09:14:05Z', transition: '2024-01-11T09:13:01Z' }),
    [`${d}/cluster-scoped-resources/core/nodes/master-2.yaml`]: nodeYaml('master-2', { ready: true, role: 'master' }),
    [`${d}/host_service_logs/masters/kubelet_service.log`]: merged.join('\n') + '\n',
  };
}

