// The built-in evidence gaps: what was not in the input that would decide between the remaining causes, and the
// command that collects it. Data, like the rules (catalog.ts); the engine renders the templates over the node's facts.
//
// Commands fit the incident and the bundle's world (facts `bundle.world`, `bundle.cli`): OpenShift's `oc adm
// node-logs` / `oc debug node/` for a must-gather or an inspect, the node's own shell for a sosreport (sos runs there),
// `docker exec` into kind's node containers, `kubectl debug node/` elsewhere. Journal queries are anchored on the
// node's stalls (`collect.since`/`collect.until`: 10 min either side, in UTC), not on "the last day". One command per
// line (`#` lines are comments); every value from the input is a quoted shell word (`|node` refuses a name no node can
// have, and the gap then says so instead of suggesting a command; a name it lets through is [a-z0-9.-] only, so it
// may stand inside double quotes).
// Through the API server first (no pod on the node): the node log query, the kubelet's /logs/ file server, its /metrics
// and pprof through the node proxy; then the node's own shell; `kubectl debug node/` last, marked as needing a pod on
// the node (it hangs when the node is NotReady). The log query gets `sinceTime` only: the kubelet turns `untilTime`
// into `journalctl --until=<sinceTime>` (pkg/kubelet/kubelet_server_journal_linux.go), which would print nothing.
// When a kubeconfig is at hand, the gaps end with the one `plegscope collect` that gets them all (`closing`).
import type { Condition, GapSpec } from './spec.js';

const world = (w: 'openshift' | 'node' | 'kind' | 'kubernetes'): Condition => ({ fact: 'bundle.world', op: '==', value: w });
const stalled: Condition = { fact: 'stall.count', op: '>=', value: 1 };

/** journalctl's window options for this node's incident. */
const WINDOW = '{collect.since|since}{collect.until|until}';
const OC_WINDOW = '{collect.since|ocsince}{collect.until|ocuntil}';
/** Runs a command in the node's root filesystem from a pod (kubectl 1.20+; leaves a node-debugger-… pod behind). */
const KUBECTL_DEBUG = 'kubectl debug node/{node.name|node} -q -i --image=busybox -- chroot /host';
const NEEDS_POD = '# last resort — needs a pod on the node: hangs when it is NotReady:';
/** The node log query through the API server (`/proxy/logs/?query=UNIT&sinceTime=…`) and what it needs. */
const LOG_QUERY = "# no pod on the node: the node log query, through the API server\n# (kubelet: enableSystemLogQuery: true, NodeLogQuery gate, beta 1.30+):";
const logQuery = (query: string, file: string): string => `kubectl get --raw "/api/v1/nodes/{node.name|node}/proxy/logs/?${query}{collect.since|qsince}" > {node.name|node}-${file}`;
const METRICS_WHY = 'relist duration and per-operation CRI latency come from /metrics; two snapshots a few minutes apart during a stall show whether relist froze';
const metrics = (cli: string): string => [
  '# twice, 5 min apart, during the next stall:',
  `${cli} get --raw /api/v1/nodes/{node.name|node}/proxy/metrics > {node.name|node}-$(date -u +%Y%m%dT%H%M%SZ).metrics`,
].join('\n');

/** What the first gap says is missing when the node's kubelet journal is not in the input (engine.ts keeps it first). */
export const KUBELET_LOG_GAP = 'kubelet log of this node';

export const BUILTIN_GAPS: GapSpec[] = [
  // The kubelet's own journal comes first when it is missing: only it says when PLEG stopped relisting and what the
  // kubelet was doing; runtime, kernel logs and metrics can only be read around it.
  {
    id: 'must-gather-no-kubelet-log',
    when: [{ fact: 'bundle.kind', op: '==', value: 'must-gather' }, { fact: 'has.kubelet-log', op: 'falsy' }],
    missing: KUBELET_LOG_GAP,
    why: "a default must-gather collects only the masters' kubelet and CRI-O journals (host_service_logs/masters/); this node's are not in it",
    collect: [
      `oc adm node-logs {node.name|node} -u kubelet${OC_WINDOW} > {node.name|node}-kubelet.log`,
      `oc adm node-logs {node.name|node} -u crio${OC_WINDOW} > {node.name|node}-crio.log`,
      '# or every worker at once: oc adm must-gather -- /usr/bin/gather_service_logs worker',
    ].join('\n'),
  },
  {
    id: 'no-kubelet-log-openshift',
    when: [{ fact: 'has.kubelet-log', op: 'falsy' }, world('openshift'), { fact: 'bundle.kind', op: '!=', value: 'must-gather' }],
    missing: KUBELET_LOG_GAP,
    why: "only the kubelet's journal says when PLEG stopped relisting and what the kubelet saw; the input holds none of this node's",
    collect: `oc adm node-logs {node.name|node} -u kubelet${OC_WINDOW} > {node.name|node}-kubelet.log`,
  },
  {
    id: 'no-kubelet-log-node',
    when: [{ fact: 'has.kubelet-log', op: 'falsy' }, world('node')],
    missing: KUBELET_LOG_GAP,
    why: "only the kubelet's journal says when PLEG stopped relisting and what the kubelet saw; this sosreport holds none (its kubernetes plugin did not run, or the kubelet's unit has another name)",
    collect: [
      '# on the node, as root: a sosreport with the kubelet journal',
      'sos report -o kubernetes,logs --batch',
      '# or the journal alone:',
      `journalctl -u kubelet${WINDOW} -o short-iso-precise > {node.name|node}-kubelet.log`,
    ].join('\n'),
  },
  {
    id: 'no-kubelet-log-kind',
    when: [{ fact: 'has.kubelet-log', op: 'falsy' }, world('kind')],
    missing: KUBELET_LOG_GAP,
    why: "only the kubelet's journal says when PLEG stopped relisting and what the kubelet saw; the input holds none of this node's",
    collect: `docker exec {node.name|node} journalctl -u kubelet${WINDOW} -o short-iso-precise > {node.name|node}-kubelet.log`,
  },
  {
    id: 'no-kubelet-log',
    when: [{ fact: 'has.kubelet-log', op: 'falsy' }, world('kubernetes')],
    missing: KUBELET_LOG_GAP,
    why: "only the kubelet's journal says when PLEG stopped relisting and what the kubelet saw; the input holds none of this node's",
    collect: [
      LOG_QUERY,
      logQuery('query=kubelet', 'kubelet.log'),
      '# the same with the kubectl node-logs plugin, where installed:',
      'kubectl node-logs {node.name|node} --query=kubelet > {node.name|node}-kubelet.log',
      '# on the node, as root:',
      `journalctl -u kubelet${WINDOW} -o short-iso-precise > kubelet.log`,
      NEEDS_POD,
      `${KUBECTL_DEBUG} journalctl -u kubelet${WINDOW} -o short-iso-precise > {node.name|node}-kubelet.log`,
    ].join('\n'),
  },
  {
    id: 'no-metrics-sosreport',
    when: [{ fact: 'metrics.present', op: 'falsy' }, { fact: 'bundle.kind', op: '==', value: 'sosreport' }],
    missing: 'kubelet metrics',
    why: "a sosreport never holds the kubelet's /metrics (its kubectl_get_--raw_.metrics file, on masters, is the API server's); relist duration and per-operation CRI latency come only from there",
    collect: `${metrics('kubectl')}\n# from any machine with cluster access; hand the files to plegscope with the sosreport`,
  },
  {
    id: 'no-metrics-must-gather',
    when: [{ fact: 'metrics.present', op: 'falsy' }, world('openshift')],
    missing: 'kubelet metrics',
    why: 'a default must-gather holds no kubelet /metrics (only with gather_metrics); relist duration and per-operation CRI latency come from there',
    collect: metrics('oc'),
  },
  {
    id: 'no-metrics',
    when: [{ fact: 'metrics.present', op: 'falsy' }, { fact: 'bundle.kind', op: '!=', value: 'sosreport' }, { fact: 'bundle.world', op: '!=', value: 'openshift' }],
    missing: 'kubelet metrics',
    why: METRICS_WHY,
    collect: metrics('kubectl'),
  },
  {
    id: 'must-gather-skipped-node',
    when: [{ fact: 'node.skipped', op: 'truthy' }],
    missing: 'node-side files (dmesg, pod resources) of this node',
    why: 'must-gather listed this node in nodes/skipped_nodes.txt: its gather pod did not run there, which is what a NotReady node does',
    collect: [
      `oc adm node-logs {node.name|node} -u kubelet -u crio${OC_WINDOW} > {node.name|node}-journal.log`,
      '# needs a pod on the node: hangs when it is NotReady',
      '# (then run the journalctl part on the node itself):',
      `oc debug node/{node.name|node} -- chroot /host journalctl _TRANSPORT=kernel${WINDOW} -o short-precise > {node.name|node}-kernel.log`,
    ].join('\n'),
  },
  // The runtime's log, from the incident's window.
  {
    id: 'no-runtime-log-openshift',
    when: [stalled, { fact: 'has.runtime-log', op: 'falsy' }, world('openshift')],
    missing: 'container runtime log',
    why: 'whether the runtime was hung, restarting or stuck on one container is decided by its own log',
    collect: `oc adm node-logs {node.name|node} -u crio${OC_WINDOW} > {node.name|node}-crio.log`,
  },
  {
    id: 'no-runtime-log-node',
    when: [stalled, { fact: 'has.runtime-log', op: 'falsy' }, world('node')],
    missing: 'container runtime log',
    why: 'whether the runtime was hung, restarting or stuck on one container is decided by its own log',
    collect: `# on the node, as root:\njournalctl {runtime|units}${WINDOW} -o short-precise > {node.name|node}-runtime.log`,
  },
  {
    id: 'no-runtime-log-kind',
    when: [stalled, { fact: 'has.runtime-log', op: 'falsy' }, world('kind')],
    missing: 'container runtime log',
    why: 'whether the runtime was hung, restarting or stuck on one container is decided by its own log',
    collect: `docker exec {node.name|node} journalctl -u containerd${WINDOW} -o short-precise > {node.name|node}-containerd.log`,
  },
  {
    id: 'no-runtime-log',
    when: [stalled, { fact: 'has.runtime-log', op: 'falsy' }, world('kubernetes')],
    missing: 'container runtime log',
    why: 'whether the runtime was hung, restarting or stuck on one container is decided by its own log',
    collect: [
      LOG_QUERY,
      logQuery('{runtime|queries}', 'runtime.log'),
      '# on the node itself, as root:',
      `journalctl {runtime|units}${WINDOW} -o short-precise > {node.name|node}-runtime.log`,
      NEEDS_POD,
      `${KUBECTL_DEBUG} journalctl {runtime|units}${WINDOW} -o short-precise > {node.name|node}-runtime.log`,
    ].join('\n'),
  },
  // The kernel's log, from the incident's window (`-k` would read the current boot only).
  {
    id: 'no-kernel-log-openshift',
    when: [stalled, { fact: 'has.kernel-log', op: 'falsy' }, world('openshift')],
    missing: 'kernel log',
    why: 'hung tasks, NFS timeouts, unregister_netdevice and OOM kills only show in the kernel log',
    collect: `# needs a pod on the node: hangs when it is NotReady\n# (then run the journalctl part on the node itself):\noc debug node/{node.name|node} -- chroot /host journalctl _TRANSPORT=kernel${WINDOW} -o short-precise > {node.name|node}-kernel.log`,
  },
  {
    id: 'no-kernel-log-node',
    when: [stalled, { fact: 'has.kernel-log', op: 'falsy' }, world('node')],
    missing: 'kernel log',
    why: 'hung tasks, NFS timeouts, unregister_netdevice and OOM kills only show in the kernel log',
    collect: `# on the node, as root:\njournalctl _TRANSPORT=kernel${WINDOW} -o short-precise > {node.name|node}-kernel.log`,
  },
  {
    id: 'no-kernel-log-kind',
    when: [stalled, { fact: 'has.kernel-log', op: 'falsy' }, world('kind')],
    missing: 'kernel log',
    why: "hung tasks, NFS timeouts, unregister_netdevice and OOM kills only show in the kernel log; kind's nodes share the kernel of the machine that runs Docker",
    collect: `# on the machine that runs the kind cluster:\njournalctl _TRANSPORT=kernel${WINDOW} -o short-precise > {node.name|node}-kernel.log`,
  },
  {
    id: 'no-kernel-log',
    when: [stalled, { fact: 'has.kernel-log', op: 'falsy' }, world('kubernetes')],
    missing: 'kernel log',
    why: 'hung tasks, NFS timeouts, unregister_netdevice and OOM kills only show in the kernel log',
    collect: [
      "# no pod on the node: the kubelet's /logs/ file server (/var/log),",
      '# kern.log where rsyslog writes one, else messages:',
      'kubectl get --raw "/api/v1/nodes/{node.name|node}/proxy/logs/kern.log" > {node.name|node}-kernel.log',
      '# on the node itself, as root:',
      `journalctl _TRANSPORT=kernel${WINDOW} -o short-precise > {node.name|node}-kernel.log`,
      NEEDS_POD,
      `${KUBECTL_DEBUG} journalctl _TRANSPORT=kernel${WINDOW} -o short-precise > {node.name|node}-kernel.log`,
    ].join('\n'),
  },
  {
    id: 'no-goroutines',
    when: [stalled, { fact: 'goroutine.present', op: 'falsy' }, { fact: 'cri.timeouts', op: '==', value: 0 }],
    missing: 'kubelet goroutine dump',
    why: 'with no CRI error in the logs, only the relist goroutine\'s stack shows where it is blocked (runtime call, CNI, channel send)',
    collect: '# during the next stall:\n{bundle.cli|sh} get --raw "/api/v1/nodes/{node.name|node}/proxy/debug/pprof/goroutine?debug=2" > {node.name|node}-goroutines.txt',
  },
  {
    id: 'no-version',
    when: [stalled, { fact: 'kubelet.version', op: 'absent' }],
    missing: 'kubelet version',
    why: 'the relist deadlock exists only before 1.14, and log wordings differ by version',
    collect: "{bundle.cli|sh} get node {node.name|node} -o jsonpath='{.status.nodeInfo.kubeletVersion}'",
  },
  {
    id: 'runtime-goroutines',
    when: [stalled, { fact: 'cri.timeouts', op: '>=', value: 1 }, { fact: 'goroutine.runtimeProgram', op: 'absent' }, { fact: 'bundle.world', op: '!=', value: 'kind' }],
    missing: "the container runtime's goroutine dump",
    why: 'CRI calls timed out: only the runtime\'s own stacks show what it was blocked on (a lock, a shim, the disk); no API route reaches them',
    collect: [
      '# on the node, as root, during the next stall (nothing restarts):',
      '# containerd: stacks in its journal and a containerd.*.stacks.log',
      'pkill -USR1 -x containerd',
      '# CRI-O: /tmp/crio-goroutine-stacks-*.log',
      'pkill -USR1 -x crio',
      '# dockerd: goroutine-stacks-*.log under /var/run/docker',
      'pkill -USR1 -x dockerd',
    ].join('\n'),
  },
  // Last, when a kubeconfig is at hand: the one command that gets all of the above through the API server.
  {
    id: 'plegscope-collect',
    closing: true,
    when: [{ fact: 'cluster.kubeconfig', op: 'truthy' }, { fact: 'bundle.world', op: '!=', value: 'kind' }],
    missing: 'what the API server can give, in one command',
    why: 'a kubeconfig is at hand: plegscope collect reads the node\'s journals, kernel log, metrics, kubelet goroutines and Node object through the API server (GET only, no pod on the node) and prints the analysis',
    collect: 'plegscope collect {node.name|node}{collect.since|pcsince}',
  },
];
