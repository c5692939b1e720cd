// Worker threads for signal extraction (design.md §7: every core). Large plain logs are cut into byte ranges (jobs in
// one queue) that the workers read and scan themselves; the reading thread meanwhile reads everything else, and once it
// has nothing else to do it takes queued ranges too, so on N cores N-1 workers and this thread share the scanning.
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runRangeHere, type SegmentResult } from './segments.js';
import type { ExtractJob, FromWorker, ToWorker } from './worker-protocol.js';
import type { ExtractOptions, SegmentOptions } from './extract.js';
import type { FileRange } from '../input/ranges.js';
import { chunkCounter } from './progress.js';

/** The compiled worker next to this module; absent when running from TypeScript sources (tests): then no pool. */
export function workerScript(): string | null {
  const url = new URL('./worker.js', import.meta.url);
  if (url.protocol !== 'file:' || !import.meta.url.endsWith('.js')) return null;
  const p = fileURLToPath(url);
  return existsSync(p) ? p : null;
}

interface Task {
  job: ExtractJob;
  range: FileRange;
  options: SegmentOptions;
  /** The same options, built in this thread: for running the task here. */
  here: ExtractOptions;
  onProgress?: (bytes: number, lines: number) => void;
  resolve: (r: SegmentResult) => void;
  reject: (e: Error) => void;
}

/** Ranges handed to a worker at once: the next one waits in its message queue, so a worker never idles while this
 *  thread, busy scanning a range itself, has not yet seen that the previous one is done. */
const DEPTH = 2;

export class SignalPool {
  /** Tasks each worker holds (running or waiting in its message queue). */
  private readonly load = new Map<Worker, number>();
  private readonly all: Worker[] = [];
  private readonly queue: Task[] = [];
  private readonly running = new Map<number, { task: Task; worker: Worker }>();
  /** Wakes a helping thread when a task is queued. */
  private arrived: (() => void) | null = null;
  private nextId = 0;

  /** `size` worker threads; this thread takes queued ranges too, through helpUntil. */
  constructor(script: string, readonly size: number) {
    for (let i = 0; i < size; i++) {
      // A bounded young generation keeps each worker's heap (and the process RSS) flat over gigabytes of input: a
      // worker holds a 1 MiB chunk, its carried line and the events found so far. 16 MB, not less: at 4 MB the
      // scavenges of the 64 KiB piece strings took a sixth of a worker's time (measured: 170 of 1000 ms).
      const w = new Worker(script, { resourceLimits: { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 128 } });
      w.on('message', (m: FromWorker) => this.onMessage(m));
      w.on('error', (err) => this.failWorker(w, err));
      this.all.push(w);
      this.load.set(w, 0);
    }
  }

  /** Threads that scan ranges: the workers and this one. */
  get threads(): number {
    return this.size + 1;
  }

  private onMessage(m: FromWorker): void {
    const r = this.running.get(m.id);
    if (!r) return;
    if (m.type === 'progress') {
      r.task.onProgress?.(m.bytes, m.lines);
      return;
    }
    this.running.delete(m.id);
    this.load.set(r.worker, (this.load.get(r.worker) ?? 1) - 1);
    this.dispatch();
    if (m.type === 'done') r.task.resolve(m.result);
    else r.task.reject(new Error(m.message));
  }

  /** A worker that failed gets no more ranges (the reading thread takes what is left); its own fail. */
  private failWorker(w: Worker, err: Error): void {
    this.load.set(w, Infinity);
    for (const [id, r] of this.running) {
      if (r.worker !== w) continue;
      this.running.delete(id);
      r.task.reject(err);
    }
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      // The least loaded worker, if it has room.
      let w: Worker | null = null;
      for (const x of this.all) if ((this.load.get(x) ?? 0) < DEPTH && (!w || (this.load.get(x) ?? 0) < (this.load.get(w) ?? 0))) w = x;
      if (!w) return;
      this.load.set(w, (this.load.get(w) ?? 0) + 1);
      const task = this.queue.shift() as Task;
      const id = this.nextId++;
      this.running.set(id, { task, worker: w });
      w.postMessage({ type: 'range', id, job: task.job, options: task.options, range: task.range, progress: task.onProgress !== undefined } satisfies ToWorker);
    }
  }

  /** A byte range of a plain file, read by whichever thread takes it first (no bytes cross threads on the way in). */
  runRange(job: ExtractJob, here: ExtractOptions, range: FileRange, options: SegmentOptions, onProgress?: (bytes: number, lines: number) => void): Promise<SegmentResult> {
    return new Promise<SegmentResult>((resolve, reject) => {
      this.queue.push({ job, here, range, options, resolve, reject, ...(onProgress ? { onProgress } : {}) });
      this.dispatch();
      if (this.queue.length > 0) this.arrived?.();
    });
  }

  /**
   * Runs queued ranges in this thread until `done` settles, yielding to the event loop between them (worker results,
   * progress) and waiting for more when the queue is empty (a merge may queue fix-up passes). For the reading thread
   * once it has nothing else to do.
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
    for (let task = this.queue.shift(); task; task = this.queue.shift()) {
      const t = task;
      try {
        const counter = t.onProgress ? chunkCounter(t.onProgress, 0) : null;
        t.resolve(runRangeHere(t.here, t.range, t.options, counter?.onChunk));
      } catch (err) {
        t.reject(err as Error);
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.all.map((w) => w.terminate()));
  }
}
