// Latency figures as the report and the rules' summaries write them: how each is known (from its plain number and the
// bucket the Analysis gives for it), and seconds written short for bucket bounds (`119s`, `12.5ms`): the figure a
// kubelet dashboard shows for the same bucket, in the unit that reads best.
import type { Latency, LatencyBucket } from '../contract/analysis.js';

/** `x` seconds to 3 significant digits (whole seconds from 100 s), trailing zeros dropped, in s, ms or µs:
 *  119.209 → `119s`, 2.5 → `2.5s`, 0.0125 → `12.5ms`; `space` puts a space before the unit (prose: `119 s`). */
export function shortSeconds(x: number, space = false): string {
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '—';
  const [v, unit] = x === 0 ? [0, 's'] : x >= 0.9995 ? [x, 's'] : x >= 0.0009995 ? [x * 1e3, 'ms'] : [x * 1e6, 'µs'];
  const digits = v >= 100 ? String(Math.round(v)) : v.toPrecision(3).replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
  return `${digits}${space ? ' ' : ''}${unit}`;
}

export type FigureName = 'p50' | 'p90' | 'p99' | 'max';

/**
 * How one figure of a distribution is known:
 * - `interpolated`: PromQL's value inside `bucket` (p50/p90/p99 of a histogram);
 * - `bucket`: the largest observation lies somewhere in `bucket` (max of a histogram; `seconds` is its upper bound);
 * - `beyond`: in the +Inf bucket: above `bucket.from`, the last finite bound (`seconds`), and no more is known;
 * - `exact`: a summary's own quantile (over the exporter's window); `atLeast`: a summary's max (its largest quantile).
 */
export interface Figure {
  seconds: number;
  kind: 'interpolated' | 'bucket' | 'beyond' | 'exact' | 'atLeast';
  bucket?: LatencyBucket;
}

/** The figure `q` of `l`, whose plain value is `seconds`; null when it is not known. */
export function figure(l: Latency, q: FigureName, seconds: number | null): Figure | null {
  if (seconds === null) return null;
  if (l.source === 'summary') return { seconds, kind: q === 'max' ? 'atLeast' : 'exact' };
  const bucket = l[q];
  if (!bucket) return null;
  if (bucket.to === null) return { seconds, kind: 'beyond', bucket };
  return { seconds, kind: q === 'max' ? 'bucket' : 'interpolated', bucket };
}
