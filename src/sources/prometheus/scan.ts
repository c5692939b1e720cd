// `plegscope scan`: the fleet's Prometheus asked which kubelets' PLEG went unhealthy in a window (src/model/fleet-scan.ts
// says how), each stall dated from the raw samples by the same model that reads snapshot files (metric-stalls.ts).
import type { FleetNode, FleetScan } from '../../contract/analysis.js';
import { SCHEMA_VERSION } from '../../contract/analysis.js';
import type { PrometheusClient, QueryData } from './client.js';
import { samplesFromQueryData } from '../../parse/metrics/query-result.js';
import { toSnapshots } from '../../model/metrics.js';
import { metricStalls } from '../../model/metric-stalls.js';
import { flatPassQuery, aggregateQueries, detailQuery, flaggedWindows, rankNodes, scanStep, targetOf } from '../../model/fleet-scan.js';
import type { KubeletTarget, LabelSet } from '../../model/prom-plan.js';
import { discoverKubelets, probeScrapeInterval, runLimited } from './history.js';
import { TOOL_VERSION } from '../../version.js';
import { EVENTED_PLEG_NAMES } from '../../model/metric-names.js';

const PARALLEL = 4;

interface Series { labels: LabelSet; points: Array<[number, number]> }

function seriesOf(d: QueryData): Series[] {
  if ((d.resultType !== 'matrix' && d.resultType !== 'vector') || !Array.isArray(d.result)) return [];
  return (d.result as Array<{ metric?: LabelSet; values?: Array<[number, string]>; value?: [number, string] }>).map((r) => ({
    labels: r.metric ?? {},
    points: (r.values ?? (r.value ? [r.value] : [])).map((v) => [Math.round(v[0] * 1000), Number(v[1])] as [number, number]),
  }));
}

export async function scanFleet(client: PrometheusClient, sinceMs: number, untilMs: number): Promise<FleetScan> {
  const { targets } = await discoverKubelets(client, sinceMs, untilMs);
  const warnings: string[] = [];
  // Stalls are dated by kubelet_pleg_last_seen_seconds (1.18+): say which kubelets the scan cannot see.
  const seen = await client.series(['kubelet_pleg_last_seen_seconds'], sinceMs, untilMs);
  const blind = targets.filter((t) => !seen.some((s) => targetOf(s, [t]) === t)).map((t) => t.name);
  if (blind.length > 0) {
    warnings.push(`${blind.length} kubelet(s) expose no kubelet_pleg_last_seen_seconds (before 1.18), so scan cannot date their stalls: ${blind.slice(0, 10).join(', ')}${blind.length > 10 ? ', …' : ''} (analyze them with --node: their relist counts still show a stall)`);
  }
  // Evented PLEG sets the gauge to now at every health check: a stall never freezes it there (evented.go, Healthy()).
  const evented = await eventedKubelets(client, targets, sinceMs, untilMs);
  if (evented.length > 0) {
    warnings.push(`${evented.length} kubelet(s) run Evented PLEG (kubelet_evented_pleg_connection_* above 0): their last-seen gauge is set at every health check, so a stall never freezes it and scan cannot see their stalls: ${evented.slice(0, 10).join(', ')}${evented.length > 10 ? ', …' : ''} (not called healthy; analyze them with --node and their kubelet log)`);
  }
  const scrapeS = await probeScrapeInterval(client, targets.find((t) => t.idLabel === 'node') ?? targets[0]!, untilMs);
  const stepS = scanStep(untilMs - sinceMs, scrapeS);
  // 1. Where did a kubelet's last-seen gauge stand still?
  const pass = seriesOf(await client.queryRange(flatPassQuery(stepS, scrapeS), sinceMs, untilMs, stepS));
  const flagged = flaggedWindows(pass.map((s) => ({ labels: s.labels, times: s.points.map((p) => p[0]) })), targets, stepS, scrapeS);
  // 2. Each stretch read raw, dated by the metric-stall model.
  const jobs: Array<() => Promise<{ target: KubeletTarget; found: ReturnType<typeof metricStalls> }>> = [];
  for (const [target, windows] of flagged) {
    for (const w of windows) {
      const clipped: [number, number] = [Math.max(w[0], sinceMs - 3_600_000), Math.min(w[1], untilMs)];
      jobs.push(async () => {
        const q = detailQuery(target, clipped);
        const parsed = samplesFromQueryData(await client.query(q.query, q.timeMs));
        const snaps = toSnapshots({ file: q.query, nodeHint: target.name, nameTime: null, parsed });
        return { target, found: metricStalls(snaps) };
      });
    }
  }
  const detail = await runLimited(jobs, PARALLEL);
  const stalled = new Map<KubeletTarget, FleetNode>();
  for (const { target, found } of detail) {
    for (const f of found) {
      if (f.proof !== 'last-seen') continue;
      const last = f.stalled[f.stalled.length - 1]!;
      const endMs = f.end?.timeMs ?? null;
      // Only stalls that were unhealthy inside the window.
      if (last.timeMs < sinceMs || f.lastRelistAt > untilMs) continue;
      let n = stalled.get(target);
      if (!n) stalled.set(target, (n = { name: target.name, stalls: [], longestSeconds: 0, relistP99Seconds: null, criErrors: null, criErrorRate: null, pods: null }));
      const start = new Date(f.lastRelistAt).toISOString();
      if (n.stalls.some((s) => s.start === start)) continue; // two stretches of one stall
      const seconds = round3(((endMs ?? untilMs) - f.lastRelistAt) / 1000);
      n.stalls.push({ start, end: endMs === null ? null : new Date(endMs).toISOString(), seconds });
      n.longestSeconds = Math.max(n.longestSeconds, seconds);
    }
  }
  for (const n of stalled.values()) n.stalls.sort((a, b) => (a.start < b.start ? -1 : 1));
  // 3. Window-wide figures for the stalled kubelets.
  if (stalled.size > 0) {
    const agg = aggregateQueries([...stalled.keys()], untilMs - sinceMs);
    const ask = async (queries: string[], set: (n: FleetNode, v: number) => void): Promise<void> => {
      for (const q of queries) {
        for (const s of seriesOf(await client.query(q, untilMs))) {
          const t = targetOf(s.labels, [...stalled.keys()]);
          const v = s.points[0]?.[1];
          if (t && v !== undefined && Number.isFinite(v)) set(stalled.get(t)!, v);
        }
      }
    };
    const calls = new Map<FleetNode, number>();
    await Promise.all([
      ask(agg.relistP99, (n, v) => { n.relistP99Seconds = round3(v); }),
      ask(agg.errors, (n, v) => { n.criErrors = Math.round(v); }),
      ask(agg.calls, (n, v) => { calls.set(n, v); }),
      ask(agg.pods, (n, v) => { n.pods = v; }),
    ]);
    for (const [n, c] of calls) {
      n.criErrors ??= 0;
      n.criErrorRate = c > 0 ? Math.round((n.criErrors / c) * 1e6) / 1e6 : null;
    }
  }
  return {
    schemaVersion: SCHEMA_VERSION,
    tool: { name: 'plegscope', version: TOOL_VERSION },
    source: { prometheus: client.display, scrapeIntervalSeconds: scrapeS, stepSeconds: stepS },
    window: { start: new Date(sinceMs).toISOString(), end: new Date(untilMs).toISOString() },
    nodesScanned: targets.length,
    ...(evented.length ? { evented } : {}),
    nodes: rankNodes([...stalled.values()]),
    warnings,
  };
}

/** The kubelets whose Evented PLEG counters moved above 0 in the window (the gate on: the stream opens at start). */
async function eventedKubelets(client: PrometheusClient, targets: KubeletTarget[], sinceMs: number, untilMs: number): Promise<string[]> {
  const range = `${Math.max(60, Math.ceil((untilMs - sinceMs) / 1000))}s`;
  const q = `max by (node, instance, kubernetes_io_hostname) (${EVENTED_PLEG_NAMES.slice(0, 2).map((m) => `max_over_time(${m}[${range}])`).join(' or ')}) > 0`;
  const names = new Set<string>();
  for (const s of seriesOf(await client.query(q, untilMs))) {
    const t = targetOf(s.labels, targets);
    if (t) names.add(t.name);
  }
  return [...names].sort();
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
