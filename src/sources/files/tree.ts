// The read-only virtual tree of one input: every regular file of a folder or an archive (archives inside it opened
// the same way), with its sniffed role, a head, and the paths that link to it. Names and links are resolved inside
// the tree only: `../x` and `/x` names are kept inside the bundle's namespace, symlinks are followed within the
// archive they sit in (hop limit), and nothing on the host is ever looked up by a name found in an archive.
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Role } from '../../contract/analysis.js';
import type { Compression, HeadFacts, InputWarning, Reach, ReadEarly } from '../artifact.js';
import { assess } from './assess.js';
import { isContainerList } from './sniff.js';
import { BufferAccess, TarContainer, ZipContainer, type Container, type Holder, type MemberHeader } from './containers.js';
import { compressionOf, decodeBounded, haveTool, missingToolError, readHead, toolFor, type Tools } from './decode.js';
import { collect, peek, type EntryStream } from './entry-stream.js';
import { BOMB, memberGuard, meterOf, mib, type Budget, type Limits } from './limits.js';
import { errorCode } from '../fserror.js';
import { notANodeLog, probeLater, sosClock, unreadByLayout, type BundleRoot } from './bundle.js';
import { NO_ALIASES, openOwnHead, type ArchiveAt, type Tree, type TreeFile } from './tree-types.js';
import { NO_HEAD, type HeadBound } from './heads.js';

export type { ArchiveAt, Tree, TreeFile } from './tree-types.js';

/** How the shell reaches the tree's file at `p` (its stored member name `raw`). */
export function reachOf(tree: Tree, p: string, raw?: string): Reach {
  let key: string | undefined;
  for (const k of tree.holders.keys()) if ((k === '' || p.startsWith(`${k}/`)) && (key === undefined || k.length > key.length)) key = k;
  if (key === undefined) return { disk: p, members: [] };
  const h = tree.holders.get(key) as ArchiveAt;
  const name = raw ?? (key === '' ? p : p.slice(key.length + 1));
  let ups = holderReaches.get(tree);
  if (!ups) holderReaches.set(tree, ups = new Map());
  let up = ups.get(key);
  if (!up) ups.set(key, up = key === '' ? TOP : reachOf(tree, key, h.name ?? undefined));
  return new MemberReach(up, name, h);
}

/** The reach of the archives themselves, per tree (shared by their members). */
const holderReaches = new WeakMap<Tree, Map<string, Reach>>();
const TOP: Reach = Object.freeze({ disk: null, members: Object.freeze([]) as unknown as Reach['members'] });

/** A member's reach: the archive's and the member's name, its list made when asked (only for the files a report cites;
 *  100 000 members' lists took 23 MB). */
class MemberReach implements Reach {
  constructor(private readonly up: Reach, private readonly name: string, private readonly at: ArchiveAt) {}
  get disk(): string | null {
    return this.up.disk;
  }
  get members(): Reach['members'] {
    return [...this.up.members, { name: this.name, kind: this.at.kind, compression: this.at.compression }];
  }
}

export interface TreeContext {
  tools: Tools;
  limits: Limits;
  /** Decompressed bytes of the whole input (limits.maxInputBytes), shared by every stream read out of it. */
  budget: Budget;
  headBytes: number;
  /** Whether the whole content of this file is wanted for bundle detection (small metadata files). */
  wantMeta(path: string, size: number | null): boolean;
  readEarly?: ReadEarly;
  /** Heads of small members read whole, held within a bound per run (heads.ts). */
  heads?: HeadBound;
}

export function newTree(): Tree {
  return { files: [], dirs: new Set(), warnings: [], maxMtime: null, containers: [], links: new Map(), repeats: new Map(), idle: { kept: 0, dropped: 0 }, holders: new Map() };
}

export function closeTree(tree: Tree): void {
  for (const c of tree.containers) c.close();
}

/** Kind of archive the (decompressed) head starts with, or null. */
export function archiveKind(b: Buffer): 'tar' | 'zip' | '7z' | 'rar' | null {
  if (b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && (b[2] === 3 || b[2] === 5) && b[3] === (b[2] as number) + 1) return 'zip';
  if (b.length >= 262 && b.toString('latin1', 257, 262) === 'ustar') return 'tar';
  if (b.length >= 6 && b.toString('latin1', 0, 6) === '7z\xbc\xaf\x27\x1c') return '7z';
  if (b.length >= 6 && b.toString('latin1', 0, 6) === 'Rar!\x1a\x07') return 'rar';
  return null;
}

/** Member name → path inside the archive's own namespace. `..` cannot climb above the root; a leading `/` is dropped. */
export function normalizeName(name: string): { path: string; escaped: boolean } {
  const slashed = name.replace(/\\/g, '/');
  const absolute = slashed.startsWith('/');
  let depth = 0;
  let escaped = absolute;
  for (const seg of slashed.split('/')) {
    if (seg === '..') {
      if (depth === 0) escaped = true;
      else depth--;
    } else if (seg !== '' && seg !== '.') depth++;
  }
  const p = path.posix.normalize(`/${slashed}`).replace(/^\/+/, '').replace(/\/+$/, '');
  // One flat string (the replace gives a slice, which keeps the whole normalised string too: 100 000 members' paths took
  // 7.6 MB, not 4); a name without a slash is flat already.
  return { path: p.includes('/') ? p.split('/').join('/') : p, escaped };
}

export function join(prefix: string, p: string): string {
  return prefix ? (p ? `${prefix}/${p}` : prefix) : p;
}

/**
 * The bytes of a member as read out of its archive, bounded: a compressed member by its own ratio (limits.ts bounded),
 * another by its share of the archive's decompression (memberGuard). `archive`: a member that is an archive itself,
 * whose members are bounded in turn (only the input's budget applies to it as a whole).
 */
function readMember(raw: Readable, compression: Compression, ctx: TreeContext, what: string, archive = false): Readable & { guard?: { ratio: boolean } } {
  if (compression !== null) return decodeBounded(raw, compression, ctx.tools, ctx.limits, what, { budget: ctx.budget, archive });
  return archive ? raw : memberGuard(raw, () => meterOf(raw), ctx.limits, what);
}

/** Names of files that would be read as logs: a dangling link with such a name means a log is missing. */
const LOG_NAME = /(?:^|\/)(?:journalctl_[^/]*|[^/]*\.log(?:\.\d+)?|messages[^/]*|syslog[^/]*|dmesg[^/]*|kubelet[^/]*)$/;

type Slot =
  | { kind: 'file'; file: TreeFile }
  | { kind: 'symlink'; target: string }
  | { kind: 'hardlink'; target: string; raw: string };

/**
 * Indexes one archive: every member once, in archive order. Files land in `tree` under `prefix`; archives inside
 * are indexed recursively (their links resolve inside themselves). `open` of each file re-streams its member.
 */
export async function indexContainer(container: Container, prefix: string, depth: number, ctx: TreeContext, tree: Tree, label: string): Promise<void> {
  tree.containers.push(container);
  const slots = new Map<string, Slot>();
  const dirs = new Set<string>();
  let members = 0;
  let lastName = '';
  let lastFile: TreeFile | null = null;
  const replaced = new Set<TreeFile>();
  const warn = (p: string, message: string, kind?: string) => addWarning(tree, { file: join(prefix, p) || label, line: null, message }, kind);

  const scanned = container.scan(async (h: MemberHeader, body: EntryStream | null) => {
    if (++ctx.budget.members > ctx.limits.maxMembers) {
      throw Object.assign(new Error(`more than ${ctx.limits.maxMembers} archive members in this input (the bound per input): the rest is not read`), { code: BOMB });
    }
    members++;
    if (h.name.length > MAX_PATH_BYTES) {
      // No file system has such a name (PATH_MAX): walking its folders would cost its length squared.
      warn('', `member name of ${h.name.length} characters (${shown(h.name)}): not read`, 'long-name');
      return;
    }
    const { path: p, escaped } = normalizeName(h.name);
    lastName = p || h.name;
    if (h.mtime !== null && h.mtime > 0) tree.maxMtime = Math.max(tree.maxMtime ?? 0, h.mtime);
    if (escaped && p !== '') {
      warn(p, `member name "${shown(h.name)}" points outside the archive: kept inside the bundle as ${join(prefix, p)}`, 'escaped');
    }
    if (p === '') {
      if (h.type === 'file') warn('', `member with an empty name ("${shown(h.name)}"): not read`, 'empty-name');
      return;
    }
    for (let d = path.posix.dirname(p); d !== '.' && d !== '/'; d = path.posix.dirname(d)) dirs.add(d);
    if (h.unreadable && h.type !== 'directory') {
      warn(p, h.unreadable);
      return;
    }
    switch (h.type) {
      case 'directory':
        dirs.add(p);
        return;
      case 'special':
        warn(p, `${h.special ?? 'special file'} in the archive: ignored`);
        return;
      case 'symlink':
      case 'link': {
        const target = h.linkname ?? '';
        if (target.length > MAX_PATH_BYTES) {
          warn(p, `${h.type === 'link' ? 'hard link' : 'symlink'} to a path of ${target.length} characters (${shown(target)}): not followed`, 'long-link');
          return;
        }
        if (h.type === 'link') {
          slots.set(p, { kind: 'hardlink', target, raw: target });
          return;
        }
        slots.set(p, { kind: 'symlink', target });
        tree.links.set(join(prefix, p), target);
        return;
      }
    }
    if (!body) return;
    const display = join(prefix, p);
    const reopen = (holder?: Holder): Readable => container.open(h.index, holder);
    const file = await examineMember(h, body, display, reopen, depth, ctx, tree, label, container);
    if (file) {
      // The stored name, the path's own string when they are alike.
      file.raw = h.name === display ? display : h.name;
      const prev = slots.get(p);
      // A later member of the same name replaces the earlier one, as when unpacking.
      if (prev?.kind === 'file') replaced.add(prev.file);
      slots.set(p, { kind: 'file', file });
      // Archive order, nested members in place: the read pass then moves forward through the archive.
      tree.files.push(file);
      lastFile = file;
    }
  });
  const err = await scanned.catch((e: unknown) => e as Error);
  if (err) {
    const what = errorCode(err) === BOMB ? 'archive read stopped' : /Unexpected end|end of data|truncated/i.test(err.message) ? 'archive is truncated' : 'archive is damaged';
    tree.warnings.push({
      file: prefix || label,
      line: null,
      message: members > 0
        ? `${what} after ${members} member(s) (last: ${lastName}): ${err.message}; the members before it were read`
        : `archive could not be read: ${err.message}`,
    });
    // The member being read when the archive broke off holds only its beginning.
    if (lastFile) (lastFile as TreeFile).cut = true;
  }
  for (const d of dirs) tree.dirs.add(join(prefix, d));
  if (prefix) tree.dirs.add(prefix);

  // Links, resolved inside this archive only. Linear in the segments walked: `pending` is a stack (next segment last)
  // with a count of the segments in it that still lead somewhere, and each prefix of the path is built from the one
  // before. Every archive has a budget of steps, so that no maze of links can take longer than a few seconds.
  let steps = 0;
  const meaningful = (seg: string) => seg !== '' && seg !== '.';
  const resolve = (start: string): { file: TreeFile } | { dir: true } | { error: string } => {
    const pending = start.split('/').reverse();
    let left = pending.filter(meaningful).length;
    const cur: string[] = [];
    const push = (target: string) => {
      const segs = target.split('/');
      for (let i = segs.length - 1; i >= 0; i--) pending.push(segs[i] as string);
      left += segs.filter(meaningful).length;
    };
    let hops = 0;
    while (pending.length > 0) {
      if (++steps > MAX_RESOLVE_STEPS) return { error: 'not resolved: the archive\'s links took too many steps to follow (a maze of links?)' };
      const seg = pending.pop() as string;
      if (!meaningful(seg)) continue;
      left--;
      if (seg === '..') {
        if (cur.length === 0) return { error: 'leads outside the bundle' };
        cur.pop();
        continue;
      }
      const here = cur.length > 0 ? `${cur[cur.length - 1]}/${seg}` : seg;
      if (here.length > MAX_PATH_BYTES) return { error: 'leads to a path longer than any file system allows' };
      cur.push(here);
      const slot = slots.get(here);
      if (slot?.kind === 'symlink') {
        if (++hops > ctx.limits.maxHops) return { error: 'symlink loop (too many hops)' };
        const t = slot.target;
        if (t.startsWith('/')) return { error: `points at the absolute path ${shown(t)}, outside the bundle` };
        cur.pop();
        push(t);
      } else if (slot?.kind === 'hardlink') {
        if (++hops > ctx.limits.maxHops) return { error: 'link loop (too many hops)' };
        const n = normalizeName(slot.target);
        if (n.escaped) return { error: `hard link to ${shown(slot.raw)}, outside the archive` };
        cur.length = 0;
        push(n.path);
      } else if (slot?.kind === 'file') {
        if (left > 0) return { error: 'a file is used as a directory' };
        return { file: slot.file };
      } else if (!dirs.has(here) && left === 0) {
        return { error: 'target is missing from the bundle (dangling link)' };
      }
    }
    return cur.length === 0 || dirs.has(cur[cur.length - 1] as string) ? { dir: true } : { error: 'target is missing from the bundle (dangling link)' };
  };
  for (const [p, slot] of slots) {
    if (slot.kind === 'file') continue;
    const r = slot.kind === 'hardlink' && normalizeName(slot.target).escaped
      ? { error: `hard link to ${shown(slot.raw)}, outside the archive` }
      : resolve(p);
    if ('file' in r) (r.file.aliases === NO_ALIASES ? (r.file.aliases = []) : r.file.aliases).push(join(prefix, p));
    else if ('error' in r && r.error.startsWith('target is missing') && !LOG_NAME.test(p)) {
      // Bundles are full of dangling links (sos root links, /lib, pod log links whose target was not copied): only a
      // missing log is worth a warning.
      continue;
    } else if ('error' in r) {
      const kind = `link: ${r.error.startsWith('not resolved') ? r.error : slot.kind}`;
      warn(p, slot.kind === 'symlink' ? `symlink to ${shown(slot.target)}: ${r.error}: not followed` : `${r.error.startsWith('hard link') ? r.error : `hard link to ${shown(slot.raw)}: ${r.error}`}: not followed`, kind);
    }
  }
  if (replaced.size > 0) tree.files = tree.files.filter((f) => !replaced.has(f));
}

/** Longer member names and link targets than any file system allows (PATH_MAX) are not followed. */
const MAX_PATH_BYTES = 4096;
/** Path segments an archive's link resolution may walk in all (its links together). */
const MAX_RESOLVE_STEPS = 2_000_000;
/** Warnings of one kind listed per input; the rest are counted in one line (a bomb of 5 000 entries needs one). */
const SAME_WARNINGS = 10;

/** A name from the archive as a message quotes it: at most 120 characters. */
function shown(s: string): string {
  return s.length > 120 ? `${s.slice(0, 60)}…${s.slice(-59)}` : s;
}

/** Adds a warning to the tree; past SAME_WARNINGS of one kind (the message unless given) they are only counted, and
 *  flushRepeats says how many more there were. */
export function addWarning(tree: Tree, w: InputWarning, kind = w.message): void {
  const r = tree.repeats.get(kind);
  if (!r) tree.repeats.set(kind, { shown: 1, more: 0, example: w });
  else if (r.shown < SAME_WARNINGS) r.shown++;
  else {
    r.more++;
    return;
  }
  tree.warnings.push(w);
}

/** The counts of the warnings addWarning held back, one line per kind. */
export function flushRepeats(tree: Tree, label: string): void {
  for (const r of tree.repeats.values()) {
    if (r.more > 0) tree.warnings.push({ file: label, line: null, message: `${r.more} more member(s) like ${r.example.file}: ${r.example.message}` });
  }
  tree.repeats.clear();
  if (tree.idle.dropped > 0) {
    tree.warnings.push({ file: label, line: null, message: `${tree.idle.dropped} more member(s) that no reader uses (not logs, metrics, node objects or bundle metadata) were skipped: only ${tree.idle.kept} such members are listed per input` });
    tree.idle.dropped = 0;
  }
}

/** Whether one more member that nothing reads is kept (listed) in this input: past limits.maxIdleMembers (200 000 tiny
 *  members took 500 MB) such members are counted instead, and the archive is read on. */
function keepIdle(tree: Tree, ctx: TreeContext): boolean {
  if (tree.idle.kept < ctx.limits.maxIdleMembers) {
    tree.idle.kept++;
    return true;
  }
  tree.idle.dropped++;
  return false;
}

async function examineMember(
  h: MemberHeader, body: EntryStream, display: string, reopen: (holder?: Holder) => Readable, depth: number, ctx: TreeContext, tree: Tree, label: string, container: Container,
): Promise<TreeFile | null> {
  const warn = (message: string) => addWarning(tree, { file: display, line: null, message });
  const p1 = await peek(body, 512);
  const compression = compressionOf(p1.head);
  if (probeLater(display, h.size) && !ARCHIVE_NAME.test(display) && !p1.error) {
    // An API dump's namespaced resource (tens of thousands in a big must-gather): probed only if the layout, known
    // once the pass is over, can read it (discover.ts). Its bytes go by unread, compressed ones undecompressed.
    p1.stream.destroy();
    if (!keepIdle(tree, ctx)) return null;
    return {
      path: display, aliases: NO_ALIASES, size: h.size, mtime: h.mtime, compression, head: Buffer.alloc(0), role: 'other', format: 'unprobed',
      problem: null, meta: null, cut: false, open: () => readMember(reopen(), compression, ctx, display), member: true, deferred: true,
    };
  }
  if (compression) {
    const cmd = toolFor(compression, ctx.tools);
    if (cmd !== null && !(await haveTool(cmd))) {
      p1.stream.destroy();
      warn(missingToolError(compression, cmd).message);
      return null;
    }
  }
  // Read as a plain member until its head shows an archive, which is then exempt from the member bound. A small plain
  // member is all in the first head already (most members of a big bundle: no second stream each).
  const whole = compression === null && p1.ended && !p1.error;
  const decoded = whole ? null : readMember(p1.stream, compression, ctx, display);
  const p2 = decoded ? await peek(decoded, ctx.headBytes) : p1;
  const kind = archiveKind(p2.head);
  if (kind !== null && decoded?.guard) decoded.guard.ratio = false;
  if (kind === '7z' || kind === 'rar') {
    p2.stream.destroy();
    warn(`${kind} archive: not read (only tar, tar.gz, tar.xz, tar.bz2 and zip are); unpack it first`);
    return null;
  }
  if (kind !== null) {
    if (depth + 1 > ctx.limits.maxDepth) {
      p2.stream.destroy();
      warn(`archive nested ${depth + 1} levels deep: not opened (limit ${ctx.limits.maxDepth})`);
      return null;
    }
    if (kind === 'tar') {
      let child: TarContainer | null = null;
      const holder: Holder = { idle: () => child?.idle() ?? true, release: () => child?.releasePass() };
      // Later reads of the nested archive stream its member out of this archive again.
      child = new TarContainer(() => readMember(reopen(holder), compression, ctx, display, true));
      tree.holders.set(display, { kind: 'tar', compression, name: h.name });
      await indexContainer(new FirstScan(child, p2.stream), display, depth + 1, ctx, tree, label);
      return null;
    }
    const zipped = await collect(p2.stream, ctx.limits.maxNestedZipBytes);
    if (zipped.error || !zipped.complete) {
      warn(zipped.error ? `zip inside the archive could not be read: ${zipped.error.message}` : `zip inside the archive is larger than ${mib(ctx.limits.maxNestedZipBytes)}: not read; unpack it first`);
      return null;
    }
    tree.holders.set(display, { kind: 'zip', compression, name: h.name });
    await indexContainer(new ZipContainer(new BufferAccess(zipped.data), ctx.limits, display, ctx.budget), display, depth + 1, ctx, tree, label);
    return null;
  }
  const verdict = assess({ compression, head: p2.head, complete: p2.ended, error: p2.error }, display, false);
  let meta: Buffer | null = null;
  let early: number | undefined;
  const wantMeta = !p2.error && ctx.wantMeta(display, h.size);
  // Not for what no layout reads as a node log (pod logs, sos's since-boot journal…): the layout drops it later.
  const reader = !wantMeta && !p2.error && verdict.problem === null && !notANodeLog(display)
    ? ctx.readEarly?.({ path: display, role: verdict.role, format: verdict.format, size: h.size, mtime: h.mtime, head: p2.head, clock: () => clockAbove(tree, display) })
    : null;
  if (wantMeta) {
    const all = p2.ended ? { data: p2.head, complete: true, error: null } : await collect(p2.stream, ctx.limits.maxMetaBytes);
    meta = all.complete ? all.data : null;
  } else if (reader) {
    // The pass moves on once the reader has read the member to its end.
    early = await reader(p2.stream).catch(() => undefined);
  } else {
    p2.stream.destroy();
  }
  if (meta === null && early === undefined && verdict.role === 'other' && !isContainerList(verdict.format) && !keepIdle(tree, ctx)) return null;
  const kept = keptHead(verdict, p2.head, p2.ended && !p2.error, memberOpener(container, h.index, compression, ctx, display), early !== undefined ? ctx.heads : undefined);
  return {
    path: display,
    aliases: NO_ALIASES,
    size: h.size,
    mtime: h.mtime,
    compression,
    head: kept.head,
    ...(kept.headless ? { headless: kept.headless } : {}),
    role: verdict.role,
    format: verdict.format,
    problem: verdict.problem,
    meta,
    cut: false,
    open: kept.open,
    member: true,
    ...(early !== undefined ? { early } : {}),
  };
}

/** A member's bytes read out of its archive again: a closure of its own, holding only these (one made inside
 *  examineMember held all that function's state, for as long as the file lived). */
function memberOpener(container: Container, index: number, compression: Compression, ctx: TreeContext, display: string): () => Readable {
  return () => readMember(container.open(index), compression, ctx, display);
}

/**
 * What an archive member keeps of its probed head: all of it for what is read later (logs, metrics, node objects,
 * container lists), 4 KiB of the rest (only sniffed). A member the head holds whole (`whole`) is served from it: a
 * later pass over the archive to reach it would decompress everything before it again.
 */
function keptHead(verdict: { role: Role; format: string; problem?: string | null }, head: Buffer, whole: boolean, reopen: () => Readable, bound?: HeadBound): { head: Buffer; open: () => Readable; headless?: HeadFacts } {
  const read = verdict.role !== 'other' || isContainerList(verdict.format);
  // A log read while indexed (`bound` given only for those), past the run's bound on whole heads: only what later stages
  // read of its head is kept (heads.ts); its bytes come out of the archive again only if its early read is not kept.
  // Other members (metrics, node objects …) keep theirs: reading them from memory saves a pass over the archive.
  if (bound && whole && !verdict.problem && !bound.keep(head.length)) return { head: NO_HEAD, open: reopen, headless: bound.facts(head) };
  // A copy: the head may be a slice of a much larger chunk of the archive stream.
  const kept = keepBytes(read || head.length <= 4096 ? head : head.subarray(0, 4096));
  return { head: kept, open: whole && kept.length === head.length ? openOwnHead : reopen };
}

/** Small heads kept are copied into slabs of their own: copied into Node's shared pool, they shared its 8 KiB slabs with
 *  short-lived buffers, and a slab stayed whole for the one head in it (100 000 tiny members' heads of 31 MB held 65 MB). */
const SLAB_BYTES = 64 * 1024;
let slab = Buffer.alloc(0);
let slabUsed = 0;
function keepBytes(b: Buffer): Buffer {
  if (b.length === 0 || b.length > 4096) return Buffer.from(b);
  if (slabUsed + b.length > slab.length) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    slabUsed = 0;
  }
  const out = slab.subarray(slabUsed, slabUsed + b.length);
  b.copy(out);
  // 8-byte aligned, as Node's pool is.
  slabUsed += (b.length + 7) & ~7;
  return out;
}

/** Names of tar and zip archives, opened while indexing (their members are files of the tree): never deferred. A
 *  compressed log (`current.log.gz`) is. */
const ARCHIVE_NAME = /\.(?:tar|tgz|tbz2?|txz|zip)(?:\.(?:gz|xz|bz2))?$/i;

/**
 * Probes the deferred members of an indexed archive that the layout can read after all (no must-gather or inspect root
 * holds them: unreadByLayout), as the index pass would have: one more pass over the archive, for what is rare.
 */
export async function probeDeferred(tree: Tree, roots: BundleRoot[], ctx: TreeContext): Promise<void> {
  for (const f of tree.files) {
    if (!f.deferred || unreadByLayout(roots, f.path)) continue;
    const h = await readHead(f.open(), ctx.headBytes);
    const verdict = assess({ compression: f.compression, head: h.head, complete: h.complete, error: h.error }, f.path, false);
    Object.assign(f, { ...keptHead(verdict, h.head, h.complete && !h.error, f.open), role: verdict.role, format: verdict.format, problem: verdict.problem, deferred: false });
  }
}

/** What the sosreport metadata the pass has met so far, in the nearest folder above `file` that has any, says of the
 *  node's zone and the collection time (bundle.ts sosClock: the same reading the layout makes of the whole tree). */
function clockAbove(tree: Tree, file: string): { zone: string | null; collectedAt: number | null } {
  const metas = metasOf(tree);
  const text = (p: string) => metas.get(p)?.toString('utf8') ?? null;
  const link = (p: string) => tree.links.get(p);
  for (let d = path.posix.dirname(file); ; d = path.posix.dirname(d)) {
    const dir = d === '.' || d === '/' ? '' : d;
    const c = sosClock(dir, text, link);
    if (c.zone !== null || c.collectedAt !== null || dir === '') return c;
  }
}

/** Metadata files met so far, by path; extended as the pass adds files (each looked at once). */
const metaIndex = new WeakMap<Tree, { seen: number; byPath: Map<string, Buffer> }>();
function metasOf(tree: Tree): Map<string, Buffer> {
  let ix = metaIndex.get(tree);
  if (!ix) metaIndex.set(tree, (ix = { seen: 0, byPath: new Map() }));
  for (; ix.seen < tree.files.length; ix.seen++) {
    const f = tree.files[ix.seen] as TreeFile;
    if (f.meta) ix.byPath.set(f.path, f.meta);
  }
  return ix.byPath;
}

/** A container whose first scan reads a stream already in hand (the one that was sniffed), later opens re-stream. */
class FirstScan implements Container {
  constructor(private readonly inner: TarContainer, private readonly first: Readable) {}
  scan(visit: Parameters<Container['scan']>[0]): Promise<Error | null> {
    return this.inner.scan(visit, this.first);
  }
  open(index: number, holder?: Holder): Readable {
    return this.inner.open(index, holder);
  }
  close(): void {
    this.inner.close();
  }
}
