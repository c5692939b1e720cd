// Memory that does not grow with matched lines: a dense run of the same kind of line (100 MB of "PLEG is not healthy",
// of the same CRI error, of "Node became not ready") is kept as a few events per time bucket plus one that stands for
// the rest (`n`: how many lines it counts, itself included), carrying the newest of them — so counts stay exact (sums
// of `n`), a run's first and last lines stay exact, and what a report cites is a real line.
//
// Ordinary logs are not touched: nothing is folded before a file has given 20 000 events (an incident's journal gives a
// few thousand). Past that, a kind of line (one host, one kind) keeps KEEP lines per bucket and folds the rest; the
// buckets are one second wide, and widen as the file gives more, so no file, however long, holds more than a bounded
// number of events per kind and hour. Kinds are keyed by what the rules tell apart, never by a name a line carries
// (an NFS server, a hung task, an OOM victim): a log naming a new one on every line folds like any other.
import { isRuntimeProcess, type SignalEvent, type SignalType } from './events.js';

/** Lines of one kind kept whole per bucket; the ones after them fold into one more event. */
const KEEP = 3;
/** Bucket widths (ms) by the events the file has given so far: none folded below the first step. The widths grow
 *  quickly past it: a dense 2 GiB journal read by two threads peaked at 186–190 MB RSS with widths of 1 s to 50 000
 *  events, 10 s to 100 000 and 60 s to 150 000, and at 155 MB with these (two dense 1 GiB journals: 188 MB), for the
 *  same report. */
const STEPS: ReadonlyArray<readonly [events: number, bucketMs: number]> = [[20_000, 0], [25_000, 1_000], [30_000, 10_000], [40_000, 60_000], [Infinity, 600_000]];

/** Kinds of line that can come by the hundred thousand, and what tells two of one kind apart for the rules. */
const KIND: Partial<Record<SignalType, (e: EventDraft) => string>> = {
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
  // Kernel lines that name a server, a task or a victim: keyed by what the rules tell apart (a runtime process or not;
  // a kill's two lines), never by the name itself, or a log naming a new one on every line would fold nothing.
  'nfs-not-responding': () => '',
  'hung-task': (e) => (e.type === 'hung-task' && isRuntimeProcess(e.task) ? 'runtime' : ''),
  'oom-kill': (e) => (e.type === 'oom-kill' ? `${e.killed}|${isRuntimeProcess(e.process)}` : ''),
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

/** What a matcher says of a line before it becomes an event: the event without its line (time, host, ref). */
export type EventDraft = SignalEvent extends infer E ? (E extends SignalEvent ? Omit<E, 'ts' | 'host' | 'ref' | 'n'> : never) : never;

/** Makes the event of a draft from the line it came from (`src`): called only for the events that are kept. */
export type BuildEvent<S> = (d: EventDraft, host: string | null, src: S) => SignalEvent;

/** Bucket width (ms) once the file has given `n` events (0: nothing folded yet). */
function widthAt(n: number): number {
  for (let i = 0; i < STEPS.length; i++) {
    const step = STEPS[i] as readonly [number, number];
    if (n < step[0]) return step[1];
  }
  return 0;
}

/** The key of a draft's run: its type, host and kind; null for a type never folded. */
export function runKey(d: EventDraft, host: string | null): string | null {
  const kind = KIND[d.type];
  return kind ? `${d.type}\u0000${host ?? ''}\u0000${kind(d)}` : null;
}

/** A line folded without being read or decoded (Thinner.foldUnread), kept as its template and the bytes it differs in: the
 *  newest of a run's is decoded only when its bucket ends. (templates.ts Template has this shape.) */
export interface LineShape {
  /** Bytes capture() keeps of a line. */
  readonly differing: number;
  capture(b: Uint8Array, from: number, into: Uint8Array): void;
  textOf(held: Uint8Array): string;
}

/** Remakes the event of a line folded without being read (foldUnread): its run's key, text, line number, offset and time
 *  (null: the line no longer gives an event of that run). */
export type Rebuild = (key: string, text: string, line: number, offset: number, ts: number) => SignalEvent | null;

const NO_BYTES = new Uint8Array(0);

/** One kind of line (type, host, kind) in its current bucket. */
class Run {
  kept = 0;
  /** Index (in the events) of the event that stands for the lines past KEEP in this bucket, or -1. */
  tail = -1;
  /** Lines the tail stands for so far. */
  count = 0;
  /** The newest line folded into the tail, not made into an event yet (settle()): only the last one of a bucket is. */
  draft: EventDraft | null = null;
  host: string | null = null;
  src: unknown = null;
  build: BuildEvent<unknown> | null = null;
  /** Or the newest line folded unread (foldUnread): its shape and the bytes it differs in, remade by the thinner's
   *  `rebuild` when the bucket ends. */
  lazy: LineShape | null = null;
  lazyHeld: Uint8Array = NO_BYTES;
  lazyLine = 0;
  lazyOffset = 0;
  lazyTs = NaN;
  constructor(readonly key: string, readonly bucket: number) {}
}

/** Adds events to a file's list, folding dense runs (see the top of this file). A folded line costs a count and three
 *  references: its event is made only if it is still the newest of its run when the bucket ends (settle). */
export class Thinner {
  private readonly runs = new Map<string, Run>();
  /** Lines folded into another event so far. */
  folded = 0;
  /** The last key looked up, its parts and its run. */
  private lastType = '';
  private lastHost: string | null = null;
  private lastKind = '';
  private lastKey = '';
  private lastRun: Run | undefined = undefined;

  /** `parts`: the file is cut into so many ranges, each thinned on its own: each steps as if it held that many times
   *  its events, so that the whole file keeps what one pass over it would (a 2 GiB dense journal in 8 ranges kept eight
   *  times the events, and took 430 MB). */
  constructor(private readonly events: SignalEvent[], private readonly rebuild: Rebuild | null = null, private readonly parts = 1) {}

  /** Bucket width (ms) now. */
  private width(): number {
    return widthAt(this.events.length * this.parts);
  }

  /** Whether lines are being folded at all yet (see STEPS). */
  get active(): boolean {
    return this.width() !== 0;
  }

  /**
   * A line not read (templates.ts), at the time `at[0]` (a typed array: a time passed to a call is a heap number to
   * collect, for each of millions of lines), that adds to the runs `keys` name: folded into each run's tail if every one
   * of them has its kept lines for the bucket (true), else nothing done (false: the line is read in full). Its event is
   * remade by `rebuild` only if it is still the newest of its run when the bucket ends.
   */
  foldUnread(keys: ReadonlyArray<{ key: string }>, at: Float64Array, shape: LineShape, b: Uint8Array, from: number, line: number, offset: number): boolean {
    const ts = at[0] as number;
    const width = this.width();
    if (width === 0 || Number.isNaN(ts)) return false;
    const bucket = Math.floor(ts / width);
    for (let i = 0; i < keys.length; i++) {
      const run = this.runs.get((keys[i] as { key: string }).key);
      if (run === undefined || run.bucket !== bucket || run.kept < KEEP || run.tail < 0) return false;
    }
    for (let i = 0; i < keys.length; i++) {
      const run = this.runs.get((keys[i] as { key: string }).key) as Run;
      run.count++;
      run.draft = null;
      run.src = null;
      if (run.lazyHeld.length < shape.differing) run.lazyHeld = new Uint8Array(Math.max(64, shape.differing));
      shape.capture(b, from, run.lazyHeld);
      run.lazy = shape;
      run.lazyLine = line;
      run.lazyOffset = offset;
      run.lazyTs = ts;
      this.folded++;
    }
    return true;
  }

  /** A whole event (tests, and callers with nothing to save). */
  add(e: SignalEvent): void {
    this.offer(e, e.host, e.ts, e, asIs);
  }

  /**
   * A line's draft at time `ts`: made into an event by `build(d, host, src)` when it is kept, else counted into its
   * run's tail. Call settleAll() before reading the events.
   */
  offer<S>(d: EventDraft, host: string | null, ts: number, src: S, build: BuildEvent<S>): void {
    const kind = KIND[d.type];
    const n = this.events.length;
    const width = this.width();
    if (width === 0 || !kind || Number.isNaN(ts)) {
      this.events.push(build(d, host, src));
      return;
    }
    const bucket = Math.floor(ts / width);
    const k = kind(d);
    // A dense run is the same kind of line over and over: the last key looked up is the likely one.
    let key: string;
    if (d.type === this.lastType && host === this.lastHost && k === this.lastKind) key = this.lastKey;
    else {
      key = `${d.type}\u0000${host ?? ''}\u0000${k}`;
      this.lastType = d.type;
      this.lastHost = host;
      this.lastKind = k;
      this.lastKey = key;
      this.lastRun = this.runs.get(key);
    }
    let run = this.lastRun;
    if (!run || run.bucket !== bucket) {
      if (run) this.settle(run);
      run = new Run(key, bucket);
      this.runs.set(key, run);
      this.lastRun = run;
    }
    if (run.kept < KEEP) {
      run.kept++;
      this.events.push(build(d, host, src));
    } else if (run.tail < 0) {
      run.tail = n;
      run.count = 1;
      this.events.push(build(d, host, src));
    } else {
      // The newest line stands for the run's last ones: its text and time, their count.
      run.count++;
      run.lazy = null;
      run.draft = d;
      run.host = host;
      run.src = src;
      run.build = build as BuildEvent<unknown>;
      this.folded++;
    }
  }

  /** The run's newest folded line becomes its tail event. */
  private settle(run: Run): void {
    if (run.lazy !== null) {
      const e = this.rebuild?.(run.key, run.lazy.textOf(run.lazyHeld), run.lazyLine, run.lazyOffset, run.lazyTs) ?? null;
      // (A line that no longer gives its run's event cannot come from a template: thin the count onto the tail as is.)
      const tail = e ?? (this.events[run.tail] as SignalEvent);
      tail.n = run.count;
      this.events[run.tail] = tail;
      run.lazy = null;
      return;
    }
    if (run.draft === null || run.build === null) return;
    const e = run.build(run.draft, run.host, run.src);
    e.n = run.count;
    this.events[run.tail] = e;
    run.draft = null;
    run.src = null;
  }

  /** Every run's tail made final: the events are complete. */
  settleAll(): void {
    for (const run of this.runs.values()) this.settle(run);
  }
}

const asIs: BuildEvent<SignalEvent> = (_d, _host, e) => e;

/** The time a line's run is bucketed by (Thinner.offer's `ts`): its own, or for a raw dmesg line its seconds since boot
 *  (such a line is placed on the clock later, by its own stamp: a folded run's event keeps its newest line's). NaN (a
 *  line with neither): never folded. */
export function thinTime(rec: { ts: number; mono: number }): number {
  return Number.isNaN(rec.ts) ? rec.mono * 1000 : rec.ts;
}
