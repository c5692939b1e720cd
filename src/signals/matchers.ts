// Log line → signal events. Each matcher names the literal needles it needs; the scanner's chunk prefilter is built
// from the same needles, so a line can only reach a matcher if the prefilter let it through. Wordings and their
// versions: ../shared/reference/kubelet-catalog.md (§2 PLEG, §4 runtime state, §5 node status, §6 CRI, §7 CNI).
import type { LogRecord, Origin } from '../parse/record.js';
import { parseGoDuration } from '../parse/time.js';
import type { Component, CriCode, SignalEvent } from './events.js';

type Draft = SignalEvent extends infer E ? (E extends SignalEvent ? Omit<E, 'ts' | 'host' | 'ref'> : never) : never;

export interface Matcher {
  id: string;
  /** Case-sensitive substrings of 12+ bytes (the prefilter skips faster the longer the shortest needle); the matcher
   *  runs on a line holding any of them. */
  needles: string[];
  /** Whose lines it reads (record.ts `Origin`, decided from the line's content): kubelet messages are read in kubelet
   *  lines and in bare fragments that say nothing of who wrote them, never in a runtime's or the kernel's. */
  from?: Origin[];
  /** Fresh objects each call: the extractor completes a kept draft in place into its event. */
  match(rec: LogRecord): Draft | Draft[] | null;
}

// Paste damage inside a duration (a space, a wrapped line joined back with one) is tolerated: the digits and units are
// what count.
const AGE_RE = /pleg was last seen active ((?:[0-9.]+ ?(?:h|ms|m|s|µs|us|ns) ?)+)ago;? ?(?:threshold is ((?:[0-9.]+(?:h|m|s))+))?/;
/** `m=+565.446974410`: a Go time value's monotonic reading, i.e. seconds since the process started. */
const UPTIME_RE = /m=\+(\d+(?:\.\d+)?)/;
const SENTINEL_SECONDS = 2562047 * 3600 + 47 * 60 + 16.854775807;
const NUMERIC_CODES: Record<string, CriCode> = { '1': 'Canceled', '2': 'Unknown', '4': 'DeadlineExceeded', '5': 'NotFound', '8': 'ResourceExhausted', '12': 'Unimplemented', '13': 'Internal', '14': 'Unavailable' };

/** What a PLEG health message says: the age of the last relist and the threshold (null: it said neither), whether the
 *  first relist never succeeded. Shared by log lines and node conditions (objects, `kubectl describe`). */
export function plegHealth(text: string): { ageSeconds: number | null; thresholdSeconds: number; neverSucceeded: boolean } | null {
  if (text.includes('pleg has yet to be successful')) return { ageSeconds: null, thresholdSeconds: 180, neverSucceeded: true };
  const m = AGE_RE.exec(text) ?? AGE_RE.exec(repairAge(text));
  if (!m) return null;
  const age = parseGoDuration((m[1] as string).replace(/ /g, ''));
  const thr = m[2] ? parseGoDuration(m[2]) : NaN;
  if (!Number.isFinite(age)) return null;
  // ≤1.12 kubelets report the zero relist time as this sentinel at start-up: "never succeeded", not 292 years.
  const sentinel = Math.abs(age - SENTINEL_SECONDS) < 1;
  return { ageSeconds: sentinel ? null : age, thresholdSeconds: Number.isFinite(thr) ? thr : 180, neverSucceeded: sentinel };
}

/** Paste damage inside the age (`3m0.32           2579259s`: a wrapped line joined back with its padding): the blanks
 *  between "active" and "ago" taken out, when what is left is a duration. */
function repairAge(text: string): string {
  const i = text.indexOf('pleg was last seen active ');
  if (i < 0) return text;
  const from = i + 'pleg was last seen active '.length;
  const j = text.indexOf(' ago', from);
  if (j < 0 || j - from > 120) return text;
  const age = text.slice(from, j).replace(/\s+/g, '');
  return /^(?:[0-9.]+(?:h|ms|m|s|µs|us|ns))+$/.test(age) ? `${text.slice(0, from)}${age}${text.slice(j)}` : text;
}

/** The runtime's socket closed under a call: the daemon went away (restarting, crashed), as a refusal is. */
const SOCKET_GONE = /connection reset by peer|(?:error reading from server|transport is closing|read unix [^:]*\.sock[^:]*)(?::| -) ?EOF\b|\.sock: read: EOF\b/;

export function grpcCode(text: string): CriCode {
  const code = grpcCodeOf(text);
  // Old kubelets wrap the transport's error as Unknown (`code = 2 desc = … read: connection reset by peer`).
  if ((code === null || code === 'Unknown' || code === 'Other') && SOCKET_GONE.test(text)) return 'Unavailable';
  return code;
}

function grpcCodeOf(text: string): CriCode {
  const m = /code = (\w+)/.exec(text);
  if (m) {
    const c = m[1] as string;
    if (/^\d+$/.test(c)) return NUMERIC_CODES[c] ?? 'Other';
    return (['DeadlineExceeded', 'Unavailable', 'Unknown', 'Canceled', 'NotFound', 'Unimplemented', 'ResourceExhausted', 'Internal'].includes(c) ? c : 'Other') as CriCode;
  }
  const n = /Code:(\d+)/.exec(text);
  if (n) return NUMERIC_CODES[n[1] as string] ?? 'Other';
  if (text.includes('context deadline exceeded') || text.includes('operation timeout')) return 'DeadlineExceeded';
  if (text.includes('connection refused') || text.includes('Cannot connect to the Docker daemon') || text.includes('cannot connect to Docker endpoint')) return 'Unavailable';
  if (text.includes('larger than max')) return 'ResourceExhausted';
  return null;
}

const OPS: Record<string, string> = {
  ListPodSandbox: 'list_podsandbox', ListContainers: 'list_containers', ContainerStatus: 'container_status',
  PodSandboxStatus: 'podsandbox_status', Status: 'status', Version: 'version', RunPodSandbox: 'run_podsandbox',
  StopPodSandbox: 'stop_podsandbox', RemovePodSandbox: 'remove_podsandbox', StopContainer: 'stop_container',
  RemoveContainer: 'remove_container', StartContainer: 'start_container', CreateContainer: 'create_container',
  ExecSync: 'exec_sync', Exec: 'exec', Attach: 'attach', PortForward: 'port_forward',
  ListContainerStats: 'list_container_stats', ContainerStats: 'container_stats', ListPodSandboxStats: 'list_podsandbox_stats',
  PodSandboxStats: 'podsandbox_stats', UpdateContainerResources: 'update_container', ReopenContainerLog: 'reopen_container_log',
  UpdateRuntimeConfig: 'update_runtime_config', ListImages: 'list_images', ImageStatus: 'image_status', PullImage: 'pull_image',
  RemoveImage: 'remove_image', ImageFsInfo: 'image_fs_info', GetContainerEvents: 'get_container_events',
  ListMetricDescriptors: 'list_metric_descriptors', ListPodSandboxMetrics: 'list_podsandbox_metrics', RuntimeConfig: 'runtime_config',
  CheckpointContainer: 'checkpoint_container',
};

function errText(rec: LogRecord): string {
  return rec.fields['err'] ?? rec.msg;
}

const HEX_ID = /\b([0-9a-f]{12,64})\b/;

function firstQuoted(s: string): string | null {
  const m = /"([^"]*)"/.exec(s);
  return m ? (m[1] as string) : null;
}

/** `ns/name` from structured `pod=`; printf pod names like `web-0_default(uid)` are kept as written. */
function podOf(rec: LogRecord): string | null {
  return rec.fields['pod'] ?? rec.fields['podName'] ?? null;
}

function runtimeFromIdent(rec: LogRecord): 'docker' | 'containerd' | 'cri-o' | null {
  const id = (rec.ident ?? '').toLowerCase();
  if (id.startsWith('dockerd') || id === 'docker') return 'docker';
  if (id.startsWith('containerd') || id.endsWith('microk8s.daemon-containerd')) return 'containerd';
  if (id === 'crio' || id === 'cri-o') return 'cri-o';
  return null;
}

function runtimeFromText(t: string): 'docker' | 'containerd' | 'cri-o' | null {
  if (/docker/i.test(t)) return 'docker';
  if (/containerd/i.test(t)) return 'containerd';
  if (/cri-o|crio/i.test(t)) return 'cri-o';
  return null;
}

/** Who printed a repair line: its journal identifier or unit, else GKE's script by its wording. */
function repairTool(rec: LogRecord): string {
  const ident = rec.ident ?? '';
  if (/health-monitor|kube-container-runtime-monitor|kubelet-monitor/.test(ident)) return `GKE health-monitor.sh (${ident})`;
  if (/node-problem-detector|health-checker/.test(ident)) return `node-problem-detector (${ident})`;
  return ident ? `${ident} (a health monitor)` : "a health monitor (GKE's health-monitor.sh prints this)";
}

/** Kubelet messages: in kubelet lines, and in fragments that do not say who wrote them (a header cut off). */
const KUBELET: Origin[] = ['kubelet', 'unknown'];
const RUNTIME_SIDE: Origin[] = ['runtime', 'system', 'unknown'];

const SIZE_RE = /larger than max \((\d+) vs\.? (\d+)\)/;
const LIST_OPS: Record<string, string> = { 'pod sandboxes': 'list_podsandbox', sandboxes: 'list_podsandbox', containers: 'list_containers' };

function componentOf(name: string): Component | null {
  const n = name.toLowerCase();
  if (n.startsWith('docker')) return 'docker';
  if (n.startsWith('containerd')) return 'containerd';
  if (n === 'cri-o' || n === 'crio') return 'cri-o';
  return null;
}

/** What the specific CRI matchers key on: a line holding one of these is theirs. */
const SPECIFIC_CRI = ['from runtime service failed', 'ListPodSandbox failed', 'Failed to list pod sandboxes', 'getKubeletContainers failed', 'ListContainers failed',
  'PodSandboxStatus of sandbox', 'ContainerStatus for', 'ContainerStatus return error', 'Failed to list sandboxes for pod', 'ListContainers error',
  'Error listing containers', 'KillPodSandboxError', 'KillContainerError', 'killPodWithSyncResult failed', 'PLEG: Ignoring events for pod', 'failed reinspection'];

export const MATCHERS: Matcher[] = [
  {
    id: 'pleg-unhealthy',
    needles: ['PLEG is not healthy', 'pleg was last seen active', 'pleg has yet to be successful'],
    from: ['kubelet', 'unknown', 'system'],
    match(rec) {
      const t = rec.payload;
      const lower = rec.msg.toLowerCase();
      const source = lower.startsWith('skipping pod synchronization') ? 'sync-loop'
        : lower.includes('node became not ready') || lower.includes('setting node status') || lower.includes('kubeletnotready') ? 'node-condition' : 'other';
      const runtimeDown = t.includes('container runtime is down');
      const up = UPTIME_RE.exec(t);
      const h = plegHealth(t);
      return h ? { type: 'relist-unhealthy', ...h, source, runtimeDown, uptimeSeconds: up ? Number(up[1]) : null } : null;
    },
  },
  {
    id: 'sync-skipped-other',
    needles: ['kipping pod synchronization'],
    from: KUBELET,
    match(rec) {
      if (rec.payload.includes('PLEG is not healthy')) return null;
      const reason = (rec.fields['err'] ?? rec.msg.replace(/^skipping pod synchronization - /, '')).replace(/^\[|\]$/g, '');
      return { type: 'sync-skipped', reason };
    },
  },
  {
    id: 'node-not-ready',
    needles: ['event="NodeNotReady"', 'Recording NodeNotReady', 'became not ready', 'status is now: NodeNotReady'],
    from: KUBELET,
    match(rec) {
      const t = rec.payload;
      if (t.includes('status is now: NodeNotReady')) return { type: 'node-not-ready', message: null };
      if (t.includes('became not ready')) {
        const m = /[Mm]essage"?:"?(.*?)(?:"?}\s*$|$)/.exec(rec.fields['condition'] ?? t);
        return { type: 'node-not-ready', message: m ? (m[1] as string).replace(/"$/, '') : null };
      }
      if (t.includes('Recording NodeNotReady event') || rec.fields['event'] === 'NodeNotReady') return { type: 'node-not-ready', message: null };
      return null;
    },
  },
  {
    // The kubelet's Ready message at start-up, quoted alone (a condition's `message:`): NotReady, and not for PLEG.
    id: 'runtime-status-pending',
    needles: ['runtime status check may not have completed yet'],
    from: KUBELET,
    match(rec) {
      const t = rec.payload;
      if (t.includes('kipping pod synchronization') || t.includes('PLEG is not healthy') || t.includes('became not ready')) return null;
      return { type: 'node-not-ready', message: 'container runtime status check may not have completed yet' };
    },
  },
  {
    id: 'node-ready',
    needles: ['event="NodeReady"', 'Recording NodeReady', 'status is now: NodeReady'],
    from: KUBELET,
    match(rec) {
      if (rec.payload.includes('Recording NodeReady event') || rec.fields['event'] === 'NodeReady' || rec.payload.includes('status is now: NodeReady')) return { type: 'node-ready' };
      return null;
    },
  },
  {
    id: 'relist-proof',
    needles: ['SyncLoop (PLEG)', 'Generic (PLEG)', '"GenericPLEG"', 'GenericPLEG: '],
    from: KUBELET,
    match(rec) {
      const m = rec.msg;
      if (m.startsWith('SyncLoop (PLEG)')) return { type: 'relist-proof', what: 'SyncLoop (PLEG) event' };
      if (m.startsWith('Generic (PLEG): container finished')) return { type: 'relist-proof', what: 'Generic (PLEG): container finished' };
      if (m === 'GenericPLEG' && rec.fields['newState']) return { type: 'relist-proof', what: 'GenericPLEG state transition' };
      if (/^GenericPLEG: [0-9a-f-]{36}\/\S+: \w+ -> \w+/.test(m)) return { type: 'relist-proof', what: 'GenericPLEG state transition' };
      return null;
    },
  },
  {
    id: 'relist-failed',
    needles: ['Unable to retrieve pods'],
    from: KUBELET,
    match(rec) {
      return rec.msg.startsWith('GenericPLEG: Unable to retrieve pods') ? { type: 'relist-failed', code: grpcCode(errText(rec)) } : null;
    },
  },
  {
    id: 'kubelet-start',
    from: ['kubelet', 'unknown', 'system'],
    needles: ['Kubelet version', '] Version: v', 'Started kubelet', 'Starting kubelet main sync loop', 'Started Kubernetes', 'Started kubelet', 'Stopping Kubernetes', 'Stopped Kubernetes', 'kubelet.service: Main process exited', 'Stopping kubelet', 'Stopped kubelet'],
    match(rec) {
      const m = rec.msg;
      if (rec.kind === 'klog' || rec.kind === 'json') {
        if (m === 'Kubelet version') {
          const kv = rec.fields['kubeletVersion'] ?? null;
          return kv ? [{ type: 'kubelet-start', version: kv, marker: 'version' }, { type: 'component-version', component: 'kubelet', version: kv }] : { type: 'kubelet-start', version: null, marker: 'version' };
        }
        const v = /^Version: (v\d+\.\d+\.\S+)/.exec(m);
        if (v && /server\.go/.test(rec.caller ?? 'server.go')) return [{ type: 'kubelet-start', version: v[1] as string, marker: 'version' }, { type: 'component-version', component: 'kubelet', version: v[1] as string }];
        if (m === 'Started kubelet' || m.startsWith('Started kubelet as runonce')) return { type: 'kubelet-start', version: null, marker: 'started' };
        if (m.startsWith('Starting kubelet main sync loop')) return { type: 'kubelet-start', version: null, marker: 'sync-loop-start' };
        return null;
      }
      // systemd's own lines in `journalctl -u kubelet`.
      if (/^Started (Kubernetes Kubelet|kubelet(\.service)?|kubelet: The Kubernetes Node Agent)/.test(m) || /^Started .*[Kk]ubelet/.test(m)) {
        return { type: 'kubelet-start', version: null, marker: 'systemd-start' };
      }
      if (/^(Stopping|Stopped) .*[Kk]ubelet/.test(m) || m.startsWith('kubelet.service: Main process exited')) {
        return { type: 'kubelet-start', version: null, marker: 'systemd-stop' };
      }
      return null;
    },
  },
  {
    id: 'runtime-info',
    needles: ['Container runtime', 'initialized, version'],
    from: KUBELET,
    match(rec) {
      const m = rec.msg;
      const a = /^Container runtime (\S+) initialized, version: ([^,]+)/.exec(m);
      const withVersion = (runtime: ReturnType<typeof runtimeFromText>, version: string | null): Draft[] => {
        const out: Draft[] = [{ type: 'runtime-info', runtime, version }];
        const c = runtime ? componentOf(runtime) : null;
        if (c && version) out.push({ type: 'component-version', component: c, version });
        return out;
      };
      if (a) return withVersion(runtimeFromText(a[1] as string), (a[2] as string).trim());
      if (m === 'Container runtime initialized') return withVersion(runtimeFromText(rec.fields['containerRuntime'] ?? ''), rec.fields['version'] ?? null);
      if (m.startsWith('Container runtime sanity check failed')) return { type: 'runtime-down', reason: 'Container runtime sanity check failed: ' + errText(rec).replace(/^Container runtime sanity check failed: /, '') };
      return null;
    },
  },
  {
    id: 'runtime-down',
    needles: ['container runtime is down', 'Cannot connect to the Docker daemon', 'connection refused', 'code = Unavailable', 'cannot connect to Docker endpoint', 'code = 14 desc'],
    from: KUBELET,
    match(rec) {
      const t = rec.payload;
      if (t.includes('PLEG is not healthy')) return null; // the unhealthy matcher records runtimeDown
      if (t.includes('container runtime is down')) return { type: 'runtime-down', reason: 'container runtime is down' };
      if (t.includes('Cannot connect to the Docker daemon') || t.includes('cannot connect to Docker endpoint')) return { type: 'runtime-down', reason: 'Cannot connect to the Docker daemon' };
      if ((t.includes('connection refused') || t.includes('code = Unavailable') || t.includes('code = 14 desc')) && /\.sock|runtime|dial unix/.test(t)) {
        return { type: 'runtime-down', reason: (/dial unix [^:]+: connect: [\w ]+/.exec(t)?.[0]) ?? 'CRI socket unavailable' };
      }
      return null;
    },
  },
  {
    id: 'cri-client-error',
    needles: ['from runtime service failed'],
    from: KUBELET,
    match(rec) {
      const m = /^(\w+)\b.*?from runtime service failed/.exec(rec.msg);
      if (!m) return null;
      const op = OPS[m[1] as string] ?? (m[1] as string).replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
      const err = errText(rec);
      const idInText = rec.kind === 'klog' && !rec.fields['err'] ? firstQuoted(rec.msg) : null;
      const cid = rec.fields['containerID'] ?? (op.includes('container') && idInText ? idInText : null);
      const sid = rec.fields['podSandboxID'] ?? (op.includes('podsandbox') && op !== 'list_podsandbox' && idInText ? idInText : null);
      return { type: 'cri-error', op, code: grpcCode(err), layer: 'client', containerId: cid, sandboxId: sid, pod: podOf(rec), detail: err };
    },
  },
  {
    id: 'cri-caller-error',
    needles: ['ListPodSandbox failed', 'Failed to list pod sandboxes', 'getKubeletContainers failed', 'ListContainers failed', 'PodSandboxStatus of sandbox', 'ContainerStatus for', 'ContainerStatus return error', 'Failed to list sandboxes for pod', 'ListContainers error', 'statusError{Code:', 'Error listing containers'],
    from: KUBELET,
    match(rec) {
      const m = rec.msg;
      const err = errText(rec);
      const base = { type: 'cri-error' as const, layer: 'caller' as const, containerId: null, sandboxId: null, pod: podOf(rec), detail: err, code: grpcCode(err) };
      if (m.startsWith('ListPodSandbox failed') || m === 'Failed to list pod sandboxes' || m.startsWith('ListPodSandbox with pod UID') || m === 'Failed to list sandboxes for pod') return { ...base, op: 'list_podsandbox' };
      if (m.startsWith('getKubeletContainers failed') || m === 'ListContainers failed' || m.startsWith('ListContainers error') || m.startsWith('Error listing containers')) return { ...base, op: 'list_containers' };
      if (m.startsWith('PodSandboxStatus of sandbox')) {
        const p = /PodSandboxStatus of sandbox "([^"]+)" for pod "([^"]+)"/.exec(m);
        return { ...base, op: 'podsandbox_status', sandboxId: rec.fields['podSandboxID'] ?? (p ? (p[1] as string) : null), pod: rec.fields['pod'] ?? (p ? (p[2] as string) : null) };
      }
      if (m.startsWith('ContainerStatus for') || m === 'ContainerStatus return error') {
        const id = rec.fields['containerID'] ?? (/ContainerStatus for (\S+) error/.exec(m)?.[1] ?? null);
        return { ...base, op: 'container_status', containerId: id };
      }
      return null;
    },
  },
  {
    id: 'kill-sync-error',
    needles: ['KillPodSandboxError', 'KillContainerError', 'StopPodSandbox', 'killPodWithSyncResult failed'],
    from: KUBELET,
    match(rec) {
      const t = rec.payload;
      if (t.includes('from runtime service failed')) return null;
      if (!/DeadlineExceeded|deadline exceeded|code = 4\b/.test(t)) return null;
      if (t.includes('KillPodSandbox')) {
        return { type: 'cri-error', op: 'stop_podsandbox', code: 'DeadlineExceeded', layer: 'caller', containerId: null, sandboxId: null, pod: rec.fields['pod'] ?? (/for "([^"]+)" with KillPodSandboxError/.exec(t)?.[1] ?? null), detail: errText(rec) };
      }
      if (t.includes('KillContainer')) {
        return { type: 'cri-error', op: 'stop_container', code: 'DeadlineExceeded', layer: 'caller', containerId: null, sandboxId: null, pod: rec.fields['pod'] ?? null, detail: errText(rec) };
      }
      return null;
    },
  },
  {
    // A gRPC timeout in a kubelet line no specific matcher knows (pod workers, dockershim, older wordings): still a
    // CRI call that did not return. Lines the specific matchers cover are left to them, so nothing counts twice.
    id: 'cri-other-timeout',
    needles: ['code = DeadlineExceeded', 'code = 4 desc', 'operation timeout: context deadline'],
    from: KUBELET,
    match(rec) {
      const t = rec.payload;
      if (SPECIFIC_CRI.some((n) => t.includes(n)) || t.includes('PLEG is not healthy') || t.includes('GenericPLEG: Unable')) return null;
      const op = /\b(ListPodSandbox|ListContainers|ContainerStatus|PodSandboxStatus|StopPodSandbox|StopContainer|RemoveContainer|RemovePodSandbox|RunPodSandbox|CreateContainer|StartContainer|ExecSync|KillPodSandbox|KillContainer)\b/.exec(t)?.[1];
      // Only a line that names a CRI method is a CRI timeout; a volume plugin's or a wrapper's is its own signal.
      if (!op) {
        const target = /csi|MountVolume|UnmountVolume|NodeStageVolume|NodeUnstageVolume|NodePublishVolume|NodeUnpublishVolume|NodeGetVolume|volume/i.test(t) ? 'csi'
          : /operation timeout|runtime|[Cc]ontainer garbage collection|[Ii]mage garbage collection|Failed cleaning pods|Probe errored|[Ll]isting containers|SyncPod|KillPod/.test(t) ? 'runtime-wrapper' : 'other';
        return { type: 'timeout-other', target, detail: errText(rec).slice(0, 300) };
      }
      const name = op === 'KillPodSandbox' ? 'stop_podsandbox' : op === 'KillContainer' ? 'stop_container' : (OPS[op] ?? op);
      return { type: 'cri-error', op: name, code: 'DeadlineExceeded', layer: 'caller', containerId: rec.fields['containerID'] ?? null, sandboxId: rec.fields['podSandboxID'] ?? null, pod: podOf(rec), detail: errText(rec) };
    },
  },
  {
    id: 'pod-inspect-failed',
    needles: ['PLEG: Ignoring events for pod', 'failed reinspection'],
    from: KUBELET,
    match(rec) {
      const m = /^PLEG: (?:Ignoring events for pod|pod) (\S+?)(?::| failed)/.exec(rec.msg);
      return { type: 'pod-inspect-failed', pod: rec.fields['pod'] ?? (m ? (m[1] as string) : null), code: grpcCode(errText(rec)) };
    },
  },
  {
    // Evented PLEG (the EventedPLEG feature gate, pkg/kubelet/pleg/evented.go): on at start-up (the gate in the flags or
    // the feature-gate dump), the runtime's container-event stream failing (`Evented PLEG: Failed to get container
    // events, retrying`), and the fall-back to generic relisting once the retries run out (both logged at V(4)).
    id: 'evented-pleg',
    needles: ['Fall back to Generic PLEG relisting', 'Evented PLEG: Failed to get container events', 'EventedPLEG=true', 'EventedPLEG:true', 'EventedPLEG: true'],
    from: KUBELET,
    match(rec) {
      const t = rec.payload;
      if (t.includes('Fall back to Generic PLEG relisting')) return { type: 'evented-pleg', what: 'fallback' };
      if (t.includes('Evented PLEG: Failed to get container events')) return { type: 'evented-pleg', what: 'stream-error' };
      return { type: 'evented-pleg', what: 'enabled' };
    },
  },
  {
    id: 'event-channel-full',
    needles: ['channel is full', 'channel capacity is full'],
    from: KUBELET,
    match(rec) {
      const t = rec.payload;
      return { type: 'event-channel-full', evented: t.includes('Evented') || t.includes('capacity is full') };
    },
  },
  {
    id: 'cni',
    needles: ['etworkPlugin ', 'network plugin', 'failed to read pod IP', 'network for sandbox', "Couldn't find network status"],

    match(rec) {
      const t = rec.payload;
      const pod = rec.fields['pod'] ?? (/pod "([^"]+)"/.exec(t)?.[1] ?? null);
      const plugin = /etworkPlugin (\S+) failed/.exec(t)?.[1] ?? /network plugin (\S+) to/.exec(t)?.[1] ?? (/plugin type="(\w+)"/.exec(t)?.[1] ?? null);
      const call = /Calling network plugin (\S+) to (set up|tear down) pod "([^"]+)"/.exec(t);
      if (call) return { type: 'cni-call', phase: call[2] === 'set up' ? 'setup' : 'teardown', pod: call[3] as string, plugin: call[1] as string };
      const sandbox = /network for sandbox \\?"([0-9a-f]+)/.exec(t)?.[1] ?? null;
      const timeout = /deadline exceeded|DeadlineExceeded|timed out|timeout/.test(t);
      // A status hook that fails because the container is already gone is everyday dockershim noise, not a hang.
      if (/failed on the status hook/.test(t) && /terminated container|ns\/net: No such file|network namespace.*(?:not found|does not exist)/.test(t)) {
        return { type: 'cni-error', phase: 'other', pod, sandboxId: null, plugin, timeout: false };
      }
      if (/failed on the status hook/.test(t)) return { type: 'cni-error', phase: 'status', pod, sandboxId: null, plugin, timeout };
      if (/failed to read pod IP/.test(t)) return { type: 'cni-error', phase: 'read-ip', pod, sandboxId: null, plugin, timeout };
      if (/failed to (set up|setup)|to setup network/.test(t)) return { type: 'cni-error', phase: 'setup', pod, sandboxId: sandbox, plugin, timeout };
      if (/failed to (teardown|tear down|destroy network)/.test(t)) return { type: 'cni-error', phase: 'teardown', pod, sandboxId: sandbox, plugin, timeout };
      if (/Couldn't find network status/.test(t)) return { type: 'cni-error', phase: 'status', pod, sandboxId: null, plugin, timeout };
      return null;
    },
  },
  {
    id: 'kernel-hung-task',
    needles: ['blocked for more than'],
    match(rec) {
      const m = /task (\S+?):\d+ blocked for more than (\d+) seconds/.exec(rec.payload);
      return m ? { type: 'hung-task', task: m[1] as string, seconds: Number(m[2]) } : null;
    },
  },
  {
    // The line after a hung-task report names the kernel: `      Not tainted 4.19.143-flatcar #1` / `Tainted: G  W  4.18.0-…`.
    id: 'kernel-version',
    needles: ['Linux version '],
    from: ['kernel', 'unknown'],
    match(rec) {
      const m = /(?:Not tainted|Tainted: [A-Z ]+?) +(\d+\.\d+\.\d+\S*)/.exec(rec.payload) ?? /Linux version (\d+\.\d+\.\d+\S*)/.exec(rec.payload);
      return m ? { type: 'component-version', component: 'kernel', version: m[1] as string } : null;
    },
  },
  {
    // Frames of a blocked task's stack that wait on storage: what makes a hung task an I/O stall.
    id: 'kernel-io-frame',
    // Chosen for being rare in ordinary log text too (the prefilter skips slower for needles made of common triples).
    needles: ['wb_wait_for_completion', 'sync_inodes_sb', 'rpc_wait_bit_killable', 'nfs_wait_bit_killable', 'xfs_log_force', 'jbd2_log_wait_commit', 'jbd2_journal_commit', 'folio_wait_bit', 'rwsem_down_write', 'rwsem_down_read', 'sync_filesystem', 'ext4_sync_file', 'blk_mq_get_tag', 'nfs4_call_sync', '__nfs_revalidate_inode'],
    from: ['kernel', 'unknown'],
    match(rec) {
      const m = /(?:^|\s|\? |\] )([a-z_][\w.]*)\+0x[0-9a-f]+\/0x[0-9a-f]+/.exec(rec.payload);
      return m ? { type: 'kernel-io-frame', fn: m[1] as string } : null;
    },
  },
  {
    id: 'kernel-nfs',
    needles: ['not responding'],
    match(rec) {
      const m = /nfs: server (\S+) not responding/.exec(rec.payload);
      return m ? { type: 'nfs-not-responding', server: m[1] as string } : null;
    },
  },
  {
    id: 'kernel-netdev',
    needles: ['unregister_netdevice'],
    match(rec) {
      const m = /unregister_netdevice: waiting for (\S+) to become free/.exec(rec.payload);
      return m ? { type: 'netdev-unregister', device: m[1] as string } : null;
    },
  },
  {
    id: 'oom',
    // The victim of a kill, once: `Killed process 1234 (java)` (and `oom-kill:…,task=java,pid=1234` of the same kill,
    // told apart later by its pid). `X invoked oom-killer` names who asked for memory, not who was killed.
    needles: ['Killed process', 'Kill process', 'oom-kill:constraint'],
    from: ['kernel', 'unknown', 'system'],
    match(rec) {
      const t = rec.payload;
      const k = /Kill(?:ed)? process (\d+) \(([^)]+)\)/.exec(t);
      if (k) return { type: 'oom-kill', process: k[2] as string, pid: Number(k[1]), killed: true };
      const o = /oom-kill:.*task=([^,\s]+),pid=(\d+)/.exec(t);
      return o ? { type: 'oom-kill', process: o[1] as string, pid: Number(o[2]), killed: false } : null;
    },
  },
  {
    id: 'pid-exhaustion',
    needles: ['resource temporarily unavailable', 'Resource temporarily unavailable', 'pthread_create failed', 'read init-p:', 'fork rejected by pids controller'],
    match(rec) {
      const t = rec.payload;
      if (/fork\/exec|fork:|pthread_create|read init-p|fork rejected|cannot allocate|newosproc/.test(t)) {
        return { type: 'pid-exhaustion', detail: (/(fork\/exec [^:]+: resource temporarily unavailable|fork: [Rr]esource temporarily unavailable|pthread_create failed[^"]*|read init-p[^"]*|fork rejected by pids controller[^"]*)/.exec(t)?.[1] ?? t).slice(0, 200) };
      }
      return null;
    },
  },
  {
    id: 'slow-du',
    needles: ['du and find on following dirs took'],
    match(rec) {
      const m = /took ([0-9hms.µ]+)/.exec(rec.payload);
      return { type: 'slow-disk-usage', seconds: m ? parseGoDuration(m[1] as string) : null };
    },
  },
  {
    id: 'housekeeping',
    needles: ['Housekeeping took longer'],
    from: KUBELET,
    match(rec) {
      const a = rec.fields['actual'];
      return { type: 'housekeeping-slow', seconds: a ? parseGoDuration(a) : null };
    },
  },
  {
    id: 'clock',
    needles: ['Time has been changed', 'System clock wrong', 'clock was stepped', 'System clock was stepped', 'Clock change detected'],
    match(rec) {
      return { type: 'clock-change', detail: rec.msg.slice(0, 200) };
    },
  },
  {
    id: 'eviction',
    needles: ['Eviction manager: attempting to reclaim', 'eviction manager: must evict', 'Evicting pod'],
    from: KUBELET,
    match(rec) {
      return { type: 'eviction', detail: rec.msg.slice(0, 200) };
    },
  },
  {
    id: 'runtime-daemon',
    needles: ['write: broken pipe', 'get state for', 'deadline exceeded', 'up dead shim', 'shim disconnected', 'Stopping container', 'Stopped container', 'msg="Starting up', 'API listen on', 'starting containerd', 'successfully booted', 'Starting CRI-O', 'Started Docker', 'Starting Docker', 'Stopping Docker', 'Starting containerd', 'Stopping containerd', 'Started containerd', 'Container Runtime Interface for OCI', 'Main process exited', 'Processing signal', 'Start streaming server', 'Found left-over process', 'converting task to protobuf', 'multiple response.WriteHeader', 'ContainerResources for', 'graphdriver=', 'graphdriver(s)='],
    from: RUNTIME_SIDE,
    match(rec) {
      const t = rec.payload;
      const m = rec.msg;
      const rt = runtimeFromIdent(rec) ?? (rec.ident === 'systemd' || rec.ident === 'init.scope' ? runtimeFromText(m) : null);
      const id = rec.fields['id'] ?? rec.fields['container'] ?? (HEX_ID.exec(m)?.[1] ?? null);
      // systemd starting a runtime unit that left shims behind: the unit (re)started.
      const leftover = /^(\S+)\.service: Found left-over process \d+ \(([^)]+)\)/.exec(m);
      if (leftover) return { type: 'runtime-lifecycle', runtime: runtimeFromText(leftover[1] as string), phase: 'start' };
      if (m === 'Docker daemon' && rec.fields['version']) {
        return [{ type: 'runtime-lifecycle', runtime: 'docker', phase: 'start' }, { type: 'component-version', component: 'docker', version: rec.fields['version'] as string }];
      }
      if (m === 'starting containerd' && rec.fields['version']) {
        return [{ type: 'runtime-lifecycle', runtime: 'containerd', phase: 'start' }, { type: 'component-version', component: 'containerd', version: (rec.fields['version'] as string).replace(/^v/, '') }];
      }
      const crio = /^Starting CRI-O, version: ([^,\s]+)/.exec(m);
      if (crio) return [{ type: 'runtime-lifecycle', runtime: 'cri-o', phase: 'start' }, { type: 'component-version', component: 'cri-o', version: crio[1] as string }];
      // The CRI plugin's last start-up line (one per containerd start).
      if (m === 'Start streaming server') return { type: 'runtime-lifecycle', runtime: rt ?? 'containerd', phase: 'start' };
      const upd = /^UpdateContainerResources for \\?"?([0-9a-f]{12,64})\\?"?( returns successfully)?/.exec(m);
      if (upd) return { type: 'runtime-call', call: 'UpdateContainerResources', id: upd[1] as string, phase: upd[2] ? 'done' : 'start' };
      if (m.startsWith('converting task to protobuf') && /context (?:canceled|deadline exceeded)/.test(t)) return { type: 'runtime-daemon-error', runtime: rt ?? 'containerd', kind: 'task-list-timeout', containerId: id };
      // net/http's complaint after a handler whose client went away: the other half of a broken pipe.
      if (m.startsWith('http: multiple response.WriteHeader')) return { type: 'runtime-daemon-error', runtime: rt ?? 'docker', kind: 'broken-pipe', containerId: null };
      const crioStop = /^Stopping container:? ([0-9a-f]{12,64}) \(timeout: (\d+)s\)/.exec(m);
      if (crioStop) return { type: 'crio-stopping', containerId: crioStop[1] as string, timeoutSeconds: Number(crioStop[2]) };
      const crioStopped = /^Stopped container ([0-9a-f]{12,64})/.exec(m);
      if (crioStopped) return { type: 'crio-stopped', containerId: crioStopped[1] as string };
      if (rec.origin === 'system') {
        const r = runtimeFromText(m);
        if (!r) return null;
        if (/^Start(ed|ing) /.test(m)) return { type: 'runtime-lifecycle', runtime: r, phase: 'start' };
        if (/^Stop(ped|ping) /.test(m)) return { type: 'runtime-lifecycle', runtime: r, phase: 'stop' };
        if (/Main process exited.*status=[^0]/.test(m) || /Failed with result/.test(m)) return { type: 'runtime-lifecycle', runtime: r, phase: 'crash' };
        return null;
      }
      if (rt === null && rec.kind !== 'logrus' && rec.origin !== 'runtime') return null;
      if (/^Starting up$|^API listen on|^starting containerd|successfully booted|^Starting CRI-O/.test(m)) return { type: 'runtime-lifecycle', runtime: rt ?? runtimeFromText(m), phase: 'start' };
      if (m.startsWith("Processing signal 'terminated'")) return { type: 'runtime-lifecycle', runtime: rt, phase: 'stop' };
      if (t.includes('broken pipe') && /containers\/json|\/containers\/|docker\.sock/.test(t)) return { type: 'runtime-daemon-error', runtime: rt ?? 'docker', kind: 'broken-pipe', containerId: null };
      if (/get state for|failed to get state/.test(m) && t.includes('deadline exceeded')) return { type: 'runtime-daemon-error', runtime: rt ?? 'containerd', kind: 'state-timeout', containerId: id };
      if (/dead shim|shim disconnected/.test(m)) return { type: 'runtime-daemon-error', runtime: rt ?? 'containerd', kind: 'shim-cleanup', containerId: id };
      // A task or container the daemon could not stop or delete in time (its shim does not answer).
      if (/^failed to (?:delete|kill|stop|shutdown|shut down) (?:task|shim|container|sandbox)/i.test(m) && t.includes('deadline exceeded')) return { type: 'runtime-daemon-error', runtime: rt, kind: 'stop-timeout', containerId: id };
      if ((rec.level === 'E' || /\berror="[^"]*deadline exceeded/.test(t)) && t.includes('deadline exceeded')) return { type: 'runtime-daemon-error', runtime: rt, kind: 'other', containerId: id };
      return null;
    },
  },
  {
    // supervisord running the kubelet and the runtime (kubelets of the e2e and GCI images, kubelets in containers):
    //   2016-02-29 18:36:57,354 INFO exited: kubelet (exit status 2; expected)
    //   2016-02-29 18:36:58,356 INFO spawned: 'kubelet' with pid 4303
    id: 'supervisor',
    needles: ['INFO exited: ', 'INFO spawned: ', 'INFO stopped: ', 'INFO gave up: ', 'CRIT exited: '],
    from: ['kubelet', 'runtime', 'system', 'unknown'],
    match(rec) {
      const m = /^(?:(?:INFO|WARN|CRIT) )?(exited|spawned|stopped|gave up): '?([\w.-]+)'?/.exec(rec.msg);
      if (!m) return null;
      const name = m[2] as string;
      const up = m[1] === 'spawned';
      if (/^(?:kubelet|hyperkube|k3s|kubelite)$/.test(name)) return { type: 'kubelet-start', version: null, marker: up ? 'systemd-start' : 'systemd-stop' };
      const rt = runtimeFromText(name);
      if (rt) return { type: 'runtime-lifecycle', runtime: rt, phase: up ? 'start' : m[1] === 'exited' && !/exit status 0\b/.test(rec.payload) ? 'crash' : 'stop' };
      return null;
    },
  },
  {
    // Repair tools that restart the runtime or the kubelet when a health check fails: GKE's health-monitor.sh
    // (kube-container-runtime-monitor / kubelet-monitor units: `echo "Container runtime ${name} failed!"` then
    // `systemctl kill --kill-who=main ${name}`; `echo "Kubelet is unhealthy!"` then `pkill kubelet`). The kill is a
    // runtime stop with its reason: who restarted it, and why.
    id: 'repair-tool',
    needles: ['Container runtime ', 'Kubelet is unhealthy!'],
    match(rec) {
      const m = /^Container runtime (\S+) failed!/.exec(rec.msg);
      if (m) return { type: 'runtime-repair', tool: repairTool(rec), target: 'runtime', runtime: runtimeFromText(m[1] as string), detail: rec.msg.slice(0, 200) };
      if (rec.msg.startsWith('Kubelet is unhealthy!')) return { type: 'runtime-repair', tool: repairTool(rec), target: 'kubelet', runtime: null, detail: rec.msg.slice(0, 200) };
      return null;
    },
  },
  {
    id: 'node-name',
    needles: ['event message for node', 'Attempting to register node', 'Successfully registered node'],
    from: ['kubelet'],
    match(rec) {
      const n = rec.fields['node'] ?? (/(?:for node|register node) (\S+)/.exec(rec.msg)?.[1] ?? null);
      return n ? { type: 'node-name', node: n.replace(/^"|"$/g, '') } : null;
    },
  },
  {
    id: 'network-not-ready',
    needles: ['NetworkReady=false', 'network plugin is not ready', 'cni plugin not initialized', 'cni config uninitialized', 'NetworkPluginNotReady'],
    match(rec) {
      const t = rec.payload;
      const m = /(?:message:|msg=")?([^"]*?(?:network plugin is not ready|cni plugin not initialized|cni config uninitialized)[^"]*)/.exec(t);
      return { type: 'network-not-ready', reason: (m?.[1] ?? 'NetworkReady=false').trim().replace(/^message:/, '').slice(0, 200) };
    },
  },
  {
    id: 'node-status-unknown',
    needles: ['Kubelet stopped posting node status'],
    match(rec) {
      const n = /[Nn]ode "?([a-z0-9][\w.-]*)"?/.exec(rec.msg);
      return { type: 'node-status-unknown', node: rec.fields['node'] ?? (n && n[1] !== 'status' ? (n[1] as string) : null) };
    },
  },
  {
    // kube-controller-manager's node lifecycle, about a node it names (kubelet lines never say these).
    id: 'controller-node',
    needles: ["hasn't been updated", 'Missing timestamp for Node', 'Recording status change', 'master disruption mode', 'successfully acquired lease', 'sucessfully acquired lease', 'Node is unresponsive'],
    from: ['controller', 'unknown'],
    match(rec) {
      const m = rec.msg;
      const named = rec.fields['node'] ?? (/(?:[Nn]ode|for node) "?([a-z0-9][\w.-]*?)"?(?:[ .:,]|$)/.exec(m)?.[1] ?? null);
      if (/hasn't been updated|Node is unresponsive/.test(m)) return { type: 'controller-node', node: named, what: 'not-updated' };
      if (m.startsWith('Missing timestamp for Node')) return { type: 'controller-node', node: named, what: 'missing-timestamp' };
      if (/Recording status change NodeNotReady/.test(m)) return { type: 'controller-node', node: named, what: 'not-ready' };
      if (/master disruption mode/.test(m)) return { type: 'controller-node', node: null, what: 'disruption' };
      if (/acquired lease \S*kube-controller-manager/.test(m)) return { type: 'controller-node', node: null, what: 'leader' };
      return null;
    },
  },
  {
    // A Go panic or fatal error in any process's output (`Observed a panic` is one the process recovered from).
    id: 'process-panic',
    // The commonest Go crashes; needles for every panic message would slow every scan (they share common words).
    needles: ['panic: runtime error', 'fatal error: '],
    match(rec) {
      const t = rec.payload;
      const at = t.search(/(?:^|\s)(?:panic: |fatal error: |Observed a panic)/);
      if (at < 0) return null;
      const process = rec.origin === 'runtime' ? (runtimeFromIdent(rec) ?? rec.ident ?? 'runtime') : rec.origin === 'kubelet' ? 'kubelet' : (rec.ident ?? 'unknown');
      return { type: 'process-panic', process, fatal: !t.includes('Observed a panic'), detail: t.slice(at).trim().slice(0, 200) };
    },
  },
  {
    // gRPC refused a message over its size limit (16 MiB; 4 or 8 MiB on older clients): a list with too many entries.
    id: 'grpc-size-limit',
    needles: ['larger than max'],
    match(rec) {
      const t = rec.payload;
      const m = SIZE_RE.exec(t);
      const verb = /\b(ListPodSandbox|ListContainers|ListContainerStats|ListImages)\b/.exec(t)?.[1] ?? null;
      const listing = /listing (pod sandboxes|sandboxes|containers)/.exec(t)?.[1] ?? null;
      const op = verb ? (OPS[verb] ?? null) : listing ? (LIST_OPS[listing] ?? null) : t.includes('GenericPLEG') ? 'list' : null;
      return { type: 'grpc-size-limit', op, size: m ? Number(m[1]) : null, limit: m ? Number(m[2]) : null };
    },
  },
  {
    // The kubelet's own side of "Kubelet stopped posting node status": it could not reach the API server.
    id: 'node-status-update',
    needles: ['Error updating node status', 'Unable to update node status', 'failed to renew lease', 'Failed to update lease'],
    from: KUBELET,
    match(rec) {
      return { type: 'node-status-update-failed', detail: (rec.fields['err'] ?? rec.msg).slice(0, 200) };
    },
  },
  {
    id: 'healthz',
    needles: ['syncloop failed'],
    match(rec) {
      const m = /\[-\](\w+) failed(?:: (.*))?/.exec(rec.payload);
      return m ? { type: 'healthz-failed', check: m[1] as string, reason: m[2] ?? null } : null;
    },
  },
];

/** Matchers whose lines are read only while a host waits for one (proof that a relist completed). */
export const ON_DEMAND = new Set(['relist-proof']);

/** Every needle of every matcher (without the on-demand ones unless asked): the scanner's chunk prefilter. */
export function allNeedles(extra: string[] = [], onDemand = true): string[] {
  const set = new Set<string>();
  for (const m of MATCHERS) if (onDemand || !ON_DEMAND.has(m.id)) for (const n of m.needles) set.add(n);
  for (const n of extra) set.add(n);
  return [...set];
}
