// Latencies and CRI operation counts as every view writes them: a quantile from histogram buckets with the bucket it
// lies in (never a bound as if measured), beyond the last bucket as "> 10s" with how many observations lie there, a
// summary's quantile as exact over the kubelet's own window, the exact window mean beside them; and which window each
// count covers (the metrics window, or the whole log). Tables come in two styles: `compact` (the text report and the
// TUI at 80 columns: a quantile is the bucket it lies in, `119–298s`) and `wide` (Markdown, HTML: `≈209s in (119s,
// 298s]`). Reads only the Analysis; an analysis without `latency` (an older JSON) falls back to its plain numbers.
import type { Latency, LatencyBucket, NodeReport, OperationStats, Quantiles } from '../contract/analysis.js';
import { figure, shortSeconds, type Figure, type FigureName } from '../util/latency.js';
import { displaySpan, displayTime } from './cluster.js';
import { fmtSeconds, shortNames } from './layout.js';
import { count } from './words.js';

export type LatencyStyle = 'compact' | 'wide';

const QS: readonly FigureName[] = ['p50', 'p90', 'p99', 'max'];

/** `(from, to]` as a compact range: `119–298s`, `488ms–1.22s`, `≤5ms` for the first bucket (from 0). */
export function bucketRange(from: number, to: number): string {
  const hi = shortSeconds(to);
  if (from <= 0) return `≤${hi}`;
  const lo = shortSeconds(from);
  const unit = (s: string): string => s.replace(/^[\d.]+/, '');
  return unit(lo) === unit(hi) ? `${lo.slice(0, lo.length - unit(lo).length)}–${hi}` : `${lo}–${hi}`;
}

/** How many of the window's observations lie beyond the last bucket: ` (5 of 5)`, or nothing when unknown. */
function beyondShare(l: Latency | null | undefined): string {
  return l?.beyond && l.beyond.count > 0 && l.count !== null ? ` (${l.beyond.count} of ${l.count})` : '';
}

/** A figure as words: `(119s, 298s] ≈209s`, `> 10s`, `in (100ms, 250ms]` (a largest observation), `1.23s`. */
export function latencyPhrase(v: Figure): string {
  const bucket = v.bucket ? `(${shortSeconds(v.bucket.from)}, ${shortSeconds(v.bucket.to ?? v.seconds)}]` : '';
  switch (v.kind) {
    case 'beyond': return `> ${shortSeconds(v.seconds)}`;
    case 'atLeast': return `≥ ${shortSeconds(v.seconds)}`;
    case 'exact': return shortSeconds(v.seconds);
    case 'bucket': return bucket ? `in ${bucket}` : `≤ ${shortSeconds(v.seconds)}`;
    // The bucket first: it is what is known; the interpolated value only a guess inside it.
    default: return bucket ? `${bucket} ≈${shortSeconds(v.seconds)}` : `≈${shortSeconds(v.seconds)}`;
  }
}

/** One figure of `l` (plain value `plain`) in a table cell; the plain value alone when the analysis has no `latency`
 *  (an older JSON). */
export function latencyCell(l: Latency | null | undefined, q: FigureName, plain: number | null, style: LatencyStyle): string {
  if (l === undefined) return fmtSeconds(plain);
  const v = l ? figure(l, q, plain) : null;
  if (!v) return '—';
  if (style === 'wide') return latencyPhrase(v) + (v.kind === 'beyond' ? beyondShare(l) : '');
  switch (v.kind) {
    case 'beyond': return `> ${shortSeconds(v.seconds)}`;
    case 'atLeast': return `≥ ${shortSeconds(v.seconds)}`;
    case 'exact': return shortSeconds(v.seconds);
    default: return v.bucket ? bucketRange(v.bucket.from, v.bucket.to ?? v.seconds) : shortSeconds(v.seconds);
  }
}

/** The exact window mean in a cell. */
export function meanCell(l: Latency | null | undefined): string {
  return l?.meanSeconds != null ? shortSeconds(l.meanSeconds) : '—';
}

/**
 * One distribution in a line: its exact mean, then its quantiles, those that read alike said once:
 * `mean 120s · p50 p90 p99 max > 10s (5 of 5 beyond the last bucket)`,
 * `mean 14.2ms · p50 ≈9.1ms in (5ms, 10ms] · p90 ≈21ms in (10ms, 25ms] · p99 max in (100ms, 250ms]`.
 * `noun` names one observation (`relist`).
 */
export function latencyLine(l: Latency | null | undefined, plain: Quantiles | null, noun: string): string | null {
  if (!l) return plain ? QS.map((q) => `${q} ${fmtSeconds(plain[q])}`).join('  ') : null;
  if (l.count === 0) return `no ${noun} finished in the window`;
  const parts: Array<{ names: FigureName[]; text: string }> = [];
  for (const q of QS) {
    const v = figure(l, q, plain?.[q] ?? null);
    if (!v) continue;
    const text = latencyPhrase(v);
    const last = parts[parts.length - 1];
    if (last && last.text === text) last.names.push(q);
    else parts.push({ names: [q], text });
  }
  const share = beyondShare(l).replace(/\)$/, ' beyond the last bucket)');
  const said = parts.map((p) => `${p.names.join(' ')} ${p.text}${p.text.startsWith('>') ? share : ''}`);
  const mean = l.meanSeconds !== null ? [`mean ${shortSeconds(l.meanSeconds)}`] : [];
  return [...mean, ...said].join(' · ') || 'no quantile known';
}

const SUMMARY_NOTE = 'a summary\'s quantiles are exact but cover the kubelet\'s own last 10 minutes, not the window (the largest any scrape showed)';

/** The relist section: its window (`metrics 2024-03-11 10:10:00 +00:00 → 10:20:00 · 5 relists finished`), a line per
 *  distribution, and the note a summary needs. Null when the node has no relist figures. */
export function relistLines(n: NodeReport, zone: string): { window: string; lines: Array<{ label: string; text: string }>; notes: string[] } | null {
  const lines = ([['duration', n.relist.duration, n.relist.durationSeconds], ['interval', n.relist.interval, n.relist.intervalSeconds]] as const)
    .map(([label, l, plain]) => ({ label, text: latencyLine(l, plain, 'relist') }))
    .filter((x): x is { label: 'duration' | 'interval'; text: string } => x.text !== null);
  if (lines.length === 0) return null;
  const w = metricsWindowText(n, zone);
  const relists = n.relist.duration?.count ?? n.relist.interval?.count;
  const window = [n.relist.source === 'metrics' && w ? `metrics ${w}` : n.relist.source, ...(relists != null ? [`${count(relists, 'relist')} finished`] : [])].join(' · ');
  const summary = [n.relist.duration, n.relist.interval].some((l) => l?.source === 'summary');
  return { window, lines, notes: summary ? [SUMMARY_NOTE] : [] };
}

/** Where the node's metrics numbers come from: `2024-03-11 10:10:00 +00:00 → 10:20:00`, or since the kubelet started. */
export function metricsWindowText(n: NodeReport, zone: string): string | null {
  const w = n.metricsWindow;
  if (!w) return null;
  if (w.cumulative || w.from === null || w.to === null || w.from === w.to) {
    return `since the kubelet started (one scrape${w.from ? `, ${displayTime(w.from, zone)}` : ''})`;
  }
  return displaySpan(w.from, w.to, zone);
}

/** What the latency cells of a table mean, as far as its figures need it; `beyondWhere` says which rows lie beyond the
 *  last bucket (compact cells do not). */
export function latencyLegend(lats: ReadonlyArray<Latency | null | undefined>, style: LatencyStyle, beyondWhere: string | null = null): string[] {
  const present = lats.filter((l): l is Latency => !!l);
  const buckets = present.flatMap((l) => QS.map((q) => l[q]).filter((b): b is LatencyBucket => !!b));
  const out: string[] = [];
  if (buckets.some((b) => b.to !== null)) {
    out.push(style === 'compact'
      ? 'a–b: a quantile from a histogram is known only to lie in that bucket, above a and at most b (≤b: in the first one); --format json has PromQL\'s interpolated value'
      : '(a, b] ≈x: the observations are only known to lie in the bucket (a, b]; ≈x is PromQL\'s histogram_quantile, interpolated inside it');
  }
  const beyond = buckets.find((b) => b.to === null);
  if (beyond) {
    const where = style === 'wide' ? ' (k of the window\'s n observations lie there)' : beyondWhere ? ` (${beyondWhere})` : '';
    out.push(`> ${shortSeconds(beyond.from)}${style === 'wide' ? ' (k of n)' : ''}: beyond the histogram's last bucket, only a lower bound${where}`);
  }
  if (present.some((l) => l.source === 'summary')) out.push(SUMMARY_NOTE);
  if (present.some((l) => l.meanSeconds !== null)) out.push('mean: exact, from _sum and _count over the window');
  return out;
}

/** An operation with no call, no error and no timeout in any window: nothing to show (the JSON keeps it). */
export function idleOperation(o: OperationStats): boolean {
  return (o.count ?? 0) === 0 && (o.errors ?? 0) === 0 && o.timeouts === 0 && (o.logErrors ?? 0) === 0;
}

const n2s = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : String(x));

export interface OpColumn {
  head: string;
  group: 'name' | 'metrics' | 'log';
  right: boolean;
  /** Left out to fit a narrow table: 1 first, then 2. */
  drop?: number;
  cell: (o: OperationStats) => string;
}

export interface OperationsView {
  /** The operations shown (idle ones left out) and how many were left out. */
  rows: OperationStats[];
  hidden: number;
  columns: OpColumn[];
  /** What the column groups cover: the metrics window, the whole log (null: the node has no such group). */
  metricsLabel: string | null;
  logLabel: string | null;
  /** What the cells mean and what was left out, a sentence each. */
  notes: string[];
}

/**
 * The CRI operations of a node, columns grouped by the window they cover: the metrics window's calls, errors, mean and
 * quantiles; the log's errors and timeouts (the whole log). An idle operation (no call, error or timeout) is left out
 * and counted. Null when the node has no operation at all.
 */
export function operationsView(n: NodeReport, zone: string, style: LatencyStyle): OperationsView | null {
  if (n.operations.length === 0) return null;
  const rows = n.operations.filter((o) => !idleOperation(o));
  const hidden = n.operations.length - rows.length;
  const metrics = !!n.metricsWindow || rows.some((o) => o.source !== 'logs');
  const log = n.coverage.roles.includes('kubelet-log') || rows.some((o) => o.source !== 'metrics');
  const q = (head: 'p50' | 'p90' | 'p99', drop?: number): OpColumn => ({
    head, group: 'metrics', right: true, ...(drop ? { drop } : {}),
    cell: (o) => latencyCell(o.latency, head, o[`${head}Seconds`], style),
  });
  const columns: OpColumn[] = [
    { head: 'operation', group: 'name', right: false, cell: (o) => o.operation },
    ...(metrics ? [
      { head: 'calls', group: 'metrics', right: true, cell: (o) => n2s(o.count) },
      { head: 'errors', group: 'metrics', right: true, cell: (o) => n2s(o.source === 'logs' ? null : o.errors) },
      { head: 'mean', group: 'metrics', right: true, cell: (o) => meanCell(o.latency) },
      q('p50', 2), q('p90', 1), q('p99'),
    ] satisfies OpColumn[] : []),
    ...(log ? [
      { head: 'errors', group: 'log', right: true, cell: (o) => n2s(o.logErrors ?? (o.source === 'logs' ? o.errors : null)) },
      { head: 'timeouts', group: 'log', right: true, cell: (o) => String(o.timeouts) },
    ] satisfies OpColumn[] : []),
  ];
  const window = metricsWindowText(n, zone);
  return {
    rows,
    hidden,
    columns,
    metricsLabel: metrics ? `metrics ${window ?? 'window'}` : null,
    logLabel: log ? (style === 'wide' && n.window.start ? `whole log (${displaySpan(n.window.start, n.window.end, zone)})` : 'whole log') : null,
    notes: [
      ...(metrics ? latencyLegend(rows.map((o) => o.latency), style, style === 'compact' ? beyondCounts(rows) : null) : []),
      ...(hidden > 0 ? [`${count(hidden, 'operation')} with no call, error or timeout not shown (--format json lists them)`] : []),
    ],
  };
}

/** Which rows have calls beyond the last bucket, and how many: `list_podsandbox 5 of 5 calls, status 3 of 5`. */
function beyondCounts(rows: readonly OperationStats[]): string | null {
  const over = rows.flatMap((o) => {
    const l = o.latency;
    return l?.beyond && l.beyond.count > 0 && l.count !== null ? [{ op: o.operation, k: l.beyond.count, of: l.count }] : [];
  });
  return over.length ? over.map((x, i) => `${x.op} ${x.k} of ${x.of}${i > 0 ? '' : x.of === 1 ? ' call' : ' calls'}`).join(', ') : null;
}

export interface OperationsTable {
  /** Over the header: which window each group of columns covers. */
  groups: string | null;
  head: string;
  rows: Array<{ op: OperationStats; line: string }>;
  notes: string[];
}

/**
 * The compact operations table in `width` columns (text report, TUI): the metrics window's columns left of a `│`, the
 * log's right of it, a line above naming each side's window. p90, then p50, are left out when it would not fit, then
 * operation names shortened.
 */
export function operationsTable(n: NodeReport, zone: string, width: number): OperationsTable | null {
  const v = operationsView(n, zone, 'compact');
  if (!v) return null;
  const split = v.metricsLabel !== null && v.logLabel !== null;
  const lay = (cols: OpColumn[]): { lines: string[]; leftWidth: number } => {
    const grid = [cols.map((c) => c.head), ...v.rows.map((o) => cols.map((c) => c.cell(o)))];
    const w = cols.map((_, j) => Math.max(...grid.map((r) => r[j]!.length)));
    const part = (r: string[], group: (g: OpColumn['group']) => boolean): string =>
      r.flatMap((x, j) => (group(cols[j]!.group) ? [cols[j]!.right ? x.padStart(w[j]!) : x.padEnd(w[j]!)] : [])).join('  ');
    const lines = grid.map((r) => {
      const left = part(r, (g) => g !== 'log');
      const right = part(r, (g) => g === 'log');
      return (right ? `${left}${split ? ' │ ' : '  '}${right}` : left).trimEnd();
    });
    const leftWidth = cols.reduce((a, c, j) => (c.group === 'log' ? a : a + w[j]! + 2), -2);
    return { lines, leftWidth };
  };
  let cols = v.columns;
  let laid = lay(cols);
  const dropped: string[] = [];
  for (const level of [1, 2]) {
    if (Math.max(...laid.lines.map((l) => l.length)) <= width) break;
    const c = cols.find((x) => x.drop === level);
    if (!c) continue;
    cols = cols.filter((x) => x !== c);
    dropped.unshift(c.head);
    laid = lay(cols);
  }
  // Still too wide (a narrow terminal): operation names are shortened in the middle, down to 8 columns.
  const over = Math.max(...laid.lines.map((l) => l.length)) - width;
  if (over > 0) {
    const nameWidth = Math.max('operation'.length, ...v.rows.map((o) => o.operation.length));
    const names = shortNames(v.rows.map((o) => o.operation), Math.max(8, nameWidth - over));
    const short = new Map(v.rows.map((o, i) => [o, names[i]!]));
    cols = cols.map((c) => (c.group === 'name' ? { ...c, cell: (o) => short.get(o) ?? o.operation } : c));
    laid = lay(cols);
  }
  let groups: string | null = v.metricsLabel ?? v.logLabel;
  if (split) {
    groups = v.metricsLabel!.length <= laid.leftWidth
      ? `${v.metricsLabel!.padEnd(laid.leftWidth)} │ ${v.logLabel}`
      : `left of │: ${v.metricsLabel} · right: ${v.logLabel}`;
  }
  const notes = [...v.notes];
  if (dropped.length) notes.splice(notes.length - (v.hidden > 0 ? 1 : 0), 0, `${dropped.join(' and ')} left out at this width (--format json has ${dropped.length > 1 ? 'them' : 'it'})`);
  return { groups, head: laid.lines[0]!, rows: v.rows.map((op, i) => ({ op, line: laid.lines[i + 1]! })), notes };
}
