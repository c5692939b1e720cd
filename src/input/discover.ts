// Paths the user named → artifacts with role and format. Loose files, folders and stdin; archives and bundle
// layouts plug in later as further Sources (see source.ts) without changing what comes out of here.
import fsp from 'node:fs/promises';
import type { BigIntStats } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Role } from '../contract/analysis.js';
import { InputError, type Artifact, type Discovery, type Input, type InputWarning } from './artifact.js';
import { CORRUPT, DEFAULT_TOOLS, HEAD_BYTES, TRUNCATED, decode, probe, type Probe, type Tools } from './decode.js';
import { errorCode, fsErrorMessage } from './fserror.js';
import { nameTime, nodeHint } from './names.js';
import { PROBLEM_FORMATS, compressedKind, sniff } from './sniff.js';
import { FileSource, StreamSource, type Source } from './source.js';
import { specialKind, statKey, walkFolder, type WalkFile } from './walk.js';

export interface DiscoverOptions {
  /** What `-` reads (default: process.stdin). */
  stdin?: Readable;
  /** Decompressed bytes kept as `head` and used for sniffing (default 64 KiB). */
  headBytes?: number;
  /** Commands used for xz and bzip2 (default `xz`, `bzip2`, looked up on PATH). */
  tools?: Partial<Tools>;
  /** Files probed at the same time inside a folder (default 8). */
  concurrency?: number;
}

/** Artifacts that no later stage will read keep only this much head: a big folder must not hold 64 KiB each. */
const OTHER_HEAD_BYTES = 4 * 1024;
const NOT_RECOGNISED = 'not recognised as a kubelet, runtime or kernel log, metrics, goroutine dump or node object';

type ArtifactDraft = Omit<Artifact, 'id' | 'input'>;

interface Assessment {
  role: Role;
  format: string;
  /** Warning text, or null when the file is fine. */
  problem: string | null;
  /** Whether the problem makes a file the user named directly unusable (→ InputError). */
  fatal: boolean;
}

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

  constructor(private readonly opts: DiscoverOptions) {
    this.tools = { ...DEFAULT_TOOLS, ...opts.tools };
    this.headBytes = opts.headBytes ?? HEAD_BYTES;
    this.limit = limiter(Math.max(1, opts.concurrency ?? 8));
  }

  result(): Discovery {
    return { inputs: this.inputs, artifacts: this.artifacts, warnings: this.warnings };
  }

  async add(given: string): Promise<void> {
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
    const input = this.addInput('-', 'stdin');
    const source = new StreamSource('-', stream);
    const draft = await this.examine(source, '-', true);
    this.push(input, draft.artifact, draft.warnings);
  }

  private async addFile(given: string, real: string, st: BigIntStats): Promise<void> {
    const input = this.addInput(given, 'file');
    const key = statKey(st);
    const earlier = this.seen.get(key);
    if (earlier !== undefined) {
      this.warnings.push({ file: given, line: null, message: `same file as ${earlier}: read once` });
      return;
    }
    const source = new FileSource(given, real, Number(st.size), Number(st.mtimeMs));
    const draft = await this.examine(source, given, true);
    this.seen.set(key, given);
    this.push(input, draft.artifact, draft.warnings);
  }

  private async addFolder(given: string, real: string): Promise<void> {
    let items;
    try {
      items = await walkFolder(real, given);
    } catch (err) {
      throw new InputError(given, fsErrorMessage(err));
    }
    const input = this.addInput(given, 'directory');
    // One artifact per file however it was reached; prefer the file's own path over a link to it.
    const chosen = new Map<string, WalkFile>();
    for (const item of items) {
      if (item.kind !== 'file') continue;
      const prev = chosen.get(item.key);
      if (!prev || (prev.viaLink && !item.viaLink)) chosen.set(item.key, item);
    }
    const slots = items.map((item) => {
      if (item.kind === 'warning') {
        return Promise.resolve({ artifact: null, warnings: [warning(item.rel, item.message)] });
      }
      if (chosen.get(item.key) !== item || this.seen.has(item.key)) return Promise.resolve(null);
      const source = new FileSource(item.rel, item.realPath, item.size, item.mtime);
      const hintPath = path.posix.join(given.split(path.sep).join('/'), item.rel);
      // One odd file must not sink the folder: anything unexpected becomes that file's warning.
      return this.limit(() => this.examine(source, hintPath, false)).catch((err: unknown) => ({
        artifact: null,
        warnings: [warning(item.rel, `cannot be read: ${fsErrorMessage(err)}`)],
      }));
    });
    for (const [i, slot] of slots.entries()) {
      const result = await slot;
      const item = items[i] as (typeof items)[number];
      if (!result) continue;
      if (item.kind === 'file') this.seen.set(item.key, item.rel);
      this.push(input, result.artifact, result.warnings);
    }
    if (!items.some((item) => item.kind === 'file')) {
      this.warnings.push({ file: given, line: null, message: 'no files found' });
    }
  }

  private addInput(p: string, kind: Input['kind']): number {
    this.inputs.push({ path: p, kind });
    return this.inputs.length - 1;
  }

  private push(input: number, draft: ArtifactDraft | null, warnings: InputWarning[]): void {
    if (draft) this.artifacts.push({ id: this.artifacts.length, input, ...draft });
    this.warnings.push(...warnings);
  }

  /**
   * Probe and sniff one source. `named`: the user named it, so a problem is an InputError rather than a warning.
   * `hintPath` is the path used to look for a node name (the folder as typed + the path inside it).
   */
  private async examine(
    source: Source,
    hintPath: string,
    named: boolean,
  ): Promise<{ artifact: ArtifactDraft | null; warnings: InputWarning[] }> {
    const pr = await probe(source, this.tools, this.headBytes);
    const stdin = source instanceof StreamSource;
    const verdict = assess(pr, source.path, named);
    if (named && verdict.fatal && verdict.problem) {
      throw new InputError(source.path, stdin && verdict.problem === 'empty file' ? 'empty input' : verdict.problem);
    }
    const warnings = verdict.problem ? [warning(source.path, verdict.problem)] : [];
    const keepFull = verdict.role !== 'other';
    const head = keepFull || pr.head.length <= OTHER_HEAD_BYTES ? pr.head : Buffer.from(pr.head.subarray(0, OTHER_HEAD_BYTES));
    const { compression } = pr;
    const tools = this.tools;
    const artifact: ArtifactDraft = {
      path: source.path,
      role: verdict.role,
      format: verdict.format,
      nodeHint: stdin ? null : nodeHint(hintPath),
      nameTime: stdin ? null : nameTime(source.path),
      mtime: source.mtime,
      compression,
      size: source.size,
      head,
      open: () => decode(source.open(), compression, tools),
    };
    return { artifact, warnings };
  }
}

function warning(file: string, message: string): InputWarning {
  return { file, line: null, message };
}

/** What a probed file is, and what (if anything) is wrong with it. */
function assess(pr: Probe, displayPath: string, named: boolean): Assessment {
  const name = displayPath.split('/').pop() ?? displayPath;
  if (pr.error) {
    const code = errorCode(pr.error);
    // A damaged compressed file often holds hours of good log before the damage: keep it, with the warning.
    if (pr.head.length > 0 && (code === TRUNCATED || code === CORRUPT)) {
      const s = sniff(pr.head, name);
      if (!PROBLEM_FORMATS.has(s.format)) return { ...s, problem: pr.error.message, fatal: true };
    }
    return { role: 'other', format: 'unreadable', problem: pr.error.message, fatal: true };
  }
  if (pr.head.length === 0) return { role: 'other', format: 'empty', problem: 'empty file', fatal: true };
  const s = sniff(pr.head, name);
  const problem = problemOf(s.format, pr, displayPath);
  if (problem) return { ...s, problem, fatal: true };
  if (s.role === 'other') return { ...s, problem: named ? NOT_RECOGNISED : null, fatal: false };
  return { ...s, problem: null, fatal: false };
}

function problemOf(format: string, pr: Probe, displayPath: string): string | null {
  switch (format) {
    case 'empty':
      return 'no content (only blank lines or journal notes)';
    case 'binary':
      return 'binary data (not a log or metrics file)';
    case 'journal-binary': {
      const base = (displayPath.split('/').pop() ?? 'journal').replace(/\.journal~?$/, '');
      return `binary journal file: export it with \`journalctl --file ${displayPath} -o short-precise > ${base}.log\``;
    }
    case 'archive':
      return 'archives are not read yet';
    case 'encrypted':
      return 'encrypted (OpenPGP) data: decrypt it first';
    case 'compressed': {
      const inner = compressedKind(pr.head) ?? 'compressed';
      return pr.compression
        ? `${inner} data inside a ${pr.compression} file: not read`
        : `${inner}-compressed: only gzip, xz and bzip2 are read; decompress it first`;
    }
    default:
      return null;
  }
}

function limiter(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await fn();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}
