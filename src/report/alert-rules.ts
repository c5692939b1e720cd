// `plegscope alerts`: Prometheus alerting rules for PLEG trouble, built from the metric names the model reads
// (model/metric-names.ts: old and new families, or'ed), so the rules and the analysis agree on what each series means.
// Pure: options in, a rules object (and its YAML) out. docs/runbook.md has one section per alert (ALERTS[].anchor).
//
// The signals and their traps (kubelet-catalog.md §2, §3, §8):
// - kubelet_pleg_last_seen_seconds is set inside Healthy() to the start of the last relist that listed the pods; 0 until
//   the first one. `time() - gauge > threshold` is the kubelet's own health check, seen from outside.
// - With the EventedPLEG gate on, Healthy() of the Evented PLEG sets the same gauge to *now* on every check, so a
//   moving gauge proves nothing there, and the generic relist runs every 300 s with a 10 min threshold. Such a node is
//   recognised by its Evented PLEG counters being above 0 (metric-names.ts EVENTED_PLEG_NAMES: registered at 0 on every
//   1.27+ kubelet, so their mere presence proves nothing either); the gauge rule leaves it out, and the frozen relist
//   count speaks for it over max(threshold, 10 min).
// - The relist histograms are observed only when a relist finishes: a hard stall freezes them (no new observation, so
//   no quantile: NaN, which never fires). The slow-relist rule is for relists that end; the gauge and count rules
//   cover the stall.
// Series are compared label for label with `up` of the same target (set operators match on every label but the name),
// so a scrape that failed never reads as a stall, and an alert carries the target's labels (`node` where the scrape
// config sets it, as kube-prometheus-stack and OpenShift do; always `instance`).
import { DOCKER_TIMEOUT_NAMES, EVENTED_PLEG_NAMES, familyNames, operationFamilies } from '../model/metric-names.js';

export type AlertSeverity = 'critical' | 'warning' | 'info';

export interface AlertOptions {
  /** The kubelet's relist threshold the rules hold relists to, in seconds (default 180, the kubelet's own). */
  thresholdSeconds: number;
  /** `for:` of every alert but the restart one, in seconds. */
  forSeconds: number;
  /** Label matchers added to every selector, e.g. `job="kubelet",metrics_path="/metrics"` (already checked). */
  selector: string;
  /** Where docs/runbook.md is served; each alert's runbook_url is this plus its anchor. */
  runbookUrl: string;
  /** The Prometheus URL the analyze command names (default: the rule evaluator's own external URL). */
  prometheusUrl: string;
  /** Rule group name. */
  group: string;
}

/** Relist period and threshold of the generic PLEG while the Evented PLEG runs (kubelet.go). */
export const EVENTED_RELIST_THRESHOLD_S = 600;
/** DefBuckets' last finite bound: a relist beyond it is only known to be "> 10 s". */
export const SLOW_RELIST_S = 10;
/** CRI calls PLEG makes (relist: list_*; GetPodStatus: *_status; updateRuntimeUp: status), and docker's for them. */
const PLEG_OPERATIONS = ['list_podsandbox', 'list_containers', 'podsandbox_status', 'container_status', 'status'];
const DOCKER_PLEG_OPERATIONS = ['list_containers', 'inspect_container', 'info', 'version'];
/** A CRI call slower than this at p99 (PLEG's own calls only) is worth a look; the CRI deadline is 2 min. */
const SLOW_OPERATION_S = 10;

export interface AlertInfo {
  alert: string;
  severity: AlertSeverity;
  /** Heading anchor of its section in docs/runbook.md. */
  anchor: string;
  title: string;
}

export const ALERTS: readonly AlertInfo[] = [
  { alert: 'KubeletPLEGNotHealthy', severity: 'critical', anchor: 'kubeletplegnothealthy', title: 'PLEG last seen active too long ago' },
  { alert: 'KubeletPLEGRelistStopped', severity: 'critical', anchor: 'kubeletplegreliststopped', title: 'No relist finished' },
  { alert: 'KubeletPLEGRelistSlow', severity: 'warning', anchor: 'kubeletplegrelistslow', title: 'Relists take 10 s and more' },
  { alert: 'KubeletRuntimeOperationsFailing', severity: 'warning', anchor: 'kubeletruntimeoperationsfailing', title: 'CRI calls failing or timing out' },
  { alert: 'KubeletRuntimeOperationsSlow', severity: 'warning', anchor: 'kubeletruntimeoperationsslow', title: 'PLEG\'s CRI calls slow' },
  { alert: 'KubeletRestarted', severity: 'info', anchor: 'kubeletrestarted', title: 'Kubelet restarted' },
];

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface RuleGroups {
  groups: Array<{ name: string; rules: AlertRule[] }>;
}

/** Seconds as a Prometheus duration: 180 → 3m, 90 → 1m30s, 0 → 0s. */
export function promDuration(seconds: number): string {
  if (seconds <= 0) return '0s';
  const units: Array<[string, number]> = [['w', 604_800], ['d', 86_400], ['h', 3_600], ['m', 60], ['s', 1]];
  let left = Math.round(seconds);
  let out = '';
  for (const [u, n] of units) {
    if (left >= n) {
      out += `${Math.floor(left / n)}${u}`;
      left %= n;
    }
  }
  return out;
}

/** `name{matchers}` with the user's selector added. */
function sel(name: string, o: AlertOptions, extra = ''): string {
  const m = [extra, o.selector].filter((x) => x !== '').join(', ');
  return m ? `${name}{${m}}` : name;
}

/** Several metric names as one selector (a regex on the name), with the user's selector. */
function anyOf(names: readonly string[], o: AlertOptions): string {
  return sel('', o, `__name__=~"${names.join('|')}"`);
}

function regexOf(values: string[]): string {
  return values.join('|');
}

/** The target is up: every rule is held to it (`and` matches on every label but the metric name). */
function up(o: AlertOptions): string {
  return `(${sel('up', o)} == 1)`;
}

/** The node runs the Evented PLEG: one of its counters is above 0. */
function evented(o: AlertOptions): string {
  return `(${anyOf(EVENTED_PLEG_NAMES, o)} > 0)`;
}

/** A counter that did not change over `rangeS` (and existed `rangeS` ago: a new series is not a frozen one). */
function frozen(name: string, rangeS: number, o: AlertOptions): string {
  const r = promDuration(rangeS);
  return `(changes(${sel(name, o)}[${r}]) == 0 and ${sel(name, o)} offset ${r})`;
}

/** Or of the branches, each in parentheses, one per line. */
function or(branches: string[], indent = '  '): string {
  return branches.map((b) => `${indent}${b}`).join(`\n${indent}or\n`);
}

/** The node name the analyze command takes: the `node` label, else `kubernetes_io_hostname`, else the instance's host. */
const NODE = '{{ if $labels.node }}{{ $labels.node }}{{ else if $labels.kubernetes_io_hostname }}{{ $labels.kubernetes_io_hostname }}{{ else }}{{ reReplaceAll ":[0-9]+$" "" $labels.instance }}{{ end }}';

/** The node in prose: its `node` label, else its instance. */
const WHO = '{{ with $labels.node }}{{ . }}{{ else }}{{ $labels.instance }}{{ end }}';

/**
 * An RFC 3339 time, `offset` seconds after the evaluation time (negative: before). With `minusValue`, the alert's
 * value (an age in seconds) is taken off too. Templates have no arithmetic: PromQL does it (`query`), toTime formats.
 */
function timeAt(offset: number, minusValue = false): string {
  const q = minusValue ? `(printf "time() - %f + (${offset})" $value)` : `"time() + (${offset})"`;
  return `{{ with query ${q} }}{{ (. | first | value | toTime).Format "2006-01-02T15:04:05Z07:00" }}{{ end }}`;
}

/** The analyze command for the alert's node and window: from `since` (see timeAt) to 30 min after the evaluation. */
function analyzeCommand(o: AlertOptions, since: { offset: number; minusValue?: boolean }): string {
  return `plegscope analyze --prometheus ${o.prometheusUrl} --node ${NODE} --since ${timeAt(since.offset, since.minusValue)} --until ${timeAt(1800)}`;
}

export function buildAlertRules(o: AlertOptions): RuleGroups {
  const T = o.thresholdSeconds;
  const TE = Math.max(T, EVENTED_RELIST_THRESHOLD_S);
  const forD = promDuration(o.forSeconds);
  const info = (alert: string): AlertInfo => ALERTS.find((a) => a.alert === alert)!;
  const rule = (alert: string, expr: string, summary: string, description: string, since: { offset: number; minusValue?: boolean }, forOverride?: string): AlertRule => {
    const a = info(alert);
    const f = forOverride ?? forD;
    return {
      alert,
      expr,
      ...(f !== '0s' ? { for: f } : {}),
      labels: { severity: a.severity },
      annotations: {
        summary,
        description,
        runbook_url: `${o.runbookUrl}#${a.anchor}`,
        plegscope: analyzeCommand(o, since),
      },
    };
  };
  const ev = evented(o);
  const lastSeen = familyNames('last_seen', 'gauge')[0]!.name;
  const counts = familyNames('relist_duration', 'count').map((x) => x.name);
  const buckets = familyNames('relist_duration', 'bucket').map((x) => x.name);
  const quantiles = familyNames('relist_duration', 'quantile');

  // 1. The kubelet's own health check: the last relist that listed the pods began more than T ago. Not on Evented
  //    PLEG nodes (their gauge is "now"); a gauge of 0 is a kubelet that has not checked yet (start-up).
  const stuck = `(\n  time() - (${sel(lastSeen, o)} > 0) > ${T}\n  unless ${ev}\n)\nand ${up(o)}`;

  // 2. No relist finished: the count stood still for T (Evented PLEG: for max(T, 10 min), the generic relist's own
  //    threshold there). Newest family first; ≤1.13 summaries have no Evented PLEG.
  const stopped = [
    `(${frozen(counts[0]!, T, o)} unless ${ev})`,
    `(${frozen(counts[0]!, TE, o)} and ${ev})`,
    ...counts.slice(1).map((c) => frozen(c, T, o)),
  ];
  const stoppedExpr = `(\n${or(stopped)}\n)\nand ${up(o)}`;

  // 3. Slow relists that end: p99 at or beyond the last finite bucket (10 s), or a ≤1.13 summary's p99.
  const slow = [
    ...buckets.map((b) => `histogram_quantile(0.99, rate(${sel(b, o)}[5m])) >= ${SLOW_RELIST_S}`),
    // Without its quantile label a summary's p99 has the histogram branch's labels: a 1.14–1.16 kubelet exposes both.
    ...quantiles.map((q) => `max without (quantile) (${sel(q.name, o, 'quantile="0.99"')}) * ${q.info.scale} >= ${SLOW_RELIST_S}`),
  ];
  const slowExpr = `(\n${or(slow)}\n)\nand ${up(o)}`;

  // 4. CRI calls failing (errors / calls ≥ 10 % and ≥ 3 errors in 10 min) or timing out (dockershim counts those
  //    apart), by operation_type. The families are told apart by a `family` label (a dockershim node has both the CRI
  //    and the docker families, with some operation names in common); old and new names of one family share it, so
  //    the `or` keeps one of a 1.14–1.16 kubelet's duplicates.
  const failing: string[] = [];
  for (const { group, prefix } of operationFamilies().filter((f) => f.group !== 'network_plugin')) {
    const errors = familyNames('operation', 'errors', group).map((x) => x.name);
    const calls = familyNames('operation', 'counter', group).map((x) => x.name);
    errors.forEach((e, i) => {
      const c = calls[i] ?? calls[0]!;
      failing.push(`label_replace(\n    increase(${sel(e, o)}[10m]) >= 3\n    and rate(${sel(e, o)}[10m]) / rate(${sel(c, o)}[10m]) >= 0.1,\n    "family", "${prefix}", "", ""\n  )`);
    });
    if (group === 'docker') {
      for (const t of DOCKER_TIMEOUT_NAMES) failing.push(`label_replace(increase(${sel(t, o)}[10m]) > 0, "family", "${prefix}_timeout", "", "")`);
    }
  }
  const failingExpr = `(\n${or(failing)}\n)\nand on(${IDENTITY}) ${up(o)}`;

  // 5. PLEG's own CRI calls slow at p99 (the calls relist and GetPodStatus make; an image pull may take minutes).
  const slowOps: string[] = [];
  for (const { group } of operationFamilies().filter((f) => f.group !== 'network_plugin')) {
    const ops = `operation_type=~"${regexOf(group === 'docker' ? DOCKER_PLEG_OPERATIONS : PLEG_OPERATIONS)}"`;
    for (const b of familyNames('operation', 'bucket', group)) slowOps.push(`histogram_quantile(0.99, rate(${sel(b.name, o, ops)}[10m])) >= ${SLOW_OPERATION_S}`);
    for (const q of familyNames('operation', 'quantile', group)) slowOps.push(`max without (quantile) (${sel(q.name, o, `${ops}, quantile="0.99"`)}) * ${q.info.scale} >= ${SLOW_OPERATION_S}`);
  }
  const slowOpsExpr = `(\n${or(slowOps)}\n)\nand on(${IDENTITY}) ${up(o)}`;

  // 6. The kubelet restarted: process_start_time_seconds changed. Every Go process exposes it, so it is held to a
  //    target that also exposes a relist count (the kubelet's /metrics).
  const restartExpr = `changes(${sel('process_start_time_seconds', o)}[15m]) > 0\nand ${anyOf(counts, o)}`;

  const t = promDuration(T);
  const te = promDuration(TE);
  const rules: AlertRule[] = [
    rule('KubeletPLEGNotHealthy', stuck,
      `PLEG on ${WHO} last seen active {{ $value | humanizeDuration }} ago`,
      `The kubelet's last relist that listed the pods began {{ $value | humanizeDuration }} ago (threshold ${t}); the kubelet reports "PLEG is not healthy" and the node goes NotReady. A hard stall freezes the relist histograms too (no relist finishes), so KubeletPLEGRelistSlow does not fire for it: this alert and KubeletPLEGRelistStopped cover frozen histograms. Not evaluated on Evented PLEG nodes, whose gauge is set to now on every health check (KubeletPLEGRelistStopped covers them).`,
      { offset: -1800, minusValue: true }),
    rule('KubeletPLEGRelistStopped', stoppedExpr,
      `No PLEG relist finished on ${WHO} for ${t} (${te} with Evented PLEG)`,
      `The relist count (${counts.join(', then ')}) did not move for ${t} (on an Evented PLEG node, where the generic relist runs every 5 min: for ${te}). A relist is hung, typically in a CRI list call. This also covers kubelets before 1.18, which have no last-seen gauge.`,
      { offset: -TE - 1800 }),
    rule('KubeletPLEGRelistSlow', slowExpr,
      `PLEG relists on ${WHO} take {{ $value | humanizeDuration }} or more (p99)`,
      `The relists that finished in the last 5 min took ${SLOW_RELIST_S} s or more at p99 (beyond the last histogram bucket: at least ${SLOW_RELIST_S} s). Relists still finish, so PLEG is alive but close to its ${t} threshold: too many pods or containers, a slow runtime, or slow disks. A relist that never finishes is never observed (the histogram freezes): KubeletPLEGNotHealthy and KubeletPLEGRelistStopped cover that.`,
      { offset: -1800 }),
    rule('KubeletRuntimeOperationsFailing', failingExpr,
      `CRI {{ $labels.operation_type }} calls failing on ${WHO}`,
      'At least 3 {{ $labels.operation_type }} calls ({{ $labels.family }}) failed in 10 min, 10 % of them or more (or dockershim counted timeouts). Failing or timed-out list_podsandbox / list_containers / *_status calls are what stalls PLEG (each timeout takes the CRI deadline, 2 min).',
      { offset: -2400 }),
    rule('KubeletRuntimeOperationsSlow', slowOpsExpr,
      `CRI {{ $labels.operation_type }} p99 {{ $value | humanizeDuration }} on ${WHO}`,
      `The p99 latency of {{ $labels.operation_type }} over 10 min is ${SLOW_OPERATION_S} s or more. PLEG makes these calls in series on every relist; a runtime this slow pushes relists towards the ${t} threshold.`,
      { offset: -2400 }),
    rule('KubeletRestarted', restartExpr,
      `Kubelet on ${WHO} restarted`,
      'process_start_time_seconds of the kubelet changed in the last 15 min. A restart ends a PLEG stall (someone restarted it, or it crashed); several in a row are a crash loop. plegscope dates the restart and what preceded it.',
      { offset: -2700 }, '0s'),
  ];
  return { groups: [{ name: o.group, rules }] };
}

/** Labels an aggregation-free rule keeps that name the kubelet; `up` is matched on them after label_replace/quantiles. */
const IDENTITY = 'node, instance, kubernetes_io_hostname, job';

export type AlertFormat = 'rules' | 'prometheusrule';

/** A Prometheus Operator PrometheusRule holding the groups (monitoring.coreos.com/v1). */
export function prometheusRule(groups: RuleGroups, name: string, namespace?: string): Record<string, unknown> {
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: {
      name,
      ...(namespace ? { namespace } : {}),
      labels: { 'app.kubernetes.io/name': 'plegscope', 'app.kubernetes.io/component': 'alerting-rules' },
    },
    spec: groups,
  };
}
