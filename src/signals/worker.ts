// Worker thread entry: scans the chunks the main thread posts with the same extractor the main thread would run.
import { parentPort } from 'node:worker_threads';
import { Readable } from 'node:stream';
import { resolveZone } from '../parse/time.js';
import { compileCustom } from './custom.js';
import { extractSignals } from './extract.js';
import type { FromWorker, ToWorker } from './worker-protocol.js';

const port = parentPort;
if (!port) throw new Error('signals/worker.js must run as a worker thread');

let input: Readable | null = null;
// Chunks wait here until the scanner asks for more; the ack that lets the main thread send another goes out only
// then, so at most a few chunks are ever held in this thread.
let queue: Buffer[] = [];
let wanted = false;
let ended = false;

const send = (m: FromWorker): void => port.postMessage(m);

function feed(): void {
  if (!input || !wanted) return;
  const next = queue.shift();
  if (next) {
    wanted = false;
    send({ type: 'ack' });
    if (input.push(next)) wanted = true;
    if (wanted) feed();
  } else if (ended) {
    input.push(null);
    input = null;
  }
}

port.on('message', (m: ToWorker) => {
  if (m.type === 'start') {
    const job = m.job;
    queue = [];
    wanted = false;
    ended = false;
    const stream = new Readable({
      highWaterMark: 1,
      read() {
        wanted = true;
        feed();
      },
    });
    input = stream;
    extractSignals(stream, {
      artifact: job.artifact, zone: resolveZone(job.zone), year: job.year, notAfterMs: job.notAfterMs,
      noPrefilter: job.noPrefilter, custom: job.custom.map(compileCustom),
    }).then((result) => send({ type: 'done', result }), (err: Error) => send({ type: 'error', message: err.message }));
  } else if (m.type === 'chunk') {
    queue.push(Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength));
    feed();
  } else if (m.type === 'end') {
    ended = true;
    feed();
  } else if (m.type === 'fail') {
    input?.destroy(new Error(m.message));
    input = null;
  }
});
