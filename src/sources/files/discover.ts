// Paths the user named → artifacts with role and format. Loose files, folders, archives and stdin. Folders and
// archives become a virtual tree (tree.ts) whose bundle layout (bundle.ts) places each file: node, role, zone,
// collection time. A folder without any bundle marker keeps the plain behaviour: every file, sniffed by content.
import fsp from 'node:fs/promises';
import type { BigIntStats } from 'node:fs';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { InputError, type Artifact, type Compression, type Discovery, type Input, type InputWarning, type ReadEarly } from '../artifact.js';
import { CORRUPT, DEFAULT_TOOLS, HEAD_BYTES, TRUNCATED, decodeBounded, probe, type Probe, type Tools } from './decode.js';
import { assess } from './assess.js';
import { journalFileLines } from './journal.js';
import { errorCode, fsErrorMessage } from '../fserror.js';
import { nameTime, pathNode, type NodeHintFrom } from './names.js';
import { PROBLEM_FORMATS, isContainerList } from './sniff.js';
import { FileSource, StreamSource, type Source } from './source.js';
import { specialKind, statKey, walkFolder, type WalkFile, type WalkItem } from './walk.js';
import { BufferAccess, FileAccess, TarContainer, ZipContainer, type Container } from './containers.js';
import { Budget, DEFAULT_LIMITS, type Limits } from './limits.js';
import { spool, type Spooled } from './spool.js';
import { NO_ALIASES, openOwnHead, wholeOpen } from './tree-types.js';
import { HeadBound, NO_HEAD, openOnDisk } from './heads.js';
import { archiveKind, closeTree, flushRepeats, indexContainer, newTree, probeDeferred, reachOf, type Tree, type TreeContext, type TreeFile } from './tree.js';
import { findRoots, inputKindOf, placer, probeLater, rotationAnchor, rotationOrder, unreadByLayout, wantMeta } from './bundle.js';
import { collect } from './entry-stream.js';
import { MANIFEST_NAME } from '../collected-manifest.js';
import { manifestWarnings, refusalsByGroup } from './collected.js';

export interface DiscoverOptions {
  /** What `-` reads (default: process.stdin). */
  stdin?: Readable;
  /** Decompressed bytes kept as `head` and used for sniffing (default 64 KiB). */
  headBytes?: number;
  /** Commands used for xz and bzip2 (default `xz`, `bzip2`, looked up on PATH). */
  tools?: Partial<Tools>;
  /** Files probed at the same time inside a folder (default 16). */
  concurrency?: number;
  /** Decompression and nesting bounds (limits.ts). */
  limits?: Partial<Limits>;
  /** Sizes of the files on disk as soon as they are listed, before any is read (a caller may get threads ready). */
  onFileSizes?: (files: Array<{ realPath: string; size: number }>) => void;
  /** Reads archive members as the index pass meets them (see ReadEarly). */
  readEarly?: ReadEarly;
}

/** Files of a folder probed ahead of the one being placed (the probes run `concurrency` at a time). */
const PROBE_AHEAD = 256;

/** Artifacts that no later stage will read keep only this much head: a big folder must not hold 64 KiB each. */
const OTHER_HEAD_BYTES = 4 * 1024;

type ArtifactDraft = Omit<Artifact, 'id' | 'input'>;

/** Problems not worth a warning inside a bundle: a sosreport holds hundreds of empty command outputs. */
const QUIET_IN_BUNDLE = new Set(['empty file', 'journal file without entries', 'no content (only blank lines or journal notes)']);


export async function discover(paths: string[], opts: DiscoverOptions = {}): Promise<Discovery> {
  const run = new Discoverer(opts);
  for (const p of paths) await run.add(p);
  return run.result();
}

class Discoverer {
  private readonly inputs: Input[] = [];
  private readonly artifacts: Artifact[] = [];
  private readonly warnings: InputWarning[] = [];
  /** dev:ino → path of the artifact already made from it. */
  private readonly seen = new Map<string, string>();
  private readonly tools: Tools;
  private readonly headBytes: number;
  private readonly limit: <T>(fn: () => Promise<T>) => Promise<T>;
  private stdinUsed = false;
  /** Archives piped in, copied to private temporary files (spool.ts). */
  private readonly spools: Spooled[] = [];
  private readonly limits: Limits;
  private readonly trees: Tree[] = [];
  /** Heads of small files read whole, held within a bound per run (heads.ts). */
  private readonly heads: HeadBound;
  /** One string per node name a path gives (100 000 files of a few folders made as many copies). */
  private readonly nodeNames = new Map<string, string>();
  private readonly named = <T extends string | null>(s: T): T => {
    if (s === null) return s;
    const had = this.nodeNames.get(s);
    if (had !== undefined) return had as T;
    this.nodeNames.set(s, s);
    return s;
  };
  /** Decompressed bytes of the input being added (limits.maxInputBytes): each input has its own. */
  private budget: Budget;

  constructor(private readonly opts: DiscoverOptions) {
    this.tools = { ...DEFAULT_TOOLS, ...opts.tools };
    this.headBytes = opts.headBytes ?? HEAD_BYTES;
    this.limit = limiter(Math.max(1, opts.concurrency ?? 16));
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.heads = new HeadBound(this.limits.maxHeldHeadBytes);
    this.budget = new Budget(this.limits.maxInputBytes);
  }

  result(): Discovery {
    const trees = this.trees;
    const spools = this.spools;
    return {
      inputs: this.inputs,
      artifacts: this.artifacts,
      warnings: this.warnings,
      close: () => {
        for (const t of trees) closeTree(t);
        // An archive piped in was read from a private copy: gone once its passes are closed (and at exit regardless).
        for (const s of spools) s.remove();
      },
    };
  }

  private treeContext(): TreeContext {
    return { tools: this.tools, limits: this.limits, budget: this.budget, headBytes: this.headBytes, heads: this.heads, wantMeta, ...(this.opts.readEarly ? { readEarly: this.opts.readEarly } : {}) };
  }

  async add(given: string): Promise<void> {
    this.budget = new Budget(this.limits.maxInputBytes);
    if (given === '-') return this.addStdin();
    let lst: BigIntStats;
    try {
      lst = await fsp.lstat(given, { bigint: true });
    } catch (err) {
      throw new InputError(given, fsErrorMessage(err));
    }
    let st = lst;
    if (lst.isSymbolicLink()) {
      // The user named this link: following it is what they asked for.
      try {
        st = await fsp.stat(given, { bigint: true });
      } catch (err) {
        const code = errorCode(err);
        throw new InputError(given, code === 'ENOENT' ? 'dangling symlink (its target does not exist)' : fsErrorMessage(err));
      }
    }
    let real: string;
    try {
      real = await fsp.realpath(given);
    } catch (err) {
      throw new InputError(given, fsErrorMessage(err));
    }
    if (st.isDirectory()) return this.addFolder(given, real);
    if (st.isFile()) return this.addFile(given, real, st);
    throw new InputError(given, `not a regular file (${specialKind(st)}); to read a stream, pipe it in and name - (stdin)`);
  }

  private async addStdin(): Promise<void> {
    if (this.stdinUsed) throw new InputError('-', 'stdin can be named only once');
    this.stdinUsed = true;
    const stream = this.opts.stdin ?? process.stdin;
    if (!this.opts.stdin && process.stdin.isTTY) {
      throw new InputError('-', 'stdin is a terminal: pipe a log into it (e.g. journalctl -u kubelet | plegscope analyze -)');
    }
    const source = new StreamSource('-', stream);
    const pr = await probe(source, this.tools, this.headBytes);
    const kind = pr.error ? null : archiveKind(pr.head);
    if (kind === 'tar' || kind === 'zip') {
      // An archive piped in is read as the same archive named by its path: from a private copy (spool.ts).
      let copy: Spooled;
      try {
        copy = await spool(source.open(), this.limits.maxStreamBytes);
      } catch (err) {
        throw new InputError('-', `could not be read: ${fsErrorMessage(err)}`);
      }
      this.spools.push(copy);
      const st = await fsp.stat(copy.file, { bigint: true });
      return this.addFile('-', copy.file, st);
    }
    const input = this.addInput('-', 'stdin');
    const draft = await this.examine(source, '-', true, pr);
    this.push(input, draft.artifact, draft.warnings);
  }

  private async addFile(given: string, real: string, st: BigIntStats): Promise<void> {
    this.opts.onFileSizes?.([{ realPath: real, size: Number(st.size) }]);
    const input = this.addInput(given, 'file');
    const key = statKey(st);
    const earlier = this.seen.get(key);
    if (earlier !== undefined) {
      this.warnings.push({ file: given, line: null, message: `same file as ${earlier}: read once` });
      return;
    }
    const source = new FileSource(given, real, Number(st.size), Number(st.mtimeMs));
    const pr = await probe(source, this.tools, this.headBytes);
    // A damaged archive (truncated, corrupt after a while) is indexed as far as it goes: the members before the damage
    // are read, the damage is a warning.
    const damaged = pr.error !== null && (errorCode(pr.error) === TRUNCATED || errorCode(pr.error) === CORRUPT);
    const kind = pr.error && !damaged ? null : archiveKind(pr.head);
    if (kind === 'tar' || kind === 'zip') {
      this.seen.set(key, given);
      this.inputs.pop();
      const tree = newTree();
      this.trees.push(tree);
      tree.holders.set('', { kind, compression: pr.compression, name: null });
      await indexContainer(this.containerFor(source, kind, pr.compression), '', 0, this.treeContext(), tree, given);
      await probeDeferred(tree, findRoots(tree, given), this.treeContext());
      if (tree.files.length === 0 && tree.warnings.some((w) => w.file === given && /could not be read|damaged|truncated/.test(w.message))) {
        const w = tree.warnings.find((x) => x.file === given && /could not be read|damaged|truncated/.test(x.message)) as InputWarning;
        closeTree(tree);
        throw new InputError(given, w.message);
      }
      this.finishTree(given, tree, true);
      return;
    }
    const draft = await this.examine(source, given, true, pr);
    this.seen.set(key, given);
    this.push(input, draft.artifact, draft.warnings);
  }

  /** An archive file on disk: tar streamed (through its decompressor), zip read by random access. */
  private containerFor(source: FileSource, kind: 'tar' | 'zip', compression: Compression): Container {
    const { tools, limits, budget } = this;
    if (kind === 'zip' && compression === null) return new ZipContainer(new FileAccess(source.realPath, source.size ?? 0), limits, source.path, budget);
    if (kind === 'zip') {
      // A compressed zip (rare) needs its bytes in memory for random access.
      return new LazyZip(() => decodeBounded(source.open(), compression, tools, limits, source.path, { budget }), limits, source.path, budget);
    }
    // The archive's own stream is held to the input's budget; its members to the ratio (tree.ts readMember).
    return new TarContainer(() => decodeBounded(source.open(), compression, tools, limits, source.path, { budget, archive: true }));
  }

  /** Bundle layout over a tree, then one artifact per placed file. */
  private finishTree(given: string, tree: Tree, archive: boolean, plain?: { input: number; drafts: Map<TreeFile, { artifact: ArtifactDraft | null; warnings: InputWarning[] }>; idleCut: Set<TreeFile> }): void {
    flushRepeats(tree, given);
    const roots = findRoots(tree, given);
    const { kind, bundleKind } = inputKindOf(roots);
    if (plain && roots.length === 0 && tree.files.every((f) => plain.drafts.has(f) || plain.idleCut.has(f))) {
      // No bundle here: a folder of loose files, exactly as before bundles existed.
      const ws: InputWarning[] = [...tree.warnings];
      // Files neither their name nor their head shows to be anything plegscope reads are still read, by content: up to
      // limits.maxIdleMembers of them per folder, as for an archive's members; past that counted (each read file costs
      // its state in the report: 100 000 such files took 375 MB and 36 MB of JSON).
      const idle = { kept: 0, dropped: 0, example: '' };
      for (const f of tree.files) {
        const d = plain.drafts.get(f);
        if (plain.idleCut.has(f)) {
          // Past the bound while the folder was probed (addFolder): nothing of it kept but its path.
          idle.dropped++;
          idle.example ||= f.path;
          continue;
        }
        if (d) {
          if (d.artifact?.role === 'other' && d.warnings.length === 0) {
            if (idle.kept >= this.limits.maxIdleMembers) {
              idle.dropped++;
              idle.example ||= d.artifact.path;
              continue;
            }
            idle.kept++;
          }
          this.push(plain.input, d.artifact, []);
          for (const w of d.warnings) ws.push(w);
        }
      }
      if (idle.dropped > 0) {
        ws.push({ file: given, line: null, message: `${idle.dropped} more file(s) like ${idle.example} that neither name nor first bytes show to be a log, metrics or a dump were not read: only ${idle.kept} such files are read per input` });
      }
      for (const w of ws.sort((a, b) => comparePathSegments(a.file ?? '', b.file ?? ''))) this.warnings.push(w);
      releaseFiles(tree);
      return;
    }
    let input: number;
    if (plain) {
      input = plain.input;
      const inp = this.inputs[input] as Input;
      inp.kind = kind;
      inp.bundleKind = bundleKind;
    } else {
      this.inputs.push({ path: given, kind: archive && roots.length === 0 ? 'directory' : kind, bundleKind });
      input = this.inputs.length - 1;
    }
    for (const r of roots) {
      // Node-local journals need the node's zone; without it the times are read as UTC.
      if ((r.kind === 'sosreport' || r.kind === 'rancher') && r.zone === null) {
        this.warnings.push({ file: r.dir || given, line: null, message: `${r.kind}: the node's time zone is not in the bundle (no timedatectl, etc/localtime or date output): its journal times are read as UTC; pass --tz if the node ran in another zone` });
      }
      // What `plegscope collect` could not fetch, and why (collected.ts).
      if (r.collected) for (const message of manifestWarnings(r.collected)) this.warnings.push({ file: r.dir ? `${r.dir}/${MANIFEST_NAME}` : MANIFEST_NAME, line: null, message });
    }
    const placeOf = placer(tree, roots);
    // What collect could not fetch goes with one artifact of its node (the rules make gaps of it).
    const refused = new Map(roots.flatMap((r) => (r.collected ? [...refusalsByGroup(r.collected)] : [])));
    // Rotated logs oldest first (in a folder; an archive keeps its order, see rotationOrder).
    if (!archive && tree.containers.length === 0) tree.files = rotationOrder(tree.files);
    const warned = new Set<string>();
    for (const w of tree.warnings) {
      this.warnings.push(w);
      if (w.file) warned.add(w.file);
    }
    for (const f of tree.files) {
      const pl = placeOf(f);
      const keep = pl.role !== 'other' || pl.parseAs !== null || f.role === 'node-object' || (bundleKind === 'directory' && roots.length === 0);
      const problem = plain?.drafts.get(f)?.warnings ?? (f.problem ? [warning(f.path, f.problem)] : []);
      for (const w of problem) {
        // Inside a bundle only problems with files that matter are worth saying.
        if (QUIET_IN_BUNDLE.has(w.message) && pl.role === 'other') continue;
        if (!keep && pl.role === 'other' && f.role === 'other' && !/journal file|encrypted|compressed|cannot|corrupt|truncated|decompression/.test(w.message)) continue;
        this.warnings.push({ ...w, file: pl.display });
      }
      if (!keep || f.problem && PROBLEM_FORMATS.has(f.format)) continue;
      const head = pl.role !== 'other' || f.head.length <= OTHER_HEAD_BYTES ? f.head : Buffer.from(f.head.subarray(0, OTHER_HEAD_BYTES));
      const byPath = pl.nodeHint ? null : pathNode(archive ? `${given}/${f.path}` : path.posix.join(given.split(path.sep).join('/'), f.path), pl.display, pl.bundleKind === 'directory');
      const hint = this.named(pl.nodeHint ?? byPath?.name ?? null);
      this.artifacts.push({
        id: this.artifacts.length,
        input,
        path: pl.display,
        role: pl.role,
        format: f.format,
        nodeHint: hint,
        ...(hint ? { nodeHintFrom: pl.nodeHint ? 'layout' as const : byPath?.from } : {}),
        nameTime: nameTime(pl.display),
        mtime: f.mtime,
        compression: f.compression,
        size: f.size,
        head,
        ...(f.headless ? { headless: f.headless } : {}),
        open: wholeOpen(f, head),
        ...(f.file ? { file: f.file } : {}),
        ...(f.onDisk ? { onDisk: f.onDisk } : {}),
        bundleKind: pl.bundleKind,
        zone: pl.zone,
        collectedAt: rotationAnchor(f.path) ?? pl.collectedAt,
        truncated: pl.truncated,
        aliases: pl.aliases,
        group: pl.group,
        priority: pl.priority,
        ...(pl.parseAs ? { parseAs: pl.parseAs } : {}),
        nodeRole: pl.nodeRole,
        ...(f.early !== undefined ? { early: f.early } : {}),
        ...(f.member ? { sequential: true } : {}),
        reach: reachOf(tree, f.path, f.raw),
        ...(pl.group && refused.has(pl.group) ? { refusals: refused.get(pl.group) } : {}),
      });
      if (pl.group) refused.delete(pl.group);
    }
    if (tree.files.length === 0 && !warned.has(given)) this.warnings.push({ file: given, line: null, message: 'no files found' });
    releaseFiles(tree);
  }

  private async addFolder(given: string, real: string): Promise<void> {
    let items;
    try {
      items = await walkFolder(real, given, this.limits.maxFolderFiles);
    } catch (err) {
      throw new InputError(given, fsErrorMessage(err));
    }
    this.opts.onFileSizes?.(items.flatMap((i) => (i.kind === 'file' ? [{ realPath: i.realPath, size: i.size }] : [])));
    const input = this.addInput(given, 'directory');
    // One artifact per file however it was reached; prefer the file's own path over a link to it. Only the files
    // reached by several paths are remembered past this (a map of every file was 100 000 entries held for nothing).
    const { chosen, others } = chooseNames(items);
    const examineItem = (item: WalkFile) => {
      const source = new FileSource(item.rel, item.realPath, item.size, item.mtime);
      const hintPath = path.posix.join(given.split(path.sep).join('/'), item.rel);
      // One odd file must not sink the folder: anything unexpected becomes that file's warning.
      return this.limit(() => this.examine(source, hintPath, false, undefined, true)).catch((err: unknown) => ({
        artifact: null,
        warnings: [warning(item.rel, `cannot be read: ${fsErrorMessage(err)}`)],
      }));
    };
    // An API dump's namespaced resources (pod logs and manifests: most of a big cluster's must-gather) are probed only
    // if the bundle's layout turns out to read them, which must-gather's and inspect's do not (unreadByLayout).
    const deferred = new Set<WalkFile>();
    const slotOf = (item: (typeof items)[number]): Promise<{ artifact: ArtifactDraft | null; warnings: InputWarning[] } | null> => {
      if (item.kind === 'warning') {
        return Promise.resolve({ artifact: null, warnings: [warning(item.rel, item.message)] });
      }
      if (others.has(item) || this.seen.has(item.key)) return Promise.resolve(null);
      if (probeLater(item.rel, item.size)) {
        deferred.add(item);
        return Promise.resolve({ artifact: null, warnings: [] });
      }
      return examineItem(item);
    };
    // Probes started at most PROBE_AHEAD files ahead of the one being placed: a folder of 100 000 files once held a
    // pending probe (promise, closures, source) for each at the same time, 100 MB of heap before any was placed.
    const slots: Array<Promise<{ artifact: ArtifactDraft | null; warnings: InputWarning[] } | null> | undefined> = [];
    const slotAt = (i: number): Promise<{ artifact: ArtifactDraft | null; warnings: InputWarning[] } | null> => {
      for (let k = slots.length; k < Math.min(items.length, i + PROBE_AHEAD); k++) slots.push(slotOf(items[k] as (typeof items)[number]));
      const slot = slots[i] as Promise<{ artifact: ArtifactDraft | null; warnings: InputWarning[] } | null>;
      slots[i] = undefined;
      return slot;
    };
    const tree = newTree();
    this.trees.push(tree);
    const drafts = new Map<TreeFile, { artifact: ArtifactDraft | null; warnings: InputWarning[] }>();
    const ctx = this.treeContext();
    // Every path that reaches a file, so links count as names of it (a sos `.tailed` link, a root symlink).
    // Only files reached by more than one path are in it: a map of 100 000 one-name lists is 10 MB for nothing.
    const namesByKey = new Map<string, string[]>();
    for (const item of others) {
      const chosenRel = (chosen.get(item.key) as WalkFile).rel;
      namesByKey.set(item.key, [...(namesByKey.get(item.key) ?? [chosenRel]), item.rel]);
    }
    /** The tree file of a probed file (an archive's members instead, through its index). */
    const fileOf = async (item: WalkFile, result: { artifact: ArtifactDraft | null; warnings: InputWarning[] }): Promise<TreeFile | null> => {
      const a = result.artifact;
      if (a && a.format === 'archive' && (archiveKind(a.head) === 'tar' || archiveKind(a.head) === 'zip')) {
        const source = new FileSource(item.rel, item.realPath, item.size, item.mtime);
        tree.holders.set(item.rel, { kind: archiveKind(a.head) as 'tar' | 'zip', compression: a.compression, name: null });
        await indexContainer(this.containerFor(source, archiveKind(a.head) as 'tar' | 'zip', a.compression), item.rel, 1, ctx, tree, given);
        return null;
      }
      for (let d = path.posix.dirname(item.rel); d !== '.' && d !== '/'; d = path.posix.dirname(d)) tree.dirs.add(d);
      if (item.mtime > 0) tree.maxMtime = Math.max(tree.maxMtime ?? 0, item.mtime);
      const file: TreeFile = {
        path: item.rel,
        aliases: namesByKey.get(item.key)?.filter((n) => n !== item.rel) ?? NO_ALIASES,
        size: item.size,
        mtime: item.mtime,
        compression: a?.compression ?? null,
        head: a?.head ?? NO_BYTES,
        role: a?.role ?? 'other',
        format: a?.format ?? 'unreadable',
        problem: result.warnings[0]?.message ?? null,
        meta: null,
        cut: false,
        open: a ? a.open : openUnreadable,
        ...(a?.file ? { file: a.file } : {}),
        ...(a?.onDisk ? { onDisk: a.onDisk } : {}),
        ...(a?.headless ? { headless: a.headless } : {}),
      };
      if (a && wantMeta(item.rel, item.size)) {
        const all = await collect(a.open(), this.limits.maxMetaBytes).catch(() => null);
        if (all?.complete) file.meta = all.data;
      }
      if (/(^|\/)etc\/localtime$/.test(item.rel) || item.viaLink) {
        const link = await fsp.readlink(path.join(real, ...item.rel.split('/'))).catch(() => null);
        if (link !== null) tree.links.set(item.rel, link);
      }
      if (result !== NOTHING) drafts.set(file, result);
      return file;
    };
    /** Deferred files, each with the stand-in that holds its place in tree.files until the layout is known. */
    const standIns: Array<{ item: WalkFile; file: TreeFile }> = [];
    // Files that neither name nor head show to be anything read, past limits.maxIdleMembers: only their path is kept
    // (a stand-in) until the layout is known. A folder without a bundle layout counts them (finishTree); a layout that
    // reads one of them has it probed again. 100 000 of them once held their probe's head, source and draft each.
    const idleCut = new Set<TreeFile>();
    let idleKept = 0;
    // What is needed of the walk once each file is placed: its notes and whether it found a file. A file's walk record
    // goes once placed (unless it is a stand-in, probed later).
    const notes = items.filter((item) => item.kind === 'warning');
    const anyFile = items.some((item) => item.kind === 'file');
    const placed = items as Array<WalkItem | undefined>;
    for (let i = 0; i < items.length; i++) {
      const result = await slotAt(i);
      const item = items[i] as (typeof items)[number];
      if (item.kind === 'file') placed[i] = undefined;
      if (!result) continue;
      if (item.kind !== 'file') {
        for (const w of result.warnings) tree.warnings.push(w);
        continue;
      }
      this.seen.set(item.key, item.rel);
      if (deferred.has(item)) {
        // Not probed (yet): a file of role `other`, which is how the layout would place it.
        const file = (await fileOf(item, result)) as TreeFile;
        file.format = 'unprobed';
        standIns.push({ item, file });
        tree.files.push(file);
        continue;
      }
      const idle = result.artifact?.role === 'other' && result.warnings.length === 0;
      if (idle && idleKept >= this.limits.maxIdleMembers) {
        const file = (await fileOf(item, NOTHING)) as TreeFile;
        file.format = 'unprobed';
        idleCut.add(file);
        standIns.push({ item, file });
        tree.files.push(file);
        continue;
      }
      const file = await fileOf(item, result);
      if (file) {
        if (idle) idleKept++;
        tree.files.push(file);
      }
    }
    if (standIns.length > 0) {
      // The roots read only paths and metadata, all known now; whatever a layout may read is probed after all (the
      // idle files cut above only where a layout places them: without one they are counted, not read).
      const roots = findRoots(tree, given);
      const probe = standIns.filter((s) => !unreadByLayout(roots, s.item.rel) && (roots.length > 0 || !idleCut.has(s.file)));
      const results = await Promise.all(probe.map((s) => examineItem(s.item)));
      const want = new Set(probe.map((s) => s.file));
      const at = new Map<TreeFile, number>();
      for (const [i, f] of tree.files.entries()) if (want.has(f)) at.set(f, i);
      const gone = new Set<TreeFile>();
      for (const [k, s] of probe.entries()) {
        drafts.delete(s.file);
        const file = await fileOf(s.item, results[k] as { artifact: ArtifactDraft | null; warnings: InputWarning[] });
        // In its place; an archive's members were added to the tree instead.
        idleCut.delete(s.file);
        if (file) tree.files[at.get(s.file) as number] = file;
        else gone.add(s.file);
      }
      if (gone.size > 0) tree.files = tree.files.filter((f) => !gone.has(f));
    }
    // Archives in the folder may have deferred members of their own.
    if (tree.files.some((f) => f.deferred)) await probeDeferred(tree, findRoots(tree, given), ctx);
    // Dangling links (etc/localtime → a zoneinfo file sos did not copy) still name the zone.
    for (const item of notes) {
      if (item.kind === 'warning' && /(^|\/)etc\/localtime$/.test(item.rel)) {
        const link = await fsp.readlink(path.join(real, ...item.rel.split('/'))).catch(() => null);
        if (link !== null) tree.links.set(item.rel, link);
      }
    }
    if (!anyFile) {
      this.warnings.push({ file: given, line: null, message: 'no files found' });
      return;
    }
    this.finishTree(given, tree, false, { input, drafts, idleCut });
  }

  private addInput(p: string, kind: Input['kind']): number {
    this.inputs.push({ path: p, kind });
    return this.inputs.length - 1;
  }

  private push(input: number, draft: ArtifactDraft | null, warnings: InputWarning[]): void {
    // The draft becomes the artifact (not a copy: 100 000 of them were made twice at the end of a folder).
    if (draft) this.artifacts.push(Object.assign(draft, { id: this.artifacts.length, input }));
    for (const w of warnings) this.warnings.push(w);
  }

  /**
   * Probe and sniff one source. `named`: the user named it, so a problem is an InputError rather than a warning.
   * `hintPath` is the path used to look for a node name (the folder as typed + the path inside it).
   */
  private async examine(
    source: Source,
    hintPath: string,
    named: boolean,
    probed?: Probe,
    /** A file of a folder: its head may be let go past the run's bound on them (heads.ts). */
    inFolder = false,
  ): Promise<{ artifact: ArtifactDraft | null; warnings: InputWarning[] }> {
    const pr = probed ?? (await probe(source, this.tools, this.headBytes));
    const stdin = source instanceof StreamSource;
    const verdict = assess(pr, source.path, named);
    if (named && verdict.fatal && verdict.problem) {
      throw new InputError(source.path, stdin && verdict.problem === 'empty file' ? 'empty input' : verdict.problem);
    }
    const warnings = verdict.problem ? [warning(source.path, verdict.problem)] : NO_WARNINGS;
    // An archive inside a folder is opened later from this head, which must then keep its tar header.
    const keepFull = verdict.role !== 'other' || verdict.format === 'archive';
    const head = keepFull || pr.head.length <= OTHER_HEAD_BYTES ? pr.head : Buffer.from(pr.head.subarray(0, OTHER_HEAD_BYTES));
    const { compression } = pr;
    const { tools, limits, budget } = this;
    const inMemory = pr.complete && compression === null && head === pr.head && source.rereadable;
    // A small file read whole (not an archive, opened later from its head), past the run's bound on such heads: only what
    // later stages read of its head is kept, and its bytes are read again from disk.
    const dropped = inMemory && inFolder && source instanceof FileSource && verdict.problem === null && verdict.format !== 'archive' && !this.heads.keep(head.length);
    const artifact: ArtifactDraft = {
      path: source.path,
      role: verdict.role,
      format: verdict.format,
      ...pathHint(stdin ? null : pathNode(hintPath, named ? source.path.split(/[\\/]/).pop() ?? source.path : source.path, true), this.named),
      nameTime: stdin ? null : nameTime(source.path),
      mtime: source.mtime,
      compression,
      ...(pr.document ? { document: pr.document } : {}),
      size: source.size,
      head: dropped ? NO_HEAD : head,
      ...(dropped ? { headless: this.heads.facts(head) } : {}),
      // A small file read whole by the probe is served from memory: no second open (a must-gather has thousands).
      // Bounded like an archive member: a 168 KB .xz of 1 GiB of lines stops at the ratio bound with a warning.
      // A binary journal on disk is read by offset (journal.ts bounds it), not as a stream.
      // Each made by a function of its own, so that it holds only what it opens (a closure made here would hold this
      // whole scope, the probe and its head included, for as long as the artifact lives).
      open: dropped ? openOnDisk : inMemory ? openOwnHead
        : compression === 'journal' && source instanceof FileSource ? openJournal(source.realPath, limits)
        : openDecoded(source, compression, tools, limits, { budget, ...(pr.document ? { document: pr.document } : {}) }),
      ...(source instanceof FileSource ? {} : { sequential: true }),
      ...(source instanceof FileSource && compression === null && !inMemory && source.size !== null ? { file: { realPath: source.realPath, size: source.size } } : {}),
      ...(source instanceof FileSource && compression === null ? { onDisk: source.realPath } : {}),
      ...(isContainerList(verdict.format) ? { parseAs: 'container-list' as const } : {}),
    };
    return { artifact, warnings };
  }
}

function openJournal(realPath: string, limits: Limits): () => Readable {
  return () => journalFileLines(realPath, limits);
}

function openDecoded(source: Source, compression: Compression, tools: Tools, limits: Limits, opts: Parameters<typeof decodeBounded>[5]): () => Readable {
  return () => decodeBounded(source.open(), compression, tools, limits, source.path, opts);
}

function warning(file: string, message: string): InputWarning {
  return { file, line: null, message };
}

function limiter(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0;
  // A queue read from a moving head: Array.shift() copies the array, and a folder of 100 000 files queues them all.
  const waiting: (() => void)[] = [];
  let head = 0;
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await fn();
    } finally {
      active--;
      if (head < waiting.length) {
        const next = waiting[head] as () => void;
        waiting[head++] = NOOP;
        if (head > 1024 && head * 2 > waiting.length) {
          waiting.splice(0, head);
          head = 0;
        }
        next();
      }
    }
  };
}

const NOOP = (): void => {};

/** The warnings of a file that has none (shared, never written). */
const NO_WARNINGS = Object.freeze([]) as unknown as InputWarning[];

/** What a file not probed (or not readable) has: no head, a stream that fails, no draft. */
const NO_BYTES = Buffer.alloc(0);
const openUnreadable = (): Readable => failedStream(new Error('unreadable'));
const NOTHING: { artifact: ArtifactDraft | null; warnings: InputWarning[] } = { artifact: null, warnings: [] };

function failedStream(err: Error): Readable {
  const r = new PassThrough();
  process.nextTick(() => r.destroy(err));
  return r;
}

/** A zip that is itself compressed: read into memory (bounded) on first use, then served by random access. */
class LazyZip implements Container {
  private inner: Promise<ZipContainer> | null = null;
  constructor(private readonly bytes: () => Readable, private readonly limits: Limits, private readonly label: string, private readonly budget: Budget) {}
  private get(): Promise<ZipContainer> {
    this.inner ??= collect(this.bytes(), this.limits.maxNestedZipBytes).then((r) => {
      if (r.error || !r.complete) throw r.error ?? new Error(`compressed zip larger than ${this.limits.maxNestedZipBytes} bytes: decompress it first`);
      return new ZipContainer(new BufferAccess(r.data), this.limits, this.label, this.budget);
    });
    return this.inner;
  }
  async scan(visit: Parameters<Container['scan']>[0]): Promise<Error | null> {
    try {
      return await (await this.get()).scan(visit);
    } catch (err) {
      return err as Error;
    }
  }
  open(index: number): Readable {
    const out = new PassThrough();
    this.get().then((z) => {
      const s = z.open(index);
      s.on('error', (e) => out.destroy(e));
      s.pipe(out);
    }, (e: Error) => out.destroy(e));
    return out;
  }
  close(): void {
    void this.inner?.then((z) => z.close(), () => undefined);
  }
}

/** Of the paths that reach one file, the one it is read by (its own path over a link to it): `chosen` (only for
 *  files reached by more than one path) and `others`, the paths not chosen. */
function chooseNames(items: ReadonlyArray<{ kind: string }>): { chosen: Map<string, WalkFile>; others: Set<WalkFile> } {
  const first = new Map<string, WalkFile>();
  const others = new Set<WalkFile>();
  for (const item of items) {
    if (item.kind !== 'file') continue;
    const f = item as WalkFile;
    const prev = first.get(f.key);
    if (!prev) first.set(f.key, f);
    else if (prev.viaLink && !f.viaLink) {
      others.add(prev);
      first.set(f.key, f);
    } else others.add(f);
  }
  const chosen = new Map<string, WalkFile>();
  for (const o of others) chosen.set(o.key, first.get(o.key) as WalkFile);
  return { chosen, others };
}

/** A tree once its artifacts are made: only its open archives are kept (closeTree), not a record per file (100 000
 *  files: their heads, sources and probes, held to the end of the run). */
function releaseFiles(tree: Tree): void {
  tree.files = [];
  tree.dirs.clear();
  tree.links.clear();
}

function comparePathSegments(a: string, b: string): number {
  const as = a.split('/');
  const bs = b.split('/');
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const x = as[i] as string;
    const y = bs[i] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return as.length - bs.length;
}

/** An artifact's node hint fields from what its path says. */
function pathHint(p: { name: string; from: NodeHintFrom } | null, named: (s: string) => string): { nodeHint: string | null; nodeHintFrom?: NodeHintFrom } {
  return p ? { nodeHint: named(p.name), nodeHintFrom: p.from } : { nodeHint: null };
}
