// The relist timeline of one node (design.md §2): stalls grouped by the back-computed last successful relist,
// NotReady windows, kubelet (re)starts. Every unhealthy line at time T saying "last seen active X ago" dates the last
// successful relist start at T − X; all lines of one stall point to (nearly) the same instant.
import type { EventOf, Ref, SignalEvent } from '../signals/events.js';

export interface StallModel {
  lastRelistAt: number;
  thresholdSeconds: number;
  firstLineAt: number;
  lastLineAt: number;
  endedAt: number | null;
  endedBy: 'recovered' | 'restart' | 'end-of-log';
  /** How the end was established, for the report ("SyncLoop (PLEG) event", "unhealthy lines stopped", …). */
  endProof: string;
  durationSeconds: number;
  maxAgeSeconds: number;
  /** The first relist never succeeded after a kubelet start (`pleg has yet to be successful` past the threshold). */
  neverSucceeded: boolean;
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
}

const GROUP_TOLERANCE_MS = 5_000;
/** The sync loop logs "skipping" at most 5 s apart while unhealthy (back-off cap): silence longer than that = healthy. */
const SKIP_CADENCE_MS = 5_000;
const PROOF_WINDOW_MS = 10_000;
const RESTART_CLUSTER_MS = 120_000;

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
}

export interface TimelineInput {
  events: SignalEvent[];
  /** Last kubelet line of this node (end of the log as far as the kubelet is concerned). */
  kubeletLast: number;
  logEnd: number;
}

export function buildTimeline(input: TimelineInput): Timeline {
  const events = [...input.events].sort(byTs);
  const restarts = buildRestarts(events);
  const unhealthy = events.filter((e): e is Unhealthy => e.type === 'relist-unhealthy');
  const startupArtefacts: Ref[] = [];

  // 1. Group lines with an age by their back-computed last relist; never-succeeded lines by the kubelet start before them.
  const groups: Group[] = [];
  for (const e of unhealthy) {
    if (e.neverSucceeded || e.ageSeconds === null) {
      const start = [...restarts].reverse().find((r) => r.at <= e.ts + 1000)?.at ?? null;
      const anchor = start ?? e.ts;
      let g = groups.find((x) => x.neverSucceeded && x.lastRelistAt === anchor);
      if (!g) {
        g = { lastRelistAt: anchor, events: [], neverSucceeded: true };
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
  const notReadyEvents = events.filter((e): e is EventOf<'node-not-ready'> => e.type === 'node-not-ready');
  const stalls: StallModel[] = [];
  const sortedGroups = groups.sort((a, b) => (a.events[0] as Unhealthy).ts - (b.events[0] as Unhealthy).ts);

  for (let gi = 0; gi < sortedGroups.length; gi++) {
    const g = sortedGroups[gi] as Group;
    const first = g.events[0] as Unhealthy;
    const last = g.events[g.events.length - 1] as Unhealthy;
    const threshold = first.thresholdSeconds;
    if (g.neverSucceeded) {
      // Start-up: only a stall when "never succeeded" outlived the threshold after the kubelet started.
      if (last.ts - g.lastRelistAt <= threshold * 1000 + SKIP_CADENCE_MS) {
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
      endedAt = last.ts + SKIP_CADENCE_MS;
      endedBy = 'recovered';
      endProof = firstProof ? `unhealthy lines stopped (next relist proof: ${firstProof.type === 'node-ready' ? 'NodeReady' : (firstProof as EventOf<'relist-proof'>).what})` : 'unhealthy lines stopped while the kubelet kept logging';
      endEvidence = firstProof?.ref ?? null;
    }
    const endForDuration = endedAt ?? Math.max(input.logEnd, last.ts);
    const nr = notReadyEvents.some((n) => n.ts >= g.lastRelistAt && n.ts <= endForDuration + 1000)
      || g.events.some((e) => e.source === 'node-condition');
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
      endedBy,
      endProof,
      durationSeconds: Math.max(0, (endForDuration - g.lastRelistAt) / 1000),
      maxAgeSeconds: g.neverSucceeded ? (last.ts - g.lastRelistAt) / 1000 : maxAge,
      neverSucceeded: g.neverSucceeded,
      nodeNotReady: nr,
      unhealthyLines: g.events.length,
      agesGrew: grew,
      evidence,
      endEvidence,
    });
  }

  return { stalls, notReady: buildNotReady(events, stalls), restarts, startupArtefacts };
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
    if (e.type === 'node-not-ready') {
      const reason = e.message ?? nearbyReason(events, e.ts) ?? 'NodeNotReady';
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
