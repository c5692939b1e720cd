import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InputError, type Artifact, type Discovery } from '../../src/sources/artifact.js';
import { discover } from '../../src/sources/files/discover.js';
import { analyze } from '../../src/analyze.js';

const KUBELET = [
  'Nov 21 10:00:03 node-1 kubelet[1234]: E1121 10:00:03.123456    1234 generic.go:238] "GenericPLEG: Unable to retrieve pods" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded"',
  'Nov 21 10:00:04 node-1 kubelet[1234]: E1121 10:00:04.631719    1234 kubelet.go:2373] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3m0.416753742s ago; threshold is 3m0s"',
].join('\n') + '\n';
const METRICS = [
  '# HELP kubelet_pleg_relist_duration_seconds [ALPHA] Duration in seconds for relisting pods in PLEG.',
  '# TYPE kubelet_pleg_relist_duration_seconds histogram',
  'kubelet_pleg_relist_duration_seconds_bucket{le="+Inf"} 12345',
  'kubelet_pleg_relist_duration_seconds_count 12345',
].join('\n') + '\n';
const DMESG = '[12345.678901] INFO: task dockerd:1234 blocked for more than 120 seconds.\n';
const DOCKERD =
  'time="2024-01-11T10:00:00.123456789Z" level=error msg="Handler for GET /v1.41/containers/json returned error: write unix /var/run/docker.sock->@: write: broken pipe"\n';

const haveXz = spawnSync('xz', ['--version']).status === 0;
const haveBzip2 = spawnSync('bzip2', ['--help']).status === 0;
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'plegscope-input-'));
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

function write(rel: string, data: string | Buffer): string {
  const p = path.join(tmp, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, data);
  return p;
}

function readAll(stream: Readable): Promise<{ data: Buffer; error: Error | null }> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    stream.on('data', (c: Buffer) => parts.push(c));
    stream.on('end', () => resolve({ data: Buffer.concat(parts), error: null }));
    stream.on('error', (error) => resolve({ data: Buffer.concat(parts), error }));
  });
}

function byPath(d: Discovery, p: string): Artifact {
  const a = d.artifacts.find((x) => x.path === p);
  if (!a) throw new Error(`no artifact ${p}; have ${d.artifacts.map((x) => x.path).join(', ')}`);
  return a;
}

async function inputError(paths: string[], opts = {}): Promise<InputError> {
  try {
    await discover(paths, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return err as InputError;
  }
  throw new Error('discover did not throw');
}

/** A pseudo-random but plain-text log, big enough that compression does not shrink it to nothing. */
function bigLog(lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    out.push(`Nov 21 10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')} node-1 kubelet[1234]: I1121 10:00:00.${String(i).padStart(6, '0')}    1234 kubelet.go:${i}] "line" n=${i} h=${(i * 2654435761) % 4294967296}`);
  }
  return out.join('\n') + '\n';
}

describe('discover: named files', () => {
  it('one file: kind file, path as given, role and format from content', async () => {
    write('a.txt', KUBELET);
    const given = path.join(tmp, 'a.txt');
    const d = await discover([given]);
    expect(d.inputs).toEqual([{ path: given, kind: 'file' }]);
    expect(d.artifacts).toHaveLength(1);
    const a = d.artifacts[0] as Artifact;
    expect(a).toMatchObject({ id: 0, input: 0, path: given, role: 'kubelet-log', format: 'journal-short', compression: null, size: KUBELET.length, nodeHint: null, nameTime: null });
    expect(typeof a.mtime).toBe('number');
    // A file on disk: read alongside others (archive members are read one after the other).
    expect(a.sequential).toBeUndefined();
    expect(a.head.toString()).toBe(KUBELET);
    expect((await readAll(a.open())).data.toString()).toBe(KUBELET);
    expect((await readAll(a.open())).data.toString()).toBe(KUBELET);
    expect(d.warnings).toEqual([]);
  });

  it('several files keep the order given; ids follow it', async () => {
    const m = write('metrics-20240311T100000Z.txt', METRICS);
    const k = write('k.log', KUBELET);
    const d = await discover([m, k]);
    expect(d.artifacts.map((a) => [a.id, a.input, a.role])).toEqual([[0, 0, 'metrics'], [1, 1, 'kubelet-log']]);
    expect(d.artifacts[0]?.nameTime).toBe(Date.UTC(2024, 2, 11, 10));
  });

  it('throws InputError with the path for unusable files', async () => {
    const missing = path.join(tmp, 'nope.log');
    expect(await inputError([missing])).toMatchObject({ path: missing, message: 'no such file or directory' });
    const empty = write('empty.log', '');
    expect(await inputError([empty])).toMatchObject({ path: empty, message: 'empty file' });
    const bin = write('bin.log', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)));
    expect(await inputError([bin])).toMatchObject({ path: bin, message: 'binary data (not a log or metrics file)' });
    const gz = zlib.gzipSync(KUBELET);
    const trunc = write('trunc.log.gz', gz.subarray(0, gz.length - 10));
    expect(await inputError([trunc])).toMatchObject({ path: trunc, message: 'truncated gzip stream' });
    const emptyGz = write('e.gz', zlib.gzipSync(''));
    expect(await inputError([emptyGz])).toMatchObject({ path: emptyGz, message: 'empty file' });
    const journal = write('system.journal', Buffer.concat([Buffer.from('LPKSHHRH'), Buffer.alloc(1000)]));
    // Binary journals are read (journal.ts); one whose header is zeros is unusable input.
    expect((await inputError([journal])).message).toBe('journal file header damaged (header size 0): not read');
    const tar = Buffer.alloc(1024);
    tar.write('kubelet.log', 0);
    tar.write('ustar\x0000', 257, 'latin1');
    const tgz = write('b.tar.gz', zlib.gzipSync(tar));
    // Archives are read in place now; one that is not a tar at all (no header checksum) is unusable input.
    expect((await inputError([tgz])).message).toMatch(/^archive could not be read: /);
  });

  it('a file inside a missing directory, a fifo, and a dangling named symlink', async () => {
    const f = write('f.log', KUBELET);
    expect((await inputError([path.join(f, 'x')])).message).toBe('not a directory');
    const fifo = path.join(tmp, 'pipe');
    execFileSync('mkfifo', [fifo]);
    expect((await inputError([fifo])).message).toMatch(/^not a regular file \(fifo\)/);
    const link = path.join(tmp, 'dangling');
    fs.symlinkSync(path.join(tmp, 'missing'), link);
    expect((await inputError([link])).message).toMatch(/dangling symlink/);
  });

  it.skipIf(isRoot)('permission denied', async () => {
    const p = write('secret.log', KUBELET);
    fs.chmodSync(p, 0);
    expect(await inputError([p])).toMatchObject({ path: p, message: 'permission denied' });
  });

  it('a symlink the user named is followed even when it leads elsewhere', async () => {
    const target = write('elsewhere/k.log', KUBELET);
    const link = path.join(tmp, 'link.log');
    fs.symlinkSync(target, link);
    const d = await discover([link]);
    expect(d.artifacts[0]).toMatchObject({ path: link, role: 'kubelet-log' });
  });

  it('the same file named twice is read once', async () => {
    const p = write('k.log', KUBELET);
    const d = await discover([p, p]);
    expect(d.artifacts).toHaveLength(1);
    expect(d.inputs).toHaveLength(2);
    expect(d.warnings).toEqual([{ file: p, line: null, message: `same file as ${p}: read once` }]);
  });

  it('unrecognised text named directly is kept, read for messages, and then said to hold none', async () => {
    const p = write('README', 'hello\n');
    const d = await discover([p]);
    expect(d.artifacts[0]).toMatchObject({ role: 'other', format: 'other' });
    // Whether a text holds a kubelet, runtime or kernel message is known once it has been read (an excerpt has no envelope).
    const { analysis } = await analyze({ paths: [p] });
    expect(analysis.nodes).toEqual([]);
    expect(analysis.warnings[0]?.message).toMatch(/^not recognised/);
  });
});

describe('discover: compression', () => {
  it('gzip by magic bytes (not by name), multi-member, head = decompressed start', async () => {
    const multi = Buffer.concat([zlib.gzipSync(KUBELET), zlib.gzipSync(KUBELET)]);
    const p = write('kubelet.log', multi);
    const d = await discover([p]);
    const a = d.artifacts[0] as Artifact;
    expect(a).toMatchObject({ compression: 'gzip', role: 'kubelet-log', format: 'journal-short', size: multi.length });
    expect(a.head.toString()).toBe(KUBELET + KUBELET);
    expect((await readAll(a.open())).data.toString()).toBe(KUBELET + KUBELET);
  });

  it('a .gz name with plain content is plain', async () => {
    const p = write('m.prom.gz', METRICS);
    const d = await discover([p]);
    expect(d.artifacts[0]).toMatchObject({ compression: null, role: 'metrics' });
  });

  it('head is bounded to 64 KiB of decompressed bytes; open() streams everything', async () => {
    const text = bigLog(5000);
    expect(text.length).toBeGreaterThan(300_000);
    const p = write('big.gz', zlib.gzipSync(text));
    const d = await discover([p]);
    const a = d.artifacts[0] as Artifact;
    expect(a.head.length).toBe(64 * 1024);
    expect(a.head.toString()).toBe(text.slice(0, 64 * 1024));
    expect(a.role).toBe('kubelet-log');
    const all = await readAll(a.open());
    expect(all.error).toBeNull();
    expect(all.data.toString()).toBe(text);
  });

  it('a gzip bomb only ever yields the head', async () => {
    const p = write('bomb.gz', zlib.gzipSync(Buffer.alloc(50 * 1024 * 1024, 'a')));
    const d = await discover([p], { headBytes: 4096 });
    expect(d.artifacts[0]?.head.length).toBe(4096);
  });

  it('a truncated gzip stream past the head is a normal stream error after the good bytes', async () => {
    const text = bigLog(5000);
    const gz = zlib.gzipSync(text);
    const p = write('cut.gz', gz.subarray(0, Math.floor(gz.length / 2)));
    const d = await discover([p]);
    const a = d.artifacts[0] as Artifact;
    expect(a.role).toBe('kubelet-log');
    const all = await readAll(a.open());
    expect(all.error?.message).toBe('truncated gzip stream');
    expect((all.error as Error & { code?: string }).code).toBe('ETRUNCATED');
    expect(all.data.length).toBeGreaterThan(64 * 1024);
    expect(text.startsWith(all.data.toString())).toBe(true);
  });

  it.skipIf(!haveXz)('xz via the xz tool', async () => {
    const plain = write('k.txt', bigLog(3000));
    execFileSync('xz', ['-k', plain]);
    const d = await discover([`${plain}.xz`]);
    const a = d.artifacts[0] as Artifact;
    expect(a).toMatchObject({ compression: 'xz', role: 'kubelet-log', format: 'journal-short' });
    expect(a.head.length).toBe(64 * 1024);
    expect((await readAll(a.open())).data.equals(fs.readFileSync(plain))).toBe(true);
  });

  it.skipIf(!haveXz)('a truncated xz file in a folder is a warning', async () => {
    const plain = write('k.txt', KUBELET);
    execFileSync('xz', [plain]);
    const xz = fs.readFileSync(`${plain}.xz`);
    fs.writeFileSync(`${plain}.xz`, xz.subarray(0, xz.length - 20));
    const d = await discover([tmp]);
    expect(d.warnings).toContainEqual({ file: 'k.txt.xz', line: null, message: 'truncated xz stream' });
  });

  it.skipIf(!haveBzip2)('bzip2 via the bzip2 tool', async () => {
    const plain = write('m', METRICS);
    execFileSync('bzip2', [plain]);
    const d = await discover([`${plain}.bz2`]);
    const a = d.artifacts[0] as Artifact;
    expect(a).toMatchObject({ compression: 'bzip2', role: 'metrics' });
    expect((await readAll(a.open())).data.toString()).toBe(METRICS);
  });

  it.skipIf(!haveXz)('a missing xz tool: warning in a folder, InputError when named', async () => {
    const plain = write('dir/k.txt', KUBELET);
    execFileSync('xz', [plain]);
    write('dir/m.txt', METRICS);
    const tools = { xz: 'plegscope-no-such-xz' };
    const d = await discover([path.join(tmp, 'dir')], { tools });
    expect(d.artifacts.map((a) => [a.path, a.role, a.format])).toEqual([['k.txt.xz', 'other', 'unreadable'], ['m.txt', 'metrics', 'prometheus-text']]);
    expect(d.warnings).toHaveLength(1);
    expect(d.warnings[0]?.message).toMatch(/^xz-compressed: cannot be read without the `plegscope-no-such-xz` tool/);
    const err = await inputError([`${plain}.xz`], { tools });
    expect(err.message).toMatch(/cannot be read without the `plegscope-no-such-xz` tool/);
  });
});

describe('discover: folders', () => {
  it('walks recursively in sorted order, skips VCS dirs, sniffs each file', async () => {
    write('z.log', KUBELET);
    write('a/dmesg', DMESG);
    write('a/b/docker.log', DOCKERD);
    write('a-b/metrics.txt', METRICS);
    write('.git/HEAD', 'ref: refs/heads/main\n');
    write('.hidden.log', KUBELET.replace(/node-1/g, 'node-2'));
    write('A.log', KUBELET.replace(/node-1/g, 'node-3'));
    const d = await discover([tmp]);
    expect(d.inputs).toEqual([{ path: tmp, kind: 'directory' }]);
    expect(d.artifacts.map((a) => [a.path, a.role])).toEqual([
      ['.hidden.log', 'kubelet-log'],
      ['A.log', 'kubelet-log'],
      ['a/b/docker.log', 'runtime-log'],
      ['a/dmesg', 'kernel-log'],
      ['a-b/metrics.txt', 'metrics'],
      ['z.log', 'kubelet-log'],
    ]);
    expect(d.artifacts.map((a) => a.id)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(d.warnings).toEqual([]);
    const again = await discover([tmp]);
    expect(again.artifacts.map((a) => a.path)).toEqual(d.artifacts.map((a) => a.path));
  });

  it('unrecognised files past limits.maxIdleMembers: counted in one warning; in a bundle still placed and read as before', async () => {
    for (const n of ['n1', 'n2', 'n3', 'n4']) write(`plain/${n}.txt`, `just ${n}\n`);
    write('plain/z.log', KUBELET);
    const d = await discover([path.join(tmp, 'plain')], { limits: { maxIdleMembers: 2 } });
    expect(d.artifacts.map((a) => a.path)).toEqual(['n1.txt', 'n2.txt', 'z.log']);
    expect(d.warnings.map((w) => w.message)).toEqual(['2 more file(s) like n3.txt that neither name nor first bytes show to be a log, metrics or a dump were not read: only 2 such files are read per input']);
    // A sosreport whose layout reads files that sniff as nothing: cut while probing, probed again once the layout is known.
    write('sos/version.txt', 'sosreport: 4.5.6\n');
    for (const n of ['a1', 'a2', 'a3']) write(`sos/${n}.txt`, `just ${n}\n`);
    write('sos/sos_commands/crio/crictl_ps', 'CONTAINER  IMAGE  CREATED  STATE  NAME  ATTEMPT  POD ID\n');
    write('sos/sos_commands/kubernetes/journalctl_--no-pager_--unit_kubelet', KUBELET);
    const shape = (x: Discovery) => x.artifacts.map((a) => [a.path, a.role, a.format, a.head.toString('utf8')]);
    const cut = await discover([path.join(tmp, 'sos')], { limits: { maxIdleMembers: 1 } });
    const whole = await discover([path.join(tmp, 'sos')]);
    expect(shape(cut)).toEqual(shape(whole));
    expect(cut.artifacts.map((a) => a.path)).toContain('sos_commands/crio/crictl_ps');
    expect(cut.warnings).toEqual(whole.warnings);
  });

  it('bad files in a folder become warnings; the good files are still found', async () => {
    const gz = zlib.gzipSync(KUBELET);
    write('1-trunc.log.gz', gz.subarray(0, gz.length - 10));
    write('2-empty.log', '');
    write('3-binary.bin', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)));
    write('4-good.log', KUBELET);
    write('5-journal/system.journal', Buffer.concat([Buffer.from('LPKSHHRH'), Buffer.alloc(1000)]));
    write('6-archive.zip', Buffer.from('PK\x03\x04\x14\x00\x00\x00\x08\x00', 'latin1'));
    write('7-cut-header.gz', gz.subarray(0, 5));
    write('8-secret.gpg', '-----BEGIN PGP MESSAGE-----\n\nhQEMA5J3\n-----END PGP MESSAGE-----\n');
    write('9-notes.txt', 'x'.repeat(100_000) + '\n');
    const d = await discover([tmp]);
    expect(d.artifacts.map((a) => [a.path, a.role, a.format])).toEqual([
      // The damaged gzip still gave its first lines: keep them, with the warning.
      ['1-trunc.log.gz', 'kubelet-log', 'journal-short'],
      ['2-empty.log', 'other', 'empty'],
      ['3-binary.bin', 'other', 'binary'],
      ['4-good.log', 'kubelet-log', 'journal-short'],
      ['5-journal/system.journal', 'other', 'unreadable'],
      ['7-cut-header.gz', 'other', 'unreadable'],
      ['8-secret.gpg', 'other', 'encrypted'],
      // Unrecognised text in a folder is listed quietly, with a short head.
      ['9-notes.txt', 'other', 'other'],
    ]);
    expect(byPath(d, '9-notes.txt').head.length).toBe(4096);
    expect(d.warnings).toEqual([
      { file: '1-trunc.log.gz', line: null, message: 'truncated gzip stream' },
      { file: '2-empty.log', line: null, message: 'empty file' },
      { file: '3-binary.bin', line: null, message: 'binary data (not a log or metrics file)' },
      { file: '5-journal/system.journal', line: null, message: 'journal file header damaged (header size 0): not read' },
      { file: '6-archive.zip', line: null, message: 'archive could not be read: not a readable zip (no central directory: truncated?)' },
      { file: '7-cut-header.gz', line: null, message: 'truncated gzip stream' },
      { file: '8-secret.gpg', line: null, message: 'encrypted (OpenPGP) data: decrypt it first (`gpg --output 8-secret --decrypt 8-secret.gpg`, with the passphrase or key given to `sos report --encrypt-pass/--encrypt-key`)' },
    ]);
  });

  it('a symlink leading outside the folder is never opened', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'plegscope-outside-'));
    try {
      const secret = path.join(outside, 'secret.log');
      fs.writeFileSync(secret, 'SECRET-OUTSIDE-CONTENT\n' + KUBELET);
      const root = path.join(tmp, 'in');
      write('in/k.log', KUBELET);
      fs.symlinkSync(secret, path.join(root, 'escape.log'));
      fs.symlinkSync(path.relative(root, secret), path.join(root, 'relative-escape.log'));
      fs.symlinkSync(outside, path.join(root, 'escape-dir'));
      fs.symlinkSync('/etc/hostname', path.join(root, 'hostname'));
      // Same prefix, different directory: `in-other` is not inside `in`.
      write('in-other/x.log', 'SECRET-OUTSIDE-CONTENT\n');
      fs.symlinkSync(path.join(tmp, 'in-other', 'x.log'), path.join(root, 'prefix-trick.log'));
      const opened: string[] = [];
      const realCreateReadStream = fs.createReadStream;
      const spy = vi.spyOn(fs, 'createReadStream').mockImplementation(((p: fs.PathLike, o?: Parameters<typeof fs.createReadStream>[1]) => {
        opened.push(String(p));
        return realCreateReadStream.call(fs, p, o);
      }) as typeof fs.createReadStream);
      // Small files are probed with one open and read (FileSource.head, synchronous), not a stream.
      const realOpen = fs.promises.open;
      const spyOpen = vi.spyOn(fs.promises, 'open').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
        opened.push(String(p));
        return (realOpen as (...a: unknown[]) => ReturnType<typeof fs.promises.open>).call(fs.promises, p, ...rest);
      }) as typeof fs.promises.open);
      const realOpenSync = fs.openSync;
      const spyOpenSync = vi.spyOn(fs, 'openSync').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
        opened.push(String(p));
        return (realOpenSync as (...a: unknown[]) => number).call(fs, p, ...rest);
      }) as typeof fs.openSync);
      let d: Discovery;
      try {
        d = await discover([root]);
        // Every artifact read in full too, as the analysis would.
        for (const a of d.artifacts) for await (const chunk of a.open()) void chunk;
      } finally {
        spy.mockRestore();
        spyOpen.mockRestore();
        spyOpenSync.mockRestore();
      }
      expect(d.artifacts.map((a) => a.path)).toEqual(['k.log']);
      for (const a of d.artifacts) expect(a.head.toString()).not.toContain('SECRET');
      expect(opened.every((p) => !p.startsWith(outside) && !p.includes('in-other') && p !== '/etc/hostname')).toBe(true);
      expect(opened.length).toBeGreaterThan(0);
      const label = root;
      expect(d.warnings).toEqual([
        { file: 'escape-dir', line: null, message: `symlink leads outside ${label}: not followed` },
        { file: 'escape.log', line: null, message: `symlink leads outside ${label}: not followed` },
        { file: 'hostname', line: null, message: `symlink leads outside ${label}: not followed` },
        { file: 'prefix-trick.log', line: null, message: `symlink leads outside ${label}: not followed` },
        { file: 'relative-escape.log', line: null, message: `symlink leads outside ${label}: not followed` },
      ]);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('symlink loops, dangling links, links to parents; links inside are read once', async () => {
    write('k.log', KUBELET);
    write('sub/m.txt', METRICS);
    fs.symlinkSync('loop-b', path.join(tmp, 'loop-a'));
    fs.symlinkSync('loop-a', path.join(tmp, 'loop-b'));
    fs.symlinkSync('self', path.join(tmp, 'self'));
    fs.symlinkSync('missing.log', path.join(tmp, 'dangling.log'));
    fs.symlinkSync('..', path.join(tmp, 'sub', 'up'));
    fs.symlinkSync('.', path.join(tmp, 'here'));
    fs.symlinkSync('k.log', path.join(tmp, 'a-link-to-k.log'));
    fs.symlinkSync('sub', path.join(tmp, 'sub-link'));
    const d = await discover([tmp]);
    expect(d.artifacts.map((a) => a.path)).toEqual(['k.log', 'sub/m.txt']);
    expect(d.warnings).toEqual([
      { file: 'dangling.log', line: null, message: 'dangling symlink: not followed' },
      { file: 'here', line: null, message: 'symlink to a parent directory (loop): not followed' },
      { file: 'loop-a', line: null, message: 'symlink loop: not followed' },
      { file: 'loop-b', line: null, message: 'symlink loop: not followed' },
      { file: 'self', line: null, message: 'symlink loop: not followed' },
      { file: 'sub/up', line: null, message: 'symlink to a parent directory (loop): not followed' },
    ]);
  });

  it('a link to a file inside the folder is used when it is the only way in', async () => {
    write('.git/objects/kubelet.log', KUBELET);
    fs.symlinkSync('.git/objects/kubelet.log', path.join(tmp, 'k.log'));
    fs.symlinkSync('.git/objects', path.join(tmp, 'objs'));
    const d = await discover([tmp]);
    expect(d.artifacts.map((a) => [a.path, a.role])).toEqual([['k.log', 'kubelet-log']]);
  });

  it('fifos and sockets are not opened', async () => {
    write('k.log', KUBELET);
    execFileSync('mkfifo', [path.join(tmp, 'pipe')]);
    fs.symlinkSync('pipe', path.join(tmp, 'pipe-link'));
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(tmp, 'sock'), resolve));
    try {
      const d = await discover([tmp]);
      expect(d.artifacts.map((a) => a.path)).toEqual(['k.log']);
      expect(d.warnings).toEqual([
        { file: 'pipe', line: null, message: 'not a regular file (fifo): not read' },
        { file: 'pipe-link', line: null, message: 'symlink to something that is not a regular file (fifo): not read' },
        { file: 'sock', line: null, message: 'not a regular file (socket): not read' },
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it.skipIf(isRoot)('unreadable files and folders inside are warnings', async () => {
    write('k.log', KUBELET);
    const p = write('locked.log', KUBELET);
    fs.chmodSync(p, 0);
    const dir = path.join(tmp, 'locked-dir');
    write('locked-dir/x.log', KUBELET);
    fs.chmodSync(dir, 0);
    try {
      const d = await discover([tmp]);
      expect(d.artifacts.map((a) => [a.path, a.format])).toEqual([['k.log', 'journal-short'], ['locked.log', 'unreadable']]);
      expect(d.warnings).toEqual([
        { file: 'locked-dir', line: null, message: 'cannot list directory: permission denied' },
        { file: 'locked.log', line: null, message: 'permission denied' },
      ]);
    } finally {
      fs.chmodSync(dir, 0o755);
    }
  });

  it('node hints from nodes/<name>/ and names with times', async () => {
    write('mg/nodes/worker-1/kubelet.log', KUBELET);
    write('mg/metrics/node1_20240311-100000.metrics', METRICS);
    const d = await discover([path.join(tmp, 'mg')]);
    expect(byPath(d, 'nodes/worker-1/kubelet.log').nodeHint).toBe('worker-1');
    expect(byPath(d, 'metrics/node1_20240311-100000.metrics')).toMatchObject({ nodeHint: null, nameTime: Date.UTC(2024, 2, 11, 10) });
  });

  it('an empty folder is a warning, a missing one an error', async () => {
    fs.mkdirSync(path.join(tmp, 'empty'));
    const d = await discover([path.join(tmp, 'empty')]);
    expect(d.artifacts).toEqual([]);
    expect(d.warnings).toEqual([{ file: path.join(tmp, 'empty'), line: null, message: 'no files found' }]);
    expect((await inputError([path.join(tmp, 'gone')])).message).toBe('no such file or directory');
  });

  it('a file named and also inside a named folder is read once', async () => {
    const k = write('d/k.log', KUBELET);
    write('d/m.txt', METRICS);
    const d = await discover([k, path.join(tmp, 'd')]);
    expect(d.artifacts.map((a) => [a.input, a.path])).toEqual([[0, k], [1, 'm.txt']]);
  });
});
