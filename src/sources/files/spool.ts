// An archive piped in (`cat bundle.tar.xz | plegscope analyze -`) is read like the same archive named by its path: a
// tar's members are streamed out of it again when read, a zip needs random access, so stdin is first copied to a
// private temporary file (its own mkdtemp folder, mode 0600), bounded like any one decompression stream, and removed
// once the run is over — on its normal end, an error, or a signal.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { BOMB } from './limits.js';

export interface Spooled {
  /** The temporary file. */
  file: string;
  size: number;
  /** Removes the file and its folder (idempotent, synchronous: also from an exit or signal handler). */
  remove(): void;
}

const live = new Set<string>();
let hooked = false;
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function removeAll(): void {
  for (const d of live) fs.rmSync(d, { recursive: true, force: true });
  live.clear();
}

/** On exit, and on a signal (then the signal's usual end: the process dies of it), every spool is removed. */
function hook(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', removeAll);
  for (const sig of SIGNALS) {
    const onSignal = (): void => {
      removeAll();
      // Nothing else of ours listens: let the signal end the process as it would have.
      for (const s of SIGNALS) process.removeListener(s, handlers.get(s) as () => void);
      process.kill(process.pid, sig);
    };
    handlers.set(sig, onSignal);
    process.on(sig, onSignal);
  }
}
const handlers = new Map<NodeJS.Signals, () => void>();

/** Copies `stream` to a private temporary file, at most `maxBytes` (past it: an error with code BOMB, file removed). */
export async function spool(stream: Readable, maxBytes: number, name = 'stdin'): Promise<Spooled> {
  hook();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plegscope-stdin-'));
  live.add(dir);
  const remove = (): void => {
    fs.rmSync(dir, { recursive: true, force: true });
    live.delete(dir);
  };
  const file = path.join(dir, name);
  let size = 0;
  const bound = new Transform({
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      size += chunk.length;
      if (size > maxBytes) cb(Object.assign(new Error(`more than ${maxBytes} bytes on stdin (the bound of one stream): not read`), { code: BOMB }));
      else cb(null, chunk);
    },
  });
  try {
    await pipeline(stream, bound, fs.createWriteStream(file, { mode: 0o600, flags: 'wx' }));
  } catch (err) {
    remove();
    throw err;
  }
  return { file, size, remove };
}
