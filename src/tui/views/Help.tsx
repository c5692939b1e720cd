// `?`: the keys that work on this screen, what its columns and codes mean, then the keys that work everywhere.
// Descriptions wrap to the screen; j/k scroll when the help is longer than it.
import { Box } from 'ink';
import { helpLines, type Screen } from '../state.js';
import { Blank, Line } from '../ui.js';

export function Help({ screen, rows, cols, top }: { screen: Screen; rows: number; cols: number; top: number }) {
  const lines = helpLines(screen, cols);
  const room = rows - 1;
  const first = Math.max(0, Math.min(top, lines.length - room));
  const shown = lines.slice(first, first + room);
  const more = lines.length > room ? ` · lines ${first + 1}–${first + shown.length} of ${lines.length} (j/k)` : '';
  return (
    <Box flexDirection="column" height={rows}>
      {shown.map((l, i) => (
        <Line key={i} bold={l.bold}>{l.text}</Line>
      ))}
      <Blank n={room - shown.length} />
      <Line dim>{`esc or ? closes this help${more}`}</Line>
    </Box>
  );
}
