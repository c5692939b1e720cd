// Prometheus query results → metric samples, the same Sample the exposition parser gives, so a query's answer enters
// the model as snapshots do. Three shapes, as people attach them to tickets:
//   the JSON of /api/v1/query_range or /api/v1/query (`curl …/api/v1/query_range?query=…`):
//     {"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"kubelet_pleg_last_seen_seconds",
//      "node":"worker-2"},"values":[[1710151800,"1710151632"],[1710151830,"1710151632"]]}]}}
//   `promtool query range|instant` and the Go client's text (model.Matrix / model.Vector String()):
//     kubelet_pleg_last_seen_seconds{instance="10.0.0.12:10250", node="worker-2"} =>
//     1710151632 @[1710151800]
//     1710151632 @[1710151830]
//     kubelet_running_pods{node="worker-2"} => 30 @[1710151800.5]
// A sample's line is its line in that text rendering (for JSON and live answers: the line promtool would print it on),
// its text that rendering of the one point.
import type { Sample } from './exposition.js';
import { parseMetricNumber } from './exposition.js';
import { plausibleMs } from '../../util/instant.js';
import { isoTime } from '../../util/instant.js';

export interface QueryParsed {
  format: 'prometheus-query-json' | 'prometheus-query-text';
  samples: Sample[];
  errors: { line: number; message: string }[];
  /** What was read but could not be used, said as it is (not a malformed line). */
  notes?: { line: number; message: string }[];
  /** Points read (kept or not): the size of the answer. */
  points: number;
}

/** A point of a query answer; its text is rendered when cited (a 7-day answer holds millions of points). */
class QuerySample implements Sample {
  constructor(
    readonly name: string,
    readonly labels: Record<string, string>,
    readonly value: number,
    readonly tsMs: number,
    readonly line: number,
    private readonly series: string,
  ) {}

  get text(): string {
    return `${this.series} => ${goFloat(this.value)} @[${this.tsMs / 1000}]`;
  }
}

/** strconv.FormatFloat(v, 'f', -1, 64), as Prometheus prints values. */
function goFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (Math.abs(v) >= 1e21 || (v !== 0 && Math.abs(v) < 1e-6)) return v.toFixed(20).replace(/0+$/, '').replace(/\.$/, '');
  return String(v);
}

/** model.Metric String(): name{k="v", …}, labels sorted, values Go-quoted. */
export function seriesText(labels: Record<string, string>): string {
  const name = labels['__name__'] ?? '';
  const keys = Object.keys(labels).filter((k) => k !== '__name__').sort();
  if (keys.length === 0) return name || '{}';
  return `${name}{${keys.map((k) => `${k}=${JSON.stringify(labels[k])}`).join(', ')}}`;
}

class Collector {
  readonly samples: Sample[] = [];
  readonly errors: { line: number; message: string }[] = [];
  points = 0;
  private unnamed = 0;
  private readonly labelCache = new Map<string, Record<string, string>>();

  constructor(private readonly keep: (name: string) => boolean, private readonly extra: Record<string, string> = {}) {}

  /** The frozen label set (without __name__) shared by every point of a series, or null when the series is not kept. */
  series(all: Record<string, string>, line: number): { name: string; labels: Record<string, string>; text: string } | null {
    const name = all['__name__'];
    if (!name) {
      if (this.unnamed++ === 0) this.errors.push({ line, message: 'series without a metric name (keep __name__ in the query: `… by (__name__, …)`): skipped' });
      return null;
    }
    if (!this.keep(name)) return null;
    const labels = Object.create(null) as Record<string, string>;
    for (const k of Object.keys(all).sort()) if (k !== '__name__') labels[k] = String(all[k]);
    for (const [k, v] of Object.entries(this.extra)) if (!labels[k]) labels[k] = v;
    const key = JSON.stringify(labels);
    let shared = this.labelCache.get(key);
    if (!shared) this.labelCache.set(key, (shared = Object.freeze(labels)));
    return { name, labels: shared, text: seriesText(all) };
  }

  push(s: { name: string; labels: Record<string, string>; text: string }, value: number, tsMs: number, line: number): void {
    this.samples.push(new QuerySample(s.name, s.labels, value, tsMs, line, s.text));
  }
}

function isObj(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** Reads `[ts, "value"]`; null when it is not a point. */
function point(p: unknown): { tsMs: number; value: number } | null {
  if (!Array.isArray(p) || p.length !== 2) return null;
  const ts = typeof p[0] === 'number' ? p[0] : typeof p[0] === 'string' ? Number(p[0]) : NaN;
  const value = typeof p[1] === 'string' ? parseMetricNumber(p[1]) : typeof p[1] === 'number' ? p[1] : undefined;
  if (!Number.isFinite(ts) || value === undefined || !plausibleMs(ts * 1000)) return null;
  return { tsMs: Math.round(ts * 1000), value };
}

/**
 * The `data` of a query answer (or the whole answer, `{status, data}`) → samples. Matrix and vector results; scalars,
 * strings and native histograms carry nothing the model reads. `extraLabels` are added to series that lack them (the
 * node a live query was asked for).
 */
export function samplesFromQueryData(answer: unknown, keep: (name: string) => boolean = () => true, extraLabels?: Record<string, string>): QueryParsed {
  const c = new Collector(keep, extraLabels);
  const out = (): QueryParsed => ({ format: 'prometheus-query-json', samples: c.samples, errors: c.errors, points: c.points });
  let data: unknown = answer;
  if (isObj(answer) && 'status' in answer) {
    if (answer['status'] !== 'success') {
      c.errors.push({ line: 1, message: `the saved answer is an error: ${String(answer['error'] ?? answer['status']).slice(0, 200)}` });
      return out();
    }
    data = answer['data'];
  }
  if (!isObj(data) || !Array.isArray(data['result'])) {
    c.errors.push({ line: 1, message: 'no "data.result" list: not a Prometheus query answer' });
    return out();
  }
  const type = data['resultType'];
  if (type !== 'matrix' && type !== 'vector') {
    c.errors.push({ line: 1, message: `a ${String(type)} result holds no series` });
    return out();
  }
  let line = 0;
  let bad = 0;
  let histograms = 0;
  for (const r of data['result'] as unknown[]) {
    if (!isObj(r) || !isObj(r['metric'])) {
      bad++;
      continue;
    }
    const values = type === 'matrix' ? r['values'] : [r['value']];
    if ('histogram' in r || 'histograms' in r) histograms++;
    if (!Array.isArray(values)) {
      if (!('histograms' in r)) bad++;
      continue;
    }
    if (type === 'matrix') line++; // the `name{…} =>` line
    const s = c.series(r['metric'] as Record<string, string>, line + 1);
    for (const v of values) {
      line++;
      c.points++;
      const p = point(v);
      if (!p) {
        bad++;
        continue;
      }
      if (s) c.push(s, p.value, p.tsMs, line);
    }
  }
  if (bad > 0) c.errors.push({ line: 1, message: `${bad} malformed series or point(s) skipped` });
  if (histograms > 0) c.errors.push({ line: 1, message: `${histograms} native histogram series skipped (the kubelet exposes classic ones)` });
  return out();
}

export function parseQueryJson(text: string, keep?: (name: string) => boolean): QueryParsed {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch (e) {
    return { format: 'prometheus-query-json', samples: [], errors: [{ line: 1, message: `not valid JSON: ${(e as Error).message}` }], points: 0 };
  }
  return samplesFromQueryData(answer, keep);
}

const RE_HEADER = /^(.*?) =>(?: (\S+) @\[?([0-9.eE+-]+)\]?)?\s*$/;
const RE_POINT = /^(\S+) @\[?([0-9.eE+-]+)\]?\s*$/;

/** The text of `promtool query` / the Go client (model.Matrix and model.Vector String()), one line at a time. */
export class QueryTextParser {
  private readonly c: Collector;
  private current: ReturnType<Collector['series']> = null;
  private inSeries = false;
  private bad = 0;
  private firstBad = 0;
  /** Points before any `series =>` line: a series whose name was not pasted. */
  private orphan: { n: number; line: number; first: number; last: number; min: number; max: number; lastChange: number; lastValue: number } | null = null;

  constructor(keep: (name: string) => boolean = () => true) {
    this.c = new Collector(keep);
  }

  push(raw: string, lineNo: number): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    let m = RE_POINT.exec(line);
    if (m && this.inSeries) {
      this.add(m[1]!, m[2]!, lineNo);
      return;
    }
    if (m && this.current === null) {
      this.addOrphan(m[1]!, m[2]!, lineNo);
      return;
    }
    m = RE_HEADER.exec(line);
    if (!m) {
      this.fail(lineNo);
      return;
    }
    const labels = parseSeries(m[1]!);
    if (!labels) {
      this.fail(lineNo);
      return;
    }
    this.current = this.c.series(labels, lineNo);
    this.inSeries = m[2] === undefined;
    if (m[2] !== undefined) this.add(m[2], m[3]!, lineNo);
  }

  finish(): QueryParsed {
    const notes: { line: number; message: string }[] = [];
    const o = this.orphan;
    if (o) {
      const when = (ms: number): string => isoTime(ms).replace('.000Z', 'Z');
      const flat = o.min === o.max ? `; it held one value (${goFloat(o.min)}) throughout` : o.lastChange < o.last ? `; it last changed at ${when(o.lastChange)} and held ${goFloat(o.lastValue)} to the end (${Math.round((o.last - o.lastChange) / 1000)} s): a relist series that stops moving is a relist that stopped` : '';
      notes.push({ line: o.line, message: `${o.n} point(s) of a series whose name was not pasted (\`value @time\` lines with no \`series =>\` line above them), from ${when(o.first)} to ${when(o.last)}${flat}; paste the series line with them to have them read` });
    }
    if (this.bad > 0) this.c.errors.push({ line: this.firstBad, message: `${this.bad} line(s) that are neither \`series =>\` nor \`value @[time]\` skipped` });
    return { format: 'prometheus-query-text', samples: this.c.samples, errors: this.c.errors, points: this.c.points, ...(notes.length ? { notes } : {}) };
  }

  private add(v: string, ts: string, lineNo: number): void {
    this.c.points++;
    const value = parseMetricNumber(v);
    const t = Number(ts);
    if (value === undefined || !Number.isFinite(t) || !plausibleMs(t * 1000)) {
      this.fail(lineNo);
      return;
    }
    if (this.current) this.c.push(this.current, value, Math.round(t * 1000), lineNo);
  }

  private addOrphan(v: string, ts: string, lineNo: number): void {
    const value = parseMetricNumber(v);
    const t = Math.round(Number(ts) * 1000);
    if (value === undefined || !Number.isFinite(t) || !plausibleMs(t)) {
      this.fail(lineNo);
      return;
    }
    const o = this.orphan;
    if (!o) {
      this.orphan = { n: 1, line: lineNo, first: t, last: t, min: value, max: value, lastChange: t, lastValue: value };
      return;
    }
    o.n++;
    if (t < o.first) o.first = t;
    if (t >= o.last) {
      if (value !== o.lastValue) o.lastChange = t;
      o.last = t;
      o.lastValue = value;
    }
    o.min = Math.min(o.min, value);
    o.max = Math.max(o.max, value);
  }

  private fail(lineNo: number): void {
    if (this.bad++ === 0) this.firstBad = lineNo;
  }
}

/** `name{a="b", c="d"}`, `name` or `{a="b"}` with Go-quoted values → labels (with __name__), or null. */
export function parseSeries(s: string): Record<string, string> | null {
  const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)?(?:\{(.*)\})?$/.exec(s.trim());
  if (!m || (m[1] === undefined && m[2] === undefined)) return null;
  const out: Record<string, string> = {};
  if (m[1]) out['__name__'] = m[1];
  const body = m[2] ?? '';
  let i = 0;
  while (i < body.length) {
    while (body[i] === ' ' || body[i] === ',') i++;
    if (i >= body.length) break;
    const k = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(body.slice(i));
    if (!k || body[i + k[0].length] !== '=' || body[i + k[0].length + 1] !== '"') return null;
    i += k[0].length + 2;
    let v = '';
    for (;;) {
      if (i >= body.length) return null;
      const ch = body[i]!;
      if (ch === '"') break;
      if (ch === '\\') {
        const n = body[i + 1];
        const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\', a: '\x07', b: '\b', f: '\f', v: '\v' };
        if (n !== undefined && n in simple) {
          v += simple[n];
          i += 2;
          continue;
        }
        const hex = n === 'x' ? 2 : n === 'u' ? 4 : n === 'U' ? 8 : 0;
        if (hex > 0 && /^[0-9a-fA-F]+$/.test(body.slice(i + 2, i + 2 + hex)) && body.length >= i + 2 + hex) {
          v += String.fromCodePoint(parseInt(body.slice(i + 2, i + 2 + hex), 16));
          i += 2 + hex;
          continue;
        }
        return null;
      }
      v += ch;
      i++;
    }
    out[k[0]] = v;
    i++;
  }
  return out;
}
