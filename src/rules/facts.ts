// NodeModel → facts: the flat, named numbers and flags the declarative rules read, plus named evidence pools the rules
// cite. Facts about errors are taken around the stalls (from 3 min before the last good relist to 1 min after the end),
// so that an error an hour before the incident cannot decide its cause; a node without stalls is judged on its whole log.
import type { EvidenceRef } from '../contract/analysis.js';
import type { NodeModel } from '../model/node.js';
import type { EventOf, Ref, SignalEvent, SignalType } from '../signals/events.js';

export type FactValue = number | boolean | string | null;
export type Facts = Record<string, FactValue>;
/** A cited line: a log line (by artifact id) or a metrics sample (already resolved to its file). */
export type Cite = Ref | EvidenceRef;
export type Pools = Record<string, Cite[]>;

export interface FactSheet {
  facts: Facts;
  pools: Pools;
}

const PRE_MS = 180_000;
const POST_MS = 60_000;
const POOL_CAP = 8;
const COLLECT_MARGIN_MS = 600_000;
const WORLDS: Record<string, string> = { 'must-gather': 'openshift', inspect: 'openshift', sosreport: 'node', 'sos-collect': 'node', kind: 'kind' };

function versionMinor(v: string | null): number | null {
  const m = v ? /^v?1\.(\d+)/.exec(v) : null;
  return m ? Number(m[1]) : null;
}

function pool(refs: Cite[]): Cite[] {
  if (refs.length <= POOL_CAP) return refs;
  // First lines date the onset, the last one shows it lasted.
  return [...refs.slice(0, POOL_CAP - 1), refs[refs.length - 1] as Cite];
}

const RUNTIME_PROCS = /^(dockerd|docker|containerd|containerd-shim.*|crio|conmon|kubelet|hyperkube|kubenswrapper|runc)$/;

export function computeFacts(node: NodeModel): FactSheet {
  const f: Facts = {};
  const p: Pools = {};
  const stalls = node.timeline.stalls;
  const end = node.windowEnd ?? 0;
  const windows = stalls.map((s) => [s.lastRelistAt - PRE_MS, (s.endedAt ?? end) + POST_MS] as const);
  // Lines without a time (raw dmesg) cannot be placed, so they are never excluded.
  const inScope = (ts: number): boolean => windows.length === 0 || Number.isNaN(ts) || windows.some(([a, b]) => ts >= a && ts <= b);
  const scoped = node.events.filter((e) => inScope(e.ts));
  const of = <T extends SignalType>(t: T, all = false): Array<EventOf<T>> =>
    (all ? node.events : scoped).filter((e): e is EventOf<T> => e.type === t);

  // Stalls and their shape.
  const longest = stalls.reduce((m, s) => Math.max(m, s.durationSeconds), 0);
  f['stall.count'] = stalls.length;
  f['stall.maxDurationSeconds'] = longest;
  f['stall.maxAgeSeconds'] = stalls.reduce((m, s) => Math.max(m, s.maxAgeSeconds), 0);
  f['stall.endedByRestart'] = stalls.filter((s) => s.endedBy === 'restart').length;
  f['stall.endOfLog'] = stalls.filter((s) => s.endedBy === 'end-of-log').length;
  f['stall.recovered'] = stalls.filter((s) => s.endedBy === 'recovered').length;
  f['stall.agesGrew'] = stalls.some((s) => s.agesGrew && s.maxAgeSeconds > 600);
  f['stall.neverSucceeded'] = stalls.filter((s) => s.neverSucceeded).length;
  f['stall.notReady'] = stalls.filter((s) => s.nodeNotReady).length;
  // Several short stalls whose ages barely pass 3 min: relists that are slow but finish.
  f['stall.justOverThreshold'] = stalls.filter((s) => !s.neverSucceeded && s.maxAgeSeconds < s.thresholdSeconds + 90).length;
  p['stall'] = pool(stalls.flatMap((s) => s.evidence));
  // The window collection commands ask for (epoch ms, on whole minutes): the stalls with 10 min on either side (no
  // end while one was still open when the log ended), else the node's log window.
  const since = stalls.length ? Math.min(...stalls.map((s) => s.lastRelistAt)) - COLLECT_MARGIN_MS : node.windowStart;
  const until = stalls.length ? (stalls.some((s) => s.endedAt === null) ? null : Math.max(...stalls.map((s) => s.endedAt as number)) + COLLECT_MARGIN_MS) : node.windowEnd;
  f['collect.since'] = since === null ? null : Math.floor(since / 60_000) * 60_000;
  f['collect.until'] = until === null ? null : Math.ceil(until / 60_000) * 60_000;
  p['stall.end'] = stalls.map((s) => s.endEvidence).filter((r): r is Ref => r !== null);

  // Kubelet and runtime.
  f['node.name'] = node.name;
  for (const r of node.roles) f[`has.${r}`] = true;
  f['kubelet.version'] = node.kubeletVersion;
  f['kubelet.minor'] = versionMinor(node.kubeletVersion);
  // ≤1.13 printed runtime errors as a Go []string: `skipping pod synchronization - [PLEG is not healthy: …]`.
  const pre114Wording = node.events.some((e) => e.type === 'relist-unhealthy' && /synchronization - \[(?![^\]]*, )/.test(e.ref.text));
  f['kubelet.pre114'] = (f['kubelet.minor'] !== null ? (f['kubelet.minor'] as number) < 14 : pre114Wording);
  f['kubelet.versionText'] = node.kubeletVersion ?? (pre114Wording ? 'of unknown version (≤1.13 log wording)' : 'of unknown version (1.14+ log wording)');
  f['kubelet.fixedDeadlock'] = f['kubelet.minor'] !== null ? (f['kubelet.minor'] as number) >= 14 : node.events.some((e) => e.type === 'relist-unhealthy' && (e.ref.text.includes('Skipping pod synchronization') || e.ref.text.startsWith('{')));
  f['kubelet.restarts'] = node.timeline.restarts.length;
  f['runtime'] = node.runtime;

  // CRI errors (logs).
  const cri = of('cri-error');
  const clientOps = new Set(cri.filter((e) => e.layer === 'client').map((e) => e.op));
  const counted = cri.filter((e) => e.layer === 'client' || !clientOps.has(e.op));
  const isList = (op: string): boolean => op === 'list_podsandbox' || op === 'list_containers';
  const perIdOps = new Set(['container_status', 'podsandbox_status', 'stop_container', 'stop_podsandbox', 'remove_container', 'remove_podsandbox', 'exec_sync']);
  const listTimeouts = counted.filter((e) => isList(e.op) && e.code === 'DeadlineExceeded');
  const perIdTimeouts = counted.filter((e) => perIdOps.has(e.op) && e.code === 'DeadlineExceeded');
  const unavailable = counted.filter((e) => e.code === 'Unavailable');
  const statusTimeouts = counted.filter((e) => (e.op === 'status' || e.op === 'version') && e.code === 'DeadlineExceeded');
  f['cri.errors'] = counted.length;
  f['cri.timeouts'] = counted.filter((e) => e.code === 'DeadlineExceeded').length;
  f['cri.listTimeouts'] = listTimeouts.length;
  f['cri.listErrors'] = counted.filter((e) => isList(e.op)).length;
  f['cri.perIdTimeouts'] = perIdTimeouts.length;
  f['cri.statusTimeouts'] = statusTimeouts.length;
  f['cri.unavailable'] = unavailable.length;
  f['cri.unknownOpTimeouts'] = counted.filter((e) => e.op === 'unknown' && e.code === 'DeadlineExceeded').length;
  f['cri.podSandboxStatusTimeouts'] = counted.filter((e) => e.op === 'podsandbox_status' && e.code === 'DeadlineExceeded').length;
  p['cri.listTimeouts'] = pool(listTimeouts.map((e) => e.ref));
  p['cri.perIdTimeouts'] = pool(perIdTimeouts.map((e) => e.ref));
  p['cri.unavailable'] = pool(unavailable.map((e) => e.ref));
  p['cri.statusTimeouts'] = pool(statusTimeouts.map((e) => e.ref));
  p['cri.errors'] = pool(counted.map((e) => e.ref));

  // The one container or sandbox most per-ID timeouts are about.
  const byId = new Map<string, { n: number; ops: Set<string>; pod: string | null; refs: Ref[] }>();
  for (const e of perIdTimeouts) {
    const id = e.containerId ?? e.sandboxId ?? e.pod;
    if (!id) continue;
    const cur = byId.get(id) ?? { n: 0, ops: new Set<string>(), pod: e.pod, refs: [] };
    cur.n++;
    cur.ops.add(e.op);
    cur.pod = cur.pod ?? e.pod;
    cur.refs.push(e.ref);
    byId.set(id, cur);
  }
  const top = [...byId.entries()].sort((a, b) => b[1].n - a[1].n)[0];
  f['cri.perIdDistinct'] = byId.size;
  f['cri.topId'] = top ? top[0] : null;
  f['cri.topIdOp'] = top ? [...top[1].ops].sort().join('/') : null;
  f['cri.topIdPod'] = top ? (top[1].pod ?? podForId(node.events, top[0])) : null;
  f['cri.topIdCount'] = top ? top[1].n : 0;
  f['cri.topIdShare'] = top && perIdTimeouts.length ? top[1].n / perIdTimeouts.length : 0;
  p['cri.topId'] = top ? pool(top[1].refs) : [];

  const relistFailed = of('relist-failed');
  f['relist.failed'] = relistFailed.length;
  f['relist.failedTimeouts'] = relistFailed.filter((e) => e.code === 'DeadlineExceeded').length;
  p['relist.failed'] = pool(relistFailed.map((e) => e.ref));

  const podInspect = of('pod-inspect-failed');
  f['pleg.podInspectFailed'] = podInspect.length;
  p['pleg.podInspectFailed'] = pool(podInspect.map((e) => e.ref));

  // Runtime health and daemon logs.
  const down = of('runtime-down');
  f['runtime.down'] = down.length;
  // "container runtime is down" / a failed sanity check also follow a hung runtime; refused connections do not.
  const unreachable = down.filter((e) => !/container runtime is down|sanity check/.test(e.reason));
  f['runtime.unreachable'] = unreachable.length + unavailable.length;
  p['runtime.unreachable'] = pool([...unreachable, ...unavailable].sort((a, b) => a.ts - b.ts).map((e) => e.ref));
  p['runtime.down'] = pool(down.map((e) => e.ref));
  const unhealthyRuntimeDown = scoped.filter((e) => e.type === 'relist-unhealthy' && e.runtimeDown);
  f['runtime.downWithPleg'] = unhealthyRuntimeDown.length;
  const lifecycle = of('runtime-lifecycle');
  f['runtime.restarts'] = lifecycle.filter((e) => e.phase === 'start').length;
  f['runtime.stops'] = lifecycle.filter((e) => e.phase === 'stop' || e.phase === 'crash').length;
  p['runtime.lifecycle'] = pool(lifecycle.map((e) => e.ref));
  const daemon = of('runtime-daemon-error');
  f['runtime.brokenPipe'] = daemon.filter((e) => e.kind === 'broken-pipe').length;
  f['runtime.stateTimeouts'] = daemon.filter((e) => e.kind === 'state-timeout').length;
  f['runtime.shimCleanups'] = daemon.filter((e) => e.kind === 'shim-cleanup').length;
  f['runtime.daemonErrors'] = daemon.length;
  p['runtime.daemon'] = pool(daemon.map((e) => e.ref));
  const stopping = of('crio-stopping');
  const stopped = new Set(node.events.filter((e): e is EventOf<'crio-stopped'> => e.type === 'crio-stopped').map((e) => e.containerId));
  const unmatched = stopping.filter((e) => !stopped.has(e.containerId) && ![...stopped].some((s) => s.startsWith(e.containerId) || e.containerId.startsWith(s)));
  f['runtime.crioUnmatchedStops'] = unmatched.length;
  f['runtime.crioStuckContainer'] = unmatched[0]?.containerId ?? null;
  p['runtime.crioUnmatchedStops'] = pool(unmatched.map((e) => e.ref));

  // CNI.
  const cni = of('cni-error');
  const cniCalls = of('cni-call');
  f['cni.statusHook'] = cni.filter((e) => e.phase === 'status' || e.phase === 'read-ip').length;
  f['cni.setupErrors'] = cni.filter((e) => e.phase === 'setup').length;
  f['cni.teardownErrors'] = cni.filter((e) => e.phase === 'teardown').length;
  f['cni.errors'] = cni.length;
  f['cni.calls'] = cniCalls.length;
  f['cni.plugin'] = cni.find((e) => e.plugin)?.plugin ?? cniCalls.find((e) => e.plugin)?.plugin ?? null;
  f['cni.pod'] = cni.find((e) => e.pod)?.pod ?? null;
  p['cni'] = pool(cni.map((e) => e.ref));
  p['cni.calls'] = pool(cniCalls.map((e) => e.ref));

  // Kernel and node.
  const hung = of('hung-task');
  f['kernel.hungTasks'] = hung.length;
  f['kernel.hungTaskNames'] = [...new Set(hung.map((e) => e.task))].slice(0, 5).join(', ') || null;
  p['kernel.hungTasks'] = pool(hung.map((e) => e.ref));
  const nfs = of('nfs-not-responding');
  f['kernel.nfs'] = nfs.length;
  f['kernel.nfsServer'] = nfs[0]?.server ?? null;
  p['kernel.nfs'] = pool(nfs.map((e) => e.ref));
  const netdev = of('netdev-unregister');
  f['kernel.netdev'] = netdev.length;
  p['kernel.netdev'] = pool(netdev.map((e) => e.ref));
  const oom = of('oom-kill');
  const oomRuntime = oom.filter((e) => RUNTIME_PROCS.test(e.process));
  f['kernel.oom'] = oom.length;
  f['kernel.oomRuntime'] = oomRuntime.length;
  f['kernel.oomProcesses'] = [...new Set(oom.map((e) => e.process))].slice(0, 5).join(', ') || null;
  p['kernel.oom'] = pool((oomRuntime.length ? oomRuntime : oom).map((e) => e.ref));
  const pid = of('pid-exhaustion');
  f['pid.exhaustion'] = pid.length;
  p['pid.exhaustion'] = pool(pid.map((e) => e.ref));
  const du = of('slow-disk-usage');
  f['disk.slowDu'] = du.length;
  p['disk.slowDu'] = pool(du.map((e) => e.ref));
  const evict = of('eviction');
  f['node.evictions'] = evict.length;
  p['node.evictions'] = pool(evict.map((e) => e.ref));
  const clock = of('clock-change');
  f['clock.changes'] = clock.length;
  p['clock.changes'] = pool(clock.map((e) => e.ref));
  const chan = of('event-channel-full');
  f['pleg.channelFull'] = chan.length;
  p['pleg.channelFull'] = pool(chan.map((e) => e.ref));
  const hk = of('housekeeping-slow');
  f['kubelet.housekeepingSlow'] = hk.length;
  p['kubelet.housekeepingSlow'] = pool(hk.map((e) => e.ref));

  // Clock jump shape: one enormous age with no build-up, recovered at the next relist.
  const hugeOnce = stalls.filter((s) => s.maxAgeSeconds > 3600 && s.unhealthyLines <= 3 && s.endedBy === 'recovered' && (s.endedAt ?? 0) - s.firstLineAt < 120_000);
  f['stall.hugeAgeOnce'] = hugeOnce.length;
  p['stall.hugeAgeOnce'] = pool(hugeOnce.flatMap((s) => s.evidence));

  // NotReady for other reasons.
  const skipped = node.events.filter((e): e is EventOf<'sync-skipped'> => e.type === 'sync-skipped');
  f['sync.skippedOther'] = skipped.length;
  f['sync.skippedReason'] = mostCommon(skipped.map((e) => e.reason));
  p['sync.skippedOther'] = pool(skipped.map((e) => e.ref));
  const nonPleg = node.timeline.notReady.filter((w) => !w.plegReason);
  f['notReady.windows'] = node.timeline.notReady.length;
  f['notReady.nonPleg'] = nonPleg.length;
  f['notReady.nonPlegReason'] = nonPleg[0]?.reason ?? null;
  p['notReady.nonPleg'] = pool(nonPleg.flatMap((w) => w.evidence));
  f['startup.artefacts'] = node.timeline.startupArtefacts.length;
  p['startup.artefacts'] = pool(node.timeline.startupArtefacts);

  // Metrics.
  const m = node.metrics;
  f['metrics.present'] = m !== null;
  f['metrics.snapshots'] = m?.snapshots ?? 0;
  f['metrics.relistFrozen'] = m ? m.frozenIntervals.some((iv) => stalls.some((s) => iv.toMs >= s.lastRelistAt && iv.fromMs <= (s.endedAt ?? end))) || (stalls.length === 0 ? false : m.relist.countFrozen) : false;
  p['metrics.relistFrozen'] = m ? pool(m.frozenIntervals.flatMap((iv) => iv.evidence)) : [];
  f['metrics.lastSeenAgeSeconds'] = m?.lastSeen?.ageSeconds ?? null;
  p['metrics.lastSeen'] = m?.lastSeen ? [m.lastSeen.evidence] : [];
  f['relist.p99'] = m?.relist.duration?.p99 ?? null;
  f['relist.p50'] = m?.relist.duration?.p50 ?? null;
  f['relist.max'] = m?.relist.duration?.max ?? null;
  p['metrics.relist'] = m ? pool(m.relist.evidence) : [];
  f['metrics.discardEvents'] = m?.discardEvents ?? null;
  p['metrics.discard'] = m?.discardEvidence ? pool(m.discardEvidence) : [];
  f['pods.running'] = m?.runningPods ?? null;
  f['pods.containers'] = m?.runningContainers ?? null;
  f['pods.exitedContainers'] = m?.exitedContainers ?? null;
  // What the bundle says (model/bundle-nodes.ts): its kind, the node's role, its Node object, container tables.
  const b = node.bundle as NodeModel['bundle'] | undefined;
  f['bundle.kind'] = b?.kind ?? 'files';
  // Whose commands collect more from this node: OpenShift's (oc), the node's own shell (a sosreport is made there),
  // kind's node containers (docker exec), or any cluster's (kubectl).
  const world = WORLDS[f['bundle.kind'] as string] ?? 'kubernetes';
  f['bundle.world'] = world;
  f['bundle.cli'] = world === 'openshift' ? 'oc' : 'kubectl';
  f['node.role'] = b?.role ?? null;
  f['node.skipped'] = b?.skipped ?? false;
  f['node.objectReady'] = b?.ready?.status ?? null;
  f['node.objectPleg'] = /PLEG is not healthy/.test(b?.ready?.message ?? '');
  f['pods.capacity'] = b?.podsCapacity ?? null;
  f['pods.sandboxes'] = b?.containers?.sandboxes ?? null;
  if (f['pods.running'] === null) f['pods.running'] = b?.containers?.sandboxesReady ?? null;
  if (f['pods.containers'] === null) f['pods.containers'] = b?.containers?.running ?? null;
  if (f['pods.exitedContainers'] === null) f['pods.exitedContainers'] = b?.containers?.exited ?? null;
  for (const op of m?.operations ?? []) {
    f[`op.${op.operation}.p99`] = op.p99;
    f[`op.${op.operation}.errors`] = op.errors;
    f[`op.${op.operation}.count`] = op.count;
    p[`op.${op.operation}`] = pool(op.evidence);
  }
  const slowOps = (m?.operations ?? []).filter((o) => (o.p99 ?? 0) >= 10);
  f['metrics.slowOps'] = slowOps.length;
  f['metrics.slowOpNames'] = slowOps.map((o) => o.operation).join(', ') || null;
  f['metrics.maxOpP99'] = slowOps.reduce((mx, o) => Math.max(mx, o.p99 ?? 0), 0) || null;
  p['metrics.slowOps'] = pool(slowOps.flatMap((o) => o.evidence.slice(0, 2)));
  // Storage-bound runtime calls (removals, image operations) slow in metrics point at the disk under the runtime.
  const diskOps = (m?.operations ?? []).filter((o) => /^(remove_container|remove_podsandbox|remove_image|pull_image|image_fs_info|list_images|image_status)$/.test(o.operation) && (o.p99 ?? 0) >= 10);
  f['metrics.slowDiskOps'] = diskOps.length;
  f['metrics.slowDiskOpNames'] = diskOps.map((o) => o.operation).join(', ') || null;
  p['metrics.slowDiskOps'] = pool(diskOps.flatMap((o) => o.evidence.slice(0, 2)));
  const listP99 = Math.max(m?.operations.find((o) => o.operation === 'list_containers')?.p99 ?? 0, m?.operations.find((o) => o.operation === 'list_podsandbox')?.p99 ?? 0);
  f['metrics.listP99'] = m ? listP99 : null;

  // Container churn: PLEG events per minute around the stalls (from all proof lines, counted before thinning).
  f['pleg.eventsPerMinute'] = null;

  // Goroutine dump.
  const g = node.goroutines?.relist[0] ?? null;
  f['goroutine.present'] = node.goroutines !== null;
  f['goroutine.relistState'] = g?.state ?? null;
  f['goroutine.relistWaitMinutes'] = g?.waitMinutes ?? null;
  f['goroutine.relistChanSend'] = g ? g.state === 'chan send' : false;
  f['goroutine.relistInCni'] = g ? g.frames.some((fr) => /GetPodNetworkStatus|SetUpPod|TearDownPod|network\/cni|getIPFromPlugin/.test(fr)) : false;
  f['goroutine.relistInCri'] = g ? g.frames.some((fr) => /grpc\.\(\*ClientConn\)\.Invoke|RemoteRuntimeService|remoteRuntimeService|libdocker|dockertools/.test(fr)) : false;
  f['goroutine.relistInList'] = g ? f['goroutine.relistInCri'] === true && g.frames.some((fr) => /ListPodSandbox|ListContainers|\.GetPods\b|getKubeletSandboxes|getKubeletContainers/.test(fr)) && !g.frames.some((fr) => /GetPodStatus|ContainerStatus|PodSandboxStatus/.test(fr)) : false;
  f['goroutine.relistInStatus'] = g ? f['goroutine.relistInCri'] === true && g.frames.some((fr) => /GetPodStatus|ContainerStatus|PodSandboxStatus/.test(fr)) && f['goroutine.relistInCni'] !== true : false;
  f['goroutine.deepestFrame'] = g?.deepestKubeletFrame ?? null;
  p['goroutine'] = g ? [{ artifact: node.goroutines?.artifact ?? -1, line: g.line, offset: 0, ts: NaN, mono: NaN, text: g.headerText }] : [];

  // Custom signals from user rule packs.
  for (const e of node.events) {
    if (e.type !== 'custom') continue;
    const k = `custom.${e.signal}`;
    f[k] = ((f[k] as number | undefined) ?? 0) + 1;
    const list = (p[k] ??= []);
    if (list.length < POOL_CAP) list.push(e.ref);
  }
  return { facts: f, pools: p };
}

function mostCommon(xs: string[]): string | null {
  const c = new Map<string, number>();
  for (const x of xs) c.set(x, (c.get(x) ?? 0) + 1);
  return [...c.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}

/** The pod of a container/sandbox ID: from the error itself, else from "PLEG: Ignoring events for pod" logged right after it. */
function podForId(events: SignalEvent[], id: string): string | null {
  const times: number[] = [];
  for (const e of events) {
    if (e.type === 'cri-error' && (e.containerId === id || e.sandboxId === id)) {
      if (e.pod) return e.pod;
      times.push(e.ts);
    }
  }
  for (const e of events) {
    if (e.type === 'pod-inspect-failed' && e.pod && times.some((t) => e.ts >= t && e.ts - t <= 2000)) return e.pod;
  }
  return null;
}
