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
import { MAX_SAMPLE_TIMES, MAX_SAMPLES, parseMetricNumber } from './exposition.js';
import { plausibleMs } from '../../util/instant.js';
import { JsonStream, JsonSyntaxError, type JsonHandler } from '../json-stream.js';
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

  /** Points past MAX_SAMPLES (a paste of one series sampled for weeks): counted, not kept. */
  cut: { kept: number; more: number; firstLine: number } | null = null;
  private readonly times = new Set<number>();

  push(s: { name: string; labels: Record<string, string>; text: string }, value: number, tsMs: number, line: number): void {
    if (this.samples.length >= MAX_SAMPLES || (!this.times.has(tsMs) && this.times.size >= MAX_SAMPLE_TIMES)) {
      if (this.cut) this.cut.more++;
      else this.cut = { kept: this.samples.length, more: 1, firstLine: line };
      return;
    }
    this.times.add(tsMs);
    this.samples.push(new QuerySample(s.name, s.labels, value, tsMs, line, s.text));
  }
}

/** A whole answer's text (tests, small files); files and live answers are streamed through QueryJsonReader. */
export function parseQueryJson(text: string, keep?: (name: string) => boolean): QueryParsed {
  const r = new QueryJsonReader(keep);
  r.push(Buffer.from(text, 'utf8'));
  return r.finish();
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
    const cut = this.c.cut;
    if (cut) notes.push({ line: cut.firstLine, message: `only the first ${cut.kept} points are read (${MAX_SAMPLES} points or ${MAX_SAMPLE_TIMES} sample times at most); ${cut.more} more point(s) (from this line) not read (plegscope's memory bound): paste a narrower window or a coarser step` });
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

// ---------------------------------------------------------------------------------------------------------------
// Query answers read as a stream (a live answer, a saved one): never parsed whole, state bounded whatever they hold.

/** Where the points of a streamed answer go: a series is announced by its labels (with `__name__` when it has one). */
export interface SeriesSink {
  /** A handle for the series' points, or null to skip them. */
  series(labels: Record<string, string>, line: number): number | null;
  point(handle: number, tsMs: number, value: number, line: number): void;
  /** The sink keeps no more points (its own bound): the reader cuts there. */
  full?(): boolean;
}

/** Thrown out of push() when an answer read with `stopAtCut` reaches its bound: the rest need not be read. */
export class AnswerCut extends Error {
  constructor() {
    super('the answer was cut at its bound');
  }
}

export interface AnswerLimits {
  /** Points kept at most; past it points are counted, not kept. */
  maxPoints: number;
  /** Series read at most; past it series are counted, not read. */
  maxSeries: number;
  /** Labels kept per series (the rest ignored). Default 64. */
  maxLabels?: number;
  /** At the first point past the bounds, throw AnswerCut (the caller stops reading) instead of counting the rest. */
  stopAtCut?: boolean;
}

/** What an answer said besides its points. */
export interface AnswerSummary {
  status: string | null;
  error: string | null;
  errorType: string | null;
  resultType: string | null;
  /** Points read, kept or not. */
  points: number;
  /** Points past maxPoints (not kept), and the first one's line. */
  cutPoints: number;
  firstCutLine: number;
  /** Series past maxSeries (not read). */
  cutSeries: number;
  /** Entries of the result list that are no series (null, a number…), series whose `metric` is not an object. */
  badSeries: number;
  /** Series with a label value that is not a string (an object, a number, null): skipped. */
  badLabels: number;
  badPoints: number;
  /** Line of the first bad point (promtool's rendering, as a sample's line). */
  firstBadLine: number;
  histograms: number;
  /** Label sets of a /api/v1/series answer (its `data` is a list of them), when asked for with `labelSets`. */
  labelSets: Array<Record<string, string>>;
  cutLabelSets: number;
  /** Reading stopped at the first point past the bounds (stopAtCut): the rest of the answer was not read. */
  stopped?: boolean;
}

type Role = 'top' | 'data' | 'result' | 'series' | 'metric' | 'values' | 'point' | 'sets' | 'set' | 'skip';

/**
 * A Prometheus API answer (`{"status":…,"data":{"resultType":…,"result":[…]}}`, or a /api/v1/series answer whose data
 * is a list of label sets) as JSON events (json-stream.ts) → series and points into a SeriesSink, counted against the
 * limits. A malformed part (null in the series list, an object as a label value, a point that is not `[ts, "v"]`) is
 * counted and skipped; the rest is read.
 */
export class QueryAnswerReader {
  readonly summary: AnswerSummary = {
    status: null, error: null, errorType: null, resultType: null, points: 0, cutPoints: 0, firstCutLine: 0, cutSeries: 0,
    badSeries: 0, badLabels: 0, badPoints: 0, firstBadLine: 0, histograms: 0, labelSets: [], cutLabelSets: 0,
  };
  private readonly roles: Role[] = [];
  private key: string | null = null;
  private readonly keys: Array<string | null> = [];
  private line = 0;
  private kept = 0;
  private seriesRead = 0;
  // The series being read.
  private labels: Record<string, string> | null = null;
  private labelCount = 0;
  private badLabel = false;
  private handle: number | null = null;
  private announced = false;
  /** Points met before the series' labels (a `values` key before `metric`): held until they come. */
  private pending: number[] = [];
  // The point being read.
  private pt: Array<string | number | boolean | null> = [];
  private ptBad = false;
  private readonly maxLabels: number;

  constructor(private readonly sink: SeriesSink, private readonly limits: AnswerLimits, private readonly opts: { labelSets?: { keep: ReadonlySet<string>; max: number } } = {}) {
    this.maxLabels = limits.maxLabels ?? 64;
  }

  private get role(): Role | undefined {
    return this.roles[this.roles.length - 1];
  }

  open(kind: 'object' | 'array'): void {
    const parent = this.role;
    const key = this.key;
    this.keys.push(key);
    this.key = null;
    let role: Role = 'skip';
    if (parent === undefined) role = kind === 'object' ? 'top' : 'skip';
    else if (parent === 'top') role = key === 'data' ? (kind === 'object' ? 'data' : this.opts.labelSets ? 'sets' : 'skip') : 'skip';
    else if (parent === 'data') role = key === 'result' && kind === 'array' ? 'result' : 'skip';
    else if (parent === 'result') {
      if (kind === 'object' && this.seriesRead < this.limits.maxSeries) {
        role = 'series';
        this.startSeries();
      } else if (kind === 'object') this.summary.cutSeries++;
      else this.summary.badSeries++;
    } else if (parent === 'series') {
      if (key === 'metric') role = kind === 'object' ? 'metric' : 'skip';
      else if (key === 'values') role = kind === 'array' ? 'values' : 'skip';
      else if (key === 'value') role = kind === 'array' ? this.startPoint() : 'skip';
      else if (key === 'histogram' || key === 'histograms') this.summary.histograms++;
      if (role === 'skip' && (key === 'metric' || key === 'values' || key === 'value')) this.badLabel = true;
      if (role === 'values') this.line++; // the `name{…} =>` line of promtool's rendering
    } else if (parent === 'metric' || parent === 'set') {
      this.badLabel = true;
    } else if (parent === 'values') {
      if (kind === 'array') role = this.startPoint();
      else this.summary.badPoints++;
    } else if (parent === 'point') {
      this.ptBad = true;
    } else if (parent === 'sets') {
      if (kind === 'object') {
        role = 'set';
        // Only the keys asked for are kept (no `__proto__`): a plain object, smaller than a dictionary.
        this.labels = {};
        this.labelCount = 0;
        this.badLabel = false;
      } else this.summary.badSeries++;
    }
    this.roles.push(role);
  }

  close(): void {
    const role = this.roles.pop();
    this.key = null;
    this.keys.pop();
    if (role === 'point') this.endPoint();
    else if (role === 'series') this.endSeries();
    else if (role === 'set') this.endSet();
  }

  key_(k: string): void {
    this.key = k;
  }

  value(v: string | number | boolean | null): void {
    const role = this.role;
    const key = this.key;
    this.key = null;
    if (role === 'top') {
      if (key === 'status') this.summary.status = String(v).slice(0, 40);
      else if (key === 'error') this.summary.error = String(v).slice(0, 500);
      else if (key === 'errorType') this.summary.errorType = String(v).slice(0, 40);
      else if (key === 'data' && !this.opts.labelSets) this.summary.badSeries++;
    } else if (role === 'data') {
      if (key === 'resultType') this.summary.resultType = String(v).slice(0, 40);
      else if (key === 'result') this.summary.badSeries++;
    } else if (role === 'result' || role === 'sets') {
      this.summary.badSeries++;
    } else if (role === 'series') {
      if (key === 'metric' || key === 'values' || key === 'value') this.badLabel = true;
    } else if (role === 'metric' || role === 'set') {
      if (typeof v !== 'string' || key === null) this.badLabel = true;
      else if (role === 'set' && !this.opts.labelSets!.keep.has(key)) return;
      else if (this.labelCount < this.maxLabels) {
        this.labels![key] = role === 'set' ? this.intern(v) : v;
        this.labelCount++;
      }
    } else if (role === 'values') {
      this.summary.badPoints++;
    } else if (role === 'point') {
      if (this.pt.length < 2) this.pt.push(v);
      else this.ptBad = true;
    }
  }

  /** A series list repeats metric names and jobs on every entry: one copy of each (a bounded table). */
  private readonly interned = new Map<string, string>();
  private intern(v: string): string {
    const got = this.interned.get(v);
    if (got !== undefined) return got;
    if (this.interned.size < 10_000) this.interned.set(v, v);
    return v;
  }

  private startSeries(): void {
    this.seriesRead++;
    this.labels = Object.create(null) as Record<string, string>;
    this.labelCount = 0;
    this.badLabel = false;
    this.handle = null;
    this.announced = false;
    this.metricSeen = false;
    this.pending = [];
  }

  private startPoint(): Role {
    this.pt = [];
    this.ptBad = false;
    return 'point';
  }

  private endPoint(): void {
    this.line++;
    this.summary.points++;
    const [t, v] = this.pt;
    const ts = typeof t === 'number' ? t : typeof t === 'string' ? Number(t) : NaN;
    const value = typeof v === 'string' ? parseMetricNumber(v) : typeof v === 'number' ? v : undefined;
    if (this.ptBad || this.pt.length !== 2 || !Number.isFinite(ts) || value === undefined || !plausibleMs(ts * 1000)) {
      if (this.summary.badPoints++ === 0) this.summary.firstBadLine = this.line;
      return;
    }
    if (this.kept >= this.limits.maxPoints || this.sink.full?.()) {
      if (this.summary.cutPoints++ === 0) this.summary.firstCutLine = this.line;
      if (this.limits.stopAtCut) {
        this.summary.stopped = true;
        throw new AnswerCut();
      }
      return;
    }
    const tsMs = Math.round(ts * 1000);
    // The labels come first in every answer Prometheus writes; held (bounded by maxPoints) when they do not.
    if (!this.announced && !this.metricSeen) {
      this.kept++;
      this.pending.push(tsMs, value, this.line);
      return;
    }
    this.announce();
    if (this.handle !== null && !this.badLabel) {
      this.kept++;
      this.sink.point(this.handle, tsMs, value, this.line);
    }
  }

  /** The series' `metric` object was met (its labels are known once it closes, before any point after it). */
  private metricSeen = false;

  private announce(): void {
    if (this.announced) return;
    this.announced = true;
    if (this.badLabel) return;
    this.handle = this.sink.series(this.labels!, this.line);
  }

  private endSeries(): void {
    if (this.badLabel) {
      this.summary.badLabels++;
      this.kept -= this.pending.length / 3;
    } else if (this.pending.length > 0) {
      this.announce();
      for (let i = 0; i < this.pending.length; i += 3) {
        if (this.handle !== null) this.sink.point(this.handle, this.pending[i]!, this.pending[i + 1]!, this.pending[i + 2]!);
        else this.kept--;
      }
    }
    this.pending = [];
    this.labels = null;
    this.metricSeen = false;
  }

  private endSet(): void {
    const o = this.opts.labelSets!;
    if (this.badLabel) this.summary.badLabels++;
    else if (this.summary.labelSets.length < o.max) this.summary.labelSets.push(this.labels!);
    else this.summary.cutLabelSets++;
    this.labels = null;
  }

  /** The JSON handler that feeds this reader. */
  handler(): JsonHandler {
    return {
      open: (k) => {
        if (this.role === 'series' && this.key === 'metric') this.metricSeen = true;
        this.open(k);
      },
      close: () => this.close(),
      key: (k) => this.key_(k),
      value: (v) => this.value(v),
    };
  }
}

/** A sink that keeps samples for the model (the Collector's shared, frozen label sets); finish() says what the answer
 *  skipped and what was cut. */
export class SampleSink implements SeriesSink {
  private readonly handles: Array<{ name: string; labels: Record<string, string>; text: string }> = [];
  private readonly c: Collector;
  constructor(keep: (name: string) => boolean = () => true, extraLabels?: Record<string, string>) {
    this.c = new Collector(keep, extraLabels);
  }
  series(labels: Record<string, string>, line: number): number | null {
    const s = this.c.series(labels, line);
    if (!s) return null;
    this.handles.push(s);
    return this.handles.length - 1;
  }
  point(h: number, tsMs: number, value: number, line: number): void {
    this.c.push(this.handles[h]!, value, tsMs, line);
  }
  full(): boolean {
    return this.c.cut !== null;
  }

  /** The samples, with the answer's errors (`failed`: it was cut short or malformed there) and notes. */
  finish(s: AnswerSummary, failed: string | null): QueryParsed {
    const errors = this.c.errors;
    const notes: Array<{ line: number; message: string }> = [];
    if (failed !== null) errors.push({ line: 1, message: s.points > 0 ? `${failed}: read up to there (${s.points} points)` : failed });
    if (s.status !== null && s.status !== 'success') errors.push({ line: 1, message: `the saved answer is an error: ${(s.error ?? s.status).slice(0, 200)}` });
    else if (s.resultType !== null && s.resultType !== 'matrix' && s.resultType !== 'vector') errors.push({ line: 1, message: `a ${s.resultType} result holds no series` });
    else if (failed === null && s.resultType === null && s.points === 0 && s.status === null) errors.push({ line: 1, message: 'no "data.result" list: not a Prometheus query answer' });
    for (const n of answerNotes(s, 'the answer')) notes.push(n);
    const cut = this.c.cut;
    const more = (cut?.more ?? 0) + s.cutPoints;
    if (more > 0) {
      const line = Math.min(cut?.firstLine ?? Infinity, s.cutPoints > 0 ? s.firstCutLine : Infinity);
      const rest = s.stopped ? 'the rest of the answer (from this line) is not read' : `${more} more point(s) (from this line) not read`;
      notes.push({ line, message: `only the first ${this.c.samples.length} points are read (${MAX_SAMPLES} points or ${MAX_SAMPLE_TIMES} sample times per answer, and a bound per run, at most); ${rest} (plegscope's memory bound): save or ask for a narrower window or a coarser step` });
    }
    return { format: 'prometheus-query-json', samples: this.c.samples, errors, points: s.points, ...(notes.length ? { notes } : {}) };
  }
}

/** A sink that keeps each series' points as they are (small answers: aggregations, probes). */
export class SeriesList implements SeriesSink {
  readonly list: Array<{ labels: Record<string, string>; times: number[]; values: number[] }> = [];
  series(labels: Record<string, string>): number {
    this.list.push({ labels, times: [], values: [] });
    return this.list.length - 1;
  }
  point(h: number, tsMs: number, value: number): void {
    const s = this.list[h]!;
    s.times.push(tsMs);
    s.values.push(value);
  }
}

/** Default bounds of one answer read into samples: what keeps the model of it under plegscope's memory bound. */
export const MAX_ANSWER_POINTS = MAX_SAMPLES;
export const MAX_ANSWER_SERIES = 20_000;

/** The words for what a streamed answer skipped or cut, for the report's warnings. */
export function answerNotes(s: AnswerSummary, what: string): Array<{ line: number; message: string }> {
  const out: Array<{ line: number; message: string }> = [];
  if (s.cutSeries > 0) out.push({ line: 1, message: `${what}: ${s.cutSeries} series past the first ${MAX_ANSWER_SERIES} not read` });
  if (s.badSeries > 0) out.push({ line: 1, message: `${what}: ${s.badSeries} entries of its series list are not series (null, a number, a list): skipped` });
  if (s.badLabels > 0) out.push({ line: 1, message: `${what}: ${s.badLabels} series with a label that is not a string (an object, a number, null): skipped` });
  if (s.badPoints > 0) out.push({ line: s.firstBadLine || 1, message: `${what}: ${s.badPoints} point(s) skipped, not [time, "value"] with a time between 1970 and 2199 (first here)` });
  if (s.histograms > 0) out.push({ line: 1, message: `${what}: ${s.histograms} native histogram series skipped (the kubelet exposes classic ones)` });
  return out;
}

/** A saved answer, pushed in chunks, read into samples for the model (SampleSink). */
export class QueryJsonReader {
  private readonly sink: SampleSink;
  readonly reader: QueryAnswerReader;
  private readonly json: JsonStream;
  private failed: string | null = null;

  constructor(keep: (name: string) => boolean = () => true, extraLabels?: Record<string, string>, limits: AnswerLimits = { maxPoints: MAX_ANSWER_POINTS, maxSeries: MAX_ANSWER_SERIES, stopAtCut: true }) {
    this.sink = new SampleSink(keep, extraLabels);
    this.reader = new QueryAnswerReader(this.sink, limits);
    this.json = new JsonStream(this.reader.handler());
  }

  /** Nothing more is read (the bound was reached, or the text is not JSON from here). */
  get done(): boolean {
    return this.failed !== null || this.reader.summary.stopped === true;
  }

  push(chunk: Buffer): void {
    if (this.done) return;
    try {
      this.json.push(chunk);
    } catch (e) {
      if (e instanceof AnswerCut) return;
      if (!(e instanceof JsonSyntaxError)) throw e;
      this.failed = e.message;
    }
  }

  finish(): QueryParsed {
    if (this.failed === null && !this.reader.summary.stopped) {
      try {
        this.json.end();
      } catch (e) {
        if (!(e instanceof JsonSyntaxError)) throw e;
        this.failed = e.message;
      }
    }
    return this.sink.finish(this.reader.summary, this.failed);
  }
}
