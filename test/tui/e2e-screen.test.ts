// The TUI uses its screen (issue 26.3), in tmux as a person sees it: at 80×24 the sample's Operations table shows all of
// its five operation rows (the legend is in `?`), and a reference read in full (`x`) ends as the URL ends; at 200×50 the
// node view shows findings, stalls and operations together, the overview draws the fleet on one time axis, and a gap's
// commands are copied (OSC 52) and printed on exit. One session per size; the keys walk through the checks.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { HAS_TMUX, shq, tuiSession } from './tmux.js';

const ROOT = join(__dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'plegscope');
const SAMPLE = join(ROOT, 'fixtures', 'sample-incident');
const RH_BLOG = 'https://developers.redhat.com/blog/2019/11/13/pod-lifecycle-event-generator-understanding-the-pleg-is-not-healthy-issue-in-kubernetes';

const session = tuiSession();
const { tm } = session;
const rowsOf = (screen: string): string[] => screen.replace(/\n$/, '').split('\n');

describe.skipIf(!HAS_TMUX)('the TUI uses its screen (issue 26.3)', () => {
  it('80×24: every operation row of the sample, the cells explained in ?, tab labels, a reference whole in read-all', async () => {
    tm.start('small', 80, 24, `cd ${shq(ROOT)} && ${shq(process.execPath)} ${shq(BIN)} tui ${shq(SAMPLE)}`);
    await tm.waitFor('small', (x) => x.includes('sorted by'), 'the overview', 30_000);
    await tm.keys('small', 'Enter');
    const node = await tm.waitFor('small', (x) => x.includes('1:Findings (2)'), 'the node view');
    expect(node).toMatch(/1:Findings \(2\) {2}2:Stalls \(1\) {2}3:Ruled out \(\d\) {2}4:Gaps \(\d\) {2}5:Operations \(5\)/);
    await tm.keys('small', '5');
    const ops = await tm.waitFor('small', (x) => /operation +calls/.test(x), 'the operations table');
    const rows = rowsOf(ops);
    expect(rows).toHaveLength(24);
    for (const op of ['exec_sync', 'list_containers', 'list_podsandbox', 'status', 'version']) {
      expect(rows.filter((r) => new RegExp(`^[▸ ] ${op} +\\d`).test(r)), op).toHaveLength(1);
    }
    await tm.keys('small', '?');
    let help = await tm.waitFor('small', (x) => x.includes('esc or ? closes this help'), 'the help');
    for (let i = 0; i < 12 && !help.includes('Operations (cells)'); i++) {
      await tm.keys('small', 'j', 'j', 'j');
      help = await tm.waitFor('small', (x) => x.includes('esc or ? closes this help'), 'the help');
    }
    expect(help).toContain('Operations (cells)');
    await tm.keys('small', 'Escape', '1', 'Enter');
    await tm.waitFor('small', (x) => x.includes('x reads all') || x.includes('Remedy:'), 'the finding');
    await tm.keys('small', 'x');
    let full = await tm.waitFor('small', (x) => x.includes('x or esc: back'), 'read all');
    for (let i = 0; i < 10 && !full.includes('issue-in-kubernetes'); i++) {
      await tm.keys('small', 'j', 'j', 'j', 'j', 'j');
      full = await tm.waitFor('small', (x) => x.includes('x or esc: back'), 'read all');
    }
    // The URL in pieces of the screen's width, none of them cut with …: joined, the whole address.
    const lines = rowsOf(full).map((l) => l.trim());
    const start = lines.findIndex((l) => l.startsWith('See: https://developers.redhat.com'));
    expect(start).toBeGreaterThanOrEqual(0);
    let url = lines[start]!.slice(5);
    for (let i = start + 1; !url.endsWith('kubernetes') && i < lines.length; i++) url += lines[i];
    expect(url).toBe(RH_BLOG);
    expect(full).not.toMatch(/developers\.redhat\.com\S*…/);
  });

  it('200×50: findings, stalls, ruled out, gaps and operations one under the other', async () => {
    tm.start('big', 200, 50, `cd ${shq(ROOT)} && ${shq(process.execPath)} ${shq(BIN)} tui ${shq(session.fx.dir)} --year 2024`);
    const overview = await tm.waitFor('big', (x) => x.includes('sorted by'), 'the overview', 30_000);
    // The overview's spare columns: every node on one time axis (issue 26.4), the two stalls overlapping.
    expect(overview).toMatch(/ TIMELINE 03-11 09:30:00 → 03-11 10:29:58/);
    const bars = rowsOf(overview).filter((r) => /ip-172|worker-/.test(r) && /[|·█]{40}/.test(r)).map((r) => r.slice(r.search(/[|·█▒╌]{20}/)));
    expect(bars).toHaveLength(3);
    const stalled = bars.filter((b) => b.includes('█'));
    expect(stalled).toHaveLength(2);
    const cols = (b: string): Set<number> => new Set([...b].flatMap((ch, i) => (ch === '█' ? [i] : [])));
    expect([...cols(stalled[1]!)].some((i) => cols(stalled[0]!).has(i))).toBe(true);
    await tm.keys('big', 'Enter');
    const s = await tm.waitFor('big', (x) => x.includes('1:Findings (2)'), 'the node view');
    const rows = rowsOf(s);
    const at = (title: RegExp): number => rows.findIndex((r) => title.test(r));
    const blocks = [/^ Findings \(\d+\) *$/, /^ Stalls \(\d+\) *$/, /^ Ruled out \(\d+\) *$/, /^ Gaps \(\d+\) *$/, /^ Operations \(\d+\) *$/].map(at);
    for (const b of blocks) expect(b).toBeGreaterThan(0);
    expect([...blocks].sort((a, b) => a - b)).toEqual(blocks);
    // Each block's rows are under its title: the stall, the operation.
    expect(rows[blocks[1]! + 1]).toMatch(/without a relist/);
    expect(rows.slice(blocks[4]!).join('\n')).toMatch(/list_podsandbox +\d/);
    // The selected section's title is the inverse one; j moves in it (the stall section then).
    await tm.keys('big', '2');
    const moved = await tm.waitFor('big', (x) => /^▸ .*without a relist/m.test(x), 'the stall selected');
    expect(rowsOf(moved).filter((r) => r.startsWith('▸ '))).toHaveLength(1);
    // A gap's commands: y copies them (OSC 52) and they are printed, whole, when the TUI exits.
    await tm.keys('big', '4', 'Enter');
    const gap = await tm.waitFor('big', (x) => x.includes('Missing:'), 'the gap');
    expect(gap).toMatch(/y copy/);
    await tm.keys('big', 'y');
    await tm.waitFor('big', (x) => x.includes('copied to the clipboard (OSC 52)'), 'the copy message');
    await tm.keys('big', 'q');
    await tm.waitDead('big');
    // (With the pane's history: the line before the commands may have scrolled out of the visible screen.)
    const after = tm.run('capture-pane', '-p', '-S', '-100', '-t', 'big').out;
    expect(after).toMatch(/^# commands copied in plegscope tui:\nkubectl get --raw \/api\/v1\/nodes\/worker-3\/proxy\/metrics > worker-3-\$\(date -u \+%Y%m%dT%H%M%SZ\)\.metrics$/m);
  });
});
