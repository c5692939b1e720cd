// The shared one-line timeline (issue 26.4): time a node's input does not cover, or does not decide, is "no data" —
// neither a stall nor healthy — on the node's own axis and on the fleet's.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fleetTimeline, NO_DATA, timelineBar } from '../../src/report/timeline-bar.js';
import type { NodeReport } from '../../src/contract/analysis.js';
import { cli } from '../helpers/cli.js';
import { at, kl, lines, skipLines, syncLoopEvent, writeFolder } from '../helpers/scenario.js';

const node = (name: string, from: string, to: string, stalls: Array<Partial<NodeReport['stalls'][number]>> = []): NodeReport => ({
  name, coverage: { from, to, truncated: false, roles: [] }, window: { start: from, end: to },
  stalls: stalls as NodeReport['stalls'], notReady: [], restarts: [],
} as unknown as NodeReport);

describe('timelineBar', () => {
  it('on a shared axis, before a node\'s log starts and after it ends is no data', () => {
    const n = node('b', '2024-03-11T10:30:00Z', '2024-03-11T11:00:00Z');
    const bar = timelineBar(n, 40, { a: Date.parse('2024-03-11T10:00:00Z'), b: Date.parse('2024-03-11T12:00:00Z') }) as string;
    expect(bar).toBe(NO_DATA.repeat(10) + '·'.repeat(10) + NO_DATA.repeat(20));
  });

  it('a stall whose end lies between two lines: stall up to the last unhealthy line, no data up to the next line', () => {
    const n = node('a', '2024-03-11T10:00:00Z', '2024-03-11T11:00:00Z', [
      { unhealthyFrom: '2024-03-11T10:15:00Z', endedAt: null, endedBetween: { from: '2024-03-11T10:30:00Z', to: '2024-03-11T10:45:00Z' } },
    ]);
    expect(timelineBar(n, 4)).toBe(`·█${NO_DATA}·`);
    expect(timelineBar(n, 60)).toMatch(new RegExp(`^·{15}█{15}${NO_DATA}{15}·{15}$`));
  });

  it('the fleet: stalled nodes first, one axis over all of them', () => {
    const f = fleetTimeline([
      node('quiet', '2024-03-11T10:00:00Z', '2024-03-11T11:00:00Z'),
      node('flap', '2024-03-11T10:30:00Z', '2024-03-11T12:00:00Z', [{ unhealthyFrom: '2024-03-11T11:00:00Z', endedAt: '2024-03-11T11:30:00Z' }]),
    ], 8)!;
    expect(f.axis).toEqual({ a: Date.parse('2024-03-11T10:00:00Z'), b: Date.parse('2024-03-11T12:00:00Z') });
    expect(f.rows.map((r) => [r.name, r.cells])).toEqual([['flap', `${NO_DATA}${NO_DATA}··██··`], ['quiet', `····${NO_DATA.repeat(4)}`]]);
  });
});

describe('the HTML node timeline', () => {
  it('shades the time the input does not decide as the text bar draws ╌: the stall stops at its last unhealthy line', () => {
    const root = mkdtempSync(join(tmpdir(), 'plegscope-nodata-'));
    try {
      // Unhealthy lines that just stop; the next line showing the kubelet at work comes 84 s later.
      const ls = [kl(at('03:00:00'), 'I', 'kubelet.go:1', '"start"'), ...skipLines(at('03:10:00'), at('03:19:06')), syncLoopEvent(at('03:20:30')), kl(at('03:40:00'), 'I', 'kubelet.go:1', '"x"')];
      const dir = writeFolder(root, 'end', { 'kubelet.log': lines(ls) });
      const page = join(root, 'r.html');
      expect(cli(['analyze', dir, '--year', '2024', '-o', page]).code).toBeGreaterThanOrEqual(0);
      const json = JSON.parse(cli(['analyze', dir, '--year', '2024', '--format', 'json']).stdout);
      const between = json.nodes[0].stalls[0].endedBetween as { from: string; to: string };
      expect(between.to).toBe('2024-03-11T03:20:30.000Z');
      const html = readFileSync(page, 'utf8');
      const shade = /<g class="nodata-at" data-from="([^"]+)" data-to="([^"]+)"><rect class="nodata" x="([\d.]+)" y="0" width="([\d.]+)"/.exec(html);
      expect(shade?.slice(1, 3)).toEqual([between.from, between.to]);
      const stall = /<rect class="stall"[^>]* x="([\d.]+)" y="3" width="([\d.]+)"/.exec(html);
      expect(Number(stall![1]) + Number(stall![2])).toBeCloseTo(Number(shade![3]), 0);
      expect(html).toContain('no data (the input does not say)');
      // A node whose stalls all have a known end has no shading and no legend entry for it.
      const ok = writeFolder(root, 'ok', { 'kubelet.log': lines([...skipLines(at('03:10:00'), at('03:19:06')), syncLoopEvent(at('03:19:08')), kl(at('03:40:00'), 'I', 'kubelet.go:1', '"x"')]) });
      const page2 = join(root, 'ok.html');
      cli(['analyze', ok, '--year', '2024', '-o', page2]);
      const html2 = readFileSync(page2, 'utf8');
      expect(html2).toContain('class="stall"');
      expect(html2).not.toContain('nodata-at');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
});
