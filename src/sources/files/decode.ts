// Compression is decided by magic bytes (names lie: `.gz` files that are plain text, rotated logs without a
// suffix). gzip is decoded in-process; xz and bzip2 by the system tools, which are faster and lighter than
// any pure-JS decoder. A binary systemd journal (magic `LPKSHHRH`) is decoded the same way, in-process, into
// `journalctl -o json` lines (journal.ts).
import fsp from 'node:fs/promises';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough, Transform, type Readable } from 'node:stream';
import type { Compression, ExportDocument } from '../artifact.js';
import { lazyRequire } from '../../util/lazy-require.js';
import { errorCode, mapStreamErrors, shortError } from '../fserror.js';
import { INFLATE_CHUNK, type Source } from './source.js';

// Loaded with the first compressed input: most runs read plain files.
const zlib = lazyRequire<typeof import('node:zlib')>('node:zlib');
const childProcess = lazyRequire<typeof import('node:child_process')>('node:child_process');
import { collect } from './entry-stream.js';
import { DEFAULT_LIMITS, bounded, type Budget, type Limits } from './limits.js';
import { isJournal, journalFileLines, journalLines } from './journal.js';
import { exportDocumentKind, exportHead, exportLines, isExportDocument } from './exports.js';

export const HEAD_BYTES = 64 * 1024;

export interface Tools {
  xz: string;
  bzip2: string;
  zstd?: string;
}

export const DEFAULT_TOOLS: Tools = { xz: 'xz', bzip2: 'bzip2', zstd: 'zstd' };

/** Error codes set on decode errors, for consumers that want to branch without parsing messages. */
export const TRUNCATED = 'ETRUNCATED';
export const CORRUPT = 'ECORRUPT';
export const NO_TOOL = 'ENOTOOL';

export function compressionOf(b: Buffer): Compression {
  if (isJournal(b)) return 'journal';
  if (b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b) return 'gzip';
  if (b.length >= 6 && b[0] === 0xfd && b.toString('latin1', 1, 6) === '7zXZ\x00') return 'xz';
  // 'BZh' + block size digit; the digit keeps a text file starting with "BZh" from being taken for bzip2.
  if (b.length >= 4 && b.toString('latin1', 0, 3) === 'BZh' && (b[3] as number) >= 0x31 && (b[3] as number) <= 0x39) {
    return 'bzip2';
  }
  // A zstd frame (`zstd`, `.jsonl.zst` exports); skippable frames are not looked through.
  if (b.length >= 4 && b[0] === 0x28 && b[1] === 0xb5 && b[2] === 0x2f && b[3] === 0xfd) return 'zstd';
  // UTF-16 text: a byte-order mark (not UTF-32's FF FE 00 00), or ASCII with a NUL after every byte (no mark).
  if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe && !(b.length >= 4 && b[2] === 0 && b[3] === 0)) return 'utf16le';
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) return 'utf16be';
  if (b.length >= 8 && b[1] === 0 && b[3] === 0 && b[5] === 0 && b[7] === 0 && isAscii(b[0]) && isAscii(b[2]) && isAscii(b[4]) && isAscii(b[6])) return 'utf16le';
  // A whole-document cloud or log-store export (a JSON array or answer, a CSV): decoded into journal JSON lines.
  if (isExportDocument(b)) return 'export';
  return null;
}

/** A printable ASCII byte, or TAB/LF/CR. */
function isAscii(c: number | undefined): boolean {
  return c !== undefined && ((c >= 0x20 && c < 0x7f) || c === 9 || c === 10 || c === 13);
}

const toolCache = new Map<string, Promise<boolean>>();

/** Whether a command can be run; looked up once per command per process (PATH search, no spawn). */
export function haveTool(cmd: string): Promise<boolean> {
  let found = toolCache.get(cmd);
  if (!found) {
    found = findExecutable(cmd);
    toolCache.set(cmd, found);
  }
  return found;
}

async function findExecutable(cmd: string): Promise<boolean> {
  const candidates = cmd.includes('/')
    ? [cmd]
    : (process.env.PATH ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, cmd));
  for (const candidate of candidates) {
    try {
      await fsp.access(candidate, fs.constants.X_OK);
      if ((await fsp.stat(candidate)).isFile()) return true;
    } catch {
      // not here
    }
  }
  return false;
}

export function missingToolError(compression: Compression, cmd: string): Error {
  const name = compression ?? 'compressed';
  return Object.assign(
    new Error(`${name}-compressed: cannot be read without the \`${cmd}\` tool (install it, or decompress the file first)`),
    { code: NO_TOOL },
  );
}

export function toolFor(compression: Compression, tools: Tools): string | null {
  return compression === 'xz' ? tools.xz : compression === 'bzip2' ? tools.bzip2 : compression === 'zstd' ? tools.zstd ?? 'zstd' : null;
}

/**
 * The decompressed bytes of `raw`. Damage surfaces as one ordinary 'error' on the returned stream
 * (`truncated gzip stream`, code ETRUNCATED; `corrupt … stream (…)`, code ECORRUPT), after every byte that
 * could be decoded has been delivered, so a consumer can warn and keep what it read.
 */
export function decode(raw: Readable, compression: Compression, tools: Tools = DEFAULT_TOOLS, limits: Limits = DEFAULT_LIMITS, document?: ExportDocument): Readable {
  if (compression === null) return raw;
  if (compression === 'journal') return journalLines(raw, limits);
  if (compression === 'export') return exportLines(raw, limits);
  if (compression === 'utf16le' || compression === 'utf16be') return fromUtf16(raw, compression);
  const text = compression === 'gzip' ? gunzip(raw) : spawnDecoder(raw, compression, toolFor(compression, tools) as string);
  // An export document compressed (`.json.gz`, `.csv.gz`, `.jsonl.zst` holding an array): decompressed, then decoded.
  return document ? exportLines(text, limits) : text;
}

/**
 * decode(), bounded: the output stops with an EBOMB error once it outgrows the limits (limits.ts). Every compressed
 * input goes through it — archive members, archives, loose `.gz`/`.xz`/`.bz2` files and stdin — so none can expand
 * without bound; what was decoded before the stop is read, and the stop becomes a warning.
 */
export function decodeBounded(raw: Readable, compression: Compression, tools: Tools, limits: Limits, what: string, opts: { budget?: Budget; archive?: boolean; document?: ExportDocument } = {}): Readable {
  if (compression === null) return raw;
  return bounded(raw, decode(raw, compression, tools, limits, opts.document), limits, what, opts);
}

function gunzip(raw: Readable): Readable {
  const z = zlib().createGunzip({ chunkSize: INFLATE_CHUNK });
  mapStreamErrors(z, (err) => zlibError(err, 'gzip stream'));
  raw.on('error', (err) => z.destroy(err));
  z.on('close', () => raw.destroy());
  raw.pipe(z);
  return z;
}

/** UTF-16 text as UTF-8, decoded in-process (a character split between chunks is carried over; the mark is dropped). */
function fromUtf16(raw: Readable, encoding: 'utf16le' | 'utf16be'): Readable {
  const dec = new TextDecoder(encoding === 'utf16le' ? 'utf-16le' : 'utf-16be');
  const out = new Transform({
    transform(chunk: Buffer, _enc, done) {
      const s = dec.decode(chunk, { stream: true });
      done(null, s.length > 0 ? Buffer.from(s, 'utf8') : undefined);
    },
    flush(done) {
      const s = dec.decode();
      done(null, s.length > 0 ? Buffer.from(s, 'utf8') : undefined);
    },
  });
  raw.on('error', (err) => out.destroy(err));
  out.on('close', () => raw.destroy());
  raw.pipe(out);
  return out;
}

/** A zlib error as damage: `truncated <what>` (ETRUNCATED) or `corrupt <what> (…)` (ECORRUPT). */
export function zlibError(err: Error, what: string): Error {
  const code = errorCode(err);
  if (code === 'Z_BUF_ERROR' || /unexpected end of file/i.test(err.message)) {
    return Object.assign(new Error(`truncated ${what}`), { code: TRUNCATED });
  }
  if (code?.startsWith('Z_')) return Object.assign(new Error(`corrupt ${what} (${err.message})`), { code: CORRUPT });
  return err;
}

/**
 * The memory xz may use to decode (it counts its threads' too). Threads decode blocks ahead of what is read, each
 * into a buffer of its block's size: a 459 KB file of three 1 GiB blocks made `xz -d -T0` take 3 GB. Under this bound
 * xz runs as many threads as fit, or one (which needs the dictionary only: 65 MiB for `xz -9`); a file whose dictionary
 * alone is larger is refused (a warning, like damage).
 */
export const XZ_MEMLIMIT_MIB = 80;

function spawnDecoder(raw: Readable, compression: 'xz' | 'bzip2' | 'zstd', cmd: string): Readable {
  const out = new PassThrough();
  // zstd keeps its default bound on a frame's window (128 MiB of memory at most): a hostile frame is refused.
  const args = compression === 'xz' ? ['-d', '-c', '-T0', `--memlimit-decompress=${XZ_MEMLIMIT_MIB}MiB`] : compression === 'zstd' ? ['-d', '-c', '-q'] : ['-d', '-c'];
  const child = childProcess().spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let exited = false;
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    if (stderr.length < 4096) stderr += d;
  });
  child.on('error', (err) => {
    exited = true;
    out.destroy(errorCode(err) === 'ENOENT' ? missingToolError(compression, cmd) : shortError(err));
  });
  // EPIPE when the decoder stops reading (damage, or we killed it after the head): its exit status tells.
  child.stdin.on('error', () => undefined);
  raw.on('error', (err) => out.destroy(err));
  raw.pipe(child.stdin);
  child.stdout.pipe(out, { end: false });
  child.on('close', (code, signal) => {
    exited = true;
    if (out.destroyed) return;
    if (code === 0) out.end();
    else out.destroy(toolError(compression, cmd, stderr, code, signal));
  });
  out.on('close', () => {
    raw.destroy();
    if (!exited) child.kill();
  });
  return out;
}

function toolError(compression: string, cmd: string, stderr: string, code: number | null, signal: string | null): Error {
  if (/memory usage limit reached/i.test(stderr)) {
    // (xz 5.4 misstates the memory it would need in the line after: not quoted.)
    return Object.assign(new Error(`${compression} stream refused: decoding it needs more than the ${XZ_MEMLIMIT_MIB} MiB of memory allowed`), { code: CORRUPT });
  }
  if (/unexpected end of input|ends unexpectedly|truncated input|unexpected end of file/i.test(stderr)) {
    return Object.assign(new Error(`truncated ${compression} stream`), { code: TRUNCATED });
  }
  const detail = stderr
    .split('\n')
    .map((l) => l.replace(/^[^:]*: \(stdin\): /, '').replace(/^\S+: /, '').trim())
    .find((l) => l !== '');
  const why = detail ?? (signal ? `${cmd} killed by ${signal}` : `${cmd} exited with status ${code}`);
  return Object.assign(new Error(`corrupt ${compression} stream (${why})`), { code: CORRUPT });
}

export interface Head {
  head: Buffer;
  /** True when the stream ended within the limit: `head` is the whole content. */
  complete: boolean;
  error: Error | null;
}

/** The first `max` bytes of a stream (complete: the stream ended within them); the rest is never read. */
export async function readHead(stream: Readable, max: number): Promise<Head> {
  const r = await collect(stream, max);
  return { head: r.data, complete: r.complete, error: r.error };
}

export interface Probe {
  compression: Compression;
  /** The (decompressed) content is a whole export document: `head` is then the journal JSON lines of its first entries. */
  document?: ExportDocument;
  /** First bytes of the decompressed content. */
  head: Buffer;
  complete: boolean;
  /** Why the content could not be (fully) read within the head, if it could not. */
  error: Error | null;
}

/** Magic bytes, then the decompressed head; at most `max` decompressed bytes are ever produced. */
export async function probe(source: Source, tools: Tools, max: number = HEAD_BYTES): Promise<Probe> {
  const raw: Head = source.head
    ? await source.head(max).then((h) => ({ ...h, error: null }), (err: unknown) => ({ head: Buffer.alloc(0), complete: false, error: err as Error }))
    : await readHead(source.peek(), max);
  const compression = compressionOf(raw.head);
  if (raw.error) return { compression, head: compression ? Buffer.alloc(0) : raw.head, complete: false, error: raw.error };
  if (compression === null) return { compression, ...raw };
  const cmd = toolFor(compression, tools);
  if (cmd !== null && !(await haveTool(cmd))) {
    return { compression, head: Buffer.alloc(0), complete: false, error: missingToolError(compression, cmd) };
  }
  // An export document's head is read from its first bytes alone (its entries there): decoding it for a head would
  // read the whole document, and the read that follows reads it again.
  if (compression === 'export') return { compression, document: exportDocumentKind(raw.head), ...exportHead(raw.head, raw.complete, max), error: null };
  const decoded = await readHead(decodeSource(source, compression, tools, DEFAULT_LIMITS), max);
  if (compression !== 'journal' && compression !== 'utf16le' && compression !== 'utf16be' && !decoded.error && isExportDocument(decoded.head)) {
    return { compression, document: exportDocumentKind(decoded.head), ...exportHead(decoded.head, decoded.complete, max), error: null };
  }
  return { compression, ...decoded };
}

/** A source's decoded bytes: a binary journal on disk is read by offset (journal.ts), everything else as a stream. */
export function decodeSource(source: Source, compression: Compression, tools: Tools, limits: Limits): Readable {
  if (compression === 'journal' && 'realPath' in source) return journalFileLines((source as { realPath: string }).realPath, limits);
  return decode(source.peek(), compression, tools, limits);
}
