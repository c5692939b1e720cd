// The heads of small files read whole, held past discovery within a bound. A head is what later stages read of a file
// before reading it (the year anchors: its journal host and full date; the read: the width it is hard-wrapped at), and for
// a small file read whole also its bytes, served from memory. A folder (or an archive) of 100 000 small logs held them
// all, 40 MB of heads and their Buffer objects. Past limits.maxHeldHeadBytes of such heads, a file keeps only those three facts
// (HeadFacts, shared by all files with the same) and its bytes are read again when it is read: from disk (openOnDisk), or
// out of its archive. Below the bound (every bundle seen so far) nothing changes.
import type { Readable } from 'node:stream';
import type { HeadFacts } from '../artifact.js';
import { headDate, headHost } from './anchors.js';
import { wrapWidth } from './fold.js';
import { FileSource } from './source.js';

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
 * `open()` of a small plain file on disk whose head was not kept: its bytes read again from the path the walk validated
 * (openInputSync's checks). One function for all of them, called as a method of the file or artifact (no closure each).
 */
export function openOnDisk(this: { path: string; onDisk?: string; size: number | null; mtime: number | null }): Readable {
  return new FileSource(this.path, this.onDisk as string, this.size, this.mtime).open();
}

