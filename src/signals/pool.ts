// Runs signal extraction on worker threads, so the main thread only reads and decompresses while up to N artifacts
// are scanned at once (design.md §7: both cores). Bytes are posted in the stream's own chunks with at most a few in
// flight per worker, so memory stays flat; a worker keeps its per-file state for one artifact at a time.
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Readable } from 'node:stream';
import type { ArtifactSignals } from './extract.js';
import type { ExtractJob, FromWorker, ToWorker } from './worker-protocol.js';

const IN_FLIGHT = 4;

/** The compiled worker next to this module; absent when running from TypeScript sources (tests), then no pool. */
export function workerScript(): string | null {
  const url = new URL('./worker.js', import.meta.url);
  if (url.protocol !== 'file:') return null;
  const p = fileURLToPath(url);
  return existsSync(p) && import.meta.url.endsWith('.js') ? p : null;
}

export class SignalPool {
  private readonly idle: Worker[] = [];
  private readonly all: Worker[] = [];
  private readonly waiters: Array<(w: Worker) => void> = [];

  constructor(script: string, size: number) {
    for (let i = 0; i < size; i++) {
      const w = new Worker(script, { resourceLimits: { maxYoungGenerationSizeMb: 8 } });
      w.unref();
      this.all.push(w);
      this.idle.push(w);
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

  async extract(stream: Readable, job: ExtractJob): Promise<ArtifactSignals> {
    const w = await this.acquire();
    try {
      return await run(w, stream, job);
    } finally {
      this.release(w);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.all.map((w) => w.terminate()));
  }
}

function run(w: Worker, stream: Readable, job: ExtractJob): Promise<ArtifactSignals> {
  return new Promise((resolve, reject) => {
    let inFlight = 0;
    let settled = false;
    const post = (m: ToWorker, transfer?: ArrayBuffer[]) => w.postMessage(m, transfer);
    const finish = (err: Error | null, result?: ArtifactSignals) => {
      if (settled) return;
      settled = true;
      w.off('message', onMessage);
      w.off('error', onError);
      if (err) reject(err);
      else resolve(result as ArtifactSignals);
    };
    const onMessage = (m: FromWorker) => {
      if (m.type === 'ack') {
        inFlight--;
        if (inFlight < IN_FLIGHT && stream.isPaused()) stream.resume();
      } else if (m.type === 'done') finish(null, m.result);
      else finish(new Error(m.message));
    };
    const onError = (err: Error) => finish(err);
    w.on('message', onMessage);
    w.on('error', onError);
    post({ type: 'start', job });
    stream.on('data', (chunk: Buffer) => {
      // Transfer the memory when the chunk owns its whole ArrayBuffer; pooled slices are copied.
      const owned = chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength;
      const data = owned ? new Uint8Array(chunk.buffer, 0, chunk.byteLength) : new Uint8Array(chunk);
      post({ type: 'chunk', data }, [data.buffer as ArrayBuffer]);
      if (++inFlight >= IN_FLIGHT) stream.pause();
    });
    stream.on('end', () => post({ type: 'end' }));
    // A read error (truncated gzip…) ends the worker's stream with that error, as an in-thread read would.
    stream.on('error', (err: Error) => post({ type: 'fail', message: err.message }));
  });
}
