// Every name a rule can read: the facts and evidence pools computeFacts (facts.ts) sets, declared so that a rule pack
// is checked when it is loaded, not when a run happens to lack a fact (a misspelt `stall.cuont` would otherwise read as
// absent on every node and the rule would silently never fire). test/rules/fact-names.test.ts checks this list against
// what computeFacts produces, so a fact added there without being declared here fails the tests.
import type { Role } from '../contract/analysis.js';

/** Facts set on every node. */
export const FACTS: readonly string[] = [
  'stall.count', 'stall.maxDurationSeconds', 'stall.maxAgeSeconds', 'stall.endedByRestart', 'stall.endOfLog',
  'stall.recovered', 'stall.agesGrew', 'stall.neverSucceeded', 'stall.notReady', 'stall.justOverThreshold',
  'node.name', 'kubelet.version', 'kubelet.minor', 'kubelet.pre114', 'kubelet.versionText', 'kubelet.fixedDeadlock',
  'kubelet.restarts', 'runtime', 'cri.errors', 'cri.timeouts', 'cri.listTimeouts', 'cri.listErrors',
  'cri.perIdTimeouts', 'cri.statusTimeouts', 'cri.unavailable', 'cri.unknownOpTimeouts',
  'cri.podSandboxStatusTimeouts', 'cri.perIdDistinct', 'cri.topId', 'cri.topIdOp', 'cri.topIdPod', 'cri.topIdCount',
  'cri.topIdShare', 'relist.failed', 'relist.failedTimeouts', 'pleg.podInspectFailed', 'runtime.down',
  'runtime.unreachable', 'runtime.downWithPleg', 'runtime.restarts', 'runtime.stops', 'runtime.brokenPipe',
  'runtime.stateTimeouts', 'runtime.shimCleanups', 'runtime.daemonErrors', 'runtime.crioUnmatchedStops',
  'runtime.crioStuckContainer', 'cni.statusHook', 'cni.setupErrors', 'cni.teardownErrors', 'cni.errors', 'cni.calls',
  'cni.plugin', 'cni.pod', 'kernel.hungTasks', 'kernel.hungTaskNames', 'kernel.nfs', 'kernel.nfsServer',
  'kernel.netdev', 'kernel.oom', 'kernel.oomRuntime', 'kernel.oomProcesses', 'pid.exhaustion', 'disk.slowDu',
  'node.evictions', 'clock.changes', 'pleg.channelFull', 'kubelet.housekeepingSlow', 'stall.hugeAgeOnce',
  'sync.skippedOther', 'sync.skippedReason', 'notReady.windows', 'notReady.nonPleg', 'notReady.nonPlegReason',
  'startup.artefacts', 'metrics.present', 'metrics.snapshots', 'metrics.relistFrozen', 'metrics.lastSeenAgeSeconds',
  'relist.p99', 'relist.p50', 'relist.max', 'metrics.discardEvents', 'pods.running', 'pods.containers',
  'pods.exitedContainers', 'bundle.kind', 'node.role', 'node.skipped', 'node.objectReady', 'node.objectPleg',
  'pods.capacity', 'pods.sandboxes', 'metrics.slowOps', 'metrics.slowOpNames', 'metrics.maxOpP99',
  'metrics.slowDiskOps', 'metrics.slowDiskOpNames', 'metrics.listP99', 'pleg.eventsPerMinute', 'goroutine.present',
  'goroutine.relistState', 'goroutine.relistWaitMinutes', 'goroutine.relistChanSend', 'goroutine.relistInCni',
  'goroutine.relistInCri', 'goroutine.relistInList', 'goroutine.relistInStatus', 'goroutine.deepestFrame',
];

/** Evidence pools set on every node. */
export const POOLS: readonly string[] = [
  'stall', 'stall.end', 'cri.listTimeouts', 'cri.perIdTimeouts', 'cri.unavailable', 'cri.statusTimeouts',
  'cri.errors', 'cri.topId', 'relist.failed', 'pleg.podInspectFailed', 'runtime.unreachable', 'runtime.down',
  'runtime.lifecycle', 'runtime.daemon', 'runtime.crioUnmatchedStops', 'cni', 'cni.calls', 'kernel.hungTasks',
  'kernel.nfs', 'kernel.netdev', 'kernel.oom', 'pid.exhaustion', 'disk.slowDu', 'node.evictions', 'clock.changes',
  'pleg.channelFull', 'kubelet.housekeepingSlow', 'stall.hugeAgeOnce', 'sync.skippedOther', 'notReady.nonPleg',
  'startup.artefacts', 'metrics.relistFrozen', 'metrics.lastSeen', 'metrics.relist', 'metrics.discard',
  'metrics.slowOps', 'metrics.slowDiskOps', 'goroutine',
];

/** `has.<role>`: the node has evidence of that kind. */
const ROLES: readonly Role[] = ['kubelet-log', 'runtime-log', 'kernel-log', 'metrics', 'node-object', 'goroutine-dump'];
/** Per CRI operation in the metrics (`operation_type`, e.g. `list_podsandbox`): `op.<op>.p99|errors|count`, pool `op.<op>`. */
const OP_FACT = /^op\.[a-z][a-z0-9_]*\.(?:p99|errors|count)$/;
const OP_POOL = /^op\.[a-z][a-z0-9_]*$/;

const factSet = new Set<string>([...FACTS, ...ROLES.map((r) => `has.${r}`)]);
const poolSet = new Set<string>(POOLS);

/** Whether `name` is a fact some node can have; `custom.<id>` only for the signals of the pack (`signals`). */
export function isKnownFact(name: string, signals: ReadonlySet<string>): boolean {
  return factSet.has(name) || OP_FACT.test(name) || (name.startsWith('custom.') && signals.has(name.slice(7)));
}

/** Whether `name` is an evidence pool a rule can cite (`custom.<id>` for the pack's signals). */
export function isKnownPool(name: string, signals: ReadonlySet<string>): boolean {
  return poolSet.has(name) || OP_POOL.test(name) || (name.startsWith('custom.') && signals.has(name.slice(7)));
}
