// Navigation as a pure reducer: keys (and a few reports from the Log view) in, the next state out. Views render the
// state; the Log view executes the commands queued for it (its data is read asynchronously). Keys follow k9s and lnav:
// `?` help, `/` filter, `:` commands, j/k and arrows, enter drills down, esc goes back, q quits.
import { sanitizeLine } from '../util/sanitize.js';
import type { NodeReport } from '../contract/analysis.js';
import type { NodeData, TuiModel } from './model.js';
import { fmtTime, oneDay, parseIsoMs } from './format.js';
import { sourceOf } from './model.js';
import { parseWhen } from './when.js';
import { verdictKind } from '../report/words.js';
import { wrapWords } from '../report/layout.js';
import { idleOperation } from '../report/latency.js';

export type SortKey = 'name' | 'verdict' | 'cause' | 'confidence' | 'stalls' | 'longest' | 'when';
export const SORT_KEYS: SortKey[] = ['verdict', 'name', 'cause', 'confidence', 'stalls', 'longest', 'when'];

export type Section = 'findings' | 'stalls' | 'ruledOut' | 'gaps' | 'ops';
export const SECTIONS: Section[] = ['findings', 'stalls', 'ruledOut', 'gaps', 'ops'];
export const SECTION_TITLES: Record<Section, string> = { findings: 'Findings', stalls: 'Stalls', ruledOut: 'Ruled out', gaps: 'Gaps', ops: 'Operations' };

export type Screen =
  | { kind: 'overview' }
  | { kind: 'node'; node: number }
  | { kind: 'finding'; node: number; finding: number }
  | { kind: 'gap'; node: number; gap: number }
  | { kind: 'log'; node: number };

export type LogTarget = { kind: 'time'; ts: number } | { kind: 'line'; src: number; line: number; ts: number | null };

export type LogCmd =
  | { t: 'open'; at: LogTarget }
  | { t: 'move'; by: number }
  | { t: 'page'; by: number }
  | { t: 'home' }
  | { t: 'end' }
  | { t: 'find'; dir: 1 | -1 }
  | { t: 'error'; dir: 1 | -1 }
  | { t: 'time'; text: string }
  | { t: 'filter'; text: string }
  | { t: 'toggleFilter' }
  | { t: 'clearFilter' }
  | { t: 'cancel' }
  | { t: 'hscroll'; by: number }
  /** The screen changed size: reload the lines at the same place. */
  | { t: 'refresh' };

export type PromptKind = 'filter' | 'command' | 'time';

export interface NavState {
  stack: Screen[];
  overview: { cursor: number; sort: SortKey; desc: boolean; filter: string };
  node: { section: Section; cursors: Record<Section, number> };
  /** `expanded`: the summary, remedy and references take the screen (x), scrolled by `scroll` lines. */
  finding: { cursor: number; expanded: boolean; scroll: number };
  /** The Gap view's sideways scroll of its commands. */
  gap: { hscroll: number };
  /** The focused time: the Node view's timeline cursor and the Log view's selected line share it. */
  focus: number | null;
  prompt: { kind: PromptKind; text: string } | null;
  help: boolean;
  /** First line of the help shown (it scrolls when it is longer than the screen). */
  helpTop: number;
  message: string | null;
  /** Commands the user asked to copy (`y` in a gap): the App puts them on the clipboard (OSC 52) and they are printed
   *  when the TUI exits. `seq` tells a new request from the last one. */
  copy?: { text: string; seq: number };
  quit: boolean;
  /** `c` in the overview (a TUI started with --kubeconfig): the node to collect again before the view reopens. */
  recollect?: string | null;
  /** `detail`: the selected line shown in full (enter). */
  log: { cmds: Array<{ id: number; cmd: LogCmd }>; nextId: number; busy: boolean; filter: string | null; raw: boolean; detail: boolean };
}

/** The subset of ink's Key the reducer reads. */
export interface Keys {
  upArrow?: boolean;
  downArrow?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  home?: boolean;
  end?: boolean;
  return?: boolean;
  escape?: boolean;
  ctrl?: boolean;
  shift?: boolean;
  tab?: boolean;
  backspace?: boolean;
  delete?: boolean;
  meta?: boolean;
}

/**
 * Keys typed faster than the terminal is read arrive as one string ("j\r"): split them into single key presses.
 * Escape sequences are already separated by ink; a lone string with one character is left as it is.
 */
export function splitInput(input: string, key: Keys): Array<{ input: string; key: Keys }> {
  if (input.length <= 1 || key.ctrl || key.meta || key.escape || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow || key.pageUp || key.pageDown) return [{ input, key }];
  const out: Array<{ input: string; key: Keys }> = [];
  for (const ch of input) {
    const c = ch.charCodeAt(0);
    if (ch === '\r' || ch === '\n') out.push({ input: '', key: { return: true } });
    else if (ch === '\t') out.push({ input: '', key: { tab: true } });
    else if (c === 0x7f || c === 0x08) out.push({ input: '', key: { backspace: true } });
    else if (c < 0x20) out.push({ input: String.fromCharCode(c + 96), key: { ctrl: true } });
    else out.push({ input: ch, key: {} });
  }
  return out;
}

export type Action =
  | { type: 'key'; input: string; key: Keys }
  | { type: 'focus'; ts: number }
  | { type: 'logStatus'; busy: boolean; filter: string | null }
  | { type: 'logAck'; id: number }
  | { type: 'message'; text: string | null };

export interface Env {
  model: TuiModel;
  rows: number;
  cols: number;
}

export function initialState(): NavState {
  return {
    stack: [{ kind: 'overview' }],
    overview: { cursor: 0, sort: 'verdict', desc: false, filter: '' },
    node: { section: 'findings', cursors: { findings: 0, stalls: 0, ruledOut: 0, gaps: 0, ops: 0 } },
    finding: { cursor: 0, expanded: false, scroll: 0 },
    gap: { hscroll: 0 },
    focus: null,
    prompt: null,
    help: false,
    helpTop: 0,
    message: null,
    quit: false,
    log: { cmds: [], nextId: 1, busy: false, filter: null, raw: false, detail: false },
  };
}

export function current(s: NavState): Screen {
  return s.stack[s.stack.length - 1] as Screen;
}

// ---------------------------------------------------------------------------------------------------------------
// Derived data the views and the reducer share.

const VERDICT_RANK = { unhealthy: 0, notready: 1, unknown: 2, healthy: 3 } as const;

function verdictRank(n: NodeReport): number {
  return VERDICT_RANK[verdictKind(n)];
}

export function longestStall(n: NodeReport): number {
  return n.stalls.reduce((m, s) => Math.max(m, s.durationSeconds), 0);
}

/** When the node's first stall began: its last good relist (where every view starts a stall). */
export function firstStallAt(n: NodeReport): number | null {
  const t = n.stalls.map((s) => parseIsoMs(s.lastRelistAt)).filter((x): x is number => x !== null);
  return t.length ? t.reduce((m, x) => Math.min(m, x), Infinity) : null;
}

function causeOf(n: NodeReport): string {
  return n.verdict.primaryCause ?? (n.verdict.plegUnhealthy ? 'unknown' : '');
}

/** Overview rows: node indices after the filter, in the chosen order. */
export function overviewRows(model: TuiModel, o: NavState['overview']): number[] {
  const f = o.filter.trim().toLowerCase();
  const rows = model.nodes
    .map((n, i) => ({ n: n.report, i }))
    .filter(({ n }) => !f || n.name.toLowerCase().includes(f) || causeOf(n).includes(f) || n.findings.some((x) => x.cause.includes(f)));
  const cmp = (a: NodeReport, b: NodeReport): number => {
    switch (o.sort) {
      case 'name': return a.name.localeCompare(b.name);
      case 'verdict': return verdictRank(a) - verdictRank(b) || longestStall(b) - longestStall(a);
      case 'cause': return (causeOf(a) || '~').localeCompare(causeOf(b) || '~');
      case 'confidence': return b.verdict.confidence - a.verdict.confidence;
      case 'stalls': return b.stalls.length - a.stalls.length;
      case 'longest': return longestStall(b) - longestStall(a);
      case 'when': return (firstStallAt(a) ?? Infinity) - (firstStallAt(b) ?? Infinity);
    }
  };
  rows.sort((x, y) => (o.desc ? -1 : 1) * cmp(x.n, y.n) || x.n.name.localeCompare(y.n.name));
  return rows.map((r) => r.i);
}

export function sectionLength(n: NodeReport, s: Section): number {
  switch (s) {
    case 'findings': return n.findings.length;
    case 'stalls': return n.stalls.length;
    case 'ruledOut': return n.ruledOut.length;
    case 'gaps': return n.gaps.length;
    case 'ops': return n.operations.filter((o) => !idleOperation(o)).length;
  }
}

/** Whether the node's logs span more than one calendar day in `zone` (then times show their date). */
export function spansDays(n: NodeReport, zone: string): boolean {
  const span = timeSpan(n);
  return span !== null && !oneDay([span.from, span.to], zone);
}

/** The node's time span for the timeline: coverage (logs and metrics), else the log window. */
export function timeSpan(n: NodeReport): { from: number; to: number } | null {
  const a = parseIsoMs(n.coverage.from) ?? parseIsoMs(n.window.start);
  const b = parseIsoMs(n.coverage.to) ?? parseIsoMs(n.window.end);
  if (a === null || b === null || b < a) return null;
  return { from: a, to: Math.max(b, a + 1000) };
}

/** Where the timeline's cursor starts: the first stall, else the first NotReady window, else the start. */
export function defaultFocus(n: NodeReport): number | null {
  const s = n.stalls[0];
  if (s) return parseIsoMs(s.unhealthyFrom) ?? parseIsoMs(s.lastRelistAt);
  const w = n.notReady[0];
  if (w) return parseIsoMs(w.from);
  return timeSpan(n)?.from ?? null;
}

/** Times worth jumping to with [ and ]: stall starts and ends, NotReady windows, restarts. */
export function eventTimes(n: NodeReport): number[] {
  const t: Array<number | null> = [];
  for (const s of n.stalls) t.push(parseIsoMs(s.unhealthyFrom), parseIsoMs(s.endedAt));
  for (const w of n.notReady) t.push(parseIsoMs(w.from), parseIsoMs(w.to));
  for (const r of n.restarts) t.push(parseIsoMs(r.at));
  return [...new Set(t.filter((x): x is number => x !== null))].sort((a, b) => a - b);
}

/** Width of the timeline's label column. */
export const CHART_LABEL = 18;

export function chartWidth(cols: number): number {
  return Math.max(10, cols - CHART_LABEL - 1);
}

/** Rows of the body (between header and footer). */
export function bodyRows(rows: number): number {
  return Math.max(4, rows - 3);
}

/** Lines of the Log view's list. */
export function logRows(rows: number): number {
  return Math.max(3, bodyRows(rows) - 2);
}

// ---------------------------------------------------------------------------------------------------------------

function clamp(x: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, x));
}

function queue(s: NavState, ...cmds: LogCmd[]): NavState {
  let id = s.log.nextId;
  const added = cmds.map((cmd) => ({ id: id++, cmd }));
  return { ...s, log: { ...s.log, cmds: [...s.log.cmds, ...added], nextId: id } };
}

function push(s: NavState, screen: Screen): NavState {
  return { ...s, stack: [...s.stack, screen] };
}

function back(s: NavState): NavState {
  if (s.stack.length <= 1) return s;
  return { ...s, stack: s.stack.slice(0, -1) };
}

function openNode(s: NavState, env: Env, node: number): NavState {
  const n = env.model.nodes[node];
  if (!n) return s;
  const next = push(s, { kind: 'node', node });
  return { ...next, node: { section: 'findings', cursors: { findings: 0, stalls: 0, ruledOut: 0, gaps: 0, ops: 0 } }, focus: defaultFocus(n.report) };
}

function openLog(s: NavState, env: Env, node: number, at: LogTarget): NavState {
  const n = env.model.nodes[node];
  if (!n) return s;
  if (n.sources.length === 0) return { ...s, message: `no log lines to show for ${n.report.name} (no kubelet, runtime or kernel log in the input)` };
  const top = current(s);
  const base = top.kind === 'log' && top.node === node ? s : push(s, { kind: 'log', node });
  const focus = at.kind === 'time' ? at.ts : at.ts ?? s.focus;
  const same = base === s;
  return queue({ ...base, focus, log: { ...base.log, cmds: same ? base.log.cmds : [], busy: true, filter: same ? base.log.filter : null, detail: false } }, { t: 'open', at });
}

/** From the Log view to the node's timeline (keeping the focused time). */
function toTimeline(s: NavState, env: Env, node: number): NavState {
  const i = s.stack.findIndex((x) => x.kind === 'node' && x.node === node);
  if (i >= 0) return { ...s, stack: s.stack.slice(0, i + 1) };
  const focus = s.focus;
  return { ...openNode(s, env, node), focus: focus ?? defaultFocus((env.model.nodes[node] as NodeData).report) };
}

export function reduce(env: Env, s: NavState, a: Action): NavState {
  switch (a.type) {
    case 'focus': return s.focus === a.ts ? s : { ...s, focus: a.ts };
    case 'logStatus': return s.log.busy === a.busy && s.log.filter === a.filter ? s : { ...s, log: { ...s.log, busy: a.busy, filter: a.filter } };
    case 'logAck': return { ...s, log: { ...s.log, cmds: s.log.cmds.filter((c) => c.id > a.id) } };
    case 'message': return { ...s, message: a.text };
    case 'key': return onKey(env, { ...s, message: null }, a.input, a.key);
  }
}

function onKey(env: Env, s: NavState, input: string, key: Keys): NavState {
  if (key.ctrl && input === 'c') return { ...s, quit: true };
  if (s.prompt) return onPromptKey(env, s, input, key);
  if (s.help) {
    if (key.escape || input === '?') return { ...s, help: false };
    if (input === 'q') return { ...s, quit: true };
    const moved = listMove(s.helpTop, helpLines(current(s), env.cols).length, input, key, bodyRows(env.rows) - 2);
    return moved !== null ? { ...s, helpTop: moved } : s;
  }
  if (input === '?') return { ...s, help: true, helpTop: 0 };
  if (input === ':') return { ...s, prompt: { kind: 'command', text: '' } };
  const top = current(s);
  if (input === 'q') return { ...s, quit: true };
  switch (top.kind) {
    case 'overview': return overviewKey(env, s, input, key);
    case 'node': return nodeKey(env, s, top.node, input, key);
    case 'finding': return findingKey(env, s, top, input, key);
    case 'gap': return gapKey(env, s, top, input, key);
    case 'log': return logKey(env, s, top.node, input, key);
  }
}

function isDown(input: string, key: Keys): boolean {
  return key.downArrow === true || input === 'j';
}

function isUp(input: string, key: Keys): boolean {
  return key.upArrow === true || input === 'k';
}

function listMove(cursor: number, len: number, input: string, key: Keys, page: number): number | null {
  if (isDown(input, key)) return clamp(cursor + 1, 0, Math.max(0, len - 1));
  if (isUp(input, key)) return clamp(cursor - 1, 0, Math.max(0, len - 1));
  if (key.pageDown || (key.ctrl && input === 'f')) return clamp(cursor + page, 0, Math.max(0, len - 1));
  if (key.pageUp || (key.ctrl && input === 'b')) return clamp(cursor - page, 0, Math.max(0, len - 1));
  if (key.home || input === 'g') return 0;
  if (key.end || input === 'G') return Math.max(0, len - 1);
  return null;
}

function overviewKey(env: Env, s: NavState, input: string, key: Keys): NavState {
  const rows = overviewRows(env.model, s.overview);
  const o = s.overview;
  const moved = listMove(o.cursor, rows.length, input, key, bodyRows(env.rows) - 3);
  if (moved !== null) return { ...s, overview: { ...o, cursor: moved } };
  if (key.return || key.rightArrow) {
    const node = rows[clamp(o.cursor, 0, rows.length - 1)];
    return node === undefined ? s : openNode(s, env, node);
  }
  if (input === '/') return { ...s, prompt: { kind: 'filter', text: o.filter } };
  if (input === 's' || input === 'S') {
    const sort = input === 's' ? (SORT_KEYS[(SORT_KEYS.indexOf(o.sort) + 1) % SORT_KEYS.length] as SortKey) : o.sort;
    return { ...s, overview: { ...o, sort, desc: input === 'S' ? !o.desc : false } };
  }
  if (key.escape && o.filter) return { ...s, overview: { ...o, filter: '', cursor: 0 } };
  if (input === 'c') {
    const node = env.model.nodes[rows[clamp(o.cursor, 0, rows.length - 1)] ?? -1]?.report.name;
    if (!env.model.collect) return { ...s, message: 'c collects a node again when the TUI was started from a cluster: plegscope tui --kubeconfig FILE NODE…' };
    return node === undefined ? s : { ...s, recollect: node, quit: true };
  }
  return s;
}

function nodeKey(env: Env, s: NavState, node: number, input: string, key: Keys): NavState {
  const n = env.model.nodes[node];
  if (!n) return back(s);
  const r = n.report;
  const st = s.node;
  if (key.escape || key.backspace) return back(s);
  const secIdx = SECTIONS.indexOf(st.section);
  if (key.tab) {
    const next = SECTIONS[(secIdx + (key.shift ? SECTIONS.length - 1 : 1)) % SECTIONS.length] as Section;
    return { ...s, node: { ...st, section: next } };
  }
  if (/^[1-5]$/.test(input)) return { ...s, node: { ...st, section: SECTIONS[Number(input) - 1] as Section } };
  const len = sectionLength(r, st.section);
  const moved = listMove(st.cursors[st.section], len, input, key, 5);
  if (moved !== null) return { ...s, node: { ...st, cursors: { ...st.cursors, [st.section]: moved } } };
  const span = timeSpan(r);
  if ((key.leftArrow || key.rightArrow || input === 'h' || input === 'H' || input === 'L' || input === '<' || input === '>') && span) {
    const step = (span.to - span.from) / chartWidth(env.cols);
    const dir = key.leftArrow || input === 'h' || input === 'H' || input === '<' ? -1 : 1;
    const mult = input === 'H' || input === 'L' || input === '<' || input === '>' || key.shift ? 10 : 1;
    const base = s.focus ?? span.from;
    return { ...s, focus: clamp(base + dir * mult * step, span.from, span.to) };
  }
  if (input === '[' || input === ']') {
    const times = eventTimes(r);
    const base = s.focus ?? span?.from ?? 0;
    const t = input === ']' ? times.find((x) => x > base + 500) : [...times].reverse().find((x) => x < base - 500);
    return t === undefined ? { ...s, message: input === ']' ? 'no later event' : 'no earlier event' } : { ...s, focus: t };
  }
  if (input === 'l') {
    const at = s.focus ?? defaultFocus(r);
    return at === null ? { ...s, message: 'no time to open the log at' } : openLog(s, env, node, { kind: 'time', ts: at });
  }
  if (input === 't') return span ? { ...s, prompt: { kind: 'time', text: '' } } : { ...s, message: 'no times in this node\'s logs' };
  if (key.return) {
    const c = st.cursors[st.section];
    if (st.section === 'findings' && r.findings[c]) return { ...push(s, { kind: 'finding', node, finding: c }), finding: { cursor: 0, expanded: false, scroll: 0 } };
    if (st.section === 'gaps' && r.gaps[c]) return { ...push(s, { kind: 'gap', node, gap: c }), gap: { hscroll: 0 } };
    if (st.section === 'stalls' && r.stalls[c]) {
      const stall = r.stalls[c];
      const at = parseIsoMs(stall.unhealthyFrom) ?? parseIsoMs(stall.lastRelistAt);
      if (at !== null) return openLog({ ...s, focus: at }, env, node, { kind: 'time', ts: at });
    }
    return s;
  }
  return s;
}

function findingKey(env: Env, s: NavState, top: Extract<Screen, { kind: 'finding' }>, input: string, key: Keys): NavState {
  const n = env.model.nodes[top.node];
  const f = n?.report.findings[top.finding];
  if (!n || !f) return back(s);
  const fs = s.finding;
  if (input === 'x') return { ...s, finding: { ...fs, expanded: !fs.expanded, scroll: 0 } };
  if (fs.expanded) {
    if (key.escape || key.backspace) return { ...s, finding: { ...fs, expanded: false, scroll: 0 } };
    // The prose scrolls; the view clamps what is past its end.
    const moved = listMove(fs.scroll, 10_000, input, key, Math.max(1, bodyRows(env.rows) - 4));
    return moved !== null ? { ...s, finding: { ...fs, scroll: moved } } : s;
  }
  if (key.escape || key.backspace) return back(s);
  const moved = listMove(fs.cursor, f.evidence.length, input, key, 5);
  if (moved !== null) return { ...s, finding: { ...fs, cursor: moved } };
  if (key.return || input === 'l') {
    const ev = f.evidence[fs.cursor];
    if (!ev) return { ...s, message: 'this finding cites no log line' };
    const src = sourceOf(n, ev.file);
    const ts = parseIsoMs(ev.ts);
    if (src < 0) {
      if (ts !== null && n.sources.length > 0) return openLog(s, env, top.node, { kind: 'time', ts });
      return { ...s, message: `${ev.file} is not a log of this node (metrics or another file): nothing to open` };
    }
    return openLog(s, env, top.node, { kind: 'line', src, line: ev.line, ts });
  }
  return s;
}

function gapKey(env: Env, s: NavState, top: Extract<Screen, { kind: 'gap' }>, input: string, key: Keys): NavState {
  if (key.escape || key.backspace) return back(s);
  // Scrolled at most until the longest command's end is in view (GapView shows them from column 3).
  const lines = env.model.nodes[top.node]?.report.gaps[top.gap]?.collect.split('\n') ?? [];
  const max = Math.max(0, ...lines.map((l) => l.length - (env.cols - 3)));
  const to = (x: number): NavState => ({ ...s, gap: { hscroll: clamp(x, 0, max) } });
  if (key.leftArrow || input === 'h') return to(s.gap.hscroll - 20);
  if (key.rightArrow || input === 'l') return to(s.gap.hscroll + 20);
  if (key.home || input === '0' || input === 'g') return to(0);
  if (key.end || input === '$' || input === 'G') return to(max);
  if (input === 'y' || input === 'c') {
    // The commands without their comment lines, whole: what a paste into a shell on the node needs.
    const text = lines.filter((l) => l.trim() !== '' && !l.startsWith('#')).map((l) => sanitizeLine(l, 4000)).join('\n');
    if (!text) return { ...s, message: 'no command to copy' };
    return { ...s, copy: { text, seq: (s.copy?.seq ?? 0) + 1 }, message: 'copied to the clipboard (OSC 52); printed again when you quit' };
  }
  return s;
}

function logKey(env: Env, s: NavState, node: number, input: string, key: Keys): NavState {
  const page = logRows(env.rows);
  if (s.log.detail && (key.escape || key.return || key.backspace)) return { ...s, log: { ...s.log, detail: false } };
  if (key.escape) {
    if (s.log.busy) return queue(s, { t: 'cancel' });
    if (s.log.filter !== null) return queue(s, { t: 'clearFilter' });
    return back(s);
  }
  if (key.return) return { ...s, log: { ...s.log, detail: true } };
  if (isDown(input, key)) return queue(s, { t: 'move', by: 1 });
  if (isUp(input, key)) return queue(s, { t: 'move', by: -1 });
  if (key.pageDown || input === ' ' || (key.ctrl && input === 'f')) return queue(s, { t: 'page', by: 1 });
  if (key.pageUp || input === 'b' || (key.ctrl && input === 'b')) return queue(s, { t: 'page', by: -1 });
  if (key.ctrl && input === 'd') return queue(s, { t: 'move', by: Math.floor(page / 2) });
  if (key.ctrl && input === 'u') return queue(s, { t: 'move', by: -Math.floor(page / 2) });
  if (key.home || input === 'g') return queue(s, { t: 'home' });
  if (key.end || input === 'G') return queue(s, { t: 'end' });
  if (key.leftArrow || input === 'h') return queue(s, { t: 'hscroll', by: -20 });
  if (key.rightArrow) return queue(s, { t: 'hscroll', by: 20 });
  if (input === 'n' || input === 'N') {
    if (s.log.filter === null) return { ...s, message: 'no filter yet: press / and type a pattern' };
    return queue(s, { t: 'find', dir: input === 'n' ? 1 : -1 });
  }
  if (input === 'e' || input === 'E') return queue(s, { t: 'error', dir: input === 'e' ? 1 : -1 });
  if (input === 'f') {
    if (s.log.filter === null) return { ...s, message: 'no filter yet: press / and type a pattern' };
    return queue(s, { t: 'toggleFilter' });
  }
  if (input === '/') return { ...s, prompt: { kind: 'filter', text: '' } };
  if (input === 'v') return { ...s, log: { ...s.log, raw: !s.log.raw } };
  if (input === 't') return { ...s, prompt: { kind: 'time', text: '' } };
  if (input === 'i' || key.tab) return toTimeline(s, env, node);
  if (key.backspace) return back(s);
  return s;
}

function onPromptKey(env: Env, s: NavState, input: string, key: Keys): NavState {
  const p = s.prompt as NonNullable<NavState['prompt']>;
  const top = current(s);
  const live = p.kind === 'filter' && top.kind === 'overview';
  if (key.escape) {
    const next = { ...s, prompt: null };
    // A live overview filter typed and abandoned is dropped.
    return live ? { ...next, overview: { ...next.overview, filter: '', cursor: 0 } } : next;
  }
  if (key.return) return submit(env, { ...s, prompt: null }, p.kind, p.text.trim() === '' && p.kind === 'filter' ? '' : p.text);
  let text = p.text;
  if (key.backspace || key.delete) text = text.slice(0, -1);
  else if (key.ctrl && input === 'u') text = '';
  else if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) return s;
  // Pasted text arrives as one input: keep its printable part.
  // eslint-disable-next-line no-control-regex
  else text = (text + input.replace(/[\u0000-\u001f\u007f-\u009f]/g, '')).slice(0, 500);
  const next = { ...s, prompt: { ...p, text } };
  return live ? { ...next, overview: { ...next.overview, filter: text, cursor: 0 } } : next;
}

function submit(env: Env, s: NavState, kind: PromptKind, text: string): NavState {
  const top = current(s);
  if (kind === 'filter') {
    if (top.kind === 'overview') return { ...s, overview: { ...s.overview, filter: text.trim(), cursor: 0 } };
    if (top.kind === 'log') return text === '' ? queue(s, { t: 'clearFilter' }) : queue(s, { t: 'filter', text });
    return s;
  }
  if (kind === 'time') return text.trim() ? jumpTo(env, s, text) : s;
  return command(env, s, text.trim());
}

/** `t` and `:time`: the Log view jumps to the line at that time; the Node view moves its timeline cursor there. */
function jumpTo(env: Env, s: NavState, text: string): NavState {
  const top = current(s);
  if (top.kind === 'log') return queue(s, { t: 'time', text });
  if (top.kind !== 'node') return { ...s, message: ':time moves a time cursor: on a node\'s timeline or in its log' };
  const r = (env.model.nodes[top.node] as NodeData).report;
  const span = timeSpan(r);
  if (!span) return { ...s, message: 'no times in this node\'s logs' };
  const w = parseWhen(text, s.focus, env.model.zone, { start: span.from, end: span.to });
  if (!w.ok) return { ...s, message: w.error };
  if (w.ms < span.from || w.ms > span.to) {
    return { ...s, message: `${fmtTime(w.ms, env.model.zone, 'short')} is outside this node's logs (${fmtTime(span.from, env.model.zone, 'short')} → ${fmtTime(span.to, env.model.zone, 'short')})` };
  }
  return { ...s, focus: w.ms };
}

/** `:` commands (k9s style). */
function command(env: Env, s: NavState, text: string): NavState {
  const [verb = '', ...rest] = text.split(/\s+/);
  const arg = rest.join(' ');
  const top = current(s);
  const nodeIdx = top.kind === 'overview' ? null : top.node;
  switch (verb) {
    case '': return s;
    case 'q': case 'q!': case 'quit': case 'exit': return { ...s, quit: true };
    case 'help': case 'h': return { ...s, help: true };
    case 'o': case 'overview': case 'nodes': case 'no': case 'cluster':
      return { ...s, stack: [{ kind: 'overview' }], overview: { ...s.overview, filter: arg || s.overview.filter } };
    case 'node': case 'n': {
      if (!arg) return nodeIdx !== null ? toTimeline(s, env, nodeIdx) : { ...s, message: ':node NAME (name or its start)' };
      const i = findNode(env, arg);
      return i < 0 ? { ...s, message: `no node matches "${arg}"` } : openNode({ ...s, stack: [{ kind: 'overview' }] }, env, i);
    }
    case 'log': case 'logs': case 'l': {
      const i = arg ? findNode(env, arg) : nodeIdx ?? (env.model.nodes.length === 1 ? 0 : -1);
      if (i < 0) return { ...s, message: arg ? `no node matches "${arg}"` : 'open a node first, or :log NAME' };
      const n = env.model.nodes[i] as NodeData;
      const at = (i === nodeIdx ? s.focus : null) ?? defaultFocus(n.report);
      return at === null ? { ...s, message: 'no time to open the log at' } : openLog(s, env, i, { kind: 'time', ts: at });
    }
    case 'sort': {
      const k = SORT_KEYS.find((x) => x.startsWith(arg.toLowerCase()));
      return k ? { ...s, overview: { ...s.overview, sort: k, desc: false } } : { ...s, message: `sort by: ${SORT_KEYS.join(', ')}` };
    }
    case 't': case 'time': case 'goto':
      return arg ? jumpTo(env, s, arg) : { ...s, message: ':time T (10:03, 03-11 10:03, ISO, +5m, -30s, start, end)' };
    case 'filter': case 'f':
      if (top.kind === 'log') return arg ? queue(s, { t: 'filter', text: arg }) : queue(s, { t: 'clearFilter' });
      if (top.kind === 'overview') return { ...s, overview: { ...s.overview, filter: arg, cursor: 0 } };
      return s;
    default:
      return { ...s, message: `unknown command ":${verb}" (try :q, :nodes, :node NAME, :log, :sort KEY, :time T, :filter RE, :help)` };
  }
}

function findNode(env: Env, name: string): number {
  const q = name.toLowerCase();
  const exact = env.model.nodes.findIndex((n) => n.report.name.toLowerCase() === q);
  if (exact >= 0) return exact;
  return env.model.nodes.findIndex((n) => n.report.name.toLowerCase().startsWith(q) || n.report.name.toLowerCase().includes(q));
}

type Hint = [keys: string, what: string];

/** The keys that work on this screen, most useful first (the footer shows as many as fit, then `? help`). */
function hintsFor(s: NavState): Hint[] {
  if (s.prompt) return s.prompt.kind === 'command' ? [['enter', 'run'], ['esc', 'cancel'], ['ctrl-u', 'clear']] : [['enter', 'apply'], ['esc', 'cancel'], ['ctrl-u', 'clear']];
  if (s.help) return [['j/k', 'scroll'], ['esc/?', 'close help'], ['q', 'quit']];
  const top = current(s);
  switch (top.kind) {
    case 'overview': return [['↑↓', 'move'], ['enter', 'open'], ['/', 'filter'], ['s/S', 'sort'], [':', 'cmd'], ['q', 'quit']];
    case 'node': return [['↑↓', 'move'], ['tab/1-5', 'section'], ['enter', 'open'], ['←→ []', 'time'], ['t', 'go to time'], ['l', 'log'], ['esc', 'back']];
    case 'finding': return s.finding.expanded
      ? [['j/k', 'scroll'], ['x/esc', 'back to the evidence'], ['q', 'quit']]
      : [['↑↓', 'move'], ['enter', 'line in log'], ['x', 'read all'], ['esc', 'back'], ['q', 'quit']];
    case 'gap': return [['←→', 'scroll commands'], ['y', 'copy'], ['esc', 'back'], ['q', 'quit']];
    case 'log':
      if (s.log.busy) return [['esc', 'cancel search']];
      if (s.log.detail) return [['↑↓', 'previous/next line'], ['enter/esc', 'close']];
      return [['↑↓ pgup/pgdn', 'scroll'], ['enter', 'line'], ['/', 'filter'], ['n/N', 'match'], ['e/E', 'error'], ['t', 'time'], ['f', 'only matches'], ['i', 'timeline'], ['esc', 'back']];
  }
}

/** The footer's key hints in at most `cols` columns: as many as fit, in order, and `? help` whenever help exists. */
export function footerHints(s: NavState, cols = 200): string {
  const hints = hintsFor(s);
  const help = s.prompt || s.help ? '' : '? help';
  const room = cols - 2 - (help ? help.length + 2 : 0);
  const parts: string[] = [];
  let used = 0;
  for (const [k, what] of hints) {
    const t = `${k} ${what}`;
    if (used + t.length + (parts.length ? 2 : 0) > room) break;
    used += t.length + (parts.length ? 2 : 0);
    parts.push(t);
  }
  if (help) parts.push(help);
  return parts.join('  ');
}

export interface HelpSection {
  title: string;
  keys: Array<[string, string]>;
}

export function helpFor(screen: Screen): HelpSection[] {
  const global: HelpSection = {
    title: 'Everywhere',
    keys: [['?', 'this help (j/k scroll it)'], [':', 'command: :q  :nodes  :node NAME  :log [NAME]  :sort KEY  :time T  :filter RE'], ['esc', 'back / cancel / clear filter'], ['q, ctrl-c', 'quit']],
  };
  const time: [string, string] = ['t, :time T', 'go to a time: 10:03, 10:03:30, 03-11 10:03, ISO, +5m, -30s, start, end'];
  const per: Record<Screen['kind'], HelpSection[]> = {
    overview: [{ title: 'Overview (one row per node)', keys: [['j/k ↑/↓ pgup/pgdn g/G', 'move'], ['enter', 'open the node'], ['/', 'filter by node name or cause (as you type)'], ['s / S', 'sort by the next column / reverse'], ['c', 'collect the node again (a TUI started with --kubeconfig)']] },
      { title: 'Columns', keys: [['PLEG', 'unhealthy: PLEG stalled (no relist for longer than the threshold); no stall, NotReady: no PLEG stall — NotReady for another reason'], ['TIMELINE', 'every node on one time axis (a wide screen): █ stall, ▒ NotReady, | kubelet start, · healthy, ╌ no data (before its log starts, after it ends)'], ['CAUSE CONF', 'the primary cause and how sure the rules are of it'], ['LONGEST', 'the longest stall: time without a completed relist'], ['FIRST STALL', 'when the node\'s first stall began: its last good relist']] }],
    node: [{ title: 'Node (timeline, findings, stalls, ruled out, gaps, operations)', keys: [['tab, 1-5', 'switch section'], ['j/k ↑/↓', 'move in the section'], ['enter', 'open the finding / the log at the stall / the commands of a gap'], ['←/→ h, H/L', 'move the timeline cursor (H/L: 10 steps)'], ['[ / ]', 'previous / next event (stall, NotReady, restart)'], time, ['l', 'open the Log at the cursor time']] },
      { title: 'Timeline', keys: [['█ ▒ |', 'PLEG stall, NotReady without a stall, kubelet start'], ['▁▂▃…█', 'CRI errors per column, one row per operation']] },
      OPS_LEGEND],
    finding: [{ title: 'Finding (summary, remedy, references and evidence)', keys: [['j/k ↑/↓', 'move between evidence lines'], ['enter', 'open the Log at this line, with context'], ['x', 'read the summary, remedy and references in full (j/k scroll; x or esc: back)']] }],
    gap: [{ title: 'Gap (what is missing and the commands that collect it)', keys: [['←/→ h/l', 'scroll the commands sideways (each command is one line)'], ['g / G, home/end', 'to their start / to the end of the longest'], ['y, c', 'copy the commands to the clipboard (OSC 52: works over ssh and in tmux with set-clipboard on); they are printed again when you quit'], ['esc', 'back to the node']] }],
    log: [{ title: "Log (the node's kubelet, runtime and kernel lines by time)", keys: [['j/k ↑/↓', 'previous / next line'], ['space/b pgdn/pgup', 'next / previous page'], ['g / G', 'first / last line'], ['enter', 'the selected line in full: every field, wrapped'], ['←/→', 'scroll sideways'], ['/', 'filter: regex (RE2; lower case = any case); the header counts the matches'], ['f', 'show only matching lines / all lines'], ['n / N', 'next / previous match'], ['e / E', 'next / previous error'], time, ['v', 'whole lines as read / compact (time, source, level, message)'], ['i, tab', 'timeline of this node at the focused time']] },
      { title: 'Log columns', keys: [['time', 'in the zone of the header (with the date when the logs span days)'], ['K R N', 'source: K kubelet, R container runtime, N kernel'], ['F E W I', 'level: F fatal, E error, W warning, I info; blank when the line has none']] }],
  };
  return [...per[screen.kind], global];
}

/** The help as lines of at most `cols` columns: descriptions wrap under themselves. */
/** What the Operations section's cells mean (the section shows this itself only when its rows leave room). */
const OPS_LEGEND: { title: string; keys: Array<[string, string]> } = {
  title: 'Operations (cells)',
  keys: [
    ['a–b', 'a quantile from a histogram: known only to lie in that bucket, above a and at most b (≤b: in the first one); --format json has PromQL\'s interpolated value'],
    ['> b', 'beyond the last bucket: at least b, how many calls were is said beside it'],
    ['mean', 'exact, from _sum and _count over the metrics window'],
    ['metrics │ whole log', 'calls, errors and latency of the metrics window left of │; errors and timeouts of the whole log right of it'],
  ],
};

export function helpLines(screen: Screen, cols: number): Array<{ text: string; bold?: boolean }> {
  const lines: Array<{ text: string; bold?: boolean }> = [];
  for (const sec of helpFor(screen)) {
    if (lines.length) lines.push({ text: '' });
    lines.push({ text: sec.title.length > cols ? sec.title.slice(0, cols - 1) + '…' : sec.title, bold: true });
    const kw = Math.min(Math.floor(cols / 3), Math.max(...sec.keys.map(([k]) => k.length)) + 2);
    for (const [k, what] of sec.keys) {
      const keyText = k.length + 2 > kw ? k : k.padEnd(kw - 2);
      if (k.length + 2 > kw) lines.push({ text: `  ${keyText}` });
      const body = wrapWords(what, cols - 2 - kw);
      body.forEach((b, i) => lines.push({ text: `  ${i === 0 && k.length + 2 <= kw ? keyText + '  ' : ' '.repeat(kw)}${b}` }));
    }
  }
  return lines;
}
