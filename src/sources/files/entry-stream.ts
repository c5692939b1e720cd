// Streams handed out for archive members. tar-stream's entry streams (streamx) take the whole archive down with them
// when destroyed, and a consumer that stops early (sniffing a head, a decoder that failed) must not do that: the
// archive has to go on to the next member. So consumers get an EntryStream: destroying it detaches the consumer and
// the member's remaining bytes are drained and dropped, after which `done` resolves.
import { Readable } from 'node:stream';
import { meterOf, type Meter } from './limits.js';

/** What an EntryStream reads from: a Node or streamx readable. */
export interface Pullable {
  on(event: 'data', fn: (chunk: Buffer) => void): unknown;
  on(event: 'end', fn: () => void): unknown;
  on(event: 'error', fn: (err: Error) => void): unknown;
  pause(): unknown;
  resume(): unknown;
  destroy?(err?: Error): unknown;
}

export class EntryStream extends Readable {
  private src: Pullable | null = null;
  private detached = false;
  private settled = false;
  private settle!: () => void;
  /** Resolves once the source has ended or failed (whether or not anybody read it). */
  readonly done: Promise<void>;
  /** Set when the source failed: the member could not be read to its end. */
  failure: Error | null = null;
  /** When the source last delivered bytes (epoch ms): tells a reader that stopped from one that is slow. */
  lastActivity = Date.now();
  /** The decompression of the archive this member comes out of (set by the container): a member's bytes are held to
   *  the ratio bound against its share of it (limits.ts memberGuard). */
  meterFrom: (() => Meter | null) | null = null;

  get meter(): Meter | null {
    return this.meterFrom?.() ?? null;
  }

  /** `drain: false`: a consumer that lets go ends the source too (a zip member, read by random access, need not be
   *  inflated to its end for the archive to go on). */
  constructor(private readonly opts: { drain?: boolean } = {}) {
    super({ highWaterMark: 64 * 1024 });
    this.done = new Promise<void>((resolve) => {
      this.settle = resolve;
    });
  }

  attach(src: Pullable): void {
    this.src = src;
    src.on('data', (chunk: Buffer) => {
      this.lastActivity = Date.now();
      if (this.detached) return;
      if (!this.push(chunk)) src.pause();
    });
    src.on('end', () => {
      if (!this.detached) this.push(null);
      this.finish();
    });
    src.on('error', (err: Error) => {
      this.failure = err;
      if (!this.detached) this.destroy(err);
      this.finish();
    });
    if (this.detached) src.resume();
  }

  /** No source will come (the member was not found, or the archive failed before it). */
  fail(err: Error): void {
    this.failure = err;
    if (!this.detached) this.destroy(err);
    this.finish();
  }

  override _read(): void {
    this.src?.resume();
  }

  override _destroy(err: Error | null, cb: (error?: Error | null) => void): void {
    this.detached = true;
    if (this.opts.drain === false && this.src?.destroy) {
      this.src.destroy();
      this.finish();
    } else {
      // Keep the source flowing into the void so the archive can move past this member.
      this.src?.resume();
    }
    cb(err);
  }

  private finish(): void {
    if (this.settled) return;
    this.settled = true;
    this.settle();
  }
}

/**
 * The first `n` bytes of `stream` (fewer at its end), and a stream that yields everything from the start again:
 * the head is replayed, then the rest is read live. Nothing beyond the head is buffered.
 */
export async function peek(stream: Readable, n: number): Promise<{ head: Buffer; stream: Readable; error: Error | null; ended: boolean }> {
  const chunks: Buffer[] = [];
  let have = 0;
  let error: Error | null = null;
  let ended = false;
  // A paused stream may still emit 'end' once its last chunk is out, so these stay attached throughout.
  let onLate: { end(): void; error(err: Error): void } | null = null;
  stream.once('end', () => {
    ended = true;
    onLate?.end();
  });
  stream.on('error', (err: Error) => {
    error ??= err;
    onLate?.error(err);
  });
  await new Promise<void>((resolve) => {
    const onData = (c: Buffer) => {
      chunks.push(c);
      have += c.length;
      if (have >= n) {
        stream.pause();
        cleanup();
        resolve();
      }
    };
    const cleanup = () => {
      stream.off('data', onData);
      onLate = null;
    };
    onLate = {
      end: () => {
        cleanup();
        resolve();
      },
      error: () => {
        cleanup();
        resolve();
      },
    };
    stream.on('data', onData);
  });
  const head = Buffer.concat(chunks, have);
  // Whatever reads on learns the meter of the decompression the bytes come from.
  const passMeter = (r: Readable) => Object.defineProperty(r, 'meter', { get: () => meterOf(stream) });
  if (ended || error) {
    const replay = passMeter(Readable.from(chunks.length ? [head] : [], { objectMode: false }));
    return { head: head.subarray(0, Math.min(n, head.length)), stream: replay, error, ended: ended && head.length <= n };
  }
  // The remaining bytes come straight from the source, with its backpressure and errors.
  const out = new Readable({
    read() {
      stream.resume();
    },
    destroy(err, cb) {
      stream.destroy();
      cb(err);
    },
  });
  passMeter(out);
  out.push(head);
  stream.on('data', (c: Buffer) => {
    if (!out.push(c)) stream.pause();
  });
  onLate = { end: () => out.push(null), error: (err) => out.destroy(err) };
  stream.pause();
  return { head: head.subarray(0, n), stream: out, error: null, ended: false };
}

/**
 * Reads a stream up to `max` bytes: `complete` when it ended within them. Past `max` the stream is destroyed, so a
 * huge input costs one chunk more than `max`. A stream error ends it with what was read.
 */
export function collect(stream: Readable, max: number): Promise<{ data: Buffer; complete: boolean; error: Error | null }> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let n = 0;
    let done = false;
    const finish = (complete: boolean, error: Error | null) => {
      if (done) return;
      done = true;
      stream.off('data', onData);
      resolve({ data: Buffer.concat(parts, Math.min(n, max)), complete, error });
      if (!complete && !error) stream.destroy();
    };
    const onData = (chunk: Buffer | string) => {
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      parts.push(b);
      n += b.length;
      if (n > max) finish(false, null);
    };
    stream.on('data', onData);
    stream.once('end', () => finish(true, null));
    // Stays attached: a stream destroyed after the head may still report an error nobody else listens to.
    stream.on('error', (err) => finish(false, err));
  });
}
