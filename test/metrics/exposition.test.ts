import { describe, it, expect } from 'vitest';
import { MetricsParser, familyOf, parseMetricNumber, parseMetricsText } from '../../src/parse/metrics/exposition.js';

describe('parseMetricNumber', () => {
  it('reads Go float syntax, keeps NaN and ±Inf', () => {
    expect(parseMetricNumber('1e3')).toBe(1000);
    expect(parseMetricNumber('-1.5E-3')).toBe(-0.0015);
    expect(parseMetricNumber('.5')).toBe(0.5);
    expect(parseMetricNumber('+Inf')).toBe(Infinity);
    expect(parseMetricNumber('-Inf')).toBe(-Infinity);
    expect(parseMetricNumber('Inf')).toBe(Infinity);
    expect(parseMetricNumber('NaN')).toBeNaN();
    expect(parseMetricNumber('')).toBeUndefined();
    expect(parseMetricNumber('0x10')).toBeUndefined();
    expect(parseMetricNumber('1,5')).toBeUndefined();
    expect(parseMetricNumber('abc')).toBeUndefined();
  });
});

describe('samples and labels', () => {
  it('parses names, labels, values and keeps the raw line', () => {
    const p = parseMetricsText(
      [
        '# HELP kubelet_running_pods [ALPHA] Number of pods that have a running pod sandbox',
        '# TYPE kubelet_running_pods gauge',
        'kubelet_running_pods 43',
        '',
        'kubelet_runtime_operations_total{operation_type="list_podsandbox"} 9600',
        'kubelet_x{a="1",} 1e3',
        'up:recording_rule 2',
      ].join('\n'),
    );
    expect(p.errors).toEqual([]);
    expect(p.format).toBe('prometheus-text');
    expect(p.types.get('kubelet_running_pods')).toBe('gauge');
    expect(p.samples.map((s) => [s.name, s.value, s.line])).toEqual([
      ['kubelet_running_pods', 43, 3],
      ['kubelet_runtime_operations_total', 9600, 5],
      ['kubelet_x', 1000, 6],
      ['up:recording_rule', 2, 7],
    ]);
    expect(p.samples[1]!.labels).toEqual({ operation_type: 'list_podsandbox' });
    expect(p.samples[1]!.text).toBe('kubelet_runtime_operations_total{operation_type="list_podsandbox"} 9600');
    expect(p.samples[2]!.labels).toEqual({ a: '1' });
  });

  it('unescapes \\\\, \\" and \\n, and keeps spaces, commas, braces and # inside quoted values', () => {
    const line = String.raw`m{a="b\\c\"d\ne",b="sp ace, comma } brace # not exemplar",c="",d="C:\tmp"} 1`;
    const p = parseMetricsText(line);
    expect(p.errors).toEqual([]);
    expect(p.samples[0]!.labels).toEqual({
      a: 'b\\c"d\ne',
      b: 'sp ace, comma } brace # not exemplar',
      c: '',
      d: 'C:\\tmp', // unknown escapes stay as written, as in Prometheus
    });
    expect(p.samples[0]!.value).toBe(1);
  });

  it('keeps NaN, +Inf and -Inf values', () => {
    const p = parseMetricsText('a NaN\nb +Inf\nc -Inf\nd{le="+Inf"} 5');
    expect(p.samples[0]!.value).toBeNaN();
    expect(p.samples[1]!.value).toBe(Infinity);
    expect(p.samples[2]!.value).toBe(-Infinity);
    expect(p.samples[3]!.labels['le']).toBe('+Inf');
  });

  it('accepts spaces around labels (promtool prints `{a="1", b="2"}`) and tabs between tokens', () => {
    const p = parseMetricsText('m { a = "1" , b="2" }\t7\t1700000000000');
    expect(p.errors).toEqual([]);
    expect(p.samples[0]).toMatchObject({ labels: { a: '1', b: '2' }, value: 7, tsMs: 1700000000000 });
  });

  it('shares one frozen label object between samples of the same series', () => {
    const p = parseMetricsText('m{a="1"} 1 1000\nm{a="1"} 2 2000\nm{a="2"} 3 3000');
    const [s1, s2, s3] = p.samples;
    expect(s1!.labels).toBe(s2!.labels);
    expect(s1!.labels).not.toBe(s3!.labels);
    expect(Object.isFrozen(s1!.labels)).toBe(true);
  });

  it('does not let a __proto__ label touch the prototype', () => {
    const p = parseMetricsText('m{__proto__="x",a="y"} 1');
    expect(p.errors).toEqual([]);
    expect(p.samples[0]!.labels['__proto__']).toBe('x');
    expect(p.samples[0]!.labels['a']).toBe('y');
  });

  it('reads the quoted-name form `{"metric.name", label="v"}`', () => {
    const p = parseMetricsText('{"kubelet.dotted", a="b"} 4');
    expect(p.errors).toEqual([]);
    expect(p.samples[0]).toMatchObject({ name: 'kubelet.dotted', labels: { a: 'b' }, value: 4 });
  });

  it('tolerates CRLF, a BOM and leading whitespace; text has no CR', () => {
    const p = parseMetricsText('\uFEFF# TYPE m counter\r\n  m 1\r\n\r\nn 2\r\n');
    expect(p.errors).toEqual([]);
    expect(p.samples.map((s) => [s.name, s.value, s.line, s.text])).toEqual([
      ['m', 1, 2, '  m 1'],
      ['n', 2, 4, 'n 2'],
    ]);
    expect(p.types.get('m')).toBe('counter');
  });
});

describe('malformed input', () => {
  it('records bad lines with their line number and goes on', () => {
    const lines = [
      'good 1', // 1
      'm{a="b" 1', // 2 unterminated label set
      'm{a="b} 1', // 3 unterminated value
      'm bar', // 4 bad value
      '9m 1', // 5 bad name
      'm{a=b} 1', // 6 unquoted value
      'm 1 2 3', // 7 extra tokens
      'm 1 abc', // 8 bad timestamp
      'm', // 9 no value
      'm{a="1",a="2"} 1', // 10 duplicate label
      'm-x 1', // 11 bad name char
      '# TYPE m bogus', // 12 unknown type
      'm{a="1" b="2"} 1', // 13 missing comma
      'good 2', // 14
    ];
    const p = parseMetricsText(lines.join('\n'));
    expect(p.samples.map((s) => s.line)).toEqual([1, 14]);
    expect(p.errors.map((e) => e.line)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(p.errors[2]!.message).toContain('invalid value');
    expect(p.errors[8]!.message).toContain('duplicate label');
    expect(p.errors[9]!.message).toContain('invalid metric name');
  });

  it('reports over-long lines instead of parsing them', () => {
    const long = `m{a="${'x'.repeat(200)}"} 1`;
    const p = parseMetricsText(`${long}\nok 1`, { maxLineLength: 100 });
    expect(p.samples.map((s) => s.name)).toEqual(['ok']);
    expect(p.errors).toHaveLength(1);
    expect(p.errors[0]!.line).toBe(1);
    expect(p.errors[0]!.message).toMatch(/too long/);
  });

  it('lists at most maxErrors errors and counts the rest', () => {
    const p = parseMetricsText(Array.from({ length: 10 }, () => '!!!').join('\n'), { maxErrors: 3 });
    expect(p.errors).toHaveLength(4);
    expect(p.errors[3]).toEqual({ line: 10, message: '7 more malformed lines not listed' });
  });

  it('never throws on garbage', () => {
    const garbage = ['{', '}', '"', '{"', 'm{', 'm{"', 'm{a', 'm{a=', 'm{a="', '\u0000\u0001', '#', '# TYPE', 'm{} '];
    expect(() => parseMetricsText(garbage.join('\n'))).not.toThrow();
    expect(parseMetricsText(garbage.join('\n')).samples).toEqual([]);
  });
});

describe('keep filter', () => {
  it('drops samples by name before looking at their labels', () => {
    const seen: string[] = [];
    const p = parseMetricsText(
      ['go_goroutines 100', 'rest_client_requests_total{code="200" broken 5', 'kubelet_running_pods 3'].join('\n'),
      {
        keep: (n) => {
          seen.push(n);
          return n.startsWith('kubelet_');
        },
      },
    );
    expect(seen).toEqual(['go_goroutines', 'rest_client_requests_total', 'kubelet_running_pods']);
    expect(p.samples.map((s) => s.name)).toEqual(['kubelet_running_pods']);
    expect(p.errors).toEqual([]); // the broken line was never parsed past its name
  });
});

describe('format detection and timestamps', () => {
  it('0.0.4: integer timestamps are milliseconds', () => {
    const p = parseMetricsText('m 1 1700000000123\nn 2');
    expect(p.format).toBe('prometheus-text');
    expect(p.samples[0]!.tsMs).toBe(1700000000123);
    expect(p.samples[1]!.tsMs).toBeNull();
  });

  it('OpenMetrics by # EOF: timestamps are seconds, converted to ms, even integer ones seen before the EOF', () => {
    const p = parseMetricsText('m 1 1700000000\nm 2 1700000000.123\n# EOF\n');
    expect(p.format).toBe('openmetrics');
    expect(p.samples.map((s) => s.tsMs)).toEqual([1700000000000, 1700000000123]);
  });

  it('OpenMetrics by a float timestamp alone (a dump cut before its # EOF)', () => {
    const p = parseMetricsText('m 1 1700000000.500\nm 2 1700000030');
    expect(p.format).toBe('openmetrics');
    expect(p.samples.map((s) => s.tsMs)).toEqual([1700000000500, 1700000030000]);
  });

  it('OpenMetrics by # UNIT or an OpenMetrics-only type', () => {
    expect(parseMetricsText('# UNIT m seconds\nm 1').format).toBe('openmetrics');
    expect(parseMetricsText('# TYPE k info\nk_info{v="1"} 1').format).toBe('openmetrics');
    expect(parseMetricsText('# TYPE k gaugehistogram').format).toBe('openmetrics');
    expect(parseMetricsText('# TYPE k stateset').format).toBe('openmetrics');
    expect(parseMetricsText('# TYPE k unknown').format).toBe('openmetrics');
    expect(parseMetricsText('# TYPE k untyped\n# some comment\nk 1').format).toBe('prometheus-text');
  });

  it('# EOF ends parsing', () => {
    const p = parseMetricsText('a 1\n# EOF\nb 2\nthis is not a metric');
    expect(p.samples.map((s) => s.name)).toEqual(['a']);
    expect(p.errors).toEqual([]);
  });

  it('OpenMetrics counter family x has samples x_total and x_created; exemplars are ignored', () => {
    const p = parseMetricsText(
      [
        '# TYPE kubelet_runtime_operations counter',
        '# HELP kubelet_runtime_operations Cumulative number of runtime operations by operation type.',
        'kubelet_runtime_operations_total{operation_type="list_podsandbox"} 17 # {trace_id="4bf92f"} 1 1700000000.5',
        'kubelet_runtime_operations_created{operation_type="list_podsandbox"} 1699990000.25',
        '# TYPE kubelet_pleg_relist_duration_seconds histogram',
        'kubelet_pleg_relist_duration_seconds_bucket{le="0.005"} 3 1700000001.000 # {trace_id="x y"} 0.004',
        '# EOF',
      ].join('\n'),
    );
    expect(p.errors).toEqual([]);
    expect(p.format).toBe('openmetrics');
    expect(p.types.get('kubelet_runtime_operations')).toBe('counter');
    expect(p.samples.map((s) => [s.name, s.value, s.tsMs])).toEqual([
      ['kubelet_runtime_operations_total', 17, null],
      ['kubelet_runtime_operations_created', 1699990000.25, null],
      ['kubelet_pleg_relist_duration_seconds_bucket', 3, 1700000001000],
    ]);
    expect(familyOf('kubelet_runtime_operations_total', p.types)).toBe('kubelet_runtime_operations');
    expect(familyOf('kubelet_runtime_operations_created', p.types)).toBe('kubelet_runtime_operations');
    expect(familyOf('kubelet_pleg_relist_duration_seconds_bucket', p.types)).toBe('kubelet_pleg_relist_duration_seconds');
    expect(familyOf('other_total', p.types)).toBe('other_total');
  });

  it('a 0.0.4 counter keeps its _total in the family name', () => {
    const p = parseMetricsText('# TYPE kubelet_runtime_operations_total counter\nkubelet_runtime_operations_total 1');
    expect(familyOf('kubelet_runtime_operations_total', p.types)).toBe('kubelet_runtime_operations_total');
  });

  it('keeps every sample of a series as a time series', () => {
    const p = parseMetricsText('m{a="1"} 1 1700000000.000\nm{a="1"} 2 1700000030.000\nm{a="1"} 3 1700000060.000\n# EOF');
    expect(p.samples.map((s) => [s.value, s.tsMs])).toEqual([
      [1, 1700000000000],
      [2, 1700000030000],
      [3, 1700000060000],
    ]);
  });
});

describe('MetricsParser streaming API', () => {
  it('takes caller line numbers, ignores pushes after finish, and finish is idempotent', () => {
    const parser = new MetricsParser();
    parser.push('a 1', 10);
    parser.push('a{', 11);
    const r = parser.finish();
    parser.push('b 2', 12);
    expect(parser.finish()).toBe(r);
    expect(r.samples.map((s) => [s.name, s.line])).toEqual([['a', 10]]);
    expect(r.errors.map((e) => e.line)).toEqual([11]);
  });
});

describe('repeated label blocks', () => {
  it('a bad label block repeated on the next line is reported again, not reused', () => {
    const p = parseMetricsText('m{a="1"} 1\nm{a="1",a="2"} 2\nm{a="1",a="2"} 3\nm{a="1"} 4');
    expect(p.samples.map((s) => s.value)).toEqual([1, 4]);
    expect(p.errors.map((e) => e.line)).toEqual([2, 3]);
  });

  it('a prefix of the previous block is not mistaken for it', () => {
    const p = parseMetricsText('m{a="1"} 1\nm{a="1"}  2\nm{a="1",b="2"} 3\nm{a="1"}4');
    expect(p.errors).toEqual([]);
    expect(p.samples.map((s) => [s.value, { ...s.labels }])).toEqual([
      [1, { a: '1' }],
      [2, { a: '1' }],
      [3, { a: '1', b: '2' }],
      [4, { a: '1' }],
    ]);
  });
});

describe('series per family', () => {
  const op = (i: number, le?: string) => `kubelet_runtime_operations_duration_seconds_${le ? 'bucket' : 'count'}{operation_type="op_${i}"${le ? `,le="${le}"` : ''}} 5`;

  it('keeps the first N series of a family (buckets and _count of one series are one series) and counts what it drops', () => {
    const lines = ['# TYPE kubelet_runtime_operations_duration_seconds histogram'];
    for (let i = 0; i < 5; i++) for (const le of ['0.1', '+Inf']) lines.push(op(i, le));
    for (let i = 0; i < 5; i++) lines.push(op(i));
    lines.push('kubelet_runtime_operations_total{operation_type="op_0"} 1', 'kubelet_runtime_operations_total{operation_type="op_9"} 1');
    const p = parseMetricsText(lines.join('\n'), { maxSeriesPerFamily: 3 });
    const ops = new Set(p.samples.map((s) => s.labels['operation_type']));
    expect([...ops].sort()).toEqual(['op_0', 'op_1', 'op_2', 'op_9']);
    // op_0..op_2: two buckets and a count each; the other family (`_total`) keeps its own two.
    expect(p.samples).toHaveLength(3 * 3 + 2);
    expect(p.dropped).toEqual([{ family: 'kubelet_runtime_operations_duration_seconds', kept: 3, series: 2, atLeast: false, samples: 6, firstLine: 8 }]);
  });

  it('a time series keeps all its samples; a series met again after the bound was reached is still kept', () => {
    const lines: string[] = [];
    for (let t = 0; t < 4; t++) for (let i = 0; i < 4; i++) lines.push(`kubelet_running_pods{instance="n${i}"} ${i} ${1700000000000 + t * 60000}`);
    const p = parseMetricsText(lines.join('\n'), { maxSeriesPerFamily: 2 });
    expect(p.samples.map((s) => s.labels['instance'])).toEqual(Array(4).fill(['n0', 'n1']).flat());
    expect(p.dropped).toEqual([{ family: 'kubelet_running_pods', kept: 2, series: 2, atLeast: false, samples: 8, firstLine: 3 }]);
  });

  it('default: 1000 series per family', () => {
    const lines: string[] = [];
    for (let i = 0; i < 1500; i++) lines.push(op(i));
    const p = parseMetricsText(lines.join('\n'));
    expect(p.samples).toHaveLength(1000);
    expect(p.dropped[0]).toMatchObject({ kept: 1000, series: 500, samples: 500, firstLine: 1001 });
  });
});
