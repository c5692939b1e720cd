// Worker thread entry: extracts one byte range of a plain log at a time, reading it itself, with the same code the
// reading thread would run (runRangeHere). It is sent every range and runs those it claims first.
import { parentPort, workerData } from 'node:worker_threads';
import { resolveZone } from '../../parse/time.js';
import { compileCustom, type CustomPattern } from '../../signals/custom.js';
import { buildPrefilter, type ExtractOptions } from '../../signals/extract.js';
import { runRangeHere } from './segments.js';
import { claimRange, type ExtractJob, type FromWorker, type ToWorker } from './worker-protocol.js';
import { chunkCounter } from '../../signals/progress.js';

const port = parentPort;
if (!port) throw new Error('sources/files/worker.js must run as a worker thread');
/** This worker's number in the claim slots of ranges (pool.ts). */
const self = (workerData as { claimId?: number } | null)?.claimId ?? 1;

// The needle tables are built while the reading thread is still listing files, not on the first range.
buildPrefilter([]);

// Ranges of one artifact share their options: compile patterns once per job.
let lastKey = '';
let lastOpts: ExtractOptions | null = null;

function optionsOf(job: ExtractJob): ExtractOptions {
  const key = JSON.stringify(job);
  if (key !== lastKey || !lastOpts) {
    const custom: CustomPattern[] = job.custom.map(compileCustom);
    lastOpts = { artifact: job.artifact, zone: resolveZone(job.zone), year: job.year, notAfterMs: job.notAfterMs, noPrefilter: job.noPrefilter, custom, ...(job.nameOrigin ? { nameOrigin: job.nameOrigin } : {}) };
    lastKey = key;
  }
  return lastOpts;
}

/** Progress reports while reading a range, every so many bytes. */
const PROGRESS_BYTES = 8 << 20;

port.on('message', (m: ToWorker) => {
  // Taken by another thread while this one was busy: the next range in the queue, then.
  if (!claimRange(m.claim, self)) return;
  const post = (msg: FromWorker) => port.postMessage(msg);
  try {
    const counter = m.progress ? chunkCounter((bytes, lines) => post({ type: 'progress', id: m.id, bytes, lines }), PROGRESS_BYTES) : null;
    const result = runRangeHere(optionsOf(m.job), m.range, m.options, counter?.onChunk);
    counter?.flush();
    post({ type: 'done', id: m.id, result });
  } catch (err) {
    post({ type: 'error', id: m.id, message: (err as Error).message });
  }
});
