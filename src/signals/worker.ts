// Worker thread entry: extracts one segment at a time with the same code the reading thread would run.
import { parentPort } from 'node:worker_threads';
import { resolveZone } from '../parse/time.js';
import { compileCustom, type CustomPattern } from './custom.js';
import type { ExtractOptions } from './extract.js';
import { runSegmentHere } from './segments.js';
import type { ExtractJob, FromWorker, ToWorker } from './worker-protocol.js';

const port = parentPort;
if (!port) throw new Error('signals/worker.js must run as a worker thread');

// Segments of one artifact share their options: compile patterns once per job.
let lastKey = '';
let lastOpts: ExtractOptions | null = null;

function optionsOf(job: ExtractJob): ExtractOptions {
  const key = JSON.stringify(job);
  if (key !== lastKey || !lastOpts) {
    const custom: CustomPattern[] = job.custom.map(compileCustom);
    lastOpts = { artifact: job.artifact, zone: resolveZone(job.zone), year: job.year, notAfterMs: job.notAfterMs, noPrefilter: job.noPrefilter, custom };
    lastKey = key;
  }
  return lastOpts;
}

port.on('message', (m: ToWorker) => {
  try {
    const bytes = Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength);
    const result = runSegmentHere(optionsOf(m.job), { seq: m.id, bytes, options: m.options });
    port.postMessage({ type: 'done', id: m.id, result } satisfies FromWorker);
  } catch (err) {
    port.postMessage({ type: 'error', id: m.id, message: (err as Error).message } satisfies FromWorker);
  }
});
