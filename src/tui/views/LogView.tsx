// Log: the node's kubelet, runtime and kernel lines merged by time, read lazily from the files (see ../logs.ts), with
// severity colours, a regex filter, match and error jumps, and a jump to a time. Every line is sanitised before it
// is drawn: escape sequences, \r and bidi overrides show as inert text.
import { Box } from 'ink';
import { useEffect, useRef, useState } from 'react';
import type { NodeData } from '../model.js';
import type { MergedLog, LogLine } from '../logs.js';
import { LogController, type LogViewState } from '../log-controller.js';
import { fmtBytes, fmtTime, inline } from '../format.js';
import { timeSpan, type Action, type LogCmd } from '../state.js';
import { Blank, Line, levelColor, T } from '../ui.js';
import { sanitizeLine } from '../../util/sanitize.js';
import type { UserPattern } from '../pattern.js';

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
  /** Set by tests to wait for the controller. */
  onController?: (c: LogController) => void;
}

export function LogView({ node, merged, cmds, dispatch, rows, cols, zone, rawLines, onController }: LogViewProps) {
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

  const textW = Math.max(10, cols - 16);
  const raw = rawLines;
  const sel = view.lines[view.sel];
  const src = sel ? node.sources[sel.src] : undefined;
  const head = [
    `${node.sources.length} log${node.sources.length === 1 ? '' : 's'}`,
    sel ? fmtTime(sel.ts, zone, 'full') : null,
    view.pattern ? `/${sanitizeLine(view.pattern.source, 60)}/${view.only ? ' only matches' : ' (f: only matches)'}` : null,
  ].filter(Boolean).join(' · ');
  return (
    <Box flexDirection="column" height={rows}>
      <Line>
        <T bold>{head}</T>
        {view.searching ? <T color="yellow">{`  ${view.searching.what}… ${fmtBytes(view.searching.bytes)} (esc cancels)`}</T> : null}
      </Line>
      {!view.loaded ? <Line dim>reading…</Line> : null}
      {view.lines.map((l, i) => (
        <LogRow key={`${l.src}:${l.lineNo}`} line={l} tag={node.sources[l.src]?.tag ?? '?'} selected={i === view.sel} zone={zone} width={textW} hscroll={view.hscroll} pattern={view.pattern} raw={raw} />
      ))}
      <Blank n={listRows - view.lines.length - (view.loaded ? 0 : 1)} />
      {view.status ? (
        <Line color={view.status.error ? 'red' : 'yellow'}>{sanitizeLine(view.status.text, 300)}</Line>
      ) : (
        <Line dim>{src && sel ? `${src.tag} ${sanitizeLine(src.path, 200)}:${sel.lineNo}${sel.cut ? ' (long line, cut)' : ''}` : ' '}</Line>
      )}
    </Box>
  );
}

function LogRow({ line, tag, selected, zone, width, hscroll, pattern, raw }: { line: LogLine; tag: string; selected: boolean; zone: string; width: number; hscroll: number; pattern: UserPattern | null; raw: boolean }) {
  const text = inline(raw ? line.text : line.body);
  const shown = text.slice(hscroll, hscroll + width);
  const color = levelColor(line.level);
  const parts: Array<{ s: string; hit: boolean }> = [];
  if (pattern && shown) {
    let at = 0;
    for (const [a, b] of pattern.ranges(text)) {
      const s = Math.max(a - hscroll, 0);
      const e = Math.min(b - hscroll, shown.length);
      if (e <= s || s < at) continue;
      if (s > at) parts.push({ s: shown.slice(at, s), hit: false });
      parts.push({ s: shown.slice(s, e), hit: true });
      at = e;
    }
    if (at < shown.length) parts.push({ s: shown.slice(at), hit: false });
  } else parts.push({ s: shown, hit: false });
  return (
    <Line inverse={selected}>
      <T dim>{fmtTime(line.ts, zone, 'precise')}</T>
      {` ${tag}${line.level ?? ' '} `}
      {parts.map((p, i) => (
        <T key={i} color={p.hit ? 'yellowBright' : color} bold={p.hit} underline={p.hit}>
          {p.s}
        </T>
      ))}
    </Line>
  );
}
