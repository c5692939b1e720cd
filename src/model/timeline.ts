// The relist timeline of one node (design.md §2): stalls grouped by the back-computed last successful relist,
// NotReady windows, kubelet (re)starts. Every unhealthy line at time T saying "last seen active X ago" dates the last
// successful relist start at T − X; all lines of one stall point to (nearly) the same instant.
import { lineCount, type EventOf, type Ref, type SignalEvent } from '../signals/events.js';
import { isoTime, possibleAge } from '../util/instant.js';

export interface StallModel {
  /** NaN when no line of the stall carries a time (a pasted fragment): then only its ages say how long it lasted. */
  lastRelistAt: number;
  thresholdSeconds: number;
  firstLineAt: number;
  lastLineAt: number;
  endedAt: number | null;
  /** When no line says when it ended, only that it had by some time: between the last unhealthy line and the first line
   *  after it that shows the kubelet working (null when the log says nothing more). `endedAt` is then null. */
  endedBetween: { from: number; to: number | null } | null;
  endedBy: 'recovered' | 'restart' | 'end-of-log' | 'unknown';
  /** How the end was established, for the report ("SyncLoop (PLEG) event", "unhealthy lines stopped", …). */
  endProof: string;
  durationSeconds: number;
  maxAgeSeconds: number;
  /** The first relist never succeeded after a kubelet start (`pleg has yet to be successful` past the threshold). */
  neverSucceeded: boolean;
  /** A relist that never succeeded since a kubelet start the input does not show: when relist last worked is unknown
   *  (`lastRelistAt` is then the first line, and the duration a lower bound). */
  sinceUnknown?: boolean;
  nodeNotReady: boolean;
  unhealthyLines: number;
  /** Ages grew steadily across the stall (relist never returned) rather than resetting. */
  agesGrew: boolean;
  evidence: Ref[];
  endEvidence: Ref | null;
}

export interface NotReadyModel {
  from: number;
  to: number | null;
  reason: string;
  plegReason: boolean;
  evidence: Ref[];
}

export interface RestartModel {
  at: number;
  version: string | null;
  evidence: Ref[];
}

export interface Timeline {
  stalls: StallModel[];
  notReady: NotReadyModel[];
  restarts: RestartModel[];
  /** Start-up artefacts (`pleg has yet to be successful`, the ≤1.12 sentinel) that resolved within the threshold. */
  startupArtefacts: Ref[];
  /** Node conditions (a Node object, `kubectl describe node`) that the log contradicts: a relist the kubelet logged
   *  inside the time the condition calls stale, or a NodeReady after it. They make no stall of their own. */
  disagreements: Array<{ ref: Ref; reason: string }>;
}

const GROUP_TOLERANCE_MS = 5_000;
/** The sync loop logs "skipping" at most 5 s apart while unhealthy (back-off cap): silence longer than that = healthy. */
const SKIP_CADENCE_MS = 5_000;
const PROOF_WINDOW_MS = 10_000;
const RESTART_CLUSTER_MS = 120_000;
/** "Never succeeded" lines this close together, with no kubelet start between them, are one start-up that lasts. */
const NEVER_GAP_MS = 10 * 60_000;
/** Never-succeeded lines spanning this long, with no kubelet start in the input, are no start-up. */
const NEVER_SPAN_MS = 10_000;

type Unhealthy = EventOf<'relist-unhealthy'>;

function byTs<T extends { ts: number }>(a: T, b: T): number {
  return a.ts - b.ts || (a as unknown as { ref: Ref }).ref.line - (b as unknown as { ref: Ref }).ref.line;
}

/** Groups restart markers (version line, "Started kubelet", systemd start/stop, PID change) into restarts. */
export function buildRestarts(events: SignalEvent[]): RestartModel[] {
  const marks = events.filter((e): e is EventOf<'kubelet-start'> | EventOf<'kubelet-line'> =>
    e.type === 'kubelet-start' || e.type === 'kubelet-line').sort(byTs);
  const out: RestartModel[] = [];
  for (const m of marks) {
    const prev = out[out.length - 1];
    const version = m.type === 'kubelet-start' ? m.version : null;
    if (prev && m.ts - prev.at <= RESTART_CLUSTER_MS && !(m.type === 'kubelet-start' && m.marker === 'systemd-stop' && prev.evidence.length > 1)) {
      prev.version = prev.version ?? version;
      if (prev.evidence.length < 4) prev.evidence.push(m.ref);
      continue;
    }
    out.push({ at: m.ts, version, evidence: [m.ref] });
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

interface Group {
  lastRelistAt: number;
  events: Unhealthy[];
  neverSucceeded: boolean;
  /** Never-succeeded lines whose kubelet start is not in the input: how long since the start is not known. */
  startUnknown?: boolean;
}

export interface TimelineInput {
  events: SignalEvent[];
  /** Last kubelet line of this node (end of the log as far as the kubelet is concerned). */
  kubeletLast: number;
  logEnd: number;
  /** Where the node's logs start, and whether the kubelet's own log is among them (NaN / false: it is not). */
  logStart?: number;
  kubeletLog?: boolean;
}

export function buildTimeline(input: TimelineInput): Timeline {
  const events = [...input.events].sort(byTs);
  const restarts = buildRestarts(events.filter((e) => !Number.isNaN(e.ts)));
  const startupArtefacts: Ref[] = [];
  const disagreements: Timeline['disagreements'] = [];
  const proofTimes = events.filter((e) => (e.type === 'relist-proof' || e.type === 'node-ready') && !Number.isNaN(e.ts) && !isSecondHand(e)).map((e) => e.ts);
  // An age no kubelet prints (a condition or dump read from a document; log lines are dropped, and said, as read).
  const all = events.filter((e): e is Unhealthy => e.type === 'relist-unhealthy' && possibleAge(e.ageSeconds, e.ts));
  const datedAges = new Set(all.filter((e) => !Number.isNaN(e.ts) && e.ageSeconds !== null).map((e) => ageKey(e.ageSeconds as number)));
  const unhealthy: Unhealthy[] = [];
  const undated: Unhealthy[] = [];
  const firstHand = all.filter((e) => e.source !== 'api-condition' && !Number.isNaN(e.ts)).map((e) => e.ts);
  for (const e of all) {
    if (e.source === 'api-condition' && e.ageSeconds !== null && !Number.isNaN(e.ts)) {
      // A condition at second hand: a relist the kubelet itself logged inside the time it calls stale refutes it; so does
      // a kubelet log that covers the time it calls unhealthy and never says so (the sync loop says it every few seconds).
      const from = e.ts - e.ageSeconds * 1000 + 1000;
      const unhealthyFrom = from - 1000 + e.thresholdSeconds * 1000;
      const refuting = proofTimes.find((t) => t > from && t <= e.ts);
      const covered = input.kubeletLog === true && (input.logStart ?? Infinity) <= unhealthyFrom && input.kubeletLast >= e.ts;
      const silent = covered && !firstHand.some((t) => t >= unhealthyFrom - SKIP_CADENCE_MS && t <= e.ts + SKIP_CADENCE_MS);
      if (refuting !== undefined || silent) {
        disagreements.push({
          ref: e.ref,
          reason: refuting !== undefined
            ? `the node condition says no relist succeeded for ${Math.round(e.ageSeconds)} s before ${isoTime(e.ts)}, but the kubelet log shows one at ${isoTime(refuting)}`
            : `the node condition says PLEG was unhealthy from ${isoTime(unhealthyFrom)} to ${isoTime(e.ts)}, but the kubelet's log covers that time and never says so`,
        });
        continue;
      }
    }
    if (!Number.isNaN(e.ts)) unhealthy.push(e);
    else if (e.neverSucceeded || e.ageSeconds === null) startupArtefacts.push(e.ref);
    // The same report pasted twice (a log line and the describe output quoting it): one stall, the dated one.
    else if (!datedAges.has(ageKey(e.ageSeconds))) undated.push(e);
  }

  // 1. Group lines with an age by their back-computed last relist; never-succeeded lines by the kubelet start before them.
  const groups: Group[] = [];
  for (const e of unhealthy) {
    if (e.neverSucceeded || e.ageSeconds === null) {
      // The kubelet's start: from the line itself (`m=+0.4`, its uptime), else the restart before it, else the line.
      const start = e.uptimeSeconds !== null ? e.ts - e.uptimeSeconds * 1000 : [...restarts].reverse().find((r) => r.at <= e.ts + 1000)?.at ?? null;
      // With no start in the input, lines that keep saying it belong to the group they continue.
      const open = start === null ? [...groups].reverse().find((x) => x.neverSucceeded && e.ts - (x.events[x.events.length - 1] as Unhealthy).ts <= NEVER_GAP_MS) : undefined;
      const anchor = start ?? open?.lastRelistAt ?? e.ts;
      let g = groups.find((x) => x.neverSucceeded && Math.abs(x.lastRelistAt - anchor) <= GROUP_TOLERANCE_MS);
      if (!g) {
        g = { lastRelistAt: anchor, events: [], neverSucceeded: true, ...(start === null && !open ? { startUnknown: true } : {}) };
        groups.push(g);
      }
      g.events.push(e);
      continue;
    }
    const L = e.ts - e.ageSeconds * 1000;
    let g: Group | undefined;
    for (let i = groups.length - 1; i >= 0; i--) {
      const x = groups[i] as Group;
      if (!x.neverSucceeded && Math.abs(x.lastRelistAt - L) <= GROUP_TOLERANCE_MS) {
        g = x;
        break;
      }
    }
    if (!g) {
      g = { lastRelistAt: L, events: [], neverSucceeded: false };
      groups.push(g);
    }
    g.events.push(e);
  }
  for (const g of groups) {
    if (!g.neverSucceeded) g.lastRelistAt = median(g.events.map((e) => e.ts - (e.ageSeconds as number) * 1000));
  }

  const proofs = events.filter((e) => e.type === 'relist-proof' || e.type === 'node-ready');
  const gaps = events.filter((e) => e.type === 'gap' && !Number.isNaN(e.ts)).map((e) => e.ts);
  const notReadyEvents = events.filter((e): e is EventOf<'node-not-ready'> => e.type === 'node-not-ready');
  const stalls: StallModel[] = [];
  const sortedGroups = groups.sort((a, b) => (a.events[0] as Unhealthy).ts - (b.events[0] as Unhealthy).ts);

  for (let gi = 0; gi < sortedGroups.length; gi++) {
    const g = sortedGroups[gi] as Group;
    const first = g.events[0] as Unhealthy;
    const last = g.events[g.events.length - 1] as Unhealthy;
    const threshold = first.thresholdSeconds;
    if (g.neverSucceeded) {
      // Start-up: only a stall when "never succeeded" outlived the threshold after the kubelet started. With no start in
      // the input, lines that keep saying it for longer than a start-up takes (the first relist ends within a second or
      // two) are a relist that never succeeded, not a start-up: at least as long as they span.
      const startup = g.startUnknown ? last.ts - first.ts < NEVER_SPAN_MS : last.ts - g.lastRelistAt <= threshold * 1000 + SKIP_CADENCE_MS;
      if (startup) {
        startupArtefacts.push(first.ref);
        continue;
      }
    }
    const ages = g.events.filter((e) => e.ageSeconds !== null).map((e) => e.ageSeconds as number);
    const maxAge = ages.length ? ages.reduce((m, x) => Math.max(m, x), -Infinity) : (last.ts - g.lastRelistAt) / 1000;

    // 2. Where did it end?
    const firstProof = proofs.find((p) => p.ts > last.ts) ?? null;
    const nextGroup = sortedGroups.slice(gi + 1).find((x) => !x.neverSucceeded && x.lastRelistAt > last.ts);
    const restart = restarts.find((r) => r.at > last.ts - 1000 && r.at > first.ts) ?? null;
    let endedAt: number | null = null;
    let endedBetween: StallModel['endedBetween'] = null;
    let endedBy: StallModel['endedBy'] = 'end-of-log';
    let endProof = 'log ends while PLEG is still unhealthy';
    let endEvidence: Ref | null = null;
    // A restart right after the last unhealthy line ended it; else the first proof of a working relist; else the
    // next stall's own last relist (a relist that started then succeeded); else, if the kubelet kept logging without
    // complaining, it recovered within one skip interval.
    const proofTs = firstProof ? firstProof.ts : Infinity;
    const nextTs = nextGroup && (!firstProof || nextGroup.lastRelistAt <= firstProof.ts) ? nextGroup.lastRelistAt : Infinity;
    if (restart && restart.at <= last.ts + 60_000 && restart.at <= Math.min(proofTs, nextTs)) {
      endedAt = restart.at;
      endedBy = 'restart';
      endProof = 'kubelet restarted';
      endEvidence = restart.evidence[0] ?? null;
    } else if (firstProof && proofTs <= last.ts + PROOF_WINDOW_MS && proofTs <= nextTs) {
      endedAt = proofTs;
      endedBy = 'recovered';
      endProof = firstProof.type === 'node-ready' ? 'node reported Ready' : (firstProof as EventOf<'relist-proof'>).what;
      endEvidence = firstProof.ref;
    } else if (Number.isFinite(nextTs)) {
      endedAt = nextTs;
      endedBy = 'recovered';
      endProof = 'a later relist succeeded (the next stall counts from it)';
      endEvidence = nextGroup?.events[0]?.ref ?? null;
    } else if (input.kubeletLast > last.ts + PROOF_WINDOW_MS) {
      // The unhealthy lines stopped while the kubelet kept logging. No line says exactly when it ended: after the last
      // of them and before the next line that shows the kubelet at work (a relist proof, else any later line of this
      // node) — both times in the input, kept as `endedBetween`. `endedAt` is an estimate inside that range: the sync
      // loop repeats "Skipping pod synchronization" at most 5 s apart while PLEG is unhealthy, so it ended by then.
      const next = firstProof?.ts ?? events.find((e) => e.ts > last.ts + SKIP_CADENCE_MS)?.ts ?? null;
      endedAt = Math.min(last.ts + SKIP_CADENCE_MS, next ?? Infinity);
      endedBetween = { from: last.ts, to: next };
      endedBy = 'recovered';
      endProof = firstProof
        ? `unhealthy lines stopped; next relist proof: ${firstProof.type === 'node-ready' ? 'NodeReady' : (firstProof as EventOf<'relist-proof'>).what}`
        : 'unhealthy lines stopped while the kubelet kept logging';
      endEvidence = firstProof?.ref ?? null;
    }
    // Lines left out after the last unhealthy one (a `...` in a paste): whatever the log shows later cannot say when
    // this stall ended.
    if (gaps.some((t) => t >= last.ts && (endedAt === null || t < endedAt))) {
      endedAt = null;
      endedBetween = null;
      endedBy = 'unknown';
      endProof = 'lines were left out after the last unhealthy line: the end is not in the input';
      endEvidence = null;
    }
    // Without an exact end, the duration is what the input proves: at least until the last unhealthy line.
    const endForDuration = endedAt ?? (endedBy === 'unknown' ? g.lastRelistAt + maxAge * 1000 : endedBetween ? endedBetween.from : Math.max(input.logEnd, last.ts));
    const nr = notReadyEvents.some((n) => n.ts >= g.lastRelistAt && n.ts <= endForDuration + 1000)
      || g.events.some((e) => e.source === 'node-condition' || e.source === 'api-condition');
    let grew = false;
    if (ages.length >= 2) {
      grew = ages.every((a, i) => i === 0 || a >= (ages[i - 1] as number) - 0.5);
    }
    const evidence = pickEvidence(g.events);
    stalls.push({
      lastRelistAt: g.lastRelistAt,
      thresholdSeconds: threshold,
      firstLineAt: first.ts,
      lastLineAt: last.ts,
      endedAt,
      endedBetween,
      endedBy,
      endProof,
      durationSeconds: Math.max(0, (endForDuration - g.lastRelistAt) / 1000),
      maxAgeSeconds: g.neverSucceeded ? (last.ts - g.lastRelistAt) / 1000 : maxAge,
      neverSucceeded: g.neverSucceeded,
      ...(g.startUnknown ? { sinceUnknown: true } : {}),
      nodeNotReady: nr,
      unhealthyLines: lineCount(g.events),
      agesGrew: grew,
      evidence,
      endEvidence,
    });
  }

  if (undated.length > 0) stalls.push(undatedStall(undated, events));
  return { stalls, notReady: buildNotReady(events.filter((e) => !Number.isNaN(e.ts)), stalls), restarts, startupArtefacts, disagreements };
}

/** Ages compared to the microsecond: the same line pasted in two places states the same age. */
function ageKey(seconds: number): number {
  return Math.round(seconds * 1e6);
}

/** Evidence the API server holds (a Node object, describe output) rather than the kubelet's own log. */
function isSecondHand(e: SignalEvent): boolean {
  return e.type === 'relist-unhealthy' && e.source === 'api-condition';
}

/**
 * Unhealthy lines with no time (a fragment pasted without its header): one stall, as long as the largest age they state
 * at least, that ends where the input does. When to place it is not known.
 */
function undatedStall(evs: Unhealthy[], events: SignalEvent[]): StallModel {
  const ages = evs.map((e) => e.ageSeconds as number);
  let maxAge = -Infinity;
  for (const a of ages) if (a > maxAge) maxAge = a;
  return {
    lastRelistAt: NaN,
    thresholdSeconds: (evs[0] as Unhealthy).thresholdSeconds,
    firstLineAt: NaN,
    lastLineAt: NaN,
    endedAt: null,
    endedBetween: null,
    endedBy: 'end-of-log',
    endProof: 'the lines carry no time: how it ended is not in the input',
    durationSeconds: maxAge,
    maxAgeSeconds: maxAge,
    neverSucceeded: false,
    nodeNotReady: evs.some((e) => e.source === 'node-condition' || e.source === 'api-condition') || events.some((e) => e.type === 'node-not-ready' && Number.isNaN(e.ts)),
    unhealthyLines: lineCount(evs),
    agesGrew: ages.length >= 2 && ages.every((a, i) => i === 0 || a >= (ages[i - 1] as number) - 0.5),
    evidence: pickEvidence(evs),
    endEvidence: null,
  };
}

/** First, largest-age and last line of a stall: the three lines that date it. */
function pickEvidence(evs: Unhealthy[]): Ref[] {
  const first = evs[0] as Unhealthy;
  const last = evs[evs.length - 1] as Unhealthy;
  let max = first;
  for (const e of evs) if ((e.ageSeconds ?? 0) > (max.ageSeconds ?? 0)) max = e;
  const out = [first.ref];
  if (max !== first && max !== last) out.push(max.ref);
  if (last !== first) out.push(last.ref);
  return out;
}

function buildNotReady(events: SignalEvent[], stalls: StallModel[]): NotReadyModel[] {
  const out: NotReadyModel[] = [];
  let open: NotReadyModel | null = null;
  for (const e of events) {
    if (e.type === 'node-not-ready' || e.type === 'node-status-unknown') {
      const reason = e.type === 'node-status-unknown' ? 'Kubelet stopped posting node status (the node controller set Ready Unknown)' : e.message ?? nearbyReason(events, e.ts) ?? 'NodeNotReady';
      if (open) {
        if (open.reason === 'NodeNotReady' && reason !== 'NodeNotReady') open.reason = reason;
        if (open.evidence.length < 3) open.evidence.push(e.ref);
        continue;
      }
      open = { from: e.ts, to: null, reason, plegReason: /PLEG/.test(reason), evidence: [e.ref] };
      out.push(open);
    } else if (e.type === 'node-ready' && open) {
      open.to = e.ts;
      open.evidence.push(e.ref);
      open = null;
    }
  }
  for (const w of out) {
    if (!w.plegReason) {
      const end = w.to ?? Infinity;
      w.plegReason = stalls.some((s) => s.lastRelistAt + s.thresholdSeconds * 1000 <= end && (s.endedAt ?? Infinity) >= w.from && /NodeNotReady/.test(w.reason));
      if (w.plegReason && w.reason === 'NodeNotReady') w.reason = 'PLEG is not healthy';
    }
  }
  return out;
}

/** The reason printed around a NodeNotReady record that did not carry one (the `Recording … event` form). */
function nearbyReason(events: SignalEvent[], ts: number): string | null {
  let best: string | null = null;
  let bestD = 15_000;
  for (const e of events) {
    const d = Math.abs(e.ts - ts);
    if (d > bestD) continue;
    if (e.type === 'relist-unhealthy') {
      best = e.neverSucceeded ? 'PLEG is not healthy: pleg has yet to be successful' : `PLEG is not healthy: pleg was last seen active ${Math.floor((e.ageSeconds ?? 0) / 60)}m${Math.round((e.ageSeconds ?? 0) % 60)}s ago`;
      bestD = d;
    } else if (e.type === 'sync-skipped') {
      best = e.reason;
      bestD = d;
    }
  }
  return best;
}
