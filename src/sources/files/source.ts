// A Source is one file's raw (possibly compressed) bytes, wherever they live. Loose files and stdin are the
// sources today; archive members (tar/zip entries) are meant to plug in later as another Source, so nothing
// above this layer assumes a real path on disk.
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { mapStreamErrors, shortError } from '../fserror.js';

export interface Source {
  /** Path as the user will find it (relative to the input they named, or as they typed it). */
  readonly path: string;
  /** Size of the raw bytes, null when unknown (stdin). */
  readonly size: number | null;
  /** Modification time, epoch ms, null when unknown. */
  readonly mtime: number | null;
  /** False when the bytes can be streamed only once (stdin); open() may then be called a single time. */
  readonly rereadable: boolean;
  /** A stream over the start of the raw bytes for sniffing. Destroying it early must not lose bytes for a later open(). */
  peek(): Readable;
  /** A stream of all raw bytes from the start. */
  open(): Readable;
  /** The first `max` raw bytes read directly, without a stream (files on disk): the probe of a folder of small files. */
  head?(max: number): Promise<{ head: Buffer; complete: boolean }>;
}

// O_NOFOLLOW: the walker validated the real path; if someone swaps it for a symlink afterwards we refuse rather
// than follow it. O_NONBLOCK: a file swapped for a fifo must not hang the open.
export const OPEN_FLAGS =
  fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

// O_NOFOLLOW guards only the last component: a folder on the way swapped for a symlink during the run would still lead
// outside the input. So every open is checked after the fact, on the descriptor itself: the path must still resolve to
// itself (no component is a link now) and name the very file the descriptor holds (same device and inode). A swap
// before the open fails the first test, a swap back after it the second. Either way the file is refused, not read.
const CHANGED = 'changed while being read (a folder or file replaced, by a symlink?): not read';

function sameFile(a: fs.Stats, b: fs.Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

function verifyOpened(realPath: string, st: fs.Stats, here: () => { real: string; st: fs.Stats }): void {
  if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTREG' });
  let now: { real: string; st: fs.Stats };
  try {
    now = here();
  } catch {
    throw Object.assign(new Error(CHANGED), { code: 'ECHANGED' });
  }
  if (now.real !== realPath || !sameFile(now.st, st)) throw Object.assign(new Error(CHANGED), { code: 'ECHANGED' });
}

/** Opens `realPath` (a path the walk resolved under the input) read-only, refusing links, non-files and a path that
 *  no longer leads to the file it led to. Returns the descriptor; the caller closes it. */
export function openInputSync(realPath: string): number {
  const fd = fs.openSync(realPath, OPEN_FLAGS);
  try {
    verifyOpened(realPath, fs.fstatSync(fd), () => ({ real: fs.realpathSync.native(realPath), st: fs.lstatSync(realPath) }));
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
  return fd;
}

/** openInputSync's asynchronous twin: a FileHandle. */
export async function openInput(realPath: string): Promise<fs.promises.FileHandle> {
  const fh = await fs.promises.open(realPath, OPEN_FLAGS);
  try {
    const st = await fh.stat();
    const real = await fs.promises.realpath(realPath).catch(() => '');
    const lst = await fs.promises.lstat(realPath).catch(() => null);
    verifyOpened(realPath, st, () => {
      if (lst === null) throw new Error('gone');
      return { real, st: lst };
    });
  } catch (err) {
    await fh.close();
    throw err;
  }
  return fh;
}

/** 1 MiB reads: with 64 KiB ones the per-chunk overhead (syscalls, stream hops, scanner set-up) costs ~0.5 s per GB. */
export const READ_CHUNK = 1024 * 1024;
/** Output chunk of the inflaters (gzip, zip). zlib's default (16 KiB) makes a thread-pool round trip per 16 KiB: a 300 MB
 *  must-gather tarball took 1.0–1.25 s to inflate, against 0.24 s with 256 KiB chunks (and 0.87 s for `gzip -dc`). */
export const INFLATE_CHUNK = 256 * 1024;

export class FileSource implements Source {
  readonly rereadable = true;

  constructor(
    readonly path: string,
    /** Fully resolved path; the only path ever opened. */
    readonly realPath: string,
    readonly size: number | null,
    readonly mtime: number | null,
  ) {}

  peek(): Readable {
    return this.open();
  }

  async head(max: number): Promise<{ head: Buffer; complete: boolean }> {
    // Synchronous: a head is one small read, and a bundle has hundreds of files. Through the thread pool each one
    // costs four round trips and as many promise turns, several times the system calls themselves.
    let fd: number;
    try {
      fd = openInputSync(this.realPath);
    } catch (err) {
      throw shortError(err);
    }
    try {
      const st = fs.fstatSync(fd);
      // Sized to the file (+1 byte to see its end): a small file is one read. A file that grew is read on up to `max`
      // (+1: complete means it ended within `max`, as for a stream's head).
      let buf = Buffer.allocUnsafe(Math.min(max, st.size) + 1);
      let n = 0;
      for (;;) {
        const bytesRead = fs.readSync(fd, buf, n, buf.length - n, n);
        if (bytesRead === 0) return { head: buf.subarray(0, n), complete: true };
        n += bytesRead;
        if (n < buf.length) continue;
        if (n > max) return { head: buf.subarray(0, max), complete: false };
        const bigger = Buffer.allocUnsafe(Math.min(max + 1, buf.length * 2));
        buf.copy(bigger, 0, 0, n);
        buf = bigger;
      }
    } catch (err) {
      throw shortError(err);
    } finally {
      fs.closeSync(fd);
    }
  }

  open(): Readable {
    // Small files get a buffer their size (+1 to see the end), not 1 MiB each.
    const hwm = this.size !== null ? Math.max(1024, Math.min(READ_CHUNK, this.size + 1)) : READ_CHUNK;
    // Opened and checked here (openInputSync: no link on the way, the very file the path names, a regular file), then
    // streamed from the descriptor.
    let fd: number;
    try {
      fd = openInputSync(this.realPath);
    } catch (err) {
      return failed(shortError(err));
    }
    const stream = fs.createReadStream('', { fd, highWaterMark: hwm, autoClose: true });
    mapStreamErrors(stream, (err) => shortError(err));
    return stream;
  }
}

/**
 * stdin is read once: sniffing records the chunks it pulls, and the one real open() replays them before
 * streaming the live rest, so only the sniffed prefix is ever held in memory.
 */
export class StreamSource implements Source {
  readonly rereadable = false;
  readonly size = null;
  readonly mtime = null;
  private readonly chunks: Buffer[] = [];
  private ended = false;
  private failure: Error | null = null;
  private taken = false;
  /** Serialises pulls so two peeks never race for the same live chunk. */
  private pulling: Promise<unknown> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly input: Readable,
  ) {
    input.pause();
    // An error between two pulls has no other listener: record it instead of crashing the process.
    input.on('error', (err: Error) => {
      this.failure ??= shortError(err);
    });
  }

  peek(): Readable {
    if (this.taken) return failed(new Error('input was already read'));
    let i = 0;
    const out: Readable = new Readable({
      read: () => {
        this.pull(i, true).then(
          ({ chunk }) => {
            if (out.destroyed) return;
            if (chunk !== null) i += 1;
            out.push(chunk);
          },
          (err: unknown) => out.destroy(toError(err)),
        );
      },
    });
    return out;
  }

  open(): Readable {
    if (this.taken) return failed(new Error('stdin can be read only once'));
    this.taken = true;
    let i = 0;
    const out: Readable = new Readable({
      read: () => {
        this.pull(i, false).then(
          ({ chunk, recorded }) => {
            if (recorded) {
              // The replayed prefix can be collected once handed on.
              this.chunks[i] = EMPTY;
              i += 1;
            }
            if (!out.destroyed) out.push(chunk);
          },
          (err: unknown) => out.destroy(toError(err)),
        );
      },
    });
    return out;
  }

  /**
   * Chunk number i: from the recorded prefix when there, else the next live chunk (recorded when `record`).
   * Pulls are serialised: a peek destroyed while waiting still records its chunk before anyone else reads,
   * and whoever asks next finds it in the recording.
   */
  private pull(i: number, record: boolean): Promise<{ chunk: Buffer | null; recorded: boolean }> {
    const next = this.pulling.then(async (): Promise<{ chunk: Buffer | null; recorded: boolean }> => {
      if (i < this.chunks.length) return { chunk: this.chunks[i] as Buffer, recorded: true };
      if (this.failure) throw this.failure;
      if (this.ended) return { chunk: null, recorded: false };
      const chunk = await this.readLive();
      if (chunk !== null && record) this.chunks.push(chunk);
      return { chunk, recorded: chunk !== null && record };
    });
    this.pulling = next.catch(() => undefined);
    return next;
  }

  private readLive(): Promise<Buffer | null> {
    const src = this.input;
    return new Promise<Buffer | null>((resolve, reject) => {
      if (this.failure) {
        reject(this.failure);
        return;
      }
      if (this.ended || src.readableEnded) {
        this.ended = true;
        resolve(null);
        return;
      }
      const cleanup = () => {
        src.off('readable', onReadable);
        src.off('end', onEnd);
        src.off('error', onError);
      };
      const tryRead = (): boolean => {
        const chunk = src.read() as Buffer | string | null;
        if (chunk === null) return false;
        cleanup();
        resolve(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
        return true;
      };
      const onReadable = () => {
        tryRead();
      };
      const onEnd = () => {
        cleanup();
        this.ended = true;
        resolve(null);
      };
      const onError = (err: Error) => {
        cleanup();
        this.failure ??= shortError(err);
        reject(this.failure);
      };
      src.on('readable', onReadable);
      src.on('end', onEnd);
      src.on('error', onError);
      tryRead();
    });
  }
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

const EMPTY = Buffer.alloc(0);

function failed(err: Error): Readable {
  const r = new Readable({ read() {} });
  process.nextTick(() => r.destroy(err));
  return r;
}
