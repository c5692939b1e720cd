// Walks a folder the user named. Safety first: nothing outside the folder's real path is ever opened (symlinks
// are resolved fully and checked with path.relative), no fifo/socket/device is opened, no directory twice.
import fs from 'node:fs';
import type { BigIntStats } from 'node:fs';
import path from 'node:path';
import { errorCode, fsErrorMessage } from '../fserror.js';

/** Version-control metadata: never evidence, often huge. */
const SKIP_DIRS = new Set(['.git', '.hg', '.svn', '.bzr', '.jj']);

export interface WalkFile {
  kind: 'file';
  /** Posix path relative to the folder. */
  rel: string;
  /** Fully resolved path: the only path that will be opened. */
  realPath: string;
  size: number;
  mtime: number;
  /** dev:ino, to read a file reached twice (link and target, bind mounts) once. */
  key: string;
  viaLink: boolean;
}

export interface WalkNote {
  kind: 'warning';
  rel: string;
  message: string;
}

export type WalkItem = WalkFile | WalkNote;

/**
 * All regular files under `rootReal` (the realpath of the folder the user named), in a deterministic order
 * (sorted by path segments, i.e. depth-first over sorted names), plus notes for what was not read.
 * `label` is the folder as the user typed it, for messages. The calls are synchronous, as `find` makes them: one at a
 * time through the thread pool, a bundle of thousands of entries spent most of its walk waiting on round trips.
 * Past `maxFiles` files the rest are only counted, in one note at the end (limits.maxFolderFiles): the files read are
 * those met first when each folder's own files are walked before its subfolders.
 */
export async function walkFolder(rootReal: string, label: string, maxFiles = Infinity): Promise<WalkItem[]> {
  const items: WalkItem[] = [];
  let files = 0;
  let beyond = 0;
  const addFile = (f: WalkFile): void => {
    if (++files <= maxFiles) items.push(f);
    else beyond++;
  };
  const visited = new Set<string>();
  const rootStat = fs.statSync(rootReal, { bigint: true });
  visited.add(statKey(rootStat));
  // Directory links are handled after the plain tree: a link usually points at a directory the walk reaches
  // by its own path anyway, and that path is the one to report.
  const dirLinks: { rel: string; real: string; key: string; parentReal: string }[] = [];

  const visitDir = async (dirReal: string, relDir: string, viaLink: boolean): Promise<void> => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dirReal, { withFileTypes: true });
    } catch (err) {
      // The folder the user named must be listable; a subfolder that is not is only a warning.
      if (relDir === '') throw err;
      items.push(note(relDir, `cannot list directory: ${fsErrorMessage(err)}`));
      return;
    }
    entries.sort((a, b) => compareNames(a.name, b.name));
    // A folder's own files before its subfolders (the list is sorted at the end all the same): past maxFiles, the files
    // nearer the folder named are the ones read. Past it, files are counted by their directory entry, not examined.
    for (const e of [...entries.filter((x) => !x.isDirectory()), ...entries.filter((x) => x.isDirectory())]) {
      const name = e.name;
      if (files >= maxFiles && e.isFile()) {
        files++;
        beyond++;
        continue;
      }
      // One flat string (a template's concatenation is two cons cells over its parts, 64 bytes a file more).
      const rel = relDir ? [relDir, name].join('/') : name;
      const full = path.join(dirReal, name);
      let st: BigIntStats;
      try {
        st = fs.lstatSync(full, { bigint: true });
      } catch (err) {
        items.push(note(rel, fsErrorMessage(err)));
        continue;
      }
      if (st.isDirectory()) {
        if (SKIP_DIRS.has(name)) continue;
        const key = statKey(st);
        if (visited.has(key)) {
          items.push(note(rel, 'directory already walked (bind mount loop?): not read again'));
          continue;
        }
        visited.add(key);
        await visitDir(full, rel, viaLink);
      } else if (st.isFile()) {
        addFile(fileItem(rel, full, st, viaLink));
      } else if (st.isSymbolicLink()) {
        await visitLink(full, rel, dirReal);
      } else {
        items.push(note(rel, `not a regular file (${specialKind(st)}): not read`));
      }
    }
  };

  const visitLink = async (full: string, rel: string, parentReal: string): Promise<void> => {
    let real: string;
    try {
      real = fs.realpathSync.native(full);
    } catch (err) {
      const code = errorCode(err);
      if (code === 'ENOENT' || code === 'ENOTDIR') items.push(note(rel, 'dangling symlink: not followed'));
      else if (code === 'ELOOP') items.push(note(rel, 'symlink loop: not followed'));
      else items.push(note(rel, `symlink cannot be resolved (${fsErrorMessage(err)}): not followed`));
      return;
    }
    if (!isInside(rootReal, real)) {
      items.push(note(rel, `symlink leads outside ${label}: not followed`));
      return;
    }
    let st: BigIntStats;
    try {
      st = fs.statSync(real, { bigint: true });
    } catch (err) {
      items.push(note(rel, fsErrorMessage(err)));
      return;
    }
    if (st.isFile()) addFile(fileItem(rel, real, st, true));
    else if (st.isDirectory()) dirLinks.push({ rel, real, key: statKey(st), parentReal });
    else items.push(note(rel, `symlink to something that is not a regular file (${specialKind(st)}): not read`));
  };

  await visitDir(rootReal, '', false);

  for (const link of dirLinks) {
    if (isInside(link.real, link.parentReal)) {
      items.push(note(link.rel, 'symlink to a parent directory (loop): not followed'));
    } else if (!visited.has(link.key)) {
      // Only reached when the target was not walked by its own path (e.g. it sits in a skipped directory).
      visited.add(link.key);
      await visitDir(link.real, link.rel, true);
    }
    // Otherwise its files were already found under their own paths.
  }

  items.sort((a, b) => comparePaths(a.rel, b.rel));
  if (beyond > 0) items.push(note(label, `${beyond} more file(s) were not read: plegscope reads at most ${maxFiles} files of a folder (its memory bound), each folder's own files before its subfolders'; name the subfolders that matter instead`));
  return items;
}

function fileItem(rel: string, realPath: string, st: BigIntStats, viaLink: boolean): WalkFile {
  return {
    kind: 'file', rel, realPath, viaLink,
    size: Number(st.size),
    mtime: Number(st.mtimeMs),
    key: statKey(st),
  };
}

function note(rel: string, message: string): WalkNote {
  return { kind: 'warning', rel, message };
}

export function statKey(st: BigIntStats): string {
  return `${st.dev}:${st.ino}`;
}

export function specialKind(st: { isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  if (st.isFIFO()) return 'fifo';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice()) return 'character device';
  if (st.isBlockDevice()) return 'block device';
  return 'special file';
}

/** Whether `p` is `root` or below it. path.relative, not a string prefix: `/a/bc` is not inside `/a/b`. */
export function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  if (rel === '') return true;
  if (path.isAbsolute(rel)) return false;
  return rel !== '..' && !rel.startsWith(`..${path.sep}`);
}

/** Code-unit order: locale-independent, so every machine lists the same order. */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function comparePaths(a: string, b: string): number {
  const as = a.split('/');
  const bs = b.split('/');
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const c = compareNames(as[i] as string, bs[i] as string);
    if (c !== 0) return c;
  }
  return as.length - bs.length;
}
