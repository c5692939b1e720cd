// Many small files within the memory bound. Heads let go past limits.maxHeldHeadBytes (src/sources/files/heads.ts): a
// folder or archive of small files gives the same report whether their heads are held or only what is read of them (host,
// date, wrap width) is, their bytes read again from disk or out of the archive. Files of a folder past
// limits.maxFolderFiles (walk.ts) counted in one warning, the first ones read.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import { wrap } from '../helpers/wrap.js';

const SAMPLE = join(__dirname, '..', '..', 'fixtures', 'sample-incident');
let dir: string;
let folder: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'plegscope-heads-'));
  folder = join(dir, 'node-a');
  mkdirSync(join(folder, 'pieces'), { recursive: true });
  // The sample's kubelet log in pieces of 100 lines (each a small file read whole), its dmesg, a hard-wrapped paste of its
  // start, and a log with a full date in its head (the year anchor it gives is read from the head).
  const kubelet = readFileSync(join(SAMPLE, 'kubelet.log'), 'utf8').split('\n');
  for (let i = 0, k = 0; i < kubelet.length; i += 100, k++) writeFileSync(join(folder, 'pieces', `kubelet-${String(k).padStart(2, '0')}.log`), kubelet.slice(i, i + 100).join('\n') + '\n');
  writeFileSync(join(folder, 'dmesg.txt'), readFileSync(join(SAMPLE, 'dmesg.txt')));
  writeFileSync(join(folder, 'paste.txt'), wrap(kubelet.slice(0, 120).join('\n'), 80) + '\n');
  writeFileSync(join(folder, 'containerd.log'), readFileSync(join(SAMPLE, 'containerd.log'), 'utf8').split('\n').slice(0, 200).join('\n') + '\n');
  execFileSync('tar', ['czf', join(dir, 'node-a.tar.gz'), '-C', dir, 'node-a']);
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const now = () => new Date('2024-03-12T00:00:00Z');

describe('heads past the bound', () => {
  for (const input of ['folder', 'tar.gz']) {
    it(`${input}: the same report with every small file's head let go as with all held`, async () => {
      const path = input === 'folder' ? folder : join(dir, 'node-a.tar.gz');
      const held = await analyze({ paths: [path], now, workers: 0 });
      const none = await analyze({ paths: [path], now, workers: 0, limits: { maxHeldHeadBytes: 0 } });
      expect(held.artifacts.some((a) => a.headless)).toBe(false);
      // Every small log went without its head (the pieces, dmesg, the paste), and was read all the same.
      expect(none.artifacts.filter((a) => a.headless).length).toBeGreaterThanOrEqual(30);
      expect(none.analysis).toEqual(held.analysis);
      expect(held.analysis.nodes.some((n) => n.stalls.length > 0)).toBe(true);
      // The paste was unwrapped from what was kept of its head.
      expect(held.analysis.warnings.some((w) => /hard-wrapped at 80 columns/.test(w.message))).toBe(true);
    }, 60_000);
  }
});

describe('files of a folder past limits.maxFolderFiles', () => {
  it('a folder\'s own files first, then its subfolders\' in path order; the rest counted in one warning naming the folder', async () => {
    const root = join(dir, 'many');
    mkdirSync(join(root, 'a', 'deeper'), { recursive: true });
    // The log sorts last, but is the folder's own file: read before any file of a subfolder.
    writeFileSync(join(root, 'z-kubelet.log'), readFileSync(join(SAMPLE, 'kubelet.log')));
    for (let i = 0; i < 30; i++) writeFileSync(join(root, 'a', `x-${String(i).padStart(2, '0')}.log`), `${i}\n`);
    writeFileSync(join(root, 'a', 'deeper', 'y.log'), 'y\n');
    const run = await analyze({ paths: [root], now, workers: 0, limits: { maxFolderFiles: 21 } });
    expect(run.artifacts.map((a) => a.path)).toEqual([...Array.from({ length: 20 }, (_, i) => `a/x-${String(i).padStart(2, '0')}.log`), 'z-kubelet.log']);
    expect(run.analysis.warnings.filter((w) => /were not read: plegscope reads at most/.test(w.message))).toEqual([
      { file: root, line: null, message: '11 more files were not read: plegscope reads at most 21 files of a folder (its memory bound), each folder\'s own files before its subfolders\'; name the subfolders that matter instead' },
    ]);
    expect(run.analysis.nodes.some((n) => n.stalls.length > 0)).toBe(true);
  }, 60_000);
});
