// The archive layer on its own: members streamed in place, concurrent and out-of-order reads, nested archives,
// zip by its central directory, names kept inside the bundle.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileAccess, TarContainer, ZipContainer } from '../../src/sources/files/containers.js';
import { Budget, DEFAULT_LIMITS } from '../../src/sources/files/limits.js';
import { DEFAULT_TOOLS } from '../../src/sources/files/decode.js';
import { closeTree, indexContainer, newTree, normalizeName } from '../../src/sources/files/tree.js';
import { wantMeta } from '../../src/sources/files/bundle.js';
import { discover } from '../../src/sources/files/discover.js';
import { tarBuffer, zipBuffer } from './fixtures.js';

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'plegscope-cont-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function text(s: Readable): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of s) parts.push(c as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

const body = (i: number) => `member ${i}\n`.repeat(2000 + i * 500);

describe('tar container', () => {
  it('serves members out of order and at the same time, each with its own bytes, with few passes', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 8; i++) files[`d/m${i}.log`] = body(i);
    const gz = zlib.gzipSync(await tarBuffer(files));
    let passes = 0;
    const c = new TarContainer(() => {
      passes++;
      const z = zlib.createGunzip();
      z.end(gz);
      return z;
    });
    // Members are ordinals: 0..7 in archive order.
    const order = [3, 1, 6, 7, 0, 5];
    const got = await Promise.all(order.map((i) => text(c.open(i))));
    expect(got).toEqual(order.map((i) => body(i)));
    // Forward requests share a pass; each one behind it costs a new one.
    expect(passes).toBeLessThanOrEqual(4);
    c.close();
  });

  it('a reader that stops early does not stop the archive', async () => {
    const gz = zlib.gzipSync(await tarBuffer({ 'a.log': body(1), 'b.log': body(2) }));
    const c = new TarContainer(() => {
      const z = zlib.createGunzip();
      z.end(gz);
      return z;
    });
    const first = c.open(0);
    await new Promise<void>((resolve) => first.once('data', () => resolve()));
    first.destroy();
    expect(await text(c.open(1))).toBe(body(2));
    c.close();
  });

  it('nested archives: a tar.gz inside a tar, read again later through the outer archive', async () => {
    const inner = zlib.gzipSync(await tarBuffer({ 'in/x.log': body(3), 'in/y.log': body(4) }));
    const outer = await tarBuffer({ 'first.log': body(1), 'nested.tgz': inner, 'last.log': body(2) });
    const p = path.join(tmp, 'outer.tar');
    fs.writeFileSync(p, outer);
    const d = await discover([p]);
    // An archive with no bundle markers is a folder of loose files: every file is listed, as in a folder.
    expect(d.artifacts.map((a) => a.path)).toEqual(['first.log', 'nested.tgz/in/x.log', 'nested.tgz/in/y.log', 'last.log']);
    // Members come from passes over the archive: read one after the other, in archive order, they take one pass (read
    // four at a time, a member asked for after the pass went by it started the archive again: 15 passes, 3.4 s more, on
    // a 300 MB must-gather tarball).
    expect(d.artifacts.every((a) => a.sequential === true)).toBe(true);
    const tree = newTree();
    await indexContainer(new TarContainer(() => fs.createReadStream(p)), '', 0, { tools: DEFAULT_TOOLS, limits: DEFAULT_LIMITS, budget: new Budget(DEFAULT_LIMITS.maxInputBytes), headBytes: 65536, wantMeta }, tree, p);
    expect(tree.files.map((f) => f.path)).toEqual(['first.log', 'nested.tgz/in/x.log', 'nested.tgz/in/y.log', 'last.log']);
    const read = await Promise.all(tree.files.map((f) => text(f.open())));
    expect(read).toEqual([body(1), body(3), body(4), body(2)]);
    // And again, in reverse.
    for (const f of [...tree.files].reverse()) expect((await text(f.open())).length).toBeGreaterThan(0);
    closeTree(tree);
    d.close?.();
  });
});

describe('members the index pass held whole', () => {
  it('are served from memory: no second pass over the archive to reach them', async () => {
    const big = 'x'.repeat(200_000) + '\n';
    const p = path.join(tmp, 'small-after-big.tar.gz');
    fs.writeFileSync(p, zlib.gzipSync(await tarBuffer({ 'a/big.log': big, 'a/small.log': body(1).slice(0, 3000) })));
    const tree = newTree();
    const raw = () => {
      const file = fs.createReadStream(p);
      const z = zlib.createGunzip();
      file.on('error', (err) => z.destroy(err));
      return file.pipe(z);
    };
    await indexContainer(new TarContainer(raw), '', 0, { tools: DEFAULT_TOOLS, limits: DEFAULT_LIMITS, budget: new Budget(DEFAULT_LIMITS.maxInputBytes), headBytes: 65536, wantMeta }, tree, p);
    // The archive is gone: only what the index pass kept can still be read.
    fs.rmSync(p);
    const small = tree.files.find((f) => f.path === 'a/small.log');
    expect(await text(small?.open() as Readable)).toBe(body(1).slice(0, 3000));
    const large = tree.files.find((f) => f.path === 'a/big.log');
    await expect(text(large?.open() as Readable)).rejects.toThrow(/no such file/);
    closeTree(tree);
  });
});

describe('zip container', () => {
  it('lists by the central directory, inflates members, knows symlinks', async () => {
    const p = path.join(tmp, 'z.zip');
    fs.writeFileSync(p, zipBuffer({ 'a/x.log': body(1), 'a/link.log': { symlink: 'x.log' }, 'a/y.log': body(2) }));
    const z = new ZipContainer(new FileAccess(p, fs.statSync(p).size), DEFAULT_LIMITS, p);
    const seen: string[] = [];
    await z.scan(async (h) => {
      seen.push(`${h.name}:${h.type}:${h.linkname ?? ''}`);
    });
    expect(seen).toEqual(['a/x.log:file:', 'a/link.log:symlink:x.log', 'a/y.log:file:']);
    expect(await text(z.open(2))).toBe(body(2));
    z.close();
    const tree = newTree();
    await indexContainer(new ZipContainer(new FileAccess(p, fs.statSync(p).size), DEFAULT_LIMITS, p), '', 0, { tools: DEFAULT_TOOLS, limits: DEFAULT_LIMITS, budget: new Budget(DEFAULT_LIMITS.maxInputBytes), headBytes: 65536, wantMeta }, tree, p);
    expect(tree.files.map((f) => [f.path, f.aliases])).toEqual([['a/x.log', ['a/link.log']], ['a/y.log', []]]);
    closeTree(tree);
  });
});

describe('member names', () => {
  it.each([
    ['a/b.log', 'a/b.log', false],
    ['./a/b.log', 'a/b.log', false],
    ['a/../b.log', 'b.log', false],
    ['../b.log', 'b.log', true],
    ['../../etc/passwd', 'etc/passwd', true],
    ['/etc/passwd', 'etc/passwd', true],
    ['a/../../b', 'b', true],
    ['a\\..\\..\\b', 'b', true],
  ])('%s → %s', (name, p, escaped) => {
    expect(normalizeName(name)).toEqual({ path: p, escaped });
  });
});

describe('rotated logs', () => {
  it('oldest first, other files in place', async () => {
    const { rotationOrder, rotationAnchor } = await import('../../src/sources/files/bundle.js');
    const names = ['a.txt', 'var/log/messages', 'var/log/messages-20240101', 'var/log/messages-20240107.gz', 'var/log/syslog', 'var/log/syslog.1', 'var/log/syslog.2.gz', 'z.txt'];
    expect(rotationOrder(names.map((path) => ({ path }))).map((x) => x.path)).toEqual([
      'a.txt', 'var/log/messages-20240101', 'var/log/messages-20240107.gz', 'var/log/messages', 'var/log/syslog.2.gz', 'var/log/syslog.1', 'var/log/syslog', 'z.txt',
    ]);
    // A dated name holds nothing after the day after its date: its year-less stamps are anchored there.
    expect(rotationAnchor('var/log/messages-20240107')).toBe(Date.UTC(2024, 0, 8));
    expect(rotationAnchor('var/log/messages')).toBeNull();
    // journald's archived files (by the head entry's time in their name) before the active one.
    const j = 'var/log/journal/8f2d6c1e3b4a49d7a5c6b7e8f9012345';
    const journals = [`${j}/system.journal`, `${j}/system@0f6c4b2a9e8d47f1b3a5c7d9e1f3a5b7-0000000000000201-00061362f4b3c2a1.journal`,
      `${j}/system@0f6c4b2a9e8d47f1b3a5c7d9e1f3a5b7-0000000000000001-00061361a0000000.journal`, `${j}/system@00061362f5000000-1b3a5c7d9e1f3a5b.journal~`, `${j}/user-1000.journal`];
    expect(rotationOrder(journals.map((path) => ({ path }))).map((x) => x.path)).toEqual([journals[2], journals[1], journals[3], journals[0], journals[4]]);
  });
});

describe('a reader that keeps its member open without reading', () => {
  it('does not block others for long', async () => {
    const gz = zlib.gzipSync(await tarBuffer({ 'a.log': 'x'.repeat(4 * 1024 * 1024), 'b.log': body(2) }));
    const c = new TarContainer(() => {
      const z = zlib.createGunzip();
      z.end(gz);
      return z;
    });
    const held = c.open(0);
    held.pause();
    held.once('readable', () => undefined);
    const t0 = Date.now();
    expect(await text(c.open(1))).toBe(body(2));
    expect(Date.now() - t0).toBeLessThan(5000);
    held.destroy();
    c.close();
  });
});
