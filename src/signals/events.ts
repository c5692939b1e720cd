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
}

export type CriCode = 'DeadlineExceeded' | 'Unavailable' | 'Unknown' | 'Canceled' | 'NotFound' | 'Unimplemented' | 'ResourceExhausted' | 'Internal' | 'Other' | null;

export type SignalEvent =
  /** A health-check failure carrying "last seen active X ago" (or the never-succeeded forms). */
  | (Base & { type: 'relist-unhealthy'; ageSeconds: number | null; thresholdSeconds: number; neverSucceeded: boolean; source: 'sync-loop' | 'node-condition' | 'other'; runtimeDown: boolean })
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
  | (Base & { type: 'cni-error'; phase: 'status' | 'setup' | 'teardown' | 'read-ip' | 'other'; pod: string | null; sandboxId: string | null; plugin: string | null })
  | (Base & { type: 'cni-call'; phase: 'setup' | 'teardown'; pod: string | null; plugin: string | null })
  | (Base & { type: 'event-channel-full'; evented: boolean })
  | (Base & { type: 'pod-inspect-failed'; pod: string | null; code: CriCode })
  | (Base & { type: 'hung-task'; task: string; seconds: number })
  | (Base & { type: 'nfs-not-responding'; server: string })
  | (Base & { type: 'netdev-unregister'; device: string })
  | (Base & { type: 'oom-kill'; process: string })
  | (Base & { type: 'pid-exhaustion'; detail: string })
  | (Base & { type: 'slow-disk-usage'; seconds: number | null })
  | (Base & { type: 'clock-change'; detail: string })
  | (Base & { type: 'runtime-lifecycle'; runtime: 'docker' | 'containerd' | 'cri-o' | null; phase: 'start' | 'stop' | 'crash' })
  | (Base & { type: 'runtime-daemon-error'; runtime: 'docker' | 'containerd' | 'cri-o' | null; kind: 'broken-pipe' | 'state-timeout' | 'shim-cleanup' | 'stop-timeout' | 'other'; containerId: string | null })
  | (Base & { type: 'crio-stopping'; containerId: string; timeoutSeconds: number | null })
  | (Base & { type: 'crio-stopped'; containerId: string })
  | (Base & { type: 'eviction'; detail: string })
  | (Base & { type: 'housekeeping-slow'; seconds: number | null })
  | (Base & { type: 'node-name'; node: string })
  /** A line a user rule pack's pattern matched. */
  | (Base & { type: 'custom'; signal: string });

export type SignalType = SignalEvent['type'];
export type EventOf<T extends SignalType> = Extract<SignalEvent, { type: T }>;
