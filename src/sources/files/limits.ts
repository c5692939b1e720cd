// Bounds for reading bundles. A support bundle is untrusted input: a few kilobytes of gzip can expand to gigabytes,
// and a tar can nest archives in archives. Everything is streamed, so the bounds are about time, not memory.
import { Transform, type Readable, type TransformCallback } from 'node:stream';

export interface Limits {
  /** A decompression stream stops once its output passes `ratioFloorBytes` AND `maxRatio` × its input so far. An
   *  archive's own stream is exempt (one compressible member must not hide the rest): its members are held to it. */
  maxRatio: number;
  ratioFloorBytes: number;
  /** Absolute cap on the output of any one decompression stream (a whole archive pass, or one member). */
  maxStreamBytes: number;
  /** Decompressed bytes of one input in all: every pass over it, every archive nested in it. */
  maxInputBytes: number;
  /** Archives inside archives, counted from the input. */
  maxDepth: number;
  /** Symlink hops while resolving one path inside a bundle. */
  maxHops: number;
  /** A zip inside an archive is read from memory (zip needs random access): larger ones are skipped with a warning. */
  maxNestedZipBytes: number;
  /** Bundle metadata files (manifest.json, timestamp, node YAMLs …) read whole up to this size. */
  maxMetaBytes: number;
  /** Members of one input kept though nothing reads them (listed only): past it they are counted, not kept. */
  maxIdleMembers: number;
  /** Archive members of one input in all (each costs ~50 µs to index, however small): past it the input is read no further. */
  maxMembers: number;
  /** A binary journal is read from memory (it is read by offset): its first this many bytes (journal.ts). */
  maxJournalBytes: number;
  /** No field of a binary journal decompresses to more than this; a field that claims more is damage. */
  maxJournalFieldBytes: number;
  /** A whole-document export (a JSON array or answer, a CSV: exports.ts) is read whole, parsed, and put in time
   *  order: its first this many bytes (a JSON document past it is not read). */
  maxExportBytes: number;
  /** Heads of small files read whole (their bytes) held per run; past it a file keeps only what is read of its head, and
   *  its bytes are read again when it is read (heads.ts). */
  maxHeldHeadBytes: number;
  /** Files of one folder the user named that are read; past it they are counted in one warning (walk.ts). */
  maxFolderFiles: number;
}

export const DEFAULT_LIMITS: Limits = {
  // Real logs compress 10-30× with xz; 100× after 64 MiB is far past any of them and far below a bomb (≈1000×).
  maxRatio: 100,
  ratioFloorBytes: 64 * 1024 * 1024,
  maxStreamBytes: 32 * 1024 * 1024 * 1024,
  // ~10-20 s of decompression on one core; a 200-node must-gather is ~3 GiB, read twice at most.
  maxInputBytes: 8 * 1024 * 1024 * 1024,
  maxDepth: 4,
  maxHops: 40,
  // Held in memory while read: within the 200 MB the whole run may take.
  maxNestedZipBytes: 32 * 1024 * 1024,
  maxMetaBytes: 8 * 1024 * 1024,
  maxIdleMembers: 10_000,
  maxMembers: 500_000,
  // systemd's own journal files stop at 128 MiB (SystemMaxFileSize's cap).
  maxJournalBytes: 256 * 1024 * 1024,
  // journald splits a service's output lines at LineMax (48K by default); 4 MiB leaves room for other writers.
  maxJournalFieldBytes: 4 * 1024 * 1024,
  // Its entries are decoded into a copy of about its size, read once for the head and once more: 16 MiB keeps a run of
  // 16 MiB of lines within the 200 MB a run may take.
  maxExportBytes: 16 * 1024 * 1024,
  // 100 000 small logs held 40 MB of heads.
  maxHeldHeadBytes: 4 * 1024 * 1024,
  // 100 000 tiny logs take ~160 MB; a million files took gigabytes and minutes (the largest sosreport or must-gather
  // folder holds some tens of thousands).
  maxFolderFiles: 120_000,
};

export const BOMB = 'EBOMB';

/** Decompressed bytes of one input so far, shared by all its streams, and its archive members met so far. */
export class Budget {
  used = 0;
  members = 0;
  constructor(readonly max: number) {}
}

/** Bytes into and out of one decompression stream so far (a member's share of an archive stream is measured on it). */
export interface Meter {
  in: number;
  out: number;
}

/** What bounded() returns: the guarded stream, its meter, and whether its ratio is checked. */
export type Guarded = Readable & { meter: Meter; guard: { ratio: boolean } };

/** The meter of the decompression a stream's bytes come from, if any (a bounded stream, or one that passes it on). */
export function meterOf(s: unknown): Meter | null {
  return (s as { meter?: Meter | null } | null)?.meter ?? null;
}

export function bombError(out: number, inBytes: number, limits: Limits, what: string): Error {
  return Object.assign(
    new Error(
      `decompression stopped after ${mib(out)} from ${mib(inBytes)} of ${what}: more than ${limits.maxRatio}× expansion ` +
        `or ${mib(limits.maxStreamBytes)} (a decompression bomb?)`,
    ),
    { code: BOMB },
  );
}

/** Whether `out` bytes decoded from `inBytes` break the ratio (or the absolute) bound. */
export function tooExpanded(out: number, inBytes: number, limits: Limits): boolean {
  return out > limits.maxStreamBytes || (out > limits.ratioFloorBytes && out > limits.maxRatio * Math.max(inBytes, 1));
}

/**
 * Wraps `decoded` (the output of a decompressor fed from `raw`) so that it fails with code EBOMB as soon as the
 * output outgrows the limits, or the input's budget. `raw` is only observed (its bytes are counted), never consumed.
 * `archive`: the stream of a whole archive, whose members are held to the ratio instead (see memberGuard).
 */
export function bounded(raw: Readable, decoded: Readable, limits: Limits, what: string, opts: { budget?: Budget; archive?: boolean } = {}): Guarded {
  const meter: Meter = { in: 0, out: 0 };
  const state = { ratio: opts.archive !== true };
  const budget = opts.budget;
  raw.on('data', (c: Buffer) => {
    meter.in += c.length;
  });
  const guard = checked(decoded, (chunk) => {
    meter.out += chunk.length;
    if (budget) budget.used += chunk.length;
    if (budget && budget.used > budget.max) {
      return Object.assign(new Error(`decompression stopped: this input's decompressed bytes passed ${mib(budget.max)} (the bound per input)`), { code: BOMB });
    }
    if (state.ratio ? tooExpanded(meter.out, meter.in, limits) : meter.out > limits.maxStreamBytes) return bombError(meter.out, meter.in, limits, what);
    return null;
  });
  return Object.assign(guard, { meter, guard: state });
}

/**
 * A member of an archive read out of the archive's decompression (`meter`, looked up at the first chunk: it may be
 * attached later): its bytes stop with EBOMB once they pass the ratio bound against its share of the compressed input.
 * The archive goes on past it. Without a meter (a plain tar) there is nothing to bound.
 */
export function memberGuard(stream: Readable, meter: () => Meter | null, limits: Limits, what: string): Readable & { guard: { ratio: boolean } } {
  let start: Meter | null = null;
  let out = 0;
  const state = { ratio: true };
  const guard = checked(stream, (chunk) => {
    const m = meter();
    if (m && !start) start = { in: m.in, out: m.out - chunk.length };
    out += chunk.length;
    return state.ratio && m && start && tooExpanded(out, m.in - start.in, limits) ? bombError(out, m.in - start.in, limits, what) : null;
  });
  // Readers further on (an archive inside the member) see the same decompression.
  Object.defineProperty(guard, 'meter', { get: meter });
  return Object.assign(guard, { guard: state });
}

/** `src` through a check of each chunk: the first error it returns ends the stream; `src` is let go with it. */
function checked(src: Readable, check: (chunk: Buffer) => Error | null): Transform {
  const guard = new Transform({
    transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback) {
      const err = check(chunk);
      if (err) cb(err);
      else cb(null, chunk);
    },
  });
  src.on('error', (err) => guard.destroy(err));
  guard.on('close', () => {
    if (!src.destroyed) src.destroy();
  });
  src.pipe(guard);
  return guard;
}

export function mib(n: number): string {
  if (n < 1024) return 'less than 1 KiB';
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(n >= 100 * 1024 * 1024 ? 0 : 1)} MiB` : `${Math.ceil(n / 1024)} KiB`;
}
