// The Analysis: the one contract between the engine and every view. Its JSON form (schemaVersion 1) is
// public (design.md §6): field names here are what CI users and tests read. Change them only with a
// schemaVersion bump.

export const SCHEMA_VERSION = 1 as const;

export type Severity = 'critical' | 'high' | 'medium' | 'low' | 'info';
export const SEVERITIES: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'info'];

/** The cause vocabulary of design.md §5. `other` = a named reason outside the catalog (e.g. NotReady not caused by PLEG). */
export type Cause =
  | 'runtime_timeout'
  | 'pod_count'
  | 'relist_deadlock'
  | 'cni_hang'
  | 'disk_io'
  | 'pid_exhaustion'
  | 'runtime_restart'
  | 'exited_containers'
  | 'event_channel_full'
  | 'clock_jump'
  | 'memory_pressure'
  | 'other'
  | 'unknown';

export const CAUSES: readonly Cause[] = [
  'runtime_timeout', 'pod_count', 'relist_deadlock', 'cni_hang', 'disk_io', 'pid_exhaustion', 'runtime_restart',
  'exited_containers', 'event_channel_full', 'clock_jump', 'memory_pressure', 'other', 'unknown',
];

export type InputKind = 'sosreport' | 'must-gather' | 'eks-logs' | 'directory' | 'file' | 'stdin' | 'prometheus';
/** What a file is, by its content. Logs: `kubelet-log` (also k3s/rke2 journals, where the kubelet, containerd and etcd
 *  share one unit), `runtime-log`, `kernel-log`, `controller-log` (kube-controller-manager: it speaks of other nodes).
 *  Ticket attachments: `node-describe` (`kubectl describe node`, `kubectl get events`), `healthz` (kubelet `/healthz`),
 *  `cli-output` (crictl/docker/ctr commands and their output: info, version, ps, a command that hung). */
export type Role =
  | 'kubelet-log' | 'runtime-log' | 'kernel-log' | 'controller-log' | 'metrics' | 'node-object' | 'goroutine-dump'
  | 'node-describe' | 'healthz' | 'cli-output' | 'other';
export type RuntimeName = 'docker' | 'containerd' | 'cri-o';

export interface ArtifactInfo {
  /** Path as the user will find it: relative to the input path they named (or the file name itself). */
  path: string;
  node: string | null;
  role: Role;
  /** e.g. journal-short, journal-short-iso, journal-json, export-json (a cloud export's JSON lines), klog, json-log, prometheus-text, openmetrics, dmesg … */
  format: string;
  lines: number;
  warnings: number;
  /** A Prometheus query's answer (format `prometheus-query`): the PromQL asked, over `path`'s window and step. */
  query?: string;
  /** Addition (backward compatible): the earliest and latest time read in the file (logs), when known. */
  from?: string | null;
  to?: string | null;
  /** Addition (backward compatible): for a log whose stamps carry no year (journal short, klog), the year they were read
   *  in and where it came from: `bundle` (collection time), `content` (a full date in the file), `same-host` (a dated log
   *  of the same host), or assumed: `file-name`, `file-date` (modification time), `today`. Absent with --year. */
  year?: { value: number; from: 'bundle' | 'content' | 'same-host' | 'file-name' | 'file-date' | 'today' };
}

export interface InputInfo {
  path: string;
  kind: InputKind;
  /** The input's files, each listed; past MAX_LISTED_FILES of one node and role, the rest are counted in `unlisted`. */
  artifacts: ArtifactInfo[];
  /** Addition (backward compatible): files read but not listed in `artifacts`, per node and role (a folder of 100 000
   *  small logs would list each): how many, and their lines, warnings and bytes, exactly. Absent when every file is
   *  listed. Evidence may still cite an unlisted file. */
  unlisted?: UnlistedFiles[];
}

/** Files of one node and role read but not listed one by one (InputInfo.unlisted). */
export interface UnlistedFiles {
  node: string | null;
  role: Role;
  files: number;
  lines: number;
  warnings: number;
  /** Their size as stored (compressed size for compressed files); files of unknown size (stdin) add nothing. */
  bytes: number;
  /** As ArtifactInfo.year, when every one of them was read in the same year, found the same way. */
  year?: ArtifactInfo['year'];
}

/** Files of one node and role an input lists one by one (InputInfo.artifacts); the rest are counted (`unlisted`). */
export const MAX_LISTED_FILES = 1000;

export interface EvidenceRef {
  file: string;
  /** 1-based line number in `file`. */
  line: number;
  ts: string | null;
  /** The line as read (JSON keeps it raw; views sanitise). */
  text: string;
  /** Addition (backward compatible): the line without what a report shows beside it — the journal's time, host and
   *  unit, a klog header (severity, time, thread, caller), logrus' time — so that its message leads. Absent when the
   *  line has no such prefix (the message is `text`). */
  message?: string;
}

export interface Stall {
  /** Null when no line of the stall carries a time (a pasted fragment): its ages alone say how long it lasted. */
  lastRelistAt: string | null;
  unhealthyFrom: string | null;
  /** Addition (backward compatible): relist never succeeded since a kubelet start the input does not show (the
   *  `2562047h47m16.854775807s` sentinel, "pleg has yet to be successful" for longer than a start-up takes):
   *  `lastRelistAt` is null, `unhealthyFrom` the first such line, the duration a lower bound. */
  relistNeverSucceeded?: boolean;
  endedAt: string | null;
  /** When no line says when it ended, only that it had by some time: after `from` (its last unhealthy line) and before
   *  `to` (the next line showing the kubelet at work; null when the log says nothing more). `endedAt` is then null. */
  endedBetween?: { from: string; to: string | null };
  /** `unknown`: the input does not show the end (lines were left out after the last unhealthy one, or none is dated). */
  endedBy: 'recovered' | 'restart' | 'end-of-log' | 'unknown';
  durationSeconds: number;
  maxLastSeenAgoSeconds: number;
  nodeNotReady: boolean;
  evidence: EvidenceRef[];
}

export interface Quantiles {
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
}

// Latencies from kubelet metrics say what they are (additions, backward compatible). The plain numbers stay what they
// were — PromQL's histogram_quantile over the metrics window, or a summary's own quantile — and `Latency` adds the
// bucket each lies in (or that it lies beyond the last finite bucket: only a lower bound), the exact mean from
// `_sum`/`_count`, and for summaries that their quantiles cover the exporter's own window.

/** A histogram bucket (`from`, `to`]; `to` null: the +Inf bucket, beyond the last finite bound `from`. */
export interface LatencyBucket {
  from: number;
  to: number | null;
}

/**
 * A latency distribution from kubelet metrics, over the node's metrics window (`NodeReport.metricsWindow`), beside the
 * plain figures (`p50Seconds`…, `durationSeconds.p50`…). How each figure is known:
 * - histogram, bucket with `to`: p50/p90/p99 are PromQL's value interpolated inside that bucket (the observations are
 *   only known to lie in it); max lies somewhere in it (the plain max is its upper bound).
 * - histogram, bucket with `to` null: the figure fell in the +Inf bucket; the plain value is the last finite bound
 *   (`from`), as PromQL returns it, and only a lower bound.
 * - summary (no buckets): p50/p90/p99 are exact, but over the exporter's own sliding window (`quantileWindow`); the max
 *   is its largest quantile, so the largest observation is at least that.
 */
export interface Latency {
  source: 'histogram' | 'summary';
  /** Observations in the metrics window (the increase of `_count`); since the kubelet started for a single scrape. */
  count: number | null;
  /** Increase of `_sum` over increase of `_count` in the same window: exact, unlike quantiles from buckets. Null when
   *  nothing was observed (or the exposition has no `_sum`). */
  meanSeconds: number | null;
  /** Histograms: the last finite bucket bound and how many observations of the window lie beyond it (null for summaries). */
  beyond: { bound: number; count: number } | null;
  /** The bucket each figure lies in (histograms); null for summaries and for figures not known. */
  p50: LatencyBucket | null;
  p90: LatencyBucket | null;
  p99: LatencyBucket | null;
  max: LatencyBucket | null;
  /** `metrics`: quantiles over the metrics window (histogram buckets' increases). `exporter`: a summary's quantiles
   *  cover the kubelet's own sliding window (10 minutes), not the snapshots'; the largest any scrape showed is given. */
  quantileWindow: 'metrics' | 'exporter';
}

/** The window metrics numbers cover: from the first to the last scrape (increases between them); `cumulative` when there
 *  is one scrape (counts since the kubelet started). */
export interface MetricsWindow {
  from: string | null;
  to: string | null;
  scrapes: number;
  cumulative: boolean;
}

export interface RelistStats {
  source: 'metrics' | 'logs' | 'both' | 'none';
  durationSeconds: Quantiles | null;
  intervalSeconds: Quantiles | null;
  /** Addition: how each figure above is known, with the window mean and the count beyond the last bucket. */
  duration?: Latency | null;
  interval?: Latency | null;
}

/** One CRI operation. Which window each number covers: `count`, and `errors` and the quantiles when `source` is
 *  `metrics` or `both`, cover the metrics window (NodeReport.metricsWindow); `errors` of a `logs` row, `logErrors` and
 *  `timeouts` cover the node's whole log (NodeReport.window). */
export interface OperationStats {
  operation: string;
  source: 'metrics' | 'logs' | 'both';
  /** Calls in the metrics window; null without metrics. */
  count: number | null;
  /** Failed calls: in the metrics window when the node has metrics for the operation, else CRI errors in the whole log. */
  errors: number | null;
  /** Timed-out calls (DeadlineExceeded) in the node's whole log, whatever `source` says; 0 without a log. */
  timeouts: number;
  p50Seconds: number | null;
  p90Seconds: number | null;
  p99Seconds: number | null;
  /** Addition: CRI errors in the node's whole log for this operation, also where `errors` is the metrics' count; absent
   *  when the node has no log. */
  logErrors?: number;
  /** Addition: how the quantiles are known, and the window mean (null without metrics latency for the operation). */
  latency?: Latency | null;
}

/** How to check a count a finding states: the lines it counted, in the window its facts cover and in the whole input, and
 *  the grep that finds the whole input's lines. */
export interface CountCheck {
  what: string;
  count: number;
  total: number;
  window: string | null;
  /** A shell command that, run where plegscope ran, prints `prints` (or `total` when `prints` is absent). */
  grep: string;
  // Additions (backward compatible), issue 22:
  /** What `grep` prints when it is not `total`: the same lines were in two files (copies of one journal: a unit journal
   *  and the full journal, messages) and the report counted each once; `grep` counts every copy. */
  prints?: number;
  /** Lines the command counts that the report counted once as copies of another file's lines (`prints - total`). */
  deduplicated?: number;
}

export interface Finding {
  ruleId: string;
  cause: Cause;
  /** The severity it is reported at, and what `--fail-on` and JUnit judge: the rule's severity (`ruleSeverity`) lowered
   *  when the finding is not established (confidence below 0.7, again below 0.5) or the evidence contradicts it. */
  severity: Severity;
  confidence: number;
  title: string;
  summary: string;
  /** Addition (backward compatible): `summary` one fact per line, as the text report shows it — each sentence, each item
   *  of a list of what was seen (`- ` before it), then `Supporting: …` (what the lines above do not already say) and one
   *  `Against: …` per contrary piece. */
  lines?: string[];
  evidence: EvidenceRef[];
  remediation: string;
  references: string[];
  /** The counts its summary states and the grep that checks each (absent when it states none). */
  checks?: CountCheck[];
  // Additions (backward compatible), issue 14.8:
  /** The rule's severity: what the finding is worth once established (`severity` is the one it is reported at). */
  ruleSeverity?: Severity;
  /** What the rule explains: `stall` (a cause of a PLEG stall), `notready` (a NotReady that is not PLEG), `warning`. */
  explains?: FindingKind;
  /** True for a weak alternative (not the verdict's finding; confidence below 0.5 or evidence against it): listed under
   *  "also considered" after the other findings, never counted by `--fail-on` or failed in JUnit. Absent otherwise. */
  considered?: true;
}

export type FindingKind = 'stall' | 'notready' | 'warning';

/** A finding is established from this confidence on (a rule's trigger alone gives its base, 0.4–0.65 in the catalog;
 *  0.7 takes at least one independent piece of agreeing evidence). Below it, it is reported a severity lower. */
export const ESTABLISHED_CONFIDENCE = 0.7;
/** Below this a finding is less likely than not: a severity lower again, and a weak alternative (`considered`) unless
 *  the verdict names it. */
export const WEAK_CONFIDENCE = 0.5;

export interface RuledOut {
  cause: Cause;
  reason: string;
}

export interface Gap {
  missing: string;
  why: string;
  collect: string;
}

export interface Coverage {
  from: string | null;
  to: string | null;
  truncated: boolean;
  roles: Role[];
  /** Addition (backward compatible): on a node whose PLEG is called healthy, what in the input shows relist working
   *  (kubelet lines of a working relist, Ready at a known time, a kubelet log spanning the threshold, relist metrics).
   *  Absent otherwise; a node with nothing of the kind is `plegState: "unknown"`. */
  plegHealthyBy?: string[];
}

export interface Verdict {
  plegUnhealthy: boolean;
  /** Addition (backward compatible): what the input says of PLEG. `unknown` when nothing in it can tell (no kubelet
   *  log, metrics, Node status or describe output: a kernel or runtime log alone); `plegUnhealthy` is then false. */
  plegState?: 'unhealthy' | 'healthy' | 'unknown';
  primaryCause: Cause | null;
  confidence: number;
}

export interface NodeReport {
  name: string;
  kubeletVersion: string | null;
  runtime: RuntimeName | null;
  window: { start: string | null; end: string | null };
  verdict: Verdict;
  stalls: Stall[];
  notReady: NotReadyWindow[];
  restarts: KubeletRestart[];
  relist: RelistStats;
  operations: OperationStats[];
  pods: { running: number | null; containers: number | null };
  findings: Finding[];
  ruledOut: RuledOut[];
  /** Addition (backward compatible): causes with no sign in the input that it cannot rule out, because it holds no
   *  lines around the stall (a gap says what would decide them). */
  notSeen?: RuledOut[];
  coverage: Coverage;
  gaps: Gap[];
  /** Where the node's metrics came from: each snapshot file or Prometheus query, with the times it covers. Absent
   *  when the node has no metrics. */
  metricsFrom?: MetricsProvenance[];
  /** Addition: the window every metrics number of the node covers (relist, operations). Absent without metrics. */
  metricsWindow?: MetricsWindow;
}

export interface MetricsProvenance {
  /** The file (as in evidence) or the query's label (`query_range pleg{node="…"} FROM..TO step 30s`). */
  source: string;
  kind: 'file' | 'prometheus';
  from: string | null;
  to: string | null;
  /** Scrapes (files) or query steps that gave samples. */
  points: number;
}

export interface Warning {
  file: string | null;
  line: number | null;
  message: string;
  /** Addition (backward compatible): `file` as the user named it when that differs (`junk/a.txt` for `a.txt` found in
   *  the folder `junk` they gave): what views show. `file` stays relative to its input, as artifacts and evidence are. */
  path?: string;
  /** Addition (backward compatible): a source asked for by name could not be read at all (a `--prometheus` server that
   *  did not answer) and the analysis went on without it: views show it under their header, not only among the warnings. */
  unread?: true;
}

export interface Analysis {
  schemaVersion: typeof SCHEMA_VERSION;
  tool: { name: 'plegscope'; version: string };
  generatedAt: string;
  inputs: InputInfo[];
  /** Two or more nodes: the cluster summary (see ClusterSummary). Absent for a single node. */
  cluster?: ClusterSummary;
  nodes: NodeReport[];
  warnings: Warning[];
}

// Additions beyond design.md §6 (backward compatible): the node's NotReady windows and kubelet restarts, so every view
// can draw the same timeline without re-deriving it.
export interface NotReadyWindow {
  from: string;
  to: string | null;
  reason: string;
  evidence: EvidenceRef[];
}

export interface KubeletRestart {
  at: string;
  version: string | null;
  evidence: EvidenceRef[];
}

// Several nodes at once (a must-gather, several sosreports): which nodes flapped, when, and what they share. Present only
// when the analysis holds two or more nodes; every view leads with it.
export interface ClusterSummary {
  /** Nodes in the analysis. */
  nodes: number;
  /** Nodes with at least one PLEG stall, in the order of their first stall. */
  flapped: ClusterNode[];
  /** Nodes without a stall that were NotReady for another reason. */
  notReadyOther: string[];
  /** Nodes with neither a stall nor a NotReady window, whose input shows relist working (`coverage.plegHealthyBy`). */
  healthy: string[];
  /** Addition (backward compatible): nodes with neither, whose input cannot show relist either way (PLEG state unknown). */
  unknown?: string[];
  /** Stalls of different nodes that overlap or lie within 5 minutes of each other, merged: the cluster's waves. */
  waves: ClusterWave[];
  /** Kubelet version, runtime and primary cause among the flapped nodes, against the other nodes. */
  shared: SharedTrait[];
  /** Running pods (from kubelet metrics) of flapped nodes against the others; null where no node of the group had metrics. */
  podDensity: { flapped: PodRange | null; others: PodRange | null };
}

export interface ClusterNode {
  name: string;
  stalls: number;
  /** `unhealthyFrom` of the node's first stall. */
  firstUnhealthyFrom: string;
  /** `endedAt` of the node's last stall; null when it had not ended by the end of the log. */
  lastEndedAt: string | null;
  longestStallSeconds: number;
  /** Addition (issue 22.5): how the longest stall's duration is known (`at-least`: no end in the input). */
  longestStallBound?: 'exact' | 'about' | 'at-least';
  nodeNotReady: boolean;
  primaryCause: Cause | null;
  kubeletVersion: string | null;
  runtime: RuntimeName | null;
  runningPods: number | null;
}

export interface ClusterWave {
  /** The wave's PLEG-unhealthy window: from the first node's `unhealthyFrom` … */
  from: string;
  /** … to the last stall's end; null when a stall in the wave had not ended by the end of its log. */
  to: string | null;
  nodes: string[];
  // Additions (backward compatible), issue 22.5: the wave as a stall, measured as every stall is.
  /** The earliest last good relist of the wave's stalls (null when none is dated). */
  lastRelistAt?: string | null;
  /** From `lastRelistAt` to the wave's end (to the end of the input when it had not ended): how long the wave's nodes
   *  went without a relist, the stalls' own measure (one node's wave: its stall's `durationSeconds`). */
  durationSeconds?: number;
  /** How the duration is known: `exact`, `about` (an end between two lines), `at-least` (no end in the input). */
  durationBound?: 'exact' | 'about' | 'at-least';
}

export interface SharedTrait {
  trait: 'kubeletVersion' | 'runtime' | 'primaryCause';
  /** The value every flapped node has; null when they differ or some do not say. */
  common: string | null;
  /** Values among the flapped nodes, most frequent first (`unknown` where a node does not say). */
  flapped: TraitCount[];
  /** The same among the nodes that did not flap. */
  others: TraitCount[];
}

export interface TraitCount {
  value: string;
  nodes: number;
}

export interface PodRange {
  /** Nodes of the group whose running-pod count is known. */
  known: number;
  min: number;
  median: number;
  max: number;
}

// `plegscope scan`: the nodes of a fleet whose PLEG went unhealthy in a window, from its Prometheus (issue 17). Its own
// JSON document, deterministic for a fixed window (no generation time).
export interface FleetScan {
  schemaVersion: typeof SCHEMA_VERSION;
  tool: { name: 'plegscope'; version: string };
  /** The server as given (no credentials), its kubelets' scrape interval and the step of the window-wide query. */
  source: {
    prometheus: string; scrapeIntervalSeconds: number; stepSeconds: number;
    /** Addition (backward compatible): the samples did not show the interval (too few in the probe): it is the usual
     *  default, assumed, not measured. */
    scrapeIntervalAssumed?: true;
  };
  window: { start: string; end: string };
  /** Kubelets the server has series of in the window. */
  nodesScanned: number;
  /** Addition (backward compatible): kubelets running Evented PLEG (its counters above 0), whose last-seen gauge moves
   *  at every health check: scan cannot see their stalls, and does not call them healthy. */
  evented?: string[];
  /** Only the nodes that stalled, ranked: longest stall first, then most stalls, then name. */
  nodes: FleetNode[];
  warnings: string[];
}

export interface FleetNode {
  name: string;
  /** `start` = the last successful relist before the stall (kubelet_pleg_last_seen_seconds); `end` = the first scrape
   *  that saw a newer one (null: still stalled at the end of the window); `seconds` = end (or window end) − start. */
  stalls: Array<{ start: string; end: string | null; seconds: number }>;
  longestSeconds: number;
  /** histogram_quantile(0.99) of the relist duration over the window. */
  relistP99Seconds: number | null;
  /** CRI calls that failed in the window (kubelet_runtime_operations_errors_total), and their share of all calls. */
  criErrors: number | null;
  criErrorRate: number | null;
  /** Most running pods seen in the window. */
  pods: number | null;
}
