// What a person sees in a real terminal at 80×24 and 200×50 (issue 15): `plegscope tui` in tmux on three nodes with
// long look-alike cloud names (ip-172-20-31-10/11/12.eu-west-1.compute.internal) whose logs run across midnight.
// Screens are captured with their attributes (capture-pane -e): the cursor line is inverse, search matches are
// highlighted, columns are as wide as their contents and names stay apart, the finding's remedy expands, a log line
// opens in full, a filter counts its matches, and every line — help and footer included — fits the terminal.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cellsAt, HAS_TMUX, row, shq, text, tuiSession, type Cell } from './tmux.js';

const ROOT = join(__dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'plegscope');
const HOSTS: [string, string, string] = ['ip-172-20-31-10.eu-west-1.compute.internal', 'ip-172-20-31-11.eu-west-1.compute.internal', 'ip-172-20-31-12.eu-west-1.compute.internal'];
/** 10:00 → 23:55: the stall runs across midnight, the logs span 03-11 and 03-12. */
const SHIFT = (13 * 60 + 55) * 60_000;

const session = tuiSession({ hosts: HOSTS, shiftMs: SHIFT });
const { tm } = session;

function launch(name: string, cols: number, rows: number, env = ''): void {
  // CI=true on purpose: the TUI must draw frames and styles whatever CI variables say.
  tm.start(name, cols, rows, `cd ${shq(ROOT)} && CI=true ${env} ${shq(process.execPath)} ${shq(BIN)} tui ${shq(session.fx.dir)} --year 2024`);
}

const rowsOf = (screen: string) => screen.replace(/\n$/, '').split('\n');
const fits = (screen: string, cols: number) => rowsOf(screen).every((l) => [...l].length <= cols);

/** Lines of node ip-…-10's logs that contain `word`: what the filter must count. */
function grepCount(word: string): number {
  return ['kubelet.log', 'containerd.log', 'dmesg.log'].reduce((n, f) => n + readFileSync(join(session.fx.dir, HOSTS[0], f), 'utf8').split('\n').filter((l) => l.includes(word)).length, 0);
}

for (const [cols, rows] of [[80, 24], [200, 50]] as const) {
  describe.skipIf(!HAS_TMUX)(`tui at ${cols}×${rows} (tmux, attributes captured)`, () => {
    const S = `s${cols}`;

    it('overview: content-sized columns, look-alike names kept apart, the cursor line inverse, footer within the width', async () => {
      launch(S, cols, rows);
      const s = await tm.waitFor(S, (x) => x.includes('sorted by'), 'the overview', 30_000);
      expect(fits(s, cols)).toBe(true);
      const lines = rowsOf(s);
      const head = lines.find((l) => l.includes('NODE')) as string;
      const nodeRows = lines.filter((l) => /ip-172-20-31-1/.test(l) && /unhealthy|healthy/.test(l));
      expect(nodeRows).toHaveLength(3);
      // Every row's PLEG cell starts under its heading: one column width for all rows.
      const pleg = head.indexOf('PLEG');
      for (const r of nodeRows) expect(r.slice(pleg)).toMatch(/^(unhealthy|healthy)/);
      const names = nodeRows.map((r) => r.slice(2, pleg).trim());
      if (cols >= 200) {
        // Wide: the whole names, and the node column no wider than they are.
        expect(names.sort()).toEqual([...HOSTS].sort());
        expect(pleg).toBe(2 + HOSTS[0].length + 1);
      } else {
        // Narrow: cut in the middle, where they stay distinguishable; the node column stays readable.
        expect(new Set(names).size).toBe(3);
        for (const n of names) expect(n).toMatch(/^ip-172-20-31-1[012]…/);
        expect(pleg - 3).toBeGreaterThanOrEqual(20);
      }
      expect(head).toMatch(/CAUSE +CONF/);
      expect(head).toContain('FIRST STALL');
      // The first stall is on 03-11, the second after midnight: the column shows dates.
      expect(s).toMatch(/unhealthy +disk_io .* 03-11 23:55:00/);
      expect(s).toMatch(/unhealthy +runtime_timeout .* 03-12 00:00:00/);
      const footer = lines.at(-1) as string;
      expect(footer.trimEnd()).toMatch(/ \? help$/);
      // Attributes: the cursor row is inverse from edge to text end; the header bar too; other rows are not.
      const cells = tm.styled(S);
      const cursor = row(cells, /^▸ ip-172/);
      expect(cursor.filter((c) => c.ch !== ' ').every((c) => c.inverse)).toBe(true);
      expect(row(cells, /^ {2}ip-172/).some((c) => c.inverse)).toBe(false);
      expect(cellsAt(row(cells, /plegscope {2}Overview/), 'plegscope').every((c) => c.inverse && c.bold)).toBe(true);
      // Colours are on (no NO_COLOR): the unhealthy rows are red.
      expect(cellsAt(cursor, 'unhealthy').every((c) => c.fg !== null)).toBe(true);
    }, 60_000);

    it('finding: the remedy takes the rows it needs, x shows it whole; references are listed', async () => {
      await tm.keys(S, 'Enter');
      await tm.waitFor(S, (x) => x.includes('1:Findings (2)'), 'the node view');
      await tm.keys(S, 'j', 'Enter');
      let s = await tm.waitFor(S, (x) => x.includes('Evidence (12 lines; rule runtime-hung-lists)'), 'the runtime finding');
      expect(fits(s, cols)).toBe(true);
      const last = 'a known runtime bug fixed in a newer release.';
      if (rows < 30) {
        // Too little room: the prose is cut with a hint, and five evidence rows stay.
        expect(s).toMatch(/… \d+ more lines: x reads all/);
        expect(s).not.toContain(last);
        expect(rowsOf(s).filter((l) => /^[▸ ] kubelet\.log:\d+ /.test(l))).toHaveLength(5);
      } else {
        expect(s).toContain(last);
        expect(s).toContain('See: https://developers.redhat.com/blog/2019/11/13/pod-lifecycle-event-generator');
      }
      await tm.keys(S, 'x');
      s = await tm.waitFor(S, (x) => x.includes('x or esc: back to the evidence'), 'the expanded finding');
      expect(s).toContain(last);
      expect(s).toContain('https://github.com/kubernetes/kubernetes/issues/45419');
      expect(s).not.toContain('Evidence (12 lines');
      await tm.keys(S, 'x');
      await tm.waitFor(S, (x) => x.includes('Evidence (12 lines'), 'the evidence again');
    }, 60_000);

    it('log: dates across midnight, a filter counts and highlights its matches, enter shows a line in full', async () => {
      await tm.keys(S, 'Escape');
      await tm.waitFor(S, (x) => x.includes('1:Findings (2)'), 'the node view');
      await tm.keys(S, 'l');
      let s = await tm.waitFor(S, (x) => /▸ Log/.test(x) && /^03-1[12] \d\d:\d\d:\d\d\.\d{3} /m.test(x), 'the log with dates');
      // The logs span two days: every row carries its date.
      const logRows = rowsOf(s).filter((l) => /^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} [KRN][FEWI ] /.test(l));
      expect(logRows.length).toBe(rows - 3 - 2);
      expect(fits(s, cols)).toBe(true);
      await tm.keys(S, '/');
      await tm.type(S, 'Probe');
      await tm.keys(S, 'Enter');
      const total = grepCount('Probe');
      expect(total).toBeGreaterThan(100);
      s = await tm.waitFor(S, (x) => new RegExp(`/Probe/ only matches · match \\d+ of ${total}\\b`).test(x), `the count (${total})`);
      const cells = tm.styled(S);
      const sel = row(cells, /^03-1\d .*Probe/);
      // The first listed line is the selected one: inverse outside the match; the match itself stands out.
      expect(cellsAt(sel, '03-1').every((c) => c.inverse)).toBe(true);
      const other = cells.filter((r) => /^03-1\d .*Probe/.test(text(r)))[1] as Cell[];
      const hit = cellsAt(other, 'Probe');
      expect(hit.every((c) => c.bold && c.underline && c.bg === '43' && c.fg === '30')).toBe(true);
      expect(cellsAt(other, 'failed').some((c) => c.bg !== null || c.underline)).toBe(false);
      expect(cellsAt(sel, 'Probe').every((c) => c.bg === '43' && c.underline)).toBe(true);
      // n moves to the next match: its place among all of them follows.
      const k = Number(/match (\d+) of/.exec(s)?.[1]);
      await tm.keys(S, 'n');
      await tm.waitFor(S, (x) => x.includes(`match ${k + 1} of ${total}`), 'the next match');
      // enter: the selected line in full, field by field.
      await tm.keys(S, 'Enter');
      s = await tm.waitFor(S, (x) => /^as read +/m.test(x), 'the line detail');
      expect(s).toMatch(/^time +2024-03-1[12] \d\d:\d\d:\d\d \+00:00/m);
      // Values wrap under themselves (at words): the path may go on the next row.
      expect(s).toMatch(/^source +K kubelet ·\s+ip-172-20-31-10\.eu-west-1\.compute\.internal\/kubelet\.log:\d+/m);
      expect(s).toMatch(/^level +I info/m);
      expect(s).toMatch(/^host +ip-172-20-31-10\.eu-west-1\.compute\.internal/m);
      expect(s).toMatch(/^message +Probe failed/m);
      expect(s).toMatch(/^probeType +Readiness/m);
      expect(fits(s, cols)).toBe(true);
      await tm.keys(S, 'Escape');
      await tm.waitFor(S, (x) => !/^as read/m.test(x) && x.includes('/Probe/'), 'the list again');
      // A time that does not exist is an error, like one that does not parse.
      await tm.keys(S, 't');
      await tm.type(S, '25:00');
      await tm.keys(S, 'Enter');
      s = await tm.waitFor(S, (x) => x.includes('"25:00" is not a time of day'), 'the time error');
      const status = row(tm.styled(S), /"25:00" is not a time of day/);
      expect(cellsAt(status, '25:00').every((c) => c.fg === '31')).toBe(true);
    }, 60_000);

    it('help explains the codes and fits the width; :time moves the timeline cursor; a gap shows its commands unwrapped', async () => {
      await tm.keys(S, '?');
      let s = await tm.waitFor(S, (x) => x.includes('esc or ? closes this help'), 'the help');
      expect(fits(s, cols)).toBe(true);
      // Longer than 24 rows: it scrolls (G: to its end).
      if (rows < 30) {
        expect(s).toMatch(/lines 1–\d+ of \d+ \(j\/k\)/);
        await tm.keys(S, 'G');
        s = await tm.waitFor(S, (x) => x.includes('Log columns'), 'the end of the help');
        expect(fits(s, cols)).toBe(true);
      }
      expect(s).toContain('K kubelet, R container runtime, N kernel');
      expect(s).toMatch(/F fatal, E error, W warning, I info/);
      await tm.keys(S, 'Escape', 'i');
      await tm.waitFor(S, (x) => x.includes('1:Findings (2)'), 'the timeline');
      await tm.keys(S, ':');
      await tm.type(S, 'time 03-12 00:01');
      await tm.keys(S, 'Enter');
      s = await tm.waitFor(S, (x) => x.includes('▲ 03-12 00:01:00'), 'the cursor at 00:01');
      await tm.keys(S, '4', 'Enter');
      s = await tm.waitFor(S, (x) => x.includes('Missing: kubelet metrics'), 'the gap');
      const cmd = rowsOf(s).find((l) => l.startsWith(' $ ')) as string;
      expect(cmd).toMatch(/^ \$ kubectl get --raw \/api\/v1\/nodes\/ip-172-20-31-10\.eu-west-1\.compute\.int/);
      if (cols < 100) {
        // Wider than the screen: cut at its end, never wrapped onto the next row; → scrolls it.
        expect(cmd.endsWith('…')).toBe(true);
        expect(rowsOf(s)[rowsOf(s).indexOf(cmd) + 1]?.trim()).toBe('');
        await tm.keys(S, 'Right');
        s = await tm.waitFor(S, (x) => /\$ …/.test(x), 'the command scrolled');
        await tm.keys(S, 'End');
        s = await tm.waitFor(S, (x) => x.includes('%Y%m%dT%H%M%SZ).metrics'), 'the end of the command');
        expect(fits(s, cols)).toBe(true);
      } else {
        expect(cmd).toContain('> ip-172-20-31-10.eu-west-1.compute.internal-$(date -u +%Y%m%dT%H%M%SZ).metrics');
      }
      await tm.keys(S, 'q');
      await tm.waitDead(S);
    }, 60_000);
  });
}

describe.skipIf(!HAS_TMUX)('tui under NO_COLOR (80×24)', () => {
  it('keeps inverse, bold and underline (they are not colour) and drops every colour', async () => {
    launch('nc', 80, 24, 'NO_COLOR=1');
    await tm.waitFor('nc', (x) => x.includes('sorted by'), 'the overview', 30_000);
    let cells = tm.styled('nc');
    expect(row(cells, /^▸ ip-172/).filter((c) => c.ch !== ' ').every((c) => c.inverse)).toBe(true);
    await tm.keys('nc', 'Enter', 'l', '/');
    await tm.type('nc', 'Probe');
    await tm.keys('nc', 'Enter');
    await tm.waitFor('nc', (x) => / of \d+/.test(x) && x.includes('/Probe/'), 'the filter');
    cells = tm.styled('nc');
    const other = cells.filter((r) => /^03-1\d .*Probe/.test(text(r)))[1] as Cell[];
    expect(cellsAt(other, 'Probe').every((c) => c.bold && c.underline)).toBe(true);
    expect(cells.flat().every((c) => c.fg === null && c.bg === null)).toBe(true);
    await tm.keys('nc', 'q');
    await tm.waitDead('nc');
  }, 60_000);
});

describe.skipIf(!HAS_TMUX)('tui on an input with nothing to analyze', () => {
  it('fails like analyze: one line, exit 2, the terminal given back', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'plegscope-empty-'));
    try {
      const out = join(empty, 'out');
      tm.start('empty', 80, 24, `cd ${shq(ROOT)} && ${shq(process.execPath)} ${shq(BIN)} tui ${shq(empty)} 2> ${shq(out + '.err')}; echo "exit=$?" > ${shq(out)}`);
      await tm.waitDead('empty');
      expect(readFileSync(out, 'utf8').trim()).toBe('exit=2');
      const err = readFileSync(out + '.err', 'utf8');
      expect(err).toMatch(/^plegscope: .*: nothing to analyze: no kubelet, runtime or kernel log, metrics snapshot or goroutine dump recognised/);
      expect(err.trim().split('\n').filter((l) => l.startsWith('plegscope:'))).toHaveLength(1);
      expect(tm.screen('empty')).not.toContain('plegscope  Overview');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  }, 60_000);
});
