// Every name a rule can read: the facts and evidence pools computeFacts (facts.ts) sets, declared so that a rule pack
// is checked when it is loaded, not when a run happens to lack a fact (a misspelt `stall.cuont` would otherwise read as
// absent on every node and the rule would silently never fire). test/rules/fact-names.test.ts checks this list against
// what computeFacts produces, so a fact added there without being declared here fails the tests.
import type { Role } from '../contract/analysis.js';
import { KNOWN_BUGS } from './known-bugs.js';

/** Facts set on every node. */
export const FACTS: readonly string[] = [
  'stall.count', 'stall.covered', 'stall.maxDurationSeconds', 'stall.maxAgeSeconds', 'stall.endedByRestart', 'stall.endOfLog',
  'stall.recovered', 'stall.agesGrew', 'stall.neverSucceeded', 'stall.notReady', 'stall.justOverThreshold',
  'node.name', 'kubelet.version', 'kubelet.minor', 'kubelet.pre114', 'kubelet.versionText', 'kubelet.fixedDeadlock',
  'kubelet.restarts', 'runtime', 'cri.errors', 'cri.timeouts', 'cri.listTimeouts', 'cri.listErrors',
  'cri.perIdTimeouts', 'cri.statusTimeouts', 'cri.unavailable',
  'cri.podSandboxStatusTimeouts', 'cri.perIdDistinct', 'cri.topId', 'cri.topIdOp', 'cri.topIdPod', 'cri.topIdCount',
  'cri.topIdShare', 'relist.failed', 'relist.failedTimeouts', 'pleg.podInspectFailed', 'runtime.down',
  'runtime.unreachable', 'runtime.downWithPleg', 'runtime.restarts', 'runtime.stops', 'runtime.repairs', 'runtime.repairedBy', 'runtime.brokenPipe',
  'runtime.stateTimeouts', 'runtime.shimCleanups', 'runtime.daemonErrors', 'runtime.crioUnmatchedStops',
  'runtime.crioStuckContainer', 'cni.statusHook', 'cni.setupErrors', 'cni.teardownErrors', 'cni.errors', 'cni.calls',
  'cni.plugin', 'cni.pod', 'kernel.hungTasks', 'kernel.hungTaskNames', 'kernel.nfs', 'kernel.nfsServer',
  'kernel.netdev', 'kernel.oom', 'kernel.oomRuntime', 'kernel.oomProcesses', 'pid.exhaustion', 'disk.slowDu',
  'node.evictions', 'clock.changes', 'pleg.channelFull', 'pleg.evented', 'pleg.eventedFallbacks', 'pleg.eventedStreamErrors', 'pleg.eventedChannelFull', 'kubelet.housekeepingSlow', 'stall.hugeAgeOnce',
  'sync.skippedOther', 'sync.skippedReason', 'notReady.windows', 'notReady.nonPleg', 'notReady.nonPlegReason',
  'startup.artefacts', 'startup.lines', 'metrics.present', 'metrics.snapshots', 'metrics.relistFrozen', 'metrics.lastSeenAgeSeconds',
  'relist.p99', 'relist.p99Text', 'relist.p50', 'relist.max', 'metrics.discardEvents', 'pods.running', 'pods.containers',
  'pods.exitedContainers', 'bundle.kind', 'node.role', 'node.skipped', 'node.objectReady', 'node.objectPleg',
  'pods.capacity', 'pods.sandboxes', 'metrics.slowOps', 'metrics.slowOpNames', 'metrics.maxOpP99',
  'metrics.slowDiskOps', 'metrics.slowDiskOpNames', 'metrics.listP99', 'metrics.listP99Text', 'pleg.eventsPerMinute', 'goroutine.present',
  'goroutine.relistState', 'goroutine.relistWaitMinutes', 'goroutine.relistChanSend', 'goroutine.relistInCni',
  'goroutine.relistInCri', 'goroutine.relistInList', 'goroutine.relistInStatus', 'goroutine.deepestFrame',
  'goroutine.relistStep', 'goroutine.relistCall', 'goroutine.relistWhere',
  'collect.since', 'collect.until', 'bundle.world', 'bundle.cli', 'cluster.kubeconfig', 'phrase.unhealthyLines', 'phrase.runtime', 'phrase.listShare',
  'scope', 'stall.undated', 'stall.disagreements', 'timeouts.runtimeWrapper', 'timeouts.csi',
  'relist.failedUnavailable', 'cri.sizeLimit', 'cri.sizeLimitBytes', 'cri.sizeLimitMax', 'runtime.stateTimeoutIds',
  'runtime.taskListTimeouts', 'runtime.daemonTimeouts', 'runtime.blockedCall', 'runtime.blockedCallId',
  'runtime.panics', 'kubelet.crashes', 'kubelet.recoveredPanics', 'cli.timeouts', 'cli.unavailable',
  'cli.responsive', 'cli.responsiveCommand', 'cli.failedCommand', 'cni.timeouts', 'kernel.hungTasksDated',
  'kernel.hungTasksUndated', 'kernel.ioFrames', 'kernel.ioFrameNames', 'kernel.hungTaskRuntime',
  'healthz.syncloopFailed', 'node.statusUpdateFailed', 'node.statusUpdateDetail', 'node.statusUnknown',
  'network.notReady', 'network.reason', 'controller.events', 'controller.notUpdated', 'controller.leaderChange',
  'controller.disruption', 'evidence.notReady', 'notReady.undated', 'metrics.criErrors', 'metrics.listErrors',
  'metrics.statusErrors', 'metrics.erroredOps', 'metrics.window', 'goroutine.kubelet', 'goroutine.relistCrashed',
  'goroutine.fsWaits', 'goroutine.fsWaitMinutes', 'goroutine.fsWaitFrame', 'goroutine.runtimeProgram',
  'goroutine.runtimeLockWaiters', 'goroutine.runtimeLockMinutes', 'goroutine.runtimeLockSite',
  'goroutine.runtimeLongestMinutes', 'goroutine.runtimeFrozenMinutes', 'goroutine.runtimeFrozenFrame', 'goroutine.runtimeFrozenState',
  'goroutine.cniWaits', 'goroutine.cniFrame', 'runtime.statusCheckFailed', 'lines.runtimeDownForHang', 'evidence.runtimeHang',
  'evidence.runtimeDown', 'evidence.storage', 'evidence.cni', 'evidence.stuckObject', 'evidence.listTooBig', 'lines.unhealthy', 'lines.runtimeDown', 'lines.statusCheckFailed',
  'lines.criTimeouts', 'lines.relistFailed', 'lines.stateTimeouts', 'lines.hungTasks', 'lines.oomKills', 'lines.nfs',
  'lines.sizeLimit', 'lines.channelFull',
  // `knownBug.<id>` (the bug's conditions hold) and `knownBug.<id>.versions` (the versions it names), per catalogued bug.
  ...KNOWN_BUGS.flatMap((b) => [`knownBug.${b.id}`, `knownBug.${b.id}.versions`]),
];

/** Evidence pools set on every node. */
export const POOLS: readonly string[] = [
  'stall', 'stall.end', 'cri.listTimeouts', 'cri.perIdTimeouts', 'cri.unavailable', 'cri.statusTimeouts',
  'cri.errors', 'cri.topId', 'relist.failed', 'pleg.podInspectFailed', 'runtime.unreachable', 'runtime.down',
  'runtime.lifecycle', 'runtime.repairs', 'runtime.daemon', 'runtime.crioUnmatchedStops', 'cni', 'cni.calls', 'kernel.hungTasks',
  'kernel.nfs', 'kernel.netdev', 'kernel.oom', 'pid.exhaustion', 'disk.slowDu', 'node.evictions', 'clock.changes',
  'pleg.channelFull', 'pleg.evented', 'kubelet.housekeepingSlow', 'stall.hugeAgeOnce', 'sync.skippedOther', 'notReady.nonPleg',
  'startup.artefacts', 'metrics.relistFrozen', 'metrics.lastSeen', 'metrics.relist', 'metrics.discard',
  'metrics.slowOps', 'metrics.slowDiskOps', 'goroutine',
  'stall.disagreements', 'timeouts.runtimeWrapper', 'timeouts.csi', 'cri.sizeLimit', 'runtime.blockedCall',
  'runtime.panics', 'kubelet.crashes', 'runtime.brokenPipe', 'runtime.stateTimeouts', 'cli.timeouts',
  'cli.unavailable', 'cli.responsive', 'cni.timeouts', 'kernel.ioFrames', 'healthz', 'node.statusUpdateFailed',
  'node.statusUnknown', 'network.notReady', 'controller', 'notReady.undated', 'metrics.criErrors',
  'goroutine.fsWaits', 'goroutine.runtimeLock', 'goroutine.runtimeLongest', 'goroutine.runtimeFrozen', 'goroutine.cniWaits',
  ...KNOWN_BUGS.map((b) => `knownBug.${b.id}`),
];

/** `has.<role>`: the node has evidence of that kind. */
const ROLES: readonly Role[] = ['kubelet-log', 'runtime-log', 'kernel-log', 'metrics', 'node-object', 'goroutine-dump'];
/** Per CRI operation in the metrics (`operation_type`, e.g. `list_podsandbox`): `op.<op>.p99|errors|count`, pool `op.<op>`. */
const OP_FACT = /^op\.[a-z][a-z0-9_]*\.(?:p99|errors|count)$/;
const OP_POOL = /^op\.[a-z][a-z0-9_]*$/;

/** `knownBugs.<cause>`: how many catalogued bugs of that cause hold on the node (set only when one does). */
const KNOWN_BUG_CAUSES = [...new Set(KNOWN_BUGS.map((b) => `knownBugs.${b.cause}`))];

const factSet = new Set<string>([...FACTS, ...ROLES.map((r) => `has.${r}`), ...KNOWN_BUG_CAUSES]);
const poolSet = new Set<string>(POOLS);

/** Whether `name` is a fact some node can have; `custom.<id>` only for the signals of the pack (`signals`). */
export function isKnownFact(name: string, signals: ReadonlySet<string>): boolean {
  return factSet.has(name) || OP_FACT.test(name) || (name.startsWith('custom.') && signals.has(name.slice(7)));
}

/** Whether `name` is an evidence pool a rule can cite (`custom.<id>` for the pack's signals). */
export function isKnownPool(name: string, signals: ReadonlySet<string>): boolean {
  return poolSet.has(name) || OP_POOL.test(name) || (name.startsWith('custom.') && signals.has(name.slice(7)));
}
