// The one-line timeline every view draws (text report, TUI, the fleet timeline of text, HTML and the TUI overview): per
// column of a time axis, what the node's input says of that time. Reads only the Analysis.
//   █ stall (PLEG unhealthy)   ▒ NotReady without a stall   | kubelet start   · healthy   ╌ no data
// "No data" is time the node's input does not cover (before its first line or after its last, on a shared axis) or does
// not decide (a stall's end known only to lie between two lines): unknown time is neither stall nor healthy.
import type { NodeReport } from '../contract/analysis.js';

export const NO_DATA = '╌';
export const TIMELINE_LEGEND = `█ stall  ▒ NotReady  | kubelet start  ${NO_DATA} no data`;

/** A time axis: epoch ms from `a` to `b` (b > a). */
export interface Axis {
  a: number;
  b: number;
}

/** The node's own axis: its log window. Null when it has no times. */
export function nodeAxis(node: NodeReport): Axis | null {
  const a = Date.parse(node.coverage.from ?? node.window.start ?? '');
  const b = Date.parse(node.coverage.to ?? node.window.end ?? '');
  return Number.isFinite(a) && Number.isFinite(b) && b > a ? { a, b } : null;
}

/** The node's timeline in `width` columns over `axis` (default: its own window); null when it has no times. */
export function timelineBar(node: NodeReport, width: number, axis: Axis | null = nodeAxis(node)): string | null {
  const own = nodeAxis(node);
  if (!axis || !own) return null;
  const { a, b } = axis;
  const col = (t: number): number => Math.min(width - 1, Math.max(0, Math.floor(((t - a) / (b - a)) * width)));
  const cells: string[] = Array.from({ length: width }, (_, i) => {
    // A column's time span, against what the node's input covers.
    const t0 = a + ((b - a) * i) / width;
    const t1 = a + ((b - a) * (i + 1)) / width;
    return t1 <= own.a || t0 >= own.b ? NO_DATA : '·';
  });
  // The last column a span reaches: an end on a column's boundary does not spill into the next one.
  const last = (t: number): number => Math.min(width - 1, Math.max(0, Math.ceil(((t - a) / (b - a)) * width) - 1));
  const paint = (from: number, to: number, ch: string): void => {
    if (from > b || to < a) return;
    const i0 = col(Math.max(from, a));
    for (let i = i0; i <= Math.max(i0, last(Math.min(to, b))); i++) cells[i] = ch;
  };
  for (const w of node.notReady) paint(Date.parse(w.from), w.to ? Date.parse(w.to) : own.b, '▒');
  for (const s of node.stalls) {
    // A stall whose lines carry no time has no place on the bar.
    if (s.unhealthyFrom === null) continue;
    const from = Date.parse(s.unhealthyFrom);
    if (s.endedBetween) {
      paint(from, Date.parse(s.endedBetween.from), '█');
      paint(Date.parse(s.endedBetween.from), s.endedBetween.to ? Date.parse(s.endedBetween.to) : own.b, NO_DATA);
    } else paint(from, s.endedAt ? Date.parse(s.endedAt) : own.b, '█');
  }
  for (const r of node.restarts) {
    const t = Date.parse(r.at);
    if (t >= a && t <= b) cells[col(t)] = '|';
  }
  return cells.join('');
}

/** Nodes drawn on the fleet timeline at most (the rest are counted). */
export const FLEET_ROWS = 30;

/**
 * Several nodes on one time axis, so that their flaps line up: the nodes that stalled, then those NotReady for another
 * reason, then the others, up to FLEET_ROWS. Null for fewer than two nodes or none with times.
 */
export function fleetTimeline(nodes: readonly NodeReport[], width: number): { axis: Axis; rows: Array<{ name: string; cells: string }>; left: number } | null {
  if (nodes.length < 2) return null;
  const axes = nodes.map(nodeAxis).filter((x): x is Axis => x !== null);
  if (axes.length === 0) return null;
  const axis = { a: Math.min(...axes.map((x) => x.a)), b: Math.max(...axes.map((x) => x.b)) };
  const rank = (n: NodeReport): number => (n.stalls.length > 0 ? 0 : n.notReady.length > 0 ? 1 : 2);
  const first = (n: NodeReport): number => Date.parse(n.stalls[0]?.unhealthyFrom ?? n.notReady[0]?.from ?? '') || Infinity;
  const ordered = [...nodes].sort((x, y) => rank(x) - rank(y) || first(x) - first(y) || x.name.localeCompare(y.name));
  const rows = ordered.slice(0, FLEET_ROWS).map((n) => ({ name: n.name, cells: timelineBar(n, width, axis) ?? NO_DATA.repeat(width) }));
  return { axis, rows, left: ordered.length - rows.length };
}
