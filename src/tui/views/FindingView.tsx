// Finding: what the rule concluded (summary, remedy) and every evidence line with its file and line; enter opens the
// Log view at the selected line.
import { Box } from 'ink';
import type { NodeData, TuiModel } from '../model.js';
import { fit, fmtPct, fmtTime, inline, parseIsoMs, wrap } from '../format.js';
import type { NavState } from '../state.js';
import { Blank, Line, SEVERITY_COLOR, T } from '../ui.js';
import { sanitize, sanitizeLine } from '../../util/sanitize.js';
import { scrollTop } from './Overview.js';
import { sourceOf } from '../model.js';
import { displayBody } from '../logs.js';

function baseName(p: string): string {
  const i = p.lastIndexOf('/');
  return i >= 0 ? p.slice(i + 1) : p;
}

export function FindingView({ model, node, finding, state, rows, cols }: { model: TuiModel; node: NodeData; finding: number; state: NavState; rows: number; cols: number }) {
  const f = node.report.findings[finding];
  if (!f) return <Line dim>no such finding</Line>;
  const w = cols - 2;
  const summaryMax = Math.max(2, Math.floor((rows - 6) / 2) - 1);
  const summary = wrap(sanitize(f.summary), w, summaryMax);
  const remedy = wrap(sanitize(`Remedy: ${f.remediation}`), w, 2);
  const evRows = Math.max(1, rows - 3 - summary.length - remedy.length);
  const c = Math.min(state.finding.cursor, Math.max(0, f.evidence.length - 1));
  const top = scrollTop(c, evRows, f.evidence.length);
  const shown = f.evidence.slice(top, top + evRows);
  const sel = f.evidence[c];
  const where = sel ? `${sanitizeLine(sel.file, 200)}:${sel.line}${sourceOf(node, sel.file) < 0 ? ' (not a log of this node)' : ''}` : '';
  const locW = Math.min(28, Math.max(14, Math.floor(cols / 4)));
  return (
    <Box flexDirection="column" height={rows}>
      <Line>
        <T bold color={SEVERITY_COLOR[f.severity]}>{f.severity.toUpperCase()}</T>
        <T bold>{` ${fmtPct(f.confidence)} ${f.cause}  ${sanitizeLine(f.title, 200)}`}</T>
      </Line>
      {summary.map((l, i) => (
        <Line key={`s${i}`}>{' ' + l}</Line>
      ))}
      {remedy.map((l, i) => (
        <Line key={`r${i}`} dim>{' ' + l}</Line>
      ))}
      <Line bold>{` Evidence (${f.evidence.length} line${f.evidence.length === 1 ? '' : 's'}; rule ${sanitizeLine(f.ruleId, 60)})`}</Line>
      {f.evidence.length === 0 ? <Line dim>  this finding cites no line</Line> : null}
      {shown.map((e, j) => {
        const i = top + j;
        const isSel = i === c;
        const loc = fit(`${sanitizeLine(baseName(e.file), 100)}:${e.line}`, locW);
        return (
          <Line key={`e${i}`} inverse={isSel}>
            {isSel ? '▸ ' : '  '}
            <T color="cyan">{loc}</T>
            {` ${fmtTime(parseIsoMs(e.ts), model.zone, 'clock')} ${inline(displayBody(e.text)).slice(0, 2000)}`}
          </Line>
        );
      })}
      <Blank n={evRows - shown.length - (f.evidence.length === 0 ? 1 : 0)} />
      <Line dim>{' ' + where}</Line>
    </Box>
  );
}
