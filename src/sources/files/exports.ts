// Cloud and log-store exports of node logs. An export's fields give only a time, a host and a unit/identifier; the
// message is recognised by its content, like every other line (parse/record.ts). So each export entry is turned into
// the fields a `journalctl -o json` line carries (`__REALTIME_TIMESTAMP` in µs, `_HOSTNAME`, `SYSLOG_IDENTIFIER`,
// `_PID`, `MESSAGE`), which the sniffer (sniff.ts classifyJson) and the recogniser (record.ts parseJsonLine) read.
//
// One entry per line (format `export-json`, read where it is: evidence refs cite the export's own line):
//
//   Google Cloud Logging (`gcloud logging read --format=json` prints an array of these; a sink or a pipe, one a line):
//     {"insertId":"1x9k","jsonPayload":{"MESSAGE":"E0311 10:04:12.000150    2817 generic.go:205] …",
//      "SYSLOG_IDENTIFIER":"kubelet","_SYSTEMD_UNIT":"kubelet.service","_HOSTNAME":"gke-pool-1-abcd"},
//      "logName":"projects/p/logs/kubelet","resource":{"type":"k8s_node","labels":{"node_name":"gke-pool-1-abcd"}},
//      "timestamp":"2024-03-11T10:04:12.000150Z"}                    (or "textPayload":"…"; host also from
//      labels."compute.googleapis.com/resource_name"; unit from logName's last segment)
//   AWS CloudWatch Logs event (`aws logs filter-log-events` prints {"events":[…]}):
//     {"logStreamName":"i-0abc123/kubelet","timestamp":1710151452000,"message":"E0311 10:04:12.000150 …",
//      "ingestionTime":1710151453000,"eventId":"3784…"}         (stream `host/unit`, `unit-host` or `unit.service-host`)
//   Fluent Bit / CloudWatch agent shipped lines:
//     {"log":"E0311 …","host":"ip-10-0-1-2","kubernetes":{…}}   {"message":"E0311 …","host":"w3","systemd_unit":"kubelet.service","time":"…"}
//   Elasticsearch / ECS (a hit, or its `_source`; `_search` answers hold them in hits.hits[]):
//     {"_index":"logs","_source":{"@timestamp":"2024-03-11T10:04:12.000Z","message":"E0311 …",
//      "host":{"name":"worker-3"},"systemd":{"unit":"kubelet.service"},"process":{"name":"kubelet","pid":2817}}}
//   Loki (`logcli query --output=jsonl`):
//     {"labels":{"host":"worker-3","unit":"kubelet.service"},"line":"E0311 …","timestamp":"2024-03-11T10:04:12.00015Z"}
//   Splunk (`| outputformat json`, the REST export's lines):
//     {"preview":false,"result":{"_raw":"Mar 11 10:04:12 worker-3 kubelet[2817]: E0311 …","_time":"2024-03-11T10:04:12.000+00:00",
//      "host":"worker-3","source":"/var/log/messages","sourcetype":"syslog"}}
//   Azure Log Analytics Syslog row (`az monitor log-analytics query` prints an array of these):
//     {"TimeGenerated":"2024-03-11T10:04:12.0001500Z","Computer":"worker-3","ProcessName":"kubelet","ProcessID":"2817",
//      "SyslogMessage":"E0311 …","TableName":"PrimaryResult"}
//   …and the Log Analytics REST API's answer (the portal's JSON export), a table of columns and rows
//   (learn.microsoft.com/azure/azure-monitor/logs/api/response-format): each row is read as the object of its columns:
//     {"tables":[{"name":"PrimaryResult","columns":[{"name":"TimeGenerated","type":"datetime"},{"name":"Computer",
//      "type":"string"},…,{"name":"SyslogMessage","type":"string"}],"rows":[["2024-03-11T10:04:12.000150Z","worker-3",…]]}]}
//
// Whole documents (a JSON array of entries, {"events":[…]}, an Elasticsearch answer, a CSV export) are decoded like a
// compression (decode.ts, compression `export`): read into memory, at most limits.maxExportBytes, scanned entry by entry
// (each array element parsed alone, never the whole document), into one journal JSON line per entry, in time order (a
// newest-first export is turned round, then entries are sorted stably by time). Line N of such a file is its N-th entry
// in time order (`jq -c 'sort_by(.timestamp)[]' … | sed -n Np` for a gcloud array; a CSV's N-th record, its header
// left out, in time order). A document past the bound, or cut short, is read up to its last whole entry, with a warning.
//
// CSV exports are recognised by their header row: a time column and a message column among the names the exports use
// (Logs Explorer, CloudWatch Logs Insights `@timestamp,@message,@logStream`, Azure `TimeGenerated [UTC],Computer,
// ProcessName,SyslogMessage`, Kibana `@timestamp,host.name,message`, Splunk `_time,host,source,_raw`), RFC 4180 quoting
// (a quoted field may hold commas, doubled quotes and line breaks: a message split over rows is one record).
import { Readable } from 'node:stream';
import { mib, type Limits } from './limits.js';
import { entryOf, exportEntry, gcpLogName, isObj, journalLine, splunkSource, type ExportEntry, type Obj } from '../../parse/export-entry.js';


// ---------------------------------------------------------------------------------------------------------------------
// Whole documents

/** Keys whose presence in a JSON document's head says it holds export entries. */
const ENTRY_KEYS = /"(?:textPayload|jsonPayload|logName|insertId|logStreamName|ingestionTime|SyslogMessage|TimeGenerated|_raw|_source|@timestamp)"\s*:/;
/** A document that wraps its entries: `aws logs filter-log-events`/`get-log-events`, an Elasticsearch answer. */
const WRAPPER = /^\{\s*"(?:events|nextForwardToken|nextToken|searchedLogStreams|took|timed_out|_shards|hits)"\s*:/;
/** A Log Analytics REST answer: tables of columns and rows. */
const TABLES = /^\{\s*"tables"\s*:\s*\[/;

/** Whether `head` (a file's first bytes) is a whole-document export: a JSON document (not JSON lines) or a CSV. */
export function isExportDocument(head: Buffer): boolean {
  let i = 0;
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) i = 3;
  while (i < head.length && (head[i] === 0x20 || head[i] === 0x0a || head[i] === 0x0d || head[i] === 0x09)) i++;
  const c = head[i];
  if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
    const text = head.toString('utf8', i, Math.min(head.length, i + 16 * 1024));
    if (c === 0x7b) return (WRAPPER.test(text) && /"(?:events|hits)"\s*:/.test(text)) || (TABLES.test(text) && /"columns"\s*:/.test(text) && /"name"\s*:\s*"(?:SyslogMessage|TimeGenerated)"/.test(text));
    // An array of entries (its first one), not a Prometheus answer or a list of other things.
    return /^\[\s*\{/.test(text) && ENTRY_KEYS.test(text.slice(0, 4096));
  }
  const nl = head.indexOf(0x0a, i);
  if (nl < 0 && head.length >= 64 * 1024) return false;
  return csvColumns(head.toString('utf8', i, nl < 0 ? head.length : nl).replace(/\r$/, '')) !== null;
}

/**
 * The shell command that prints a JSON export document's entries one a line (`jq -c`), for the count checks: an array's
 * elements, `events[]` (CloudWatch), `hits.hits[]` (Elasticsearch), each table's rows (Log Analytics). A pattern that
 * matches an entry's message matches its line; a CSV is counted by its own lines (a message is one field of one row).
 */
export const EXPORT_ENTRIES_JQ = `jq -c 'if type == "array" then .[] elif has("tables") then .tables[].rows[] elif has("events") then .events[] elif has("hits") then .hits.hits[] else empty end'`;

/** Whether an export document's first bytes are JSON or CSV. */
export function exportDocumentKind(head: Buffer): 'json' | 'csv' {
  return /^\uFEFF?\s*[[{]/.test(head.toString('utf8', 0, 256)) ? 'json' : 'csv';
}

/**
 * The journal JSON lines of the entries in an export document's first bytes (`head`: all of it when `complete`), at
 * most `max` bytes of them: what a probe sniffs, without reading the document whole. A cut CSV is read up to its last
 * whole line; a cut JSON document up to its last whole entry.
 */
export function exportHead(head: Buffer, complete: boolean, max: number): { head: Buffer; complete: boolean } {
  const doc = complete || exportDocumentKind(head) === 'json' ? head : head.subarray(0, head.lastIndexOf(0x0a) + 1);
  const parts: Buffer[] = [];
  let size = 0;
  for (const e of exportDocument(doc).entries) {
    const line = Buffer.from(journalLine(e), 'utf8');
    if (size + line.length > max) return { head: Buffer.concat(parts), complete: false };
    parts.push(line);
    size += line.length;
  }
  return { head: Buffer.concat(parts), complete };
}

/** Containers deeper than this are scanned through, never parsed as entries (bounds the re-scanning: see below). */
const MAX_ENTRY_DEPTH = 4;

/**
 * The entries of a JSON export document (an array of entries, {"events":[…]}, an Elasticsearch answer), found without
 * parsing the document whole: each object that is an element of an array is parsed alone and kept when it is an
 * export entry (exportEntry); otherwise it is scanned into. Memory stays near the document's size; a document cut short
 * gives the entries before the cut. Each byte is scanned at most MAX_ENTRY_DEPTH + 1 times.
 */
function documentEntries(b: Buffer, add: (e: ExportEntry) => void): boolean {
  // The kinds of the open containers, as deep as entries are looked for (deeper ones are only counted).
  const kinds: number[] = [];
  let depth = 0;
  let i = 0;
  while (i < b.length) {
    const c = b[i] as number;
    if (c === 0x22 /* " */) {
      i = stringEnd(b, i);
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (c === 0x7b && depth > 0 && depth <= MAX_ENTRY_DEPTH && kinds[depth - 1] === 0x5b) {
        const end = containerEnd(b, i);
        if (end < 0) return false;
        const e = itemEntry(b, i, end);
        if (e) {
          add(e);
          i = end;
          continue;
        }
      }
      if (depth <= MAX_ENTRY_DEPTH) kinds[depth] = c;
      depth++;
      i++;
      continue;
    }
    if ((c === 0x7d /* } */ || c === 0x5d /* ] */) && depth > 0) depth--;
    i++;
  }
  return depth === 0;
}

/**
 * The rows of a Log Analytics answer's tables, each read as the object of its columns' names (so that exportEntry
 * reads it as it reads `az monitor log-analytics query`'s objects). Each row is parsed alone; a table's columns are
 * found before its rows (the API writes name, columns, rows). False when the document ends inside a row.
 */
function tableEntries(b: Buffer, add: (e: ExportEntry) => void): boolean {
  let at = 0;
  for (;;) {
    const key = b.indexOf('"columns"', at);
    if (key < 0) return true;
    const open = b.indexOf(0x5b, key);
    const end = open < 0 ? -1 : containerEnd(b, open);
    if (end < 0) return false;
    let names: string[];
    try {
      names = (JSON.parse(b.toString('utf8', open, end)) as unknown[]).map((c) => (isObj(c) && typeof c.name === 'string' ? c.name : ''));
    } catch {
      names = [];
    }
    const rows = b.indexOf('"rows"', end);
    let i = rows < 0 ? -1 : b.indexOf(0x5b, rows);
    if (i < 0) return true;
    // Each element of the rows array: `[…]`, separated by commas and blanks, up to the closing `]`.
    for (i++; i < b.length; ) {
      const c = b[i] as number;
      if (c === 0x5d /* ] */) break;
      if (c !== 0x5b) {
        i++;
        continue;
      }
      const rowEnd = containerEnd(b, i);
      if (rowEnd < 0) return false;
      let row: unknown;
      try {
        row = JSON.parse(b.toString('utf8', i, rowEnd));
      } catch {
        row = null;
      }
      if (Array.isArray(row)) {
        const o: Obj = {};
        names.forEach((n, k) => {
          if (n !== '' && k < row.length) o[n] = row[k];
        });
        const e = exportEntry(o);
        if (e) add(e);
      }
      i = rowEnd;
    }
    at = i + 1;
  }
}

/** The index after the string that starts at `i` (b.length when it is not closed). */
function stringEnd(b: Buffer, i: number): number {
  for (let j = i + 1; j < b.length; j++) {
    const c = b[j];
    if (c === 0x5c /* \ */) j++;
    else if (c === 0x22) return j + 1;
  }
  return b.length;
}

/** The index after the object or array that starts at `i`, or -1 when the document ends first. */
function containerEnd(b: Buffer, i: number): number {
  let depth = 0;
  while (i < b.length) {
    const c = b[i] as number;
    if (c === 0x22) {
      i = stringEnd(b, i);
      continue;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

function itemEntry(b: Buffer, from: number, to: number): ExportEntry | null {
  let item: unknown;
  try {
    item = JSON.parse(b.toString('utf8', from, to));
  } catch {
    return null;
  }
  if (!isObj(item)) return null;
  // A CloudWatch event without its stream (get-log-events): a message and a time.
  return exportEntry(item) ?? (typeof item.message === 'string' && typeof item.timestamp === 'number' ? entryOf(item, 'cloudwatch') : null);
}

/** Indices of `times` in time order: a newest-first export turned round, entries of one time (or none) in their order. */
function timeOrder(times: ArrayLike<number>): Uint32Array {
  const n = times.length;
  let first = NaN;
  let last = NaN;
  for (let i = 0; i < n; i++) {
    const t = times[i] as number;
    if (Number.isNaN(t)) continue;
    if (Number.isNaN(first)) first = t;
    last = t;
  }
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = first > last ? n - 1 - i : i;
  // An undated entry sorts with the dated one before it.
  const key = new Float64Array(n);
  let prev = -Infinity;
  for (let i = 0; i < n; i++) {
    const t = times[order[i] as number] as number;
    if (!Number.isNaN(t)) prev = t;
    key[i] = prev;
  }
  const pos = Uint32Array.from({ length: n }, (_, i) => i);
  pos.sort((a, b) => (key[a] as number) - (key[b] as number) || a - b);
  return pos.map((p) => order[p] as number);
}

/** Where a whole document's entries go: parsed entries, or their journal lines. */
function scanDocument(doc: Buffer | string, add: (e: ExportEntry) => void): boolean {
  const b = typeof doc === 'string' ? Buffer.from(doc, 'utf8') : doc;
  let i = b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  while (i < b.length && (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09)) i++;
  if (b[i] === 0x7b && TABLES.test(b.toString('utf8', i, i + 64))) return tableEntries(b.subarray(i), add);
  if (b[i] === 0x5b || b[i] === 0x7b) return documentEntries(i > 0 ? b.subarray(i) : b, add);
  csvEntries(b.toString('utf8', i), add);
  return true;
}

/** The entries of a whole-document export (JSON or CSV), in time order; `whole`: false when a JSON document ends early. */
export function exportDocument(doc: Buffer | string): { entries: ExportEntry[]; whole: boolean } {
  const found: ExportEntry[] = [];
  const whole = scanDocument(doc, (e) => found.push(e));
  return { entries: Array.from(timeOrder(found.map((e) => e.us)), (i) => found[i] as ExportEntry), whole };
}

/** Journal lines kept compactly: in 1 MiB segments, a segment, an offset and a time per line (no object or string per
 *  entry). A segment is let go once every line in it has been taken (`take`): an export in time order, or newest
 *  first, holds only the lines not yet handed on. */
class LineStore {
  private segs: Buffer[] = [];
  private left: number[] = [];
  private cur: Buffer = EMPTY;
  private used = 0;
  seg: number[] = [];
  at: number[] = [];
  len: number[] = [];
  times: number[] = [];
  add(e: ExportEntry): void {
    const line = journalLine(e);
    const n = Buffer.byteLength(line, 'utf8');
    if (this.used + n > this.cur.length) {
      this.cur = Buffer.allocUnsafe(Math.max(SEGMENT, n));
      this.segs.push(this.cur);
      this.left.push(0);
      this.used = 0;
    }
    const k = this.segs.length - 1;
    this.seg.push(k);
    this.at.push(this.used);
    this.len.push(n);
    this.times.push(e.us);
    this.left[k] = (this.left[k] as number) + 1;
    this.used += this.cur.write(line, this.used, 'utf8');
  }
  /** Line `i` copied into `to` at `pos`; its segment let go once all of its lines have been taken. */
  take(i: number, to: Buffer, pos: number): number {
    const k = this.seg[i] as number;
    const from = this.at[i] as number;
    const n = (this.segs[k] as Buffer).copy(to, pos, from, from + (this.len[i] as number));
    this.left[k] = (this.left[k] as number) - 1;
    if (this.left[k] === 0) {
      this.segs[k] = EMPTY;
      if (k === this.segs.length - 1) this.cur = EMPTY;
    }
    return n;
  }
}

const SEGMENT = 1 << 20;
const CHUNK = 256 * 1024;
const EMPTY = Buffer.alloc(0);

/**
 * The journal JSON lines of a whole-document export read from `raw`: held in memory, at most limits.maxExportBytes. A
 * larger document (or one cut short) is read up to its last whole entry, then an 'error' on the returned stream, code
 * ECORRUPT, says so (the usual "read stopped after line N: …" warning).
 */
export function exportLines(raw: Readable, limits: Limits): Readable {
  const collecting = collectInto(raw, limits.maxExportBytes);
  async function* lines(): AsyncGenerator<Buffer> {
    const got = await collecting;
    if (!raw.destroyed) raw.destroy();
    if (got.error) throw got.error;
    const cut = got.complete ? null : `export document larger than ${mib(limits.maxExportBytes)}`;
    const store = new LineStore();
    // The document is let go as soon as it is read (a CSV's as soon as it is text), before its lines are handed on.
    const whole = readDocument(got, cut !== null, store);
    const order = timeOrder(store.times);
    let chunk = Buffer.allocUnsafe(CHUNK);
    let size = 0;
    for (const i of order) {
      const n = store.len[i] as number;
      if (size + n > chunk.length) {
        if (size > 0) yield chunk.subarray(0, size);
        chunk = Buffer.allocUnsafe(Math.max(CHUNK, n));
        size = 0;
      }
      size += store.take(i, chunk, size);
    }
    if (size > 0) yield chunk.subarray(0, size);
    if (cut) throw damage(`${cut}: only its first ${mib(limits.maxExportBytes)} read`);
    if (!whole) throw damage(`export document cut short: ${order.length} entries read`);
  }
  const it = lines();
  let failure: Error | null = null;
  return new Readable({
    read() {
      if (failure) {
        if (this.readableLength === 0) this.destroy(failure);
        return;
      }
      it.next().then(
        (r) => this.push(r.done ? null : r.value),
        (err: unknown) => {
          failure = err instanceof Error ? err : new Error(String(err));
          if (this.readableLength === 0) this.destroy(failure);
          else this.push(Buffer.alloc(0));
        },
      );
    },
    destroy(err, cb) {
      if (!raw.destroyed) raw.destroy();
      it.return(undefined).then(() => cb(err), () => cb(err));
    },
  });
}

/**
 * A stream's first `max` bytes in one buffer, each chunk copied in as it comes (no list of chunks joined at the end:
 * that held the document twice). The buffer grows by doubling; its pages are only touched as they are written.
 */
function collectInto(stream: Readable, max: number): Promise<{ data: Buffer; complete: boolean; error: Error | null }> {
  return new Promise((resolve) => {
    let buf = Buffer.allocUnsafe(Math.min(max, 1 << 20));
    let n = 0;
    let done = false;
    const finish = (complete: boolean, error: Error | null) => {
      if (done) return;
      done = true;
      stream.off('data', onData);
      resolve({ data: buf.subarray(0, n), complete, error });
      if (!complete && !error) stream.destroy();
    };
    const onData = (chunk: Buffer | string) => {
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      const take = Math.min(b.length, max - n);
      if (n + take > buf.length) {
        const grown = Buffer.allocUnsafe(Math.min(max, Math.max(n + take, buf.length * 2)));
        buf.copy(grown, 0, 0, n);
        buf = grown;
      }
      n += b.copy(buf, n, 0, take);
      if (take < b.length) finish(false, null);
    };
    stream.on('data', onData);
    stream.once('end', () => finish(true, null));
    // Stays attached: a stream destroyed after the document may still report an error nobody else listens to.
    stream.on('error', (err) => finish(false, err));
  });
}

/** The document's entries into `store`; a CSV cut at the bound (`cut`) is read up to its last whole line. The
 *  document's bytes (`got.data`) are let go once read, a CSV's once they are text. */
function readDocument(got: { data: Buffer }, cut: boolean, store: LineStore): boolean {
  if (exportDocumentKind(got.data) === 'json') {
    const whole = scanDocument(got.data, (e) => store.add(e));
    got.data = EMPTY;
    return whole;
  }
  const b = cut ? got.data.subarray(0, got.data.lastIndexOf(0x0a) + 1) : got.data;
  got.data = EMPTY;
  const skip = /^\uFEFF?\s*/.exec(b.toString('utf8', 0, 4096))?.[0] ?? '';
  csvWindows(b.subarray(Buffer.byteLength(skip, 'utf8')), (e) => store.add(e));
  return true;
}

const CSV_WINDOW = 1 << 20;

/**
 * A CSV document's entries, its text decoded a window of about 1 MiB at a time (never the whole document as one
 * string): each window ends after a line break; a record still open at a window's end (a quoted field over several
 * lines) is read again with the next window.
 */
function csvWindows(b: Buffer, add: (e: ExportEntry) => void): void {
  const nl = b.indexOf(0x0a);
  const header = (nl < 0 ? b.toString('utf8') : b.toString('utf8', 0, nl)).replace(/\r$/, '');
  const cols = csvColumns(header);
  if (!cols) return;
  let pos = nl < 0 ? b.length : nl + 1;
  let win = CSV_WINDOW;
  while (pos < b.length) {
    let end = Math.min(b.length, pos + win);
    if (end < b.length) {
      const cut = b.lastIndexOf(0x0a, end - 1);
      if (cut < pos) {
        // One line longer than the window: a wider window.
        win *= 2;
        continue;
      }
      end = cut + 1;
    }
    const text = b.toString('utf8', pos, end);
    const last = end === b.length;
    let i = 0;
    for (let r = csvRecord(text, 0); r; r = csvRecord(text, r.next)) {
      // Open at the window's end (no line break closed it): read again from its start with the next window.
      if (!last && r.next >= text.length && text.charCodeAt(text.length - 1) !== 0x0a) break;
      if (!last && r.next >= text.length && openQuote(text, i)) break;
      csvRow(r.fields, cols, add);
      i = r.next;
    }
    if (i === 0 && !last) {
      win *= 2;
      continue;
    }
    pos += Buffer.byteLength(text.slice(0, i), 'utf8');
    win = CSV_WINDOW;
    if (last) break;
  }
}

/** Whether the record that starts at `i` has a quoted field still open at the end of `text`. */
function openQuote(text: string, i: number): boolean {
  let quoted = false;
  let atStart = true;
  for (let j = i; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (quoted) {
      if (c === 0x22) {
        if (text.charCodeAt(j + 1) === 0x22) j++;
        else quoted = false;
      }
      continue;
    }
    if (c === 0x22 && atStart) quoted = true;
    else if (c === 0x0a) return false;
    atStart = c === 0x2c || c === 0x0a || c === 0x0d;
  }
  return quoted;
}

function damage(message: string): Error {
  return Object.assign(new Error(message), { code: 'ECORRUPT' });
}

// ---------------------------------------------------------------------------------------------------------------------
// CSV

/** A header's column names as the JSON entry keys they stand for. */
const CSV_ALIASES: Record<string, string> = {
  '@timestamp': 'timestamp', timestamp: 'timestamp', _time: 'timestamp', 'timegenerated [utc]': 'timestamp', timegenerated: 'timestamp', time: 'timestamp', date: 'timestamp', 'receivetimestamp': 'receiveTimestamp',
  '@message': 'message', message: 'message', _raw: 'message', syslogmessage: 'message', textpayload: 'message', 'jsonpayload.message': 'message', log: 'message', line: 'message',
  'host.name': 'host', 'host.hostname': 'host', host: 'host', computer: 'host', hostname: 'host', 'resource.labels.node_name': 'host',
  'labels.compute.googleapis.com/resource_name': 'host', 'labels."compute.googleapis.com/resource_name"': 'host', 'jsonpayload._hostname': 'host', _hostname: 'host',
  processname: 'ident', 'process.name': 'ident', 'systemd.unit': 'ident', 'jsonpayload.syslog_identifier': 'ident', syslog_identifier: 'ident',
  'jsonpayload._systemd_unit': 'ident', _systemd_unit: 'ident',
  processid: 'pid', 'process.pid': 'pid', 'jsonpayload._pid': 'pid', _pid: 'pid',
  '@logstream': 'stream', logstreamname: 'stream', logname: 'logName', source: 'source',
};

/** The columns of a CSV header row (name → column index), when it is an export's: a time and a message column. */
export function csvColumns(header: string): Map<string, number> | null {
  if (!header.includes(',') || header.length > 8192) return null;
  const names = csvRecord(header, 0)?.fields;
  if (!names || names.length < 2) return null;
  const cols = new Map<string, number>();
  names.forEach((n, i) => {
    const key = CSV_ALIASES[n.trim().toLowerCase()];
    if (key !== undefined && !cols.has(key)) cols.set(key, i);
  });
  return cols.has('timestamp') && cols.has('message') ? cols : null;
}

const MAX_CSV_FIELDS = 1024;

/** One RFC 4180 record from `i`: its fields and where the next begins (null at the end of the text). */
function csvRecord(s: string, i: number): { fields: string[]; next: number } | null {
  if (i >= s.length) return null;
  const fields: string[] = [];
  let f = '';
  for (;;) {
    if (s.charCodeAt(i) === 0x22 /* " */) {
      i++;
      for (;;) {
        const q = s.indexOf('"', i);
        if (q < 0) {
          // An open quote to the end: the rest is the field.
          f += s.slice(i);
          i = s.length;
          break;
        }
        f += s.slice(i, q);
        if (s.charCodeAt(q + 1) === 0x22) {
          f += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
    }
    // Unquoted (or what follows a closing quote) up to the next comma or line end.
    let j = i;
    while (j < s.length) {
      const c = s.charCodeAt(j);
      if (c === 0x2c || c === 0x0a || c === 0x0d) break;
      j++;
    }
    f += s.slice(i, j);
    // A hostile row of a million commas: its fields past any export's are dropped.
    if (fields.length < MAX_CSV_FIELDS) fields.push(f);
    f = '';
    if (j >= s.length) return { fields, next: s.length };
    if (s.charCodeAt(j) === 0x2c) {
      i = j + 1;
      continue;
    }
    if (s.charCodeAt(j) === 0x0d && s.charCodeAt(j + 1) === 0x0a) j++;
    return { fields, next: j + 1 };
  }
}

/** The entries of a CSV export (its header row first). */
function csvEntries(text: string, add: (e: ExportEntry) => void): void {
  const head = csvRecord(text, 0);
  if (!head) return;
  const cols = csvColumns(text.slice(0, head.next).replace(/\r?\n$/, ''));
  if (!cols) return;
  for (let r = csvRecord(text, head.next); r; r = csvRecord(text, r.next)) csvRow(r.fields, cols, add);
}

/** One CSV record's entry, read through its header's columns. */
function csvRow(fields: string[], cols: Map<string, number>, add: (e: ExportEntry) => void): void {
  {
    if (fields.length === 1 && fields[0] === '') return;
    const get = (k: string): string | undefined => {
      const i = cols.get(k);
      return i === undefined ? undefined : fields[i];
    };
    const message = get('message');
    if (message === undefined) return;
    // Built as the JSON entry of the same export, so one reading serves both.
    const o: Obj = { message, host: get('host') ?? '', timestamp: get('timestamp') ?? '' };
    const ident = get('ident');
    if (ident) o.SYSLOG_IDENTIFIER = ident;
    const pid = get('pid');
    if (pid) o.pid = pid;
    const stream = get('stream');
    if (stream) o.logStreamName = stream;
    const logName = get('logName');
    if (logName && !ident) o.SYSLOG_IDENTIFIER = gcpLogName(logName) ?? undefined;
    const source = get('source');
    if (source && !ident && !o.SYSLOG_IDENTIFIER) o.SYSLOG_IDENTIFIER = splunkSource(source) ?? undefined;
    if (o.SYSLOG_IDENTIFIER === undefined) delete o.SYSLOG_IDENTIFIER;
    const e = entryOf(o, 'csv');
    if (e) add(e);
  }
}
