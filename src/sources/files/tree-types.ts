// The shapes of an input's virtual tree (tree.ts builds it; bundle.ts reads its layout): here so that neither needs
// the other's types.
import { Readable } from 'node:stream';
import type { Role } from '../../contract/analysis.js';
import type { Compression, HeadFacts, InputWarning } from '../artifact.js';
import type { Container } from './containers.js';

export interface TreeFile {
  /** Path inside the input ('/'-separated; archives inside it are path segments). */
  path: string;
  /** Other paths of the same bytes (symlinks, hard links). */
  aliases: string[];
  size: number | null;
  mtime: number | null;
  compression: Compression;
  head: Buffer;
  role: Role;
  format: string;
  /** Warning for this file (unreadable, binary journal …), or null. */
  problem: string | null;
  /** Whole content of a bundle metadata file (see TreeContext.wantMeta), else null. */
  meta: Buffer | null;
  /** The archive was damaged inside this member: what is there is a prefix. */
  cut: boolean;
  open(): Readable;
  /** A plain file on disk that readers may re-read by offset (Artifact.file). */
  file?: { realPath: string; size: number };
  /** A plain file on disk, also when read from memory (Artifact.onDisk). */
  onDisk?: string;
  /** What was kept of a head let go (Artifact.headless). */
  headless?: HeadFacts;
  /** Token of the early read of this member (TreeContext.readEarly). */
  early?: number;
  /** An archive member: its bytes come from a pass over the archive (see Artifact.sequential). */
  member?: boolean;
  /** Not probed while the archive was indexed (a namespaced resource: see probeDeferred); role and format wait. */
  deferred?: boolean;
  /** An archive member: its name as stored in its archive (what `tar -xOf archive NAME` takes). */
  raw?: string;
}

/** An archive inside the input (or the input itself, at ''), by the path its members sit under: what reads it. */
export interface ArchiveAt {
  kind: 'tar' | 'zip';
  compression: Compression;
  /** Its member name as stored in the archive that holds it; null for the input itself or a file on disk. */
  name: string | null;
}

export interface Tree {
  files: TreeFile[];
  /** Directories (paths inside the input), including the implied parents of every file. */
  dirs: Set<string>;
  warnings: InputWarning[];
  /** Latest member/file modification time seen: a weak collection-time anchor. */
  maxMtime: number | null;
  containers: Container[];
  /** Symlinks as stored (path inside the input → target text): `etc/localtime` names the zone even when dangling. */
  links: Map<string, string>;
  /** Warnings by kind, for addWarning's count of the repeated ones. */
  repeats: Map<string, { shown: number; more: number; example: InputWarning }>;
  /** Members kept that nothing reads (listed only), and those past limits.maxIdleMembers that were not kept. */
  idle: { kept: number; dropped: number };
  /** The archives read, by the path their members sit under ('' for the input itself): see reachOf. */
  holders: Map<string, ArchiveAt>;
}

/** The aliases of a file reached by one path only (shared, never written: a folder of 100 000 files made as many). */
export const NO_ALIASES = Object.freeze([]) as unknown as string[];

/**
 * `open()` of a file whose head holds all its bytes (a small file the probe read whole): one function for all of them,
 * serving the head of the object it is called on (a closure each was ~90 bytes a file, 9 MB for a folder of 100 000 small
 * files). Only ever called as a method (`file.open()`); an object whose head is cut shorter than the file's bytes must
 * not carry it unbound (see wholeOpen).
 */
export function openOwnHead(this: { head: Buffer }): Readable {
  return Readable.from([this.head], { objectMode: false });
}

/** `from`'s open() for an object that takes `head` as its own: bound to `from` when that head is not from's whole one. */
export function wholeOpen(from: { head: Buffer; open(): Readable }, head: Buffer): () => Readable {
  return from.open === openOwnHead && head !== from.head ? openOwnHead.bind(from) : from.open;
}
