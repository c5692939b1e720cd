// Binary journals (src/sources/files/journal.ts) against systemd's own tools: files written by systemd-journal-remote from the
// sample incident, each read by plegscope and by `journalctl --file … -o json`, which must agree entry for entry.
// Skipped only when the systemd tools are absent (scripts/install-test-deps.sh installs them; CI runs them).
import { execSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Analysis } from '../../src/contract/analysis.js';
import { decode } from '../../src/sources/files/decode.js';
import { discover } from '../../src/sources/files/discover.js';
import { collect } from '../../src/sources/files/entry-stream.js';
import { journalFileLines } from '../../src/sources/files/journal.js';
import { DEFAULT_LIMITS } from '../../src/sources/files/limits.js';
import { BIN } from '../helpers/cli.js';
import {
  compressDataObjects, dataObjects, incidentEntries, journalctlEntries, lz4Frame, missingSystemdTools, pick, writeJournal, xzFrame,
  type ExportEntry, type Fields,
} from '../support/journal-files.js';

const missing = missingSystemdTools();
const MACHINE = '8f2d6c1e3b4a49d7a5c6b7e8f9012345';
const SAMPLE = join(__dirname, '..', '..', 'fixtures', 'sample-incident');

let dir: string;
let entries: ExportEntry[];
const file = (name: string) => join(dir, name);

/**
 * plegscope's decoded entries of a journal file (its JSON lines, the compared fields), and the error it ended with:
 * read from disk by offset (a loose file) and streamed into memory (an archive member), which must agree.
 */
async function decoded(path: string): Promise<{ entries: Fields[]; error: Error | null }> {
  const parse = (r: { data: Buffer; error: Error | null }) => ({
    entries: r.data.toString('utf8').split('\n').filter((l) => l !== '').map((l) => pick(JSON.parse(l) as Record<string, unknown>)),
    error: r.error,
  });
  const file = parse(await collect(journalFileLines(path, DEFAULT_LIMITS), 1 << 30));
  const streamed = parse(await collect(decode(Readable.from([readFileSync(path)]), 'journal'), 1 << 30));
  expect(streamed.entries).toEqual(file.entries);
  expect(streamed.error?.message).toEqual(file.error?.message);
  return file;
}

function analyzeJson(paths: string[]): { code: number; analysis: Analysis; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, 'analyze', ...paths, '--format', 'json'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 64 << 20 });
  return { code: r.status ?? -1, analysis: JSON.parse(r.stdout || '{}') as Analysis, stderr: r.stderr };
}

describe.skipIf(missing !== null)(`binary journals${missing ? ` (skipped: ${missing})` : ''}`, () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'plegscope-journal-'));
    entries = incidentEntries();
    writeJournal(file('compact.journal'), entries, { compact: true });
    writeJournal(file('regular.journal'), entries, { compact: false });
    writeJournal(file('plain-regular.journal'), entries, { compact: false, compress: false });
    writeJournal(file('plain-compact.journal'), entries, { compact: true, compress: false });
    for (const [name, src, flag, fn] of [
      ['lz4-regular.journal', 'plain-regular.journal', 2, lz4Frame],
      ['lz4-compact.journal', 'plain-compact.journal', 2, lz4Frame],
      ['xz-regular.journal', 'plain-regular.journal', 1, xzFrame],
    ] as const) {
      const buf = readFileSync(file(src));
      expect(compressDataObjects(buf, flag, fn), `${name}: objects compressed`).toBeGreaterThan(3);
      writeFileSync(file(name), buf);
    }
  }, 120_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the files are what the tests say: compact or not, ZSTD/LZ4/XZ data objects', () => {
    const flags = (name: string) => readFileSync(file(name)).readUInt32LE(12);
    const objectFlags = (name: string) => new Set(dataObjects(readFileSync(file(name))).map((d) => d.flags));
    expect(flags('compact.journal') & 16).toBe(16);
    expect(flags('regular.journal') & 16).toBe(0);
    expect(objectFlags('compact.journal')).toContain(4);
    expect(objectFlags('regular.journal')).toContain(4);
    expect(objectFlags('plain-regular.journal')).toEqual(new Set([0]));
    expect(objectFlags('lz4-regular.journal')).toContain(2);
    expect(objectFlags('lz4-compact.journal')).toContain(2);
    expect(objectFlags('xz-regular.journal')).toContain(1);
  });

  for (const name of ['compact.journal', 'regular.journal', 'plain-regular.journal', 'plain-compact.journal', 'lz4-regular.journal', 'lz4-compact.journal', 'xz-regular.journal']) {
    it(`${name}: every entry as journalctl --file reads it`, async () => {
      const want = journalctlEntries(file(name));
      expect(want).toHaveLength(entries.length);
      const got = await decoded(file(name));
      expect(got.error).toBeNull();
      expect(got.entries).toEqual(want);
    });
  }

  it('the fields are those written: time with its year (µs, UTC), host, unit, identifier, PID, message', async () => {
    const got = (await decoded(file('compact.journal'))).entries;
    const kubelet = entries.findIndex((e) => e.fields['SYSLOG_IDENTIFIER'] === 'kubelet' && e.fields['MESSAGE']?.startsWith('I0311'));
    expect(got[kubelet]).toEqual({
      __REALTIME_TIMESTAMP: String(entries[kubelet]?.realtime), MESSAGE: entries[kubelet]?.fields['MESSAGE'],
      _HOSTNAME: 'worker-3', _PID: '2817', SYSLOG_IDENTIFIER: 'kubelet', _SYSTEMD_UNIT: 'kubelet.service',
    });
    expect(new Date(Number(BigInt(got[kubelet]?.['__REALTIME_TIMESTAMP'] ?? '0') / 1000n)).toISOString()).toMatch(/^2024-03-11T/);
    const kernel = got.find((e) => e['SYSLOG_IDENTIFIER'] === 'kernel');
    expect(kernel).toMatchObject({ _HOSTNAME: 'worker-3' });
    expect(kernel?.['_PID']).toBeUndefined();
  });

  it('an archived file (system@….journal, *.journal~) reads the same', async () => {
    const archived = file('system@0f6c4b2a9e8d47f1b3a5c7d9e1f3a5b7-0000000000000001-00061362f4b3c2a1.journal');
    copyFileSync(file('compact.journal'), archived);
    copyFileSync(file('compact.journal'), file('system.journal~'));
    const want = journalctlEntries(archived);
    expect((await decoded(archived)).entries).toEqual(want);
    expect((await decoded(file('system.journal~'))).entries).toEqual(want);
  });

  it('a file cut mid-way: the sound entries, then a truncation error', async () => {
    const cut = file('cut.journal');
    copyFileSync(file('regular.journal'), cut);
    const full = readFileSync(cut);
    const used = Number(full.readBigUInt64LE(88) + full.readBigUInt64LE(96));
    truncateSync(cut, Math.floor(used / 2));
    const got = await decoded(cut);
    expect(got.error?.message).toMatch(new RegExp(`^journal file cut short \\(\\d+ of \\d+ bytes\\): ${got.entries.length} entries read, `));
    expect((got.error as NodeJS.ErrnoException).code).toBe('ETRUNCATED');
    expect(got.entries.length).toBeGreaterThan(100);
    expect(got.entries.length).toBeLessThan(entries.length);
    expect(got.entries).toEqual(journalctlEntries(file('regular.journal')).slice(0, got.entries.length));
  });

  it('a file left online (not closed cleanly): every entry, then a warning', async () => {
    const online = file('online.journal');
    const buf = readFileSync(file('compact.journal'));
    buf[16] = 1;
    writeFileSync(online, buf);
    const got = await decoded(online);
    expect(got.entries).toHaveLength(entries.length);
    expect(got.error?.message).toMatch(/^journal file not closed cleanly \(state online/);
  });

  it('discovery reads a journal/<machine-id>/ tree, and a journal inside a tar, as logs', async () => {
    const tree = join(dir, 'node-folder');
    mkdirSync(join(tree, 'journal', MACHINE), { recursive: true });
    copyFileSync(file('compact.journal'), join(tree, 'journal', MACHINE, 'system.journal'));
    const d = await discover([tree]);
    expect(d.warnings).toEqual([]);
    expect(d.artifacts.map((a) => [a.path, a.role, a.format, a.compression])).toEqual([
      [`journal/${MACHINE}/system.journal`, 'kubelet-log', 'journal-json', 'journal'],
    ]);
    // A compressed journal (attached to a ticket as .gz) is one decoding too many: said so, with the command.
    const gz = join(dir, 'gz');
    mkdirSync(gz);
    writeFileSync(join(gz, 'system.journal.gz'), gzipSync(readFileSync(file('compact.journal'))));
    expect((await discover([gz])).warnings).toEqual([
      { file: 'system.journal.gz', line: null, message: 'binary journal inside a gzip file: not read; decompress it first (`gzip -dk system.journal.gz`, then analyze system.journal)' },
    ]);
    const tar = join(dir, 'sosreport-worker-3-2024-03-11.tar');
    const made = spawnSync('tar', ['-cf', tar, '-C', tree, '.']);
    expect(made.status).toBe(0);
    const t = await discover([tar]);
    expect(t.artifacts.map((a) => [a.path.replace(/^\.\//, ''), a.role, a.format])).toEqual([[`journal/${MACHINE}/system.journal`, 'kubelet-log', 'journal-json']]);
    t.close?.();
  }, 60_000);

  it('end to end: a folder holding journal/<machine-id>/*.journal gives the verdict the text logs give', () => {
    const texts = join(dir, 'texts');
    mkdirSync(texts);
    for (const f of ['kubelet.log', 'containerd.log', 'dmesg.txt']) copyFileSync(join(SAMPLE, f), join(texts, f));
    const node = join(dir, 'worker-folder');
    mkdirSync(join(node, 'journal', MACHINE), { recursive: true });
    // Two files of one machine, as journald rotates them: an archived one and the active one.
    const half = Math.floor(entries.length / 2);
    writeJournal(join(node, 'journal', MACHINE, 'system@0f6c4b2a9e8d47f1b3a5c7d9e1f3a5b7-0000000000000001-00061362f4b3c2a1.journal'), entries.slice(0, half));
    writeJournal(join(node, 'journal', MACHINE, 'system.journal'), entries.slice(half));
    const text = analyzeJson([texts]);
    const bin = analyzeJson([node]);
    expect(bin.code, bin.stderr).toBe(text.code);
    expect(bin.analysis.warnings).toEqual([]);
    expect(bin.analysis.nodes.map((n) => n.name)).toEqual(['worker-3']);
    // Each file a log of the node its _HOSTNAME names (not of the machine-id folder).
    expect(bin.analysis.inputs[0]?.artifacts.map((a) => [a.path.replace(/@.*/, '@…'), a.node, a.format]).sort()).toEqual([
      [`journal/${MACHINE}/system.journal`, 'worker-3', 'journal-json'],
      [`journal/${MACHINE}/system@…`, 'worker-3', 'journal-json'],
    ]);
    const [a, b] = [text.analysis.nodes[0], bin.analysis.nodes[0]];
    expect(b?.verdict).toEqual(a?.verdict);
    expect(b?.findings.map((f) => f.ruleId)).toEqual(a?.findings.map((f) => f.ruleId));
    expect(b?.stalls.map((s) => [s.startedAt, s.endedAt])).toEqual(a?.stalls.map((s) => [s.startedAt, s.endedAt]));
    // The journal holds the runtime's and the kernel's entries too: no gap asks for their logs.
    expect(b?.gaps).toEqual(a?.gaps);
    expect(b?.gaps.length).toBeGreaterThan(0);
    // Refs cite the entry's ordinal in its file (1-based) as the line.
    const evidence = b?.findings.flatMap((f) => f.evidence) ?? [];
    expect(evidence.length).toBeGreaterThan(0);
    for (const e of evidence) {
      const all = journalctlEntries(join(node, e.file));
      expect(JSON.parse(e.text) as Record<string, unknown>).toMatchObject(all[e.line - 1] as Fields);
    }
    // Count checks read the journal through journalctl, and find the counts stated.
    const checks = b?.findings.flatMap((f) => f.checks ?? []) ?? [];
    expect(checks.length).toBeGreaterThan(0);
    for (const c of checks) {
      expect(c.grep).toMatch(/^\{ journalctl -o json --output-fields=\S+ --file |^journalctl -o json --output-fields=\S+ --file /);
      const got = execSync(`${c.grep} || true`, { cwd: node, encoding: 'utf8', shell: '/bin/sh' }).trim();
      expect(Number(got), c.grep).toBe(c.total);
    }
  }, 120_000);

  it('a sosreport with the binary journal beside its journalctl outputs: each line counted once', () => {
    const sos = (name: string, withJournal: boolean): string => {
      const root = join(dir, name);
      const put = (rel: string, data: string | Buffer) => {
        mkdirSync(join(root, rel, '..'), { recursive: true });
        writeFileSync(join(root, rel), data);
      };
      put('version.txt', 'sos report: 4.9.0\n');
      put('sos_commands/host/hostname', 'worker-3\n');
      put('sos_commands/kubernetes/journalctl_--no-pager_--unit_kubelet', readFileSync(join(SAMPLE, 'kubelet.log')));
      put('sos_commands/containerd/journalctl_--no-pager_--unit_containerd', readFileSync(join(SAMPLE, 'containerd.log')));
      put('sos_commands/kernel/dmesg_-T', readFileSync(join(SAMPLE, 'dmesg.txt')));
      if (withJournal) {
        mkdirSync(join(root, 'var/log/journal', MACHINE), { recursive: true });
        copyFileSync(file('compact.journal'), join(root, 'var/log/journal', MACHINE, 'system.journal'));
      }
      return root;
    };
    const plain = analyzeJson(['--tz', 'UTC', sos('sosreport-worker-3-2024-03-11-aaaaaaa', false)]);
    const both = analyzeJson(['--tz', 'UTC', sos('sosreport-worker-3-2024-03-11-bbbbbbb', true)]);
    expect(both.analysis.inputs[0]?.artifacts.map((a) => a.path)).toContain(`var/log/journal/${MACHINE}/system.journal`);
    const [a, b] = [plain.analysis.nodes[0], both.analysis.nodes[0]];
    expect(b?.verdict).toEqual(a?.verdict);
    expect(b?.findings.map((f) => [f.ruleId, f.summary])).toEqual(a?.findings.map((f) => [f.ruleId, f.summary]));
  }, 120_000);

  describe('hostile files end with a warning', () => {
    function walkArrays(buf: Buffer): number[] {
      const out: number[] = [];
      for (let off = Number(buf.readBigUInt64LE(176)); off !== 0; off = Number(buf.readBigUInt64LE(off + 16))) out.push(off);
      return out;
    }

    it('an entry array chain that links back to its start', () => {
      const buf = readFileSync(file('plain-compact.journal'));
      const arrays = walkArrays(buf);
      expect(arrays.length).toBeGreaterThan(1);
      // The last full array links back to the first (the last one's free slots would end the walk first).
      buf.writeBigUInt64LE(BigInt(arrays[0] as number), (arrays.at(-2) as number) + 16);
      // A chain of n_entries far beyond what the file holds.
      buf.writeBigUInt64LE(10n ** 12n, 152);
      const folder = join(dir, 'cyclic');
      mkdirSync(folder);
      writeFileSync(join(folder, 'system.journal'), buf);
      const r = analyzeJson([folder]);
      expect([0, 1]).toContain(r.code);
      expect(r.analysis.warnings.map((w) => w.message).join('\n')).toMatch(/read stopped after line \d+: journal file damaged: \d+ entries read, entry array at \d+ links back to \d+/);
    }, 60_000);

    it('absurd sizes: an object claiming 2^62 bytes, compressed data claiming terabytes', async () => {
      const folder = join(dir, 'absurd');
      mkdirSync(folder);
      const zstd = readFileSync(file('compact.journal'));
      const z = dataObjects(zstd).find((d) => d.flags === 4) as { payloadAt: number };
      // The frame's content size: an 8-byte field claiming 1 TiB (frame header descriptor: FCS flag 3, single segment).
      zstd[z.payloadAt + 4] = 0xe0;
      zstd.writeBigUInt64LE(1n << 40n, z.payloadAt + 5);
      writeFileSync(join(folder, 'zstd.journal'), zstd);
      const lz4 = readFileSync(file('lz4-compact.journal'));
      const l = dataObjects(lz4).find((d) => d.flags === 2) as { payloadAt: number };
      lz4.writeBigUInt64LE(1n << 50n, l.payloadAt);
      writeFileSync(join(folder, 'lz4.journal'), lz4);
      const big = readFileSync(file('plain-compact.journal'));
      const o = dataObjects(big)[40] as { offset: number };
      big.writeBigUInt64LE(1n << 62n, o.offset + 8);
      writeFileSync(join(folder, 'size.journal'), big);
      expect((await decoded(join(folder, 'zstd.journal'))).error?.message).toMatch(/corrupt zstd frame \(claims 1099511627776 bytes uncompressed/);
      expect((await decoded(join(folder, 'lz4.journal'))).error?.message).toMatch(/LZ4 data claims 1125899906842624 bytes uncompressed/);
      expect((await decoded(join(folder, 'size.journal'))).error?.message).toMatch(/data object at offset \d+: size 4611686018427387904/);
      const r = analyzeJson([folder]);
      expect([0, 1]).toContain(r.code);
      const warned = r.analysis.warnings.map((w) => `${w.file}: ${w.message}`);
      for (const f of ['zstd.journal', 'lz4.journal', 'size.journal']) expect(warned.some((w) => w.startsWith(`${f}: read stopped after line`)), warned.join('\n')).toBe(true);
    }, 60_000);
  });
});
