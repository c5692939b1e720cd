// Bounds for reading bundles. A support bundle is untrusted input: a few kilobytes of gzip can expand to gigabytes,
// and a tar can nest archives in archives. Everything is streamed, so the bounds are about time, not memory.
import { Transform, type Readable, type TransformCallback } from 'node:stream';

export interface Limits {
  /** A decompression stream stops once its output passes `ratioFloorBytes` AND `maxRatio` × its input so far. */
  maxRatio: number;
  ratioFloorBytes: number;
  /** Absolute cap on the output of any one decompression stream (a whole archive pass, or one member). */
  maxStreamBytes: number;
  /** Archives inside archives, counted from the input. */
  maxDepth: number;
  /** Symlink hops while resolving one path inside a bundle. */
  maxHops: number;
  /** A zip inside an archive is read from memory (zip needs random access): larger ones are skipped with a warning. */
  maxNestedZipBytes: number;
  /** Bundle metadata files (manifest.json, timestamp, node YAMLs …) read whole up to this size. */
  maxMetaBytes: number;
}

export const DEFAULT_LIMITS: Limits = {
  // Real logs compress 10-30× with xz; 100× after 64 MiB is far past any of them and far below a bomb (≈1000×).
  maxRatio: 100,
  ratioFloorBytes: 64 * 1024 * 1024,
  maxStreamBytes: 32 * 1024 * 1024 * 1024,
  maxDepth: 4,
  maxHops: 40,
  maxNestedZipBytes: 128 * 1024 * 1024,
  maxMetaBytes: 8 * 1024 * 1024,
};

export const BOMB = 'EBOMB';

/**
 * Wraps `decoded` (the output of a decompressor fed from `raw`) so that it fails with code EBOMB as soon as the
 * output outgrows the limits. `raw` is only observed (its bytes are counted), never consumed.
 */
export function bounded(raw: Readable, decoded: Readable, limits: Limits, what: string): Readable {
  let inBytes = 0;
  let outBytes = 0;
  raw.on('data', (c: Buffer) => {
    inBytes += c.length;
  });
  const guard = new Transform({
    transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback) {
      outBytes += chunk.length;
      if (outBytes > limits.maxStreamBytes || (outBytes > limits.ratioFloorBytes && outBytes > limits.maxRatio * Math.max(inBytes, 1))) {
        cb(
          Object.assign(
            new Error(
              `decompression stopped after ${mib(outBytes)} from ${mib(inBytes)} of ${what}: more than ${limits.maxRatio}× expansion ` +
                `or ${mib(limits.maxStreamBytes)} (a decompression bomb?)`,
            ),
            { code: BOMB },
          ),
        );
        return;
      }
      cb(null, chunk);
    },
  });
  decoded.on('error', (err) => guard.destroy(err));
  guard.on('close', () => {
    if (!decoded.destroyed) decoded.destroy();
  });
  decoded.pipe(guard);
  return guard;
}

export function mib(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(n >= 100 * 1024 * 1024 ? 0 : 1)} MiB` : `${Math.ceil(n / 1024)} KiB`;
}
