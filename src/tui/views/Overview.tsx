// Overview: one row per node — verdict, primary cause, confidence, stalls, longest stall, when — sortable, filterable.
import { Box } from 'ink';
import type { TuiModel } from '../model.js';
import { fit, fitLeft, fmtDuration, fmtPct, fmtTime } from '../format.js';
import { firstStallAt, longestStall, overviewRows, verdictLabel, type NavState, type SortKey } from '../state.js';
import { Blank, Line, SEVERITY_COLOR, T } from '../ui.js';
import { sanitizeLine } from '../../util/sanitize.js';

export function scrollTop(cursor: number, visible: number, len: number): number {
  if (len <= visible) return 0;
  return Math.max(0, Math.min(cursor - Math.floor(visible / 3), len - visible));
}

interface Col {
  key: SortKey;
  title: string;
  width: number;
  right?: boolean;
}

export function Overview({ model, state, rows, cols }: { model: TuiModel; state: NavState; rows: number; cols: number }) {
  const o = state.overview;
  const order = overviewRows(model, o);
  const fixed: Col[] = [
    { key: 'verdict', title: 'VERDICT', width: 9 },
    { key: 'cause', title: 'CAUSE', width: cols >= 96 ? 18 : 16 },
    { key: 'confidence', title: 'CONF', width: 5, right: true },
    { key: 'stalls', title: 'STALLS', width: 6, right: true },
    { key: 'longest', title: 'LONGEST', width: 9, right: true },
    { key: 'when', title: 'FIRST STALL', width: 15 },
  ];
  const nodeW = Math.max(8, cols - 2 - fixed.reduce((a, c) => a + c.width + 1, 0));
  const cols2: Col[] = [{ key: 'name', title: 'NODE', width: nodeW }, ...fixed];
  const head = cols2
    .map((c) => {
      const t = c.title + (o.sort === c.key ? (o.desc ? '↑' : '↓') : '');
      return c.right ? fitLeft(t, c.width) : fit(t, c.width);
    })
    .join(' ');
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
        const verdict = verdictLabel(n);
        const cause = n.verdict.primaryCause ?? (n.verdict.plegUnhealthy ? 'unknown' : n.findings[0]?.cause ?? '—');
        const sev = n.findings[0]?.severity;
        const cells = [
          fit(sanitizeLine(n.name, 200), nodeW),
          fit(verdict, 9),
          fit(cause, fixed[1]?.width ?? 16),
          fitLeft(n.verdict.plegUnhealthy || n.findings.length ? fmtPct(n.verdict.confidence) : '—', 5),
          fitLeft(String(n.stalls.length), 6),
          fitLeft(n.stalls.length ? fmtDuration(longestStall(n)) : '—', 9),
          fit(fmtTime(firstStallAt(n), model.zone, 'short'), 15),
        ];
        const color = n.verdict.plegUnhealthy ? SEVERITY_COLOR[sev ?? 'high'] : verdict === 'NotReady' ? 'yellow' : verdict === 'healthy' ? 'green' : undefined;
        return (
          <Line key={n.name} inverse={selected}>
            {selected ? '▸ ' : '  '}
            <T color={color} bold={n.verdict.plegUnhealthy}>{cells.join(' ')}</T>
          </Line>
        );
      })}
      <Blank n={visible - shown.length - (order.length === 0 ? 1 : 0)} />
      <Line dim>
        {o.filter ? `  filter "${sanitizeLine(o.filter, 60)}": ${order.length} of ${model.nodes.length} nodes` : `  ${model.nodes.length} node${model.nodes.length === 1 ? '' : 's'} · sorted by ${o.sort}${o.desc ? ' (reversed)' : ''}`}
      </Line>
    </Box>
  );
}
