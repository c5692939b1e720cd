// Start-up (README "Start-up"): bin/plegscope runs dist/plegscope.cjs with V8's code cache. Whatever the flags, the
// cache folder or an older cache, the answers are the same, and no entry made for other code is ever run. Spawned as
// users run it; nothing here is timed (the speed is shown by `npm run bench:startup`).
import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { ANALYZE_DEFAULTS, buildProgram, plainAnalyze } from '../src/cli/main.js';

const ROOT = join(__dirname, '..');
const INPUT = join(ROOT, 'fixtures', 'sample-incident');
const ARGS = ['analyze', INPUT, '--format', 'json', '--year', '2024', '--tz', 'UTC'];

let tmp: string;
beforeAll(() => { tmp = mkdtempSync(join(tmpdir(), 'plegscope-startup-')); });
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** bin/plegscope of `root` with `env` on top of a clean environment (no cache settings of the caller's). */
function run(root: string, args: string[], env: Record<string, string>, nodeFlags: string[] = []): { code: number; out: string; err: string } {
  const base = { ...process.env };
  for (const k of ['PLEGSCOPE_CACHE', 'PLEGSCOPE_CACHE_DIR', 'PLEGSCOPE_BUNDLE', 'XDG_CACHE_HOME', 'NODE_OPTIONS']) delete base[k];
  const r = spawnSync(process.execPath, [...nodeFlags, join(root, 'bin', 'plegscope'), ...args], { encoding: 'utf8', env: { ...base, ...env }, maxBuffer: 64 << 20 });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}
/** The JSON report without the one field that changes from run to run. */
const answer = (out: string): unknown => { const a = JSON.parse(out) as Record<string, unknown>; delete a['generatedAt']; return a; };
const entries = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.v8cache')).sort() : []);

/** A copy of the built program (bin/, dist/, package.json; node_modules linked): a clone or an install to change. */
function copyOfBuild(name: string): string {
  const dir = join(tmp, name);
  mkdirSync(dir);
  cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** Rewrites dist/plegscope.cjs of `root` with `edit` applied to its code, with a first line naming the new code's hash. */
function rebundle(root: string, edit: (code: string) => string): void {
  const file = join(root, 'dist', 'plegscope.cjs');
  const text = readFileSync(file, 'latin1');
  const code = edit(text.slice(text.indexOf('\n') + 1));
  writeFileSync(file, `/* plegscope start-up bundle sha256=${createHash('sha256').update(code).digest('hex')} */\n${code}`, 'latin1');
}

describe('the start-up code cache', () => {
  let expected: unknown;
  const cache = () => join(tmp, 'cache');

  it('is written by the first analyze run that analyzed, read by the next; the same answers without it, with it, and from the module tree', () => {
    const off = run(ROOT, ARGS, { PLEGSCOPE_CACHE: 'off', PLEGSCOPE_CACHE_DIR: cache() });
    expect(off.code, off.err).toBe(0);
    expect(entries(cache())).toEqual([]);
    expected = answer(off.out);
    // A run stopped by a typo writes none (it ran little of the code an entry should hold).
    expect(run(ROOT, ['analyze', join(tmp, 'no-such-file')], { PLEGSCOPE_CACHE_DIR: cache() }).code).toBe(2);
    expect(entries(cache())).toEqual([]);
    const first = run(ROOT, ARGS, { PLEGSCOPE_CACHE_DIR: cache() });
    expect(answer(first.out)).toEqual(expected);
    const written = entries(cache());
    expect(written).toHaveLength(1);
    const stamp = statSync(join(cache(), written[0]!)).mtimeMs;
    const second = run(ROOT, ARGS, { PLEGSCOPE_CACHE_DIR: cache() });
    expect(answer(second.out)).toEqual(expected);
    expect(entries(cache())).toEqual(written);
    expect(statSync(join(cache(), written[0]!)).mtimeMs, 'an accepted entry is not rewritten').toBe(stamp);
    // The module tree (what `tui` and `mcp` start from, and every command before the bundle) answers the same.
    const tree = run(ROOT, ARGS, { PLEGSCOPE_BUNDLE: 'off', PLEGSCOPE_CACHE_DIR: cache() });
    expect(tree.code, tree.err).toBe(0);
    expect(answer(tree.out)).toEqual(expected);
  }, 60_000);

  it('with V8 flags in NODE_OPTIONS or on node\'s command line: the same answers, an entry per set of flags', () => {
    const before = entries(cache()).length;
    // (Node takes only some V8 flags from NODE_OPTIONS; the others go on its command line. --jitless takes WebAssembly
    // away: the scan kernel runs in JavaScript then, src/parse/kernel.ts.)
    const runs: [string, Record<string, string>, string[]][] = [
      ['NODE_OPTIONS=--max-old-space-size=100', { NODE_OPTIONS: '--max-old-space-size=100' }, []],
      ['node --stack-size=2000', {}, ['--stack-size=2000']],
      ['node --no-opt', {}, ['--no-opt']],
      ['node --jitless', {}, ['--jitless']],
    ];
    for (const [label, env, flags] of runs) {
      for (let i = 0; i < 2; i++) {
        const r = run(ROOT, ARGS, { PLEGSCOPE_CACHE_DIR: cache(), ...env }, flags);
        expect(r.code, `${label}: ${r.err}`).toBe(0);
        expect(answer(r.out), label).toEqual(expected);
      }
    }
    expect(entries(cache())).toHaveLength(before + runs.length);
  }, 120_000);

  it('a cache folder that cannot be made, that another user owns or that others may write to: no cache, the same answers', () => {
    writeFileSync(join(tmp, 'a-file'), '');
    const unmakeable = run(ROOT, ARGS, { PLEGSCOPE_CACHE_DIR: join(tmp, 'a-file', 'cache') });
    expect(unmakeable.code, unmakeable.err).toBe(0);
    expect(unmakeable.err).toBe('');
    expect(answer(unmakeable.out)).toEqual(expected);

    const theirs = join(tmp, 'theirs');
    mkdirSync(theirs);
    // As root, another owner; otherwise a folder this user cannot write.
    if (process.getuid?.() === 0) chownSync(theirs, 65534, 65534);
    else chmodSync(theirs, 0o500);
    const r = run(ROOT, ARGS, { PLEGSCOPE_CACHE_DIR: theirs });
    expect(r.code, r.err).toBe(0);
    expect(answer(r.out)).toEqual(expected);
    expect(readdirSync(theirs)).toEqual([]);

    // This user's, but others may write to it (as /tmp): an entry there could be anyone's.
    const shared = join(tmp, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const s = run(ROOT, ARGS, { PLEGSCOPE_CACHE_DIR: shared });
    expect(answer(s.out)).toEqual(expected);
    expect(readdirSync(shared)).toEqual([]);
  }, 60_000);

  it('after an upgrade, an edit in place or a damaged entry, no old code is run: the answers are the new code\'s', () => {
    const install = copyOfBuild('install');
    const dir = join(tmp, 'cache-upgrade');
    // A "previous version": the same program saying another version, run first so that its entry is in the cache.
    rebundle(install, (code) => code.replaceAll('"0.1.0"', '"0.0.9"'));
    const old = run(install, ARGS, { PLEGSCOPE_CACHE_DIR: dir });
    expect(old.code, old.err).toBe(0);
    expect((JSON.parse(old.out) as { tool: { version: string } }).tool.version).toBe('0.0.9');
    expect(entries(dir)).toHaveLength(1);
    // The upgrade: today's bundle in its place.
    cpSync(join(ROOT, 'dist', 'plegscope.cjs'), join(install, 'dist', 'plegscope.cjs'));
    const upgraded = run(install, ARGS, { PLEGSCOPE_CACHE_DIR: dir });
    expect(answer(upgraded.out)).toEqual(expected);
    expect(entries(dir)).toHaveLength(2);

    // An edit in place that keeps the first line and the length (what V8's own check of the source looks at).
    const file = join(install, 'dist', 'plegscope.cjs');
    const text = readFileSync(file, 'latin1');
    const edited = text.replaceAll('"0.1.0"', '"0.2.0"');
    expect(edited.length).toBe(text.length);
    writeFileSync(file, edited, 'latin1');
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    const r = run(install, ARGS, { PLEGSCOPE_CACHE_DIR: dir });
    expect((JSON.parse(r.out) as { tool: { version: string } }).tool.version).toBe('0.2.0');

    // A damaged entry (a disk, a crash) is rejected by V8, and written anew.
    writeFileSync(file, text, 'latin1');
    const fresh = join(tmp, 'cache-damaged');
    run(install, ARGS, { PLEGSCOPE_CACHE_DIR: fresh });
    const [entry] = entries(fresh);
    writeFileSync(join(fresh, entry!), Buffer.alloc(4096, 7));
    const again = run(install, ARGS, { PLEGSCOPE_CACHE_DIR: fresh });
    expect(answer(again.out)).toEqual(expected);
    expect(statSync(join(fresh, entry!)).size).not.toBe(4096);
  }, 120_000);
});

describe('`analyze PATH…` alone, read without commander', () => {
  it('gets the flags commander would hand over; anything else is left to commander', async () => {
    const program = buildProgram('analyze');
    let seen: unknown;
    program.commands.find((c) => c.name() === 'analyze')!.action((paths: string[], flags: object, cmd: { getOptionValueSource(k: string): string | undefined }) => {
      seen = { paths, flags, formatGiven: cmd.getOptionValueSource('format') !== 'default' };
    });
    await program.parseAsync(['node', 'plegscope', 'analyze', 'a.log', 'b/']);
    expect(seen).toEqual({ paths: ['a.log', 'b/'], flags: { ...ANALYZE_DEFAULTS }, formatGiven: false });
    expect(plainAnalyze(['analyze', 'a.log', 'b/'])).toEqual(['a.log', 'b/']);
    for (const args of [['analyze'], ['analyze', '-'], ['analyze', 'a.log', '--format', 'json'], ['analyze', '--', 'a.log'], ['analyze', '-h'], ['analyze', ''], ['rules', 'list'], ['a.log']]) {
      expect(plainAnalyze(args), args.join(' ')).toBeNull();
    }
  });

  it('answers as the same run through commander: the report, the exit code, a missing file\'s line', () => {
    const env = { PLEGSCOPE_CACHE: 'off' };
    for (const paths of [[INPUT], [join(INPUT, 'kubelet.log'), join(tmp, 'no-such-file')]]) {
      const plain = run(ROOT, ['analyze', ...paths], env);
      // (An option's default given: commander reads the run, and the report is the same text report.)
      const through = run(ROOT, ['analyze', ...paths, '--evidence', '3'], env);
      expect(plain.code, plain.err).toBe(through.code);
      expect(plain.out).toBe(through.out);
      expect(plain.err).toBe(through.err);
    }
  }, 60_000);
});

describe('from a global npm install', () => {
  it('npm pack, npm i -g into a prefix: the same answers; nothing written into the install; tui and mcp start too', () => {
    const packDir = join(tmp, 'pack');
    mkdirSync(packDir);
    const pack = spawnSync('npm', ['pack', '--silent', '--pack-destination', packDir], { cwd: ROOT, encoding: 'utf8' });
    expect(pack.status, pack.stderr).toBe(0);
    const tgz = join(packDir, readdirSync(packDir).find((f) => f.endsWith('.tgz'))!);
    const prefix = join(tmp, 'prefix');
    const inst = spawnSync('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tgz], { encoding: 'utf8' });
    expect(inst.status, inst.stderr).toBe(0);
    const installed = join(prefix, 'lib', 'node_modules', 'plegscope');
    expect(existsSync(join(installed, 'dist', 'plegscope.cjs'))).toBe(true);
    const listing = (): string => spawnSync('find', [installed, '-printf', '%P %s %T@\\n'], { encoding: 'utf8', maxBuffer: 64 << 20 }).stdout;
    spawnSync('chmod', ['-R', 'a-w', installed]);
    try {
      const since = listing();
      const env = { PLEGSCOPE_CACHE_DIR: join(tmp, 'cache-global') };
      // Through npm's link in <prefix>/bin, as a shell would run it.
      const exec = (args: string[]) => spawnSync(join(prefix, 'bin', 'plegscope'), args, { encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 64 << 20 });
      for (let i = 0; i < 2; i++) {
        const r = exec(ARGS);
        expect(r.status, r.stderr).toBe(0);
        expect(answer(r.stdout)).toEqual(answer(run(ROOT, ARGS, { PLEGSCOPE_CACHE: 'off' }).out));
      }
      expect(entries(env.PLEGSCOPE_CACHE_DIR)).toHaveLength(1);
      const tui = exec(['tui', INPUT]);
      expect(tui.status).toBe(2);
      expect(tui.stderr).toMatch(/needs an interactive terminal/);
      const mcp = exec(['mcp', '--help']);
      expect(mcp.status, mcp.stderr).toBe(0);
      expect(mcp.stdout).toMatch(/Usage: plegscope mcp/);
      expect(listing()).toEqual(since);
    } finally {
      spawnSync('chmod', ['-R', 'u+w', installed]);
    }
  }, 180_000);
});
