// The TUI: header (where you are, in what), the current screen, footer (the keys that work here, or the prompt).
// Navigation state lives in a pure reducer (state.ts); the Log view executes the commands queued for it.
import { Box, useApp, useInput, useStdout } from 'ink';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { TuiModel } from './model.js';
import { MergedLog } from './logs.js';
import { current, footerHints, initialState, reduce, splitInput, type Action, type Env, type NavState, type Screen } from './state.js';
import { fmtTime, parseIsoMs } from './format.js';
import { Line, T, ThemeContext } from './ui.js';
import { Overview } from './views/Overview.js';
import { NodeView } from './views/NodeView.js';
import { FindingView } from './views/FindingView.js';
import { LogView } from './views/LogView.js';
import { Help } from './views/Help.js';
import { GapView } from './views/GapView.js';
import type { LogController } from './log-controller.js';
import { sanitizeLine } from '../util/sanitize.js';
import { VERDICT, verdictKind } from '../report/words.js';
import { cutMiddle } from '../report/layout.js';

export interface Size {
  columns: number;
  rows: number;
}

export const MIN_SIZE: Size = { columns: 60, rows: 12 };

/** The terminal's size, following resizes (or a fixed size, for tests). */
export function useSize(fixed?: Size): Size {
  const { stdout } = useStdout();
  const read = (): Size => ({ columns: stdout.columns || 80, rows: (stdout as { rows?: number }).rows || 24 });
  const [size, setSize] = useState<Size>(read);
  useEffect(() => {
    if (fixed) return;
    const on = () => setSize(read());
    stdout.on('resize', on);
    return () => {
      stdout.off('resize', on);
    };
  }, [stdout, fixed]);
  return fixed ?? size;
}

export interface AppProps {
  model: TuiModel;
  size?: Size;
  /** Tests: the Log view's controller, to wait for its reads. */
  onLogController?: (c: LogController) => void;
  initial?: NavState;
  /** Told when the user quits: the node to collect again (`c` in the overview), or null. */
  onQuit?: (recollect: string | null) => void;
}

/** What was last copied: run.ts prints it after the TUI leaves the alternate screen, so it stays in the scrollback. */
export const copied: { text: string | null } = { text: null };

/** OSC 52: the terminal (or tmux, with set-clipboard on; or ssh's client terminal) puts `text` on the clipboard. The text
 *  is the tool's own commands with the node's name quoted (rules/engine.ts renderCommand), base64-encoded. */
export function osc52(text: string): string {
  return `\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`;
}

export function App({ model, size, onLogController, initial, onQuit }: AppProps) {
  const dims = useSize(size);
  const env = useRef<Env>({ model, rows: dims.rows, cols: dims.columns });
  env.current = { model, rows: dims.rows, cols: dims.columns };
  const [state, setState] = useState<NavState>(() => initial ?? initialState());
  const dispatch = useCallback((a: Action) => setState((s) => reduce(env.current, s, a)), []);
  const { exit } = useApp();
  const { stdout } = useStdout();
  useInput((input, key) => {
    for (const k of splitInput(input, key)) dispatch({ type: 'key', input: k.input, key: k.key });
  });
  const merged = useRef(new Map<number, MergedLog>());
  useEffect(() => {
    if (!state.quit) return;
    onQuit?.(state.recollect ?? null);
    exit();
  }, [state.quit]);
  // A copy asked for (`y` in a gap): on the clipboard now, and printed once the screen is given back (run.ts).
  useEffect(() => {
    if (!state.copy) return;
    copied.text = state.copy.text;
    stdout.write(osc52(state.copy.text));
  }, [state.copy?.seq]);
  useEffect(() => () => {
    for (const m of merged.current.values()) m.close();
  }, []);

  const mergedFor = (node: number): MergedLog => {
    let m = merged.current.get(node);
    if (!m) {
      m = new MergedLog(model.nodes[node]?.sources ?? []);
      merged.current.set(node, m);
    }
    return m;
  };

  const { columns: cols, rows } = dims;
  if (cols < MIN_SIZE.columns || rows < MIN_SIZE.rows) {
    return (
      <ThemeContext.Provider value={{ color: model.color }}>
        <Box flexDirection="column">
          <Line>{`terminal too small (${cols}×${rows}); plegscope needs ${MIN_SIZE.columns}×${MIN_SIZE.rows}`}</Line>
          <Line>q quits</Line>
        </Box>
      </ThemeContext.Provider>
    );
  }
  const body = rows - 3;
  const top = current(state);
  // Help covers the screen without unmounting it: the Log view keeps its place and its reads.
  return (
    <ThemeContext.Provider value={{ color: model.color }}>
      <Box flexDirection="column" width={cols} height={rows}>
        <Header model={model} state={state} cols={cols} />
        {state.help ? <Help screen={top} rows={body} cols={cols} top={state.helpTop} /> : null}
        <Box flexDirection="column" height={body} display={state.help ? 'none' : 'flex'}>
          <ScreenView model={model} state={state} screen={top} rows={body} cols={cols} dispatch={dispatch} mergedFor={mergedFor} onLogController={onLogController} />
        </Box>
        <Footer state={state} cols={cols} />
      </Box>
    </ThemeContext.Provider>
  );
}

function ScreenView({ model, state, screen, rows, cols, dispatch, mergedFor, onLogController }: {
  model: TuiModel; state: NavState; screen: Screen; rows: number; cols: number; dispatch: (a: Action) => void; mergedFor: (n: number) => MergedLog; onLogController?: (c: LogController) => void;
}) {
  switch (screen.kind) {
    case 'overview': return <Overview model={model} state={state} rows={rows} cols={cols} />;
    case 'node': {
      const n = model.nodes[screen.node];
      return n ? <NodeView model={model} node={n} state={state} rows={rows} cols={cols} /> : null;
    }
    case 'finding': {
      const n = model.nodes[screen.node];
      return n ? <FindingView model={model} node={n} finding={screen.finding} state={state} rows={rows} cols={cols} /> : null;
    }
    case 'gap': {
      const n = model.nodes[screen.node];
      return n ? <GapView node={n} gap={screen.gap} hscroll={state.gap.hscroll} rows={rows} cols={cols} /> : null;
    }
    case 'log': {
      const n = model.nodes[screen.node];
      return n ? (
        <LogView key={`log-${screen.node}-${state.stack.length}`} node={n} merged={mergedFor(screen.node)} cmds={state.log.cmds} dispatch={dispatch} rows={rows} cols={cols} zone={model.zone} rawLines={state.log.raw} detail={state.log.detail} onController={onLogController} />
      ) : null;
    }
  }
}

/** Where you are, in at most `w` columns: a node name too long for them is cut in the middle. */
function crumbs(model: TuiModel, stack: Screen[], w: number): string {
  const parts = stack.map((s) => {
    switch (s.kind) {
      case 'overview': return 'Overview';
      case 'node': return sanitizeLine(model.nodes[s.node]?.report.name ?? '?', 300);
      case 'finding': return sanitizeLine(model.nodes[s.node]?.report.findings[s.finding]?.ruleId ?? 'finding', 60);
      case 'gap': return 'Gap';
      case 'log': return 'Log';
    }
  });
  const i = stack.findIndex((s) => s.kind === 'node');
  const all = parts.join(' ▸ ');
  if (i < 0 || all.length <= w) return all;
  const name = parts[i] as string;
  parts[i] = cutMiddle(name, Math.max(12, name.length - (all.length - w)));
  return parts.join(' ▸ ');
}

function Header({ model, state, cols }: { model: TuiModel; state: NavState; cols: number }) {
  const top = current(state);
  const right = `${model.zone}`;
  const left = ` plegscope  ${crumbs(model, state.stack, cols - right.length - 14)}`;
  const pad = Math.max(1, cols - left.length - right.length - 1);
  let context: string;
  if (top.kind === 'overview') context = clusterLine(model);
  else {
    const n = model.nodes[top.node]?.report;
    const from = fmtTime(parseIsoMs(n?.coverage.from ?? n?.window.start), model.zone, 'short');
    const to = fmtTime(parseIsoMs(n?.coverage.to ?? n?.window.end), model.zone, 'short');
    const srcs = model.nodes[top.node]?.sources.length ?? 0;
    context = ` ${from} → ${to} · ${srcs} log${srcs === 1 ? '' : 's'} · node ${sanitizeLine(n?.name ?? '?', 300)}`;
  }
  return (
    <>
      <Line inverse bold>{left + ' '.repeat(pad) + right + ' '}</Line>
      <Line dim>{context}</Line>
    </>
  );
}

function clusterLine(model: TuiModel): string {
  const ns = model.nodes.map((n) => n.report);
  const stalled = ns.filter((n) => verdictKind(n) === 'unhealthy').length;
  const nr = ns.filter((n) => verdictKind(n) === 'notready').length;
  const inputs = model.analysis.inputs.map((i) => sanitizeLine(i.path, 60)).join(', ');
  const waves = model.analysis.cluster?.waves ?? [];
  const wave = waves[0] ? ` · ${waves.length} wave${waves.length === 1 ? '' : 's'} (first ${fmtTime(parseIsoMs(waves[0].from), model.zone, 'short')}, ${waves[0].nodes.length} nodes)` : '';
  return ` ${ns.length} node${ns.length === 1 ? '' : 's'} · ${stalled} ${VERDICT.unhealthy} · ${nr} NotReady for another reason${wave} · ${inputs}`;
}

function Footer({ state, cols }: { state: NavState; cols: number }) {
  if (state.prompt) {
    const label = state.prompt.kind === 'command' ? ':' : state.prompt.kind === 'filter' ? '/' : 'go to time: ';
    return (
      <Line>
        <T bold>{label}</T>
        {sanitizeLine(state.prompt.text, 500)}
        <T inverse> </T>
        <T dim>{`   ${footerHints(state, cols - 4 - label.length - state.prompt.text.length)}`}</T>
      </Line>
    );
  }
  if (state.message) return <Line color="yellow">{' ' + sanitizeLine(state.message, 300)}</Line>;
  return <Line dim>{' ' + footerHints(state, cols - 1)}</Line>;
}
