// The cluster summary: with several nodes (a must-gather, several sosreports) the first question is not "why did this
// node stall" but "which nodes flapped, together or apart, and what do they have in common" — a shared kubelet version,
// runtime or cause points at a fleet-wide problem, a shared time window at something outside the nodes. Derived from
// the NodeReports alone, so every view (and a redacted analysis) computes the same thing.
import { DateTime } from '../util/datetime.js';
import type {
  Analysis, ClusterNode, ClusterSummary, ClusterWave, CountCheck, NodeReport, PodRange, SharedTrait, Stall, TraitCount,
} from '../contract/analysis.js';
import { sanitize } from '../util/sanitize.js';
import { fmtDuration, textTable, wrapHanging } from './layout.js';
import { count, LONGEST_STALL } from './words.js';
import { isoTime } from '../util/instant.js';

/** Stalls of different nodes closer than this belong to one wave: a common trigger rarely hits all nodes at once. */
const WAVE_GAP_MS = 5 * 60_000;

export function summarizeCluster(nodes: readonly NodeReport[]): ClusterSummary | null {
  if (nodes.length < 2) return null;
  const flappedReports = nodes.filter((n) => n.stalls.length > 0);
  const flapped: ClusterNode[] = flappedReports.map((n) => ({
    name: n.name,
    stalls: n.stalls.length,
    firstUnhealthyFrom: minIso(n.stalls.flatMap((s) => (s.unhealthyFrom === null ? [] : [s.unhealthyFrom]))) as string,
    lastEndedAt: n.stalls.some((s) => s.endedAt === null) ? null : maxIso(n.stalls.map((s) => s.endedAt as string)),
    longestStallSeconds: n.stalls.reduce((m, s) => Math.max(m, s.durationSeconds), -Infinity),
    longestStallBound: boundOf(longestStallOf(n) as Stall),
    nodeNotReady: n.stalls.some((s) => s.nodeNotReady) || n.notReady.length > 0,
    primaryCause: n.verdict.primaryCause,
    kubeletVersion: n.kubeletVersion,
    runtime: n.runtime,
    runningPods: n.pods.running,
  }));
  flapped.sort((a, b) => Date.parse(a.firstUnhealthyFrom) - Date.parse(b.firstUnhealthyFrom) || a.name.localeCompare(b.name));
  const others = nodes.filter((n) => n.stalls.length === 0);
  const traits: Array<[SharedTrait['trait'], (n: NodeReport) => string | null]> = [
    ['kubeletVersion', (n) => n.kubeletVersion],
    ['runtime', (n) => n.runtime],
    ['primaryCause', (n) => n.verdict.primaryCause],
  ];
  return {
    nodes: nodes.length,
    flapped,
    notReadyOther: others.filter((n) => n.notReady.length > 0).map((n) => n.name),
    healthy: others.filter((n) => n.notReady.length === 0 && n.verdict.plegState !== 'unknown').map((n) => n.name),
    unknown: others.filter((n) => n.notReady.length === 0 && n.verdict.plegState === 'unknown').map((n) => n.name),
    waves: waves(flappedReports),
    shared: flapped.length === 0 ? [] : traits.map(([trait, get]) => shared(trait, flappedReports.map(get), others.map(get))),
    podDensity: { flapped: podRange(flappedReports), others: podRange(others) },
  };
}

/** The summary the analysis carries, or the one its nodes imply (for analyses made before the field existed). */
export function clusterOf(analysis: Analysis): ClusterSummary | null {
  return analysis.cluster ?? summarizeCluster(analysis.nodes);
}

/** The analysis with its cluster summary set, placed before `nodes` so the JSON reads in the order the views do. */
export function withCluster(analysis: Analysis): Analysis {
  if (analysis.cluster !== undefined) return analysis;
  const cluster = summarizeCluster(analysis.nodes);
  if (!cluster) return analysis;
  const { nodes, warnings, ...head } = analysis;
  return { ...head, cluster, nodes, warnings };
}

function waves(nodes: NodeReport[]): ClusterWave[] {
  const spans = nodes.flatMap((n) => n.stalls.flatMap((s) => (s.unhealthyFrom === null ? [] : [{
    node: n.name,
    from: Date.parse(s.unhealthyFrom),
    relist: s.lastRelistAt === null ? null : Date.parse(s.lastRelistAt),
    // An open stall lasts to the end of what its node's log covers.
    to: s.endedAt ? Date.parse(s.endedAt) : Date.parse(n.coverage.to ?? n.window.end ?? s.unhealthyFrom),
    open: s.endedAt === null,
    bound: boundOf(s),
    seconds: s.durationSeconds,
  }]))).sort((a, b) => a.from - b.from || a.node.localeCompare(b.node));
  type Acc = { from: number; to: number; open: boolean; nodes: string[]; relist: number | null; bound: Bound; seconds: number; stalls: number };
  const out: Acc[] = [];
  for (const s of spans) {
    const cur = out[out.length - 1];
    if (cur && s.from <= cur.to + WAVE_GAP_MS) {
      // The wave's end is its last stall's: how that end is known is how the wave's is.
      if (s.to >= cur.to) cur.bound = s.bound;
      cur.to = Math.max(cur.to, s.to);
      cur.open ||= s.open;
      if (cur.open) cur.bound = 'at-least';
      cur.relist = cur.relist === null ? s.relist : s.relist === null ? cur.relist : Math.min(cur.relist, s.relist);
      cur.stalls++;
      if (!cur.nodes.includes(s.node)) cur.nodes.push(s.node);
    } else {
      out.push({ from: s.from, to: s.to, open: s.open, nodes: [s.node], relist: s.relist, bound: s.bound, seconds: s.seconds, stalls: 1 });
    }
  }
  return out.map((w) => ({
    from: isoTime(w.from), to: w.open ? null : isoTime(w.to), nodes: w.nodes,
    lastRelistAt: w.relist === null ? null : isoTime(w.relist),
    // One stall: its own duration; several: from the earliest last relist to the latest end.
    durationSeconds: w.stalls === 1 || w.relist === null ? w.seconds : Math.round(w.to - w.relist) / 1000,
    durationBound: w.bound,
  }));
}

type Bound = NonNullable<ClusterWave['durationBound']>;

/** How a stall's duration is known: its end between two lines is `about`, no end in the input `at-least`. */
function boundOf(s: Stall): Bound {
  return s.endedBy === 'unknown' || s.endedBy === 'end-of-log' ? 'at-least' : s.endedBetween ? 'about' : 'exact';
}

/** A duration as every view says it: `14m15s`, `about 6m02s`, `at least 14m15s`. */
export function boundDuration(seconds: number, bound: Bound): string {
  const d = fmtDuration(seconds);
  return bound === 'at-least' ? `at least ${d}` : bound === 'about' ? `about ${d}` : d;
}

function counts(values: Array<string | null>): TraitCount[] {
  const m = new Map<string, number>();
  for (const v of values) m.set(v ?? 'unknown', (m.get(v ?? 'unknown') ?? 0) + 1);
  return [...m.entries()].map(([value, nodes]) => ({ value, nodes })).sort((a, b) => b.nodes - a.nodes || a.value.localeCompare(b.value));
}

function shared(trait: SharedTrait['trait'], flapped: Array<string | null>, others: Array<string | null>): SharedTrait {
  const f = counts(flapped);
  const only = f.length === 1 ? f[0] : undefined;
  return { trait, common: only && only.value !== 'unknown' ? only.value : null, flapped: f, others: counts(others) };
}

function podRange(nodes: NodeReport[]): PodRange | null {
  const v = nodes.map((n) => n.pods.running).filter((x): x is number => x !== null).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const mid = Math.floor(v.length / 2);
  const median = v.length % 2 ? (v[mid] as number) : ((v[mid - 1] as number) + (v[mid] as number)) / 2;
  return { known: v.length, min: v[0] as number, median, max: v[v.length - 1] as number };
}

function minIso(xs: string[]): string | null {
  let best: string | null = null;
  for (const x of xs) if (best === null || Date.parse(x) < Date.parse(best)) best = x;
  return best;
}

function maxIso(xs: string[]): string | null {
  let best: string | null = null;
  for (const x of xs) if (best === null || Date.parse(x) > Date.parse(best)) best = x;
  return best;
}

/** An ISO time shown in the report's zone: `2024-03-11 10:03:02 +00:00`, or only the clock when `withDate` is false. */
export function displayTime(isoStr: string | null, zone: string, withDate = true): string {
  if (!isoStr) return '—';
  const d = DateTime.fromISO(isoStr, { setZone: true }).setZone(zone);
  if (!d.isValid) return isoStr;
  return d.toFormat(withDate ? 'yyyy-MM-dd HH:mm:ss ZZ' : 'HH:mm:ss');
}

/** How a stall ended, in words. */
export const ENDED: Record<Stall['endedBy'], string> = {
  recovered: 'recovered',
  restart: 'ended by a kubelet restart',
  'end-of-log': 'still stalled at the end of the log',
  unknown: 'end not in the input',
};

/** When a stall ended, as the input shows it: the time and how; for an end that falls between two lines of the input
 *  (its unhealthy lines stopped), the times of both, not the estimate `endedAt` holds; for none, why. */
export function stallEnded(s: Stall, zone: string, withDate = false): string {
  const t = (x: string): string => displayTime(x, zone, withDate);
  const b = s.endedBetween;
  if (b) return b.to ? `between ${t(b.from)} and ${t(b.to)} (${ENDED[s.endedBy]})` : `after ${t(b.from)} (${ENDED[s.endedBy]})`;
  return s.endedAt ? `${t(s.endedAt)} (${ENDED[s.endedBy]})` : ENDED[s.endedBy];
}

/** `ended 10:21:27 (recovered)`, `ended between … and … (recovered)`, or `still stalled at the end of the log`. */
export function stallEndPhrase(s: Stall, zone: string, withDate = false): string {
  return `${s.endedAt !== null || s.endedBetween ? 'ended ' : ''}${stallEnded(s, zone, withDate)}`;
}

/** How long a stall went without a relist, from its last good relist to the first relist after it: "at least" when
 *  that end is not in the input (still stalled at its end, or the end left out), "about" when it is an estimate
 *  between two lines. The one duration of a stall, in every view. */
export function stallDuration(s: Stall): string {
  return boundDuration(s.durationSeconds, boundOf(s));
}

/** The node's longest stall (the first of equals), or null without one. */
export function longestStallOf(n: NodeReport): Stall | null {
  let best: Stall | null = null;
  for (const s of n.stalls) if (!best || s.durationSeconds > best.durationSeconds) best = s;
  return best;
}

/** The longest stall's duration as every view says a stall's (`at least 14m15s`), or — without one. */
export function longestStallText(n: NodeReport): string {
  const s = longestStallOf(n);
  return s ? stallDuration(s) : '—';
}

/** A flapped node's longest stall as the cluster summary holds it, in the same words. */
export function clusterLongest(c: ClusterNode): string {
  return boundDuration(c.longestStallSeconds, c.longestStallBound ?? 'exact');
}

/** When the last good relist was, or that its lines carry no date. */
export function stallStart(s: Stall, zone: string, withDate = true): string {
  return s.relistNeverSucceeded ? 'never since a kubelet start the input does not show' : s.lastRelistAt === null ? 'time unknown (its lines carry no date)' : displayTime(s.lastRelistAt, zone, withDate);
}

/** What a count check's grep prints, and how much of it the finding counted: "30", or "45 (30 of them in the window)". */
export function checkResult(c: CountCheck): string {
  const window = c.total === c.count ? '' : ` (${c.count} of them ${c.window ?? 'in the window counted'})`;
  if (c.prints === undefined || c.prints === c.total) return `${c.total}${window}`;
  // The command counts every copy; the report counted the copies of one journal in two files once.
  const copies = c.deduplicated ?? c.prints - c.total;
  return `${c.prints} — ${c.total} distinct ${c.total === 1 ? 'line' : 'lines'}${window}; the other ${copies} ${copies === 1 ? 'is a copy' : 'are copies'} of them in another file of the same journal, counted once`;
}

/** A time span shown compactly: the end without its date when both fall on the same day. */
export function displaySpan(from: string | null, to: string | null, zone: string, openLabel = 'end of log'): string {
  if (to === null) return `${displayTime(from, zone)} → ${openLabel}`;
  const sameDay = displayTime(from, zone).slice(0, 10) === displayTime(to, zone).slice(0, 10);
  return `${displayTime(from, zone)} → ${displayTime(to, zone, !sameDay)}`;
}

const TRAIT_LABEL: Record<SharedTrait['trait'], string> = { kubeletVersion: 'kubelet', runtime: 'runtime', primaryCause: 'cause' };

function traitList(t: TraitCount[]): string {
  return t.map((c) => `${c.value} ×${c.nodes}`).join(', ');
}

function podText(r: PodRange | null): string {
  return r ? `${r.min}–${r.max} running pods (median ${r.median}, ${count(r.known, 'node')} with metrics)` : 'pod count unknown';
}

/**
 * The summary as plain sentences (log-derived names included raw: each view sanitises and escapes them). Shared by
 * every format so they all say the same thing.
 */
export function clusterSentences(c: ClusterSummary, zone: string): string[] {
  const out: string[] = [];
  const nf = c.flapped.length;
  out.push(nf === 0
    ? `None of the ${c.nodes} nodes had a PLEG stall.`
    : `${nf} of ${c.nodes} nodes had a PLEG stall: ${c.flapped.map((n) => n.name).join(', ')}.`);
  if (c.notReadyOther.length > 0) out.push(`NotReady without a PLEG stall: ${c.notReadyOther.join(', ')}.`);
  if ((c.unknown?.length ?? 0) > 0) out.push(`PLEG state unknown (nothing in the input shows whether relist worked): ${(c.unknown as string[]).join(', ')}.`);
  if (nf > 0 && c.waves.length > 0) {
    const multi = c.waves.filter((w) => w.nodes.length > 1);
    if (c.waves.length === 1 && multi.length === 1) {
      out.push(`They stalled together: ${waveText(c.waves[0] as ClusterWave, zone)} — look for a trigger the nodes share (storage, network, a rollout).`);
    } else {
      out.push(`${count(c.waves.length, 'separate stall window')}: ${c.waves.map((w) => waveText(w, zone)).join('; ')}.`);
    }
  }
  for (const t of c.shared) {
    const label = TRAIT_LABEL[t.trait];
    if (t.common !== null) {
      const alsoOthers = t.others.find((o) => o.value === t.common)?.nodes ?? 0;
      out.push(`All flapped nodes share ${label} ${t.common}` + (c.nodes - nf === 0 ? '.' : alsoOthers === 0
        ? ` — no other node has it (others: ${traitList(t.others)}).`
        : ` — so do ${alsoOthers} of the ${count(c.nodes - nf, 'other node')}.`));
    } else if (t.flapped.length === 1) {
      out.push(`The ${label} of every flapped node is unknown.`);
    } else if (nf > 1) {
      out.push(`Flapped nodes differ in ${label}: ${traitList(t.flapped)}.`);
    }
  }
  if (nf > 0 && (c.podDensity.flapped || c.podDensity.others)) {
    out.push(`Pod density: flapped nodes ${podText(c.podDensity.flapped)}; others ${podText(c.podDensity.others)}.`);
  }
  return out;
}

/** A wave as a stall: from the last good relist to the end, its duration without a relist (as each stall's is given),
 *  then its PLEG-unhealthy window, labelled. Waves of analyses made before the stall fields existed: the window only. */
function waveText(w: ClusterWave, zone: string): string {
  const unhealthy = displaySpan(w.from, w.to, zone);
  if (w.lastRelistAt == null || w.durationSeconds === undefined) return `${w.nodes.join(', ')} PLEG unhealthy ${unhealthy}`;
  const stalled = displaySpan(w.lastRelistAt, w.to, zone);
  return `${w.nodes.join(', ')} from the last relist ${stalled}, ${boundDuration(w.durationSeconds, w.durationBound ?? 'exact')} without a relist (PLEG unhealthy from ${displayTime(w.from, zone, displayTime(w.from, zone).slice(0, 10) !== displayTime(w.lastRelistAt, zone).slice(0, 10))})`;
}

/**
 * The cluster block of the text report (printed before the per-node sections). Empty for a single node. Sentences
 * wrap to `width`; the flapped nodes are a table when it fits, else one wrapped line each. Colour only as the text
 * report uses it: bold headings.
 */
export function renderClusterText(analysis: Analysis, opts: { color: boolean; zone: string; width?: number }): string {
  const c = clusterOf(analysis);
  if (!c) return '';
  const W = opts.width ?? 80;
  const bold = (s: string): string => (opts.color ? `\x1b[1m${s}\x1b[0m` : s);
  const out: string[] = [bold(`Cluster — ${c.nodes} nodes`)];
  for (const s of clusterSentences(c, opts.zone)) out.push(...wrapHanging('  ', sanitize(s), W, 4));
  if (c.flapped.length > 0) {
    const head = ['node', 'stalls', 'first unhealthy', LONGEST_STALL, 'NotReady', 'cause', 'kubelet', 'runtime', 'pods'];
    const rows = c.flapped.map((n) => [
      sanitize(n.name), String(n.stalls), displayTime(n.firstUnhealthyFrom, opts.zone), clusterLongest(n),
      n.nodeNotReady ? 'yes' : 'no', n.primaryCause ?? 'unknown', sanitize(n.kubeletVersion ?? '?'), n.runtime ?? '?',
      n.runningPods === null ? '—' : String(n.runningPods),
    ]);
    const table = textTable(head, rows, [false, true, false, true, false, false, false, false, true]).map((l) => '  ' + l);
    if (table.every((l) => l.length <= W)) out.push(...table);
    else {
      // Too wide for the terminal: one line per node, the same fields named.
      for (const r of rows) {
        out.push(...wrapHanging('  - ', `${r[0]}: ${count(Number(r[1]), 'stall')}, first unhealthy ${r[2]}, ${LONGEST_STALL} ${r[3]}, NotReady ${r[4]}, cause ${r[5]}, kubelet ${r[6]}, runtime ${r[7]}, pods ${r[8]}`, W, 6));
      }
    }
  }
  return out.join('\n') + '\n\n';
}
