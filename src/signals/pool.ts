// Worker threads for signal extraction (design.md §7: every core). Large plain logs are cut into byte ranges that the
// workers read and scan themselves (segments.ts); the reading thread meanwhile reads everything else.
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { SegmentResult } from './segments.js';
import type { ExtractJob, FromWorker, ToWorker } from './worker-protocol.js';
import type { SegmentOptions } from './extract.js';
import type { FileRange } from '../input/ranges.js';

/** The compiled worker next to this module; absent when running from TypeScript sources (tests): then no pool. */
export function workerScript(): string | null {
  const url = new URL('./worker.js', import.meta.url);
  if (url.protocol !== 'file:' || !import.meta.url.endsWith('.js')) return null;
  const p = fileURLToPath(url);
  return existsSync(p) ? p : null;
}

interface Pending {
  resolve: (r: SegmentResult) => void;
  reject: (e: Error) => void;
  worker: Worker;
  onProgress?: (bytes: number, lines: number) => void;
}

export class SignalPool {
  private readonly idle: Worker[] = [];
  private readonly all: Worker[] = [];
  private readonly waiters: Array<(w: Worker) => void> = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  constructor(script: string, readonly size: number) {
    for (let i = 0; i < size; i++) {
      // A small young generation keeps each worker's heap (and the process RSS) flat over gigabytes of input: a worker
      // holds a 1 MiB chunk, its carried line and the events found so far.
      const w = new Worker(script, { resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 128 } });
      w.on('message', (m: FromWorker) => this.onMessage(m));
      w.on('error', (err) => this.failWorker(w, err));
      this.all.push(w);
      this.idle.push(w);
    }
  }

  private onMessage(m: FromWorker): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    if (m.type === 'progress') {
      p.onProgress?.(m.bytes, m.lines);
      return;
    }
    this.pending.delete(m.id);
    this.release(p.worker);
    if (m.type === 'done') p.resolve(m.result);
    else p.reject(new Error(m.message));
  }

  private failWorker(w: Worker, err: Error): void {
    for (const [id, p] of this.pending) {
      if (p.worker !== w) continue;
      this.pending.delete(id);
      p.reject(err);
    }
  }

  private acquire(): Promise<Worker> {
    const w = this.idle.pop();
    if (w) return Promise.resolve(w);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private release(w: Worker): void {
    const next = this.waiters.shift();
    if (next) next(w);
    else this.idle.push(w);
  }

  /** A byte range of a plain file, read by the worker itself (no bytes cross threads on the way in). */
  async runRange(job: ExtractJob, range: FileRange, options: SegmentOptions, onProgress?: (bytes: number, lines: number) => void): Promise<SegmentResult> {
    const w = await this.acquire();
    const id = this.nextId++;
    return new Promise<SegmentResult>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, worker: w, ...(onProgress ? { onProgress } : {}) });
      w.postMessage({ type: 'range', id, job, options, range, progress: onProgress !== undefined } satisfies ToWorker);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.all.map((w) => w.terminate()));
  }
}
