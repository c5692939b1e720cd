// Streaming parser for the Prometheus text exposition format 0.0.4 and OpenMetrics 1.0, one line at a time.
// Example input (kubelet /metrics, 0.0.4; and a promtool OpenMetrics dump line, timestamp in seconds):
//   # TYPE kubelet_runtime_operations_duration_seconds histogram
//   kubelet_runtime_operations_duration_seconds_bucket{operation_type="list_podsandbox",le="0.005"} 7
//   kubelet_pleg_relist_duration_seconds_count{instance="10.0.1.5:10250", job="kubelet"} 8123 1700000000.123
//   # EOF
// A sample stamped outside 1970..2199 is dropped with one error (util/instant.ts).
// We write our own because parse-prometheus-text-format folds labelled histograms into one series (anchors.md B.3).

import { plausibleMs } from '../../util/instant.js';

export type MetricType =
  | 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped'
  | 'info' | 'stateset' | 'gaugehistogram' | 'unknown';

export interface Sample {
  name: string;
  /** Shared and frozen between samples of the same series (a TSDB dump repeats each label set many times). */
  labels: Record<string, string>;
  value: number;
  /** Epoch ms. OpenMetrics timestamps are seconds; they are converted once the file shows it is OpenMetrics. */
  tsMs: number | null;
  line: number;
  /** The line as read (without the line terminator), for evidence citations. */
  text: string;
}

export interface ParsedMetrics {
  format: 'prometheus-text' | 'openmetrics';
  /** Family name → type, as declared by `# TYPE` (OpenMetrics counter `x` has samples `x_total`, `x_created`). */
  types: Map<string, MetricType>;
  samples: Sample[];
  errors: { line: number; message: string }[];
  /** Families that had more series than `maxSeriesPerFamily`: what was dropped of each (samples of kept series stay). */
  dropped: DroppedSeries[];
  /** Samples past `maxSamples`: not kept, counted. */
  cut: SampleCut | null;
}

export interface SampleCut {
  kept: number;
  more: number;
  firstLine: number;
}

export interface DroppedSeries {
  /** The family's stem (`kubelet_runtime_operations_duration_seconds` for its `_bucket`, `_sum` and `_count`). */
  family: string;
  /** Series kept: the first ones met, in file order. */
  kept: number;
  /** Further series whose samples were dropped (told apart up to DROPPED_COUNT_LIMIT: past it, `atLeast`). */
  series: number;
  atLeast: boolean;
  samples: number;
  /** Line of the first dropped sample. */
  firstLine: number;
}

export interface MetricsParserOptions {
  /** Called with the sample name before its labels are built; return false to drop the sample cheaply. */
  keep?: (name: string) => boolean;
  /** Longer lines are reported as errors and skipped. Default 64 KiB. */
  maxLineLength?: number;
  /** Errors listed individually; the rest are counted in one final entry. Default 1000. */
  maxErrors?: number;
  /**
   * Series kept per family (a series: a label set, `le` and `quantile` aside; a family: the sample names of one stem,
   * `x_bucket`/`x_sum`/`x_count`, `x`/`x_total`). A kubelet exposes ~30 per family (one per CRI operation); a file with
   * 100 000 made the model and the report grow without bound. Samples of further series are dropped and counted.
   * Default MAX_SERIES_PER_FAMILY.
   */
  maxSeriesPerFamily?: number;
  /** Samples kept at most (a dump of one series sampled for weeks): the rest counted. Default MAX_SAMPLES. */
  maxSamples?: number;
}

/** Samples one metrics file may give the model: ~100 bytes each in the parser, ~1 KB once each is a scrape of its own. */
export const MAX_SAMPLES = 100_000;
/** Distinct sample times one file may give the model (each becomes a scrape of its own). */
export const MAX_SAMPLE_TIMES = 50_000;

export const MAX_SERIES_PER_FAMILY = 1000;
/** Dropped series are told apart (counted) up to this many per family; past it the count is a lower bound. */
export const DROPPED_COUNT_LIMIT = 10_000;

const METRIC_TYPES: ReadonlySet<string> = new Set<MetricType>([
  'counter', 'gauge', 'histogram', 'summary', 'untyped', 'info', 'stateset', 'gaugehistogram', 'unknown',
]);
const OPENMETRICS_ONLY_TYPES: ReadonlySet<string> = new Set(['unknown', 'info', 'stateset', 'gaugehistogram']);

// Family suffixes, longest first so `_gcount` is not mistaken for `_count`.
const FAMILY_SUFFIXES = ['_created', '_bucket', '_gcount', '_count', '_total', '_gsum', '_info', '_sum'];

/** The family a sample name belongs to whatever the `# TYPE` lines say (they may be missing, or lie): its stem. */
function stemOf(name: string): string {
  for (const suffix of FAMILY_SUFFIXES) if (name.endsWith(suffix) && name.length > suffix.length) return name.slice(0, -suffix.length);
  return name;
}

/** Labels that tell the samples of one series apart, not series. */
const SERIES_ASIDE = new Set(['le', 'quantile']);

interface FamilySeries {
  kept: Set<string>;
  dropped: Set<string>;
  /** More dropped series than `dropped` holds. */
  overflow: boolean;
  droppedSamples: number;
  firstDropped: number;
}

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+$/;
const EMPTY_LABELS: Record<string, string> = Object.freeze(Object.create(null) as Record<string, string>);
const LABEL_CACHE_LIMIT = 100_000;

/** Go's strconv.ParseFloat as the exposition formats use it: decimals, exponents, ±Inf, NaN; no hex. */
export function parseMetricNumber(s: string): number | undefined {
  if (DECIMAL.test(s)) return Number(s);
  let t = s.toLowerCase();
  let sign = 1;
  if (t.charCodeAt(0) === 43 /* + */ || t.charCodeAt(0) === 45 /* - */) {
    sign = t.charCodeAt(0) === 45 ? -1 : 1;
    t = t.slice(1);
  }
  if (t === 'inf' || t === 'infinity') return sign * Infinity;
  if (t === 'nan') return NaN;
  return undefined;
}

/**
 * The family a sample belongs to: the sample name itself if it has a `# TYPE`, else the name without its
 * histogram/summary/OpenMetrics suffix when that stem has one (`x_total` → `x`), else the name.
 */
export function familyOf(name: string, types: Map<string, MetricType>): string {
  if (types.has(name)) return name;
  for (const suffix of FAMILY_SUFFIXES) {
    if (name.endsWith(suffix)) {
      const stem = name.slice(0, -suffix.length);
      if (types.has(stem)) return stem;
    }
  }
  return name;
}

function isNameStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95; // a-z A-Z _
}
function isNameChar(c: number): boolean {
  return isNameStart(c) || (c >= 48 && c <= 57); // + 0-9
}
// Metric names also allow `:` (recording rules), label names do not.
function isMetricNameStart(c: number): boolean {
  return isNameStart(c) || c === 58;
}
function isMetricNameChar(c: number): boolean {
  return isNameChar(c) || c === 58;
}
function isSpace(c: number): boolean {
  return c === 32 || c === 9;
}
function skipSpaces(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}
/** End of a value/timestamp token: stops at whitespace and at an exemplar's `#`. */
function tokenEnd(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 35) break;
    i++;
  }
  return i;
}

class LineError extends Error {}

export class MetricsParser {
  private readonly keep: ((name: string) => boolean) | undefined;
  private readonly maxLineLength: number;
  private readonly maxErrors: number;
  private readonly types = new Map<string, MetricType>();
  private readonly samples: Sample[] = [];
  private readonly errors: { line: number; message: string }[] = [];
  private readonly labelCache = new Map<string, Record<string, string>>();
  private readonly maxSeries: number;
  private readonly maxSamples: number;
  private cut: SampleCut | null = null;
  private readonly times = new Set<number>();
  private readonly families = new Map<string, FamilySeries>();
  private readonly stems = new Map<string, string>();
  /** Raw label block of the sample being read when its labels were parsed, not taken from the cache. */
  private uncached: string | null = null;
  /** Series key of a (shared, frozen) labels object. */
  private readonly seriesKeys = new WeakMap<Record<string, string>, string>();
  private droppedErrors = 0;
  private lastLine = 0;
  private openMetrics = false;
  /** Samples before this index may still hold timestamps as written (the format was not known yet). */
  private rawTsUpTo = 0;
  private lastBlock = '';
  private lastLabels: Record<string, string> = EMPTY_LABELS;
  private eof = false;
  private result: ParsedMetrics | null = null;

  constructor(opts: MetricsParserOptions = {}) {
    this.keep = opts.keep;
    this.maxLineLength = opts.maxLineLength ?? 64 * 1024;
    this.maxErrors = opts.maxErrors ?? 1000;
    this.maxSeries = opts.maxSeriesPerFamily ?? MAX_SERIES_PER_FAMILY;
    this.maxSamples = opts.maxSamples ?? MAX_SAMPLES;
  }

  push(line: string, lineNo: number): void {
    if (this.eof || this.result) return;
    this.lastLine = lineNo;
    if (line.length > this.maxLineLength) {
      this.error(lineNo, `line too long (${line.length} characters, limit ${this.maxLineLength})`);
      return;
    }
    let end = line.length;
    if (end > 0 && line.charCodeAt(end - 1) === 13) end--;
    let i = 0;
    if (end > 0 && line.charCodeAt(0) === 0xfeff) i = 1;
    while (i < end && isSpace(line.charCodeAt(i))) i++;
    if (i >= end) return;
    const text = end === line.length ? line : line.slice(0, end);
    try {
      if (text.charCodeAt(i) === 35 /* # */) this.comment(text, i, lineNo);
      else this.sample(text, i, lineNo);
    } catch (e) {
      if (!(e instanceof LineError)) throw e;
      this.error(lineNo, e.message);
    }
  }

  finish(): ParsedMetrics {
    if (this.result) return this.result;
    if (this.openMetrics) this.convertRawTimestamps();
    this.dropAbsurdTimestamps();
    if (this.droppedErrors > 0) {
      this.errors.push({ line: this.lastLine, message: `${this.droppedErrors} more malformed lines not listed` });
    }
    this.labelCache.clear();
    this.times.clear();
    const dropped: DroppedSeries[] = [];
    for (const [family, f] of this.families) {
      if (f.droppedSamples > 0) dropped.push({ family, kept: f.kept.size, series: f.dropped.size, atLeast: f.overflow, samples: f.droppedSamples, firstLine: f.firstDropped });
    }
    this.families.clear();
    this.result = {
      format: this.openMetrics ? 'openmetrics' : 'prometheus-text',
      types: this.types,
      samples: this.samples,
      errors: this.errors,
      dropped,
      cut: this.cut,
    };
    return this.result;
  }

  /** Whether a sample of `name` with `labels` is kept: its series is one of the first `maxSeries` of its family. */
  private admit(name: string, labels: Record<string, string>, lineNo: number): boolean {
    let stem = this.stems.get(name);
    if (stem === undefined) this.stems.set(name, (stem = stemOf(name)));
    let f = this.families.get(stem);
    if (!f) this.families.set(stem, (f = { kept: new Set(), dropped: new Set(), overflow: false, droppedSamples: 0, firstDropped: 0 }));
    let key = this.seriesKeys.get(labels);
    if (key === undefined) {
      key = Object.keys(labels).filter((k) => !SERIES_ASIDE.has(k)).sort().map((k) => `${k}\u0001${labels[k]}`).join('\u0002');
      this.seriesKeys.set(labels, key);
    }
    if (f.kept.has(key)) return true;
    if (f.kept.size < this.maxSeries) {
      f.kept.add(key);
      return true;
    }
    if (f.droppedSamples === 0) f.firstDropped = lineNo;
    f.droppedSamples++;
    if (!f.dropped.has(key)) {
      if (f.dropped.size < DROPPED_COUNT_LIMIT) f.dropped.add(key);
      else f.overflow = true;
    }
    return false;
  }

  // The format decides the timestamp unit but may only show late (`# EOF`), so samples keep the timestamp as
  // written until then; a dump shows it on its first line, and from there on samples are stored in ms.
  private convertRawTimestamps(): void {
    for (let k = 0; k < this.rawTsUpTo; k++) {
      const s = this.samples[k]!;
      if (s.tsMs !== null) s.tsMs = Math.round(s.tsMs * 1000);
    }
    this.rawTsUpTo = 0;
  }

  /** Samples stamped with a time no scrape means (9e15 ms, 1e13 s; util/instant.ts) are dropped, said once. */
  private dropAbsurdTimestamps(): void {
    let bad = 0;
    let first = 0;
    for (const s of this.samples) {
      if (s.tsMs !== null && !plausibleMs(s.tsMs)) {
        if (bad++ === 0) first = s.line;
      }
    }
    if (bad === 0) return;
    let k = 0;
    for (const s of this.samples) if (s.tsMs === null || plausibleMs(s.tsMs)) this.samples[k++] = s;
    this.samples.length = k;
    this.errors.push({ line: first, message: `${bad} sample(s) stamped with a time no scrape means (before 1970 or after 2199; first here): dropped` });
  }

  private error(line: number, message: string): void {
    if (this.errors.length < this.maxErrors) this.errors.push({ line, message });
    else this.droppedErrors++;
  }

  // `# HELP`, `# TYPE`, `# UNIT`, `# EOF`; any other `#` line is a free comment in 0.0.4.
  private comment(text: string, start: number, _lineNo: number): void {
    const words = text.slice(start + 1).trim().split(/[ \t]+/);
    const keyword = words[0];
    if (keyword === 'EOF' && words.length === 1) {
      this.openMetrics = true;
      this.eof = true;
    } else if (keyword === 'UNIT') {
      this.openMetrics = true;
    } else if (keyword === 'TYPE') {
      const name = words[1];
      const type = words[2]?.toLowerCase();
      if (name === undefined || type === undefined || words.length > 3) throw new LineError('malformed # TYPE line');
      if (!METRIC_TYPES.has(type)) throw new LineError(`unknown metric type "${words[2]}"`);
      if (OPENMETRICS_ONLY_TYPES.has(type)) this.openMetrics = true;
      this.types.set(name, type as MetricType);
    }
  }

  private sample(text: string, start: number, lineNo: number): void {
    this.uncached = null;
    const end = text.length;
    let i = start;
    let name: string;
    let labels = EMPTY_LABELS;
    if (text.charCodeAt(i) === 123 /* { */) {
      // UTF-8 style: {"metric.name", label="v"}; the name is the first quoted item.
      const block = this.labelBlock(text, i);
      const first = this.quotedNameInBlock(text, i + 1);
      if (first === null) throw new LineError('missing metric name');
      name = first;
      if (this.keep && !this.keep(name)) return;
      labels = this.labels(text, i, block, true);
      i = block;
    } else {
      if (!isMetricNameStart(text.charCodeAt(i))) throw new LineError('invalid metric name');
      while (i < end && isMetricNameChar(text.charCodeAt(i))) i++;
      name = text.slice(start, i);
      if (this.keep && !this.keep(name)) return;
      let j = i;
      while (j < end && isSpace(text.charCodeAt(j))) j++;
      if (j < end && text.charCodeAt(j) === 123) {
        // A TSDB dump prints all samples of a series in a row: the same label block as the line before.
        if (this.lastBlock !== '' && text.startsWith(this.lastBlock, j)) {
          labels = this.lastLabels;
          i = j + this.lastBlock.length;
        } else {
          const block = this.labelBlock(text, j);
          labels = this.labels(text, j, block, false);
          i = block;
        }
      } else if (j === i && i < end) {
        throw new LineError('invalid metric name');
      }
    }

    // Rest: value [timestamp] [# exemplar]. No quotes remain, so a `#` starts the exemplar.
    const v0 = skipSpaces(text, i);
    const v1 = tokenEnd(text, v0);
    if (v1 === v0) throw new LineError(`missing value for ${name}`);
    const t0 = skipSpaces(text, v1);
    const t1 = tokenEnd(text, t0);
    const after = skipSpaces(text, t1);
    if (after < end && text.charCodeAt(after) !== 35) throw new LineError(`unexpected text after the value of ${name}`);
    const valueText = text.slice(v0, v1);
    const value = parseMetricNumber(valueText);
    if (value === undefined) throw new LineError(`invalid value "${valueText}" for ${name}`);
    let ts: number | null = null;
    if (t1 > t0) {
      const tsText = text.slice(t0, t1);
      if (INTEGER.test(tsText)) ts = Number(tsText);
      else if (DECIMAL.test(tsText)) {
        ts = Number(tsText);
        this.openMetrics = true; // 0.0.4 timestamps are integer milliseconds
      } else throw new LineError(`invalid timestamp "${tsText}" for ${name}`);
    }
    const uncached = this.uncached;
    this.uncached = null;
    if (!this.admit(name, labels, lineNo)) return;
    if (this.samples.length >= this.maxSamples || (ts !== null && !this.times.has(ts) && this.times.size >= MAX_SAMPLE_TIMES)) {
      if (this.cut) this.cut.more++;
      else this.cut = { kept: this.samples.length, more: 1, firstLine: lineNo };
      return;
    }
    if (uncached !== null) {
      if (this.labelCache.size >= LABEL_CACHE_LIMIT) this.labelCache.clear();
      this.labelCache.set(uncached, labels);
    }
    if (ts !== null) this.times.add(ts);
    if (this.openMetrics) {
      if (this.rawTsUpTo > 0) this.convertRawTimestamps();
      if (ts !== null) ts = Math.round(ts * 1000);
    } else {
      this.rawTsUpTo = this.samples.length + 1;
    }
    this.samples.push({ name, labels, value, tsMs: ts, line: lineNo, text });
  }

  /** Index just past the `}` that closes the block opening at `open`, honouring quoted values. */
  private labelBlock(text: string, open: number): number {
    let inQuote = false;
    for (let i = open + 1; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (inQuote) {
        if (c === 92 /* \ */) i++;
        else if (c === 34 /* " */) inQuote = false;
      } else if (c === 34) inQuote = true;
      else if (c === 125 /* } */) return i + 1;
    }
    throw new LineError(inQuote ? 'unterminated label value' : 'missing "}" after labels');
  }

  private quotedNameInBlock(text: string, i: number): string | null {
    while (isSpace(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) !== 34) return null;
    const [s, next] = readQuoted(text, i);
    let j = next;
    while (isSpace(text.charCodeAt(j))) j++;
    const c = text.charCodeAt(j);
    return c === 44 /* , */ || c === 125 /* } */ ? s : null;
  }

  private labels(text: string, open: number, close: number, nameInside: boolean): Record<string, string> {
    const raw = text.slice(open, close);
    let cached = this.labelCache.get(raw);
    if (cached === undefined) {
      cached = this.parseLabels(text, open, close, nameInside);
      // Cached once the sample is admitted (a dropped series must not fill the cache).
      this.uncached = raw;
    }
    if (!nameInside) {
      this.lastBlock = raw;
      this.lastLabels = cached;
    }
    return cached;
  }

  private parseLabels(text: string, open: number, close: number, nameInside: boolean): Record<string, string> {
    const labels = Object.create(null) as Record<string, string>;
    let i = open + 1;
    const last = close - 1; // the closing brace
    let skippedName = !nameInside;
    for (;;) {
      while (isSpace(text.charCodeAt(i))) i++;
      if (i >= last) break;
      let key: string;
      if (text.charCodeAt(i) === 34) {
        const [s, next] = readQuoted(text, i);
        i = next;
        while (isSpace(text.charCodeAt(i))) i++;
        if (!skippedName && text.charCodeAt(i) !== 61 /* = */) {
          skippedName = true;
          if (text.charCodeAt(i) === 44) i++;
          continue;
        }
        key = s;
      } else {
        const k0 = i;
        if (!isNameStart(text.charCodeAt(i))) throw new LineError('invalid label name');
        while (isNameChar(text.charCodeAt(i))) i++;
        key = text.slice(k0, i);
        while (isSpace(text.charCodeAt(i))) i++;
      }
      if (text.charCodeAt(i) !== 61) throw new LineError(`expected "=" after label ${key}`);
      i++;
      while (isSpace(text.charCodeAt(i))) i++;
      if (text.charCodeAt(i) !== 34) throw new LineError(`expected quoted value for label ${key}`);
      const [value, next] = readQuoted(text, i);
      i = next;
      if (key in labels) throw new LineError(`duplicate label ${key}`);
      labels[key] = value;
      while (isSpace(text.charCodeAt(i))) i++;
      const c = text.charCodeAt(i);
      if (c === 44) i++;
      else if (i < last) throw new LineError('expected "," or "}" between labels');
    }
    Object.freeze(labels);
    return labels;
  }
}

/**
 * Reads the quoted string starting at `open` (a `"`); returns it unescaped and the index after the closing quote.
 * Like Prometheus, `\\`, `\"` and `\n` are escapes and any other backslash is kept as written.
 */
function readQuoted(text: string, open: number): [string, number] {
  let i = open + 1;
  let out = '';
  let from = i;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) return [out + text.slice(from, i), i + 1];
    if (c === 92 && i + 1 < text.length) {
      const n = text.charCodeAt(i + 1);
      const rep = n === 92 ? '\\' : n === 34 ? '"' : n === 110 ? '\n' : null;
      if (rep !== null) {
        out += text.slice(from, i) + rep;
        from = i + 2;
      }
      i++;
    }
  }
  throw new LineError('unterminated label value');
}

/** Convenience for whole strings (tests, small files): splits on LF/CRLF and pushes every line. */
export function parseMetricsText(text: string, opts?: MetricsParserOptions): ParsedMetrics {
  const parser = new MetricsParser(opts);
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  for (let i = 0; i < lines.length; i++) parser.push(lines[i]!, i + 1);
  return parser.finish();
}
