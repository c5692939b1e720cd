// Gap: what the input lacked, why it matters, and the commands that collect it — one command per screen line, never
// wrapped (a wrapped command cannot be pasted); ←/→ scroll them sideways when they are wider than the screen.
import { Box } from 'ink';
import type { NodeData } from '../model.js';
import { wrap } from '../format.js';
import { Blank, Line, T } from '../ui.js';
import { sanitize, sanitizeLine } from '../../util/sanitize.js';

/** One command line shown from column `from` in `w` columns, marked with … where it goes on out of sight. */
export function commandSlice(cmd: string, from: number, w: number): string {
  const start = Math.max(0, Math.min(from, Math.max(0, cmd.length - w)));
  let s = cmd.slice(start, start + w);
  if (start > 0) s = '…' + s.slice(1);
  if (start + w < cmd.length) s = s.slice(0, -1) + '…';
  return s;
}

export function GapView({ node, gap, hscroll, rows, cols }: { node: NodeData; gap: number; hscroll: number; rows: number; cols: number }) {
  const g = node.report.gaps[gap];
  if (!g) return <Line dim>no such gap</Line>;
  const why = wrap(sanitize(g.why), cols - 2, Math.max(1, rows - 6));
  const lines = g.collect.split('\n').map((l) => sanitizeLine(l, 4000));
  const room = Math.max(1, rows - 3 - why.length);
  const shown = lines.slice(0, room);
  const wide = lines.some((l) => l.length > cols - 3);
  return (
    <Box flexDirection="column" height={rows}>
      <Line bold>{` Missing: ${sanitizeLine(g.missing, 200)}`}</Line>
      {why.map((l, i) => (
        <Line key={`w${i}`}>{' ' + l}</Line>
      ))}
      <Line bold>{` Collect${wide ? ' (one command per line; ←/→ scroll)' : ' (one command per line)'}:`}</Line>
      {shown.map((l, i) =>
        l.startsWith('#') ? (
          <Line key={`c${i}`} dim>{'   ' + commandSlice(l, hscroll, cols - 3)}</Line>
        ) : (
          <Line key={`c${i}`}>
            <T dim>{' $ '}</T>
            <T bold>{commandSlice(l, hscroll, cols - 3)}</T>
          </Line>
        ),
      )}
      <Blank n={room - shown.length} />
    </Box>
  );
}
