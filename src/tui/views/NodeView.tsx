// Node: the timeline across the node's log window (stalls, NotReady, restarts, CRI error density per operation) with a
// time cursor, and below it the sections — findings, stalls, ruled out, gaps, relist and per-operation latencies (each
// figure with the window it covers and how it is known, as in the text report): one at a time on a small screen, one
// under the other on a tall one.
import { Box } from 'ink';
import type { ReactElement } from 'react';
import type { NodeData, TuiModel } from '../model.js';
import { fit, fitLeft, fmtPct, fmtTime, oneDay, parseIsoMs, wrap } from '../format.js';
import { chartRows, columnOf } from '../chart.js';
import { CHART_LABEL, chartWidth, SECTION_TITLES, SECTIONS, sectionLength, timeSpan, type NavState, type Section } from '../state.js';
import { ALSO_CONSIDERED, VERDICT, verdictKind } from '../../report/words.js';
import { commandSlice } from './GapView.js';
import { Blank, Line, SEVERITY_COLOR, T } from '../ui.js';
import { sanitize, sanitizeLine } from '../../util/sanitize.js';
import { scrollTop } from './Overview.js';
import { wrapHanging } from '../../report/layout.js';
import { stallDuration } from '../../report/cluster.js';
import { operationsTable, relistLines } from '../../report/latency.js';

const S = (s: string | null | undefined, max = 300): string => sanitizeLine(s ?? '', max);

export function NodeView({ model, node, state, rows, cols }: { model: TuiModel; node: NodeData; state: NavState; rows: number; cols: number }) {
  const r = node.report;
  const zone = model.zone;
  const span = timeSpan(r);
  const width = chartWidth(cols);
  // The Operations section says per operation what the chart's rows draw: with it selected on a small screen, the chart
  // keeps two of them and the table gets the rows.
  const maxOps = Math.max(0, Math.min(state.node.section === 'ops' && rows < 40 ? 2 : 6, rows - 5 - 6));
  const chart = span ? chartRows(node, span, width, maxOps) : [];
  const focus = state.focus;
  const cursorCol = span && focus !== null ? columnOf(focus, span, width) : null;
  const kind = verdictKind(r);
  const facts = [
    S(r.kubeletVersion) || 'kubelet ?',
    r.runtime ?? 'runtime ?',
    r.pods.running !== null ? `${r.pods.running} pods` : null,
    `${r.stalls.length} stall${r.stalls.length === 1 ? '' : 's'}`,
    r.notReady.length ? `${r.notReady.length} NotReady` : null,
    r.restarts.length ? `${r.restarts.length} restart${r.restarts.length === 1 ? '' : 's'}` : null,
    r.coverage.truncated ? 'log truncated' : null,
  ].filter(Boolean).join(' · ');
  // Verdict, timeline head (or its absence), cursor line (or a blank), tabs: 4 rows, then the chart's.
  const listRows = Math.max(1, rows - 4 - chart.length);
  return (
    <Box flexDirection="column" height={rows}>
      <Line>
        <T bold color={kind === 'unhealthy' ? 'red' : kind === 'healthy' ? 'green' : 'yellow'}>{VERDICT[kind]}</T>
        {r.verdict.primaryCause ? <T bold>{` ${r.verdict.primaryCause} ${fmtPct(r.verdict.confidence)}`}</T> : null}
        {`  ${facts}`}
      </Line>
      {span ? (
        <>
          <Line>
            <T bold>{fit('timeline', CHART_LABEL)}</T>
            {` ${fmtTime(span.from, zone, 'short')} → ${fmtTime(span.to, zone, 'short')}  █ stall ▒ NotReady | kubelet start`}
          </Line>
          {chart.map((row) => (
            <Line key={row.label}>
              <T dim={row.kind === 'op'}>{fit(S(row.label, 60), CHART_LABEL)}</T>
              {' '}
              <T color={row.kind === 'pleg' ? 'red' : 'magenta'}>{row.cells}</T>
            </Line>
          ))}
          <Line>
            {fit('', CHART_LABEL + 1) + cursorLine(cursorCol, width, focus !== null ? fmtTime(focus, zone, 'short') : '')}
          </Line>
        </>
      ) : (
        <>
          <Line dim>no times in this node's logs: no timeline</Line>
          <Line> </Line>
        </>
      )}
      <Tabs node={node} section={state.node.section} />
      {listRows >= STACK_MIN_ROWS
        ? <Stacked model={model} node={node} state={state} rows={listRows} cols={cols} />
        : <SectionList model={model} node={node} section={state.node.section} cursor={state.node.cursors[state.node.section]} rows={listRows} cols={cols} />}
    </Box>
  );
}

/** Rows below the tabs from which findings, stalls and operations are shown together (a tall terminal). */
const STACK_MIN_ROWS = 20;
/** Rows the operations block needs besides its rows to be shown with all the others: relist lines, the table's head, a note. */
const OPS_HEAD = 8;

/**
 * A tall screen: every section one under the other, each under its title (the selected one inverse: j/k move in it),
 * so that the screen is used rather than left blank under a short list; the sections take the rows they need and the
 * operations the rest. When they do not all fit, the selected section alone.
 */
function Stacked({ model, node, state, rows, cols }: { model: TuiModel; node: NodeData; state: NavState; rows: number; cols: number }) {
  const r = node.report;
  const active = state.node.section;
  const need = (s: Section): number => Math.max(1, sectionLength(r, s) + (s === 'findings' && r.findings.some((f) => f.considered) ? 1 : 0))
    // Ruled out and gaps keep rows for the selected row's detail.
    + ((s === 'ruledOut' || s === 'gaps') && s === active && sectionLength(r, s) ? 3 : 0);
  // Every section when all fit, operations taking what the others leave (at least what its table needs); else the
  // selected section alone, as on a small screen.
  const others = SECTIONS.filter((s) => s !== 'ops');
  const used = others.reduce((k, s) => k + need(s) + 1, 0);
  const opsNeed = sectionLength(r, 'ops') + OPS_HEAD;
  if (rows - used - 1 < opsNeed) {
    return <SectionList model={model} node={node} section={active} cursor={state.node.cursors[active]} rows={rows} cols={cols} />;
  }
  const blocks: Array<[Section, number]> = [...others.map((s): [Section, number] => [s, need(s)]), ['ops', rows - used - 1]];
  return (
    <>
      {blocks.map(([s, n]) => (
        <Box key={s} flexDirection="column" height={n + 1}>
          <Line>
            <T bold inverse={s === active}>{` ${SECTION_TITLES[s]} (${sectionLength(r, s)}) `}</T>
          </Line>
          <SectionList model={model} node={node} section={s} cursor={s === active ? state.node.cursors[s] : -1} rows={n} cols={cols} />
        </Box>
      ))}
    </>
  );
}

/** `▲` under the cursor column with the cursor time beside it (left of the marker when there is no room right). */
function cursorLine(col: number | null, width: number, label: string): string {
  if (col === null) return '';
  const right = ' ' + label;
  if (col + 1 + right.length <= width) return ' '.repeat(col) + '▲' + right;
  const left = label + ' ';
  return ' '.repeat(Math.max(0, col - left.length)) + left + '▲';
}

function Tabs({ node, section }: { node: NodeData; section: Section }) {
  return (
    <Line>
      {SECTIONS.map((s, i) => {
        // The key, then the section and its count: `1:Findings (2)` (a key and a count side by side read as one number).
        const label = ` ${i + 1}:${SECTION_TITLES[s]} (${sectionLength(node.report, s)}) `;
        return (
          <T key={s} inverse={s === section} bold={s === section}>
            {label}
          </T>
        );
      })}
    </Line>
  );
}

function SectionList({ model, node, section, cursor, rows, cols }: { model: TuiModel; node: NodeData; section: Section; cursor: number; rows: number; cols: number }) {
  if (section === 'ops') return <OpsSection model={model} node={node} cursor={cursor} rows={rows} cols={cols} />;
  const r = node.report;
  const zone = model.zone;
  const len = sectionLength(r, section);
  if (len === 0) {
    const empty: Record<Exclude<Section, 'ops'>, string> = {
      findings: 'no findings: nothing in this input points at a PLEG problem',
      stalls: 'no PLEG stall in this node\'s logs',
      ruledOut: 'nothing ruled out',
      gaps: 'no evidence gaps: the input had what the rules need',
    };
    return (
      <>
        <Line dim>{'  ' + empty[section as Exclude<Section, 'ops'>]}</Line>
        <Blank n={rows - 1} />
      </>
    );
  }
  // (No row selected — a section shown beside the selected one — no detail.)
  const detailRows = (section === 'ruledOut' || section === 'gaps') && cursor >= 0 ? Math.min(3, Math.max(0, rows - 3)) : 0;
  const visible = Math.max(1, rows - detailRows);
  const c = Math.min(cursor, len - 1);
  // Findings: the weak alternatives (last in the list) under a heading row of their own, which the cursor skips.
  const headAt = section === 'findings' ? r.findings.findIndex((f) => f.considered) : -1;
  const rowsLen = len + (headAt >= 0 ? 1 : 0);
  const top = scrollTop(headAt >= 0 && c >= headAt ? c + 1 : c, visible, rowsLen);
  const items: ReactElement[] = [];
  for (let k = top; k < Math.min(rowsLen, top + visible); k++) {
    if (k === headAt) {
      items.push(<Line key="considered" dim>{`  ${ALSO_CONSIDERED.title.toLowerCase()} — ${ALSO_CONSIDERED.why}`}</Line>);
      continue;
    }
    const i = headAt >= 0 && k > headAt ? k - 1 : k;
    const sel = i === c;
    const mark = sel ? '▸ ' : '  ';
    switch (section) {
      case 'findings': {
        const f = r.findings[i]!;
        items.push(
          <Line key={i} inverse={sel}>
            {mark}
            <T color={SEVERITY_COLOR[f.severity]} bold>{fit(f.severity.toUpperCase(), 8)}</T>
            <T dim={f.considered === true}>{` ${fitLeft(fmtPct(f.confidence), 4)} ${fit(f.cause, 17)} ${S(f.title)} (${f.evidence.length} line${f.evidence.length === 1 ? '' : 's'})`}</T>
          </Line>,
        );
        break;
      }
      case 'stalls': {
        const s = r.stalls[i]!;
        // The stall as every view gives it: from its last good relist to its end, its duration without a relist in the
        // same words; the PLEG-unhealthy time labelled as such.
        const from = parseIsoMs(s.lastRelistAt);
        const to = parseIsoMs(s.endedAt);
        const unhealthy = parseIsoMs(s.unhealthyFrom);
        items.push(
          <Line key={i} inverse={sel}>
            {mark}
            <T color="red">{`${from === null ? 'time unknown' : fmtTime(from, zone, 'short')} → ${to !== null ? `${s.endedBetween ? '≈' : ''}${fmtTime(to, zone, from !== null && oneDay([from, to], zone) ? 'clock' : 'short')}` : s.endedBy === 'unknown' ? 'end not in input' : 'end of log'}`}</T>
            {`  ${fitLeft(stallDuration(s), 17)} without a relist  ${fit(s.endedBy, 10)} ${s.nodeNotReady ? 'NotReady' : '        '}  unhealthy from ${unhealthy === null ? 'time unknown' : fmtTime(unhealthy, zone, 'clock')}`}
          </Line>,
        );
        break;
      }
      case 'ruledOut': {
        const x = r.ruledOut[i]!;
        items.push(<Line key={i} inverse={sel}>{`${mark}${fit(x.cause, 18)} ${S(x.reason)}`}</Line>);
        break;
      }
      case 'gaps': {
        const g = r.gaps[i]!;
        items.push(<Line key={i} inverse={sel}>{`${mark}${S(g.missing)} — ${S(g.why)}`}</Line>);
        break;
      }
    }
  }
  let detail: string[] = [];
  if (detailRows > 0) {
    const w = cols - 4;
    if (section === 'ruledOut') detail = wrap(sanitize(r.ruledOut[c]?.reason ?? ''), w, detailRows);
    else {
      // The reason, then the first command as one line (cut, never wrapped: enter shows them all).
      const g = r.gaps[c];
      const cmds = g ? g.collect.split('\n').filter((l) => !l.startsWith('#')) : [];
      const first = cmds[0] ? '$ ' + commandSlice(sanitizeLine(cmds[0], 4000), 0, w - 2) : null;
      detail = g ? [...wrap(sanitize(g.why), w, detailRows - (first ? 1 : 0)), ...(first ? [first] : [])] : [];
    }
  }
  return (
    <>
      {items}
      <Blank n={visible - items.length} />
      {detail.map((d, i) => (
        <Line key={`d${i}`} dim>{'    ' + d}</Line>
      ))}
      <Blank n={detailRows - detail.length} />
    </>
  );
}

/** Relist and CRI operations: the relist figures of the metrics window, then the operations that did something (calls,
 *  errors or timeouts), their columns grouped by the window they cover, and what the cells mean below. */
function OpsSection({ model, node, cursor, rows, cols }: { model: TuiModel; node: NodeData; cursor: number; rows: number; cols: number }) {
  const r = node.report;
  const relist = relistLines(r, model.zone);
  const table = operationsTable({ ...r, operations: r.operations.map((o) => ({ ...o, operation: S(o.operation, 60) })) }, model.zone, cols - 4);
  const head: Array<{ text: string; bold?: boolean; dim?: boolean }> = [
    ...(relist ? relist.lines.flatMap((l) => wrapHanging(`  relist ${fit(l.label, 9)}`, l.text, cols, 18).map((text) => ({ text }))) : []),
    ...(table && table.rows.length > 0 ? [...(table.groups ? [{ text: `  ${table.groups}`, dim: true }] : []), { text: `  ${table.head}`, bold: true }] : []),
  ];
  const list = table?.rows ?? [];
  const notes = [
    ...(list.length === 0 ? [table ? 'no CRI call, error or timeout in any window' : relist ? 'no CRI operation data' : 'no CRI operation data (no metrics and no CRI errors in the logs)'] : []),
    ...(relist?.notes ?? []), ...(table?.notes ?? []),
  ];
  // Every operation row that fits comes first; the notes (what the cells mean) take the rows left, and when they do not
  // fit, `?` has them (opsLegend) — on a small screen a legend must not push the rows it explains off it.
  const all = wrap(notes.join(' · '), cols - 4);
  const room = Math.max(0, rows - head.length - list.length);
  const detailRows = all.length <= room ? all.length : Math.min(1, room);
  const visible = Math.max(list.length ? 1 : 0, rows - head.length - detailRows);
  const c = Math.min(cursor, Math.max(0, list.length - 1));
  const top = scrollTop(c, visible, list.length);
  const shown = list.slice(top, top + visible);
  const detail = all.length <= room ? all : detailRows ? [fit('? explains the cells: ' + notes.join(' · '), cols - 4).trimEnd()] : [];
  return (
    <>
      {head.map((h, i) => (
        <Line key={`h${i}`} bold={h.bold} dim={h.dim}>{h.text}</Line>
      ))}
      {shown.map((row, i) => (
        <Line key={top + i} inverse={top + i === c}>
          {`${top + i === c ? '▸ ' : '  '}${row.line}`}
        </Line>
      ))}
      <Blank n={visible - shown.length} />
      {detail.map((d, i) => (
        <Line key={`d${i}`} dim>{'  ' + d}</Line>
      ))}
      <Blank n={detailRows - detail.length} />
    </>
  );
}
