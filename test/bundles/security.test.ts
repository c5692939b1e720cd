// A hostile bundle: links and names that point outside it, special files, a decompression bomb, a corrupt member.
// Each gives a warning, the rest is analyzed, nothing outside the bundle is read, nothing is written.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import type { Analysis } from '../../src/contract/analysis.js';
import { discover } from '../../src/sources/files/discover.js';
import { haveXz, nodeLogs, tarBuffer, writeDir, type Files } from './fixtures.js';

const LIMITS = { ratioFloorBytes: 4 * 1024 * 1024 };
const MARK = `PLEGSCOPE-OUTSIDE-SECRET-${process.pid}-${Date.now()}`;

let tmp: string;
let outside: string;
let secret: string;

function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const st = fs.lstatSync(p);
      out.push(`${path.relative(dir, p)} ${st.size} ${st.mtimeMs}`);
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'plegscope-sec-'));
  outside = fs.mkdtempSync(path.join(os.tmpdir(), 'plegscope-outside-'));
  secret = path.join(outside, 'secret.log');
  // Looks like a kubelet log, so that if it were ever read it would show up in the analysis.
  fs.writeFileSync(secret, `Jan 11 09:30:00 ${MARK} kubelet[1]: E0111 09:30:00.000000       1 kubelet.go:2373] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3m0.1s ago; threshold is 3m0s" ${MARK}\n`);
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

function bombLog(): Buffer {
  // 40 MiB of one repeated kubelet line: a ~1000× gzip ratio, far past any real log.
  const line = 'Jan 11 09:20:00 worker-9 kubelet[2817]: I0111 09:20:00.000000    2817 kubelet.go:2400] "SyncLoop (housekeeping)"\n';
  return zlib.gzipSync(Buffer.from(line.repeat(Math.ceil((40 * 1024 * 1024) / line.length))), { level: 9 });
}

function corruptXz(): Buffer | null {
  if (!haveXz) return null;
  const text = nodeLogs('worker-9', { stallAt: null }).kubelet.repeat(60);
  const xz = execFileSync('xz', ['-c'], { input: Buffer.from(text) });
  const bad = Buffer.from(xz);
  for (let i = Math.floor(bad.length / 2); i < Math.floor(bad.length / 2) + 64; i++) bad[i] = (bad[i] as number) ^ 0x5a;
  return bad;
}

function hostile(): Files {
  const logs = nodeLogs('worker-9', { stallAt: 10 * 60_000 });
  const rel = path.relative('/bundle/x', secret);
  const files: Files = {
    'bundle/kubelet.log': logs.kubelet,
    'bundle/passwd': { symlink: '/etc/passwd' },
    'bundle/up': { symlink: '../../..' },
    'bundle/abs-secret.log': { symlink: secret },
    'bundle/rel-secret.log': { symlink: `../../../../../../../../..${secret}` },
    'bundle/climb.log': { symlink: rel },
    '../escape.log': logs.runtime,
    [`/${path.relative('/', outside)}/planted.log`]: logs.runtime,
    'bundle/hard-passwd': { hardlink: '../../etc/passwd' },
    'bundle/hard-secret.log': { hardlink: secret },
    'bundle/fifo': { fifo: true },
    'bundle/null': { device: true },
    'bundle/var/log/bomb.log.gz': bombLog(),
  };
  const xz = corruptXz();
  if (xz) files['bundle/var/log/messages-20240107.xz'] = xz;
  files['bundle/zz-containerd.log'] = logs.runtime;
  return files;
}

describe('a hostile archive', () => {
  let a: Analysis;
  let before: string[];
  let beforeOutside: string[];
  let archive: string;
  beforeAll(async () => {
    archive = path.join(tmp, 'hostile.tar.gz');
    fs.writeFileSync(archive, zlib.gzipSync(await tarBuffer(hostile())));
    before = listing(tmp);
    beforeOutside = listing(outside);
    a = (await analyze({ paths: [archive], workers: 0, limits: LIMITS })).analysis;
  }, 60_000);

  it('every trick gives a warning', () => {
    const msgs = a.warnings.map((w) => `${w.file}: ${w.message}`);
    const expectWarning = (re: RegExp) => expect(msgs.some((m) => re.test(m)), `${re} in\n${msgs.join('\n')}`).toBe(true);
    expectWarning(/bundle\/passwd: symlink to \/etc\/passwd: points at the absolute path \/etc\/passwd, outside the bundle: not followed/);
    expectWarning(/bundle\/up: symlink to \.\.\/\.\.\/\.\.: leads outside the bundle: not followed/);
    expectWarning(/bundle\/abs-secret\.log: symlink to .*outside the bundle/);
    expectWarning(/bundle\/rel-secret\.log: symlink to .*leads outside the bundle/);
    expectWarning(/bundle\/climb\.log: symlink to .*leads outside the bundle/);
    expectWarning(/^escape\.log: member name "\.\.\/escape\.log" points outside the archive: kept inside the bundle as escape\.log/);
    expectWarning(/planted\.log: member name "\/.*planted\.log" points outside the archive/);
    expectWarning(/bundle\/hard-passwd: hard link to \.\.\/\.\.\/etc\/passwd, outside the archive: not followed/);
    expectWarning(/bundle\/hard-secret\.log: hard link to \/.*, outside the archive: not followed/);
    expectWarning(/bundle\/fifo: fifo in the archive: ignored/);
    expectWarning(/bundle\/null: character device in the archive: ignored/);
    expectWarning(/bundle\/var\/log\/bomb\.log\.gz: read stopped after line \d+: decompression stopped after .* \(a decompression bomb\?\)/);
    if (haveXz) expectWarning(/bundle\/var\/log\/messages-20240107\.xz: .*corrupt xz stream/);
  });

  it('the rest of the bundle is analyzed', () => {
    const n = a.nodes.find((x) => x.name === 'worker-9');
    expect(n?.stalls).toHaveLength(1);
    expect(n?.verdict.primaryCause).toBe('runtime_timeout');
    const arts = a.inputs[0]?.artifacts ?? [];
    expect(arts.find((x) => x.path === 'bundle/zz-containerd.log')?.lines).toBe(2);
    expect(arts.find((x) => x.path === 'escape.log')?.role).toBe('runtime-log');
  });

  it('nothing outside the bundle is read, nothing is written', () => {
    const json = JSON.stringify(a);
    expect(json).not.toContain(MARK);
    expect(json).not.toMatch(/root:x:0:0/);
    expect(a.nodes.map((n) => n.name)).not.toContain(MARK);
    expect(listing(tmp)).toEqual(before);
    expect(listing(outside)).toEqual(beforeOutside);
  });

  it('a compressible member (the archive stream past the ratio) is skipped and the archive read on; the input budget stops it', async () => {
    const logs = nodeLogs('worker-7', { stallAt: 10 * 60_000 });
    const tarred = await tarBuffer({ 'b/zeros.bin': Buffer.alloc(64 * 1024 * 1024), 'b/kubelet.log': logs.kubelet });
    const p = path.join(tmp, 'outer-bomb.tar.gz');
    fs.writeFileSync(p, zlib.gzipSync(tarred, { level: 9 }));
    const d = await discover([p], { limits: LIMITS });
    expect(d.artifacts.map((x) => x.path)).toEqual(['b/kubelet.log']);
    expect(d.warnings.filter((w) => /decompression stopped/.test(w.message))).toEqual([]);
    d.close?.();
    const small = await discover([p], { limits: { ...LIMITS, maxInputBytes: 16 * 1024 * 1024 } });
    expect(small.artifacts).toEqual([]);
    expect(small.warnings.some((w) => /archive read stopped after 1 member\(s\) \(last: b\/zeros\.bin\): decompression stopped: this input's decompressed bytes passed 16\.0 MiB/.test(w.message))).toBe(true);
    small.close?.();
  });
});

describe('members per input', () => {
  it('past maxMembers the input is read no further, with one warning', async () => {
    const logs = nodeLogs('worker-7', { stallAt: null });
    const files: Files = {};
    for (let i = 0; i < 8; i++) files[`b/notes/n${i}.txt`] = `note ${i}\n`;
    files['b/kubelet.log'] = logs.kubelet;
    const p = path.join(tmp, 'many-members.tar.gz');
    fs.writeFileSync(p, zlib.gzipSync(await tarBuffer(files)));
    const all = await discover([p]);
    expect(all.artifacts.some((a) => a.path === 'b/kubelet.log')).toBe(true);
    all.close?.();
    const few = await discover([p], { limits: { maxMembers: 5 } });
    expect(few.artifacts.some((a) => a.path === 'b/kubelet.log')).toBe(false);
    expect(few.warnings.map((w) => w.message)).toContain('archive read stopped after 5 member(s) (last: b/notes/n4.txt): more than 5 archive members in this input (the bound per input): the rest is not read; the members before it were read');
    few.close?.();
  });
});

describe('a hostile bundle folder', () => {
  it('a sos unit-journal link pointing outside is not followed', async () => {
    const dir = path.join(tmp, 'sosreport-evil-2024-01-11-abcdefg');
    const logs = nodeLogs('evil', { stallAt: null });
    writeDir(dir, {
      'version.txt': 'sosreport: 4.5.0\n',
      'sos_commands/host/hostname': 'evil\n',
      'sos_commands/kubernetes/journalctl_--no-pager_--unit_kubelet': { symlink: secret },
      'sos_commands/logs/journalctl_--no-pager': logs.kubelet,
    });
    const a = (await analyze({ paths: [dir], workers: 0 })).analysis;
    expect(JSON.stringify(a)).not.toContain(MARK);
    expect(a.warnings.some((w) => /journalctl_--no-pager_--unit_kubelet.*outside/.test(`${w.file} ${w.message}`))).toBe(true);
    expect(a.nodes.map((n) => n.name)).toEqual(['evil']);
  });
});
