// Stalls seen in kubelet metrics (design.md §5: relist metrics freeze during a hard stall), for nodes whose logs do not
// show them (metrics-only inputs, a Prometheus history). Three signals, in order of strength:
//   kubelet_pleg_last_seen_seconds 1.710151632348e+09 1710151800000   → scrape − last seen = 167.6 s: not yet
//   kubelet_pleg_last_seen_seconds 1.710151632348e+09 1710152400000   → 767.6 s > 3 m: a stall, last relist 10:07:12.348
//   kubelet_pleg_relist_duration_seconds_count 3987 (twice, 10 min apart) → no relist finished for 10 min: a stall
// The last-seen gauge dates the last successful relist exactly; a relist count (duration or interval series, histogram
// or ≤1.13 summary) that does not move only bounds it (at or before the first scrape of the frozen run). A stall the
// node's logs already show is theirs: metrics add their sample to its evidence and make no second stall.
import type { Ref } from '../signals/events.js';
import type { Sample } from '../parse/metrics/exposition.js';
import { nameInfo } from './metric-names.js';
import type { Snapshot } from './metrics.js';
import type { StallModel, Timeline } from './timeline.js';
import { isoTime, plausibleMs } from '../util/instant.js';

/** The kubelet's relistThreshold (Generic PLEG). */
const THRESHOLD_S = 180;
/** A last-seen value that moved by less than this is the same relist (the gauge is whole seconds from 1.18). */
const SAME_RELIST_MS = 1_500;

interface Point {
  timeMs: number;
  segment: number | null;
  lastSeen: { valueMs: number; scrapeMs: number; sample: Sample; file: string } | null;
  count: { value: number; sample: Sample; file: string } | null;
}

interface Found {
  lastRelistAt: number;
  /** True when lastRelistAt is only an upper bound (frozen count: the last relist finished at or before it). */
  bound: boolean;
  stalled: Point[];
  maxAge: number;
  end: Point | null;
  restart: boolean;
  proof: 'last-seen' | 'count';
  /** The first scrape that showed the same last relist, before its age passed the threshold (the gauge frozen). */
  prelude: Point | null;
}

/** One point per scrape time: the newest last-seen value and the relist count (duplicate series of one kubelet: max). */
function points(snapshots: Snapshot[]): Point[] {
  const byTime = new Map<number, Point>();
  // Relist count candidates per point: the duration histogram, else the summary, else the interval series.
  const countRank = (name: string): number => {
    const info = nameInfo(name);
    if (!info || info.part !== 'count') return -1;
    if (info.quantity === 'relist_duration') return info.source === 'histogram' ? 0 : 1;
    if (info.quantity === 'relist_interval') return info.source === 'histogram' ? 2 : 3;
    return -1;
  };
  const ranks = new Map<Point, number>();
  for (const snap of snapshots) {
    if (snap.timeMs === null) continue;
    let p = byTime.get(snap.timeMs);
    if (!p) byTime.set(snap.timeMs, (p = { timeMs: snap.timeMs, segment: snap.segment ?? null, lastSeen: null, count: null }));
    for (const s of snap.samples) {
      if (!Number.isFinite(s.value)) continue;
      const info = nameInfo(s.name);
      if (!info) continue;
      if (info.quantity === 'last_seen') {
        if (s.value <= 0 || !plausibleMs(s.value * 1000)) continue; // 0: the health check never ran; past 2199: no time
        const valueMs = Math.round(s.value * 1000);
        if (!p.lastSeen || valueMs > p.lastSeen.valueMs) p.lastSeen = { valueMs, scrapeMs: s.tsMs ?? snap.timeMs, sample: s, file: snap.file };
        continue;
      }
      const rank = countRank(s.name);
      if (rank < 0) continue;
      const cur = ranks.get(p) ?? Infinity;
      if (rank < cur || (rank === cur && p.count !== null && s.value > p.count.value)) {
        ranks.set(p, rank);
        p.count = { value: s.value, sample: s, file: snap.file };
      }
    }
  }
  return [...byTime.values()].sort((a, b) => a.timeMs - b.timeMs);
}

/** Stalls from the last-seen gauge: points whose age passes the threshold, grouped by the relist they point to. */
function fromLastSeen(pts: Point[], thresholdS: number): Found[] {
  const out: Found[] = [];
  let open: Found | null = null;
  let firstOfValue: Point | null = null;
  for (const p of pts) {
    const ls = p.lastSeen;
    if (!ls) continue;
    if (!firstOfValue || Math.abs(ls.valueMs - firstOfValue.lastSeen!.valueMs) > SAME_RELIST_MS) firstOfValue = p;
    if (open && Math.abs(ls.valueMs - open.lastRelistAt) <= SAME_RELIST_MS) {
      open.stalled.push(p);
      open.maxAge = Math.max(open.maxAge, (ls.scrapeMs - ls.valueMs) / 1000);
      continue;
    }
    if (open) {
      // A newer relist succeeded (or the kubelet restarted: the gauge went back, or the relist count did).
      open.end = p;
      const lastCount = open.stalled[open.stalled.length - 1]?.count?.value;
      open.restart = ls.valueMs < open.lastRelistAt || (lastCount !== undefined && p.count !== null && p.count.value < lastCount);
      out.push(open);
      open = null;
    }
    const age = (ls.scrapeMs - ls.valueMs) / 1000;
    if (age > thresholdS) {
      open = { lastRelistAt: ls.valueMs, bound: false, stalled: [p], maxAge: age, end: null, restart: false, proof: 'last-seen', prelude: firstOfValue !== p ? firstOfValue : null };
    }
  }
  if (open) out.push(open);
  return out;
}

/** Stalls from a relist count that did not move for longer than the threshold (no relist finished at all). */
function fromFrozenCount(pts: Point[], thresholdS: number): Found[] {
  const out: Found[] = [];
  const withCount = pts.filter((p) => p.count !== null);
  let i = 0;
  while (i < withCount.length) {
    const a = withCount[i]!;
    let j = i;
    while (j + 1 < withCount.length) {
      const b = withCount[j + 1]!;
      if (b.segment !== a.segment || b.count!.value !== a.count!.value) break;
      j++;
    }
    const b = withCount[j]!;
    if (j > i && (b.timeMs - a.timeMs) / 1000 > thresholdS) {
      const next = withCount[j + 1];
      const end = next && next.segment === b.segment ? next : null;
      out.push({
        lastRelistAt: a.timeMs,
        bound: true,
        stalled: withCount.slice(i, j + 1),
        maxAge: (b.timeMs - a.timeMs) / 1000,
        end,
        restart: end !== null && end.count!.value < b.count!.value,
        proof: 'count',
        prelude: null,
      });
    }
    i = j + 1;
  }
  return out;
}

/** The stalls the node's metric samples show (any order of snapshots; same-second snapshots are one scrape). */
export function metricStalls(snapshots: Snapshot[], thresholdS = THRESHOLD_S): Found[] {
  const pts = points(snapshots);
  const seen = fromLastSeen(pts, thresholdS);
  // The frozen count speaks only where the gauge is silent (kubelets before 1.18, or scrapes without it).
  const frozen = fromFrozenCount(pts, thresholdS).filter((f) => !seen.some((s) => overlaps(span(s), span(f))));
  return [...seen, ...frozen].sort((a, b) => a.lastRelistAt - b.lastRelistAt);
}

function span(f: Found): [number, number] {
  const last = f.stalled[f.stalled.length - 1]!;
  return [f.lastRelistAt, f.end?.timeMs ?? last.timeMs];
}

function overlaps(a: [number, number], b: [number, number]): boolean {
  return a[0] <= b[1] && b[0] <= a[1];
}

function ref(sample: Sample, file: string, timeMs: number, idOf: (file: string) => number): Ref {
  return { artifact: idOf(file), line: sample.line, offset: 0, ts: sample.tsMs ?? timeMs, mono: NaN, text: sample.text };
}

function evidenceOf(p: Point, f: Found, idOf: (file: string) => number): Ref | null {
  const s = f.proof === 'last-seen' ? p.lastSeen : p.count;
  return s ? ref(s.sample, s.file, p.timeMs, idOf) : null;
}

function iso(ms: number): string {
  return isoTime(ms);
}

function toStall(f: Found, idOf: (file: string) => number): StallModel {
  const first = f.stalled[0]!;
  const last = f.stalled[f.stalled.length - 1]!;
  const evidence: Ref[] = [];
  for (const p of [f.prelude ?? first, maxAgePoint(f), last]) {
    const r = evidenceOf(p, f, idOf);
    if (r && !evidence.some((e) => e.artifact === r.artifact && e.line === r.line)) evidence.push(r);
  }
  const what = f.proof === 'last-seen' ? 'kubelet_pleg_last_seen_seconds moved' : 'the relist count moved again';
  const endProof = f.end
    ? `${f.restart ? 'kubelet restarted' : what} between the scrapes at ${iso(last.timeMs)} and ${iso(f.end.timeMs)} (metrics)`
    : `metrics end while PLEG is still unhealthy (last scrape ${iso(last.timeMs)})`;
  const endAt = f.end?.timeMs ?? null;
  const ages = f.stalled.map((p) => (p.lastSeen ? (p.lastSeen.scrapeMs - p.lastSeen.valueMs) / 1000 : (p.timeMs - f.lastRelistAt) / 1000));
  return {
    lastRelistAt: f.lastRelistAt,
    thresholdSeconds: THRESHOLD_S,
    firstLineAt: first.timeMs,
    lastLineAt: last.timeMs,
    endedAt: endAt,
    endedBetween: null,
    endedBy: f.end ? (f.restart ? 'restart' : 'recovered') : 'end-of-log',
    endProof: f.bound ? `${endProof}; last relist at or before ${iso(f.lastRelistAt)} (relist count frozen)` : endProof,
    durationSeconds: Math.max(0, ((endAt ?? last.timeMs) - f.lastRelistAt) / 1000),
    maxAgeSeconds: f.maxAge,
    neverSucceeded: false,
    nodeNotReady: false,
    unhealthyLines: f.stalled.length,
    agesGrew: ages.every((a, i) => i === 0 || a >= ages[i - 1]! - 0.5),
    evidence,
    endEvidence: f.end ? evidenceOf(f.end, f, idOf) : null,
  };
}

function maxAgePoint(f: Found): Point {
  let best = f.stalled[0]!;
  for (const p of f.stalled) if (p.lastSeen && best.lastSeen && p.lastSeen.scrapeMs - p.lastSeen.valueMs > best.lastSeen.scrapeMs - best.lastSeen.valueMs) best = p;
  return best;
}

/**
 * The hook where a node's timeline is built: stalls its metrics show and its logs do not are added (sorted in), and a
 * log stall the metrics also show gains the metric sample that corroborates it. `idOf` maps a metrics file (or query)
 * to its artifact id, for evidence.
 */
/** A log stall and a metrics stall whose last relists lie this close to a whole number of half hours apart are one stall
 *  whose log times were read in the wrong zone (the metrics carry absolute times). */
const ZONE_STEP_MS = 30 * 60_000;
const ZONE_SLACK_MS = 90_000;

/** How far (ms, a multiple of 30 min) a log stall's last relist is from the metrics' one, when they are the same stall
 *  read in two zones; null when they are not. */
function zoneShift(logLastRelist: number, metricLastRelist: number): number | null {
  const d = logLastRelist - metricLastRelist;
  if (Math.abs(d) < ZONE_STEP_MS - ZONE_SLACK_MS || Math.abs(d) > 14 * 3_600_000 + ZONE_SLACK_MS) return null;
  const steps = Math.round(d / ZONE_STEP_MS);
  return Math.abs(d - steps * ZONE_STEP_MS) <= ZONE_SLACK_MS ? steps * ZONE_STEP_MS : null;
}

export function withMetricStalls(timeline: Timeline, snapshots: Snapshot[], idOf: (file: string) => number, onZoneShift?: (shiftMs: number) => void): Timeline {
  if (snapshots.length === 0) return timeline;
  const found = metricStalls(snapshots);
  if (found.length === 0) return timeline;
  const logStalls = timeline.stalls;
  const added: StallModel[] = [];
  const shifts = new Set<number>();
  for (const f of found) {
    const mine = span(f);
    const same = logStalls.find((s) => overlaps(mine, [s.lastRelistAt, s.endedAt ?? s.lastLineAt]));
    if (same) {
      const r = evidenceOf(maxAgePoint(f), f, idOf);
      if (r && !same.evidence.some((e) => e.artifact === r.artifact && e.line === r.line)) same.evidence.push(r);
      continue;
    }
    // The log's stall, hours away: the logs' zone-less times were read in another zone than the node's. One stall,
    // told once (the log's lines carry the story); the user is told how to read them right.
    const shifted = f.bound ? null : logStalls.map((s) => zoneShift(s.lastRelistAt, f.lastRelistAt)).find((x) => x !== null && x !== undefined);
    if (shifted !== null && shifted !== undefined) {
      shifts.add(shifted);
      continue;
    }
    added.push(toStall(f, idOf));
  }
  for (const x of shifts) onZoneShift?.(x);
  if (added.length === 0) return timeline;
  return { ...timeline, stalls: [...logStalls, ...added].sort((a, b) => a.lastRelistAt - b.lastRelistAt) };
}
