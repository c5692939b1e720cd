// What src/input hands down the pipeline: one Artifact per readable file, with its role and format decided from
// its content. Only src/input touches the filesystem; later stages read bytes through `open()`.
import type { NodeHintFrom } from './files/names.js';
import type { Readable } from 'node:stream';
import type { InputKind, Role } from '../contract/analysis.js';

/** How a file's bytes are stored when they are not plain UTF-8 text: compressed, UTF-16 text (Windows PowerShell's
 *  `>` writes it) or a binary systemd journal (journal.ts: read as `journalctl -o json` lines, one per entry); either
 *  way decode.ts turns them into the UTF-8 lines every reader expects. */
export type Compression = 'gzip' | 'xz' | 'bzip2' | 'zstd' | 'utf16le' | 'utf16be' | 'journal' | 'export' | null;

/** A whole-document cloud or log-store export (exports.ts), as it is written: JSON or CSV. Set on an artifact whose
 *  bytes (once decompressed, for a `.json.gz`) are one: they are read as the journal JSON lines of its entries. */
export type ExportDocument = 'json' | 'csv';

/** A file as the shell reaches it from the input's path: a file on disk under the input (`disk`, relative to it; null
 *  for the input itself) and the archive members on the way, outermost first. */
export interface Reach {
  disk: string | null;
  members: Array<{ name: string; kind: 'tar' | 'zip'; compression: Compression }>;
}

export interface Artifact {
  /** Index in Discovery.artifacts; stable for one run. */
  id: number;
  /** Path as the user will find it, relative to the input path they named ('-' for stdin). */
  path: string;
  /** Index of the Input this artifact came from. */
  input: number;
  role: Role;
  /** journal-short | journal-short-precise | journal-short-iso | journal-short-iso-precise | journal-json | export-json | klog |
   *  json-log | cri-log | logrus | dmesg | dmesg-T | prometheus-text | openmetrics | goroutine-dump | other … */
  format: string;
  /** Node name suggested by the path (e.g. a directory named after the node), or null. */
  nodeHint: string | null;
  /** Where `nodeHint` came from: the bundle's layout (`nodes/<name>/`, a sosreport's hostname), a loose folder, or the
   *  file's own name (`node-a-kubelet.log`). Content (a journal host, `kubelet_node_name`) outranks all of them. */
  nodeHintFrom?: NodeHintFrom;
  /** Time parsed from the file name (e.g. metrics-20240311T100000Z.txt), epoch ms, or null. */
  nameTime: number | null;
  /** mtime of the file on disk (epoch ms) or null (stdin); a weak anchor for year-less timestamps. */
  mtime: number | null;
  compression: Compression;
  /** The (decompressed) bytes are a whole export document (compression `export`, or inside a gzip, xz, bzip2 or zstd). */
  document?: ExportDocument;
  /** Size on disk in bytes (compressed size when compressed), null when unknown. */
  size: number | null;
  /** The first bytes of the (decompressed) content, as used for sniffing. Empty when `headless`. */
  head: Buffer;
  /** Set when the head of a small file read whole was not kept (past limits.maxHeldHeadBytes of them: files/heads.ts):
   *  what later stages read of it. `open()` then reads the bytes again. */
  headless?: HeadFacts;
  /** A fresh stream of the decompressed bytes. May be called more than once (not for stdin: then once). */
  open(): Readable;
  /** Set when the bytes are a plain (uncompressed) file on disk large enough to be re-read by offset: readers of byte
   *  ranges (worker threads, the TUI's lazy lines) open `realPath`, the one path the walk validated. */
  file?: { realPath: string; size: number };
  /** The validated path of a plain (uncompressed) file on disk, also when its bytes are served from memory (a small
   *  file the probe read whole): the TUI's lazy lines read it by offset and take in lines appended since (follow). */
  onDisk?: string;

  // Bundle placement (bundle.ts). All optional: loose files and stdin carry none of them.
  /** Kind of the bundle root this file sits under (sosreport, sos-collect, must-gather, inspect, eks-logs, aks,
   *  rancher, kind, directory). */
  bundleKind?: string;
  /** The bytes come from a shared sequential stream (archive member, stdin): reading two such artifacts at once costs
   *  another decompression pass, so they are best read one after the other. */
  sequential?: boolean;
  /** Zone of the file's year-less/zone-less stamps (IANA name or ±hh:mm), when the bundle says; null = unknown. */
  zone?: string | null;
  /** When the bundle was collected (epoch ms): the file holds nothing later. Anchors year-less stamps. */
  collectedAt?: number | null;
  /** What `plegscope collect` could not fetch for this artifact's node (on one artifact of each collected node), with the
   *  command that fetches it once the cause is fixed, if any. */
  refusals?: Array<{ what: string; status: number | null; reason: string; command: string | null }>;
  /** The file is known to be cut (sos `.tailed`, manifest `truncated`, archive damaged inside it). */
  truncated?: boolean;
  /** Other paths in the bundle that lead to the same bytes (symlinks, hard links, `.tailed` links). */
  aliases?: string[];
  /** Files of one single-node bundle share a group: what carries no node identity belongs to that group's node. */
  group?: string | null;
  /** 0 = the most specific copy of a log (unit journal); higher = a copy that only fills gaps (full journal, messages). */
  priority?: number;
  /** How to read a file whose role is `other` but which the layout (or its content) says is useful:
   *  `container-list` (crictl pods / crictl ps -a / docker ps -a), `skipped-nodes` (must-gather). */
  parseAs?: 'container-list' | 'skipped-nodes';
  /** Node role from the layout (must-gather `host_service_logs/masters|workers`). */
  nodeRole?: 'master' | 'worker' | null;
  /** The token `DiscoverOptions.readEarly` gave for this archive member, read while the archive was indexed. */
  early?: number;
  /** How a shell reaches these bytes from the input's path (a bundle's file, an archive's member): the count checks'
   *  commands (analyze.ts). Absent for a loose file (the input itself, or `path` under the folder named). */
  reach?: Reach;
  /** The width the file was hard-wrapped at, when it was read with its wrapped lines joined (fold.ts). */
  wrap?: number;
}

/** What the year anchors and the read take from a file's head (anchors.ts headHost, headDate; fold.ts wrapWidth). */
export interface HeadFacts {
  readonly host: string | null;
  readonly date: number | null;
  readonly wrap: number | null;
}

/** An archive member as the index pass meets it (before the bundle layout is known). */
export interface EarlyMember {
  path: string;
  role: Role;
  format: string;
  /** Uncompressed size from the member header, when known. */
  size: number | null;
  mtime: number | null;
  head: Buffer;
  /** What the sosreport metadata met so far above this member says of the node's zone and the collection time (null
   *  where it says nothing). Looked up when called. */
  clock(): { zone: string | null; collectedAt: number | null };
}

/**
 * A reader for archive members while the index pass streams them by: an archive is decompressed from its start for
 * every pass over it, so a large log read here is not decompressed a second time. Returns null to let the member go
 * by, else a consumer that reads the whole stream and resolves to a token (kept as `Artifact.early`).
 */
export type ReadEarly = (member: EarlyMember) => ((bytes: Readable) => Promise<number>) | null;

export interface Input {
  path: string;
  kind: InputKind;
  /** Finer than `kind` (sos-collect, inspect, aks, rancher, kind, directory). */
  bundleKind?: string;
}

export interface InputWarning {
  file: string | null;
  line: number | null;
  message: string;
}

export interface Discovery {
  inputs: Input[];
  artifacts: Artifact[];
  warnings: InputWarning[];
  /** Lets go of open archive passes (decompressor processes, file handles). Safe to call more than once. */
  close?(): void;
}

/** A problem with a path the user named: the CLI prints `plegscope: <path>: <message>` and exits 2. */
export class InputError extends Error {
  constructor(readonly path: string, message: string) {
    super(message);
    this.name = 'InputError';
  }
}
