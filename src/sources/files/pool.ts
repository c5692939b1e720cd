// Worker threads for signal extraction (design.md §7: every core). Large plain logs are cut into byte ranges (jobs in
// one queue) that the workers read and scan themselves; the reading thread meanwhile reads everything else, and once it
// has nothing else to do it takes queued ranges too, so on N cores N-1 workers and this thread share the scanning.
// Every thread takes the next range nobody has claimed (a compare-and-swap on shared memory), so none idles while
// another holds work it has not started.
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runRangeHere, type SegmentResult } from './segments.js';
import { CLAIMED_BY_MAIN, claimRange, type ExtractJob, type FromWorker, type ToWorker } from './worker-protocol.js';
import type { ExtractOptions, SegmentOptions } from '../../signals/extract.js';
import type { FileRange } from './ranges.js';
import { chunkCounter } from '../../signals/progress.js';

/** The compiled worker next to this module; absent when running from TypeScript sources (tests): then no pool. */
export function workerScript(): string | null {
  const url = new URL('./worker.js', import.meta.url);
  if (url.protocol !== 'file:' || !import.meta.url.endsWith('.js')) return null;
  const p = fileURLToPath(url);
  return existsSync(p) ? p : null;
}

interface Task {
  id: number;
  job: ExtractJob;
  range: FileRange;
  options: SegmentOptions;
  /** The same options, built in this thread: for running the task here. */
  here: ExtractOptions;
  /** Who runs it: 0 until a thread claims it (worker-protocol.ts). */
  claim: Int32Array;
  onProgress?: (bytes: number, lines: number) => void;
  resolve: (r: SegmentResult) => void;
  reject: (e: Error) => void;
}

export class SignalPool {
  private readonly all: Worker[] = [];
  /** Workers that failed: they get no more ranges; the ranges they had claimed fail. */
  private readonly dead = new Set<number>();
  /** Ranges not settled yet, in the order queued (claimed or not). */
  private readonly tasks = new Map<number, Task>();
  /** Wakes a helping thread when a task is queued. */
  private arrived: (() => void) | null = null;
  private nextId = 0;

  /** `size` worker threads; this thread takes queued ranges too, through helpUntil. */
  constructor(script: string, readonly size: number) {
    for (let i = 0; i < size; i++) {
      // A bounded young generation keeps each worker's heap (and the process RSS) flat over gigabytes of input: a
      // worker holds a 1 MiB chunk, its carried line and the events found so far. 16 MB, not less: at 4 MB the
      // scavenges of the 64 KiB piece strings took a sixth of a worker's time (measured: 170 of 1000 ms).
      const claimId = i + 1;
      const w = new Worker(script, { workerData: { claimId }, resourceLimits: { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 128 } });
      w.on('message', (m: FromWorker) => this.onMessage(m));
      w.on('error', (err) => this.failWorker(claimId, err));
      this.all.push(w);
    }
  }

  /** Threads that scan ranges: the workers and this one. */
  get threads(): number {
    return this.size + 1;
  }

  private onMessage(m: FromWorker): void {
    const task = this.tasks.get(m.id);
    if (!task) return;
    if (m.type === 'progress') {
      task.onProgress?.(m.bytes, m.lines);
      return;
    }
    this.tasks.delete(m.id);
    if (m.type === 'done') task.resolve(m.result);
    else task.reject(new Error(m.message));
  }

  /**
   * A worker that failed gets no more ranges; the others stay for the other threads. The ranges it had claimed fail,
   * unless it ran out of its (small) heap: an event-dense range then runs in this thread, whose heap is the process's,
   * rather than cut the log short there.
   */
  private failWorker(claimId: number, err: Error): void {
    this.dead.add(claimId);
    const outOfMemory = (err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
    for (const [id, t] of this.tasks) {
      if (Atomics.load(t.claim, 0) !== claimId) continue;
      this.tasks.delete(id);
      if (!outOfMemory) {
        t.reject(err);
        continue;
      }
      setImmediate(() => {
        try {
          t.resolve(runRangeHere(t.here, t.range, t.options));
        } catch (e) {
          t.reject(e as Error);
        }
      });
    }
  }

  /**
   * A byte range of a plain file, read by whichever thread claims it first (no bytes cross threads on the way in).
   * Every live worker is sent it at once and takes it when free unless another thread has: so no worker waits for this
   * thread to hand out work while it scans a range itself, and a range waiting behind a busy worker is not stuck
   * there while another thread idles (both cost up to a range's time at the end of a file: measured 30–100 ms).
   */
  runRange(job: ExtractJob, here: ExtractOptions, range: FileRange, options: SegmentOptions, onProgress?: (bytes: number, lines: number) => void): Promise<SegmentResult> {
    return new Promise<SegmentResult>((resolve, reject) => {
      const id = this.nextId++;
      const claim = new Int32Array(new SharedArrayBuffer(4));
      this.tasks.set(id, { id, job, here, range, options, claim, resolve, reject, ...(onProgress ? { onProgress } : {}) });
      const message: ToWorker = { type: 'range', id, claim, job, options, range, progress: onProgress !== undefined };
      this.all.forEach((w, i) => {
        if (!this.dead.has(i + 1)) w.postMessage(message);
      });
      this.arrived?.();
    });
  }

  /**
   * Runs unclaimed ranges in this thread until `done` settles, yielding to the event loop between them (worker results,
   * progress) and waiting for more when none is left (a merge may queue fix-up passes). For the reading thread once
   * it has nothing else to do.
   */
  async helpUntil(done: Promise<unknown>): Promise<void> {
    let settled = false;
    const over = done.then(() => {
      settled = true;
    }, () => {
      settled = true;
    });
    for (;;) {
      await this.helpUntilEmpty();
      if (settled) return;
      await Promise.race([over, new Promise<void>((resolve) => {
        this.arrived = resolve;
      })]);
      this.arrived = null;
      if (settled) return;
    }
  }

  private async helpUntilEmpty(): Promise<void> {
    for (let t = this.nextUnclaimed(); t; t = this.nextUnclaimed()) {
      this.tasks.delete(t.id);
      try {
        const counter = t.onProgress ? chunkCounter(t.onProgress, 0) : null;
        t.resolve(runRangeHere(t.here, t.range, t.options, counter?.onChunk));
      } catch (err) {
        t.reject(err as Error);
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** The first queued range no thread has claimed, now claimed by this one. */
  private nextUnclaimed(): Task | null {
    for (const t of this.tasks.values()) if (claimRange(t.claim, CLAIMED_BY_MAIN)) return t;
    return null;
  }

  async close(): Promise<void> {
    await Promise.all(this.all.map((w) => w.terminate()));
  }
}
