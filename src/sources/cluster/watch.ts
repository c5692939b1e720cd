// Watching nodes for the next stall: a real watch on /api/v1/nodes (resumed from the last resourceVersion when the
// stream ends, listed anew on 410 Gone, with backoff on errors), and the moment a node's Ready condition turns False or
// Unknown with a PLEG message, a capture (the caller's: collect + analyze). Bounded: one capture per node per cool-down,
// a cap on captures running at once and on the disk they use. The signal ends it.
//
// An event on the stream (one JSON line each):
//   {"type":"MODIFIED","object":{"kind":"Node","metadata":{"name":"worker-3","resourceVersion":"1012"},
//    "status":{"conditions":[{"type":"Ready","status":"False","reason":"KubeletNotReady",
//    "message":"PLEG is not healthy: pleg was last seen active 3m12s ago; threshold is 3m0s"}]}}}
import { setTimeout as sleep } from 'node:timers/promises';
import { ClusterError, type KubeClient } from './client.js';

export interface WatchOptions {
  client: KubeClient;
  selector?: string;
  signal: AbortSignal;
  cooldownMs: number;
  maxConcurrent: number;
  /** Bytes the captures may use in all; past it no capture starts (one line says so). */
  maxDiskBytes: number;
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

  const consider = (obj: Record<string, unknown>) => {
    const name = String((obj['metadata'] as { name?: unknown } | undefined)?.name ?? '');
    if (!name) return;
    const r = plegNotReady(obj);
    if (!r) {
      sick.delete(name);
      return;
    }
    if (sick.has(name)) return;
    sick.add(name);
    const now = Date.now();
    if ((last.get(name) ?? -Infinity) + o.cooldownMs > now) {
      o.say(`${name}: Ready=${r.status} (PLEG) again within the cool-down: not captured`);
      return;
    }
    if (full) return;
    if (used >= o.maxDiskBytes) {
      full = true;
      o.say(`captures use ${Math.round(used / 1048576)} MiB, the --max-disk cap: no more captures`);
      return;
    }
    if (running.size >= o.maxConcurrent) {
      o.say(`${name}: Ready=${r.status} (PLEG), but ${running.size} captures are running (the cap): not captured`);
      sick.delete(name);
      return;
    }
    last.set(name, now);
    const p = o.capture(name, `Ready=${r.status}: ${r.message}`).then((bytes) => {
      used += bytes;
    }, (err: Error) => o.say(`${name}: capture failed: ${err.message}`)).finally(() => running.delete(p));
    running.add(p);
  };

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
  await Promise.allSettled(running);
}
