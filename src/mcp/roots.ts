// The folders an MCP client may have plegscope read (`plegscope mcp --root DIR`, repeatable), and the one gate every
// path a tool is given goes through. A path is read only when it lies inside a root both as written (`..` resolved
// lexically, before anything on disk is touched, so a refusal says nothing about what exists outside) and as its real
// path (every symlink followed). What is passed on is the real path, and a folder's walk never leaves a folder's real
// path (src/sources/files/walk.ts), an archive's links never leave the archive (src/sources/files/tree.ts): nothing outside is read.
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';

export class RootError extends Error {}

export interface Root {
  /** As given, absolute. */
  given: string;
  /** Its real path. */
  real: string;
}

/** The roots, checked once at start: each must be an existing folder. */
export function makeRoots(dirs: string[], cwd = process.cwd()): Root[] {
  if (dirs.length === 0) throw new RootError('mcp needs at least one --root DIR: the folders its tools may read');
  return dirs.map((d) => {
    const given = path.resolve(cwd, d);
    let real: string;
    try {
      real = realpathSync(given);
    } catch (e) {
      throw new RootError(`--root ${d}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such folder' : (e as Error).message}`);
    }
    if (!statSync(real).isDirectory()) throw new RootError(`--root ${d}: not a folder`);
    return { given, real };
  });
}

function inside(p: string, dir: string): boolean {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * The real path of `p` if it is inside a root, else a RootError that says why. A relative path is taken from each root
 * in turn (the first under which it exists). `-` (stdin), empty names and NUL bytes are refused.
 */
export function confine(p: string, roots: Root[]): string {
  if (p === '' || p === '-') throw new RootError(`"${p}": give a file or folder under ${describe(roots)}`);
  if (p.includes('\0')) throw new RootError('a path with a NUL byte is refused');
  const candidates = path.isAbsolute(p) ? [path.resolve(p)] : roots.flatMap((r) => [path.resolve(r.given, p)]);
  const lexical = candidates.filter((c) => roots.some((r) => inside(c, r.given) || inside(c, r.real)));
  if (lexical.length === 0) throw new RootError(`refused: "${p}" is outside the folders this server may read (${describe(roots)})`);
  let lastError: Error | null = null;
  for (const c of lexical) {
    let real: string;
    try {
      real = realpathSync(c);
    } catch (e) {
      lastError = e as Error;
      continue;
    }
    if (!roots.some((r) => inside(real, r.real))) {
      throw new RootError(`refused: "${p}" leads outside the folders this server may read, through a symlink (allowed: ${describe(roots)})`);
    }
    return real;
  }
  const code = (lastError as NodeJS.ErrnoException | null)?.code;
  throw new RootError(`"${p}": ${code === 'ENOENT' ? 'no such file or folder' : lastError?.message ?? 'cannot be read'} (under ${describe(roots)})`);
}

function describe(roots: Root[]): string {
  return roots.map((r) => r.given).join(', ');
}
