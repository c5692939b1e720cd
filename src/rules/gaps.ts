// The built-in evidence gaps: what was not in the input that would decide between the remaining causes, and the
// command that collects it. Data, like the rules (catalog.ts); the engine renders the templates over the node's facts.
import type { GapSpec } from './spec.js';

export const BUILTIN_GAPS: GapSpec[] = [
  {
    id: 'no-metrics-sosreport',
    when: [{ fact: 'metrics.present', op: 'falsy' }, { fact: 'bundle.kind', op: '==', value: 'sosreport' }],
    missing: 'kubelet metrics',
    why: "a sosreport never holds the kubelet's /metrics (its kubectl_get_--raw_.metrics file, on masters, is the API server's); relist duration and per-operation CRI latency come only from there",
    collect: 'from any machine with cluster access, during the next stall: kubectl get --raw /api/v1/nodes/{node.name}/proxy/metrics > {node.name}-$(date -u +%Y%m%dT%H%M%SZ).metrics   # twice, 5 min apart; hand them to plegscope with the sosreport',
  },
  {
    id: 'no-metrics-must-gather',
    when: [{ fact: 'metrics.present', op: 'falsy' }, { fact: 'bundle.kind', op: '==', value: 'must-gather' }],
    missing: 'kubelet metrics',
    why: 'a default must-gather holds no kubelet /metrics (only with gather_metrics); relist duration and per-operation CRI latency come from there',
    collect: 'oc get --raw /api/v1/nodes/{node.name}/proxy/metrics > {node.name}-$(date -u +%Y%m%dT%H%M%SZ).metrics   # twice, 5 min apart during the stall',
  },
  {
    id: 'must-gather-no-kubelet-log',
    when: [{ fact: 'bundle.kind', op: '==', value: 'must-gather' }, { fact: 'has.kubelet-log', op: 'falsy' }],
    missing: 'kubelet log of this node',
    why: "a default must-gather collects only the masters' kubelet and CRI-O journals (host_service_logs/masters/); this node's are not in it",
    collect: 'oc adm must-gather -- /usr/bin/gather_service_logs worker   # or for this node only: oc adm node-logs {node.name} -u kubelet -u crio > {node.name}-journal.log',
  },
  {
    id: 'must-gather-skipped-node',
    when: [{ fact: 'node.skipped', op: 'truthy' }],
    missing: 'node-side files (dmesg, pod resources) of this node',
    why: "must-gather listed this node in nodes/skipped_nodes.txt: its gather pod did not run there, which is what a NotReady node does",
    collect: 'oc adm node-logs {node.name} -u kubelet -u crio > {node.name}-journal.log; oc debug node/{node.name} -- chroot /host dmesg -T > {node.name}-dmesg.txt   # or on the node itself if the API cannot reach it',
  },
  {
    id: 'no-metrics',
    when: [{ fact: 'metrics.present', op: 'falsy' }, { fact: 'bundle.kind', op: '!=', value: 'sosreport' }, { fact: 'bundle.kind', op: '!=', value: 'must-gather' }],
    missing: 'kubelet metrics',
    why: 'relist duration and per-operation CRI latency come from /metrics; two snapshots a few minutes apart during a stall show whether relist froze',
    collect: 'kubectl get --raw /api/v1/nodes/{node.name}/proxy/metrics > {node.name}-$(date -u +%Y%m%dT%H%M%SZ).metrics   # twice, 5 min apart',
  },
  {
    id: 'no-runtime-log',
    when: [{ fact: 'stall.count', op: '>=', value: 1 }, { fact: 'has.runtime-log', op: 'falsy' }],
    missing: 'container runtime log',
    why: 'whether the runtime was hung, restarting or stuck on one container is decided by its own log',
    collect: 'journalctl -u containerd -u crio -u docker --since "-1d" -o short-precise > {node.name}-runtime.log',
  },
  {
    id: 'no-kernel-log',
    when: [{ fact: 'stall.count', op: '>=', value: 1 }, { fact: 'has.kernel-log', op: 'falsy' }],
    missing: 'kernel log',
    why: 'hung tasks, NFS timeouts, unregister_netdevice and OOM kills only show in the kernel log',
    collect: 'journalctl -k --since "-1d" -o short-precise > {node.name}-kernel.log   # or: dmesg -T > {node.name}-dmesg.txt',
  },
  {
    id: 'no-goroutines',
    when: [{ fact: 'stall.count', op: '>=', value: 1 }, { fact: 'goroutine.present', op: 'falsy' }, { fact: 'cri.timeouts', op: '==', value: 0 }],
    missing: 'kubelet goroutine dump',
    why: 'with no CRI error in the logs, only the relist goroutine\'s stack shows where it is blocked (runtime call, CNI, channel send)',
    collect: 'kubectl get --raw "/api/v1/nodes/{node.name}/proxy/debug/pprof/goroutine?debug=2" > {node.name}-goroutines.txt   # during the stall',
  },
  {
    id: 'no-version',
    when: [{ fact: 'stall.count', op: '>=', value: 1 }, { fact: 'kubelet.version', op: 'absent' }],
    missing: 'kubelet version',
    why: 'the relist deadlock exists only before 1.14, and log wordings differ by version',
    collect: 'kubectl get node {node.name} -o jsonpath="{.status.nodeInfo.kubeletVersion}"',
  },
];
