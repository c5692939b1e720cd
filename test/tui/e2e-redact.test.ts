// `plegscope tui --redact` in a real terminal (issue 28.4): what a person sees — the overview, a finding's evidence, the
// merged log at an evidence line, its line detail — names no node; the pseudonyms are the ones analyze --redact gives.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { HAS_TMUX, shq, tuiSession } from './tmux.js';

const ROOT = join(__dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'plegscope');

const session = tuiSession();
const { tm } = session;

describe.skipIf(!HAS_TMUX)('tui --redact (tmux)', () => {
  it('no screen names a node, in the analysis or in the log lines; the pseudonyms are analyze --redact\'s', async () => {
    const report = spawnSync(process.execPath, [BIN, 'analyze', session.fx.dir, '--year', '2024', '--redact', '--format', 'json'], { encoding: 'utf8' });
    const pseudonyms = (JSON.parse(report.stdout) as { nodes: Array<{ name: string }> }).nodes.map((n) => n.name);
    expect(pseudonyms.length).toBeGreaterThan(1);
    const secret = /worker-\d/;
    tm.start('rd', 120, 40, `cd ${shq(ROOT)} && CI=true ${shq(process.execPath)} ${shq(BIN)} tui ${shq(session.fx.dir)} --year 2024 --redact`);
    let s = await tm.waitFor('rd', (x) => x.includes('sorted by'), 'the overview', 30_000);
    for (const p of pseudonyms) expect(s).toContain(p);
    expect(s).not.toMatch(secret);
    await tm.keys('rd', 'Enter');
    s = await tm.waitFor('rd', (x) => x.includes('1:Findings'), 'the node view');
    expect(s).not.toMatch(secret);
    await tm.keys('rd', 'Enter');
    s = await tm.waitFor('rd', (x) => x.includes('Evidence ('), 'the finding');
    expect(s).not.toMatch(secret);
    await tm.keys('rd', 'Enter');
    s = await tm.waitFor('rd', (x) => / ▸ Log/.test(x) && /PLEG is not healthy/.test(x), 'the log at the evidence line');
    expect(s).not.toMatch(secret);
    // The lines as read (journal prefix with the host), then one line's detail.
    await tm.keys('rd', 'v');
    s = await tm.waitFor('rd', (x) => / kubelet\[\d+\]: /.test(x), 'the lines as read');
    expect(s).not.toMatch(secret);
    await tm.keys('rd', 'Enter');
    s = await tm.waitFor('rd', (x) => x.includes('as read'), 'the line detail');
    expect(s).not.toMatch(secret);
    await tm.keys('rd', 'q');
    await tm.waitDead('rd', 10_000);
  }, 90_000);
});
