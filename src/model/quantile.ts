// Quantiles from cumulative histogram buckets, reproducing PromQL's histogram_quantile (promql/quantile.go,
// bucketQuantile) so our numbers match the kubelet dashboards users compare them with.
// Example input: q = 0.99, buckets [{le: 0.005, count: 7}, {le: 0.01, count: 9}, {le: Infinity, count: 9}].

export interface Bucket {
  le: number;
  count: number;
}

// Prometheus ignores bucket-count differences this small (float noise from rate()/sum()).
const SMALL_DELTA_TOLERANCE = 1e-12;
const MIN_NORMAL = Number.MIN_VALUE * 2 ** 52; // smallest normal double, 2.2250738585072014e-308

function almostEqual(a: number, b: number, epsilon: number): boolean {
  if (a === b) return true;
  const absSum = Math.abs(a) + Math.abs(b);
  const diff = Math.abs(a - b);
  if (a === 0 || b === 0 || absSum < MIN_NORMAL) return diff < epsilon * MIN_NORMAL;
  return diff / Math.min(absSum, Number.MAX_VALUE) < epsilon;
}

/** Sorted by `le`, equal bounds merged, counts made monotonic: the buckets histogram_quantile works on. */
export function normalizeBuckets(buckets: readonly Bucket[]): Bucket[] {
  const sorted = buckets.map((b) => ({ le: b.le, count: b.count })).sort((a, b) => a.le - b.le);
  const merged: Bucket[] = [];
  for (const b of sorted) {
    const last = merged[merged.length - 1];
    if (last && last.le === b.le) last.count += b.count;
    else merged.push(b);
  }
  // Bucket counts from separately computed increases can decrease (resets, scrape skew); like PromQL, a drop is
  // ignored rather than trusted, and the last good count carries forward.
  const first = merged[0];
  if (first) {
    let prev = first.count;
    for (let i = 1; i < merged.length; i++) {
      const b = merged[i]!;
      if (b.count === prev) continue;
      if (almostEqual(prev, b.count, SMALL_DELTA_TOLERANCE) || b.count < prev) {
        b.count = prev;
        continue;
      }
      prev = b.count;
    }
  }
  return merged;
}

/** Where a quantile lies: PromQL's value and the bucket (`from`, `to`] that holds its rank. `to` is Infinity when the rank
 *  falls in the +Inf bucket: the value (`from`, the last finite bound, as PromQL returns it) is then only a lower bound. */
export interface QuantilePlace {
  value: number;
  from: number;
  to: number;
}

/** PromQL histogram_quantile over cumulative buckets; NaN where PromQL returns NaN. */
export function histogramQuantile(q: number, buckets: readonly Bucket[]): number {
  if (Number.isNaN(q)) return NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  return quantilePlace(q, buckets)?.value ?? NaN;
}

/** histogram_quantile(q) with the bucket it was interpolated in; null where PromQL gives NaN (or q is outside [0, 1]). */
export function quantilePlace(q: number, buckets: readonly Bucket[]): QuantilePlace | null {
  if (Number.isNaN(q) || q < 0 || q > 1 || buckets.length === 0) return null;
  const b = normalizeBuckets(buckets);
  if (b[b.length - 1]!.le !== Infinity) return null;
  if (b.length < 2) return null;
  const observations = b[b.length - 1]!.count;
  if (observations === 0 || Number.isNaN(observations)) return null;
  let rank = q * observations;
  // First bucket (excluding +Inf) whose cumulative count reaches the rank; Go's sort.Search over n-1 buckets.
  let i = 0;
  while (i < b.length - 1 && !(b[i]!.count >= rank)) i++;
  if (i === b.length - 1) return { value: b[b.length - 2]!.le, from: b[b.length - 2]!.le, to: Infinity };
  if (i === 0 && b[0]!.le <= 0) return { value: b[0]!.le, from: b[0]!.le, to: b[0]!.le };
  let start = 0;
  const end = b[i]!.le;
  let count = b[i]!.count;
  if (i > 0) {
    start = b[i - 1]!.le;
    count -= b[i - 1]!.count;
    rank -= b[i - 1]!.count;
  }
  const value = start + (end - start) * (rank / count);
  return Number.isNaN(value) ? null : { value, from: start, to: end };
}

/** Observations above the last finite bucket bound (in +Inf only), and that bound; null without a finite bucket. */
export function beyondLastBucket(buckets: readonly Bucket[]): { bound: number; count: number } | null {
  const b = normalizeBuckets(buckets);
  const inf = b[b.length - 1];
  const last = b[b.length - 2];
  if (!inf || !last || inf.le !== Infinity) return null;
  return { bound: last.le, count: Math.max(0, inf.count - last.count) };
}

/**
 * The largest observation as far as buckets can tell: the upper bound of the highest finite bucket that gained
 * observations (`from`: that bucket's lower bound); when the +Inf bucket gained some, the largest finite bound is only
 * a lower bound.
 */
export function bucketMax(buckets: readonly Bucket[]): { max: number | null; isLowerBound: boolean; from?: number } {
  const b = normalizeBuckets(buckets);
  let max: number | null = null;
  let from = 0;
  let largestFinite: number | null = null;
  let isLowerBound = false;
  let below = 0;
  let prevLe = 0;
  for (const bucket of b) {
    const own = bucket.count - below;
    below = bucket.count;
    if (bucket.le === Infinity) {
      if (own > 0) isLowerBound = true;
      continue;
    }
    largestFinite = bucket.le;
    if (own > 0) {
      max = bucket.le;
      from = prevLe;
    }
    prevLe = bucket.le;
  }
  if (isLowerBound) return { max: largestFinite, isLowerBound };
  return max === null ? { max, isLowerBound } : { max, isLowerBound, from };
}
