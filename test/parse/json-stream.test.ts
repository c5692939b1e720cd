// The streaming JSON tokenizer (src/parse/json-stream.ts): the same values as JSON.parse whatever the chunking, bounded
// state on hostile documents, and the answers of /api/v1/query and /api/v1/series read through QueryAnswerReader.
import { describe, expect, it } from 'vitest';
import { JsonStream, JsonSyntaxError, type JsonHandler } from '../../src/parse/json-stream.js';
import { QueryAnswerReader, SeriesList } from '../../src/parse/metrics/query-result.js';

/** Rebuilds the value from the events (a test of the events, not a way to read large documents). */
function rebuild(text: string, chunk: number, opts?: { maxString?: number; maxDepth?: number }): unknown {
  const stack: Array<{ v: unknown[] | Record<string, unknown>; key: string | null }> = [];
  let top: unknown;
  const put = (v: unknown): void => {
    const p = stack[stack.length - 1];
    if (!p) top = v;
    else if (Array.isArray(p.v)) p.v.push(v);
    else p.v[p.key!] = v;
  };
  const h: JsonHandler = {
    open: (k) => {
      const v = k === 'object' ? {} : [];
      put(v);
      stack.push({ v, key: null });
    },
    close: () => void stack.pop(),
    key: (k) => { stack[stack.length - 1]!.key = k; },
    value: (v) => put(v),
  };
  const j = new JsonStream(h, opts);
  const b = Buffer.from(text, 'utf8');
  for (let i = 0; i < b.length; i += chunk) j.push(b.subarray(i, i + chunk));
  j.end();
  return top;
}

const ANSWER = JSON.stringify({
  status: 'success',
  data: {
    resultType: 'matrix',
    result: [{ metric: { __name__: 'kubelet_pleg_last_seen_seconds', node: 'worker-2', note: 'tab\there "quoted" \\ é ✓ 😀 \u0001' }, values: [[1710151800, '1710151632'], [1710151830.5, '1.5e-3'], [-0, 'NaN']] }],
  },
  warnings: [true, false, null, 1e300, -12.25e-7],
});

describe('JsonStream', () => {
  it('gives JSON.parse\'s value for every chunk size, escapes and surrogate pairs split anywhere', () => {
    for (const chunk of [1, 2, 3, 7, 64, 1 << 20]) expect(rebuild(ANSWER, chunk)).toEqual(JSON.parse(ANSWER));
    expect(rebuild('"\\ud83d\\ude00 \\ud800x"', 1)).toBe('😀 \ufffdx');
    expect(rebuild(' 42 ', 1)).toBe(42);
  });

  it('hostile documents: nesting past the limit, cut short, bytes after the end, a control byte, a long string kept to its cap', () => {
    expect(() => rebuild('['.repeat(100) + ']'.repeat(100), 16)).toThrow(/nested more than 64 levels deep/);
    expect(() => rebuild('{"a":[1,2', 3)).toThrow(/cut short/);
    expect(() => rebuild('{} {}', 3)).toThrow(/text after the end/);
    expect(() => rebuild('"a\u0001b"', 3)).toThrow(JsonSyntaxError);
    expect(() => rebuild('[01]', 3)).toThrow(/invalid number/);
    expect(rebuild(JSON.stringify(['x'.repeat(100_000)]), 4096, { maxString: 1000 })).toEqual(['x'.repeat(1000)]);
  });
});

describe('QueryAnswerReader', () => {
  const read = (doc: string, maxPoints = 100): { list: SeriesList; r: QueryAnswerReader } => {
    const list = new SeriesList();
    const r = new QueryAnswerReader(list, { maxPoints, maxSeries: 10 });
    const j = new JsonStream(r.handler());
    j.push(Buffer.from(doc));
    j.end();
    return { list, r };
  };

  it('series of a matrix; labels after the points; null entries, object labels and bad points counted, not read', () => {
    const { list, r } = read(JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: [
      null,
      { values: [[1710151800, '3']], metric: { __name__: 'kubelet_running_pods', node: 'w1' } },
      { metric: { __name__: 'kubelet_running_pods', node: { evil: 1 } }, values: [[1710151800, '3']] },
      { metric: { __name__: 'kubelet_running_pods', node: 'w2' }, values: [[1e13, '1'], ['x', '1'], [1710151800, '2', 3], [1710151830, '4']] },
    ] } }));
    expect(list.list.map((s) => [s.labels['node'], s.times, s.values])).toEqual([['w1', [1710151800000], [3]], ['w2', [1710151830000], [4]]]);
    expect(r.summary).toMatchObject({ status: 'success', resultType: 'matrix', badSeries: 1, badLabels: 1, badPoints: 3, points: 6 });
  });

  it('points past the bound counted; a /api/v1/series answer kept as label sets of the keys asked for', () => {
    const { list, r } = read(JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [1, 2, 3].map((i) => ({ metric: { __name__: 'up', i: String(i) }, value: [1710151800 + i, '1'] })) } }), 2);
    expect(list.list.flatMap((s) => s.times)).toHaveLength(2);
    expect(r.summary.cutPoints).toBe(1);
    const sets = new QueryAnswerReader(new SeriesList(), { maxPoints: 0, maxSeries: 0 }, { labelSets: { keep: new Set(['__name__', 'node']), max: 2 } });
    const j = new JsonStream(sets.handler());
    j.push(Buffer.from(JSON.stringify({ status: 'success', data: [{ __name__: 'a', node: 'n1', job: 'k' }, null, { __name__: 'a', node: ['x'] }, { __name__: 'b', node: 'n2' }, { __name__: 'c', node: 'n3' }] })));
    j.end();
    expect(sets.summary.labelSets).toEqual([{ __name__: 'a', node: 'n1' }, { __name__: 'b', node: 'n2' }]);
    expect(sets.summary).toMatchObject({ badSeries: 1, badLabels: 1, cutLabelSets: 1 });
  });
});
