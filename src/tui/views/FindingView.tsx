// Finding: what the rule concluded (summary, remedy, references) and every evidence line with its file and line;
// enter opens the Log view at the selected line. The prose takes the rows it needs while the evidence keeps a few;
// when it must be cut, `x` shows it in full (and scrolls it).
import { Box } from 'ink';
import type { NodeData, TuiModel } from '../model.js';
import { fit, fmtPct, fmtTime, inline, parseIsoMs, wrap } from '../format.js';
import { spansDays, type NavState } from '../state.js';
import { Blank, Line, SEVERITY_COLOR, T } from '../ui.js';
import { sanitize, sanitizeLine } from '../../util/sanitize.js';
import { scrollTop } from './Overview.js';
import { sourceOf } from '../model.js';
import { displayBody } from '../logs.js';
import type { Finding } from '../../contract/analysis.js';
import { cutMiddle } from '../../report/layout.js';
import { ALSO_CONSIDERED, severityWords } from '../../report/words.js';

function baseName(p: string): string {
  const i = p.lastIndexOf('/');
  return i >= 0 ? p.slice(i + 1) : p;
}

/** Evidence rows the view keeps while the prose is cut to make room. */
const MIN_EVIDENCE_ROWS = 5;

interface ProseLine {
  text: string;
  style: 'summary' | 'remedy' | 'ref';
}

/** Summary (one fact a line, as the text report), remedy and references as screen lines of `w` columns. `full`
 *  (read all): a reference too long for a line goes on in pieces, whole, rather than cut. */
export function proseLines(f: Finding, w: number, full = false): ProseLine[] {
  const out: ProseLine[] = [];
  for (const fact of f.lines?.length ? f.lines : [f.summary]) {
    const item = fact.startsWith('- ');
    wrap(sanitize(item ? fact.slice(2) : fact), w - (item ? 4 : 2)).forEach((l, i) => out.push({ text: `${item ? (i === 0 ? '  - ' : '    ') : i === 0 ? '' : '  '}${l}`, style: 'summary' }));
  }
  for (const l of wrap(sanitize(`Remedy: ${f.remediation}`), w)) out.push({ text: l, style: 'remedy' });
  // A reference is a link: one line each, cut at its end rather than wrapped (whole when reading all).
  f.references.forEach((u, i) => {
    const line = `${i === 0 ? 'See: ' : '     '}${sanitizeLine(u, 500)}`;
    if (!full || line.length <= w) return void out.push({ text: fit(line, w).trimEnd(), style: 'ref' });
    for (let k = 0; k < line.length; k += w) out.push({ text: line.slice(k, k + w), style: 'ref' });
  });
  return out;
}

function Prose({ lines }: { lines: ProseLine[] }) {
  return (
    <>
      {lines.map((l, i) => (
        <Line key={`p${i}`} dim={l.style === 'remedy'} color={l.style === 'ref' ? 'cyan' : undefined}>{' ' + l.text}</Line>
      ))}
    </>
  );
}

export function FindingView({ model, node, finding, state, rows, cols }: { model: TuiModel; node: NodeData; finding: number; state: NavState; rows: number; cols: number }) {
  const f = node.report.findings[finding];
  if (!f) return <Line dim>no such finding</Line>;
  const prose = proseLines(f, cols - 2, state.finding.expanded);
  const title = (
    <Line>
      <T bold color={SEVERITY_COLOR[f.severity]}>{severityWords(f).toUpperCase()}</T>
      {f.considered ? <T dim>{` ${ALSO_CONSIDERED.title.toLowerCase()}`}</T> : null}
      <T bold>{` ${fmtPct(f.confidence)} ${f.cause}  ${sanitizeLine(f.title, 200)}`}</T>
    </Line>
  );
  if (state.finding.expanded) {
    const room = Math.max(1, rows - 2);
    const top = Math.max(0, Math.min(state.finding.scroll, prose.length - room));
    const shown = prose.slice(top, top + room);
    return (
      <Box flexDirection="column" height={rows}>
        {title}
        <Prose lines={shown} />
        <Blank n={room - shown.length} />
        <Line dim>{` x or esc: back to the evidence${prose.length > room ? ` · lines ${top + 1}–${top + shown.length} of ${prose.length} (j/k)` : ''}`}</Line>
      </Box>
    );
  }
  const evMin = Math.max(1, Math.min(f.evidence.length, MIN_EVIDENCE_ROWS));
  const budget = Math.max(1, rows - 3 - evMin);
  let shownProse = prose;
  if (prose.length > budget) {
    shownProse = prose.slice(0, budget);
    const more = prose.length - budget + 1;
    shownProse[budget - 1] = { text: `… ${more} more line${more === 1 ? '' : 's'}: x reads all`, style: 'remedy' };
  }
  const evRows = Math.max(1, rows - 3 - shownProse.length);
  const c = Math.min(state.finding.cursor, Math.max(0, f.evidence.length - 1));
  const top = scrollTop(c, evRows, f.evidence.length);
  const shown = f.evidence.slice(top, top + evRows);
  const sel = f.evidence[c];
  const where = sel ? `${sanitizeLine(sel.file, 200)}:${sel.line}${sourceOf(node, sel.file) < 0 ? ' (not a log of this node)' : ''}` : '';
  const locW = Math.min(28, Math.max(14, Math.floor(cols / 4)));
  const timeStyle = spansDays(node.report, model.zone) ? 'short' : 'clock';
  return (
    <Box flexDirection="column" height={rows}>
      {title}
      <Prose lines={shownProse} />
      <Line bold>{` Evidence (${f.evidence.length} line${f.evidence.length === 1 ? '' : 's'}; rule ${sanitizeLine(f.ruleId, 60)})`}</Line>
      {f.evidence.length === 0 ? <Line dim>  this finding cites no line</Line> : null}
      {shown.map((e, j) => {
        const i = top + j;
        const isSel = i === c;
        // Cut in the middle: the line number at its end stays.
        const loc = fit(cutMiddle(`${sanitizeLine(baseName(e.file), 100)}:${e.line}`, locW), locW);
        return (
          <Line key={`e${i}`} inverse={isSel}>
            {isSel ? '▸ ' : '  '}
            <T color="cyan">{loc}</T>
            {` ${fmtTime(parseIsoMs(e.ts), model.zone, timeStyle)} ${inline(displayBody(e.text)).slice(0, 2000)}`}
          </Line>
        );
      })}
      <Blank n={evRows - shown.length - (f.evidence.length === 0 ? 1 : 0)} />
      <Line dim>{' ' + where}</Line>
    </Box>
  );
}
