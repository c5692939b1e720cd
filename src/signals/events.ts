// Typed events: what a log line means for PLEG forensics, each with the line it rests on.
// Signals know nothing of stalls or causes; the model and the rules combine them.

export interface Ref {
  /** Artifact id (index in Discovery.artifacts). */
  artifact: number;
  line: number;
  offset: number;
  ts: number;
  /** Seconds since boot, for raw dmesg lines (NaN otherwise). */
  mono: number;
  text: string;
}

interface Base {
  ts: number;
  /** Journal host (or node name found in the line); null when the line does not say. */
  host: string | null;
  ref: Ref;
  /** Lines this event counts, itself included, when a dense run of its kind was folded into it (signals/thin.ts); the
   *  event is then the newest of them. Absent: 1. Counts of lines are sums of it (`lineCount`). */
  n?: number;
}

/** Processes of the container runtime and the kubelet, by the name the kernel gives them (`comm`): a hung task or an
 *  OOM victim of these stalls PLEG itself. */
const RUNTIME_PROCS = /^(dockerd|docker|containerd|containerd-shim.*|crio|conmon|kubelet|hyperkube|kubenswrapper|runc)$/;
export const isRuntimeProcess = (comm: string): boolean => RUNTIME_PROCS.test(comm);

/** How many lines these events stand for (each counts `n`, default 1). */
export function lineCount(events: ReadonlyArray<{ n?: number }>): number {
  let k = 0;
  for (const e of events) k += e.n ?? 1;
  return k;
}

export type Component = 'kubelet' | 'docker' | 'containerd' | 'cri-o' | 'runc' | 'kernel' | 'os' | 'k3s' | 'rke2';

export type CriCode = 'DeadlineExceeded' | 'Unavailable' | 'Unknown' | 'Canceled' | 'NotFound' | 'Unimplemented' | 'ResourceExhausted' | 'Internal' | 'Other' | null;

export type SignalEvent =
  /** A health-check failure carrying "last seen active X ago" (or the never-succeeded forms). `uptimeSeconds`: how long
   *  the kubelet had been running when it was written, when the line says (`m=+0.403692528` in a Go time value).
   *  `source`: the sync loop's skip line, the kubelet's own "Node became not ready", the Ready condition as the API server
   *  holds it (a Node object, `kubectl describe node`: a report at second hand), a relist goroutine parked for minutes in a
   *  goroutine dump (signals/dumps.ts), or another line. */
  | (Base & { type: 'relist-unhealthy'; ageSeconds: number | null; thresholdSeconds: number; neverSucceeded: boolean; source: 'sync-loop' | 'node-condition' | 'api-condition' | 'goroutine-dump' | 'other'; runtimeDown: boolean; uptimeSeconds: number | null })
  /** Sync loop skipped for a reason that is not PLEG (runtime down, status check pending, network). */
  | (Base & { type: 'sync-skipped'; reason: string })
  | (Base & { type: 'node-not-ready'; message: string | null })
  | (Base & { type: 'node-ready' })
  /** Proof that a relist completed: SyncLoop (PLEG) events, `Generic (PLEG): container finished`, state transitions. */
  | (Base & { type: 'relist-proof'; what: string })
  | (Base & { type: 'relist-failed'; code: CriCode })
  | (Base & { type: 'kubelet-start'; version: string | null; marker: 'version' | 'started' | 'systemd-start' | 'systemd-stop' | 'sync-loop-start' })
  | (Base & { type: 'kubelet-line'; pid: number; ident: string | null })
  | (Base & { type: 'runtime-info'; runtime: 'docker' | 'containerd' | 'cri-o' | null; version: string | null })
  | (Base & { type: 'cri-error'; op: string; code: CriCode; layer: 'client' | 'caller'; containerId: string | null; sandboxId: string | null; pod: string | null; detail: string })
  | (Base & { type: 'runtime-down'; reason: string })
  /** `timeout`: the plugin call itself ran out of time (a hung CNI plugin), not a plain failure. */
  | (Base & { type: 'cni-error'; phase: 'status' | 'setup' | 'teardown' | 'read-ip' | 'other'; pod: string | null; sandboxId: string | null; plugin: string | null; timeout: boolean })
  | (Base & { type: 'cni-call'; phase: 'setup' | 'teardown'; pod: string | null; plugin: string | null })
  | (Base & { type: 'event-channel-full'; evented: boolean })
  /** Evented PLEG seen at work: its gate on, its event stream failing, its fall-back to generic relisting. */
  | (Base & { type: 'evented-pleg'; what: 'enabled' | 'stream-error' | 'fallback' })
  | (Base & { type: 'pod-inspect-failed'; pod: string | null; code: CriCode })
  | (Base & { type: 'hung-task'; task: string; seconds: number })
  | (Base & { type: 'nfs-not-responding'; server: string })
  | (Base & { type: 'netdev-unregister'; device: string })
  /** One kill: the victim the OOM killer names (`Killed process 1234 (java)`, `killed`; or the summary line the kernel
   *  prints before it, `oom-kill:…task=java,pid=1234`, which a storm rate-limits). */
  | (Base & { type: 'oom-kill'; process: string; pid: number | null; killed: boolean })
  /** A call that timed out in a kubelet line that names no CRI method: a wrapper repeating a runtime call already told
   *  (garbage collection, a probe, the sanity check), a volume plugin (CSI), or something else. Not a CRI timeout. */
  | (Base & { type: 'timeout-other'; target: 'runtime-wrapper' | 'csi' | 'other'; detail: string })
  | (Base & { type: 'pid-exhaustion'; detail: string })
  | (Base & { type: 'slow-disk-usage'; seconds: number | null })
  | (Base & { type: 'clock-change'; detail: string })
  /** A health monitor that killed the runtime or the kubelet because a check failed (GKE's health-monitor.sh). */
  | (Base & { type: 'runtime-repair'; tool: string; target: 'runtime' | 'kubelet'; runtime: 'docker' | 'containerd' | 'cri-o' | null; detail: string })
  | (Base & { type: 'runtime-lifecycle'; runtime: 'docker' | 'containerd' | 'cri-o' | null; phase: 'start' | 'stop' | 'crash' })
  | (Base & { type: 'runtime-daemon-error'; runtime: 'docker' | 'containerd' | 'cri-o' | null; kind: 'broken-pipe' | 'state-timeout' | 'task-list-timeout' | 'shim-cleanup' | 'stop-timeout' | 'other'; containerId: string | null })
  | (Base & { type: 'crio-stopping'; containerId: string; timeoutSeconds: number | null })
  | (Base & { type: 'crio-stopped'; containerId: string })
  | (Base & { type: 'eviction'; detail: string })
  | (Base & { type: 'housekeeping-slow'; seconds: number | null })
  | (Base & { type: 'node-name'; node: string })
  /** A component's version, wherever the input states it (kubelet start, runtime start, `docker info`, a kernel
   *  report, `kubectl describe node`). */
  | (Base & { type: 'component-version'; component: Component; version: string })
  /** NetworkReady=false / CNI not initialized: a network NotReady, not a PLEG one. */
  | (Base & { type: 'network-not-ready'; reason: string })
  /** The node controller marked the node Unknown because the kubelet stopped posting its status (the kubelet went
   *  silent or could not reach the API server): not a stale PLEG. */
  | (Base & { type: 'node-status-unknown'; node: string | null })
  /** What the controller manager's node lifecycle said about a node (named in the line, not the log's host). */
  | (Base & { type: 'controller-node'; node: string | null; what: 'not-updated' | 'not-ready' | 'missing-timestamp' | 'disruption' | 'leader' })
  /** A Go panic or fatal error printed by a process (a crash unless it was recovered: `Observed a panic`). */
  | (Base & { type: 'process-panic'; process: string; fatal: boolean; detail: string })
  /** A gRPC message over the size limit (`trying to send message larger than max (N vs. M)`): lists too long to answer. */
  | (Base & { type: 'grpc-size-limit'; op: string | null; size: number | null; limit: number | null })
  /** A kernel stack frame of a blocked task that waits on storage (writeback, NFS RPC, journal, page I/O). */
  | (Base & { type: 'kernel-io-frame'; fn: string })
  /** A runtime call that started (and, later, finished): a start with no end holds the runtime's lock. */
  | (Base & { type: 'runtime-call'; call: string; id: string | null; phase: 'start' | 'done' })
  /** A health check that failed (`[-]syncloop failed`: the kubelet's sync loop is wedged). */
  | (Base & { type: 'healthz-failed'; check: string; reason: string | null })
  /** A runtime or host command and how it went (crictl/docker/ctr from a transcript or its own error line). */
  | (Base & { type: 'cli-result'; tool: string; command: string | null; outcome: 'ok' | 'timeout' | 'unavailable' | 'size-limit' | 'error' | 'hung'; seconds: number | null; detail: string })
  /** The kubelet could not post its status or renew its lease (API server unreachable or slow): NotReady from the
   *  controller's side, not a stale PLEG. */
  | (Base & { type: 'node-status-update-failed'; detail: string })
  /** `...` alone on a line: the poster left lines out here (after the dated line before it). */
  | (Base & { type: 'gap' })
  /** A line a user rule pack's pattern matched. */
  | (Base & { type: 'custom'; signal: string });

export type SignalType = SignalEvent['type'];
export type EventOf<T extends SignalType> = Extract<SignalEvent, { type: T }>;
