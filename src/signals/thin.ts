// Memory that does not grow with matched lines: a dense run of the same kind of line (100 MB of "PLEG is not healthy",
// of the same CRI error, of "Node became not ready") is kept as a few events per time bucket plus one that stands for
// the rest (`n`: how many lines it counts, itself included), carrying the newest of them — so counts stay exact (sums
// of `n`), a run's first and last lines stay exact, and what a report cites is a real line.
//
// Ordinary logs are not touched: nothing is folded before a file has given 20 000 events (an incident's journal gives a
// few thousand). Past that, a kind of line (one host, one kind) keeps KEEP lines per bucket and folds the rest; the
// buckets are one second wide, and widen as the file gives more, so no file, however long, holds more than a bounded
// number of events per kind and hour.
import type { SignalEvent, SignalType } from './events.js';

/** Lines of one kind kept whole per bucket; the ones after them fold into one more event. */
const KEEP = 3;
/** Bucket widths (ms) by the events the file has given so far: none folded below the first step. */
const STEPS: ReadonlyArray<readonly [events: number, bucketMs: number]> = [[20_000, 0], [50_000, 1_000], [100_000, 10_000], [150_000, 60_000], [Infinity, 600_000]];

/** Kinds of line that can come by the hundred thousand, and what tells two of one kind apart for the rules. */
const KIND: Partial<Record<SignalType, (e: SignalEvent) => string>> = {
  'relist-unhealthy': (e) => (e.type === 'relist-unhealthy' ? `${e.source}|${e.runtimeDown}|${e.neverSucceeded}` : ''),
  'sync-skipped': (e) => (e.type === 'sync-skipped' ? e.reason.slice(0, 60) : ''),
  'node-not-ready': () => '',
  'node-ready': () => '',
  'relist-failed': (e) => (e.type === 'relist-failed' ? String(e.code) : ''),
  'cri-error': (e) => (e.type === 'cri-error' ? `${e.op}|${e.code}|${e.layer}` : ''),
  'runtime-down': (e) => (e.type === 'runtime-down' ? e.reason.slice(0, 40) : ''),
  'cni-error': (e) => (e.type === 'cni-error' ? `${e.phase}|${e.timeout}` : ''),
  'cni-call': (e) => (e.type === 'cni-call' ? e.phase : ''),
  'event-channel-full': () => '',
  'pod-inspect-failed': (e) => (e.type === 'pod-inspect-failed' ? String(e.code) : ''),
  'nfs-not-responding': (e) => (e.type === 'nfs-not-responding' ? e.server.slice(0, 60) : ''),
  'netdev-unregister': () => '',
  'timeout-other': (e) => (e.type === 'timeout-other' ? e.target : ''),
  'pid-exhaustion': () => '',
  'slow-disk-usage': () => '',
  'runtime-daemon-error': (e) => (e.type === 'runtime-daemon-error' ? e.kind : ''),
  eviction: () => '',
  'housekeeping-slow': () => '',
  'network-not-ready': () => '',
  'node-status-update-failed': () => '',
  'grpc-size-limit': () => '',
  'kernel-io-frame': (e) => (e.type === 'kernel-io-frame' ? e.fn.slice(0, 60) : ''),
  'healthz-failed': (e) => (e.type === 'healthz-failed' ? e.check : ''),
  'clock-change': () => '',
  custom: (e) => (e.type === 'custom' ? e.signal : ''),
};

interface Run {
  bucket: number;
  kept: number;
  /** Index (in the events) of the event that stands for the lines past KEEP in this bucket, or -1. */
  tail: number;
}

/** Adds events to a file's list, folding dense runs (see the top of this file). */
export class Thinner {
  private readonly runs = new Map<string, Run>();
  /** Lines folded into another event so far. */
  folded = 0;

  constructor(private readonly events: SignalEvent[]) {}

  add(e: SignalEvent): void {
    const kind = KIND[e.type];
    const n = this.events.length;
    let width = 0;
    for (const [upTo, ms] of STEPS) {
      if (n < upTo) {
        width = ms;
        break;
      }
    }
    if (width === 0 || !kind || Number.isNaN(e.ts)) {
      this.events.push(e);
      return;
    }
    const bucket = Math.floor(e.ts / width);
    const key = `${e.type}\u0000${e.host ?? ''}\u0000${kind(e)}`;
    let run = this.runs.get(key);
    if (!run || run.bucket !== bucket) {
      run = { bucket, kept: 0, tail: -1 };
      this.runs.set(key, run);
    }
    if (run.kept < KEEP) {
      run.kept++;
      this.events.push(e);
    } else if (run.tail < 0) {
      run.tail = n;
      this.events.push(e);
    } else {
      // The newest line stands for the run's last ones: its text and time, their count.
      const prev = this.events[run.tail] as SignalEvent;
      e.n = (prev.n ?? 1) + 1;
      this.events[run.tail] = e;
      this.folded++;
    }
  }
}
