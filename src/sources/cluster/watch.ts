// Watching nodes for the next stall: a real watch on /api/v1/nodes (resumed from the last resourceVersion when the
// stream ends, listed anew on 410 Gone, with backoff on errors), and the moment a node's Ready condition turns False or
// Unknown with a PLEG message — or, when asked, its relist stops advancing (kubelet_pleg_last_seen_seconds the same in
// two polls of its /metrics) — a capture (the caller's: collect + analyze). Bounded: one capture per node per cool-down,
// a cap on captures running at once and on the disk they use. The signal ends it.
//
// An event on the stream (one JSON line each):
//   {"type":"MODIFIED","object":{"kind":"Node","metadata":{"name":"worker-3","resourceVersion":"1012"},
//    "status":{"conditions":[{"type":"Ready","status":"False","reason":"KubeletNotReady",
//    "message":"PLEG is not healthy: pleg was last seen active 3m12s ago; threshold is 3m0s"}]}}}
import { setTimeout as sleep } from 'node:timers/promises';
import { ClusterError, type KubeClient } from './client.js';
import { isoTime, plausibleMs } from '../../util/instant.js';

export interface WatchOptions {
  client: KubeClient;
  selector?: string;
  signal: AbortSignal;
  cooldownMs: number;
  maxConcurrent: number;
  /** Bytes the captures may use in all; past it no capture starts (one line says so). */
  maxDiskBytes: number;
  /** Every this many ms, each node's relist is checked through its /metrics (0: not). */
  relistEveryMs?: number;
  /** Collects and analyzes one node; resolves to the bytes written. */
  capture: (node: string, why: string) => Promise<number>;
  say: (line: string) => void;
}

interface Ready { status: string; message: string }

/** The node's Ready condition, if it says PLEG is unhealthy (False or Unknown with a PLEG message). */
export function plegNotReady(node: Record<string, unknown>): Ready | null {
  const conditions = ((node['status'] as { conditions?: unknown } | undefined)?.conditions ?? []) as Array<{ type?: unknown; status?: unknown; message?: unknown }>;
  const ready = Array.isArray(conditions) ? conditions.find((c) => c?.type === 'Ready') : undefined;
  if (!ready || (ready.status !== 'False' && ready.status !== 'Unknown')) return null;
  const message = typeof ready.message === 'string' ? ready.message : '';
  return /PLEG is not healthy|pleg was last seen active|PLEG/.test(message) ? { status: String(ready.status), message } : null;
}

export async function watchNodes(o: WatchOptions): Promise<void> {
  const last = new Map<string, number>();
  const sick = new Set<string>();
  const running = new Set<Promise<void>>();
  let used = 0;
  let full = false;
  const q = (extra: string) => `/api/v1/nodes?${o.selector ? `labelSelector=${encodeURIComponent(o.selector)}&` : ''}${extra}`;

  /** Starts a capture, within the bounds; `why` says what was seen. Returns false when not started. */
  const trigger = (name: string, why: string): boolean => {
    const now = Date.now();
    if ((last.get(name) ?? -Infinity) + o.cooldownMs > now) {
      o.say(`${name}: ${why} — again within the cool-down: not captured`);
      return true;
    }
    if (full) return true;
    if (used >= o.maxDiskBytes) {
      full = true;
      o.say(`captures use ${Math.round(used / 1048576)} MiB, the --max-disk cap: no more captures`);
      return true;
    }
    if (running.size >= o.maxConcurrent) {
      o.say(`${name}: ${why} — but ${running.size} captures are running (the cap): not captured`);
      return false;
    }
    last.set(name, now);
    const p = o.capture(name, why).then((bytes) => {
      used += bytes;
    }, (err: Error) => o.say(`${name}: capture failed: ${err.message}`)).finally(() => running.delete(p));
    running.add(p);
    return true;
  };

  const consider = (obj: Record<string, unknown>) => {
    const name = String((obj['metadata'] as { name?: unknown } | undefined)?.name ?? '');
    if (!name) return;
    known.add(name);
    const r = plegNotReady(obj);
    if (!r) {
      sick.delete(name);
      return;
    }
    if (sick.has(name)) return;
    sick.add(name);
    if (!trigger(name, `Ready=${r.status}: ${r.message}`)) sick.delete(name);
  };

  // The relist itself, before the node turns NotReady (3 min later): kubelet_pleg_last_seen_seconds through the node
  // proxy every relistEveryMs; the same value twice in a row (the kubelet relists every second) is a relist that stopped.
  const known = new Set<string>();
  const seen = new Map<string, string>();
  /** Nodes whose relist was seen stopped, until it moves again (one capture per stop, not one per poll). */
  const stopped = new Set<string>();
  const relistPoll = async () => {
    const every = o.relistEveryMs ?? 0;
    if (every <= 0) return;
    while (!o.signal.aborted) {
      await sleep(every, undefined, { signal: o.signal }).catch(() => {});
      for (const name of known) {
        if (o.signal.aborted) break;
        if (sick.has(name)) continue;
        const a = await o.client.get(`/api/v1/nodes/${encodeURIComponent(name)}/proxy/metrics`, { maxBytes: 64 * 1024 * 1024, timeoutMs: 30_000 }).catch(() => null);
        const v = a && a.status === 200 ? /^kubelet_pleg_last_seen_seconds(?:\{[^}]*\})? (\S+)/m.exec(a.body.toString('latin1'))?.[1] ?? null : null;
        if (v === null) {
          seen.delete(name);
          continue;
        }
        if (seen.get(name) !== v) stopped.delete(name);
        else if (!stopped.has(name)) {
          const at = Number(v);
          if (trigger(name, `relist not advanced in ${Math.round(every / 1000)} s (kubelet_pleg_last_seen_seconds ${plausibleMs(at * 1000) ? isoTime(at * 1000) : v})`)) stopped.add(name);
        }
        seen.set(name, v);
      }
    }
  };
  const poller = relistPoll();

  let rv: string | null = null;
  let backoff = 1000;
  while (!o.signal.aborted) {
    try {
      if (rv === null) {
        const list = await o.client.get(q('limit=500'), { maxBytes: 64 * 1024 * 1024 });
        if (list.status !== 200) throw new ClusterError(list.url, `HTTP ${list.status}: ${list.message ?? 'list refused'}`);
        const doc = JSON.parse(list.body.toString('utf8')) as { metadata?: { resourceVersion?: string }; items?: Array<Record<string, unknown>> };
        for (const n of doc.items ?? []) consider(n);
        rv = doc.metadata?.resourceVersion ?? '0';
      }
      let gone = false;
      const began = Date.now();
      await o.client.watch(q(`watch=true&allowWatchBookmarks=true&timeoutSeconds=300&resourceVersion=${encodeURIComponent(rv)}`), (e) => {
        const v = (e.object['metadata'] as { resourceVersion?: unknown } | undefined)?.resourceVersion;
        if (e.type === 'ERROR') {
          // 410 Gone: the resourceVersion is too old; list again.
          gone = true;
          return;
        }
        if (typeof v === 'string') rv = v;
        if (e.type === 'ADDED' || e.type === 'MODIFIED') consider(e.object);
        if (e.type === 'DELETED') sick.delete(String((e.object['metadata'] as { name?: unknown } | undefined)?.name ?? ''));
      }, o.signal);
      if (gone) rv = null;
      if (Date.now() - began < 1000) {
        // Ended at once: not resumed in a tight loop.
        await sleep(backoff, undefined, { signal: o.signal }).catch(() => {});
        backoff = Math.min(backoff * 2, 60_000);
      } else backoff = 1000;
    } catch (err) {
      if (o.signal.aborted) break;
      o.say(`watch: ${(err as Error).message}; again in ${backoff / 1000} s`);
      await sleep(backoff, undefined, { signal: o.signal }).catch(() => {});
      backoff = Math.min(backoff * 2, 60_000);
      if (err instanceof ClusterError && /HTTP 410/.test(err.message)) rv = null;
    }
  }
  await poller;
  await Promise.allSettled(running);
}
