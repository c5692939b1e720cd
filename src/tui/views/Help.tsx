// `?`: the keys that work on this screen, then the ones that work everywhere.
import { Box } from 'ink';
import { fit } from '../format.js';
import { helpFor, type Screen } from '../state.js';
import { Blank, Line } from '../ui.js';

export function Help({ screen, rows, cols }: { screen: Screen; rows: number; cols: number }) {
  const lines: Array<{ text: string; bold?: boolean }> = [];
  for (const sec of helpFor(screen)) {
    if (lines.length) lines.push({ text: '' });
    lines.push({ text: sec.title, bold: true });
    const kw = Math.min(28, Math.max(...sec.keys.map(([k]) => k.length)) + 2);
    for (const [k, what] of sec.keys) lines.push({ text: `  ${fit(k, kw)}${what}` });
  }
  const shown = lines.slice(0, rows - 1);
  return (
    <Box flexDirection="column" height={rows}>
      {shown.map((l, i) => (
        <Line key={i} bold={l.bold}>{l.text.slice(0, cols)}</Line>
      ))}
      <Blank n={rows - 1 - shown.length} />
      <Line dim>esc or ? closes this help</Line>
    </Box>
  );
}
