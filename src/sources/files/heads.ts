// The heads of small files read whole, held past discovery within a bound. A head is what later stages read of a file
// before reading it (the year anchors: its journal host and full date; the read: the width it is hard-wrapped at), and
// for a small file read whole also its bytes, served from memory. A folder (or an archive) of 100 000 small logs held
// them all, 40 MB of heads and their Buffer objects. Past limits.maxHeldHeadBytes of such heads, a file keeps only those
// three facts (HeadFacts, shared by all files with the same) and its bytes are read again when it is read: from disk
// (openOnDisk), or out of its archive (tree.ts: only logs read while indexed, whose early read is mostly kept). The
// report is the same either way (test/input/heads.test.ts).
import fs from 'node:fs';
import { Readable } from 'node:stream';
import type { HeadFacts } from '../artifact.js';
import { headDate, headHost } from './anchors.js';
import { wrapWidth } from './fold.js';
import { shortError } from '../fserror.js';
import { openInputSync } from './source.js';
import { HEAD_BYTES } from './decode.js';

export class HeadBound {
  private held = 0;
  /** Facts, one object per distinct content. */
  private readonly shared = new Map<string, HeadFacts>();

  constructor(private readonly max: number) {}

  /** Whether a whole-file head of `bytes` is kept; if not, the caller keeps `facts(head)` instead. */
  keep(bytes: number): boolean {
    if (this.held + bytes <= this.max) {
      this.held += bytes;
      return true;
    }
    return false;
  }

  /** What later stages read of `head`: the same answers headHost, headDate and wrapWidth give for it. */
  facts(head: Buffer): HeadFacts {
    const f: HeadFacts = { host: headHost(head), date: headDate(head), wrap: wrapWidth(head) };
    const key = `${f.date}\n${f.wrap}\n${f.host}`;
    let s = this.shared.get(key);
    // The host is copied out of the head's text (a slice would keep all of it).
    if (s === undefined) this.shared.set(key, s = Object.freeze({ ...f, host: f.host === null ? null : Buffer.from(f.host, 'latin1').toString('latin1') }));
    return s;
  }
}

/** A head that was not kept. */
export const NO_HEAD = Buffer.alloc(0);

/**
 * `open()` of a small plain file on disk whose head was not kept: its bytes read again, in one synchronous read (as the
 * probe read them: a read stream each cost 50% more CPU time over 100 000 files) from the path the walk validated, with
 * openInputSync's checks. One function for all of them, called as a method of the file or artifact (no closure each).
 */
export function openOnDisk(this: { onDisk?: string }): Readable {
  let bytes: Buffer;
  try {
    bytes = readSmall(this.onDisk as string);
  } catch (err) {
    const r = new Readable({ read() {} });
    process.nextTick(() => r.destroy(shortError(err)));
    return r;
  }
  return Readable.from([bytes], { objectMode: false });
}

/** The whole of a small file, as the probe read it whole: up to HEAD_BYTES (the probe's bound; a file that grew since is
 *  read that far, as its head was served before). */
function readSmall(realPath: string): Buffer {
  const fd = openInputSync(realPath);
  try {
    let buf = Buffer.allocUnsafe(Math.min(HEAD_BYTES, fs.fstatSync(fd).size + 1));
    let n = 0;
    for (;;) {
      const got = fs.readSync(fd, buf, n, buf.length - n, n);
      if (got === 0) return buf.subarray(0, n);
      n += got;
      if (n === HEAD_BYTES) return buf;
      if (n === buf.length) {
        const bigger = Buffer.allocUnsafe(Math.min(HEAD_BYTES, buf.length * 2));
        buf.copy(bigger, 0, 0, n);
        buf = bigger;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

