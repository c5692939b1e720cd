// Weak alternatives in a real terminal (issue 14.8): `plegscope tui` in tmux at 80×24, the node's findings list captured
// with its attributes. The established finding reads in full colour; the "also considered" heading row is dim, and so
// is the weak alternative's text, its severity (lowered from the rule's critical) still in its colour.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { cellsAt, HAS_TMUX, row, shq, tuiSession } from './tmux.js';

const ROOT = join(__dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'plegscope');

const session = tuiSession();
const { tm } = session;

describe.skipIf(!HAS_TMUX)('weak alternatives in the TUI (tmux, attributes captured)', () => {
  it('the "also considered" row and the weak finding are dim, its lowered severity in the colour of that severity', async () => {
    tm.start('wc', 80, 24, `cd ${shq(ROOT)} && CI=true ${shq(process.execPath)} ${shq(BIN)} tui ${shq(session.fx.dir)} --year 2024`);
    await tm.waitFor('wc', (x) => x.includes('sorted by'), 'the overview', 30_000);
    await tm.keys('wc', 'Enter');
    await tm.waitFor('wc', (x) => x.includes('1:Findings (2)'), 'the node view');
    const cells = tm.styled('wc');
    const established = row(cells, /HIGH +79% disk_io/);
    expect(cellsAt(established, 'Storage stalled').every((c) => !c.dim)).toBe(true);
    const heading = row(cells, /^ {2}also considered — weak: confidence below 0\.50 or evidence against/);
    expect(cellsAt(heading, 'also considered').every((c) => c.dim)).toBe(true);
    const weak = row(cells, /MEDIUM +63% runtime_timeout/);
    // Yellow, as every medium finding; bold, not dim. The rest of the row dim.
    expect(cellsAt(weak, 'MEDIUM').every((c) => c.fg === '33' && c.bold && !c.dim)).toBe(true);
    expect(cellsAt(weak, 'runtime_timeout').every((c) => c.dim)).toBe(true);
    await tm.keys('wc', 'q');
    await tm.waitDead('wc', 10_000);
  }, 60_000);
});
