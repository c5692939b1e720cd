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
// The file is read from memory (at most limits.maxJournalBytes; systemd's own files stop at 128 MiB): a journal has to
// be read by offset, and an archive member can only be streamed. Bounds for a hostile file: the entry array chain and
// the entries must move forward in the file (a cycle ends the walk), at most n_entries entries are read, every object
// must lie inside the file, no field decodes to more than limits.maxJournalFieldBytes, and all fields of a file to no
// more than the decompression ratio bound (limits.ts). Damage ends the read where it is met, after the entries before
// it, as one stream error ("read stopped after line N: …", the usual warning): a file cut short (copied while
// written), a file still marked online (not closed cleanly: its last entries may be missing) or corrupt. Not read:
// sealing (TAG objects are ignored, nothing is verified), the hash tables (the walk never needs them, keyed or not).
import { Readable } from 'node:stream';
import { collect } from './entry-stream.js';
import { mib, tooExpanded, type Limits } from './limits.js';
import { CodecError, decompressField } from './journal-codecs.js';

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
/** Decoded compressed fields other than MESSAGE kept by offset (a unit's `_CMDLINE` is shared by all its entries). */
const CACHE_ENTRIES = 4096;
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
}

export function isJournal(b: Buffer): boolean {
  return b.length >= 8 && b.toString('latin1', 0, 8) === JOURNAL_MAGIC;
}

/**
 * The JSON lines of a binary journal read from `raw`. Damage (see above) is an 'error' on the returned stream after
 * every sound entry's line, with code ETRUNCATED or ECORRUPT.
 */
export function journalLines(raw: Readable, limits: Limits): Readable {
  // Collected from now on: a meter (limits.ts bounded) may set `raw` flowing before the first line is asked for.
  const collecting = collect(raw, limits.maxJournalBytes);
  async function* lines(): AsyncGenerator<Buffer> {
    const got = await collecting;
    let cut: string | null = null;
    if (got.error) cut = `the journal file could not be read to its end (${got.error.message})`;
    else if (!got.complete) cut = `journal file larger than ${mib(limits.maxJournalBytes)}: only its first ${mib(limits.maxJournalBytes)} read`;
    let parts: string[] = [];
    let size = 0;
    let damage: unknown = null;
    try {
      for await (const e of journalEntries(got.data, limits, cut)) {
        const line = entryJson(e);
        parts.push(line);
        size += line.length;
        if (size >= CHUNK) {
          yield Buffer.from(parts.join(''), 'utf8');
          parts = [];
          size = 0;
        }
      }
    } catch (err) {
      damage = err;
    }
    if (parts.length > 0) yield Buffer.from(parts.join(''), 'utf8');
    if (damage) throw damage;
  }
  // Not Readable.from: its error would discard the lines still buffered. Damage is told once they have been read.
  const it = lines();
  let failure: Error | null = null;
  const fail = (s: Readable) => {
    if (s.readableLength === 0) s.destroy(failure as Error);
    else s.push(EMPTY); // called again once the buffer is read
  };
  const out = new Readable({
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
      if (!raw.destroyed) raw.destroy();
      it.return(undefined).then(() => cb(err), () => cb(err));
    },
  });
  return out;
}

/** One entry as `journalctl -o json` would print it, restricted to JOURNAL_FIELDS, with its newline. */
export function entryJson(e: JournalEntry): string {
  const o: Record<string, string> = { __REALTIME_TIMESTAMP: e.realtime };
  for (const k of JOURNAL_FIELDS) {
    const v = e.fields[k];
    if (v !== undefined) o[k] = v;
  }
  return `${JSON.stringify(o)}\n`;
}

/**
 * The entries of the journal in `buf`, in entry array order. `cut`: why `buf` may be shorter than the file (a bound, a
 * read error); the walk then ends with that as a truncation where it first needs a byte past `buf`.
 */
export async function* journalEntries(buf: Buffer, limits: Limits, cut: string | null = null): AsyncGenerator<JournalEntry> {
  const r = new JournalReader(buf, limits, cut);
  for (let off = r.firstEntry(); off !== 0; off = r.nextEntry()) {
    const e = r.entry(off);
    yield e instanceof Promise ? await e : e;
    r.read++;
  }
  r.finish();
}

class JournalReader {
  private readonly compact: boolean;
  private readonly headerSize: number;
  /** Where the file says it ends (header_size + arena_size), or the buffer's end if that is sooner. */
  private readonly end: number;
  private readonly declaredEnd: number;
  private readonly nEntries: number;
  private readonly online: boolean;
  private readonly cache = new Map<number, { name: string; value: string | null }>();
  private decoded = 0;
  /** Entries taken from the entry arrays so far, and of them read whole. */
  private n = 0;
  read = 0;
  private prevEntry = 0;
  /** The entry array being walked: its offset, item count and the next item's index. */
  private arr = 0;
  private arrItems = 0;
  private arrIndex = 0;
  private arrays = 0;

  constructor(private readonly buf: Buffer, private readonly limits: Limits, private readonly cutWhy: string | null) {
    if (buf.length < MIN_HEADER || buf.toString('latin1', 0, 8) !== JOURNAL_MAGIC) {
      throw new JournalDamage(`journal file cut short (${buf.length} bytes: not even its header)`, TRUNCATED);
    }
    const incompatible = buf.readUInt32LE(12);
    if (incompatible & ~HEADER_INCOMPATIBLE_KNOWN) {
      throw new JournalDamage(`journal file with unknown incompatible flags 0x${incompatible.toString(16)} (a newer systemd's format): not read`, CORRUPT);
    }
    this.compact = (incompatible & HEADER_INCOMPATIBLE_COMPACT) !== 0;
    this.online = buf[16] === STATE_ONLINE;
    this.headerSize = this.u64(88, 'header size');
    const arena = this.u64(96, 'arena size');
    if (this.headerSize < MIN_HEADER || this.headerSize % 8 !== 0 || this.headerSize > buf.length) {
      throw new JournalDamage(`journal file header damaged (header size ${this.headerSize}): not read`, CORRUPT);
    }
    this.declaredEnd = this.headerSize + arena;
    this.end = Math.min(this.declaredEnd, buf.length);
    this.nEntries = this.u64(152, 'entry count');
  }

  /** The offset of the first entry, 0 when none. */
  firstEntry(): number {
    const first = this.u64(176, 'entry array offset');
    if (first === 0) return 0;
    this.openArray(first);
    return this.nextEntry();
  }

  /** The offset of the next entry in the chain, 0 at its end. */
  nextEntry(): number {
    if (this.n >= this.nEntries || this.arr === 0) return 0;
    const size = this.compact ? 4 : 8;
    while (this.arrIndex >= this.arrItems) {
      const next = this.u64(this.arr + 16, 'entry array link');
      if (next === 0) return 0;
      if (next <= this.arr) throw this.damage('corrupt', `entry array at ${this.arr} links back to ${next}`);
      this.openArray(next);
    }
    const at = this.arr + 24 + this.arrIndex * size;
    const off = this.compact ? this.buf.readUInt32LE(at) : this.u64(at, 'entry offset');
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
    if (++this.arrays > this.buf.length / 24) throw this.damage('corrupt', 'entry array chain too long');
    const size = this.object(off, OBJECT_ENTRY_ARRAY, 24, 'entry array');
    this.arr = off;
    this.arrItems = Math.floor((size - 24) / (this.compact ? 4 : 8));
    this.arrIndex = 0;
  }

  entry(off: number): JournalEntry | Promise<JournalEntry> {
    const size = this.object(off, OBJECT_ENTRY, 64, 'entry');
    const realtime = this.buf.readBigUInt64LE(off + 24).toString();
    const fields: JournalEntry['fields'] = {};
    const itemSize = this.compact ? 4 : 16;
    const items = Math.floor((size - 64) / itemSize);
    let pending: Promise<void>[] | null = null;
    for (let i = 0; i < items; i++) {
      const at = off + 64 + i * itemSize;
      const d = this.compact ? this.buf.readUInt32LE(at) : this.u64(at, 'entry item');
      const f = this.field(d);
      if (f instanceof Promise) {
        (pending ??= []).push(f.then((x) => setField(fields, x)));
      } else {
        setField(fields, f);
      }
    }
    if (pending) return Promise.all(pending).then(() => ({ realtime, fields }));
    return { realtime, fields };
  }

  /** A DATA object: its field name and, for a wanted field, its value. */
  private field(off: number): { name: string; value: string | null } | Promise<{ name: string; value: string | null }> {
    const cached = this.cache.get(off);
    if (cached) return cached;
    const size = this.object(off, OBJECT_DATA, this.compact ? 72 : 64, 'data object');
    const start = off + (this.compact ? 72 : 64);
    const payload = this.buf.subarray(start, off + size);
    const flags = (this.buf[off + 1] as number) & 7;
    if (flags === 0) return nameValue(payload);
    let decoded: Buffer | Promise<Buffer>;
    try {
      decoded = decompressField(flags, payload, this.limits.maxJournalFieldBytes);
    } catch (err) {
      throw this.fieldDamage(off, err);
    }
    const keep = (b: Buffer) => {
      this.decoded += b.length;
      if (tooExpanded(this.decoded, this.buf.length, this.limits)) {
        throw this.damage('corrupt', `its compressed fields decode to more than ${this.limits.maxRatio}× the file's size (a decompression bomb?)`);
      }
      const f = nameValue(b);
      if (f.name !== 'MESSAGE') {
        if (this.cache.size >= CACHE_ENTRIES) this.cache.clear();
        this.cache.set(off, f);
      }
      return f;
    };
    if (decoded instanceof Promise) return decoded.then(keep, (err: unknown) => Promise.reject(this.fieldDamage(off, err)));
    return keep(decoded);
  }

  private fieldDamage(off: number, err: unknown): Error {
    if (err instanceof CodecError) return this.damage('corrupt', `data object at ${off}: ${err.message}`);
    return err as Error;
  }

  /** Checks the object at `off` (alignment, type, size, bounds) and returns its size. */
  private object(off: number, type: number, min: number, what: string): number {
    if (off % 8 !== 0 || off < this.headerSize) throw this.damage('corrupt', `${what} at offset ${off}: not a valid offset`);
    this.need(off + 16, what, off);
    if (this.buf[off] !== type) throw this.damage('corrupt', `${what} at offset ${off}: object of type ${this.buf[off]}`);
    const size = this.buf.readBigUInt64LE(off + 8);
    if (size < BigInt(min) || size > BigInt(this.declaredEnd - off)) throw this.damage('corrupt', `${what} at offset ${off}: size ${size}`);
    this.need(off + Number(size), what, off);
    return Number(size);
  }

  /** Bytes up to `to` must be in the buffer: past it, the file was cut (or says it ends sooner: corrupt). */
  private need(to: number, what: string, off: number): void {
    if (to <= this.end) return;
    if (to > this.declaredEnd) throw this.damage('corrupt', `${what} at offset ${off} is past the arena`);
    throw this.damage('truncated', `${what} at offset ${off} is past the end`);
  }

  private u64(at: number, what: string): number {
    if (at + 8 > this.buf.length) throw this.damage('truncated', `${what} cut`);
    const v = this.buf.readBigUInt64LE(at);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw this.damage('corrupt', `${what} ${v}`);
    return Number(v);
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
      const why = this.cutWhy ?? `journal file cut short (${this.buf.length} of ${this.declaredEnd || '?'} bytes)`;
      return new JournalDamage(`${why}: ${read}, ${detail}`, TRUNCATED);
    }
    return new JournalDamage(`journal file damaged: ${read}, ${detail}${this.online ? ' (not closed cleanly: state online)' : ''}`, CORRUPT);
  }
}

function setField(fields: JournalEntry['fields'], f: { name: string; value: string | null }): void {
  if (f.value === null) return;
  const k = f.name as Field;
  // A field given twice: the first value (journalctl -o json would print an array).
  if (fields[k] === undefined) fields[k] = f.value;
}

const EQ = 0x3d;

/** `NAME=value`: the name, and the value when the field is one plegscope reads. */
function nameValue(b: Buffer): { name: string; value: string | null } {
  const eq = b.indexOf(EQ);
  if (eq <= 0 || eq > MAX_NAME) return { name: '', value: null };
  const name = b.toString('latin1', 0, eq);
  if (!WANTED.has(name)) return { name, value: null };
  const end = name === 'MESSAGE' ? Math.min(b.length, eq + 1 + MAX_MESSAGE) : b.length;
  return { name, value: b.toString('utf8', eq + 1, end) };
}
