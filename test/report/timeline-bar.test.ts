// The shared one-line timeline (issue 26.4): time a node's input does not cover, or does not decide, is "no data" —
// neither a stall nor healthy — on the node's own axis and on the fleet's.
import { describe, expect, it } from 'vitest';
import { fleetTimeline, NO_DATA, timelineBar } from '../../src/report/timeline-bar.js';
import type { NodeReport } from '../../src/contract/analysis.js';

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
