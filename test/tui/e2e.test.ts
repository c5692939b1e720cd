// The real binary in a real terminal: tmux runs `plegscope tui` on a three-node fixture; keys go in with send-keys,
// the screen comes out with capture-pane. Needs `npm run build` (npm test does it) and tmux
// (scripts/install-test-deps.sh installs it); skipped only when tmux is missing.
// PLEGSCOPE_TUI_BIN runs another launcher instead of bin/plegscope (for trying a build elsewhere).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { HAS_TMUX, shq, tuiSession } from './tmux.js';

const ROOT = join(__dirname, '..', '..');
const BIN = process.env['PLEGSCOPE_TUI_BIN'] ?? join(ROOT, 'bin', 'plegscope');

const session = tuiSession();
const { tm } = session;

const screen = () => tm.screen('tui');
const waitFor = (test: (s: string) => boolean, what: string, ms = 15_000) => tm.waitFor('tui', test, what, ms);
const keys = (...ks: string[]) => tm.keys('tui', ...ks);

describe('plegscope tui in a real terminal', () => {
  it.skipIf(!HAS_TMUX)('drills from the overview to an evidence line in the log and quits cleanly (skipped when tmux is not installed)', async () => {
    // CI=true on purpose: ink draws only a last frame under CI unless the command sees a terminal and says otherwise.
    const codeFile = join(session.fx.dir, 'exit-code');
    const cmd = `cd ${shq(ROOT)} && CI=true ${shq(process.execPath)} ${shq(BIN)} tui ${shq(session.fx.dir)} --year 2024; echo "exit=$?" > ${shq(codeFile)}`;
    tm.start('tui', 100, 30, cmd);

    let s = await waitFor((x) => x.includes('sorted by'), 'the overview', 30_000);
    expect(s).toMatch(/^ plegscope {2}Overview +UTC/m);
    expect(s).toMatch(/▸ worker-3 +unhealthy +disk_io +79%/);
    expect(s).toMatch(/worker-5 +unhealthy +runtime_timeout/);
    expect(s).toMatch(/worker-1 +healthy/);

    await keys('Enter');
    s = await waitFor((x) => x.includes('1:Findings (2)'), 'the node view');
    expect(s).toMatch(/PLEG +\|·+█+·+/);

    await keys('Enter');
    s = await waitFor((x) => x.includes('Evidence (9 lines'), 'the finding');
    await keys('j');
    await waitFor((x) => x.includes(' worker-3/kubelet.log:964'), 'the second evidence line selected');

    await keys('Enter');
    s = await waitFor((x) => x.includes('K worker-3/kubelet.log:964'), 'the log at the evidence line');
    expect(s).toContain('Overview ▸ worker-3 ▸ disk-io-stall ▸ Log');
    expect(s).toMatch(/^3 logs · 2024-03-11 10:02:00 \+00:00/m);
    expect(s).toMatch(/10:02:00\.250 KE remote_runtime\.go:294\] "ListPodSandbox with filter from runtime service failed"/);
    // Context from the other files of the node, merged by time.
    expect(s).toMatch(/RE level=error msg="ListPodSandbox failed"/);

    await keys('q');
    await tm.waitDead('tui', 10_000);
    expect(readFileSync(codeFile, 'utf8').trim()).toBe('exit=0');
    // The alternate screen is gone: what is left is the (empty) normal screen, not the TUI.
    expect(screen()).not.toContain('plegscope  Overview');
  }, 60_000);

  it('refuses to run without a terminal and points to analyze (exit 2)', () => {
    const r = spawnSync(process.execPath, [BIN, 'tui', session.fx.dir], { encoding: 'utf8', input: '' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/plegscope tui: needs an interactive terminal \(stdout is not a TTY\); for a report use: plegscope analyze /);
    expect(r.stdout).toBe('');
  });
});
