// The Log view's keys as less and lnav users have them (issue 26.3), in tmux: `/` jumps to the next match and keeps the
// lines around it, `&!` hides matching lines and `f` toggles the filter, `m a` / `' a` mark a line and come back to it,
// and `F` follows the file as lines are appended to it while the TUI runs. One session.
import { describe, expect, it } from 'vitest';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HAS_TMUX, shq, tuiSession } from './tmux.js';
import { at, kl, lines } from '../helpers/scenario.js';

const ROOT = join(__dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'plegscope');
const session = tuiSession();
const { tm } = session;
const S = 'keys';
const rowsOf = (screen: string): string[] => screen.replace(/\n$/, '').split('\n');
const logRows = (screen: string): string[] => rowsOf(screen).filter((l) => /^\d\d:\d\d:\d\d\.\d{3}[ a-z][KRN][FEWI ] /.test(l));
/** The Log view's status line: the selected line's source and line number. */
const where = (screen: string): string => rowsOf(screen).at(-2)?.trim() ?? '';

describe.skipIf(!HAS_TMUX)('Log view keys (issue 26.3)', () => {
  it('search jumps, filter-out hides, marks come back, follow shows appended lines', async () => {
    const kubelet = join(session.fx.dir, 'worker-3', 'kubelet.log');
    const nLines = readFileSync(kubelet, 'utf8').split('\n').length - 1;
    tm.start(S, 120, 30, `cd ${shq(ROOT)} && ${shq(process.execPath)} ${shq(BIN)} tui ${shq(session.fx.dir)} --year 2024`);
    await tm.waitFor(S, (x) => x.includes('sorted by'), 'the overview', 30_000);
    await tm.keys(S, ':');
    await tm.type(S, 'log worker-3');
    await tm.keys(S, 'Enter');
    let s = await tm.waitFor(S, (x) => /▸ Log/.test(x) && logRows(x).length > 0, 'the log');

    // `/`: the screen keeps every line; the selected one is the match.
    await tm.keys(S, '/');
    await tm.type(S, 'event="NodeReady"');
    await tm.keys(S, 'Enter');
    s = await tm.waitFor(S, (x) => x.includes('/event="NodeReady"/ · match 1 of 1'), 'the search');
    expect(logRows(s).length).toBe(30 - 3 - 2);
    expect(logRows(s).filter((l) => !l.includes('event="NodeReady"')).length).toBeGreaterThan(10);
    const ready = where(s);
    expect(ready).toMatch(/^K \S*worker-3\/kubelet\.log:\d+$/);

    // `&!`: lines with "Probe" are hidden; `f` shows them again, the filter kept.
    await tm.keys(S, '&');
    await tm.type(S, '!Probe');
    await tm.keys(S, 'Enter');
    s = await tm.waitFor(S, (x) => x.includes('filter &!Probe') && !x.includes('filter off'), 'the filter-out');
    expect(logRows(s).length).toBe(30 - 3 - 2);
    expect(logRows(s).some((l) => l.includes('Probe'))).toBe(false);
    await tm.keys(S, 'f');
    s = await tm.waitFor(S, (x) => x.includes('filter off (f) &!Probe') && logRows(x).some((l) => l.includes('Probe')), 'the filter off');

    // Marks: `m a` on the line the search found (f kept it selected), to the first line and back with `' a`.
    expect(where(s)).toBe(ready);
    await tm.keys(S, 'm', 'a');
    s = await tm.waitFor(S, (x) => x.includes('mark a set'), 'the mark');
    const marked = ready;
    expect(logRows(s).filter((l) => /^\d\d:\d\d:\d\d\.\d{3}a/.test(l))).toEqual([expect.stringContaining('event="NodeReady"')]);
    await tm.keys(S, 'g');
    await tm.waitFor(S, (x) => where(x) !== marked, 'the first line');
    await tm.keys(S, "'", 'a');
    s = await tm.waitFor(S, (x) => where(x) === marked, 'back at the mark');
    await tm.keys(S, "'", 'b');
    await tm.waitFor(S, (x) => x.includes('no mark b (marks: a)'), 'an unset mark');

    // `F`: the end of the log; lines appended to the file while the TUI runs appear and the view stays at the end.
    await tm.keys(S, 'Escape', 'F');
    s = await tm.waitFor(S, (x) => x.includes('following (F stops)') && where(x).endsWith(`kubelet.log:${nLines}`), 'follow at the end');
    const add = (from: number, n: number) => appendFileSync(kubelet, lines(Array.from({ length: n }, (_, i) =>
      kl(at('10:40:00') + (from + i) * 1000, 'I', 'kubelet.go:2400', `"followed line" n=${from + i}`, { host: 'worker-3', pid: 2817 }))));
    add(1, 3);
    s = await tm.waitFor(S, (x) => x.includes('"followed line" n=3') && where(x).endsWith(`kubelet.log:${nLines + 3}`), 'the appended lines');
    add(4, 40);
    s = await tm.waitFor(S, (x) => x.includes('"followed line" n=43') && where(x).endsWith(`kubelet.log:${nLines + 43}`), 'more appended lines');
    expect(logRows(s).at(-1)).toContain('"followed line" n=43');
    // Moving up stops following.
    await tm.keys(S, 'k');
    await tm.waitFor(S, (x) => !x.includes('following') && where(x).endsWith(`kubelet.log:${nLines + 42}`), 'follow stopped');
    await tm.keys(S, 'q');
    await tm.waitDead(S);
  }, 90_000);
});
