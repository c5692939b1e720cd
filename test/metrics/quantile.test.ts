import { describe, it, expect } from 'vitest';
import { beyondLastBucket, bucketMax, histogramQuantile, normalizeBuckets, quantilePlace } from '../../src/model/quantile.js';
import { histogramQuantile as reexported } from '../../src/model/metrics.js';

const INF = Infinity;

// kubelet_pleg_relist_duration_seconds DefBuckets, cumulative counts of a healthy node.
const relist = [
  { le: 0.005, count: 0 },
  { le: 0.01, count: 1000 },
  { le: 0.025, count: 4000 },
  { le: 0.05, count: 4800 },
  { le: 0.1, count: 4900 },
  { le: 0.25, count: 4950 },
  { le: 0.5, count: 4990 },
  { le: 1, count: 5000 },
  { le: 2.5, count: 5000 },
  { le: 5, count: 5000 },
  { le: 10, count: 5000 },
  { le: INF, count: 5000 },
];

describe('histogramQuantile (PromQL semantics)', () => {
  it('is re-exported from the metrics model', () => {
    expect(reexported).toBe(histogramQuantile);
  });

  it('interpolates linearly inside the bucket that holds the rank', () => {
    // p50: rank 2500 → bucket (0.01, 0.025] holds 1000..4000 → 0.01 + 0.015 * (1500 / 3000) = 0.0175
    expect(histogramQuantile(0.5, relist)).toBeCloseTo(0.0175, 12);
    // p90: rank 4500 → bucket (0.025, 0.05] holds 4000..4800 → 0.025 + 0.025 * (500 / 800) = 0.040625
    expect(histogramQuantile(0.9, relist)).toBeCloseTo(0.040625, 12);
    // p99: rank 4950 → first bucket with count ≥ 4950 is le=0.25 (4950) → 0.1 + 0.15 * (50 / 50) = 0.25
    expect(histogramQuantile(0.99, relist)).toBeCloseTo(0.25, 12);
  });

  it('does not depend on input order', () => {
    expect(histogramQuantile(0.9, [...relist].reverse())).toBeCloseTo(0.040625, 12);
  });

  it('q = 0 and q = 1', () => {
    // q=1: rank 5000 → first bucket reaching 5000 is le=1 → 0.5 + 0.5 * (10 / 10) = 1
    expect(histogramQuantile(1, relist)).toBe(1);
    // q=0: rank 0 → the first bucket (count 0): 0 + 0.005 * (0 / 0) → NaN, exactly as PromQL computes it
    expect(histogramQuantile(0, relist)).toBeNaN();
    // with a non-empty first bucket, q=0 is its lower bound 0
    expect(histogramQuantile(0, [{ le: 0.1, count: 5 }, { le: INF, count: 5 }])).toBe(0);
  });

  it('q outside [0, 1] and NaN q', () => {
    expect(histogramQuantile(-0.1, relist)).toBe(-Infinity);
    expect(histogramQuantile(1.1, relist)).toBe(Infinity);
    expect(histogramQuantile(NaN, relist)).toBeNaN();
    // the q checks come before the bucket checks, as in promql/quantile.go
    expect(histogramQuantile(2, [{ le: 1, count: 1 }])).toBe(Infinity);
  });

  it('needs a +Inf bucket and at least two buckets', () => {
    expect(histogramQuantile(0.5, relist.slice(0, -1))).toBeNaN();
    expect(histogramQuantile(0.5, [{ le: INF, count: 10 }])).toBeNaN();
    expect(histogramQuantile(0.5, [])).toBeNaN();
  });

  it('empty window: total 0 → NaN', () => {
    expect(histogramQuantile(0.5, relist.map((b) => ({ le: b.le, count: 0 })))).toBeNaN();
  });

  it('a single finite bucket plus +Inf', () => {
    const b = [{ le: 1, count: 10 }, { le: INF, count: 10 }];
    expect(histogramQuantile(0.5, b)).toBe(0.5); // 0 + 1 * (5 / 10)
    expect(histogramQuantile(0.99, b)).toBeCloseTo(0.99, 12);
    // 4 of 10 observations above 1 s: p90 rank 9 > 6 → falls in +Inf → highest finite bound
    expect(histogramQuantile(0.9, [{ le: 1, count: 6 }, { le: INF, count: 10 }])).toBe(1);
  });

  it('all observations in +Inf → the largest finite upper bound', () => {
    const b = [{ le: 0.005, count: 0 }, { le: 0.01, count: 0 }, { le: INF, count: 5 }];
    expect(histogramQuantile(0.5, b)).toBe(0.01);
    expect(histogramQuantile(0.99, b)).toBe(0.01);
  });

  it('forces monotonic counts by carrying the last good count over a drop', () => {
    // counts 10, 8, 20, 20 are fixed to 10, 10, 20, 20.
    const b = [{ le: 0.1, count: 10 }, { le: 0.2, count: 8 }, { le: 0.4, count: 20 }, { le: INF, count: 20 }];
    // q=0.75: rank 15 → bucket (0.2, 0.4] holds 10..20 → 0.2 + 0.2 * (5 / 10) = 0.3
    // (without the fix: 0.2 + 0.2 * (7 / 12) ≈ 0.3167)
    expect(histogramQuantile(0.75, b)).toBeCloseTo(0.3, 12);
    expect(normalizeBuckets(b).map((x) => x.count)).toEqual([10, 10, 20, 20]);
  });

  it('merges buckets with the same bound', () => {
    // [1:3, 1:2, +Inf:5] → [1:5, +Inf:5] → q=0.5: 0 + 1 * (2.5 / 5) = 0.5 (unmerged it would be 2.5/3 ≈ 0.833)
    expect(histogramQuantile(0.5, [{ le: 1, count: 3 }, { le: 1, count: 2 }, { le: INF, count: 5 }])).toBe(0.5);
  });

  it('returns a non-positive first bound as is', () => {
    // rank 2 falls in the first bucket whose bound is ≤ 0: no interpolation from 0
    expect(histogramQuantile(0.2, [{ le: -1, count: 5 }, { le: 1, count: 10 }, { le: INF, count: 10 }])).toBe(-1);
  });
});

describe('bucketMax', () => {
  it('upper bound of the highest bucket that gained observations', () => {
    // and the bucket it lies in: (0.5, 1]
    expect(bucketMax(relist)).toEqual({ max: 1, isLowerBound: false, from: 0.5 });
  });

  it('observations in +Inf → the largest finite bound, flagged as a lower bound', () => {
    expect(bucketMax([{ le: 0.5, count: 1 }, { le: 10, count: 1 }, { le: INF, count: 3 }])).toEqual({
      max: 10,
      isLowerBound: true,
    });
  });

  it('no observations → null', () => {
    expect(bucketMax([{ le: 1, count: 0 }, { le: INF, count: 0 }])).toEqual({ max: null, isLowerBound: false });
  });
});

describe('quantilePlace: the value and the bucket it was interpolated in', () => {
  // The sample incident's CRI calls over its window: 5 calls, all in (119.2 s, 298 s] (Exp(.005, 2.5, 14) buckets).
  const exp = [0.005, 0.0125, 0.03125, 0.078125, 0.1953125, 0.48828125, 1.220703125, 3.0517578125, 7.62939453125, 19.073486328125, 47.6837158203125, 119.20928955078125, 298.0232238769531, 745.0580596923828];
  const stalled = [...exp.map((le) => ({ le, count: le > 200 ? 5 : 0 })), { le: INF, count: 5 }];

  it('gives PromQL\'s value with the bucket that holds the rank', () => {
    const p = quantilePlace(0.5, stalled)!;
    expect(p.value).toBeCloseTo(208.6, 1);
    expect(p.value).toBe(histogramQuantile(0.5, stalled));
    expect(p).toMatchObject({ from: 119.20928955078125, to: 298.0232238769531 });
    expect(quantilePlace(0.99, stalled)).toMatchObject({ from: 119.20928955078125, to: 298.0232238769531 });
  });

  it('a rank in +Inf: the last finite bound, as a lower bound (to = Infinity)', () => {
    const def = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10].map((le) => ({ le, count: 0 }));
    expect(quantilePlace(0.5, [...def, { le: INF, count: 5 }])).toEqual({ value: 10, from: 10, to: INF });
    expect(beyondLastBucket([...def, { le: INF, count: 5 }])).toEqual({ bound: 10, count: 5 });
    expect(beyondLastBucket(relist)).toEqual({ bound: 10, count: 0 });
  });

  it('the first bucket starts at 0; no observation or no +Inf bucket → null', () => {
    expect(quantilePlace(0.5, relist)).toMatchObject({ from: 0.01, to: 0.025 });
    expect(quantilePlace(0.5, [{ le: 0.1, count: 5 }, { le: INF, count: 5 }])).toEqual({ value: 0.05, from: 0, to: 0.1 });
    expect(quantilePlace(0.5, relist.map((b) => ({ le: b.le, count: 0 })))).toBeNull();
    expect(quantilePlace(0.5, relist.slice(0, -1))).toBeNull();
    expect(quantilePlace(1.5, relist)).toBeNull();
  });
});
