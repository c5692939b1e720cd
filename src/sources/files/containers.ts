// Archive containers read in place: tar (plain or compressed, via tar-stream) and zip (our own central-directory
// reader). Nothing is extracted: members are streamed out of the archive when someone reads them.
//
// tar has no index, so a member is reached by streaming the archive up to it. A TarContainer keeps one pass open and
// moves it forward: the pipeline reads artifacts in archive order, so a whole bundle costs one decompression for the
// index and one for the analysis. A request behind the pass (or while the pass is serving somebody else) starts a
// fresh pass. zip is read through its central directory with random access (a file on disk, or a nested zip held in
// memory), because local headers alone cannot say where a stored member with a data descriptor ends, nor which
// members are symlinks.
import fsp from 'node:fs/promises';
import { Readable } from 'node:stream';
import type tar from 'tar-stream';
import { lazyRequire } from '../../util/lazy-require.js';
import { collect, EntryStream } from './entry-stream.js';
import { bounded, meterOf, type Budget, type Limits } from './limits.js';
import { mapStreamErrors, shortError } from '../fserror.js';
import { zlibError } from './decode.js';
import { INFLATE_CHUNK, openInput } from './source.js';

/** Loaded on the first tar: most runs read folders. */
const tarStream = lazyRequire<typeof tar>('tar-stream');
const zlib = lazyRequire<typeof import('node:zlib')>('node:zlib');

export type MemberType = 'file' | 'directory' | 'symlink' | 'link' | 'special';

export interface MemberHeader {
  /** Ordinal of the member in the archive (stable across passes). */
  index: number;
  /** Name as stored (not yet normalised). */
  name: string;
  type: MemberType;
  /** Stored size (for zip: the uncompressed size). */
  size: number;
  mtime: number | null;
  linkname: string | null;
  /** For `special`: what it is (fifo, character device …). */
  special?: string;
  /** Why the member cannot be read (zip: encrypted, unknown method). */
  unreadable?: string;
}

/** Consumer of a member that the container owns; it may be asked to let go (see TarContainer.open). */
export interface Holder {
  idle(): boolean;
  release(): void;
}

export interface Container {
  /** Streams every member once, in order. `body` is null for members without content. Returns the error that cut
   *  the archive short, if one did (members before it were all visited). */
  scan(visit: (h: MemberHeader, body: EntryStream | null) => Promise<void>): Promise<Error | null>;
  /** The stored bytes of member `index` (a nested `.gz` stays compressed). */
  open(index: number, holder?: Holder): Readable;
  close(): void;
}

// ---------------------------------------------------------------------------------------------------------------
// tar

interface TarEntry {
  header: tar.Header;
  stream: EntryBody;
  next: () => void;
  index: number;
}

/** tar-stream's entry streams are streamx readables; only this much of them is used. */
type EntryBody = {
  on(event: string, fn: (...args: never[]) => void): unknown;
  pause(): unknown;
  resume(): unknown;
};

/** One forward-only walk over the members of a tar stream. */
class TarPass {
  private readonly queue: TarEntry[] = [];
  private waiter: ((e: TarEntry | null) => void) | null = null;
  private pendingNext: (() => void) | null = null;
  private count = 0;
  private finished = false;
  error: Error | null = null;
  /** Index of the last member handed out (-1 before the first). */
  pos = -1;
  private readonly extract: ReturnType<typeof tar.extract>;
  private readonly raw: Readable;

  constructor(raw: Readable) {
    this.raw = raw;
    this.extract = tarStream().extract({ filenameEncoding: 'utf-8' } as Parameters<typeof tar.extract>[0]);
    this.extract.on('entry', (header: tar.Header, stream: unknown, next: () => void) => {
      this.deliver({ header, stream: stream as EntryBody, next, index: this.count++ });
    });
    this.extract.on('finish', () => this.end(null));
    this.extract.on('close', () => this.end(null));
    this.extract.on('error', (err: Error) => this.end(err));
    raw.on('error', (err: Error) => {
      this.end(err);
      this.extract.destroy(err);
    });
    raw.pipe(this.extract);
  }

  get dead(): boolean {
    return this.finished;
  }

  /** The decompression this pass reads (its own, or the one the archive around it comes out of). */
  get meter() {
    return meterOf(this.raw);
  }

  /** The next member, after letting the previous one go. null at the end (or on error: see `error`). */
  nextEntry(): Promise<TarEntry | null> {
    if (this.pendingNext) {
      const n = this.pendingNext;
      this.pendingNext = null;
      n();
    }
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(this.handOut(queued));
    if (this.finished) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.waiter = (e) => resolve(e ? this.handOut(e) : null);
    });
  }

  /** The member handed out last has been consumed: the walk may move on when asked. */
  park(next: () => void): void {
    this.pendingNext = next;
  }

  close(): void {
    this.finished = true;
    this.raw.unpipe(this.extract);
    this.raw.destroy();
    this.extract.destroy();
    this.wake(null);
  }

  private handOut(e: TarEntry): TarEntry {
    this.pos = e.index;
    return e;
  }

  private deliver(e: TarEntry): void {
    if (this.waiter) this.wake(e);
    else this.queue.push(e);
  }

  private end(err: Error | null): void {
    if (err && !this.error && !this.finished) this.error = err;
    this.finished = true;
    this.wake(null);
  }

  private wake(e: TarEntry | null): void {
    const w = this.waiter;
    this.waiter = null;
    w?.(e);
  }
}

function memberOf(h: tar.Header, index: number): MemberHeader {
  const t = h.type ?? 'file';
  const base = { index, name: h.name, size: h.size ?? 0, mtime: h.mtime ? h.mtime.getTime() : null, linkname: h.linkname ?? null };
  switch (t) {
    case 'file':
    case 'contiguous-file':
      return { ...base, type: 'file' };
    case 'directory':
      return { ...base, type: 'directory' };
    case 'symlink':
      return { ...base, type: 'symlink' };
    case 'link':
      return { ...base, type: 'link' };
    default:
      return { ...base, type: 'special', special: t.replace(/-/g, ' ') };
  }
}

export class TarContainer implements Container {
  private pass: TarPass | null = null;
  /** The shared pass is serving a member (until that member's stream is done). */
  private serving: Serving | null = null;
  private readonly waiters: Array<{ index: number }> = [];
  private lastFinished: Promise<void> = Promise.resolve();
  private readonly privatePasses = new Set<TarPass>();
  private idleTimer: NodeJS.Timeout | null = null;

  /** `raw()` gives the decompressed tar bytes from the start, every time it is called. */
  constructor(private readonly raw: () => Readable) {}

  /** No member is being served: a parent archive may take back the stream this container reads from. */
  idle(): boolean {
    return this.serving === null;
  }

  releasePass(): void {
    if (this.serving !== null) return;
    this.pass?.close();
    this.pass = null;
  }

  /** `first`: the archive's bytes when already in hand (they were just sniffed), instead of a fresh `raw()`. */
  async scan(visit: (h: MemberHeader, body: EntryStream | null) => Promise<void>, first?: Readable): Promise<Error | null> {
    const pass = new TarPass(first ?? this.raw());
    try {
      for (;;) {
        const e = await pass.nextEntry();
        if (!e) break;
        const h = memberOf(e.header, e.index);
        const body = new EntryStream();
        body.meterFrom = () => pass.meter;
        body.attach(e.stream as never);
        try {
          await visit(h, h.type === 'file' ? body : null);
        } finally {
          if (!body.readableEnded) body.destroy();
          await body.done;
        }
        pass.park(e.next);
      }
      return pass.error;
    } finally {
      pass.close();
    }
  }

  open(index: number, holder?: Holder): Readable {
    const out = new EntryStream();
    this.clearIdle();
    if (this.claim(index, out, holder)) return out;
    const serving = this.serving as Serving;
    if (index <= serving.index) {
      this.servePrivate(index, out);
      return out;
    }
    // Ahead of the member being served: wait for the shared pass rather than decompress the archive again. Waiters
    // go in member order; one whose pass stays stuck (its reader stopped reading) gets a pass of its own.
    const waiter = { index };
    this.waiters.push(waiter);
    const since = Date.now();
    const poll = setInterval(() => {
      const first = this.waiters.reduce((m, w) => (w.index < m.index ? w : m), waiter);
      if (first === waiter && this.claim(index, out, holder)) {
        clearInterval(poll);
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        return;
      }
      const cur = this.serving;
      const idleFor = cur ? Date.now() - cur.out.lastActivity : 0;
      // A reader holding its member without reading (a viewer keeping its place) has a full buffer and no traffic.
      const parked = cur !== null && cur.out.readableLength >= cur.out.readableHighWaterMark && idleFor > PARKED_MS;
      if (cur && (parked || (Date.now() - since > STUCK_MS && idleFor > STUCK_MS))) {
        clearInterval(poll);
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        this.servePrivate(index, out);
      }
    }, 10);
    return out;
  }

  /** Takes the shared pass for member `index` if it is free (or held by an idle nested reader). */
  private claim(index: number, out: EntryStream, holder?: Holder): boolean {
    if (this.serving !== null && !this.serving.holder?.idle()) return false;
    let before: Promise<void> = this.lastFinished;
    if (this.serving) {
      // An idle nested reader lets go first: it restarts if it needs more later. Its turn on the pass must be over
      // (member drained, pass parked) before this one moves the pass on.
      this.serving.holder?.release();
      before = this.serving.finished;
    }
    const mine: Serving = { done: out.done, finished: Promise.resolve(), holder: holder ?? null, index, out };
    this.serving = mine;
    out.done.then(() => {
      if (this.serving === mine) {
        this.serving = null;
        this.armIdle();
      }
    });
    mine.finished = (async () => {
      await before;
      if (!this.pass || this.pass.dead || this.pass.pos >= index) {
        this.pass?.close();
        this.pass = new TarPass(this.raw());
      }
      await serve(this.pass, index, out);
    })();
    this.lastFinished = mine.finished;
    return true;
  }

  private servePrivate(index: number, out: EntryStream): void {
    const pass = new TarPass(this.raw());
    this.privatePasses.add(pass);
    out.done.then(() => {
      pass.close();
      this.privatePasses.delete(pass);
    });
    void serve(pass, index, out);
  }

  close(): void {
    this.clearIdle();
    this.pass?.close();
    this.pass = null;
    for (const p of this.privatePasses) p.close();
    this.privatePasses.clear();
  }

  // An open pass holds a decompressor (maybe a child process): let it go when nobody has asked for a while.
  private armIdle(): void {
    this.clearIdle();
    this.idleTimer = setTimeout(() => {
      if (this.serving === null) {
        this.pass?.close();
        this.pass = null;
      }
    }, 2000);
    this.idleTimer.unref();
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }
}

interface Serving {
  /** The member's stream has ended (read or drained). */
  done: Promise<void>;
  /** The pass is parked after this member: the next one may move it. */
  finished: Promise<void>;
  holder: Holder | null;
  index: number;
  out: EntryStream;
}

/** A reader that has not taken a byte for this long while others wait is taken to have stopped. */
const STUCK_MS = 10_000;
const PARKED_MS = 1_000;

/** Moves `pass` forward to member `index` and hands its bytes to `out`. */
async function serve(pass: TarPass, index: number, out: EntryStream): Promise<void> {
  for (;;) {
    const e = await pass.nextEntry();
    if (!e) {
      out.fail(pass.error ? shortError(pass.error) : new Error('member not found in the archive (was it changed while reading?)'));
      return;
    }
    if (e.index < index) {
      await drain(e.stream);
      pass.park(e.next);
      continue;
    }
    if (e.index > index) {
      out.fail(new Error('member not found in the archive (was it changed while reading?)'));
      pass.park(e.next);
      return;
    }
    out.meterFrom = () => pass.meter;
    out.attach(e.stream as never);
    await out.done;
    pass.park(e.next);
    return;
  }
}

function drain(s: EntryBody): Promise<void> {
  return new Promise((resolve) => {
    s.on('end', () => resolve());
    s.on('error', () => resolve());
    s.on('close', () => resolve());
    s.resume();
  });
}

// ---------------------------------------------------------------------------------------------------------------
// zip

export interface RandomAccess {
  readonly size: number;
  read(pos: number, len: number): Promise<Buffer>;
  close(): void;
}

export class BufferAccess implements RandomAccess {
  constructor(private readonly buf: Buffer) {}
  get size(): number {
    return this.buf.length;
  }
  read(pos: number, len: number): Promise<Buffer> {
    return Promise.resolve(this.buf.subarray(pos, Math.min(this.buf.length, pos + len)));
  }
  close(): void {}
}


export class FileAccess implements RandomAccess {
  private handle: Promise<fsp.FileHandle> | null = null;
  constructor(private readonly realPath: string, readonly size: number) {}
  private fh(): Promise<fsp.FileHandle> {
    this.handle ??= openInput(this.realPath);
    return this.handle;
  }
  async read(pos: number, len: number): Promise<Buffer> {
    const fh = await this.fh();
    const buf = Buffer.alloc(Math.max(0, Math.min(len, this.size - pos)));
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, pos + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return buf.subarray(0, got);
  }
  close(): void {
    const h = this.handle;
    this.handle = null;
    void h?.then((fh) => fh.close()).catch(() => undefined);
  }
}

interface ZipMember extends MemberHeader {
  method: number;
  compressedSize: number;
  localOffset: number;
  /** Where its stored bytes end (from the sizes the directory states; the local extra field is not counted). */
  dataEnd: number;
}

/** Members a zip without its central directory is read for, at most. */
const MAX_LOCAL_MEMBERS = 200_000;

/**
 * Members whose stored bytes overlap another's (a "zip bomb" of many entries sharing one deflate stream, each inflating
 * it anew): all but the first of each overlap are not read. Real zips never overlap.
 */
function markOverlaps(members: ZipMember[]): void {
  const byOffset = members.filter((m) => m.type === 'file' || m.type === 'symlink').sort((a, b) => a.localOffset - b.localOffset || a.index - b.index);
  let end = -1;
  let owner: ZipMember | null = null;
  for (const m of byOffset) {
    if (owner && m.localOffset < end) {
      m.unreadable ??= `overlaps the stored bytes of ${owner.name} (a zip bomb?): not read`;
      continue;
    }
    owner = m;
    end = m.dataEnd;
  }
}

const SIG_EOCD = 0x06054b50;
const SIG_EOCD64_LOC = 0x07064b50;
const SIG_EOCD64 = 0x06064b50;
const SIG_CDH = 0x02014b50;
const SIG_LFH = 0x04034b50;
const SIG_DD = 0x08074b50;

/** A zip symlink's target is read up to this much (PATH_MAX): a central directory may lie about its size. */
export const MAX_LINK_TARGET = 4096;

export class ZipContainer implements Container {
  private members: ZipMember[] | null = null;
  /** Why the central directory could not be used (members then come from their local headers). */
  private damage: Error | null = null;

  constructor(private readonly ra: RandomAccess, private readonly limits: Limits, private readonly label: string, private readonly budget?: Budget) {}

  private async directory(): Promise<ZipMember[]> {
    if (this.members) return this.members;
    let out: ZipMember[];
    try {
      out = await this.centralDirectory();
    } catch (err) {
      // A zip cut short has lost its central directory, which is at the end: its members are still there, each behind a
      // local header, up to the cut (what `zip -FF` recovers).
      out = await this.localHeaders();
      if (out.length === 0) throw err;
      this.damage = Object.assign(new Error(`${(err as Error).message}; ${out.length} member(s) found by their local headers`), { code: 'ETRUNCATED' });
    }
    markOverlaps(out);
    this.members = out;
    for (const m of out) {
      if (m.type === 'symlink' && !m.unreadable) {
        // The stated size is not trusted: the target is inflated up to MAX_LINK_TARGET bytes and no further.
        const t = await collect(this.open(m.index), MAX_LINK_TARGET);
        if (t.complete && !t.error) m.linkname = t.data.toString('utf8');
        else m.unreadable = t.error ? `symlink target could not be read: ${t.error.message}` : `symlink target longer than ${MAX_LINK_TARGET} bytes: not followed`;
      }
    }
    return out;
  }

  private async centralDirectory(): Promise<ZipMember[]> {
    const size = this.ra.size;
    const tailLen = Math.min(size, 65557);
    const tail = await this.ra.read(size - tailLen, tailLen);
    let eocd = -1;
    for (let i = tail.length - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === SIG_EOCD) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) throw new Error('not a readable zip (no central directory: truncated?)');
    let count = tail.readUInt16LE(eocd + 10);
    let cdSize = tail.readUInt32LE(eocd + 12);
    let cdOffset = tail.readUInt32LE(eocd + 16);
    if ((count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) && eocd >= 20 && tail.readUInt32LE(eocd - 20) === SIG_EOCD64_LOC) {
      const at = Number(tail.readBigUInt64LE(eocd - 20 + 8));
      const rec = await this.ra.read(at, 56);
      if (rec.length >= 56 && rec.readUInt32LE(0) === SIG_EOCD64) {
        count = Number(rec.readBigUInt64LE(32));
        cdSize = Number(rec.readBigUInt64LE(40));
        cdOffset = Number(rec.readBigUInt64LE(48));
      }
    }
    if (cdOffset + cdSize > size || cdSize > 256 * 1024 * 1024) throw new Error('zip central directory is damaged or truncated');
    const cd = await this.ra.read(cdOffset, cdSize);
    const out: ZipMember[] = [];
    let p = 0;
    while (p + 46 <= cd.length && cd.readUInt32LE(p) === SIG_CDH && out.length < Math.max(count, 1) * 2) {
      const madeBy = cd.readUInt16LE(p + 4);
      const flags = cd.readUInt16LE(p + 8);
      const method = cd.readUInt16LE(p + 10);
      const dosTime = cd.readUInt16LE(p + 12);
      const dosDate = cd.readUInt16LE(p + 14);
      let csize = cd.readUInt32LE(p + 20);
      let usize = cd.readUInt32LE(p + 24);
      const nameLen = cd.readUInt16LE(p + 28);
      const extraLen = cd.readUInt16LE(p + 30);
      const commentLen = cd.readUInt16LE(p + 32);
      const ext = cd.readUInt32LE(p + 38);
      let local = cd.readUInt32LE(p + 42);
      const nameBuf = cd.subarray(p + 46, p + 46 + nameLen);
      const name = flags & 0x800 ? nameBuf.toString('utf8') : nameBuf.toString('latin1');
      const extra = cd.subarray(p + 46 + nameLen, p + 46 + nameLen + extraLen);
      // zip64: the extra field holds the 8-byte values for whichever of the three fields overflowed, in this order.
      for (let q = 0; q + 4 <= extra.length; ) {
        const id = extra.readUInt16LE(q);
        const len = extra.readUInt16LE(q + 2);
        if (id === 0x0001) {
          let r = q + 4;
          if (usize === 0xffffffff && r + 8 <= q + 4 + len) { usize = Number(extra.readBigUInt64LE(r)); r += 8; }
          if (csize === 0xffffffff && r + 8 <= q + 4 + len) { csize = Number(extra.readBigUInt64LE(r)); r += 8; }
          if (local === 0xffffffff && r + 8 <= q + 4 + len) { local = Number(extra.readBigUInt64LE(r)); r += 8; }
        }
        q += 4 + len;
      }
      const unixMode = madeBy >> 8 === 3 ? ext >>> 16 : 0;
      const fmt = unixMode & 0o170000;
      let type: MemberType = name.endsWith('/') ? 'directory' : 'file';
      let special: string | undefined;
      if (fmt === 0o120000) type = 'symlink';
      else if (fmt === 0o010000 || fmt === 0o020000 || fmt === 0o060000 || fmt === 0o140000) {
        type = 'special';
        special = fmt === 0o010000 ? 'fifo' : fmt === 0o020000 ? 'character device' : fmt === 0o060000 ? 'block device' : 'socket';
      } else if (fmt === 0o040000) type = 'directory';
      const mtime = Date.UTC(1980 + (dosDate >> 9), ((dosDate >> 5) & 15) - 1, dosDate & 31, dosTime >> 11, (dosTime >> 5) & 63, (dosTime & 31) * 2);
      let unreadable: string | undefined;
      if (flags & 1) unreadable = 'encrypted zip member: decrypt the zip first';
      else if (method !== 0 && method !== 8) unreadable = `zip compression method ${method} is not supported (only stored and deflate): unpack it first`;
      out.push({ index: out.length, name, type, size: usize, mtime: Number.isFinite(mtime) ? mtime : null, linkname: null, method, compressedSize: csize, localOffset: local, dataEnd: local + 30 + nameLen + csize, ...(special ? { special } : {}), ...(unreadable ? { unreadable } : {}) });
      p += 46 + nameLen + extraLen + commentLen;
    }
    return out;
  }

  /** Members from their local headers, walked from the start of the file up to the first thing that is not one. */
  private async localHeaders(): Promise<ZipMember[]> {
    const out: ZipMember[] = [];
    const size = this.ra.size;
    for (let at = 0; at + 30 <= size && out.length < MAX_LOCAL_MEMBERS; ) {
      const lh = await this.ra.read(at, 30);
      if (lh.length < 30 || lh.readUInt32LE(0) !== SIG_LFH) break;
      const flags = lh.readUInt16LE(6);
      const method = lh.readUInt16LE(8);
      const csize = lh.readUInt32LE(18);
      const usize = lh.readUInt32LE(22);
      const nameLen = lh.readUInt16LE(26);
      const extraLen = lh.readUInt16LE(28);
      const nameBuf = await this.ra.read(at + 30, nameLen);
      const name = flags & 0x800 ? nameBuf.toString('utf8') : nameBuf.toString('latin1');
      const dataEnd = at + 30 + nameLen + extraLen + csize;
      let unreadable: string | undefined;
      if (flags & 1) unreadable = 'encrypted zip member: decrypt the zip first';
      else if (method !== 0 && method !== 8) unreadable = `zip compression method ${method} is not supported (only stored and deflate): unpack it first`;
      // Sizes after the data (a streamed zip): where this member ends, and the next begins, is not known.
      const sized = !(flags & 8) || csize !== 0;
      if (!sized) unreadable ??= 'zip member written as a stream (its size is in the lost central directory): not read';
      out.push({ index: out.length, name, type: name.endsWith('/') ? 'directory' : 'file', size: usize, mtime: null, linkname: null, method, compressedSize: csize, localOffset: at, dataEnd, ...(unreadable ? { unreadable } : {}) });
      if (!sized) break;
      at = dataEnd;
      // A data descriptor after the data: 12 bytes, or 16 with its (optional) signature.
      if (flags & 8) at += at + 4 <= size && (await this.ra.read(at, 4)).readUInt32LE(0) === SIG_DD ? 16 : 12;
    }
    return out;
  }

  async scan(visit: (h: MemberHeader, body: EntryStream | null) => Promise<void>): Promise<Error | null> {
    let members: ZipMember[];
    try {
      members = await this.directory();
    } catch (err) {
      return err as Error;
    }
    for (const m of members) {
      if (m.type !== 'file' || m.unreadable) {
        await visit(m, null);
        continue;
      }
      // Random access: a member let go of is not inflated to its end (a tar's must be, to reach the next).
      const body = new EntryStream({ drain: false });
      body.attach(this.open(m.index) as never);
      try {
        await visit(m, body);
      } finally {
        if (!body.readableEnded) body.destroy();
        await body.done;
      }
    }
    return this.damage;
  }

  open(index: number): Readable {
    const m = this.members?.[index];
    if (!m) return failed(new Error('member not found in the zip'));
    if (m.unreadable) return failed(new Error(m.unreadable));
    const ra = this.ra;
    let pos = -1;
    let end = -1;
    const raw = new Readable({
      highWaterMark: 64 * 1024,
      read() {
        void (async () => {
          try {
            if (pos < 0) {
              const lh = await ra.read(m.localOffset, 30);
              if (lh.length < 30 || lh.readUInt32LE(0) !== SIG_LFH) throw new Error('zip member header damaged');
              pos = m.localOffset + 30 + lh.readUInt16LE(26) + lh.readUInt16LE(28);
              end = pos + m.compressedSize;
              if (end > ra.size) end = ra.size;
            }
            if (pos >= end) {
              raw.push(null);
              return;
            }
            const chunk = await ra.read(pos, Math.min(64 * 1024, end - pos));
            if (chunk.length === 0) {
              raw.destroy(Object.assign(new Error('truncated zip member'), { code: 'ETRUNCATED' }));
              return;
            }
            pos += chunk.length;
            raw.push(chunk);
          } catch (err) {
            raw.destroy(shortError(err));
          }
        })();
      },
    });
    if (m.method === 0) return raw;
    const inflate = zlib().createInflateRaw({ chunkSize: INFLATE_CHUNK });
    mapStreamErrors(inflate, (err) => zlibError(err, 'zip member'));
    raw.on('error', (err) => inflate.destroy(err));
    inflate.on('close', () => raw.destroy());
    raw.pipe(inflate);
    return bounded(raw, inflate, this.limits, `${this.label}: ${m.name}`, this.budget ? { budget: this.budget } : {});
  }

  close(): void {
    this.ra.close();
  }
}

function failed(err: Error): Readable {
  const r = new Readable({ read() {} });
  process.nextTick(() => r.destroy(err));
  return r;
}
