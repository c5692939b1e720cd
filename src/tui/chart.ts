// The Node view's timeline as text rows over the node's log window: the PLEG row (stalls, NotReady, kubelet restarts;
// the text report's bar) and one density row per CRI operation that failed.
import { timelineBar } from '../report/timeline-bar.js';
import type { NodeData } from './model.js';

const LEVELS = ' ▁▂▃▄▅▆▇█';

export interface ChartRow {
  label: string;
  cells: string;
  kind: 'pleg' | 'op';
}

export function columnOf(t: number, span: { from: number; to: number }, width: number): number {
  return Math.min(width - 1, Math.max(0, Math.floor(((t - span.from) / (span.to - span.from)) * width)));
}

/** Chart rows: the PLEG row and up to `maxOps` operation rows (most errors first). */
export function chartRows(node: NodeData, span: { from: number; to: number }, width: number, maxOps: number): ChartRow[] {
  const rows: ChartRow[] = [];
  const bar = timelineBar(node.report, width);
  rows.push({ label: 'PLEG', cells: bar ?? '·'.repeat(width), kind: 'pleg' });
  const ops = [...node.criErrors.entries()].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0])).slice(0, Math.max(0, maxOps));
  const counts = ops.map(([, times]) => {
    const c: number[] = Array.from({ length: width }, () => 0);
    for (const t of times) {
      if (t < span.from || t > span.to) continue;
      const k = columnOf(t, span, width);
      c[k] = (c[k] ?? 0) + 1;
    }
    return c;
  });
  const max = Math.max(1, ...counts.flat());
  ops.forEach(([op, times], i) => {
    const c = counts[i] as number[];
    const cells = c.map((n) => (n === 0 ? ' ' : (LEVELS[Math.max(1, Math.ceil((n / max) * 8))] as string))).join('');
    rows.push({ label: `${op} ${times.length}`, cells, kind: 'op' });
  });
  return rows;
}
