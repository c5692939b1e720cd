// Binary systemd journal files (`system.journal`, archived `system@….journal`, `*.journal~`), read natively: no
// journalctl at run time. A journal is decoded like a compression (decode.ts: magic `LPKSHHRH`) into what
// `journalctl --file F -o json` would print, one line per entry in the order of the file's entry array (time order),
// restricted to the fields plegscope reads, so that sniffing, the recogniser (which already reads journal JSON lines:
// record.ts parseJsonLine), node naming (`_HOSTNAME`) and evidence refs work unchanged. Line N is the file's N-th
// entry: a report's `system.journal:1231` is the 1231st entry (`journalctl --file system.journal | sed -n 1231p` when
// no entry spans lines). Sample (one entry of a journal written by systemd-journal-remote):
//
//   {"__REALTIME_TIMESTAMP":"1710151815727123","_HOSTNAME":"worker-3","_SYSTEMD_UNIT":"kubelet.service",
//    "SYSLOG_IDENTIFIER":"kubelet","_PID":"2817","_TRANSPORT":"stdout","MESSAGE":"I0311 10:10:15.727123    2817
//    kubelet.go:2386] \"Skipping pod synchronization\" err=\"[container runtime is down, PLEG is not healthy: …]\""}
//
// The time is the entry object's realtime (UTC microseconds since the epoch: a full date, no year or zone guessed).
// Format (systemd src/libsystemd/sd-journal/journal-def.h, docs/JOURNAL_FILE_FORMAT.md): a 208..272-byte header
// (entry_array_offset at 176, n_entries at 152, header_size at 88, arena_size at 96, state at 16, incompatible flags
// at 12), then 8-byte aligned objects (16-byte header: type, flags, size). The global ENTRY_ARRAY chain lists the
// ENTRY objects by offset; an entry's items point at DATA objects (`FIELD=value`, perhaps compressed:
// journal-codecs.ts). The "compact" incompatible flag (systemd 252+) stores 32-bit offsets in entry items and entry
// arrays (and two more fields in DATA objects before the payload).
//
// A journal has to be read by offset. A file on disk is (journalFileLines: four reused 1 MiB windows, so memory does not
// grow with the file); an archive member or stdin can only be streamed, so it is held in memory while read (at most
// limits.maxJournalBytes; systemd's own files stop at 128 MiB). Fields shared by many entries (host, unit, command
// line) are decoded once and kept by offset. Bounds for a hostile file: the entry array chain and
// the entries must move forward in the file (a cycle ends the walk), at most n_entries entries are read, every object
// must lie inside the file, no field decodes to more than limits.maxJournalFieldBytes, and all fields of a file to no
// more than the decompression ratio bound (limits.ts). Damage ends the read where it is met, after the entries before
// it, as one stream error ("read stopped after line N: …", the usual warning): a file cut short (copied while
// written), a file still marked online (not closed cleanly: its last entries may be missing) or corrupt. Not read:
// sealing (TAG objects are ignored, nothing is verified), the hash tables (the walk never needs them, keyed or not).
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { collect } from './entry-stream.js';
import { shortError } from '../fserror.js';
import { mib, tooExpanded, type Limits } from './limits.js';
import { CodecError, OBJECT_COMPRESSED_XZ, decompressField } from './journal-codecs.js';
import { openInputSync } from './source.js';

export const JOURNAL_MAGIC = 'LPKSHHRH';

/** Error codes of a journal read that stopped (the same as decode.ts's TRUNCATED / CORRUPT). */
const TRUNCATED = 'ETRUNCATED';
const CORRUPT = 'ECORRUPT';

const OBJECT_DATA = 1;
const OBJECT_ENTRY = 3;
const OBJECT_ENTRY_ARRAY = 6;
const STATE_ONLINE = 1;
const HEADER_INCOMPATIBLE_COMPACT = 1 << 4;
/** XZ, LZ4, KEYED_HASH, ZSTD, COMPACT: every incompatible flag systemd defines (257). */
const HEADER_INCOMPATIBLE_KNOWN = 0x1f;
/** The header up to tail_entry_monotonic: present in every version of the format. */
const MIN_HEADER = 208;

/** Fields kept, in the order they are written. */
export const JOURNAL_FIELDS = ['_HOSTNAME', '_SYSTEMD_UNIT', 'SYSLOG_IDENTIFIER', '_COMM', '_PID', 'SYSLOG_PID', '_TRANSPORT', 'PRIORITY', 'MESSAGE'] as const;
const WANTED: ReadonlySet<string> = new Set(JOURNAL_FIELDS);
type Field = (typeof JOURNAL_FIELDS)[number];
/** Field names are at most 64 bytes (journal_field_valid). */
const MAX_NAME = 64;
/** A MESSAGE is cut here, so that its JSON line stays whole under the line reader's 256 KiB cut. */
const MAX_MESSAGE = 128 * 1024;
/** JSON lines handed on together. */
const CHUNK = 256 * 1024;
/** Fields other than MESSAGE kept by offset, read once: a unit's host, unit, PID, `_CMDLINE` are shared by its entries. */
const CACHE_ENTRIES = 65536;
const CACHED_VALUE = 4096;
const EMPTY = Buffer.alloc(0);

export class JournalDamage extends Error {
  constructor(message: string, readonly code: string) {
    super(message);
  }
}

export interface JournalEntry {
  /** __REALTIME_TIMESTAMP, µs since the epoch, as journalctl prints it. */
  realtime: string;
  fields: Partial<Record<Field, string>>;
  /** Each field as it is written in the JSON line (`,"NAME":"value"`), where already made (shared fields: once). */
  json?: Partial<Record<Field, string>>;
}

export function isJournal(b: Buffer): boolean {
  return b.length >= 8 && b.toString('latin1', 0, 8) === JOURNAL_MAGIC;
}

/**
 * The JSON lines of a binary journal read from `raw` (an archive member, stdin): held in memory, its first
 * limits.maxJournalBytes. Damage (see above) is an 'error' on the returned stream after every sound entry's line, with
 * code ETRUNCATED or ECORRUPT.
 */
export function journalLines(raw: Readable, limits: Limits): Readable {
  // Collected from now on: a meter (limits.ts bounded) may set `raw` flowing before the first line is asked for.
  const collecting = collect(raw, limits.maxJournalBytes);
  return linesOf(async () => {
    const got = await collecting;
    let cut: string | null = null;
    if (got.error) cut = `the journal file could not be read to its end (${got.error.message})`;
    else if (!got.complete) cut = `journal file larger than ${mib(limits.maxJournalBytes)}: only its first ${mib(limits.maxJournalBytes)} read`;
    return { bytes: new BufferBytes(got.data), cut };
  }, limits, () => {
    if (!raw.destroyed) raw.destroy();
  });
}

/** The same from a file on disk, read by offset through a few reused windows: memory does not grow with the file. */
export function journalFileLines(realPath: string, limits: Limits): Readable {
  let bytes: FileBytes | null = null;
  return linesOf(async () => {
    bytes = FileBytes.open(realPath);
    return { bytes, cut: null };
  }, limits, () => bytes?.close());
}

function linesOf(open: () => Promise<{ bytes: Bytes; cut: string | null }>, limits: Limits, release: () => void): Readable {
  async function* lines(): AsyncGenerator<Buffer> {
    const { bytes, cut } = await open();
    // Lines are written into one chunk at a time (a string per line, no join).
    let chunk = Buffer.allocUnsafe(CHUNK);
    let size = 0;
    let damage: unknown = null;
    try {
      const r = new JournalReader(bytes, limits, cut);
      // Synchronous but for XZ fields: an await per entry would cost more than reading it.
      for (let e = r.next(); e !== null; e = r.next()) {
        const line = entryJson(e instanceof Promise ? await e : e);
        // UTF-8 takes at most 3 bytes per UTF-16 unit.
        if (size > 0 && size + line.length * 3 > chunk.length) {
          yield chunk.subarray(0, size);
          chunk = Buffer.allocUnsafe(CHUNK);
          size = 0;
        }
        if (line.length * 3 > chunk.length) {
          yield Buffer.from(line, 'utf8');
          continue;
        }
        size += chunk.write(line, size, 'utf8');
      }
      r.finish();
    } catch (err) {
      damage = err;
    }
    if (size > 0) yield chunk.subarray(0, size);
    release();
    if (damage) throw damage;
  }
  // Not Readable.from: its error would discard the lines still buffered. Damage is told once they have been read.
  const it = lines();
  let failure: Error | null = null;
  const fail = (s: Readable) => {
    if (s.readableLength === 0) s.destroy(failure as Error);
    else s.push(EMPTY); // called again once the buffer is read
  };
  return new Readable({
    read() {
      if (failure) return fail(this);
      it.next().then(
        (r) => this.push(r.done ? null : r.value),
        (err: unknown) => {
          failure = err instanceof Error ? err : new Error(String(err));
          fail(this);
        },
      );
    },
    destroy(err, cb) {
      release();
      it.return(undefined).then(() => cb(err), () => cb(err));
    },
  });
}

/** One entry as `journalctl -o json` would print it, restricted to JOURNAL_FIELDS, with its newline. */
export function entryJson(e: JournalEntry): string {
  let line = `{"__REALTIME_TIMESTAMP":"${e.realtime}"`;
  for (const k of JOURNAL_FIELDS) {
    const v = e.fields[k];
    if (v !== undefined) line += e.json?.[k] ?? `,"${k}":${JSON.stringify(v)}`;
  }
  return `${line}}\n`;
}

/**
 * The entries of the journal in `buf`, in entry array order. `cut`: why `buf` may be shorter than the file (a bound, a
 * read error); the walk then ends with that as a truncation where it first needs a byte past `buf`.
 */
export async function* journalEntries(buf: Buffer, limits: Limits, cut: string | null = null): AsyncGenerator<JournalEntry> {
  const r = new JournalReader(new BufferBytes(buf), limits, cut);
  for (let e = r.next(); e !== null; e = r.next()) yield e instanceof Promise ? await e : e;
  r.finish();
}

/** A journal's bytes by offset. A view is valid until the next call (it may be a window that is then reused). */
interface Bytes {
  readonly length: number;
  view(off: number, len: number): Buffer;
}

class BufferBytes implements Bytes {
  constructor(private readonly buf: Buffer) {}
  get length(): number {
    return this.buf.length;
  }
  view(off: number, len: number): Buffer {
    return this.buf.subarray(off, off + len);
  }
}

/** Windows of a file, read synchronously (a journal is read at once, by offsets mostly moving forward). */
const WINDOW = 1024 * 1024;
const WINDOWS = 4;

class FileBytes implements Bytes {
  private readonly windows: Array<{ start: number; len: number; buf: Buffer }> = [];
  private closed = false;

  private constructor(private readonly fd: number, readonly length: number) {}

  static open(realPath: string): FileBytes {
    let fd: number;
    try {
      fd = openInputSync(realPath);
    } catch (err) {
      throw shortError(err);
    }
    try {
      const st = fs.fstatSync(fd);
      return new FileBytes(fd, st.size);
    } catch (err) {
      fs.closeSync(fd);
      throw shortError(err);
    }
  }

  view(off: number, len: number): Buffer {
    const end = Math.min(off + len, this.length);
    for (let i = 0; i < this.windows.length; i++) {
      const w = this.windows[i] as { start: number; len: number; buf: Buffer };
      if (off >= w.start && end <= w.start + w.len) {
        if (i > 0) {
          this.windows.splice(i, 1);
          this.windows.unshift(w);
        }
        return w.buf.subarray(off - w.start, end - w.start);
      }
    }
    // A large object gets a buffer of its own; anything else a window from its page on (the least recently used one).
    if (end - off > WINDOW / 2) return this.whole(this.read(Buffer.allocUnsafe(end - off), off), end - off);
    const start = Math.max(0, Math.min(off - (off % 4096), this.length - WINDOW));
    const w = this.windows.length < WINDOWS ? { start: 0, len: 0, buf: Buffer.allocUnsafe(WINDOW) } : (this.windows.pop() as { start: number; len: number; buf: Buffer });
    w.start = start;
    w.len = this.read(w.buf, start).length;
    this.windows.unshift(w);
    return this.whole(w.buf.subarray(off - w.start, Math.min(end, w.start + w.len) - w.start), end - off);
  }

  /** A file cut while it is read (the size fstat gave is gone) ends the read as damage, not as a RangeError. */
  private whole(b: Buffer, len: number): Buffer {
    if (b.length < len) throw new JournalDamage('journal file got shorter while it was read', TRUNCATED);
    return b;
  }

  private read(buf: Buffer, pos: number): Buffer {
    if (this.closed) throw new Error('journal file closed');
    let got = 0;
    while (got < buf.length) {
      const n = fs.readSync(this.fd, buf, got, buf.length - got, pos + got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    fs.closeSync(this.fd);
  }
}

type FieldValue = { name: string; value: string | null; json?: string };

class JournalReader {
  private readonly compact: boolean;
  private readonly headerSize: number;
  /** Where the file says it ends (header_size + arena_size), or where the bytes end if that is sooner. */
  private readonly end: number;
  private readonly declaredEnd: number;
  private readonly nEntries: number;
  private readonly online: boolean;
  private readonly cache = new Map<number, FieldValue>();
  private decoded = 0;
  /** Entries taken from the entry arrays so far, and of them read whole. */
  private n = 0;
  private read = 0;
  private started = false;
  private prevEntry = 0;
  /** The entry array being walked (its own copy): its offset, items and the next item's index. */
  private arr = 0;
  private arrItems: Buffer = EMPTY;
  private arrCount = 0;
  private arrIndex = 0;
  private arrays = 0;
  /** The header's first bytes (a copy). */
  private readonly header: Buffer;

  constructor(private readonly bytes: Bytes, private readonly limits: Limits, private readonly cutWhy: string | null) {
    const length = bytes.length;
    this.header = Buffer.from(bytes.view(0, Math.min(length, 272)));
    if (length < MIN_HEADER || this.header.toString('latin1', 0, 8) !== JOURNAL_MAGIC) {
      throw new JournalDamage(`journal file cut short (${length} bytes: not even its header)`, TRUNCATED);
    }
    const incompatible = this.header.readUInt32LE(12);
    if (incompatible & ~HEADER_INCOMPATIBLE_KNOWN) {
      throw new JournalDamage(`journal file with unknown incompatible flags 0x${incompatible.toString(16)} (a newer systemd's format): not read`, CORRUPT);
    }
    this.compact = (incompatible & HEADER_INCOMPATIBLE_COMPACT) !== 0;
    this.online = this.header[16] === STATE_ONLINE;
    this.headerSize = this.u64(this.header, 88, 'header size');
    const arena = this.u64(this.header, 96, 'arena size');
    if (this.headerSize < MIN_HEADER || this.headerSize % 8 !== 0 || this.headerSize > length) {
      throw new JournalDamage(`journal file header damaged (header size ${this.headerSize}): not read`, CORRUPT);
    }
    this.declaredEnd = this.headerSize + arena;
    this.end = Math.min(this.declaredEnd, length);
    this.nEntries = this.u64(this.header, 152, 'entry count');
  }

  /** The next entry (a promise when it has XZ fields), null after the last. */
  next(): JournalEntry | Promise<JournalEntry> | null {
    const off = this.started ? this.nextEntry() : this.firstEntry();
    this.started = true;
    if (off === 0) return null;
    const e = this.entry(off);
    if (!(e instanceof Promise)) {
      this.read++;
      return e;
    }
    return e.then((x) => {
      this.read++;
      return x;
    });
  }

  /** The offset of the first entry, 0 when none. */
  private firstEntry(): number {
    const first = this.u64(this.header, 176, 'entry array offset');
    if (first === 0) return 0;
    this.openArray(first);
    return this.nextEntry();
  }

  /** The offset of the next entry in the chain, 0 at its end. */
  private nextEntry(): number {
    if (this.n >= this.nEntries || this.arr === 0) return 0;
    while (this.arrIndex >= this.arrCount) {
      const next = this.u64(this.arrItems, 0, 'entry array link');
      if (next === 0) return 0;
      if (next <= this.arr) throw this.damage('corrupt', `entry array at ${this.arr} links back to ${next}`);
      this.openArray(next);
    }
    // arrItems holds the array from next_entry_array_offset on: the items start 8 bytes in.
    const at = 8 + this.arrIndex * (this.compact ? 4 : 8);
    const off = this.compact ? this.arrItems.readUInt32LE(at) : this.u64(this.arrItems, at, 'entry offset');
    this.arrIndex++;
    // Unused slots of the last array are zero.
    if (off === 0) return 0;
    if (off <= this.prevEntry) throw this.damage('corrupt', `entry array lists entry ${off} after entry ${this.prevEntry}`);
    this.prevEntry = off;
    this.n++;
    return off;
  }

  private openArray(off: number): void {
    // Offsets only move forward (checked by the caller), so the chain cannot loop; this bounds a chain of empty arrays.
    if (++this.arrays > this.bytes.length / 24) throw this.damage('corrupt', 'entry array chain too long');
    const size = this.object(off, OBJECT_ENTRY_ARRAY, 24, 'entry array');
    this.arr = off;
    this.arrItems = Buffer.from(this.bytes.view(off + 16, size - 16));
    this.arrCount = Math.floor((size - 24) / (this.compact ? 4 : 8));
    this.arrIndex = 0;
  }

  private entry(off: number): JournalEntry | Promise<JournalEntry> {
    const size = this.object(off, OBJECT_ENTRY, 64, 'entry');
    const v = this.bytes.view(off, size);
    const realtime = v.readBigUInt64LE(24).toString();
    const itemSize = this.compact ? 4 : 16;
    const count = Math.floor((size - 64) / itemSize);
    // The items first: reading the data objects may reuse the window the entry is in.
    const items: number[] = [];
    for (let i = 0; i < count; i++) items.push(this.compact ? v.readUInt32LE(64 + i * 4) : this.u64(v, 64 + i * 16, 'entry item'));
    const e: JournalEntry = { realtime, fields: {}, json: {} };
    let pending: Promise<void>[] | null = null;
    for (const d of items) {
      const f = this.field(d);
      if (f instanceof Promise) (pending ??= []).push(f.then((x) => setField(e, x)));
      else setField(e, f);
    }
    if (pending) return Promise.all(pending).then(() => e);
    return e;
  }

  /** A DATA object: its field name and, for a wanted field, its value. */
  private field(off: number): FieldValue | Promise<FieldValue> {
    const cached = this.cache.get(off);
    if (cached) return cached;
    const size = this.object(off, OBJECT_DATA, this.compact ? 72 : 64, 'data object');
    const v = this.bytes.view(off, size);
    const flags = (v[1] as number) & 7;
    const payload = v.subarray(this.compact ? 72 : 64);
    if (flags === 0) return this.remember(off, nameValue(payload));
    let decoded: Buffer | Promise<Buffer>;
    try {
      // XZ decodes asynchronously: from its own copy, since the window may be reused meanwhile.
      decoded = decompressField(flags, flags === OBJECT_COMPRESSED_XZ ? Buffer.from(payload) : payload, this.limits.maxJournalFieldBytes);
    } catch (err) {
      throw this.fieldDamage(off, err);
    }
    const keep = (b: Buffer) => {
      this.decoded += b.length;
      if (tooExpanded(this.decoded, this.bytes.length, this.limits)) {
        throw this.damage('corrupt', `its compressed fields decode to more than ${this.limits.maxRatio}× the file's size (a decompression bomb?)`);
      }
      return this.remember(off, nameValue(b));
    };
    if (decoded instanceof Promise) return decoded.then(keep, (err: unknown) => Promise.reject(this.fieldDamage(off, err)));
    return keep(decoded);
  }

  /** Fields shared by many entries (host, unit, command line …) are read once; messages, mostly unique, are not kept. */
  private remember(off: number, f: FieldValue): FieldValue {
    if (f.name === 'MESSAGE' || (f.value !== null && f.value.length > CACHED_VALUE)) return f;
    if (f.value !== null) f.json = `,"${f.name}":${JSON.stringify(f.value)}`;
    if (this.cache.size >= CACHE_ENTRIES) this.cache.clear();
    this.cache.set(off, f);
    return f;
  }

  private fieldDamage(off: number, err: unknown): Error {
    if (err instanceof CodecError) return this.damage('corrupt', `data object at ${off}: ${err.message}`);
    return err as Error;
  }

  /** Checks the object at `off` (alignment, type, size, bounds) and returns its size. */
  private object(off: number, type: number, min: number, what: string): number {
    if (off % 8 !== 0 || off < this.headerSize) throw this.damage('corrupt', `${what} at offset ${off}: not a valid offset`);
    this.need(off + 16, what, off);
    const h = this.bytes.view(off, 16);
    if (h[0] !== type) throw this.damage('corrupt', `${what} at offset ${off}: object of type ${h[0]}`);
    const size = h.readUInt32LE(8) + h.readUInt32LE(12) * 2 ** 32;
    if (size < min || size > this.declaredEnd - off) throw this.damage('corrupt', `${what} at offset ${off}: size ${h.readBigUInt64LE(8)}`);
    this.need(off + size, what, off);
    return size;
  }

  /** Bytes up to `to` must be there: past them, the file was cut (or says it ends sooner: corrupt). */
  private need(to: number, what: string, off: number): void {
    if (to <= this.end) return;
    if (to > this.declaredEnd) throw this.damage('corrupt', `${what} at offset ${off} is past the arena`);
    throw this.damage('truncated', `${what} at offset ${off} is past the end`);
  }

  private u64(b: Buffer, at: number, what: string): number {
    if (at + 8 > b.length) throw this.damage('truncated', `${what} cut`);
    // Two halves, no BigInt (a hot path); past 2^53 the value cannot be an offset or a count in any file.
    const hi = b.readUInt32LE(at + 4);
    if (hi > 0x1fffff) throw this.damage('corrupt', `${what} ${b.readBigUInt64LE(at)}`);
    return b.readUInt32LE(at) + hi * 2 ** 32;
  }

  /** The end of a walk that met no damage: a file that says it is still being written gets its warning. */
  finish(): void {
    if (this.online) {
      throw new JournalDamage('journal file not closed cleanly (state online: copied while journald wrote it); entries written after the copy began may be missing', TRUNCATED);
    }
  }

  private damage(kind: 'truncated' | 'corrupt', detail: string): JournalDamage {
    const read = `${this.read === 0 ? 'no entry' : this.read === 1 ? '1 entry' : `${this.read} entries`} read`;
    if (kind === 'truncated') {
      const why = this.cutWhy ?? `journal file cut short (${this.bytes.length} of ${this.declaredEnd || '?'} bytes)`;
      return new JournalDamage(`${why}: ${read}, ${detail}`, TRUNCATED);
    }
    return new JournalDamage(`journal file damaged: ${read}, ${detail}${this.online ? ' (not closed cleanly: state online)' : ''}`, CORRUPT);
  }
}

function setField(e: JournalEntry, f: FieldValue): void {
  if (f.value === null) return;
  const k = f.name as Field;
  // A field given twice: the first value (journalctl -o json would print an array).
  if (e.fields[k] !== undefined) return;
  e.fields[k] = f.value;
  if (f.json !== undefined) (e.json as Partial<Record<Field, string>>)[k] = f.json;
}

const EQ = 0x3d;

/** `NAME=value`: the name, and the value when the field is one plegscope reads. */
function nameValue(b: Buffer): FieldValue {
  const eq = b.indexOf(EQ);
  if (eq <= 0 || eq > MAX_NAME) return { name: '', value: null };
  const name = b.toString('latin1', 0, eq);
  if (!WANTED.has(name)) return { name, value: null };
  const end = name === 'MESSAGE' ? Math.min(b.length, eq + 1 + MAX_MESSAGE) : b.length;
  return { name, value: b.toString('utf8', eq + 1, end) };
}
