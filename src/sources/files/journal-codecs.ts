// The three compressions systemd applies to a journal's DATA objects (src/basic/compress.c, systemd 252-257), each
// decoded in-process with a bound on what it may allocate: the sizes a hostile file declares are checked before
// anything is allocated, and nothing decodes to more than `max` bytes.
//   - LZ4 (OBJECT_COMPRESSED_LZ4 = 2): the uncompressed size as 8 bytes little-endian, then one raw LZ4 *block* (not
//     the LZ4 frame format): decoded here (the block format is ~40 lines).
//   - ZSTD (4): one zstd frame with its content size (ZSTD_compress): decoded by fzstd (pure JS) after our own check
//     of the frame header's content and window sizes, on that frame alone (its blocks walked to find its end).
//   - XZ (1): an .xz stream without check (lzma_stream_buffer_encode, LZMA_CHECK_NONE): decoded by xz-decompress
//     (xz-embedded in WebAssembly) after a check of the LZMA2 dictionary size, and stopped once past `max`.
import { lazyRequire } from '../../util/lazy-require.js';

export const OBJECT_COMPRESSED_XZ = 1;
export const OBJECT_COMPRESSED_LZ4 = 2;
export const OBJECT_COMPRESSED_ZSTD = 4;

/** The largest LZMA2 dictionary accepted (xz -9 uses 64 MiB; systemd 1 MiB). */
const MAX_XZ_DICT = 64 * 1024 * 1024;

export class CodecError extends Error {}

const fzstd = lazyRequire<typeof import('fzstd')>('fzstd');
const xzDecompress = lazyRequire<typeof import('xz-decompress')>('xz-decompress');

/** A DATA object's payload with compression flag `flags`, decoded; a sync result except for XZ. */
export function decompressField(flags: number, src: Buffer, max: number): Buffer | Promise<Buffer> {
  if (flags === OBJECT_COMPRESSED_LZ4) return lz4Field(src, max);
  if (flags === OBJECT_COMPRESSED_ZSTD) return zstdField(src, max);
  if (flags === OBJECT_COMPRESSED_XZ) return xzField(src, max);
  throw new CodecError(`unknown compression flags 0x${flags.toString(16)}`);
}

/** systemd's LZ4 framing: le64 uncompressed size, then a raw LZ4 block. */
export function lz4Field(src: Buffer, max: number): Buffer {
  if (src.length <= 8) throw new CodecError('LZ4 data shorter than its size prefix');
  const size = src.readBigUInt64LE(0);
  if (size > BigInt(max)) throw new CodecError(`LZ4 data claims ${size} bytes uncompressed (more than ${max})`);
  return lz4Block(src.subarray(8), Number(size));
}

/** One raw LZ4 block that must decode to exactly `size` bytes. Every length is checked against both buffers. */
export function lz4Block(src: Buffer, size: number): Buffer {
  const out = Buffer.allocUnsafe(size);
  const end = src.length;
  let ip = 0;
  let op = 0;
  const bad = (why: string): never => {
    throw new CodecError(`corrupt LZ4 block (${why})`);
  };
  /** A length's extension bytes (255, 255, …, then the last): their sum. */
  const extra = (what: string): number => {
    let sum = 0;
    let b = 255;
    while (b === 255) {
      if (ip >= end) bad(`${what} length runs past the end`);
      b = src[ip++] as number;
      sum += b;
    }
    return sum;
  };
  while (ip < end) {
    const token = src[ip++] as number;
    let lit = token >>> 4;
    if (lit === 15) lit += extra('literal');
    if (ip + lit > end || op + lit > size) bad('literals past the end');
    src.copy(out, op, ip, ip + lit);
    ip += lit;
    op += lit;
    // The last sequence has literals only.
    if (ip === end) break;
    if (ip + 2 > end) bad('match offset cut');
    const offset = (src[ip] as number) | ((src[ip + 1] as number) << 8);
    ip += 2;
    if (offset === 0 || offset > op) bad('match offset out of range');
    let len = token & 15;
    if (len === 15) len += extra('match');
    len += 4;
    if (op + len > size) bad('match past the declared size');
    let m = op - offset;
    if (offset >= len) {
      out.copy(out, op, m, m + len);
      op += len;
    } else {
      // Overlapping match: a run, copied byte by byte.
      for (let k = 0; k < len; k++) out[op++] = out[m++] as number;
    }
  }
  if (op !== size) bad(`${op} bytes decoded, ${size} declared`);
  return out;
}

/** One zstd frame, its declared sizes checked first; only that frame is handed to fzstd. */
export function zstdField(src: Buffer, max: number): Buffer {
  const h = zstdFrame(src, max);
  if (h.contentSize === 0) return Buffer.alloc(0);
  let out: Uint8Array;
  try {
    out = fzstd().decompress(src.subarray(0, h.end));
  } catch (err) {
    throw new CodecError(`corrupt zstd frame (${(err as Error).message})`);
  }
  if (out.length !== h.contentSize) throw new CodecError(`corrupt zstd frame (${out.length} bytes decoded, ${h.contentSize} declared)`);
  return Buffer.from(out.buffer, out.byteOffset, out.length);
}

/** A zstd frame's content size and where it ends (RFC 8878 §3.1.1), without decoding it. */
export function zstdFrame(src: Buffer, max: number): { contentSize: number; end: number } {
  const bad = (why: string): never => {
    throw new CodecError(`corrupt zstd frame (${why})`);
  };
  if (src.length < 6 || src.readUInt32LE(0) !== 0xfd2fb528) bad('no zstd magic');
  const fhd = src[4] as number;
  if (fhd & 0x08) bad('reserved bit set');
  const fcsFlag = fhd >>> 6;
  const single = (fhd >>> 5) & 1;
  const checksum = (fhd >>> 2) & 1;
  const dictBytes = [0, 1, 2, 4][fhd & 3] as number;
  let p = 5;
  let window = 0;
  if (!single) {
    const wd = src[p++] as number;
    const base = 2 ** (10 + (wd >>> 3));
    window = base + (base / 8) * (wd & 7);
  }
  p += dictBytes;
  const fcsBytes = fcsFlag === 0 ? (single ? 1 : 0) : 2 ** fcsFlag;
  if (fcsBytes === 0) bad('no content size (systemd always writes it)');
  if (p + fcsBytes > src.length) bad('header cut');
  let size: number;
  if (fcsBytes === 1) size = src[p] as number;
  else if (fcsBytes === 2) size = src.readUInt16LE(p) + 256;
  else if (fcsBytes === 4) size = src.readUInt32LE(p);
  else {
    const big = src.readBigUInt64LE(p);
    if (big > BigInt(max)) bad(`claims ${big} bytes uncompressed (more than ${max})`);
    size = Number(big);
  }
  p += fcsBytes;
  if (size > max) bad(`claims ${size} bytes uncompressed (more than ${max})`);
  if (!single && window > Math.max(max, 8 * 1024 * 1024)) bad(`window of ${window} bytes`);
  // Blocks: a 3-byte header each (last flag, type, size); an RLE block stores one byte.
  for (;;) {
    if (p + 3 > src.length) bad('block header cut');
    const bh = (src[p] as number) | ((src[p + 1] as number) << 8) | ((src[p + 2] as number) << 16);
    p += 3;
    const type = (bh >>> 1) & 3;
    const bsize = bh >>> 3;
    if (type === 3) bad('reserved block type');
    p += type === 1 ? 1 : bsize;
    if (p > src.length) bad('block cut');
    if (bh & 1) break;
  }
  if (checksum) p += 4;
  if (p > src.length) bad('checksum cut');
  return { contentSize: size, end: p };
}

/** An .xz stream (LZMA2), its dictionary size checked first; decoding stops once past `max` bytes. */
export async function xzField(src: Buffer, max: number): Promise<Buffer> {
  xzDictionary(src);
  const { XzReadableStream } = xzDecompress();
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new Uint8Array(src.buffer, src.byteOffset, src.length));
      c.close();
    },
  });
  const reader = new XzReadableStream(input).getReader();
  const chunks: Buffer[] = [];
  let n = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      n += value.length;
      if (n > max) {
        await reader.cancel().catch(() => undefined);
        throw new CodecError(`XZ data decodes to more than ${max} bytes`);
      }
      chunks.push(Buffer.from(value));
    }
  } catch (err) {
    if (err instanceof CodecError) throw err;
    throw new CodecError(`corrupt XZ data (${(err as Error).message ?? String(err)})`);
  }
  return Buffer.concat(chunks, n);
}

/** The LZMA2 dictionary size of an .xz stream's first block (tukaani xz-file-format §3.1, §5.3.1), checked. */
export function xzDictionary(src: Buffer): number {
  const bad = (why: string): never => {
    throw new CodecError(`corrupt XZ data (${why})`);
  };
  if (src.length < 24 || src.toString('latin1', 0, 6) !== '\xfd7zXZ\x00') bad('no xz magic');
  const headerByte = src[12] as number;
  if (headerByte === 0) return 0; // no block: empty content
  const headerEnd = 12 + (headerByte + 1) * 4;
  if (headerEnd > src.length) bad('block header cut');
  const flags = src[13] as number;
  let p = 14;
  const vli = (): number => {
    let v = 0;
    for (let i = 0; i < 9; i++) {
      if (p >= headerEnd) bad('block header cut');
      const b = src[p++] as number;
      v += (b & 0x7f) * 2 ** (7 * i);
      if (!(b & 0x80)) return v;
    }
    return bad('bad integer');
  };
  if (flags & 0x40) vli();
  if (flags & 0x80) vli();
  const filters = (flags & 3) + 1;
  let dict = 0;
  for (let i = 0; i < filters; i++) {
    const id = vli();
    const propsSize = vli();
    if (p + propsSize > headerEnd) bad('filter properties cut');
    if (id === 0x21) {
      const b = (src[p] as number) & 0x3f;
      if (b > 40) bad('bad dictionary size');
      dict = b === 40 ? 0xffffffff : (2 | (b & 1)) * 2 ** (Math.floor(b / 2) + 11);
    }
    p += propsSize;
  }
  if (dict > MAX_XZ_DICT) bad(`dictionary of ${dict} bytes`);
  return dict;
}
