// NodeModel → facts: the flat, named numbers and flags the declarative rules read, plus named evidence pools the rules
// cite. Facts about errors are taken around the stalls (from 3 min before the last good relist to 1 min after the end),
// so that an error an hour before the incident cannot decide its cause; a node without stalls is judged on its whole log.
import type { CountCheck, EvidenceRef, Latency } from '../contract/analysis.js';
import type { NodeModel } from '../model/node.js';
import { isRuntimeProcess, lineCount, type EventOf, type Ref, type SignalEvent, type SignalType } from '../signals/events.js';
import type { ParsedGoroutines } from '../parse/goroutines.js';
import { eventedPleg } from '../model/coverage.js';
import { KNOWN_BUGS, inRange } from './known-bugs.js';
import { figure, shortSeconds } from '../util/latency.js';
import { isoTime } from '../util/instant.js';

export type FactValue = number | boolean | string | null;
export type Facts = Record<string, FactValue>;
/** A cited line: a log line (by artifact id) or a metrics sample (already resolved to its file). */
export type Cite = Ref | EvidenceRef;
export type Pools = Record<string, Cite[]>;

export interface FactSheet {
  facts: Facts;
  pools: Pools;
  /** Per counted kind of line: how many lines it is, in the window the facts cover and in the whole input, and the files
   *  that hold them: what a `grep -c` on those files finds (rules cite them by key in `counts`). */
  counts: Record<string, CountCheck>;
  /** Per phrase fact (`evidence.runtimeHang`): the facts its items state, which a finding's "supporting" list then does
   *  not repeat (rules/engine.ts factLines). */
  said?: Record<string, string[]>;
  /** What a collection through the API server could not fetch for the node: each is a gap (engine.ts). */
  refused: NodeModel['bundle']['refusals'];
}

/** A count check as facts make it (the contract's CountCheck): its `grep` is still a template, `{grep} 'pattern'
 *  {file:ID} …`, made a command once the files' names are known (analyze.ts: the tool that reads each compression). */
export type { CountCheck };

/**
 * Kinds of line a report counts, each with the grep that finds the same lines: the counts in prose are counts of lines
 * (one line, once, whichever copies of a log hold it), and an SRE can check them with the command printed.
 */
const COUNTED: Array<{ key: string; what: string; pattern: string; test: (e: SignalEvent) => boolean }> = [
  { key: 'lines.unhealthy', what: 'lines saying when PLEG was last seen active', pattern: 'pleg was last seen active', test: (e) => e.type === 'relist-unhealthy' && e.ref.text.includes('pleg was last seen active') },
  { key: 'lines.runtimeDown', what: 'lines saying the container runtime is down', pattern: 'container runtime is down', test: (e) => (e.type === 'runtime-down' && e.reason === 'container runtime is down') || (e.type === 'relist-unhealthy' && e.runtimeDown) },
  { key: 'lines.criTimeouts', what: 'CRI calls that timed out (the CRI client\'s own lines)', pattern: 'from runtime service failed.*(DeadlineExceeded|code = 4 |deadline exceeded|operation timeout)', test: (e) => e.type === 'cri-error' && e.layer === 'client' && e.code === 'DeadlineExceeded' },
  { key: 'lines.statusCheckFailed', what: 'failed runtime status checks', pattern: 'Container runtime sanity check failed', test: (e) => e.type === 'runtime-down' && e.reason.startsWith('Container runtime sanity check failed') },
  { key: 'lines.relistFailed', what: 'relists that failed (GenericPLEG: Unable to retrieve pods)', pattern: 'Unable to retrieve pods', test: (e) => e.type === 'relist-failed' },
  { key: 'lines.stateTimeouts', what: 'runtime "get state" timeouts', pattern: 'get state for.*deadline exceeded', test: (e) => e.type === 'runtime-daemon-error' && e.kind === 'state-timeout' },
  { key: 'lines.hungTasks', what: 'hung-task reports', pattern: 'blocked for more than [0-9]+ seconds', test: (e) => e.type === 'hung-task' },
  { key: 'lines.oomKills', what: 'OOM kills', pattern: 'Kill(ed)? process [0-9]+ \\(', test: (e) => e.type === 'oom-kill' && /Kill(?:ed)? process \d+ \(/.test(e.ref.text) },
  { key: 'lines.nfs', what: '"NFS server not responding" lines', pattern: 'nfs: server [^ ]+ not responding', test: (e) => e.type === 'nfs-not-responding' },
  { key: 'lines.sizeLimit', what: 'lines over the gRPC message size limit', pattern: 'larger than max', test: (e) => e.type === 'grpc-size-limit' },
  { key: 'lines.channelFull', what: '"event channel is full" lines', pattern: 'hannel is full', test: (e) => e.type === 'event-channel-full' },
];

/** A shell word for a grep pattern or a path. */
function shq(s: string): string {
  return /^[\w./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

const PRE_MS = 180_000;
const POST_MS = 60_000;
const POOL_CAP = 8;
const COLLECT_MARGIN_MS = 600_000;
/** The sync loop's first unhealthy line comes within a sync period of the threshold being crossed. */
const SYNC_SLACK_MS = 10_000;
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

/**
 * The first `limit` distinct names of a kind of line, and how many more there are ("foo-1, foo-2 and 19870 more
 * tasks"): exact while none of the lines was folded into another's event (signals/thin.ts: a log naming a new task on
 * every line keeps the first ones whole and counts the rest), else a lower bound, said as one ("at least").
 */
function someNames(events: ReadonlyArray<{ n?: number }>, name: (i: number) => string, limit: number, noun: string): string | null {
  const distinct = new Set<string>();
  let folded = false;
  for (let i = 0; i < events.length; i++) {
    distinct.add(name(i));
    if ((events[i]?.n ?? 1) > 1) folded = true;
  }
  if (distinct.size === 0) return null;
  const shown = [...distinct].slice(0, limit).join(', ');
  const more = distinct.size - limit;
  return more > 0 ? `${shown} and ${folded ? 'at least ' : ''}${more} more ${noun}` : shown;
}

export function computeFacts(node: NodeModel): FactSheet {
  const f: Facts = {};
  const p: Pools = {};
  const stalls = node.timeline.stalls;
  const end = node.windowEnd ?? 0;
  const windows = stalls.map((s) => [s.lastRelistAt - PRE_MS, (s.endedAt ?? end) + POST_MS] as const);
  // Lines without a time (raw dmesg, pasted fragments) cannot be placed, so they are never excluded; nor is anything
  // when a stall itself has no time (its window is not known).
  const unplaced = stalls.some((s) => Number.isNaN(s.lastRelistAt));
  const inScope = (ts: number): boolean => windows.length === 0 || unplaced || Number.isNaN(ts) || windows.some(([a, b]) => ts >= a && ts <= b);
  const scoped = node.events.filter((e) => inScope(e.ts));
  // The window the facts cover, in words (counts say which window they are of).
  const scopeFrom = windows.length && !unplaced ? Math.min(...windows.map((w) => w[0])) : NaN;
  const scopeTo = windows.length && !unplaced ? Math.max(...windows.map((w) => w[1])) : NaN;
  f['scope'] = Number.isNaN(scopeFrom) ? 'in the whole input' : `3 min before the last good relist to 1 min after the stall: ${scopeSpan(scopeFrom, scopeTo)}`;
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
  f['stall.undated'] = stalls.filter((s) => Number.isNaN(s.lastRelistAt)).length;
  // The input covers a stall when the kubelet's log runs from before the stall turned unhealthy (the relist's CRI calls
  // time out inside that span) to its last unhealthy line: only then does the absence of an error say something.
  // An unhealthy kubelet says so at every sync (every few seconds): a stall shown by a line every few minutes or hours
  // is an excerpt (a grep for PLEG), whatever it left out.
  f['stall.covered'] = stalls.length > 0 && node.roles.includes('kubelet-log') && node.windowStart !== null && stalls.every((s) =>
    !Number.isNaN(s.lastRelistAt) && !s.sinceUnknown && (node.windowStart as number) <= s.lastRelistAt + s.thresholdSeconds * 1000 + SYNC_SLACK_MS
    && (node.windowEnd ?? -Infinity) >= s.lastLineAt && (s.lastLineAt - s.firstLineAt <= 120_000 || s.unhealthyLines >= (s.lastLineAt - s.firstLineAt) / 60_000));
  f['stall.disagreements'] = node.timeline.disagreements.length;
  p['stall.disagreements'] = pool(node.timeline.disagreements.map((d) => d.ref));
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
  // Before 1.14: a stated version, or the health message's ≤1.13 wording (a Go []string printed as `[a]`; 1.14+ prints a
  // single error bare and several as `[a, b]`). A version neither states is not evidence either way.
  f['kubelet.pre114'] = f['kubelet.minor'] !== null ? (f['kubelet.minor'] as number) < 14 : pre114Wording;
  // A wording speaks of the version only where the input holds the kubelet's own PLEG lines.
  const worded = node.events.some((e) => e.type === 'relist-unhealthy' && e.source !== 'goroutine-dump');
  f['kubelet.versionText'] = node.kubeletVersion ?? (pre114Wording ? 'of unknown version (≤1.13 log wording)' : worded ? 'of unknown version (1.14+ log wording)' : 'of unknown version');
  // 1.14+ wordings: structured or JSON logging, the aggregate error (`[a, b]`, or a single one with its trailing period in
  // 1.14), and the discard line, which only exists since 1.14.
  f['kubelet.fixedDeadlock'] = f['kubelet.minor'] !== null ? (f['kubelet.minor'] as number) >= 14
    : node.events.some((e) => (e.type === 'relist-unhealthy' && (/Skipping pod synchronization|^\s*\{|synchronization - \[[^\]]*, |threshold is \S+\.$/.test(e.ref.text))) || e.type === 'event-channel-full');
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
  f['cri.errors'] = lineCount(counted);
  f['cri.timeouts'] = lineCount(counted.filter((e) => e.code === 'DeadlineExceeded'));
  f['cri.listTimeouts'] = lineCount(listTimeouts);
  f['cri.listErrors'] = lineCount(counted.filter((e) => isList(e.op)));
  f['cri.perIdTimeouts'] = lineCount(perIdTimeouts);
  f['cri.statusTimeouts'] = lineCount(statusTimeouts);
  f['cri.unavailable'] = lineCount(unavailable);
  // Timeouts in kubelet lines that name no CRI method: wrappers repeating a runtime call (GC, probes, the sanity check,
  // old dockershim "operation timeout"), and volume plugins.
  const otherTimeouts = of('timeout-other');
  f['timeouts.runtimeWrapper'] = lineCount(otherTimeouts.filter((e) => e.target === 'runtime-wrapper'));
  f['timeouts.csi'] = lineCount(otherTimeouts.filter((e) => e.target === 'csi'));
  p['timeouts.runtimeWrapper'] = pool(otherTimeouts.filter((e) => e.target === 'runtime-wrapper').map((e) => e.ref));
  p['timeouts.csi'] = pool(otherTimeouts.filter((e) => e.target === 'csi').map((e) => e.ref));
  f['cri.podSandboxStatusTimeouts'] = lineCount(counted.filter((e) => e.op === 'podsandbox_status' && e.code === 'DeadlineExceeded'));
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
    cur.n += e.n ?? 1;
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
  f['cri.topIdShare'] = top && perIdTimeouts.length ? top[1].n / lineCount(perIdTimeouts) : 0;
  p['cri.topId'] = top ? pool(top[1].refs) : [];

  const relistFailed = of('relist-failed');
  f['relist.failed'] = lineCount(relistFailed);
  f['relist.failedTimeouts'] = lineCount(relistFailed.filter((e) => e.code === 'DeadlineExceeded'));
  f['relist.failedUnavailable'] = lineCount(relistFailed.filter((e) => e.code === 'Unavailable'));
  p['relist.failed'] = pool(relistFailed.map((e) => e.ref));

  // Lists too long to answer: gRPC refused a message over its size limit (kubelet, crictl, an event's message).
  const sizeLines = new Map<string, Ref & { n?: number }>();
  for (const e of scoped) {
    if (e.type === 'grpc-size-limit' || ((e.type === 'cri-error' || e.type === 'relist-failed') && e.code === 'ResourceExhausted')) sizeLines.set(`${e.ref.artifact}:${e.ref.line}`, { ...e.ref, n: e.n ?? 1 });
  }
  const sizes = scoped.filter((e): e is EventOf<'grpc-size-limit'> => e.type === 'grpc-size-limit');
  f['cri.sizeLimit'] = lineCount([...sizeLines.values()]);
  f['cri.sizeLimitBytes'] = sizes.reduce((m, e) => Math.max(m, e.size ?? 0), 0) || null;
  f['cri.sizeLimitMax'] = sizes.find((e) => e.limit !== null)?.limit ?? null;
  p['cri.sizeLimit'] = pool([...sizeLines.values()]);

  const podInspect = of('pod-inspect-failed');
  f['pleg.podInspectFailed'] = lineCount(podInspect);
  p['pleg.podInspectFailed'] = pool(podInspect.map((e) => e.ref));

  // Runtime health and daemon logs.
  const down = of('runtime-down');
  f['runtime.down'] = lineCount(down);
  // "container runtime is down" / a failed sanity check also follow a hung runtime; refused connections do not.
  const unreachable = down.filter((e) => !/container runtime is down|sanity check/.test(e.reason));
  // One refused call is often told by one line that is both a "runtime down" and an Unavailable CRI error: lines count.
  const unreachableLines = new Map<string, SignalEvent>();
  for (const e of [...unreachable, ...unavailable]) unreachableLines.set(`${e.ref.artifact}:${e.ref.line}`, e);
  f['runtime.unreachable'] = lineCount([...unreachableLines.values()]);
  p['runtime.unreachable'] = pool([...unreachableLines.values()].sort((a, b) => a.ts - b.ts).map((e) => e.ref));
  p['runtime.down'] = pool(down.map((e) => e.ref));
  const unhealthyRuntimeDown = scoped.filter((e) => e.type === 'relist-unhealthy' && e.runtimeDown);
  f['runtime.downWithPleg'] = lineCount(unhealthyRuntimeDown);
  const lifecycle = of('runtime-lifecycle');
  // Start lines of one start (systemd's, the daemon's own, left-over shims found on the way) count once.
  f['runtime.restarts'] = clusters(lifecycle.filter((e) => e.phase === 'start'), 10_000);
  f['runtime.stops'] = lifecycle.filter((e) => e.phase === 'stop' || e.phase === 'crash').length;
  // Who restarted it: a health monitor that killed the runtime because its check failed.
  const repairs = of('runtime-repair').filter((e) => e.target === 'runtime');
  f['runtime.repairs'] = lineCount(repairs);
  f['runtime.repairedBy'] = repairs[0]?.tool ?? null;
  p['runtime.repairs'] = pool(repairs.map((e) => e.ref));
  p['runtime.lifecycle'] = pool(lifecycle.map((e) => e.ref));
  const daemon = of('runtime-daemon-error');
  f['runtime.brokenPipe'] = lineCount(daemon.filter((e) => e.kind === 'broken-pipe'));
  f['runtime.stateTimeouts'] = lineCount(daemon.filter((e) => e.kind === 'state-timeout'));
  f['runtime.stateTimeoutIds'] = new Set(daemon.filter((e) => e.kind === 'state-timeout' && e.containerId).map((e) => e.containerId)).size;
  f['runtime.taskListTimeouts'] = lineCount(daemon.filter((e) => e.kind === 'task-list-timeout'));
  // The daemon's own errors that say a deadline passed (a handler, a shim call).
  f['runtime.daemonTimeouts'] = lineCount(daemon.filter((e) => e.kind === 'other' || e.kind === 'stop-timeout'));
  // One runtime call that started and never finished, then other containers' calls timing out: it holds the lock.
  const calls = of('runtime-call');
  const done = new Set(calls.filter((e) => e.phase === 'done').map((e) => e.id));
  const open = calls.filter((e) => e.phase === 'start' && !done.has(e.id));
  const after = (t: number) => daemon.filter((d) => d.kind === 'state-timeout' && (Number.isNaN(t) || Number.isNaN(d.ts) || d.ts >= t));
  const blocked = open.find((c) => after(c.ts).some((d) => d.containerId !== c.id));
  f['runtime.blockedCall'] = blocked ? blocked.call : null;
  f['runtime.blockedCallId'] = blocked ? blocked.id : null;
  p['runtime.blockedCall'] = blocked ? [blocked.ref, ...after(blocked.ts).filter((d) => d.containerId !== blocked.id).slice(0, 3).map((d) => d.ref)] : [];
  const panics = of('process-panic');
  const runtimePanics = panics.filter((e) => e.fatal && /^(?:containerd|dockerd|docker|crio|cri-o|runtime|containerd-shim)/.test(e.process));
  f['runtime.panics'] = runtimePanics.length;
  p['runtime.panics'] = pool(runtimePanics.map((e) => e.ref));
  const kubeletCrash: Cite[] = panics.filter((e) => e.fatal && e.process === 'kubelet').map((e) => e.ref);
  for (const d of node.goroutines) if (d.crash && d.program === 'kubelet') kubeletCrash.push({ artifact: d.artifact ?? -1, line: d.crash.line, offset: 0, ts: NaN, mono: NaN, text: d.crash.text });
  f['kubelet.crashes'] = kubeletCrash.length;
  f['kubelet.recoveredPanics'] = panics.filter((e) => !e.fatal && e.process === 'kubelet').length;
  p['kubelet.crashes'] = pool(kubeletCrash);
  f['runtime.shimCleanups'] = lineCount(daemon.filter((e) => e.kind === 'shim-cleanup'));
  f['runtime.daemonErrors'] = lineCount(daemon);
  p['runtime.daemon'] = pool(daemon.map((e) => e.ref));
  p['runtime.brokenPipe'] = pool(daemon.filter((e) => e.kind === 'broken-pipe').map((e) => e.ref));
  p['runtime.stateTimeouts'] = pool(daemon.filter((e) => e.kind === 'state-timeout' || e.kind === 'task-list-timeout').map((e) => e.ref));

  // Commands run on the node (a transcript): did the runtime answer them?
  const cli = of('cli-result');
  const runtimeTools = /^(?:crictl|docker|ctr|nerdctl|podman)$/;
  const cliFailed = cli.filter((e) => runtimeTools.test(e.tool) && (e.outcome === 'timeout' || e.outcome === 'hung'));
  f['cli.timeouts'] = cliFailed.length;
  f['cli.unavailable'] = cli.filter((e) => runtimeTools.test(e.tool) && e.outcome === 'unavailable').length;
  f['cli.responsive'] = cli.filter((e) => runtimeTools.test(e.tool) && e.outcome === 'ok' && e.seconds !== null && e.seconds < 2).length;
  f['cli.responsiveCommand'] = cli.find((e) => runtimeTools.test(e.tool) && e.outcome === 'ok')?.command ?? null;
  f['cli.failedCommand'] = cliFailed[0]?.command ?? cliFailed[0]?.tool ?? null;
  p['cli.timeouts'] = pool(cliFailed.map((e) => e.ref));
  p['cli.unavailable'] = pool(cli.filter((e) => runtimeTools.test(e.tool) && e.outcome === 'unavailable').map((e) => e.ref));
  p['cli.responsive'] = pool(cli.filter((e) => runtimeTools.test(e.tool) && e.outcome === 'ok').map((e) => e.ref));
  const stopping = of('crio-stopping');
  const stopped = new Set(node.events.filter((e): e is EventOf<'crio-stopped'> => e.type === 'crio-stopped').map((e) => e.containerId));
  const unmatched = stopping.filter((e) => !stopped.has(e.containerId) && ![...stopped].some((s) => s.startsWith(e.containerId) || e.containerId.startsWith(s)));
  f['runtime.crioUnmatchedStops'] = unmatched.length;
  f['runtime.crioStuckContainer'] = unmatched[0]?.containerId ?? null;
  p['runtime.crioUnmatchedStops'] = pool(unmatched.map((e) => e.ref));

  // CNI.
  const cni = of('cni-error');
  const cniCalls = of('cni-call');
  f['cni.statusHook'] = lineCount(cni.filter((e) => e.phase === 'status' || e.phase === 'read-ip'));
  f['cni.setupErrors'] = lineCount(cni.filter((e) => e.phase === 'setup'));
  f['cni.teardownErrors'] = lineCount(cni.filter((e) => e.phase === 'teardown'));
  f['cni.errors'] = lineCount(cni);
  f['cni.timeouts'] = lineCount(cni.filter((e) => e.timeout));
  p['cni.timeouts'] = pool(cni.filter((e) => e.timeout).map((e) => e.ref));
  f['cni.calls'] = lineCount(cniCalls);
  f['cni.plugin'] = cni.find((e) => e.plugin)?.plugin ?? cniCalls.find((e) => e.plugin)?.plugin ?? null;
  f['cni.pod'] = cni.find((e) => e.pod)?.pod ?? null;
  p['cni'] = pool(cni.map((e) => e.ref));
  p['cni.calls'] = pool(cniCalls.map((e) => e.ref));

  // Kernel and node.
  const hung = of('hung-task');
  f['kernel.hungTasks'] = lineCount(hung);
  // A kernel line that cannot be placed in time (raw dmesg with nothing to say when the node booted) can support a
  // cause, not decide one.
  f['kernel.hungTasksDated'] = lineCount(hung.filter((e) => !Number.isNaN(e.ts)));
  const hungUndated = lineCount(hung) - (f['kernel.hungTasksDated'] as number);
  f['kernel.hungTaskNames'] = someNames(hung, (i) => (hung[i] as EventOf<'hung-task'>).task, 5, 'tasks');
  f['kernel.hungTasksUndated'] = hungUndated;
  p['kernel.hungTasks'] = pool(hung.map((e) => e.ref));
  // The frames that follow a hung-task report show what it waits for: storage (writeback, NFS, a journal commit).
  const io = of('kernel-io-frame');
  f['kernel.ioFrames'] = lineCount(io);
  f['kernel.ioFrameNames'] = [...new Set(io.map((e) => e.fn))].slice(0, 4).join(', ') || null;
  f['kernel.hungTaskRuntime'] = lineCount(hung.filter((e) => isRuntimeProcess(e.task)));
  p['kernel.ioFrames'] = pool(io.map((e) => e.ref));
  const nfs = of('nfs-not-responding');
  f['kernel.nfs'] = lineCount(nfs);
  f['kernel.nfsServer'] = someNames(nfs, (i) => (nfs[i] as EventOf<'nfs-not-responding'>).server, 1, 'servers');
  p['kernel.nfs'] = pool(nfs.map((e) => e.ref));
  const netdev = of('netdev-unregister');
  f['kernel.netdev'] = lineCount(netdev);
  p['kernel.netdev'] = pool(netdev.map((e) => e.ref));
  // One kill is told by two kernel lines (`Killed process N` and `oom-kill:…pid=N`): kills are counted by victim pid.
  // An OOM storm folded into a few events (signals/thin.ts) keeps no pid of most lines: there the kills are the
  // `Killed process` lines (the kernel prints one per kill; the summary line before it is rate-limited), or, in a
  // grep for the summary alone, its lines: what `grep -c` counts either way.
  const oomLines = of('oom-kill');
  let oom: Array<EventOf<'oom-kill'>>;
  let oomCount: (events: Array<EventOf<'oom-kill'>>) => number;
  if (oomLines.some((e) => e.n !== undefined)) {
    const killed = oomLines.filter((e) => e.killed);
    oom = killed.length ? killed : oomLines;
    oomCount = lineCount;
  } else {
    const kills = new Map<string, EventOf<'oom-kill'>>();
    for (const e of oomLines) {
      const k = e.pid !== null ? `${e.pid}|${e.process}` : `${e.ref.artifact}:${e.ref.line}`;
      if (!kills.has(k) || e.killed) kills.set(k, e);
    }
    oom = [...kills.values()];
    oomCount = (events) => events.length;
  }
  const oomRuntime = oom.filter((e) => isRuntimeProcess(e.process));
  f['kernel.oom'] = oomCount(oom);
  f['kernel.oomRuntime'] = oomCount(oomRuntime);
  f['kernel.oomProcesses'] = someNames(oomLines, (i) => (oomLines[i] as EventOf<'oom-kill'>).process, 5, 'processes');
  p['kernel.oom'] = pool((oomRuntime.length ? oomRuntime : oom).map((e) => e.ref));
  const pid = of('pid-exhaustion');
  f['pid.exhaustion'] = lineCount(pid);
  p['pid.exhaustion'] = pool(pid.map((e) => e.ref));
  const du = of('slow-disk-usage');
  f['disk.slowDu'] = lineCount(du);
  p['disk.slowDu'] = pool(du.map((e) => e.ref));
  const evict = of('eviction');
  f['node.evictions'] = lineCount(evict);
  p['node.evictions'] = pool(evict.map((e) => e.ref));
  const clock = of('clock-change');
  f['clock.changes'] = lineCount(clock);
  p['clock.changes'] = pool(clock.map((e) => e.ref));
  const chan = of('event-channel-full');
  f['pleg.channelFull'] = lineCount(chan);
  p['pleg.channelFull'] = pool(chan.map((e) => e.ref));
  // Evented PLEG: its gate or its own messages (metrics: model/coverage.ts). There, Healthy() fails only when the event
  // channel is full, the last-seen gauge is set to now at every check, and the generic relist runs every 300 s against a
  // 10 min threshold.
  const evented = of('evented-pleg', true);
  f['pleg.evented'] = eventedPleg(node.events);
  f['pleg.eventedFallbacks'] = lineCount(evented.filter((e) => e.what === 'fallback'));
  f['pleg.eventedStreamErrors'] = lineCount(evented.filter((e) => e.what === 'stream-error'));
  f['pleg.eventedChannelFull'] = lineCount(chan.filter((e) => e.evented));
  p['pleg.evented'] = pool([...evented.filter((e) => e.what !== 'enabled'), ...chan.filter((e) => e.evented)].map((e) => e.ref));
  const hk = of('housekeeping-slow');
  f['kubelet.housekeepingSlow'] = lineCount(hk);
  p['kubelet.housekeepingSlow'] = pool(hk.map((e) => e.ref));

  // Clock jump shape: one enormous age with no build-up, recovered at the next relist.
  const hugeOnce = stalls.filter((s) => s.maxAgeSeconds > 3600 && s.unhealthyLines <= 3 && s.endedBy === 'recovered' && (s.endedAt ?? 0) - s.firstLineAt < 120_000);
  f['stall.hugeAgeOnce'] = hugeOnce.length;
  p['stall.hugeAgeOnce'] = pool(hugeOnce.flatMap((s) => s.evidence));

  const healthz = of('healthz-failed', true);
  f['healthz.syncloopFailed'] = lineCount(healthz.filter((e) => e.check === 'syncloop'));
  p['healthz'] = pool(healthz.map((e) => e.ref));
  const statusUpdate = of('node-status-update-failed', true);
  f['node.statusUpdateFailed'] = lineCount(statusUpdate);
  f['node.statusUpdateDetail'] = statusUpdate[0]?.detail ?? null;
  p['node.statusUpdateFailed'] = pool(statusUpdate.map((e) => e.ref));
  const unknown = of('node-status-unknown', true);
  f['node.statusUnknown'] = lineCount(unknown);
  p['node.statusUnknown'] = pool(unknown.map((e) => e.ref));
  const network = of('network-not-ready', true);
  f['network.notReady'] = lineCount(network);
  f['network.reason'] = network[0]?.reason ?? null;
  p['network.notReady'] = pool(network.map((e) => e.ref));
  const ctrl = of('controller-node', true);
  f['controller.events'] = ctrl.length;
  f['controller.notUpdated'] = ctrl.filter((e) => e.what === 'not-updated' || e.what === 'missing-timestamp' || e.what === 'not-ready').length;
  f['controller.leaderChange'] = ctrl.filter((e) => e.what === 'leader').length;
  f['controller.disruption'] = ctrl.filter((e) => e.what === 'disruption').length;
  p['controller'] = pool(ctrl.map((e) => e.ref));

  // NotReady for other reasons.
  const skipped = node.events.filter((e): e is EventOf<'sync-skipped'> => e.type === 'sync-skipped');
  f['sync.skippedOther'] = lineCount(skipped);
  f['sync.skippedReason'] = mostCommon(skipped.map((e) => e.reason));
  p['sync.skippedOther'] = pool(skipped.map((e) => e.ref));
  const nonPleg = node.timeline.notReady.filter((w) => !w.plegReason);
  f['notReady.windows'] = node.timeline.notReady.length;
  f['notReady.nonPleg'] = nonPleg.length;
  f['notReady.nonPlegReason'] = nonPleg[0]?.reason ?? null;
  p['notReady.nonPleg'] = pool(nonPleg.flatMap((w) => w.evidence));
  f['evidence.notReady'] = seen([
    [nonPleg.length, `${nonPleg.length} NotReady window(s) with the reason "${String(f['notReady.nonPlegReason'])}"`],
    [lineCount(skipped), `the sync loop skipped ${lineCount(skipped)} time(s), saying "${String(f['sync.skippedReason'])}"`],
  ]);
  // NotReady reports with no time (a `kubectl get nodes` row, a describe event) and nothing that says why.
  const undatedNotReady = node.events.filter((e) => e.type === 'node-not-ready' && Number.isNaN(e.ts));
  f['notReady.undated'] = lineCount(undatedNotReady);
  p['notReady.undated'] = pool(undatedNotReady.map((e) => e.ref));
  f['startup.artefacts'] = node.timeline.startupArtefacts.length;
  f['startup.lines'] = node.timeline.startupLines;
  p['startup.artefacts'] = pool(node.timeline.startupArtefacts);

  // Metrics.
  const m = node.metrics;
  f['metrics.present'] = m !== null;
  f['metrics.snapshots'] = m?.snapshots ?? 0;
  f['metrics.relistFrozen'] = m ? m.frozenIntervals.some((iv) => stalls.some((s) => iv.toMs >= s.lastRelistAt && iv.fromMs <= (s.endedAt ?? end))) || (stalls.length === 0 ? false : m.relist.countFrozen) : false;
  p['metrics.relistFrozen'] = m ? pool(m.frozenIntervals.flatMap((iv) => iv.evidence)) : [];
  f['metrics.lastSeenAgeSeconds'] = m?.lastSeen?.ageSeconds ?? null;
  p['metrics.lastSeen'] = m?.lastSeen ? [m.lastSeen.evidence] : [];
  // p99s stay numbers for the rules to compare (beyond the last bucket: that bound, so `>= 10` holds as it should); the
  // `…Text` facts are what summaries quote: the bucket, or "above" the last bound, never a bound as if measured.
  f['relist.p99'] = m?.relist.duration?.p99 ?? null;
  f['relist.p99Text'] = latencyText(m?.relist.duration?.latency, m?.relist.duration?.p99 ?? null, 'relist');
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
  // Collected from a cluster by plegscope collect (analyze.ts also sets it when a kubeconfig is at hand).
  f['cluster.kubeconfig'] = f['bundle.kind'] === 'plegscope-collect';
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
  // Failed runtime calls the kubelet counted (kubelet_runtime_operations_errors_total) over the metrics window: what
  // names a hung or absent runtime when no log is at hand (a Prometheus history, snapshots alone).
  const errored = (m?.operations ?? []).filter((o) => (o.errors ?? 0) > 0);
  const errorsOf = (ops: string[]): number => errored.filter((o) => ops.includes(o.operation)).reduce((t, o) => t + (o.errors ?? 0), 0);
  f['metrics.criErrors'] = m ? errored.reduce((t, o) => t + (o.errors ?? 0), 0) : null;
  f['metrics.listErrors'] = m ? errorsOf(['list_podsandbox', 'list_containers']) : null;
  f['metrics.statusErrors'] = m ? errorsOf(['status', 'version']) : null;
  f['metrics.erroredOps'] = errored.map((o) => `${o.operation} ${o.errors}`).join(', ') || null;
  f['metrics.window'] = m && m.windowStartMs !== null && m.windowEndMs !== null && !m.cumulative ? `${isoMin(m.windowStartMs)} → ${isoMin(m.windowEndMs)}` : m ? 'since the kubelet started' : null;
  p['metrics.criErrors'] = pool(errored.flatMap((o) => { const e = o.evidence.filter((r) => r.text.includes('_errors')); return e.length > 0 ? e : o.evidence.slice(0, 2); }));
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
  const lists = (m?.operations ?? []).filter((o) => o.operation === 'list_containers' || o.operation === 'list_podsandbox');
  const slowestList = lists.reduce<(typeof lists)[number] | null>((a, o) => ((o.p99 ?? 0) > (a?.p99 ?? 0) ? o : a), null);
  f['metrics.listP99'] = m ? slowestList?.p99 ?? 0 : null;
  f['metrics.listP99Text'] = latencyText(slowestList?.latency, slowestList?.p99 ?? null, 'call');

  // Container churn: PLEG events per minute around the stalls (from all proof lines, counted before thinning).
  f['pleg.eventsPerMinute'] = null;

  // Goroutine dumps: the kubelet's relist goroutine, goroutines stuck in file-system calls, a runtime's lock pile-up.
  const dumps = node.goroutines;
  const relistDump = dumps.find((d) => d.relist.length > 0) ?? null;
  const g = relistDump?.relist[0] ?? null;
  const at = (d: ParsedGoroutines, line: number, text: string): Ref => ({ artifact: d.artifact ?? -1, line, offset: 0, ts: NaN, mono: NaN, text });
  f['goroutine.present'] = dumps.length > 0;
  f['goroutine.kubelet'] = dumps.some((d) => d.program === 'kubelet');
  f['goroutine.relistState'] = g?.state ?? null;
  f['goroutine.relistWaitMinutes'] = g?.waitMinutes ?? null;
  f['goroutine.relistChanSend'] = g ? g.state === 'chan send' : false;
  f['goroutine.relistInCni'] = g ? g.frames.some((fr) => /GetPodNetworkStatus|SetUpPod|TearDownPod|network\/cni|getIPFromPlugin/.test(fr)) : false;
  f['goroutine.relistInCri'] = g ? g.frames.some((fr) => /grpc\.\(\*ClientConn\)\.Invoke|RemoteRuntimeService|remoteRuntimeService|libdocker|dockertools/.test(fr)) : false;
  f['goroutine.relistInList'] = g ? f['goroutine.relistInCri'] === true && g.frames.some((fr) => /ListPodSandbox|ListContainers|\.GetPods\b|getKubeletSandboxes|getKubeletContainers/.test(fr)) && !g.frames.some((fr) => /GetPodStatus|ContainerStatus|PodSandboxStatus/.test(fr)) : false;
  f['goroutine.relistInStatus'] = g ? f['goroutine.relistInCri'] === true && g.frames.some((fr) => /GetPodStatus|ContainerStatus|PodSandboxStatus/.test(fr)) && f['goroutine.relistInCni'] !== true : false;
  // A relist goroutine seen running in a crash traceback is the crash, not a stall.
  f['goroutine.relistCrashed'] = relistDump?.crash !== null && relistDump?.crash !== undefined && g?.state === 'running';
  f['goroutine.deepestFrame'] = g?.deepestKubeletFrame ?? null;
  // Where the relist is held: which step of relist() and which call (the question users ask most).
  const where = g ? relistWhere(g.frames, g.state) : null;
  f['goroutine.relistStep'] = where?.step ?? null;
  f['goroutine.relistCall'] = where?.call ?? null;
  f['goroutine.relistWhere'] = g && where ? `the relist goroutine${g.waitMinutes !== null ? ` has waited ${g.waitMinutes} min` : ' waits'}${g.state ? ` (${g.state})` : ''} ${where.step}${where.call ? `, in ${where.call}` : ''}` : null;
  p['goroutine'] = g && relistDump ? [at(relistDump, g.line, g.headerText)] : [];
  // The kubelet's (or a dump nobody claims) goroutines blocked for minutes in a stat/statfs or a mount helper.
  const fs = dumps.filter((d) => d.program === 'kubelet' || d.program === 'unknown').flatMap((d) => d.fsWaits.map((w) => ({ d, w })));
  const worst = fs.sort((x, y) => (y.w.waitMinutes ?? 0) - (x.w.waitMinutes ?? 0))[0];
  f['goroutine.fsWaits'] = fs.length;
  f['goroutine.fsWaitMinutes'] = worst ? worst.w.waitMinutes : null;
  f['goroutine.fsWaitFrame'] = worst ? (worst.w.frames.find((fr) => /IsLikelyNotMountPoint|Mount|\bStat\b|Statfs|statNolog|fstatat|Lstat/.test(fr)) ?? worst.w.frames[0] ?? null) : null;
  p['goroutine.fsWaits'] = pool(fs.map(({ d, w }) => at(d, w.line, w.headerText)));
  // A runtime's goroutines piled up behind one lock: a call holds it and every CRI call waits.
  const runtimeDumps = dumps.filter((d) => d.program !== 'kubelet');
  const pile = runtimeDumps.map((d) => ({ d, w: d.lockWait })).filter((x) => x.w !== null).sort((x, y) => (y.w?.count ?? 0) - (x.w?.count ?? 0))[0];
  f['goroutine.runtimeProgram'] = runtimeDumps[0]?.program ?? null;
  f['goroutine.runtimeLockWaiters'] = pile?.w?.count ?? 0;
  f['goroutine.runtimeLockMinutes'] = pile?.w?.maxMinutes ?? null;
  f['goroutine.runtimeLockSite'] = pile?.w?.site ?? null;
  p['goroutine.runtimeLock'] = pile?.w ? [at(pile.d, pile.w.sample.line, pile.w.sample.headerText)] : [];
  const waited = runtimeDumps.map((d) => ({ d, g: d.longest })).filter((x) => x.g !== null).sort((x, y) => (y.g?.waitMinutes ?? 0) - (x.g?.waitMinutes ?? 0))[0];
  f['goroutine.runtimeLongestMinutes'] = waited?.g?.waitMinutes ?? null;
  p['goroutine.runtimeLongest'] = waited?.g ? [at(waited.d, waited.g.line, waited.g.headerText)] : [];
  // One runtime goroutine parked for 30 min or more under the daemon's own work (event loop, inspect, task state).
  const frozen = runtimeDumps.map((d) => ({ d, g: d.frozen })).filter((x) => x.g !== null).sort((x, y) => (y.g?.waitMinutes ?? 0) - (x.g?.waitMinutes ?? 0))[0];
  f['goroutine.runtimeFrozenMinutes'] = frozen?.g?.waitMinutes ?? 0;
  f['goroutine.runtimeFrozenFrame'] = frozen?.g ? (frozen.g.frames.find((fr) => !/^(?:runtime|sync|syscall|internal\/\w+)\./.test(fr)) ?? frozen.g.frames[0] ?? null) : null;
  f['goroutine.runtimeFrozenState'] = frozen?.g?.state ?? null;
  p['goroutine.runtimeFrozen'] = frozen?.g ? [at(frozen.d, frozen.g.line, frozen.g.headerText)] : [];
  // The kubelet's goroutines inside the network plugin's calls (dockershim runs PodSandboxStatus → GetPodNetworkStatus in
  // a goroutine of its own, which the relist waits on).
  const cniDumped = dumps.filter((d) => d.program === 'kubelet' || d.program === 'unknown').flatMap((d) => d.cniWaits.map((w) => ({ d, w })));
  f['goroutine.cniWaits'] = cniDumped.length;
  f['goroutine.cniFrame'] = cniDumped[0] ? (cniDumped[0].w.frames.find((fr) => /GetPodNetworkStatus|getIPsFromPlugin|getIPFromPlugin|cniNetworkPlugin|SetUpPod|TearDownPod|invoke|libcni/.test(fr)) ?? null) : null;
  p['goroutine.cniWaits'] = pool(cniDumped.map(({ d, w }) => at(d, w.line, w.headerText)));

  // What each kind of evidence amounted to, in words, naming only what is there (summaries stay true to the counts).
  const n = (k: string): number => (typeof f[k] === 'number' ? (f[k] as number) : 0);
  f['runtime.statusCheckFailed'] = countLines(scoped, (e) => e.type === 'runtime-down' && e.reason.startsWith('Container runtime sanity check failed'));
  f['lines.runtimeDownForHang'] = countLines(scoped, (e) => (e.type === 'runtime-down' && e.reason === 'container runtime is down') || (e.type === 'relist-unhealthy' && e.runtimeDown));
  const clientTimeouts = lineCount(counted.filter((e) => e.layer === 'client' && e.code === 'DeadlineExceeded'));
  const callerTimeouts = n('cri.timeouts') - clientTimeouts;
  // Optional phrases of summaries (`{x|opt}`): there only when what they say is.
  f['phrase.runtime'] = node.runtime ? `(${node.runtime})` : null;
  f['phrase.listShare'] = listShare(n('cri.listTimeouts'), n('cri.timeouts'));
  const hangSaid = new Set<string>();
  f['evidence.runtimeHang'] = seen([
    [clientTimeouts, `${clientTimeouts} CRI call(s) timed out (DeadlineExceeded)`, ['cri.listTimeouts', 'cri.timeouts']],
    [callerTimeouts, `${callerTimeouts} more timed-out CRI call(s) that only their callers logged`],
    [n('cri.timeouts') === 0 ? n('timeouts.runtimeWrapper') : 0, `${n('timeouts.runtimeWrapper')} kubelet line(s) where a call to the runtime timed out (garbage collection, probes, pod workers)`],
    [(f['metrics.listP99'] as number | null) !== null && n('metrics.listP99') >= 60, `list calls' p99 in metrics ${String(f['metrics.listP99Text'])}`, ['metrics.listP99', 'metrics.slowOps']],
    [f['goroutine.relistInList'] === true, String(f['goroutine.relistWhere'] ?? 'the relist goroutine waits on a CRI list call'), ['goroutine.relistInList']],
    [n('lines.runtimeDownForHang'), `${n('lines.runtimeDownForHang')} line(s) saying the container runtime is down`, ['runtime.down']],
    [n('runtime.statusCheckFailed'), `${n('runtime.statusCheckFailed')} failed runtime status check(s)`],
    [n('relist.failedTimeouts'), `${n('relist.failedTimeouts')} relist(s) failed on a timeout`, ['relist.failed']],
    [n('runtime.stateTimeouts'), `${n('runtime.stateTimeouts')} "get state" timeout(s) in the runtime's log (${n('runtime.stateTimeoutIds')} container(s))`],
    [n('runtime.taskListTimeouts'), `${n('runtime.taskListTimeouts')} task listing(s) cancelled in the runtime's log`],
    [n('runtime.brokenPipe'), `${n('runtime.brokenPipe')} dockerd line(s) of a reply its client had given up on (broken pipe)`],
    [n('runtime.daemonTimeouts'), `${n('runtime.daemonTimeouts')} error(s) in the runtime's log where a deadline passed`, ['runtime.daemonErrors']],
    [n('cli.timeouts'), `${n('cli.timeouts')} runtime command(s) that timed out or hung (${String(f['cli.failedCommand'] ?? '')})`, ['cli.timeouts']],
    [f['runtime.blockedCall'] !== null, `${String(f['runtime.blockedCall'])} of ${String(f['runtime.blockedCallId'] ?? '').slice(0, 12)} started and never finished while other containers' calls timed out`],
    [n('goroutine.runtimeLockWaiters') >= 5, `${n('goroutine.runtimeLockWaiters')} ${String(f['goroutine.runtimeProgram'])} goroutines waiting up to ${n('goroutine.runtimeLockMinutes')} min at one lock (${String(f['goroutine.runtimeLockSite'])})`],
    [n('goroutine.runtimeFrozenMinutes') >= 30, `a ${String(f['goroutine.runtimeProgram'])} goroutine parked ${n('goroutine.runtimeFrozenMinutes')} min (${String(f['goroutine.runtimeFrozenState'])}) in ${String(f['goroutine.runtimeFrozenFrame'])}: every call that needs it waits`],
  ], hangSaid);
  f['evidence.runtimeDown'] = seen([
    [n('runtime.unreachable'), `${n('runtime.unreachable')} line(s) where a call found the runtime unreachable (refused, socket missing, Unavailable)`],
    [n('relist.failedUnavailable'), `${n('relist.failedUnavailable')} relist(s) failed: runtime unreachable`],
    [n('runtime.panics'), `${n('runtime.panics')} Go panic(s) in the runtime's own output`],
    [n('runtime.restarts'), `${n('runtime.restarts')} runtime start(s)`],
    [n('runtime.repairs'), `${String(f['runtime.repairedBy'])} killed the runtime ${n('runtime.repairs')} time(s) because its health check failed (the runtime did not answer: a hang came first)`],
    [n('cli.unavailable'), `${n('cli.unavailable')} runtime command(s) that could not connect`],
  ]);
  f['evidence.storage'] = seen([
    [n('kernel.hungTasks'), `${n('kernel.hungTasks')} hung-task report(s) (${String(f['kernel.hungTaskNames'])}${n('kernel.hungTasks') === n('kernel.hungTasksUndated') ? '; time unknown' : n('kernel.hungTasksUndated') ? `; ${n('kernel.hungTasksUndated')} of them at an unknown time` : ''})`],
    [n('kernel.ioFrames'), `${n('kernel.ioFrames')} blocked-task frame(s) waiting on storage (${String(f['kernel.ioFrameNames'])})`],
    [n('kernel.nfs'), `${n('kernel.nfs')} "NFS server not responding" (${String(f['kernel.nfsServer'])})`],
    [n('timeouts.csi'), `${n('timeouts.csi')} volume plugin (CSI) call(s) that timed out`],
    [n('goroutine.fsWaits'), `a kubelet goroutine blocked ${n('goroutine.fsWaitMinutes')} min in a file-system call (${String(f['goroutine.fsWaitFrame'])})`],
    [n('healthz.syncloopFailed'), 'the kubelet\'s /healthz reports its sync loop failed (wedged, most often on a file-system call that does not return)'],
    [n('disk.slowDu'), `${n('disk.slowDu')} disk-usage scan(s) that took minutes`],
  ]);
  f['evidence.stuckObject'] = seen([
    [n('cri.perIdTimeouts'), `${n('cri.perIdTimeouts')} per-ID CRI call(s) timed out${n('cri.topIdCount') ? `, ${n('cri.topIdCount')} of them on ${String(f['cri.topIdOp'])} of ${String(f['cri.topId'])}${f['cri.topIdPod'] ? ` (pod ${String(f['cri.topIdPod'])})` : ''}` : ''}`],
    [f['goroutine.relistInStatus'] === true, String(f['goroutine.relistWhere'] ?? 'the relist goroutine waits on a per-pod status call')],
    [n('runtime.crioUnmatchedStops'), `cri-o began stopping ${n('runtime.crioUnmatchedStops')} container(s) and never finished`],
  ]);
  f['evidence.cni'] = seen([
    [n('cni.statusHook'), `the network plugin${f['cni.plugin'] ? ` (${String(f['cni.plugin'])})` : ''} failed ${n('cni.statusHook')} time(s) on the status hook${f['cni.pod'] ? ` (pod ${String(f['cni.pod'])})` : ''}`],
    [n('cri.podSandboxStatusTimeouts'), `${n('cri.podSandboxStatusTimeouts')} PodSandboxStatus call(s) timed out`],
    [n('cni.timeouts'), `${n('cni.timeouts')} CNI set-up or tear-down call(s) ran out of time`],
    [n('cni.teardownErrors'), `${n('cni.teardownErrors')} CNI tear-down error(s)`],
    [n('kernel.netdev'), `the kernel waited ${n('kernel.netdev')} time(s) for a network device to be freed (unregister_netdevice)`],
    [f['goroutine.relistInCni'] === true, 'the relist goroutine is inside the network plugin\'s status call'],
    [f['goroutine.relistInCni'] !== true && n('goroutine.cniWaits') > 0, `${n('goroutine.cniWaits')} kubelet goroutine(s) wait inside the network plugin's call (${String(f['goroutine.cniFrame'])})`],
  ]);
  f['evidence.listTooBig'] = seen([
    [n('cri.sizeLimit'), `${n('cri.sizeLimit')} list reply(ies) over the gRPC size limit${f['cri.sizeLimitBytes'] ? ` (${String(f['cri.sizeLimitBytes'])} vs. ${String(f['cri.sizeLimitMax'])} bytes)` : ''}`],
    [n('pods.exitedContainers') >= 1000, `${n('pods.exitedContainers')} exited containers`],
  ]);

  // Versions with a known bug (rules/known-bugs.ts): every range of an entry must match a version the input states.
  for (const b of KNOWN_BUGS) {
    const refs: Ref[] = [];
    const stated: string[] = [];
    let hit = b.match.every((r) => {
      const v = node.versions[r.component];
      // A bug every version has needs only to know the component is the node's runtime.
      const anyVersion = r.from === undefined && r.before === undefined && r.pattern === undefined;
      if (!v && anyVersion && node.runtime === r.component) {
        stated.push(`${r.component} (version not stated)`);
        return true;
      }
      if (!v || !inRange(v.version, r)) return false;
      refs.push(v.ref);
      stated.push(`${r.component} ${v.version}`);
      return true;
    });
    if (hit && b.unlessStated && node.versions[b.unlessStated]) hit = false;
    if (hit && b.needs) hit = b.needs.some((k) => (typeof f[k] === 'number' ? (f[k] as number) > 0 : !!f[k]));
    f[`knownBug.${b.id}`] = hit;
    f[`knownBug.${b.id}.versions`] = hit ? stated.join(', ') : null;
    p[`knownBug.${b.id}`] = hit ? refs : [];
    if (hit) f[`knownBugs.${b.cause}`] = n(`knownBugs.${b.cause}`) + 1;
  }

  // Custom signals from user rule packs.
  for (const e of node.events) {
    if (e.type !== 'custom') continue;
    const k = `custom.${e.signal}`;
    f[k] = ((f[k] as number | undefined) ?? 0) + 1;
    const list = (p[k] ??= []);
    if (list.length < POOL_CAP) list.push(e.ref);
  }
  const counts = countChecks(node, inScope, f['scope'] as string);
  for (const c of COUNTED) f[c.key] = counts[c.key]?.count ?? 0;
  const unhealthyLines = f['lines.unhealthy'] as number;
  f['phrase.unhealthyLines'] = unhealthyLines ? `(${unhealthyLines} line(s) saying how long ago it was last seen active)` : null;
  return { facts: f, pools: p, counts, refused: node.bundle.refusals, said: { 'evidence.runtimeHang': [...hangSaid], 'phrase.listShare': ['cri.listTimeouts'] } };
}

/** The counted kinds of line (COUNTED) present in the node's input, with the grep that finds them. */
function countChecks(node: NodeModel, inScope: (ts: number) => boolean, scope: string): Record<string, CountCheck> {
  const out: Record<string, CountCheck> = {};
  for (const c of COUNTED) {
    const all = new Map<number, { ts: number; file: number; n: number }>();
    for (const e of node.events) if (c.test(e)) all.set(lineKey(e), { ts: e.ts, file: e.ref.artifact, n: e.n ?? 1 });
    if (all.size === 0) continue;
    // The copies dropped (the same journal in two files) are still in their files: the command counts them.
    const copies = new Map<number, { file: number; n: number }>();
    for (const e of node.duplicates ?? []) if (c.test(e)) copies.set(lineKey(e), { file: e.ref.artifact, n: e.n ?? 1 });
    const count = lineCount([...all.values()].filter((x) => inScope(x.ts)));
    const total = lineCount([...all.values()]);
    const deduplicated = lineCount([...copies.values()]);
    const files = [...new Set([...all.values(), ...copies.values()].map((x) => x.file))].sort((a, b) => a - b);
    out[c.key] = {
      what: c.what, count, total, window: scope === 'in the whole input' ? null : scope, grep: `{grep} ${shq(c.pattern)} ${files.map((id) => `{file:${id}}`).join(' ')}`,
      ...(deduplicated > 0 ? { prints: total + deduplicated, deduplicated } : {}),
    };
  }
  return out;
}

/** The parts that are there, joined ("3 CRI call(s) timed out; 1 runtime start(s)"), or null when none is. */
/** Which step of relist() a goroutine's frames (innermost first) are in, and the runtime call it waits on. */
export function relistWhere(frames: string[], state: string | null): { step: string; call: string | null } {
  const has = (re: RegExp): boolean => frames.some((f) => re.test(f));
  const callFrame = frames.find((f) => /(?:RuntimeService|runtimeService|dockerService|dockershim)\S*\.(?:ListPodSandbox|ListContainers|PodSandboxStatus|ContainerStatus|GetPodNetworkStatus)|libdocker\S*\.(?:ListContainers|InspectContainer)|GetPodNetworkStatus/.test(f));
  const call = callFrame ? (callFrame.replace(/\([^()]*\)$/, '').split('.').pop() ?? null) : null;
  const step = state === 'chan send' && !callFrame ? 'sending a pod event to the sync loop (the channel was full)'
    : has(/updateCache|GetPodStatus/) ? 'updating the pod cache of a changed pod (GetPodStatus)'
    : has(/\.GetPods\b|getKubeletSandboxes|getKubeletContainers/) ? 'listing pods and containers (GetPods)'
    : 'in relist';
  return { step, call };
}

/** A window in the reports' time style (UTC): `2024-03-11 10:04:12 → 10:22:27 +00:00` (the end's date when it
 *  differs). */
function scopeSpan(a: number, b: number): string {
  const at = (ms: number): string => isoTime(ms).slice(0, 19).replace('T', ' ');
  const x = at(a);
  const y = at(b);
  return `${x} → ${y.slice(0, 10) === x.slice(0, 10) ? y.slice(11) : y} +00:00`;
}

/** What a kind of evidence amounted to: the phrases of the parts there are, as one list (LIST_SEP between items: a
 *  summary joins them with `; `, its one-fact-per-line form puts each on a line). `said` collects the facts the
 *  phrases state, so that a finding's "supporting" list does not say them again (rules/engine.ts factLines). */
function seen(parts: Array<[number | boolean, string, string[]?]>, said?: Set<string>): string | null {
  const there = parts.filter(([v]) => (typeof v === 'number' ? v > 0 : v));
  for (const [, , keys] of there) for (const k of keys ?? []) said?.add(k);
  const out = there.map(([, t]) => t);
  return out.length ? LIST_START + out.join(LIST_SEP) : null;
}

/** Before and between the items of a list fact (`seen`): rules/engine.ts render turns them into nothing and `; `, or
 *  into line breaks. */
export const LIST_START = '\u001e';
export const LIST_SEP = '\u001f';

/** An event's file and line as one number (no string for each of a dense log's events): lines below 2^32, files below
 *  2^21. */
function lineKey(e: SignalEvent): number {
  return e.ref.artifact * 4294967296 + e.ref.line;
}

/** Distinct lines among the events that pass `test` (an event of a folded run counts its `n`). */
function countLines(events: SignalEvent[], test: (e: SignalEvent) => boolean): number {
  const lines = new Map<number, number>();
  for (const e of events) if (test(e)) lines.set(lineKey(e), e.n ?? 1);
  let k = 0;
  for (const n of lines.values()) k += n;
  return k;
}

/** How many separate bursts the events make (events closer than `gapMs` belong to one; undated ones count alone). */
function clusters(events: Array<{ ts: number }>, gapMs: number): number {
  const ts = events.map((e) => e.ts).filter((t) => !Number.isNaN(t)).sort((a, b) => a - b);
  let n = events.length - ts.length;
  for (let i = 0; i < ts.length; i++) if (i === 0 || (ts[i] as number) - (ts[i - 1] as number) > gapMs) n++;
  return n;
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

/** A window edge to the minute, in UTC (`2024-03-11T10:07Z`). */
function isoMin(ms: number): string {
  return isoTime(ms).replace(/:\d\d\.\d+Z$/, 'Z');
}

/** A p99 (plain value `seconds`) as prose that says how it is known: `between 119 s and 298 s` (its histogram bucket),
 *  `above 10 s, with 5 of 5 relists beyond the last bucket`, `1.23 s in the kubelet's summary of its last 10 minutes`.
 *  `noun` names what was observed, written for plurals() (`relist` → `relist(s)`). Null when the p99 is unknown. */
export function latencyText(l: Latency | null | undefined, seconds: number | null, noun: string): string | null {
  const v = l ? figure(l, 'p99', seconds) : null;
  if (!l || !v) return null;
  const s = (x: number): string => shortSeconds(x, true);
  if (v.kind === 'beyond') {
    const b = l.beyond;
    return `above ${s(v.seconds)}${b && l.count !== null ? `, with ${b.count} of ${l.count} ${noun}(s) beyond the last bucket` : ''}`;
  }
  if (v.bucket) {
    const { from, to } = v.bucket;
    return from > 0 ? `between ${s(from)} and ${s(to ?? v.seconds)}` : `at most ${s(to ?? v.seconds)}`;
  }
  return `${s(v.seconds)} in the kubelet's summary of its last 10 minutes`;
}

/** How many of the timed-out CRI calls were list calls (what every relist makes), in a sentence; null with none. */
function listShare(lists: number, all: number): string | null {
  if (all === 0) return null;
  if (lists === all) return all === 1 ? 'It was a list call, which every relist makes.' : `${all === 2 ? 'Both' : `All ${all}`} were list calls, which every relist makes.`;
  return `${lists} of the ${all} timed-out calls ${lists === 1 ? 'was a list call' : 'were list calls'}, which every relist makes.`;
}
