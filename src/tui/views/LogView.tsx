// Log: the node's kubelet, runtime and kernel lines merged by time, read lazily from the files (see ../logs.ts), with
// severity colours, a regex filter (its matches counted and highlighted), match and error jumps, a jump to a time, and
// the selected line in full (enter). Every line is sanitised before it is drawn: escape sequences, \r and bidi
// overrides show as inert text.
import { Box } from 'ink';
import { useEffect, useRef, useState } from 'react';
import type { NodeData } from '../model.js';
import type { MergedLog, LogLine } from '../logs.js';
import { LogController, type LogViewState } from '../log-controller.js';
import { fmtBytes, fmtTime, inline, wrap, type TimeStyle } from '../format.js';
import { spansDays, timeSpan, type Action, type LogCmd } from '../state.js';
import { Blank, Line, levelColor, T } from '../ui.js';
import { sanitize, sanitizeLine } from '../../util/sanitize.js';
import type { UserPattern } from '../pattern.js';
import { showText } from '../display.js';


export interface LogViewProps {
  node: NodeData;
  merged: MergedLog;
  cmds: Array<{ id: number; cmd: LogCmd }>;
  dispatch: (a: Action) => void;
  rows: number;
  cols: number;
  zone: string;
  /** Whole lines as read (journal envelope, klog header) instead of the compact body. */
  rawLines: boolean;
  /** The selected line in full instead of the list. */
  detail: boolean;
  /** Set by tests to wait for the controller. */
  onController?: (c: LogController) => void;
}

const LEVEL_NAMES: Record<string, string> = { F: 'fatal', E: 'error', W: 'warning', I: 'info' };
const ROLE_NAMES: Record<string, string> = { K: 'kubelet', R: 'container runtime', N: 'kernel' };

function matchText(m: LogViewState['matches']): string | null {
  if (!m) return null;
  if (!m.done) return `counting matches… ${Math.floor(m.fraction * 100)}%`;
  const n = `${m.count} match${m.count === 1 ? '' : 'es'}`;
  return m.index !== null ? `match ${m.index} of ${m.count}` : n;
}

export function LogView({ node, merged, cmds, dispatch, rows, cols, zone, rawLines, detail, onController }: LogViewProps) {
  const listRows = Math.max(1, rows - 2);
  const rowsRef = useRef(listRows);
  rowsRef.current = listRows;
  const seen = useRef(0);
  const [ctl] = useState(() => {
    const span = timeSpan(node.report);
    return new LogController(merged, {
      rows: () => rowsRef.current,
      zone,
      bounds: { start: span?.from ?? null, end: span?.to ?? null },
      onChange: (s) => setView(s),
      onFocus: (ts) => dispatch({ type: 'focus', ts }),
      onBusy: (busy, filter) => dispatch({ type: 'logStatus', busy, filter }),
    });
  });
  const [view, setView] = useState<LogViewState>(ctl.state);

  useEffect(() => {
    onController?.(ctl);
    return () => ctl.close();
  }, [ctl]);

  useEffect(() => {
    let last = 0;
    for (const c of cmds) {
      if (c.id <= seen.current) continue;
      ctl.push(c.cmd);
      last = c.id;
    }
    if (last > 0) {
      seen.current = last;
      dispatch({ type: 'logAck', id: last });
    }
  }, [cmds, ctl]);

  const [seenRows, setSeenRows] = useState(listRows);
  useEffect(() => {
    if (seenRows !== listRows) {
      setSeenRows(listRows);
      if (view.loaded) ctl.push({ t: 'refresh' });
    }
  }, [listRows]);

  // Dates in the time column when the node's logs span more than one day.
  const timeStyle: TimeStyle = spansDays(node.report, zone) ? 'datedPrecise' : 'precise';
  const timeW = timeStyle === 'precise' ? 12 : 18;
  const textW = Math.max(10, cols - timeW - 4);
  const sel = view.lines[view.sel];
  const src = sel ? node.sources[sel.src] : undefined;
  const head = [
    `${node.sources.length} log${node.sources.length === 1 ? '' : 's'}`,
    sel ? fmtTime(sel.ts, zone, 'full') : null,
    view.pattern ? `/${sanitizeLine(view.pattern.source, 60)}/${view.only ? ' only matches' : ' (f: only matches)'}` : null,
    matchText(view.matches),
  ].filter(Boolean).join(' · ');
  const status = view.status ? (
    <Line color={view.status.error ? 'red' : 'yellow'}>{sanitizeLine(view.status.text, 300)}</Line>
  ) : (
    <Line dim>{src && sel ? `${src.tag} ${sanitizeLine(src.path, 200)}:${sel.lineNo}${sel.cut ? ' (long line, cut)' : ''}` : ' '}</Line>
  );
  return (
    <Box flexDirection="column" height={rows}>
      <Line>
        <T bold>{head}</T>
        {view.searching ? <T color="yellow">{`  ${view.searching.what}… ${fmtBytes(view.searching.bytes)} (esc cancels)`}</T> : null}
      </Line>
      {detail && sel && src ? (
        <LineDetailView merged={merged} line={sel} tag={src.tag} rows={listRows} cols={cols} zone={zone} pattern={view.pattern} />
      ) : (
        <>
          {!view.loaded ? <Line dim>reading…</Line> : null}
          {view.lines.map((l, i) => (
            <LogRow key={`${l.src}:${l.lineNo}`} line={l} tag={node.sources[l.src]?.tag ?? '?'} selected={i === view.sel} zone={zone} timeStyle={timeStyle} width={textW} hscroll={view.hscroll} pattern={view.pattern} raw={rawLines} />
          ))}
          <Blank n={listRows - view.lines.length - (view.loaded ? 0 : 1)} />
        </>
      )}
      {status}
    </Box>
  );
}

/** `text` in parts, the matches of `pattern` marked (from column `from`, `width` columns of it). */
function highlight(text: string, from: number, width: number, pattern: UserPattern | null): Array<{ s: string; hit: boolean }> {
  const shown = text.slice(from, from + width);
  const parts: Array<{ s: string; hit: boolean }> = [];
  if (!pattern || !shown) return [{ s: shown, hit: false }];
  let at = 0;
  for (const [a, b] of pattern.ranges(text)) {
    const s = Math.max(a - from, 0);
    const e = Math.min(b - from, shown.length);
    if (e <= s || s < at) continue;
    if (s > at) parts.push({ s: shown.slice(at, s), hit: false });
    parts.push({ s: shown.slice(s, e), hit: true });
    at = e;
  }
  if (at < shown.length) parts.push({ s: shown.slice(at), hit: false });
  return parts;
}

/** A match: black on yellow with colours; bold and underlined without (inverse is the cursor's). */
function Hit({ s }: { s: string }) {
  return <T color="black" bg="yellow" bold underline>{s}</T>;
}

function Parts({ parts, color }: { parts: Array<{ s: string; hit: boolean }>; color?: string }) {
  return (
    <>
      {parts.map((p, i) => (p.hit ? <Hit key={i} s={p.s} /> : <T key={i} color={color}>{p.s}</T>))}
    </>
  );
}

function LogRow({ line, tag, selected, zone, timeStyle, width, hscroll, pattern, raw }: { line: LogLine; tag: string; selected: boolean; zone: string; timeStyle: TimeStyle; width: number; hscroll: number; pattern: UserPattern | null; raw: boolean }) {
  const text = inline(showText(raw ? line.text : line.body));
  return (
    <Line inverse={selected}>
      <T dim>{fmtTime(line.ts, zone, timeStyle)}</T>
      {` ${tag}${line.level ?? ' '} `}
      <Parts parts={highlight(text, hscroll, width, pattern)} color={levelColor(line.level)} />
    </Line>
  );
}

/** The selected line in full: when, where from, its level, every parsed field, and the line as read, wrapped. */
function LineDetailView({ merged, line, tag, rows, cols, zone, pattern }: { merged: MergedLog; line: LogLine; tag: string; rows: number; cols: number; zone: string; pattern: UserPattern | null }) {
  const d = merged.describe(line);
  const src = merged.sources[line.src];
  const out: Array<{ label: string; text: string; hits?: boolean }> = [
    { label: 'time', text: `${fmtTime(line.ts, zone, 'full')}${d.ownTime ? '' : ' (no time of its own: that of the line before)'}` },
    { label: 'source', text: `${tag} ${ROLE_NAMES[tag] ?? ''} · ${src ? src.path : '?'}:${line.lineNo}${line.cut ? ' (long line, cut to 4 KiB)' : ''}` },
    { label: 'level', text: d.level ? `${d.level} ${LEVEL_NAMES[d.level] ?? ''}` : 'none' },
    ...d.fields.map(([k, v]) => ({ label: k, text: showText(v) })),
    { label: 'as read', text: showText(line.text), hits: true },
  ];
  const labelW = Math.min(16, Math.max(...out.map((o) => sanitizeLine(o.label, 40).length)) + 1);
  const w = Math.max(10, cols - labelW - 2);
  const lines: Array<{ label: string; text: string; hits: boolean }> = [];
  for (const o of out) {
    // The line as read keeps every space (cut into pieces of the width); the parsed fields wrap at words.
    const text = sanitize(o.text).replace(/\t/g, ' ');
    const body = o.hits ? Array.from({ length: Math.max(1, Math.ceil(text.length / w)) }, (_, i) => text.slice(i * w, (i + 1) * w)) : wrap(text, w);
    body.forEach((b, i) => lines.push({ label: i === 0 ? sanitizeLine(o.label, 40) : '', text: b, hits: o.hits === true }));
  }
  const shown = lines.slice(0, rows);
  if (lines.length > rows) shown[rows - 1] = { label: '', text: `… ${lines.length - rows + 1} more lines (the line is in the file at ${line.lineNo})`, hits: false };
  return (
    <>
      {shown.map((l, i) => (
        <Line key={i}>
          <T bold>{(l.label + ' '.repeat(labelW)).slice(0, labelW) + ' '}</T>
          {l.hits ? <Parts parts={highlight(l.text, 0, l.text.length, pattern)} /> : l.text}
        </Line>
      ))}
      <Blank n={rows - shown.length} />
    </>
  );
}
