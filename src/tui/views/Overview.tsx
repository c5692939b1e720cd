// Overview: one row per node — verdict, primary cause, confidence, stalls, longest stall, when — sortable, filterable.
// Columns are as wide as what they hold; the node column gets the rest, and names too long for it are cut in the
// middle where that keeps look-alikes apart. On a narrow screen the least useful columns go first.
import { Box } from 'ink';
import type { TuiModel } from '../model.js';
import { fit, fitLeft, fmtPct, fmtTime, oneDay } from '../format.js';
import { longestStallText } from '../../report/cluster.js';
import { firstStallAt, overviewRows, type NavState, type SortKey } from '../state.js';
import { Blank, Line, SEVERITY_COLOR, T } from '../ui.js';
import { sanitizeLine } from '../../util/sanitize.js';
import { shortNames } from '../../report/layout.js';
import { fleetTimeline, NO_DATA, timelineBar } from '../../report/timeline-bar.js';
import { VERDICT_CELL, verdictKind } from '../../report/words.js';
import type { NodeReport } from '../../contract/analysis.js';

export function scrollTop(cursor: number, visible: number, len: number): number {
  if (len <= visible) return 0;
  return Math.max(0, Math.min(cursor - Math.floor(visible / 3), len - visible));
}

interface Col {
  key: SortKey;
  title: string;
  cell: (n: NodeReport) => string;
  right?: boolean;
  /** Dropped first (highest) when the node column would get too narrow; 0 never. */
  drop: number;
}

/** The node column never gets less than this while other columns can still go. */
const NODE_MIN = 24;

export interface OverviewLayout {
  cols: Array<Col & { width: number }>;
  nodeW: number;
  names: Map<string, string>;
  /** The fleet timeline column (a wide screen with two nodes or more): its width and each node's bar. */
  bars: { width: number; cells: Map<string, string>; axis: { a: number; b: number } } | null;
}

/** Column widths for these nodes at this terminal width. */
export function overviewLayout(model: TuiModel, o: NavState['overview'], cols: number): OverviewLayout {
  const reports = model.nodes.map((n) => n.report);
  const firsts = reports.map(firstStallAt);
  const sameDay = oneDay(firsts, model.zone);
  const day = firsts.find((t) => t !== null);
  // A node without a stall has no cause of one: a NotReady's own cause, else nothing (not a start-up note's `other`).
  const cause = (n: NodeReport): string => n.verdict.primaryCause ?? (n.verdict.plegUnhealthy ? 'unknown' : verdictKind(n) === 'notready' ? n.findings.find((f) => f.explains === 'notready')?.cause ?? '—' : '—');
  const all: Col[] = [
    { key: 'verdict', title: 'PLEG', cell: (n) => VERDICT_CELL[verdictKind(n)], drop: 0 },
    { key: 'cause', title: 'CAUSE', cell: cause, drop: 0 },
    { key: 'confidence', title: 'CONF', right: true, cell: (n) => (n.verdict.plegUnhealthy ? fmtPct(n.verdict.confidence) : cause(n) !== '—' ? fmtPct(n.findings.find((f) => f.cause === cause(n))?.confidence ?? n.verdict.confidence) : '—'), drop: 0 },
    { key: 'stalls', title: 'STALLS', right: true, cell: (n) => String(n.stalls.length), drop: 1 },
    { key: 'longest', title: 'LONGEST', right: true, cell: (n) => longestStallText(n), drop: 0 },
    // One day: the date goes into the heading and the cells show the clock.
    { key: 'when', title: sameDay && day != null ? `FIRST STALL ${fmtTime(day, model.zone, 'day')}` : 'FIRST STALL', cell: (n) => fmtTime(firstStallAt(n), model.zone, sameDay ? 'clock' : 'short'), drop: 2 },
  ];
  const width = (c: Col): number => Math.max(c.title.length + (o.sort === c.key ? 1 : 0), ...reports.map((n) => c.cell(n).length));
  let shown = all;
  const longestName = Math.max(4, ...reports.map((n) => sanitizeLine(n.name, 300).length));
  const room = (cs: Col[]): number => cols - 2 - cs.reduce((a, c) => a + width(c) + 1, 0);
  for (const level of [1, 2]) {
    if (room(shown) >= Math.min(NODE_MIN, longestName)) break;
    shown = shown.filter((c) => c.drop !== level);
  }
  const nodeW = Math.max(6, Math.min(longestName, room(shown)));
  const safe = reports.map((n) => sanitizeLine(n.name, 300));
  const short = shortNames(safe, nodeW);
  // What the columns leave on a wide screen: every node on one time axis (timeline-bar.ts), where flaps line up.
  const spare = room(shown) - nodeW - 1;
  const fleet = spare >= 16 ? fleetTimeline(reports, spare) : null;
  return {
    cols: shown.map((c) => ({ ...c, width: width(c) })),
    nodeW,
    names: new Map(reports.map((n, i) => [n.name, short[i] as string])),
    bars: fleet ? { width: spare, cells: new Map(reports.map((n) => [n.name, timelineBar(n, spare, fleet.axis) ?? NO_DATA.repeat(spare)])), axis: fleet.axis } : null,
  };
}

export function Overview({ model, state, rows, cols }: { model: TuiModel; state: NavState; rows: number; cols: number }) {
  const o = state.overview;
  const order = overviewRows(model, o);
  const lay = overviewLayout(model, o, cols);
  const title = (key: SortKey, t: string): string => t + (o.sort === key ? (o.desc ? '↑' : '↓') : '');
  const head = [fit(title('name', 'NODE'), lay.nodeW), ...lay.cols.map((c) => (c.right ? fitLeft(title(c.key, c.title), c.width) : fit(title(c.key, c.title), c.width))),
    ...(lay.bars ? [fit(`TIMELINE ${fmtTime(lay.bars.axis.a, model.zone, 'short')} → ${fmtTime(lay.bars.axis.b, model.zone, 'short')}`, lay.bars.width)] : [])].join(' ');
  const visible = Math.max(1, rows - 2);
  const cursor = Math.min(o.cursor, Math.max(0, order.length - 1));
  const top = scrollTop(cursor, visible, order.length);
  const shown = order.slice(top, top + visible);
  return (
    <Box flexDirection="column" height={rows}>
      <Line bold>{'  ' + head}</Line>
      {order.length === 0 ? (
        <Line dim>{o.filter ? `  no node matches "${sanitizeLine(o.filter, 60)}" (esc clears the filter)` : '  no nodes in this input'}</Line>
      ) : null}
      {shown.map((i, j) => {
        const n = (model.nodes[i] as (typeof model.nodes)[number]).report;
        const selected = top + j === cursor;
        const kind = verdictKind(n);
        const sev = n.findings[0]?.severity;
        const cells = [fit(lay.names.get(n.name) ?? n.name, lay.nodeW), ...lay.cols.map((c) => (c.right ? fitLeft(c.cell(n), c.width) : fit(c.cell(n), c.width))),
          ...(lay.bars ? [lay.bars.cells.get(n.name) ?? ''] : [])];
        const color = kind === 'unhealthy' ? SEVERITY_COLOR[sev ?? 'high'] : kind === 'notready' ? 'yellow' : n.findings.length === 0 ? 'green' : undefined;
        return (
          <Line key={n.name} inverse={selected}>
            {selected ? '▸ ' : '  '}
            <T color={color} bold={kind === 'unhealthy'}>{cells.join(' ')}</T>
          </Line>
        );
      })}
      <Blank n={visible - shown.length - (order.length === 0 ? 1 : 0)} />
      <Line dim>
        {o.filter ? `  filter "${sanitizeLine(o.filter, 60)}": ${order.length} of ${model.nodes.length} nodes` : `  ${model.nodes.length} node${model.nodes.length === 1 ? '' : 's'} · sorted by ${o.sort}${o.desc ? ' (reversed)' : ''} · LONGEST: the longest time without a relist`}
      </Line>
    </Box>
  );
}
