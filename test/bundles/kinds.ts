// One fixture per bundle kind (shared/reference/bundle-layouts.md §10), with the same logs as loose files.
import { CRICTL_PODS, CRICTL_PS_A, nodeLogs, nodeYaml, tarBuffer, compress, haveXz, type Files } from './fixtures.js';

export interface KindFixture {
  kind: string;
  /** Name of the bundle (folder or archive base name). */
  name: string;
  files: Files;
  /** The same logs as loose files (folder layout), analyzed with `tz`. */
  loose: Record<string, string>;
  tz: string;
  /** Expected input kind in the JSON, and node names. */
  inputKind: string;
  nodes: string[];
}

const BERLIN = 60;

function sos(host: string, o: { offsetMin: number; stall: boolean }): { files: Files; logs: ReturnType<typeof nodeLogs> } {
  const logs = nodeLogs(host, { offsetMin: o.offsetMin, stallAt: o.stall ? 10 * 60_000 : null });
  const full = [...logs.kubelet.split('\n'), ...logs.runtime.split('\n')].filter((l) => l !== '').sort().join('\n') + '\n';
  const files: Files = {
    'version.txt': 'sos report: 4.9.0\n',
    'hostname': { symlink: 'sos_commands/host/hostname' },
    'date': { symlink: 'sos_commands/systemd/timedatectl' },
    'sos_commands/host/hostname': `${host}\n`,
    'sos_commands/systemd/timedatectl': '               Local time: Thu 2024-01-11 11:00:00 CET\n           Universal time: Thu 2024-01-11 10:00:00 UTC\n                 RTC time: Thu 2024-01-11 10:00:00\n                Time zone: Europe/Berlin (CET, +0100)\nSystem clock synchronized: yes\n              NTP service: active\n          RTC in local TZ: no\n',
    'sos_reports/manifest.json': JSON.stringify({ version: '4.9.0', start_time: '2024-01-11 11:00:00.000000', components: { report: { plugins: { kubernetes: { commands: [{ exec: 'journalctl --no-pager --unit kubelet --reverse', filepath: 'sos_commands/kubernetes/journalctl_--no-pager_--unit_kubelet', truncated: true, return_code: 0 }] } } } } }),
    'sos_logs/sos.log': '2024-01-11 11:00:00,000 INFO: sos report starting\n',
    'sos_strings/kubernetes/journalctl_--no-pager_--unit_kubelet.tailed': logs.kubelet,
    'sos_commands/kubernetes/journalctl_--no-pager_--unit_kubelet': { symlink: '../../sos_strings/kubernetes/journalctl_--no-pager_--unit_kubelet.tailed' },
    'sos_commands/kubernetes/systemctl_status_kubelet': `● kubelet.service - kubelet: The Kubernetes Node Agent\n     Loaded: loaded (/usr/lib/systemd/system/kubelet.service; enabled)\n     Active: active (running) since Thu 2024-01-11 10:00:00 CET; 1h ago\n${logs.kubelet.split('\n').slice(-3).join('\n')}\n`,
    'sos_commands/kubernetes/kubectl_get_--raw_.metrics': '# TYPE apiserver_request_total counter\napiserver_request_total{code="200",verb="GET"} 12345\napiserver_request_total{code="500",verb="GET"} 3\n',
    'sos_commands/containerd/journalctl_--no-pager_--unit_containerd': logs.runtime,
    'sos_commands/kernel/dmesg_-T': logs.dmesgT,
    'sos_commands/kernel/dmesg': '[  660.000000] eth0: Link is Up - 10Gbps/Full\n',
    'sos_commands/logs/journalctl_--no-pager': full,
    'sos_commands/logs/journalctl_--no-pager_--boot': full,
    'sos_commands/crio/crictl_pods': CRICTL_PODS,
    'sos_commands/crio/crictl_ps_-a': CRICTL_PS_A,
    'etc/localtime': { symlink: '../usr/share/zoneinfo/Europe/Berlin' },
    'var/log/messages': full,
    'var/log/pods/kube-system_kube-proxy-x7k2p_0123/kube-proxy/0.log': '2024-01-11T09:00:00.000000000+00:00 stderr F I0111 09:00:00.000000       1 server.go:200] "Using iptables proxier" kubelet="skip"\n',
    'var/log/containers/kube-proxy-x7k2p_kube-system_kube-proxy-abc.log': { symlink: '../pods/kube-system_kube-proxy-x7k2p_0123/kube-proxy/0.log' },
    'lib': { symlink: 'usr/lib' },
  };
  return { files, logs };
}

function prefix(p: string, files: Files): Files {
  const out: Files = {};
  for (const [k, v] of Object.entries(files)) out[`${p}/${k}`] = v;
  return out;
}

export async function fixtures(): Promise<KindFixture[]> {
  const out: KindFixture[] = [];

  // sosreport: node-local zone (Europe/Berlin), truncated unit journal behind a .tailed link, duplicates everywhere.
  {
    const s = sos('worker1', { offsetMin: BERLIN, stall: true });
    const name = 'sosreport-worker1-2024-01-11-qwertyu';
    out.push({
      kind: 'sosreport', name, files: prefix(name, s.files), tz: 'Europe/Berlin', inputKind: 'sosreport', nodes: ['worker1'],
      loose: { 'kubelet.log': s.logs.kubelet, 'containerd.log': s.logs.runtime, 'dmesg.txt': s.logs.dmesgT },
    });
  }

  // sos collect: two nodes' sosreports as tarballs inside the collector's tarball.
  {
    const a = sos('node1', { offsetMin: BERLIN, stall: true });
    const b = sos('node2', { offsetMin: BERLIN, stall: false });
    const inner = async (n: string, f: Files) => compress(await tarBuffer(prefix(n, f)), haveXz ? 'xz' : 'gz');
    const ext = haveXz ? 'tar.xz' : 'tar.gz';
    const name = 'sos-collector-case1-2024-01-11-abcde';
    out.push({
      kind: 'sos-collect', name, tz: 'Europe/Berlin', inputKind: 'sosreport', nodes: ['node1', 'node2'],
      files: {
        [`${name}/sos_logs/sos.log`]: 'sos collect starting\n',
        [`${name}/sosreport-node1-2024-01-11-aaaaaaa.${ext}`]: await inner('sosreport-node1-2024-01-11-aaaaaaa', a.files),
        [`${name}/sosreport-node2-2024-01-11-bbbbbbb.${ext}`]: await inner('sosreport-node2-2024-01-11-bbbbbbb', b.files),
      },
      loose: { 'node1.log': a.logs.kubelet, 'node1-containerd.log': a.logs.runtime, 'node2.log': b.logs.kubelet, 'node2-containerd.log': b.logs.runtime },
    });
  }

  // must-gather: masters' merged service log in UTC short-precise, node YAMLs.
  {
    const m0 = nodeLogs('master-0', { stallAt: 10 * 60_000, ident: 'kubenswrapper', precise: true });
    const img = 'quay-io-openshift-release-dev-ocp-v4-0-art-dev-sha256-' + 'a'.repeat(64);
    const name = 'must-gather.local.5464029130631179436';
    out.push({
      kind: 'must-gather', name, tz: 'UTC', inputKind: 'must-gather', nodes: ['master-0'],
      files: {
        [`${name}/timestamp`]: '2024-01-11 09:50:00.123456789 +0000 UTC m=+0.01\n',
        [`${name}/${img}/version`]: 'openshift/must-gather\n4.14.0\n',
        [`${name}/${img}/timestamp`]: '2024-01-11 09:50:01.000000000 +0000 UTC m=+0.02\n2024-01-11 09:55:00.000000000 +0000 UTC m=+300.0\n',
        [`${name}/${img}/host_service_logs/masters/kubelet_service.log`]: m0.kubelet,
        [`${name}/${img}/cluster-scoped-resources/core/nodes/master-0.yaml`]: nodeYaml('master-0', { ready: true, role: 'master' }),
        [`${name}/${img}/namespaces/openshift-machine-config-operator/pods/mcd-4xk2p/machine-config-daemon/machine-config-daemon/logs/current.log`]: '2024-01-11T09:00:00.000000000Z I0111 09:00:00.000000    1234 daemon.go:100] kubelet config check\n',
      },
      loose: { 'kubelet_service.log': m0.kubelet, 'master-0.yaml': nodeYaml('master-0', { ready: true, role: 'master' }) },
    });
  }

  // oc adm inspect: only the node object, NotReady with the PLEG message.
  {
    const name = 'inspect.local.8123401928734019283';
    const y = nodeYaml('worker-0', { ready: false, role: 'worker', plegAgeS: 245, heartbeat: '2024-01-11T09:20:05Z', transition: '2024-01-11T09:17:05Z' });
    out.push({
      kind: 'inspect', name, tz: 'UTC', inputKind: 'must-gather', nodes: ['worker-0'],
      files: {
        [`${name}/timestamp`]: '2024-01-11 09:30:00.000000000 +0000 UTC m=+0.01\n',
        [`${name}/event-filter.html`]: '<html></html>\n',
        [`${name}/aggregated-discovery-api.yaml`]: 'apiVersion: apidiscovery.k8s.io/v2\nkind: APIGroupDiscoveryList\nitems: []\n',
        [`${name}/cluster-scoped-resources/core/nodes/worker-0.yaml`]: y,
      },
      loose: { 'worker-0.yaml': y },
    });
  }

  // EKS log collector: members start with ./, no top directory; UTC.
  {
    const l = nodeLogs('ip-10-0-1-23.ec2.internal', { stallAt: 10 * 60_000 });
    out.push({
      kind: 'eks-logs', name: 'eks_i-0abc123def4567890_2024-01-11_1000-UTC_0.7.9', tz: 'UTC', inputKind: 'eks-logs', nodes: ['ip-10-0-1-23.ec2.internal'],
      files: {
        './kubelet/kubelet.log': l.kubelet,
        './kubelet/kubelet_service.txt': '[Unit]\nDescription=Kubernetes Kubelet\n',
        './containerd/containerd-log.txt': l.runtime,
        './kernel/dmesg.human.current': l.dmesgT,
        './kernel/dmesg.current': '[  660.000000] eth0: Link is Up - 10Gbps/Full\n',
        './var_log/messages': l.kubelet,
        './var_log/kube-system_aws-node-abcde_0123/aws-node/0.log': '2024-01-11T09:00:00.000000000+00:00 stderr F I0111 09:00:00.000000       1 main.go:10] kubelet ipamd\n',
        './system/instance-id.txt': 'i-0abc123def4567890\n',
        './ipamd/metrics.json': '# TYPE awscni_eni_allocated gauge\nawscni_eni_allocated 2\nawscni_ip_max 29\nawscni_total_ip_addresses 29\n',
      },
      loose: { 'kubelet.log': l.kubelet, 'containerd.log': l.runtime, 'dmesg.txt': l.dmesgT },
    });
  }

  // AKS Periscope: flat blobs per node and the node's zip holding the same logs again.
  {
    const node = 'aks-nodepool1-12345678-vmss000000';
    const l = nodeLogs(node, { stallAt: 10 * 60_000 });
    const zip = (await import('./fixtures.js')).zipBuffer({ 'systemlogs/kubelet': l.kubelet, 'systemlogs/docker': l.runtime, 'kubeletcmd/kubeletcmd': '/usr/local/bin/kubelet --node-ip=10.224.0.4\n' });
    const run = '2024-01-11T10-00-00Z';
    out.push({
      kind: 'aks', name: 'aks-periscope', tz: 'UTC', inputKind: 'directory', nodes: [node],
      files: {
        [`${run}/${node}/kubelet`]: l.kubelet,
        [`${run}/${node}/docker`]: l.runtime,
        [`${run}/${node}/kubeletcmd`]: '/usr/local/bin/kubelet --node-ip=10.224.0.4\n',
        [`${run}/${node}/var_log_azure_cluster-provision.log`]: 'Custom script finished\n',
        [`${run}/${node}/${node}.zip`]: zip,
      },
      loose: { 'kubelet.log': l.kubelet, 'runtime.log': l.runtime },
    });
  }

  // Rancher logs collector, rke2 agent: raw klog file (no host field), crictl tables, systeminfo/date with its zone.
  {
    const l = nodeLogs('worker-1', { stallAt: 10 * 60_000 });
    const raw = l.kubelet.split('\n').map((x) => x.replace(/^\w{3} \d{2} \d{2}:\d{2}:\d{2} \S+ \S+: /, '')).join('\n');
    const dir = 'worker-1-2024-01-11_10_00_00';
    out.push({
      kind: 'rancher', name: 'worker-1-2024-01-11_10_00_00', tz: 'UTC', inputKind: 'directory', nodes: ['worker-1'],
      files: {
        [`./${dir}/versions`]: 'rke2 version v1.28.3+rke2r1\n',
        [`./${dir}/collector-output.log`]: 'collecting\n',
        [`./${dir}/systeminfo/hostname`]: 'worker-1\n',
        [`./${dir}/systeminfo/date`]: 'Thu Jan 11 10:00:00 UTC 2024\n',
        [`./${dir}/systeminfo/dmesg`]: l.dmesgT,
        [`./${dir}/journald/rke2-agent`]: 'Jan 11 09:00:00 worker-1 rke2[700]: time="2024-01-11T09:00:00Z" level=info msg="Starting rke2 agent"\n',
        [`./${dir}/rke2/agent-logs/kubelet.log`]: raw,
        [`./${dir}/rke2/containerd.log`]: 'time="2024-01-11T09:12:00.000000000Z" level=error msg="failed to handle container TaskExit event" error="failed to stop container: context deadline exceeded"\n',
        [`./${dir}/rke2/crictl/psa`]: CRICTL_PS_A,
        [`./${dir}/rke2/crictl/pods`]: CRICTL_PODS,
        [`./${dir}/rke2/podlogs/kube-system_rke2-canal-abcde_0123/kube-flannel/0.log`]: '2024-01-11T09:00:00.000000000Z stderr F I0111 09:00:00.000000       1 main.go:10] kubelet flannel\n',
      },
      loose: {
        'nodes/worker-1/kubelet.log': raw,
        'nodes/worker-1/containerd.log': 'time="2024-01-11T09:12:00.000000000Z" level=error msg="failed to handle container TaskExit event" error="failed to stop container: context deadline exceeded"\n',
        'nodes/worker-1/dmesg': l.dmesgT,
        'nodes/worker-1/psa': CRICTL_PS_A,
        'nodes/worker-1/pods': CRICTL_PODS,
      },
    });
  }

  // kind export logs: two node containers.
  {
    const cp = nodeLogs('kind-control-plane', { stallAt: 10 * 60_000 });
    const w = nodeLogs('kind-worker', { stallAt: null });
    const node = (n: string, l: ReturnType<typeof nodeLogs>): Files => ({
      [`kind-logs/${n}/kubernetes-version.txt`]: 'v1.28.3\n',
      [`kind-logs/${n}/kubelet.log`]: l.kubelet,
      [`kind-logs/${n}/journal.log`]: [...l.kubelet.split('\n'), ...l.runtime.split('\n')].filter(Boolean).sort().join('\n') + '\n',
      [`kind-logs/${n}/containerd.log`]: l.runtime,
      [`kind-logs/${n}/serial.log`]: 'systemd 252 running in system mode\n',
      [`kind-logs/${n}/inspect.json`]: '[{"Created": "2024-01-11T08:59:00.000000000Z"}]\n',
      [`kind-logs/${n}/pods/kube-system_kindnet-abcde_0123/kindnet-cni/0.log`]: '2024-01-11T09:00:00.000000000Z stderr F I0111 09:00:00.000000       1 main.go:10] kubelet kindnet\n',
    });
    out.push({
      kind: 'kind', name: 'kind-logs', tz: 'UTC', inputKind: 'directory', nodes: ['kind-control-plane', 'kind-worker'],
      files: { 'kind-logs/kind-version.txt': 'kind v0.20.0 go1.20.4 linux/amd64\n', 'kind-logs/docker-info.txt': 'Server Version: 24.0.7\n', ...node('kind-control-plane', cp), ...node('kind-worker', w) },
      loose: { 'cp-kubelet.log': cp.kubelet, 'cp-containerd.log': cp.runtime, 'w-kubelet.log': w.kubelet, 'w-containerd.log': w.runtime },
    });
  }
  return out;
}
