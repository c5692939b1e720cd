// The fleet scan's questions and how its answers become stalls (pure; src/sources/prometheus/scan.ts asks them). Two passes keep a week of
// a large fleet fast and small:
//  1. one range query over the whole window, aggregated on the server: the steps in which a kubelet's last-seen gauge
//     stood still between scrapes, only where it did —
//       max by (node, instance, kubernetes_io_hostname) (count_over_time(kubelet_pleg_last_seen_seconds[20m])
//         - 1 - changes(kubelet_pleg_last_seen_seconds[20m])) >= 3
//     (answers hold only those kubelets' flagged steps: bounded by nodes × steps, most of them absent);
//  2. for each stretch of flagged steps, the raw last-seen samples of that kubelet around it, which decide whether it
//     was a stall (scrape − last seen > 3 min) and date it to the scrape (start = the frozen value, end = the first
//     scrape with a newer one) through the metric-stall model.
// Then, for the stalled kubelets only, window-wide aggregates: relist p99, CRI errors and calls, running pods.
import type { FleetNode } from '../contract/analysis.js';
import { promString, type KubeletTarget, type LabelSet, type Window, mergeWindows } from './prom-plan.js';

const ID_LABELS = 'node, instance, kubernetes_io_hostname';
/** Steps per series of the window-wide query at most. */
const MAX_STEPS = 500;

/** A multiple of the scrape interval, at least four scrapes (a step must hold several pairs of them), ≤ 500 steps. */
export function scanStep(windowMs: number, scrapeS: number): number {
  return Math.max(4 * scrapeS, Math.ceil(windowMs / 1000 / MAX_STEPS / scrapeS) * scrapeS);
}

/**
 * Steps in which the kubelet's last-seen gauge stood still between scrapes: healthy, it moves at every scrape (the
 * health check runs every second or so); during a stall it keeps the last good relist's time. A stall of more than
 * 3 min holds at least 180/scrape unchanged pairs, so one of the steps it touches holds half of them (or all the pairs
 * a short step holds; pairs across a step's edge are not counted). Range functions
 * only: the same question as a subquery of the age (max_over_time((timestamp(x) - x)[step:scrape])) took over two
 * minutes on 200 kubelets × 7 days (2 cores); this takes a fraction of a second. `target`: only its kubelet.
 */
export function flatPassQuery(stepS: number, scrapeS: number, target?: KubeletTarget): string {
  const m = `kubelet_pleg_last_seen_seconds${target ? `{${target.idLabel}=${promString(target.idValue)}}` : ''}`;
  const minPairs = Math.max(1, Math.min(Math.floor(90 / scrapeS), Math.floor(stepS / scrapeS) - 1));
  return `max by (${ID_LABELS}) (count_over_time(${m}[${stepS}s]) - 1 - changes(${m}[${stepS}s])) >= ${minPairs}`;
}

/** The target a series of an aggregated answer belongs to (by the label the target is identified by). */
export function targetOf(labels: LabelSet, targets: KubeletTarget[]): KubeletTarget | null {
  return targets.find((t) => labels[t.idLabel] === t.idValue) ?? null;
}

/** targetOf for many series: the targets indexed once by identity label and value (a fleet lists thousands). */
export function targetIndex(targets: KubeletTarget[]): (labels: LabelSet) => KubeletTarget | null {
  const by = new Map<string, Map<string, KubeletTarget>>();
  for (const t of targets) {
    let m = by.get(t.idLabel);
    if (!m) by.set(t.idLabel, (m = new Map()));
    if (!m.has(t.idValue)) m.set(t.idValue, t);
  }
  return (labels) => {
    for (const [label, m] of by) {
      const v = labels[label];
      const t = v === undefined ? undefined : m.get(v);
      if (t) return t;
    }
    return null;
  };
}

/**
 * Stretches of flagged steps per target, widened to hold the stall's start and end: a step at t flags (t − step, t];
 * the stall may have begun up to a step earlier, and ends at the next scrape with a newer value.
 */
export function flaggedWindows(series: Array<{ labels: LabelSet; times: number[] }>, targets: KubeletTarget[], stepS: number, scrapeS: number): Map<KubeletTarget, Window[]> {
  const out = new Map<KubeletTarget, Window[]>();
  const pad = (stepS + 2 * scrapeS) * 1000;
  const find = targetIndex(targets);
  for (const s of series) {
    const t = find(s.labels);
    if (!t) continue;
    const ws = out.get(t) ?? [];
    for (const at of s.times) ws.push([at - pad - 200_000, at + pad]);
    out.set(t, ws);
  }
  for (const [t, ws] of out) out.set(t, mergeWindows(ws));
  return out;
}

/** The raw last-seen and relist-count samples of one kubelet in a window (a range selector at its end). */
export function detailQuery(t: KubeletTarget, w: Window): { query: string; timeMs: number } {
  const rangeS = Math.ceil((w[1] - w[0]) / 1000);
  return { query: `{__name__=~"kubelet_pleg_last_seen_seconds|kubelet_pleg_relist_duration_seconds_count", ${t.idLabel}=${promString(t.idValue)}}[${rangeS}s]`, timeMs: w[1] };
}

/** `label=~"a|b"` selectors covering the targets, one per identity label in use. */
function selectors(targets: KubeletTarget[]): string[] {
  const by = new Map<string, string[]>();
  for (const t of targets) by.set(t.idLabel, [...(by.get(t.idLabel) ?? []), t.idValue]);
  return [...by].map(([label, values]) => `${label}=~${promString(values.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'))}`);
}

export interface Aggregates {
  relistP99: string[];
  errors: string[];
  calls: string[];
  pods: string[];
}

/** Window-wide figures for the stalled kubelets, evaluated at the window's end over its length. */
export function aggregateQueries(targets: KubeletTarget[], windowMs: number): Aggregates {
  const r = `${Math.max(1, Math.round(windowMs / 1000))}s`;
  const sels = selectors(targets);
  return {
    relistP99: sels.map((s) => `histogram_quantile(0.99, sum by (le, ${ID_LABELS}) (increase(kubelet_pleg_relist_duration_seconds_bucket{${s}}[${r}])))`),
    errors: sels.map((s) => `sum by (${ID_LABELS}) (increase({__name__=~"kubelet_runtime_operations_errors_total|kubelet_runtime_operations_errors", ${s}}[${r}]))`),
    calls: sels.map((s) => `sum by (${ID_LABELS}) (increase({__name__=~"kubelet_runtime_operations_total|kubelet_runtime_operations", ${s}}[${r}]))`),
    pods: sels.map((s) => `max by (${ID_LABELS}) (max_over_time({__name__=~"kubelet_running_pods|kubelet_running_pod_count", ${s}}[${r}]))`),
  };
}

/** Longest stall first, then most stalls, then name: the order an SRE works the list in. */
export function rankNodes(nodes: FleetNode[]): FleetNode[] {
  return [...nodes].sort((a, b) => b.longestSeconds - a.longestSeconds || b.stalls.length - a.stalls.length || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
