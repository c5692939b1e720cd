// Issue 26 points 5 and 6, as a user meets them: the report goes out in the format its file name asks for, a Prometheus
// that does not answer is said on stderr and under the header, and the command line's mistakes each get one line that
// says what to do instead. Few processes: each spawn checks several things.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from './helpers/cli.js';
import { writeFixture } from './tui/fixture.js';

const SAMPLE = join(__dirname, '..', 'fixtures', 'sample-incident');
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'plegscope-cuts-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A loopback port nothing listens on (connection refused). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('output where it was asked for (issue 26.5)', () => {
  it('-o FILE: the format follows the extension unless --format says; md is markdown', () => {
    const outs = ['r.html', 'r.json', 'r.md', 'r.xml', 'r.txt'].map((f) => join(dir, f));
    for (const o of outs) expect(cli(['analyze', SAMPLE, '-o', o]).code).toBe(0);
    const [html, json, md, xml, txt] = outs.map((o) => readFileSync(o, 'utf8')) as [string, string, string, string, string];
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(JSON.parse(json).schemaVersion).toBe(1);
    expect(md).toMatch(/^# plegscope report/);
    expect(xml).toMatch(/^<\?xml/);
    expect(txt).toMatch(/^plegscope \d/);
    const forced = join(dir, 'forced.html');
    expect(cli(['analyze', SAMPLE, '-o', forced, '--format', 'text']).code).toBe(0);
    expect(readFileSync(forced, 'utf8')).toMatch(/^plegscope \d/);
    expect(cli(['analyze', SAMPLE, '-f', 'md']).stdout).toMatch(/^# plegscope report/);
  });

  it('a --prometheus that does not answer: one line on stderr, a warning under the header', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const r = cli(['analyze', SAMPLE, '--prometheus', url, '--prometheus-timeout', '5'], { env: { COLUMNS: '200' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`plegscope: ${url}: unreachable (connection refused): analyzed without it\n`);
    const lines = r.stdout.split('\n');
    expect(lines[1]).toBe(`warning: ${url}: unreachable (connection refused): analyzed without it`);
  });
});

describe('CLI paper cuts (issue 26.6)', () => {
  it('rules show CAUSE lists the rules of that cause; a name that is neither says so', () => {
    const r = cli(['rules', 'show', 'runtime_timeout'], { env: { COLUMNS: '120' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^"runtime_timeout" is a cause; its rules/);
    expect(r.stdout).toMatch(/^runtime-hung-lists +runtime_timeout +critical/m);
    expect(r.stdout).not.toMatch(/^\S+ +disk_io /m);
    const none = cli(['rules', 'show', 'no_such_thing']);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe('plegscope: rules show: no rule or cause "no_such_thing" (see "plegscope rules list")\n');
  });

  it('plegscope PATH suggests analyze; an unknown word lists the commands', () => {
    const r = cli(['some/path', '--year', '2024']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('plegscope: "some/path" is not a command; to analyze it: plegscope analyze some/path --year 2024\n');
    const w = cli(['frobnicate']);
    expect(w.code).toBe(2);
    expect(w.stderr).toMatch(/^plegscope: unknown command "frobnicate" \(commands: analyze, rules, tui, .*scan.*; to analyze a file or folder: plegscope analyze PATH\)\n$/);
  });

  it('a subcommand\'s usage error points to its own --help; the root --help has examples', () => {
    const a = cli(['analyze', '--format', 'xx']);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('(run "plegscope analyze --help" for usage)');
    const s = cli(['rules', 'show', '--bogus']);
    expect(s.stderr).toContain('(run "plegscope rules show --help" for usage)');
    const h = cli(['--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/\nExamples:\n {2}# .*\n {2}plegscope analyze node3\//);
    expect(h.stdout).toContain('plegscope rules show runtime_timeout');
  });

  it('warnings name files as given (junk/a.txt); no message points into src/', () => {
    const junk = join(dir, 'junk');
    mkdirSync(junk);
    writeFileSync(join(junk, 'a.txt'), 'hello\n');
    const r = cli(['analyze', 'junk'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('first: junk/a.txt: not recognised');
    const pack = join(dir, 'pack.yaml');
    writeFileSync(pack, 'rules:\n  - id: x\n    cause: other\n    severity: low\n    title: t\n    explains: warning\n    when: [{fact: stall.cuont, op: ">=", value: 1}]\n    base: 0.5\n    evidence: []\n    summary: s\n    remediation: r\n');
    const p = cli(['analyze', SAMPLE, '--rules', pack]);
    expect(p.code).toBe(2);
    expect(p.stderr).toContain('stall.cuont');
    expect(p.stderr).toContain('"plegscope rules facts" lists them');
    expect(p.stderr).not.toMatch(/src\//);
    expect(cli(['rules', 'facts']).stdout).toMatch(/^ {2}stall\.count$/m);
  });
});

describe('one timeline for a fleet (issue 26.4)', () => {
  it('the text report draws every node on one axis: the flaps line up, unknown time has its own glyph', () => {
    const fx = writeFixture({ shiftMs: 0 });
    try {
      const t = cli(['analyze', fx.dir, '--year', '2024'], { env: { COLUMNS: '100' } }).stdout.split('\n');
      const at = t.findIndex((l) => /^ {2}Fleet timeline {2}█ stall {2}▒ NotReady {2}\| kubelet start {2}╌ no data$/.test(l));
      expect(at).toBeGreaterThan(0);
      const rows = t.slice(at + 1, at + 4);
      for (const r of rows) expect(r).toMatch(/^ {2}worker-\d +[|·█▒╌]+$/);
      const bar = (r: string): string => r.replace(/^ {2}worker-\d +/, '');
      expect(new Set(rows.map((r) => bar(r).length)).size).toBe(1);
      const stalled = rows.filter((r) => r.includes('█'));
      expect(stalled.map((r) => r.trim().split(' ')[0])).toEqual(['worker-3', 'worker-5']);
      const cols = (b: string): number[] => [...b].flatMap((ch, i) => (ch === '█' ? [i] : []));
      expect(cols(bar(stalled[1]!)).some((i) => cols(bar(stalled[0]!)).includes(i))).toBe(true);
      expect(t[at + 4]).toMatch(/2024-03-11 09:30:00 \+00:00 +2024-03-11 10:\d\d:\d\d \+00:00$/);
    } finally {
      fx.cleanup();
    }
  });
});
