// `plegscope scan`: the fleet's Prometheus asked which kubelets' PLEG went unhealthy in a window (src/model/fleet-scan.ts
// says how), each stall dated from the raw samples by the same model that reads snapshot files (metric-stalls.ts).
import type { FleetNode, FleetScan } from '../../contract/analysis.js';
import { SCHEMA_VERSION } from '../../contract/analysis.js';
import { PrometheusError, type PrometheusClient } from './client.js';
import { SampleSink, SeriesList } from '../../parse/metrics/query-result.js';
import { toSnapshots } from '../../model/metrics.js';
import { metricStalls } from '../../model/metric-stalls.js';
import { flatPassQuery, aggregateQueries, detailQuery, flaggedWindows, rankNodes, scanStep, targetIndex } from '../../model/fleet-scan.js';
import { IDENTITY_LABELS, type KubeletTarget } from '../../model/prom-plan.js';
import { answerWarnings, discoverKubelets, DEFAULT_SCRAPE_S, measureScrapeInterval, runLimited } from './history.js';
import { TOOL_VERSION } from '../../version.js';
import { EVENTED_PLEG_NAMES } from '../../model/metric-names.js';
import { isoTime } from '../../util/instant.js';

const PARALLEL = 4;

/** The series of an answer (small ones: aggregations), what it skipped said in `warnings`. */
async function seriesOf(ask: (list: SeriesList) => ReturnType<PrometheusClient['query']>, what: string, warnings: string[]): Promise<SeriesList['list']> {
  const list = new SeriesList();
  const answer = await ask(list);
  warnings.push(...answerWarnings(answer, what));
  return list.list;
}

/**
 * The fleet's stalls in [sinceMs, untilMs]. The client's budget (--max-requests, --timeout) bounds the whole scan: past
 * it, the stretches not yet read are left out and a warning says the scan stopped early and what it did not read.
 */
export async function scanFleet(client: PrometheusClient, sinceMs: number, untilMs: number): Promise<FleetScan> {
  const { targets, warnings } = await discoverKubelets(client, sinceMs, untilMs);
  // Stalls are dated by kubelet_pleg_last_seen_seconds (1.18+): say which kubelets the scan cannot see.
  const seen = await client.series(['kubelet_pleg_last_seen_seconds'], sinceMs, untilMs, IDENTITY_LABELS);
  warnings.push(...answerWarnings(seen.answer, 'the kubelet_pleg_last_seen_seconds series list'));
  const find = targetIndex(targets);
  const sees = new Set<KubeletTarget>();
  for (const s of seen.sets) {
    const t = find(s);
    if (t) sees.add(t);
  }
  const blind = targets.filter((t) => !sees.has(t)).map((t) => t.name);
  if (blind.length > 0) {
    warnings.push(`${blind.length} kubelet(s) expose no kubelet_pleg_last_seen_seconds (before 1.18), so scan cannot date their stalls: ${blind.slice(0, 10).join(', ')}${blind.length > 10 ? ', …' : ''} (analyze them with --node: their relist counts still show a stall)`);
  }
  // Evented PLEG sets the gauge to now at every health check: a stall never freezes it there (evented.go, Healthy()).
  const evented = await eventedKubelets(client, targets, sinceMs, untilMs);
  if (evented.length > 0) {
    warnings.push(`${evented.length} kubelet(s) run Evented PLEG (kubelet_evented_pleg_connection_* above 0): their last-seen gauge is set at every health check, so a stall never freezes it and scan cannot see their stalls: ${evented.slice(0, 10).join(', ')}${evented.length > 10 ? ', …' : ''} (not called healthy; analyze them with --node and their kubelet log)`);
  }
  const measured = await measureScrapeInterval(client, targets.find((t) => t.idLabel === 'node') ?? targets[0]!, untilMs);
  const scrapeS = measured ?? DEFAULT_SCRAPE_S;
  const stepS = scanStep(untilMs - sinceMs, scrapeS);
  // 1. Where did a kubelet's last-seen gauge stand still?
  const pass = await seriesOf((l) => client.queryRange(flatPassQuery(stepS, scrapeS), sinceMs, untilMs, stepS, l), 'the flat-gauge pass', warnings);
  const flagged = flaggedWindows(pass, targets, stepS, scrapeS);
  // 2. Each stretch read raw, dated by the metric-stall model.
  const jobs: Array<() => Promise<{ target: KubeletTarget; found: ReturnType<typeof metricStalls> }>> = [];
  for (const [target, windows] of flagged) {
    for (const w of windows) {
      const clipped: [number, number] = [Math.max(w[0], sinceMs - 3_600_000), Math.min(w[1], untilMs)];
      jobs.push(async () => {
        const q = detailQuery(target, clipped);
        const sink = new SampleSink();
        const answer = await client.query(q.query, q.timeMs, sink);
        const parsed = sink.finish(answer.summary, answer.damaged);
        for (const n of [...parsed.errors, ...parsed.notes ?? []]) warnings.push(`${target.name}: ${n.message}`);
        const snaps = toSnapshots({ file: q.query, nodeHint: target.name, nameTime: null, parsed });
        return { target, found: metricStalls(snaps) };
      });
    }
  }
  // A stretch whose answer fails is a warning; past the budget the rest are left out, said once.
  let unread = 0;
  let stopped: string | null = null;
  const failures = new Map<string, number>();
  const detail = (await runLimited(jobs.map((job) => () => job().catch((e: unknown) => {
    if (!(e instanceof PrometheusError)) throw e;
    if (e.kind === 'budget') {
      stopped ??= e.message;
      unread++;
    } else failures.set(e.message, (failures.get(e.message) ?? 0) + 1);
    return null;
  })), PARALLEL)).filter((d) => d !== null);
  for (const [m, n] of failures) warnings.push(`${n} stretch(es) not read: ${m}`);
  if (stopped !== null) {
    warnings.push(`scan stopped early: ${stopped}; ${unread} of ${jobs.length} flagged stretch(es) of ${flagged.size} kubelet(s) not read, so stalls may be missing from this list (raise --max-requests or --timeout, or narrow --since/--until)`);
  }
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
      const start = isoTime(f.lastRelistAt);
      if (n.stalls.some((s) => s.start === start)) continue; // two stretches of one stall
      const seconds = round3(((endMs ?? untilMs) - f.lastRelistAt) / 1000);
      n.stalls.push({ start, end: endMs === null ? null : isoTime(endMs), seconds });
      n.longestSeconds = Math.max(n.longestSeconds, seconds);
    }
  }
  for (const n of stalled.values()) n.stalls.sort((a, b) => (a.start < b.start ? -1 : 1));
  // 3. Window-wide figures for the stalled kubelets.
  if (stalled.size > 0) {
    const agg = aggregateQueries([...stalled.keys()], untilMs - sinceMs);
    const findStalled = targetIndex([...stalled.keys()]);
    const ask = async (queries: string[], set: (n: FleetNode, v: number) => void): Promise<void> => {
      for (const q of queries) {
        let list: SeriesList['list'];
        try {
          list = await seriesOf((l) => client.query(q, untilMs, l), 'a window-wide figure', warnings);
        } catch (e) {
          if (!(e instanceof PrometheusError)) throw e;
          warnings.push(`a window-wide figure not read: ${e.message}`);
          continue;
        }
        for (const s of list) {
          const t = findStalled(s.labels);
          const v = s.values[0];
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
    source: { prometheus: client.display, scrapeIntervalSeconds: scrapeS, stepSeconds: stepS, ...(measured === null ? { scrapeIntervalAssumed: true as const } : {}) },
    window: { start: isoTime(sinceMs), end: isoTime(untilMs) },
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
  const find = targetIndex(targets);
  for (const s of await seriesOf((l) => client.query(q, untilMs, l), 'the Evented PLEG query', [])) {
    const t = find(s.labels);
    if (t) names.add(t.name);
  }
  return [...names].sort();
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
