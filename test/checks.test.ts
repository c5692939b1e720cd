// Issue 22.1: every count check the report prints is a command that, pasted where plegscope ran, prints the number
// printed beside it. Runs bin/plegscope as a user does (from a working directory, the paths as typed) on every fixture
// folder, on every bundle kind the tests build in every archive form, and pastes each printed check into bash there.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Analysis } from '../src/contract/analysis.js';
import { cli } from './helpers/cli.js';
import { FORMS, compress, formAvailable, nodeLogs, writeBundle } from './bundles/fixtures.js';
import { mustGather } from './helpers/multinode.js';
import { fixtures as kindFixtures, type KindFixture } from './bundles/kinds.js';
import { jl, kl } from './helpers/scenario.js';
import { renderText } from '../src/report/text.js';
import { exportForms, sampleLines } from './support/exports.js';

vi.setConfig({ testTimeout: 120_000 });

const ROOT = path.join(__dirname, '..');
const FIXTURE_DIRS = ['fixtures/incidents', 'fixtures/corpus'].flatMap((g) => fs.readdirSync(path.join(ROOT, g))
  .filter((d) => fs.statSync(path.join(ROOT, g, d)).isDirectory()).sort().map((d) => `${g}/${d}`)).concat(['fixtures/sample-incident']);

/** The checks a text report prints: `$ command  # → N …`. */
function printedChecks(text: string): Array<{ command: string; prints: string }> {
  const out: Array<{ command: string; prints: string }> = [];
  for (const line of text.split('\n')) {
    const m = /^\s+\$ (.+?) {2}# → (\d+)/.exec(line);
    if (m) out.push({ command: m[1] as string, prints: m[2] as string });
  }
  return out;
}

/** Pastes `command` into bash in `cwd`; what it prints. */
function paste(command: string, cwd: string): string {
  const r = spawnSync('bash', ['-c', command], { cwd, encoding: 'utf8', maxBuffer: 1 << 26 });
  return `${r.stdout.trim()}${r.stderr.trim() ? ` [stderr: ${r.stderr.trim().slice(0, 200)}]` : ''}`;
}

/** Analyzes `input` from `cwd` in text and JSON; runs every printed check there; returns how many ran. */
function checkAll(input: string, cwd: string, extra: string[] = []): { ran: number; analysis: Analysis; text: string } {
  const json = cli(['analyze', input, '--format', 'json', ...extra], { cwd });
  expect([0, 1], json.stderr).toContain(json.code);
  const analysis = JSON.parse(json.stdout) as Analysis;
  // The text report of the same analysis, as the CLI renders it (one run per input: the suite's time is counted).
  const text = { stdout: renderText(analysis, { color: false, zone: 'UTC', width: 80 }) };
  const fromJson = analysis.nodes.flatMap((n) => n.findings.flatMap((f) => f.checks ?? []));
  const printed = printedChecks(text.stdout);
  // The text prints every check the JSON holds, with the number its command prints.
  expect(printed.map((p) => p.command)).toEqual(fromJson.map((c) => c.grep));
  expect(printed.map((p) => p.prints)).toEqual(fromJson.map((c) => String(c.prints ?? c.total)));
  for (const p of printed) expect(paste(p.command, cwd), `${input}: ${p.command}`).toBe(p.prints);
  return { ran: printed.length, analysis, text: text.stdout };
}

const tally = { checks: 0, inputs: 0 };
afterAll(() => {
  console.log(`count checks pasted: ${tally.checks} across ${tally.inputs} inputs, all printing the number printed beside them`);
});

describe('count checks print their number where plegscope ran (fixtures/**)', () => {
  it.each(FIXTURE_DIRS)('%s', (dir) => {
    const r = checkAll(dir, ROOT);
    tally.checks += r.ran;
    tally.inputs++;
  });

  it('the checks of the sample incident run from another directory, by the path typed there', () => {
    const r = checkAll('../fixtures/sample-incident', path.join(ROOT, 'test'));
    expect(r.ran).toBeGreaterThan(3);
    expect(r.text).toContain("grep -cE 'pleg was last seen active' ../fixtures/sample-incident/kubelet.log");
  });
});

describe('count checks print their number where plegscope ran (bundles, every form)', () => {
  let tmp: string;
  let kinds: KindFixture[];
  beforeAll(async () => {
    // A working directory and a folder in it whose names need quoting.
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'plegscope checks '));
    fs.mkdirSync(path.join(tmp, "it's here"));
    kinds = await kindFixtures();
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  for (const form of FORMS) {
    it(`every bundle kind as ${form}`, async () => {
      if (!formAvailable(form)) return;
      for (const fx of kinds) {
        const sub = path.join(tmp, "it's here", form);
        fs.mkdirSync(sub, { recursive: true });
        const p = await writeBundle(sub, fx.name, fx.files, form);
        const r = checkAll(path.relative(tmp, p), tmp, ['--tz', fx.tz]);
        tally.checks += r.ran;
        tally.inputs++;
      }
    }, 600_000);
  }
});

describe('count checks: end to end', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'plegscope-checks-'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('a must-gather whose service log merges several hosts: each node counts its own lines, by its host column', async () => {
    for (const form of ['dir', 'tar.gz'] as const) {
      const p = await writeBundle(tmp, `mg-${form}`, mustGather(), form);
      const r = checkAll(path.basename(p), tmp);
      const m0 = r.analysis.nodes.find((n) => n.name === 'master-0');
      const m1 = r.analysis.nodes.find((n) => n.name === 'master-1');
      const checks = [m0, m1].flatMap((n) => n?.findings.flatMap((f) => f.checks ?? []) ?? []);
      expect(checks.length).toBeGreaterThan(1);
      for (const c of checks) expect(c.grep).toMatch(/awk '\$4 == "master-[01]"'/);
      // The same file, one node's lines each: not the file's count.
      const unhealthy = (n: typeof m0) => n?.findings.flatMap((f) => f.checks ?? []).find((c) => c.what.startsWith('lines saying when PLEG'));
      expect(unhealthy(m0)?.total).toBeGreaterThan(0);
      if (form === 'dir') {
        const file = Object.keys(mustGather()).find((k) => k.endsWith('kubelet_service.log')) as string;
        expect(Number(paste(`grep -c 'pleg was last seen active' 'mg-dir/${file}'`, tmp))).toBeGreaterThan(unhealthy(m0)?.total ?? 0);
      }
      tally.checks += r.ran;
      tally.inputs++;
    }
  });

  it('a tar.xz bundle is checked in place: tar -xOf bundle.tar.xz member | grep -cE …', async () => {
    const fx = (await kindFixtures()).find((k) => k.kind === 'sosreport') as KindFixture;
    if (!formAvailable('tar.xz')) return;
    const p = await writeBundle(tmp, fx.name, fx.files, 'tar.xz');
    const r = checkAll(path.basename(p), tmp, ['--tz', fx.tz]);
    expect(r.ran).toBeGreaterThan(0);
    for (const line of printedChecks(r.text)) expect(line.command).toMatch(new RegExp(`^(\\{ )?tar -xOf ${fx.name}\\.tar\\.xz ${fx.name}/`));
    tally.checks += r.ran;
    tally.inputs++;
  });

  it('compressed and UTF-16 files: zgrep, xzgrep, bzgrep, iconv — each check prints its number', () => {
    const log = fs.readFileSync(path.join(ROOT, 'fixtures', 'sample-incident', 'kubelet.log'));
    const forms: Array<[string, Buffer]> = [
      ['kubelet.log.gz', compress(log, 'gz')],
      ...(formAvailable('tar.xz') ? [['kubelet.log.xz', compress(log, 'xz')] as [string, Buffer]] : []),
      ...(formAvailable('tar.bz2') ? [['kubelet.log.bz2', compress(log, 'bz2')] as [string, Buffer]] : []),
      // Windows PowerShell 5's `>`: UTF-16LE with a byte-order mark, CRLF.
      ['kubelet-utf16.log', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(log.toString('utf8').replace(/\n/g, '\r\n'), 'utf16le')])],
    ];
    for (const [name, bytes] of forms) {
      fs.writeFileSync(path.join(tmp, name), bytes);
      const r = checkAll(name, tmp);
      expect(r.ran, name).toBeGreaterThan(3);
      expect(printedChecks(r.text)[0]?.command, name).toMatch(/^(zgrep|xzgrep|bzgrep|iconv -f UTF-16LE -t UTF-8) /);
      tally.checks += r.ran;
      tally.inputs++;
    }
  });

  it('a hard-wrapped paste: the check joins its wrapped lines as the report did (awk), and prints its number', () => {
    const log = fs.readFileSync(path.join(ROOT, 'fixtures', 'sample-incident', 'kubelet.log'), 'utf8');
    // Wrapped at 80 columns (`fold -b -w 80`), so that a pattern can be cut by a wrap.
    fs.writeFileSync(path.join(tmp, 'wrapped.log'), log.split('\n').map((l) => l.replace(/(.{80})(?=.)/g, '$1\n')).join('\n'));
    const r = checkAll('wrapped.log', tmp);
    expect(r.ran).toBeGreaterThan(3);
    for (const c of printedChecks(r.text)) expect(c.command).toMatch(/^LC_ALL=C awk -v w=80 '.*' wrapped\.log \| grep -cE /);
    tally.checks += r.ran;
    tally.inputs++;
  });

  it('cloud and log-store exports, each form and compressed: jq over JSON documents, grep over JSON lines and CSV', () => {
    // Every form in one folder (one run): a check counts them all at once, each file by its own command.
    const dir = path.join(tmp, 'exports');
    fs.mkdirSync(dir);
    // The sample's lines that any check counts, and every tenth other (jq runs once per document and check).
    const forms = exportForms(sampleLines().filter((l, i) => i % 10 === 0 || /pleg|runtime|Unable|deadline|blocked|Kill|nfs|hannel/i.test(l.message)));
    for (const [name, text] of forms) fs.writeFileSync(path.join(dir, name), text);
    const pick = (n: string) => Buffer.from((forms.find(([x]) => x === n) as [string, string])[1]);
    fs.writeFileSync(path.join(dir, 'gcloud-array.json.gz'), compress(pick('gcloud-array.json'), 'gz'));
    fs.writeFileSync(path.join(dir, 'azure.csv.gz'), compress(pick('azure.csv'), 'gz'));
    fs.writeFileSync(path.join(dir, 'es-search.json.zst'), spawnSync('zstd', ['-q', '-c'], { input: pick('es-search.json') }).stdout);
    fs.writeFileSync(path.join(dir, 'loki.jsonl.zst'), spawnSync('zstd', ['-q', '-c'], { input: pick('loki.jsonl') }).stdout);
    const r = checkAll('exports', tmp);
    expect(r.analysis.nodes.map((n) => n.name)).toEqual(['worker-3']);
    const read = r.analysis.inputs[0]?.artifacts.filter((a) => a.role === 'kubelet-log').map((a) => a.path).sort();
    expect(read).toEqual([...forms.map(([n]) => n), 'gcloud-array.json.gz', 'azure.csv.gz', 'es-search.json.zst', 'loki.jsonl.zst'].sort());
    const cmd = printedChecks(r.text)[0]?.command ?? '';
    expect(cmd).toContain(`jq -c 'if type == "array" then .[] elif has("tables")`);
    expect(cmd).toContain('gzip -dc exports/gcloud-array.json.gz | jq -c');
    expect(cmd).toContain('zstd -dcq exports/es-search.json.zst | jq -c');
    expect(cmd).toMatch(/zstd -dcq exports\/loki\.jsonl\.zst;/);
    tally.checks += r.ran;
    tally.inputs++;
  });

  it('a dense journal (runs folded to keep memory bounded) counts every line, as grep does', () => {
    const last = Date.UTC(2024, 0, 11, 9, 0, 1);
    const lines = [kl(last - 1000, 'I', 'kubelet.go:2434', '"SyncLoop (PLEG): event for pod" pod="default/web-0"')];
    // An hour of the sync loop skipping ten times a second (36 000 lines, several in each second), a CRI timeout every 2 s.
    for (let t = last + 180_000; t < last + 180_000 + 3_600_000; t += 100) {
      const age = Math.floor((t - last) / 1000);
      lines.push(kl(t, 'E', 'kubelet.go:2373', `"Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active ${Math.floor(age / 60)}m${age % 60}s ago; threshold is 3m0s"`));
      if (t % 2000 === 0) lines.push(kl(t, 'E', 'remote_runtime.go:294', '"ListPodSandbox with filter from runtime service failed" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded" filter="nil"'));
    }
    fs.writeFileSync(path.join(tmp, 'dense.log'), lines.join('\n') + '\n');
    const r = checkAll('dense.log', tmp);
    const c = r.analysis.nodes.flatMap((n) => n.findings.flatMap((f) => f.checks ?? [])).find((x) => x.what.startsWith('lines saying when PLEG'));
    expect(c?.total).toBe(36_000);
    tally.checks += r.ran;
    tally.inputs++;
  });

  it('identical lines in one file are each counted; copies of one journal in two files once, and the report says so', () => {
    const dir = path.join(tmp, 'dupes');
    fs.mkdirSync(dir);
    const t = Date.UTC(2024, 0, 11, 9, 20, 0);
    // Two mounts of one dead NFS server say the same thing in the same second.
    const nfs = [jl(t, 'kernel', 'INFO: task kubelet:2817 blocked for more than 120 seconds.'), jl(t, 'kernel', 'nfs: server 10.0.0.5 not responding, still trying'), jl(t, 'kernel', 'nfs: server 10.0.0.5 not responding, still trying'), jl(t + 1000, 'kernel', 'nfs: server 10.0.0.5 not responding, still trying')];
    const logs = nodeLogs('worker-3', { stallAt: 15 * 60_000 });
    const journal = [...logs.kubelet.split('\n').filter(Boolean), ...nfs].sort().join('\n') + '\n';
    fs.writeFileSync(path.join(dir, 'journal.log'), journal);
    const single = checkAll('dupes/journal.log', tmp);
    const nfsCheck = single.analysis.nodes.flatMap((n) => n.findings.flatMap((f) => f.checks ?? [])).find((c) => c.what.includes('NFS'));
    expect(nfsCheck?.total).toBe(3);
    // The same journal again as a second file: counted once, the command counts both copies and the report says so.
    fs.writeFileSync(path.join(dir, 'messages'), journal);
    const both = checkAll('dupes', tmp);
    const c = both.analysis.nodes.flatMap((n) => n.findings.flatMap((f) => f.checks ?? [])).find((x) => x.what.startsWith('lines saying when PLEG'));
    expect(c?.prints).toBe((c?.total ?? 0) * 2);
    expect(c?.deduplicated).toBe(c?.total);
    expect(both.text).toMatch(/# → \d+ — \d+ distinct lines; the other \d+ are copies of them in another file of the same journal, counted once/);
  });
});
