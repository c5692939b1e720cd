// Per-operation CRI errors from the logs. The same failed call is often logged twice — by the CRI client
// (`ListPodSandbox with filter nil from runtime service failed`) and by its kuberuntime caller (`ListPodSandbox failed`)
// — so an operation is counted from the client layer when it logs that operation at all, else from the caller layer
// (PodSandboxStatus errors, for one, are never logged by the client).
import type { CriCode, EventOf, Ref, SignalEvent } from '../signals/events.js';

export interface CriOpLog {
  operation: string;
  errors: number;
  timeouts: number;
  codes: Partial<Record<Exclude<CriCode, null> | 'none', number>>;
  first: number;
  last: number;
  /** Per container/sandbox ID (for per-ID operations): how often it failed. */
  ids: Map<string, { count: number; timeouts: number; pod: string | null; first: Ref }>;
  evidence: Ref[];
}

type CriError = EventOf<'cri-error'>;

export function criFromLogs(events: SignalEvent[]): CriOpLog[] {
  const errs = events.filter((e): e is CriError => e.type === 'cri-error');
  const clientOps = new Set(errs.filter((e) => e.layer === 'client').map((e) => e.op));
  const byOp = new Map<string, CriOpLog>();
  for (const e of errs) {
    if (e.layer === 'caller' && clientOps.has(e.op)) continue;
    let o = byOp.get(e.op);
    if (!o) {
      o = { operation: e.op, errors: 0, timeouts: 0, codes: {}, first: e.ts, last: e.ts, ids: new Map(), evidence: [] };
      byOp.set(e.op, o);
    }
    // An event of a folded dense run counts its lines (signals/thin.ts).
    const w = e.n ?? 1;
    o.errors += w;
    const code = e.code ?? 'none';
    o.codes[code] = (o.codes[code] ?? 0) + w;
    if (e.code === 'DeadlineExceeded') o.timeouts += w;
    o.first = Math.min(o.first, e.ts);
    o.last = Math.max(o.last, e.ts);
    const id = e.containerId ?? e.sandboxId;
    if (id) {
      const cur = o.ids.get(id);
      if (cur) {
        cur.count += w;
        if (e.code === 'DeadlineExceeded') cur.timeouts += w;
        cur.pod = cur.pod ?? e.pod;
      } else {
        o.ids.set(id, { count: w, timeouts: e.code === 'DeadlineExceeded' ? w : 0, pod: e.pod, first: e.ref });
      }
    }
    if (o.evidence.length < 6) o.evidence.push(e.ref);
  }
  return [...byOp.values()].sort((a, b) => a.operation.localeCompare(b.operation));
}
