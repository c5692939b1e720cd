// One log line → one LogRecord, whatever envelope it came in. Envelopes (design.md §4, catalog §1):
//   journal short/precise   `Nov 21 10:00:03[.123456] node-1 kubelet[1234]: <payload>`   (syslog: `kubelet: <payload>`)
//   journal short-iso       `2024-11-21T10:00:03[.123456]+0000 node-1 kubelet[1234]: <payload>`
//   journal json            `{"__REALTIME_TIMESTAMP":"1700000000123456","_HOSTNAME":"node-1","SYSLOG_IDENTIFIER":"kubelet","_PID":"1234","MESSAGE":"…"}`
//   CRI / docker -t prefix  `2023-12-18T06:13:36.831359143+00:00 stderr F <payload>`, `2024-01-11T10:00:00.1Z <payload>`
//   bare payload            klog file, `-o cat`
// Payloads: klog header `E1121 10:00:03.123456    1234 generic.go:238] <printf text | "msg" k=v…>`, kubelet JSON
// logging `{"ts":1753121331919.76,"caller":"…","msg":"…","err":"…"}`, logrus `time="…" level=error msg="…"`, kernel text.
import { parseKeyValues, readQuoted } from './kv.js';
import { monthIndex, parseIso, type YearClock, type WallClock } from './time.js';

export type PayloadKind = 'klog' | 'json' | 'logrus' | 'text';
export type Level = 'I' | 'W' | 'E' | 'F';

export interface LogRecord {
  /** Epoch ms: the journal's time when there is one, else the payload's; NaN when the line carries no time. */
  ts: number;
  host: string | null;
  ident: string | null;
  /** Journal PID, else the klog header's thread id (the kubelet PID in practice). */
  pid: number | null;
  kind: PayloadKind;
  level: Level | null;
  /** klog `file.go:line`, JSON `caller`. */
  caller: string | null;
  /** Structured message, printf text after `] `, JSON `msg`, logrus `msg`, or the whole payload. */
  msg: string;
  /** Structured/JSON/logrus key-values (err, pod, containerID, …). */
  fields: Record<string, string>;
  /** Everything after the envelope: what message patterns are matched against. */
  payload: string;
  /** Time from the klog header / JSON ts when present (NaN otherwise); compared with the journal's time. */
  payloadTs: number;
  /** Seconds since boot from a raw dmesg stamp `[ 4711.123456]` (NaN otherwise): placed on the clock later, if a twin allows. */
  mono: number;
  /** The raw line (evidence text). */
  text: string;
  line: number;
  offset: number;
}

/** Header lines journalctl writes between entries: they carry the year or mark boots. */
export type JournalMarker =
  | { type: 'begin'; year: number; month: number }
  | { type: 'reboot' }
  | { type: 'no-entries' };

const LEVELS: Record<string, Level> = { I: 'I', W: 'W', E: 'E', F: 'F' };
const LOGRUS_LEVELS: Record<string, Level> = {
  debug: 'I', info: 'I', warning: 'W', warn: 'W', error: 'E', fatal: 'F', panic: 'F',
};

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** `-- Logs begin at Mon 2024-03-11 08:00:01 UTC, end at … --` and friends. */
export function parseMarker(line: string): JournalMarker | null {
  if (!line.startsWith('-- ')) return null;
  if (line.startsWith('-- Reboot') || line.startsWith('-- Boot ')) return { type: 'reboot' };
  if (line.startsWith('-- No entries')) return { type: 'no-entries' };
  const m = /(?:begin at|begins at)\s+\w{3}\s+(\d{4})-(\d{2})-\d{2}/.exec(line);
  if (m) return { type: 'begin', year: Number(m[1]), month: Number(m[2]) - 1 };
  return null;
}

export interface ParseContext {
  years: YearClock;
  wall: WallClock;
}

/** Parses `line` (without newline). Returns null for lines that are not log entries (blank, markers, continuations). */
/** An entry that starts after some indentation (logs pasted into an issue or a ticket are often indented). */
const INDENTED_ENTRY = /^[ \t]+(?=[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d|\d{4}-\d\d-\d\d[T ]\d\d:|[IWEF]\d{4} \d\d:\d\d:\d\d\.\d|\{")/;

export function parseLine(line: string, lineNo: number, offset: number, ctx: ParseContext): LogRecord | null {
  const c0 = line.charCodeAt(0);
  if (line.length === 0) return null;
  if (c0 === 32 || c0 === 9) {
    // Indented continuation lines are not entries; an indented entry is, and it cites the line as written.
    const m = INDENTED_ENTRY.exec(line);
    if (!m) return null;
    const rec = parseLine(line.slice(m[0].length), lineNo, offset, ctx);
    if (rec) rec.text = line;
    return rec;
  }
  let ts = NaN;
  let host: string | null = null;
  let ident: string | null = null;
  let pid: number | null = null;
  let payload: string;

  if (c0 === 123) {
    // JSON: either a journal export object or kubelet JSON logging (or docker json-file).
    return parseJsonLine(line, lineNo, offset, ctx);
  }
  const mon3 = c0 >= 65 && c0 <= 90 && line.charCodeAt(3) === 32 && !isDigit(line.charCodeAt(1));
  if (mon3 && (ts = ctx.years.parseShort(line, 0), !Number.isNaN(ts))) {
    let i = line.indexOf(' ', 15);
    if (i < 0) return null;
    const rest = parseSyslogTail(line, i + 1);
    if (!rest) return null;
    ({ host, ident, pid } = rest);
    payload = line.slice(rest.payloadStart);
  } else if (isDigit(c0) && line.charCodeAt(4) === 45) {
    const t = parseIso(line, 0, ctx.wall);
    if (!t) return null;
    ts = t.ms;
    let i = t.end;
    if (line.charCodeAt(i) !== 32) return null;
    i++;
    // CRI log: `stdout|stderr F|P <payload>`; docker -t: payload directly; journal short-iso: host ident[pid]: payload.
    if (line.startsWith('stderr ', i) || line.startsWith('stdout ', i)) {
      payload = line.slice(line.charCodeAt(i + 8) === 32 ? i + 9 : i + 7);
    } else if (startsWithPayload(line, i)) {
      payload = line.slice(i);
    } else {
      const rest = parseSyslogTail(line, i);
      if (rest) {
        ({ host, ident, pid } = rest);
        payload = line.slice(rest.payloadStart);
      } else {
        payload = line.slice(i);
      }
    }
  } else if (c0 === 45 && line.charCodeAt(1) === 45 && line.charCodeAt(2) === 32) {
    return null;
  } else {
    payload = line;
  }
  return parsePayload(payload, { ts, host, ident, pid, text: line, line: lineNo, offset }, ctx);
}

function startsWithPayload(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c === 123 || c === 34) return true;
  if (LEVELS[s[i] ?? ''] !== undefined && isDigit(s.charCodeAt(i + 1)) && s.charCodeAt(i + 5) === 32) return true;
  return s.startsWith('time="', i);
}

/** `host ident[pid]: payload` or `host ident: payload` starting at `i`. */
function parseSyslogTail(s: string, i: number): { host: string | null; ident: string | null; pid: number | null; payloadStart: number } | null {
  const sp = s.indexOf(' ', i);
  if (sp < 0) return null;
  const host = s.slice(i, sp);
  if (host.endsWith(':')) {
    // No host field (removed before pasting, or a local syslog format): `kubelet[1234]: payload`.
    const b = host.lastIndexOf('[');
    const pid = b > 0 && host.endsWith(']:') ? Number(host.slice(b + 1, -2)) : NaN;
    return { host: null, ident: b > 0 ? host.slice(0, b) : host.slice(0, -1), pid: Number.isInteger(pid) ? pid : null, payloadStart: sp + 1 };
  }
  const colon = s.indexOf(': ', sp + 1);
  if (colon < 0) {
    // `-- No entries --` style lines never reach here; an entry with an empty message ends with ':'.
    if (s.endsWith(':')) return { host, ident: s.slice(sp + 1, s.length - 1), pid: null, payloadStart: s.length };
    return null;
  }
  let ident = s.slice(sp + 1, colon);
  let pid: number | null = null;
  if (ident.endsWith(']')) {
    const b = ident.lastIndexOf('[');
    if (b > 0) {
      const p = Number(ident.slice(b + 1, -1));
      if (Number.isInteger(p)) pid = p;
      ident = ident.slice(0, b);
    }
  }
  if (ident.includes(' ')) {
    // Not an identifier (a kernel line without ident, or a free-text line): treat the whole tail as payload.
    return { host, ident: null, pid: null, payloadStart: sp + 1 };
  }
  return { host, ident, pid, payloadStart: colon + 2 };
}

interface Envelope {
  ts: number;
  host: string | null;
  ident: string | null;
  pid: number | null;
  text: string;
  line: number;
  offset: number;
}

/**
 * A record whose structured key-values are parsed on first use: most lines that reach the parser (SyncLoop (PLEG)
 * events, above all) are dated and dropped without anyone reading their `event={…}` payloads.
 */
class Rec implements LogRecord {
  kind: PayloadKind = 'text';
  level: Level | null = null;
  caller: string | null = null;
  msg: string;
  payloadTs = NaN;
  mono = NaN;
  private kv: Record<string, string> | null = null;
  private kvSource: string | null = null;
  private kvFrom = 0;

  constructor(
    public ts: number, public host: string | null, public ident: string | null, public pid: number | null,
    public payload: string, public text: string, public line: number, public offset: number,
  ) {
    this.msg = payload;
  }

  get fields(): Record<string, string> {
    if (this.kv === null) {
      this.kv = this.kvSource !== null ? parseKeyValues(this.kvSource, this.kvFrom) : {};
      this.kvSource = null;
    }
    return this.kv;
  }

  set fields(v: Record<string, string>) {
    this.kv = v;
    this.kvSource = null;
  }

  /** Key-values start at `from` in `source`; parsed when `fields` is first read. */
  lazyFields(source: string, from: number): void {
    this.kv = null;
    this.kvSource = source;
    this.kvFrom = from;
  }
}

export function parsePayload(payload: string, env: Envelope, ctx: ParseContext): LogRecord {
  const rec = new Rec(env.ts, env.host, env.ident, env.pid, payload, env.text, env.line, env.offset);
  if (payload.charCodeAt(0) === 91) {
    parseDmesgStamp(rec, ctx);
    return rec;
  }
  const c0 = payload.charCodeAt(0);
  const lvl = LEVELS[payload[0] ?? ''];
  if (lvl && isDigit(payload.charCodeAt(1)) && payload.charCodeAt(5) === 32 && payload.charCodeAt(8) === 58) {
    parseKlog(payload, rec, ctx, lvl);
  } else if (c0 === 123) {
    parseJsonPayload(payload, rec, ctx);
  } else if (payload.startsWith('time="') || payload.startsWith('level=')) {
    parseLogrus(payload, rec, ctx);
  }
  return rec;
}

const DMESG_REL = /^\[\s*(\d+\.\d+)\] /;
const DMESG_T = /^\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (\w{3}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})\] /;

/** `[ 4711.123456] msg` (seconds since boot) or `[Thu Jan 11 10:00:00 2024] msg` (dmesg -T, local time). */
function parseDmesgStamp(rec: LogRecord, ctx: ParseContext): void {
  const p = rec.payload;
  const rel = DMESG_REL.exec(p);
  if (rel) {
    rec.mono = Number(rel[1]);
    rec.msg = rec.payload = p.slice(rel[0].length);
    return;
  }
  const t = DMESG_T.exec(p);
  if (t) {
    const mon = monthIndex(t[1] as string);
    const ms = ctx.wall.toEpoch(Number(t[6]), mon, Number(t[2]), Number(t[3]), Number(t[4]), Number(t[5]), 0);
    if (Number.isNaN(rec.ts)) rec.ts = ms;
    rec.payloadTs = ms;
    rec.msg = rec.payload = p.slice(t[0].length);
  }
}

function parseKlog(p: string, rec: Rec, ctx: ParseContext, lvl: Level): void {
  const close = p.indexOf('] ', 22);
  if (close < 0 || close > 200) return;
  // `E1121 10:00:03.123456    1234 generic.go:238] `
  let i = 21;
  while (p.charCodeAt(i) === 32) i++;
  let j = i;
  while (isDigit(p.charCodeAt(j))) j++;
  const tid = j > i ? Number(p.slice(i, j)) : null;
  rec.kind = 'klog';
  rec.level = lvl;
  rec.caller = p.slice(j + 1, close);
  const yearHint = Number.isNaN(rec.ts) ? undefined : new Date(rec.ts).getUTCFullYear();
  rec.payloadTs = ctx.years.parseKlog(p, 1, yearHint);
  if (Number.isNaN(rec.ts)) rec.ts = rec.payloadTs;
  else if (yearHint !== undefined && Math.abs(rec.payloadTs - rec.ts) > 180 * 86400000) {
    // Year boundary between journal (Jan 1 00:00:00) and klog (Dec 31 23:59:59): re-read with the neighbour year.
    const alt = ctx.years.parseKlog(p, 1, yearHint + (rec.payloadTs > rec.ts ? -1 : 1));
    rec.payloadTs = alt;
  }
  // journal `short` has whole seconds; the klog header of the same entry has microseconds. Same second → take the
  // finer one (stall start times are back-computed from these stamps).
  if (rec.ts % 1000 === 0 && Math.abs(rec.payloadTs - rec.ts) < 1000) rec.ts = rec.payloadTs;
  if (rec.pid === null) rec.pid = tid;
  const body = p.slice(close + 2);
  const q = body.charCodeAt(0) === 34 ? readQuoted(body, 0) : null;
  if (q && (q.end >= body.length || body.charCodeAt(q.end) === 32)) {
    rec.msg = q.value;
    rec.lazyFields(body, q.end);
  } else {
    rec.msg = body;
  }
}

function jsonString(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v) && v.every((x) => typeof x === 'number')) {
    // journalctl -o json writes non-UTF-8 MESSAGE as a byte array.
    return Buffer.from(v as number[]).toString('utf8');
  }
  if (v && typeof v === 'object') return JSON.stringify(v);
  return null;
}

function parseJsonPayload(p: string, rec: LogRecord, ctx: ParseContext): void {
  let obj: unknown;
  try {
    obj = JSON.parse(p);
  } catch {
    return;
  }
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return;
  const o = obj as Record<string, unknown>;
  if (typeof o['msg'] !== 'string') {
    // docker json-file: {"log":"E0111 …\n","stream":"stderr","time":"…"}
    if (typeof o['log'] === 'string') {
      const inner = (o['log'] as string).replace(/\n$/, '');
      const t = typeof o['time'] === 'string' ? parseIso(o['time'] as string, 0, ctx.wall) : null;
      const r = parsePayload(inner, { ...rec, ts: t ? t.ms : rec.ts }, ctx);
      Object.assign(rec, r, { text: rec.text, line: rec.line, offset: rec.offset });
    }
    return;
  }
  rec.kind = 'json';
  rec.msg = (o['msg'] as string).replace(/\n$/, '');
  rec.caller = typeof o['caller'] === 'string' ? (o['caller'] as string) : null;
  const tsv = o['ts'];
  if (typeof tsv === 'number') rec.payloadTs = tsv;
  else if (typeof tsv === 'string') rec.payloadTs = parseIso(tsv, 0, ctx.wall)?.ms ?? NaN;
  if (Number.isNaN(rec.ts)) rec.ts = rec.payloadTs;
  // No level key in kubelet JSON: info entries carry "v", error entries carry "err" or no "v".
  rec.level = typeof o['level'] === 'string' ? (LOGRUS_LEVELS[o['level'] as string] ?? 'I') : o['v'] === undefined ? 'E' : 'I';
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === 'msg' || k === 'ts' || k === 'caller') continue;
    const s = jsonString(v);
    if (s !== null) fields[k] = s;
  }
  rec.fields = fields;
}

function parseLogrus(p: string, rec: LogRecord, ctx: ParseContext): void {
  const f = parseKeyValues(p, 0);
  rec.kind = 'logrus';
  rec.fields = f;
  rec.msg = f['msg'] ?? p;
  const lv = f['level'];
  rec.level = lv ? (LOGRUS_LEVELS[lv] ?? 'I') : null;
  const t = f['time'] ? parseIso(f['time'], 0, ctx.wall) : null;
  if (t) {
    rec.payloadTs = t.ms;
    if (Number.isNaN(rec.ts)) rec.ts = t.ms;
  }
}

function parseJsonLine(line: string, lineNo: number, offset: number, ctx: ParseContext): LogRecord | null {
  if (line.includes('"__REALTIME_TIMESTAMP"') || line.includes('"MESSAGE"')) {
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return null;
    }
    const us = o['__REALTIME_TIMESTAMP'];
    const ts = typeof us === 'string' || typeof us === 'number' ? Number(us) / 1000 : NaN;
    const msg = jsonString(o['MESSAGE']) ?? '';
    const pidv = o['_PID'] ?? o['SYSLOG_PID'];
    const pid = pidv !== undefined ? Number(pidv) : NaN;
    return parsePayload(msg, {
      ts,
      host: typeof o['_HOSTNAME'] === 'string' ? (o['_HOSTNAME'] as string) : null,
      ident: typeof o['SYSLOG_IDENTIFIER'] === 'string' ? (o['SYSLOG_IDENTIFIER'] as string) : typeof o['_COMM'] === 'string' ? (o['_COMM'] as string) : null,
      pid: Number.isInteger(pid) ? pid : null,
      text: line, line: lineNo, offset,
    }, ctx);
  }
  return parsePayload(line, { ts: NaN, host: null, ident: null, pid: null, text: line, line: lineNo, offset }, ctx);
}

