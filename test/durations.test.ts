// Issue 22.5: one duration per stall — from its last good relist to the first relist after it ("at least" to the end
// of the input, "about" for an end between two lines) — in every view: the per-node stall lines, the cluster summary's
// waves (text, Markdown, HTML, JUnit, JSON) and the TUI. Where the PLEG-unhealthy window is shown it says so.
// bin/plegscope on multi-node inputs, as users run it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Analysis, Stall } from '../src/contract/analysis.js';
import { fmtDuration } from '../src/report/layout.js';
import { cli, BIN } from './helpers/cli.js';
import { writeBundle } from './bundles/fixtures.js';
import { mustGather } from './helpers/multinode.js';
import { HAS_TMUX, shq, Tmux } from './tui/tmux.js';

vi.setConfig({ testTimeout: 120_000 });

const SAMPLE = path.join(__dirname, '..', 'fixtures', 'sample-incident');

/** The sample incident on two nodes (node-a, node-b): the same stall, 10:07:12 → 10:21:27, unhealthy from 10:10:12. */
function twoNodes(dir: string): string {
  const root = path.join(dir, 'two');
  for (const n of ['node-a', 'node-b']) {
    fs.mkdirSync(path.join(root, n), { recursive: true });
    for (const f of fs.readdirSync(SAMPLE)) fs.writeFileSync(path.join(root, n, f), fs.readFileSync(path.join(SAMPLE, f), 'utf8').replaceAll('worker-3', n));
  }
  return root;
}

const said = (s: Stall): string => {
  const d = fmtDuration(s.durationSeconds);
  return s.endedBy === 'unknown' || s.endedBy === 'end-of-log' ? `at least ${d}` : s.endedBetween ? `about ${d}` : d;
};

describe('one duration per stall, in every view', () => {
  let dir: string;
  const inputs: Record<string, string> = {};
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plegscope-durations-'));
    inputs['the sample on two nodes'] = twoNodes(dir);
    inputs['a must-gather, two masters stalled'] = await writeBundle(dir, 'mg', mustGather(), 'dir');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const name of ['the sample on two nodes', 'a must-gather, two masters stalled']) {
    it(`${name}: text, Markdown, HTML, JUnit and the JSON cluster summary give the stall's duration`, () => {
      const input = inputs[name] as string;
      const a = JSON.parse(cli(['analyze', input, '--format', 'json']).stdout) as Analysis;
      const stalls = a.nodes.flatMap((n) => n.stalls);
      expect(stalls.length).toBeGreaterThanOrEqual(2);
      // The JSON cluster summary: the wave as a stall, from the earliest last relist, as long as its stalls.
      const waves = a.cluster?.waves ?? [];
      expect(waves.length).toBe(1);
      const w = waves[0] as NonNullable<typeof waves[0]>;
      expect(w.lastRelistAt).toBe(stalls.map((s) => s.lastRelistAt as string).sort()[0]);
      expect(w.durationSeconds).toBe(Math.max(...stalls.map((s) => s.durationSeconds)));
      expect(w.from).toBe(stalls.map((s) => s.unhealthyFrom as string).sort()[0]);
      const duration = said(stalls[0] as Stall);
      // The unhealthy window's own length, which no view may give as the stall's.
      const window = fmtDuration((Date.parse(w.to as string) - Date.parse(w.from)) / 1000);
      expect(window).not.toBe(fmtDuration(w.durationSeconds as number));

      for (const format of ['text', 'markdown', 'html', 'junit'] as const) {
        // Words as the reader reads them: wrapped lines joined, HTML's tags out.
        const out = cli(['analyze', input, '--format', format]).stdout.replace(/<[^>]*>/g, '').replace(/\s+/g, ' ');
        // The cluster sentence: the stall from the last relist with its duration, the unhealthy time labelled.
        expect(out, format).toMatch(new RegExp(`from the last relist [^()]*?, ${duration} without a relist \\(PLEG unhealthy from `));
        expect(out, format).not.toContain(`(${window})`);
        expect(out, format).not.toMatch(new RegExp(`\\b${window}\\b`));
        // Each node's stall gives the same duration.
        if (format !== 'junit') expect(out.split(duration).length - 1, format).toBeGreaterThanOrEqual(stalls.length);
      }
    });
  }

  it.skipIf(!HAS_TMUX)('the TUI gives the stall from its last relist, the same duration in the same words, the unhealthy time labelled', async () => {
    const tm = new Tmux();
    try {
      const input = inputs['the sample on two nodes'] as string;
      tm.start('dur', 120, 30, `CI=true ${shq(process.execPath)} ${shq(BIN)} tui ${shq(input)}`);
      await tm.waitFor('dur', (x) => x.includes('sorted by'), 'the overview', 30_000);
      await tm.keys('dur', 'Enter');
      await tm.waitFor('dur', (x) => x.includes('1:Findings'), 'the node view', 15_000);
      await tm.keys('dur', '2');
      const s = await tm.waitFor('dur', (x) => x.includes('without a relist'), 'the stalls section', 15_000);
      expect(s).toMatch(/10:07:12 → 10:21:27 +14m15s without a relist +recovered +NotReady +unhealthy from 10:10:12/);
      expect(s).not.toContain('11m15s');
      expect(s).not.toMatch(/≥|≈\d/);
    } finally {
      tm.kill();
    }
  }, 90_000);
});
