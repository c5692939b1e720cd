// The command line as a user meets it (issue 15 points 3, 6 and 7; issue 26 points 1 and 2): the text report fits the
// terminal with prose wrapped at words, one fact a line, and evidence lines wrapped under their message head (whole in a
// pipe or a file), --evidence all shows every line,
// `rules` alone lists the catalog as a table, analyze --help's examples line up, and progress shows on a terminal for
// long work but never in a pipe or under CI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cli, BIN } from './helpers/cli.js';
import { writeFixture, type Fixture } from './tui/fixture.js';
import type { Analysis } from '../src/contract/analysis.js';

const HOSTS: [string, string, string] = ['ip-172-20-31-10.eu-west-1.compute.internal', 'ip-172-20-31-11.eu-west-1.compute.internal', 'ip-172-20-31-12.eu-west-1.compute.internal'];
const HAS_SCRIPT = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

let fx: Fixture;
let analysis: Analysis;
beforeAll(() => {
  fx = writeFixture({ hosts: HOSTS });
  analysis = JSON.parse(cli(['analyze', fx.dir, '--year', '2024', '--format', 'json']).stdout) as Analysis;
});
afterAll(() => fx.cleanup());

/** An evidence line's time as the report shows it (HH:mm:ss, UTC). */
const hms = (ts: string | null): string => (ts ? ts.slice(11, 19) : '');

describe('text report in a terminal of any width', () => {
  for (const cols of [80, 120, 250]) {
    it(`fits ${cols} columns: only collection commands are wider, one fact a line, evidence keeps its message head (issue 26.1–2)`, () => {
      const r = cli(['analyze', fx.dir, '--year', '2024'], { env: { COLUMNS: String(cols) } });
      expect(r.code).toBe(0);
      const lines = r.stdout.split('\n');
      const wide = lines.filter((l) => [...l].length > cols);
      for (const l of wide) expect(l, 'only commands may pass the width').toMatch(/^ {6,7}\$ /);
      // One fact a line: every line of a finding's summary starts a line of its own, wrapped at words under itself.
      const f = analysis.nodes[0]!.findings[0]!;
      expect(f.lines!.length).toBeGreaterThan(1);
      const joined = r.stdout.replace(/\n {9,11}(?![ -])/g, ' ');
      for (const l of f.lines!) expect(joined).toMatch(new RegExp(`^ {7}(?: {2})?${l.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
      // Each shown evidence line: its place and time, then its message from its head (no journal or klog prefix), wrapped
      // under itself to its end.
      for (const e of f.evidence.slice(0, 3)) {
        const head = `       ${e.file}:${e.line}  ${hms(e.ts)}`;
        const at = lines.findIndex((l) => l.startsWith(head));
        expect(at, `${e.file}:${e.line}`).toBeGreaterThan(0);
        expect(e.message).toBeDefined();
        expect(e.message).not.toContain(' kubelet[');
        let text = lines[at]!.slice(head.length).trim();
        for (let i = at + 1; /^ {9}\S/.test(lines[i] ?? ''); i++) text += ' ' + lines[i]!.trim();
        expect(text.trim().replace(/\s+/g, ' ')).toBe(e.message!.replace(/\s+/g, ' '));
        expect(e.message!.startsWith('"ListPodSandbox with filter from runtime service failed"') || !e.text.includes('ListPodSandbox')).toBe(true);
      }
    });
  }

  it('off a terminal (a pipe, -o FILE) without $COLUMNS: prose at 80, every evidence line whole on one line; --width fits it', () => {
    const r = spawnSync(process.execPath, [BIN, 'analyze', fx.dir, '--year', '2024'], { encoding: 'utf8', env: { ...process.env, COLUMNS: '' } });
    const lines = r.stdout.split('\n');
    const f = analysis.nodes[0]!.findings[0]!;
    for (const e of f.evidence.slice(0, 3)) expect(lines).toContain(`       ${e.file}:${e.line}  ${hms(e.ts)}  ${e.message}`);
    const long = (l: string): boolean => [...l].length > 80 && !/^ {6,7}\$ /.test(l);
    expect(lines.filter(long).every((l) => /^ {7}\S+:\d+ {2}\d\d:\d\d:\d\d {2}/.test(l))).toBe(true);
    const out = join(fx.dir, '..', `report-${process.pid}.txt`);
    const w = spawnSync(process.execPath, [BIN, 'analyze', fx.dir, '--year', '2024', '-o', out, '--width', '100'], { encoding: 'utf8', env: { ...process.env, COLUMNS: '' } });
    expect(w.status, w.stderr).toBe(0);
    const file = readFileSync(out, 'utf8');
    rmSync(out);
    expect(file.split('\n').filter((l) => [...l].length > 100 && !/^ {6,7}\$ /.test(l))).toEqual([]);
    expect(file).toMatch(/^ {7}\S+\/kubelet\.log:\d+ {2}\d\d:\d\d:\d\d {2}"ListPodSandbox with\b/m);
  });

  it('--evidence all prints every evidence line; the default says how to see the rest', () => {
    const def = cli(['analyze', fx.dir, '--year', '2024']).stdout;
    expect(def).toMatch(/… \d+ more evidence lines?: --evidence all shows every one/);
    expect(def).not.toContain('--format json');
    const all = cli(['analyze', fx.dir, '--year', '2024', '--evidence', 'all'], { env: { COLUMNS: '400' } }).stdout;
    expect(all).not.toContain('more evidence line');
    for (const n of analysis.nodes) for (const f of n.findings) for (const e of f.evidence) expect(all).toContain(`${e.file}:${e.line}  ${hms(e.ts)}  ${e.message ?? e.text}`);
    const one = cli(['analyze', fx.dir, '--year', '2024', '--evidence', '1']).stdout;
    expect(one.match(/more evidence line/g)?.length).toBe(analysis.nodes.reduce((k, n) => k + n.findings.filter((f) => f.evidence.length > 1).length, 0));
    const bad = cli(['analyze', fx.dir, '--evidence', 'some']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--evidence: "some" is neither "all" nor a number of lines');
  });

  it('the cluster block and the node headings say the same verdict words as the other views', () => {
    const t = cli(['analyze', fx.dir, '--year', '2024'], { env: { COLUMNS: '200' } }).stdout;
    expect(t).toMatch(/^ip-172-20-31-10\.eu-west-1\.compute\.internal {2}PLEG unhealthy — cause: disk_io/m);
    expect(t).toMatch(/^ {2}node +stalls +first unhealthy +longest stall \(no relist\) +NotReady/m);
    expect(t).toContain('PLEG healthy, nothing to report: 1 node');
  });
});

describe('small things (issue 15 point 6)', () => {
  it('`rules` alone lists the catalog: a header, aligned columns', () => {
    const alone = cli(['rules']);
    expect(alone.code).toBe(0);
    expect(alone.stdout).toBe(cli(['rules', 'list']).stdout);
    const lines = cli(['rules', 'list'], { env: { COLUMNS: '160' } }).stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +CAUSE +SEVERITY +EXPLAINS +TITLE$/);
    const cols = ['CAUSE', 'SEVERITY', 'EXPLAINS', 'TITLE'].map((h) => lines[0]!.indexOf(h));
    const rows = lines.slice(1).filter((l) => !l.startsWith(' '));
    expect(rows.length).toBeGreaterThan(10);
    for (const r of rows) for (const c of cols) expect(r[c - 1], `${r} at ${c}`).toBe(' ');
    expect(rows.find((r) => r.startsWith('clock-jump'))?.slice(cols[0])).toMatch(/^clock_jump +medium +stall +The wall clock jumped/);
    // 80 columns: the title under its rule rather than squeezed into a strip.
    const narrow = cli(['rules']).stdout.split('\n');
    expect(narrow[0]).toMatch(/^ID +CAUSE +SEVERITY +EXPLAINS$/);
    expect(narrow.every((l) => [...l].length <= 80)).toBe(true);
    expect(narrow[narrow.indexOf(narrow.find((l) => l.startsWith('clock-jump'))!) + 1]).toMatch(/^ {4}The wall clock jumped/);
  });

  it('analyze --help: each example is a comment line and a command, all from the same column', () => {
    const help = cli(['analyze', '--help']).stdout;
    const ex = help.slice(help.indexOf('Examples:')).split('\n').slice(1);
    const block = ex.slice(0, ex.indexOf(''));
    expect(block.length).toBeGreaterThanOrEqual(10);
    block.forEach((l, i) => expect(l, l).toMatch(i % 2 === 0 ? /^ {2}# \S/ : /^ {2}(plegscope|journalctl) /));
  });
});

describe.skipIf(!HAS_SCRIPT)('progress (issue 15 point 7)', () => {
  /** Runs analyze with stderr on a pseudo-terminal (script), stdout to a file; returns what the terminal got. */
  function onTty(env: string): { tty: string; report: string } {
    const out = join(fx.dir, `report-${Math.random().toString(36).slice(2)}.txt`);
    const log = `${out}.tty`;
    // The CI that runs this suite may itself set CI or TERM=dumb, which (rightly) turn progress off: the terminal
    // here is a user's, so those come from the case, not from the environment the suite runs in.
    const clean: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm-256color' };
    delete clean['CI'];
    delete clean['CONTINUOUS_INTEGRATION'];
    const r = spawnSync('script', ['-qec', `${env} ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} analyze ${JSON.stringify(fx.dir)} --year 2024 > ${JSON.stringify(out)}`, log], { encoding: 'utf8', env: clean });
    expect(r.status, r.stderr).toBe(0);
    const tty = readFileSync(log, 'utf8');
    const report = readFileSync(out, 'utf8');
    rmSync(out);
    rmSync(log);
    return { tty, report };
  }

  it('on a terminal: one line redrawn in place, cleared before the report; never in the report', () => {
    // The delay is a second by default; 0 here so that a small input shows it.
    const { tty, report } = onTty('PLEGSCOPE_PROGRESS_DELAY_MS=0');
    expect(tty).toMatch(/\r\x1b\[2Kplegscope: (reading .*|\d+ of \d+ files .*) · \d+\.\d s/);
    // The last thing progress writes is the clearing of its line.
    expect(tty.lastIndexOf('\r\x1b[2K')).toBeGreaterThan(tty.lastIndexOf('plegscope:'));
    expect(report).not.toContain('\x1b');
    expect(report).toMatch(/^plegscope /);
  });

  it('not under CI, not in a pipe', () => {
    expect(onTty('CI=true PLEGSCOPE_PROGRESS_DELAY_MS=0').tty).not.toContain('plegscope:');
    const piped = spawnSync(process.execPath, [BIN, 'analyze', fx.dir, '--year', '2024'], { encoding: 'utf8', env: { ...process.env, PLEGSCOPE_PROGRESS_DELAY_MS: '0' } });
    expect(piped.stderr).toBe('');
  });
});
