// One log line → one LogRecord, whatever came before the message. This is the one recogniser every log format shares:
// a line is an optional run of prefix elements, each of which only contributes what it has (a time, a host, an
// identifier, a PID, a klog caller), followed by a payload whose shape (klog, structured, JSON, logrus, text) gives the
// message and its fields. Messages themselves are recognised by their own text (src/signals/matchers.ts), wherever they
// sit, so a line pasted with its header cut off means what the whole line means.
//
// Prefix elements, in the order they can appear (each optional):
//   paste decoration    indentation, `> ` quote markers, a stray backtick:   `> ` `    ` `` ` ``
//   tool prefix         talosctl's `IP: `, `kubectl logs --prefix`'s `[pod/name/container] `
//   time                `Nov 21 10:00:03[.123456]` (journal short/precise, syslog), `2024-11-21T10:00:03[.1][+0000|Z]`
//                       (short-iso, CRI, docker -t, RFC 3339 with a space), `Thu 2024-11-21 10:00:03 UTC` (short-full),
//                       `1732183203.123456` (short-unix), `[ 4711.123456]` (dmesg), `[Thu Nov 21 10:00:03 2024]`
//                       (dmesg -T), `10:00:03[.123456]` (a time-only prefix: the day comes from the lines before it)
//   host and identifier `node-1 kubelet[1234]: `, `node-1 kubelet: ` (rsyslog), `kubelet[1234]: ` (no host), an empty
//                       host (two spaces); CRI `stderr F `
//   klog header         `E1121 10:00:03.123456    1234 generic.go:238] `, also cut down to `10:00:03.123456  1234
//                       kubelet.go:2214] ` (severity and date lost) or to `remote_runtime.go:173] ` (all but the caller)
// Payloads: klog printf text; structured klog `"msg" key=value…` (with or without a header); kubelet JSON logging
// `{"ts":1753121331919.76,"caller":"…","msg":"…","err":"…"}` (and zap JSON of embedded etcd); logrus
// `time="…" level=error msg="…"` (and its continuation `msg="…" error="…"` after a wrap); CLI logrus
// `FATA[0002] validate service connection: …` (crictl); kernel and other text.
import { LOKI_LABELS, linePrefixOf, skipLinePrefix, type LinePrefix } from '../util/line-prefix.js';
import { parseKeyValues, readQuoted } from './kv.js';
import { monthIndex, parseIso, type YearClock, type WallClock } from './time.js';
import { exportEntry } from './export-entry.js';
import { plausibleMs } from '../util/instant.js';

export type PayloadKind = 'klog' | 'json' | 'logrus' | 'text';
export type Level = 'I' | 'W' | 'E' | 'F';
/** Who wrote the line, from its content: the kubelet (or another klog component), a container runtime, the kernel, the
 *  init system or another daemon, the controller manager, or nothing says (a bare text fragment). */
export type Origin = 'kubelet' | 'runtime' | 'kernel' | 'system' | 'controller' | 'unknown';

export interface LogRecord {
  /** Epoch ms: the line's prefix time when there is one, else the payload's; NaN when the line carries no time. */
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
  /** Everything after the prefix: what message patterns are matched against. */
  payload: string;
  /** Time from the klog header / JSON ts when present (NaN otherwise); compared with the journal's time. */
  payloadTs: number;
  /** Seconds since boot from a raw dmesg stamp `[ 4711.123456]` (NaN otherwise): placed on the clock later, if a twin allows. */
  mono: number;
  /** Who wrote it (see Origin). */
  origin: Origin;
  /** The origin comes from the file's name only (ParseContext.nameOrigin): matchers of bare fragments still read it. */
  originByName?: boolean;
  /** The line had a time of day but no date, and nothing before it gave one (NaN otherwise): ms since midnight. */
  timeOfDay: number;
  /** The line carried a time no log means (before 1970, after 2200, an uptime of centuries): dropped, the line read
   *  as an undated one (util/instant.ts). */
  absurdTime?: boolean;
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
  trace: 'I', debug: 'I', info: 'I', warning: 'W', warn: 'W', error: 'E', fatal: 'F', panic: 'F',
  TRAC: 'I', DEBU: 'I', INFO: 'I', WARN: 'W', ERRO: 'E', FATA: 'F', PANI: 'F',
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
  /** What a paste or a tool put before every line of the file, learned from its first non-blank line when a reader of
   *  whole files asks for it with `null` (only in the file's first 4 KiB: a range read from the middle of a big file
   *  never learns, and reads lines as they are). Undefined: nothing (a line parsed on its own). */
  paste?: Paste | null;
  /** Whose lines the file's name says it holds (`containerd.log`, `dockerd.txt`, `dmesg.log`): the origin of a line
   *  whose content and prefix say nothing of who wrote it (a bare message). Content always wins. */
  nameOrigin?: Origin;
}

export interface Paste {
  /** TABs before every line: a line's own TAB indentation, which makes it a continuation, is what comes after them. */
  tabs: number;
  /** `grep`'s or `cat -n`'s prefix (util/line-prefix.ts), taken off each line that has it. */
  prefix: LinePrefix | null;
}

export type TimeForm = 'short' | 'iso' | 'other';

/** The time of the prefix form `form` at `i` of the line `b[from, to)` (not decoded: signals/templates.ts), read as
 *  readTime() reads it (NaN: none), into `ctx.years.at[0]`; its prefix ends (its payload starts) at `from + start`. */
export function prefixTimeAt(b: Buffer, from: number, to: number, i: number, start: number, form: TimeForm, ctx: ParseContext): void {
  if (form === 'short') ctx.years.shortAt(b, from + i, to);
  else ctx.years.at[0] = form === 'iso' ? (parseIso(b.toString('latin1', from, from + start), i, ctx.wall)?.ms ?? NaN) : NaN;
}

/** What the prefix of a line gave, and where its payload starts. */
export interface Envelope {
  start: number;
  /** The payload is a JSON object (a journal export, a cloud export's entry, kubelet JSON logging). */
  json: boolean;
  /** Where the prefix's time starts, and its form: `Mar  1 00:10:00[.123]` ('short'), an RFC 3339 or ISO time ('iso');
   *  'other' for any other form, or none. */
  timeAt: number;
  timeForm: TimeForm;
  ts: number;
  host: string | null;
  ident: string | null;
  pid: number | null;
  mono: number;
  timeOfDay: number;
  text: string;
  line: number;
  offset: number;
}

/**
 * Parses `line` (without newline). Returns null for lines that are not log entries: blank lines, journal markers, an
 * elision (`...`), and continuation lines (a TAB-indented frame or multi-line value with no prefix of its own).
 */
export function parseLine(line: string, lineNo: number, offset: number, ctx: ParseContext): LogRecord | null {
  const env = readEnvelope(line, lineNo, offset, ctx);
  return env === null ? null : recordOf(env, ctx);
}

/**
 * The first half of parseLine: the line's prefix (a time, host, identifier, PID), or null for a line that is no log
 * entry. What a dense log's folded lines need (signals/templates.ts); recordOf() reads the rest.
 */
export function readEnvelope(line: string, lineNo: number, offset: number, ctx: ParseContext): Envelope | null {
  if (line.length === 0) return null;
  const c0 = line.charCodeAt(0);
  if (c0 === 45 && line.charCodeAt(1) === 45 && line.charCodeAt(2) === 32) return null;
  if (ctx.paste === null && offset < 4096 && line.trim() !== '') ctx.paste = pasteOf(line);
  let i = 0;
  if (c0 === 32 || c0 === 9 || c0 === 62 || c0 === 96) {
    i = skipDecoration(line);
    if (i >= line.length) return null;
    // A TAB-indented line with no prefix of its own continues the entry above (stack frames, `key=<` values), unless
    // the TABs are the paste's, before every line.
    if (c0 === 9 && !startsPrefix(line, i) && leadingTabs(line) > (ctx.paste?.tabs ?? 0)) return null;
  }
  if (ctx.paste?.prefix) {
    i = skipLinePrefix(line, i, ctx.paste.prefix);
    if (i >= line.length) return null;
  }
  if (isElision(line, i)) return null;
  const env: Envelope = { start: 0, json: false, timeAt: 0, timeForm: 'other', ts: NaN, host: null, ident: null, pid: null, mono: NaN, timeOfDay: NaN, text: line, line: lineNo, offset };
  i = readToolPrefix(line, i, env);
  env.json = line.charCodeAt(i) === 123; /* { */
  env.timeAt = i;
  env.start = env.json ? i : readTime(line, i, env, ctx);
  return env;
}

/** The second half of parseLine: the payload after an envelope read by readEnvelope(). */
export function recordOf(env: Envelope, ctx: ParseContext): LogRecord | null {
  const line = env.text;
  const rec = env.json ? parseJsonLine(line, env.start, env, ctx) : parsePayload(line.slice(env.start), env, ctx);
  if (rec) dropAbsurdTimes(rec);
  // The day of later time-only lines.
  if (rec && !Number.isNaN(rec.ts)) ctx.years.noteTime(rec.ts);
  return rec;
}

/** Seconds since boot past this (a century) are a damaged stamp, not an uptime. */
const MAX_UPTIME_S = 3.2e9;

/** A time outside what a log may mean (`__REALTIME_TIMESTAMP` of 9e21 µs, a zap `ts` of 1e300) is dropped: the line
 *  is read as an undated one, and the extractor says so with the file and line. */
function dropAbsurdTimes(rec: LogRecord): void {
  if (!Number.isNaN(rec.ts) && !plausibleMs(rec.ts)) {
    rec.ts = NaN;
    rec.absurdTime = true;
  }
  if (!Number.isNaN(rec.payloadTs) && !plausibleMs(rec.payloadTs)) {
    rec.payloadTs = NaN;
    rec.absurdTime = true;
  }
  if (!Number.isNaN(rec.mono) && !(rec.mono >= 0 && rec.mono < MAX_UPTIME_S)) {
    rec.mono = NaN;
    rec.absurdTime = true;
  }
}

/** Indentation, `>` quote markers and backticks that a paste into an issue or a ticket puts before a line. */
export function skipDecoration(s: string): number {
  let i = 0;
  for (;;) {
    const c = s.charCodeAt(i);
    if (c === 32 || c === 9 || c === 96) i++;
    else if (c === 62 && (s.charCodeAt(i + 1) === 32 || s.charCodeAt(i + 1) === 62 || i + 1 === s.length)) i++;
    else return i;
  }
}

function leadingTabs(s: string): number {
  let n = 0;
  while (s.charCodeAt(n) === 9) n++;
  return n;
}

/** What the file's first line shows was put before every line: its TABs, taken as the paste's unless the line is
 *  itself a continuation (an excerpt that starts inside a stack trace: a frame's source position, not a klog caller's
 *  `file.go:NNN]`; `created by …`), and a `grep` or `cat -n` prefix. */
function pasteOf(first: string): Paste {
  const n = leadingTabs(first);
  const tabs = n > 0 && /^(?:\S+\.(?:go|s|c):\d+(?![\d\]])|created by )/.test(first.slice(n)) ? 0 : n;
  return { tabs, prefix: linePrefixOf(first, skipDecoration(first)) };
}

const HOST_LABEL = /[{ ,](?:host|hostname|nodename|node_name|node|instance)="([^"]+)"/;

/** Loki's `logcli query` output puts the stream's labels between the time and the line
 *  (`2024-03-11T10:04:17Z {host="worker-3", unit="kubelet.service"} E0311 …`): skipped, the host taken from them. */
function readLabels(s: string, j: number, env: Envelope): number {
  const m = LOKI_LABELS.exec(s.slice(j, j + 2048));
  if (!m) return j;
  const host = HOST_LABEL.exec(m[0])?.[1];
  if (host && env.host === null) env.host = host.replace(/:\d+$/, '');
  return j + m[0].length;
}

/** `...`, `......`, `…` alone on a line: the poster left lines out. */
export function isElision(s: string, i: number): boolean {
  const t = s.slice(i).trim();
  return t.length > 0 && t.length <= 12 && /^(?:\.{2,}|…+|\[\.\.\.\]|\(\.\.\.\)|<snip>|\[snip\])$/.test(t);
}

/** Whether a prefix element (a time, a klog header, a JSON object) starts at `i`. */
function startsPrefix(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c === 123) return s.charCodeAt(i + 1) === 34;
  if (isDigit(c)) return /^(?:\d{4}-\d\d-\d\d[T ]\d\d:|\d\d:\d\d:\d\d[. ]|\d{10}\.\d{6} )/.test(s.slice(i, i + 20));
  if (LEVELS[s[i] ?? ''] !== undefined) return isKlogHeader(s, i);
  if (c >= 65 && c <= 90) return monthIndex(s.slice(i, i + 3)) >= 0 && s.charCodeAt(i + 3) === 32 && /^ [ \d]\d \d\d:\d\d:\d\d/.test(s.slice(i + 3, i + 15));
  return false;
}

function isKlogHeader(s: string, i: number): boolean {
  return LEVELS[s[i] ?? ''] !== undefined && isDigit(s.charCodeAt(i + 1)) && isDigit(s.charCodeAt(i + 4)) && s.charCodeAt(i + 5) === 32 && s.charCodeAt(i + 8) === 58;
}

const TOOL_PREFIX = /^(?:\[(?:pod\/)?[\w.-]+\/[\w./-]+\] |[\w][\w.-]{0,62}: (?=\{"|\d{4}-\d\d-\d\dT|[IWEF]\d{4} \d\d:|[A-Z][a-z]{2} [ \d]\d \d\d:))/;

/** A prefix a tool added before the log's own line: talosctl `172.20.0.2: `, `kubectl logs --prefix` `[pod/x/y] `. The
 *  name-colon form is taken only before something that starts a log line (a JSON object, a date, a klog header). */
function readToolPrefix(s: string, i: number, env: Envelope): number {
  const c = s.charCodeAt(i);
  if (c !== 91 && !(isDigit(c) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90))) return i;
  // A journal line (`Nov 21 …`) or a date is not a tool prefix: only look further when the line does not start one.
  if (c !== 91 && startsPrefix(s, i)) return i;
  const m = TOOL_PREFIX.exec(s.slice(i, i + 80));
  if (!m) return i;
  const tok = m[0];
  if (tok.charCodeAt(0) !== 91) {
    // `kubelet: I0118 …` is an identifier without a time; `172.20.0.2: {…}` names the node.
    const name = tok.slice(0, -2);
    if (KUBELET_IDENT.test(name) || RUNTIME_IDENT.test(name) || name === 'kernel') env.ident = name;
    else env.host = name;
  }
  return i + tok.length;
}

const WEEKDAY = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,9})? ([A-Za-z][\w/+-]*|[+-]\d{2}:?\d{2}) /;
const DMESG_REL = /^\[\s*(\d+\.\d+)\] ?/;
const SHORT_MONO_TAIL = /^\S+ [^\s[\]:]+\[\d+\]: /;
const STREAM_NAME = /^[\w./@:-]+$/;
const DMESG_T = /^\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (\w{3}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})\] ?/;

/**
 * The time (if any) at `i`, and what follows it in an envelope: a journal host and identifier, a CRI stream. Returns
 * the index where the payload starts.
 */
function readTime(s: string, i: number, env: Envelope, ctx: ParseContext): number {
  const c = s.charCodeAt(i);
  let j = -1;
  let tail: 'syslog' | 'iso' | 'none' = 'none';
  if (c >= 65 && c <= 90 && s.charCodeAt(i + 3) === 32 && !isDigit(s.charCodeAt(i + 1))) {
    const ts = ctx.years.parseShort(s, i);
    if (!Number.isNaN(ts)) {
      env.ts = ts;
      env.timeForm = 'short';
      j = i + 15;
      if (s.charCodeAt(j) === 46) {
        j++;
        while (isDigit(s.charCodeAt(j))) j++;
      }
      tail = 'syslog';
    } else {
      const w = WEEKDAY.exec(s.slice(i, i + 48));
      if (w) {
        const t = parseIso(s, i + 4, ctx.wall);
        if (t) {
          env.ts = /^(?:UTC|GMT|Z)$/i.test(w[1] as string) || (w[1] as string).startsWith('+') || (w[1] as string).startsWith('-')
            ? zoned(s, i + 4, w[1] as string, ctx) : t.ms;
          j = i + w[0].length - 1;
          tail = 'syslog';
        }
      }
    }
  } else if (isDigit(c)) {
    if (s.charCodeAt(i + 4) === 45) {
      const t = parseIso(s, i, ctx.wall);
      if (t) {
        env.ts = t.ms;
        env.timeForm = 'iso';
        j = t.end;
        tail = 'iso';
      }
    } else if (s.charCodeAt(i + 2) === 58 && s.charCodeAt(i + 5) === 58) {
      // A time of day alone (the date and host were cut off, or a tool printed only the time).
      j = readTimeOfDay(s, i, env, ctx);
      if (j > 0) tail = 'syslog';
    } else if (s.charCodeAt(i + 10) === 46 && /^\d{10}\.\d{6} /.test(s.slice(i, i + 18))) {
      env.ts = Number(s.slice(i, i + 17)) * 1000;
      j = i + 17;
      tail = 'syslog';
    }
  } else if (c === 91 || c === 60) {
    let k = i;
    if (c === 60) {
      // `<6>[ 12.34] …`: a syslog priority before a dmesg stamp.
      const gt = s.indexOf('>', i);
      if (gt < 0 || gt > i + 4 || s.charCodeAt(gt + 1) !== 91) return i;
      k = gt + 1;
    }
    const head = s.slice(k, k + 40);
    const rel = DMESG_REL.exec(head);
    if (rel) {
      env.mono = Number(rel[1]);
      const after = k + rel[0].length;
      // journalctl -o short-monotonic: a journal line's `host ident[pid]: ` after the stamp.
      return SHORT_MONO_TAIL.test(s.slice(after, after + 200)) ? readSyslogTail(s, after, env) : after;
    }
    const t = DMESG_T.exec(head);
    if (t) {
      const mon = monthIndex(t[1] as string);
      env.ts = ctx.wall.toEpoch(Number(t[6]), mon, Number(t[2]), Number(t[3]), Number(t[4]), Number(t[5]), 0);
      return k + t[0].length;
    }
    return i;
  }
  if (j < 0) return i;
  if (s.charCodeAt(j) !== 32) return j;
  j++;
  if (tail === 'iso') {
    // CRI log: `stdout|stderr F|P <payload>`; docker -t: the payload at once; else a journal host and identifier.
    if (s.startsWith('stderr ', j) || s.startsWith('stdout ', j)) return s.charCodeAt(j + 8) === 32 ? j + 9 : j + 7;
    if (s.charCodeAt(j) === 123 && s.charCodeAt(j + 1) !== 34) {
      const k = readLabels(s, j, env);
      if (k > j) return k;
    }
    if (startsPayload(s, j)) return j;
    // supervisord's own log: a level word, then its message (`INFO exited: kubelet (exit status 2; expected)`).
    if (/^(?:INFO|WARN|CRIT|ERRO|DEBG|TRAC|BLAT) /.test(s.slice(j, j + 5))) {
      env.ident = 'supervisord';
      return j + 5;
    }
    // `aws logs tail`: the log stream's name, then the line (`i-0abc123/kubelet E0311 …`): the name is the host's.
    const sp = s.indexOf(' ', j);
    if (sp > j && sp - j <= 128 && startsPayload(s, sp + 1) && STREAM_NAME.test(s.slice(j, sp))) {
      env.host = s.slice(j, sp).split('/')[0] as string;
      return sp + 1;
    }
  } else if (startsPayload(s, j)) {
    return j;
  } else if (/^ *\d+ [\w./-]+\.go:\d+\] /.test(s.slice(j, j + 80))) {
    // A klog header cut down to its time (`21:35:28.173835    4868 kubelet.go:2214] …`): no host, no identifier.
    while (s.charCodeAt(j) === 32) j++;
    return j;
  }
  return readSyslogTail(s, j, env);
}

/** A weekday-prefixed stamp whose zone is UTC or an offset: read with that zone rather than the wall clock's. */
function zoned(s: string, i: number, zone: string, ctx: ParseContext): number {
  const z = /^(?:UTC|GMT|Z)$/i.test(zone) ? 'Z' : zone;
  const t = parseIso(`${s.slice(i, i + 19)}${z}`, 0, ctx.wall);
  return t ? t.ms : NaN;
}

/** `HH:MM:SS[.ffffff]` at `i`: a time of day placed on the day of the last dated line, if any. Returns the end. */
function readTimeOfDay(s: string, i: number, env: Envelope, ctx: ParseContext): number {
  const h = Number(s.slice(i, i + 2));
  const mi = Number(s.slice(i + 3, i + 5));
  const se = Number(s.slice(i + 6, i + 8));
  if (!(h < 24 && mi < 60 && se < 61) || !isDigit(s.charCodeAt(i + 7)) || !isDigit(s.charCodeAt(i + 4))) return -1;
  let j = i + 8;
  let ms = 0;
  if (s.charCodeAt(j) === 46 || s.charCodeAt(j) === 44) {
    const from = j + 1;
    j++;
    while (isDigit(s.charCodeAt(j))) j++;
    if (j === from) return -1;
    ms = Number(`0.${s.slice(from, j)}`) * 1000;
  }
  const c = s.charCodeAt(j);
  if (c !== 32 && j !== s.length) return -1;
  const tod = ((h * 60 + mi) * 60 + se) * 1000 + ms;
  const ts = ctx.years.onDayOf(tod);
  if (Number.isNaN(ts)) env.timeOfDay = tod;
  else env.ts = ts;
  return j;
}

function startsPayload(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c === 123 || c === 34) return true;
  if (isKlogHeader(s, i)) return true;
  return s.startsWith('time="', i) || s.startsWith('level=', i);
}

/** `host ident[pid]: payload`, `host ident: payload`, `ident[pid]: payload` (no host) or ` ident[pid]: payload` (an
 *  empty host field) starting at `i`; the payload alone when none of these fits. */
function readSyslogTail(s: string, i: number, env: Envelope): number {
  if (s.charCodeAt(i) === 32) {
    // journald prints an empty host as nothing between two spaces.
    const id = readIdent(s, i + 1);
    if (id) {
      env.ident = id.ident;
      env.pid = id.pid ?? env.pid;
      return id.end;
    }
    return i + 1;
  }
  const first = readIdent(s, i);
  if (first) {
    // `kubelet[1234]: …` (no host field: removed before pasting, or a local syslog format).
    env.ident = first.ident;
    env.pid = first.pid ?? env.pid;
    return first.end;
  }
  const sp = s.indexOf(' ', i);
  if (sp < 0) return i;
  const id = readIdent(s, sp + 1);
  if (!id) return i;
  env.host = s.slice(i, sp);
  env.ident = id.ident;
  env.pid = id.pid ?? env.pid;
  return id.end;
}

/** `ident[pid]: ` or `ident: ` (an identifier has no spaces, colons or brackets) at `i`. */
function readIdent(s: string, i: number): { ident: string; pid: number | null; end: number } | null {
  let j = i;
  const n = Math.min(s.length, i + 128);
  while (j < n) {
    const c = s.charCodeAt(j);
    if (c === 32 || c === 58 || c === 91 || c === 93 || c === 9) break;
    j++;
  }
  if (j === i) return null;
  const ident = s.slice(i, j);
  let pid: number | null = null;
  if (s.charCodeAt(j) === 91) {
    const close = s.indexOf(']', j);
    if (close < 0 || close > j + 12) return null;
    const p = Number(s.slice(j + 1, close));
    if (!Number.isInteger(p)) return null;
    pid = p;
    j = close + 1;
  }
  if (s.charCodeAt(j) !== 58) return null;
  // `ident:` at the end (an empty message) or `ident: message`.
  if (j + 1 === s.length) return { ident, pid, end: j + 1 };
  if (s.charCodeAt(j + 1) !== 32) return null;
  // A klog caller (`kubelet.go:1`) or a time (`10:00`) is not an identifier.
  if (ident.endsWith('.go') || (isDigit(ident.charCodeAt(0)) && /^\d+$/.test(ident))) return null;
  return { ident, pid, end: j + 2 };
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
  origin: Origin = 'unknown';
  originByName = false;
  private kv: Record<string, string> | null = null;
  private kvSource: string | null = null;
  private kvFrom = 0;

  constructor(
    public ts: number, public host: string | null, public ident: string | null, public pid: number | null,
    public payload: string, public mono: number, public timeOfDay: number, public text: string, public line: number, public offset: number,
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

/** The payload (everything after the prefix) → a record. */
export function parsePayload(payload: string, env: Envelope, ctx: ParseContext): LogRecord {
  const rec = new Rec(env.ts, env.host, env.ident, env.pid, payload, env.mono, env.timeOfDay, env.text, env.line, env.offset);
  const c0 = payload.charCodeAt(0);
  if (c0 === 91 /* [ */ && Number.isNaN(rec.mono)) {
    // A dmesg stamp after a journal envelope (`kernel: [ 12.3] …`).
    const e = { ...env };
    const k = readTime(payload, 0, e, ctx);
    if (k > 0) {
      rec.mono = e.mono;
      if (Number.isNaN(rec.ts)) rec.ts = e.ts;
      if (!Number.isNaN(e.ts)) rec.payloadTs = e.ts;
      rec.msg = rec.payload = payload.slice(k);
    }
  }
  const p = rec.payload;
  const c = p.charCodeAt(0);
  if (isKlogHeader(p, 0)) parseKlog(p, rec, ctx, LEVELS[p[0] as string] as Level);
  else if (isDigit(c) && /^\d+ +[\w./-]+\.go:\d+\] /.test(p.slice(0, 80))) parseKlogTail(p, 0, rec);
  else if ((c >= 97 && c <= 122) && /^[\w./-]+\.go:\d+\] /.test(p.slice(0, 80))) parseKlogTail(p, 0, rec);
  else if (c === 123) parseJsonPayload(p, rec, ctx);
  else if (p.startsWith('time="') || p.startsWith('level=') || (p.startsWith('msg="') && p.includes('" '))) parseLogrus(p, rec, ctx);
  else if (c === 34) parseStructured(p, 0, rec);
  else if (c >= 65 && c <= 90 && p.charCodeAt(4) === 91 && /^[A-Z]{4}\[\d{4}\] /.test(p.slice(0, 11))) parseCliLogrus(p, rec);
  rec.origin = originOf(rec);
  if (rec.origin === 'unknown' && ctx.nameOrigin) {
    rec.origin = ctx.nameOrigin;
    rec.originByName = true;
  }
  return rec;
}

/** The last UTC year utcYear() worked out, and its bounds (ms). */
const lastYear = { lo: 0, hi: -1, year: NaN };

/** `new Date(ms).getUTCFullYear()`, without a Date for every line of a year already seen. */
function utcYear(ms: number): number {
  if (ms >= lastYear.lo && ms < lastYear.hi) return lastYear.year;
  const year = new Date(ms).getUTCFullYear();
  if (Number.isNaN(year)) return year;
  lastYear.lo = Date.UTC(year, 0, 1);
  lastYear.hi = Date.UTC(year + 1, 0, 1);
  lastYear.year = year;
  return year;
}

/** The time of a klog header's `MMDD HH:MM:SS.uuuuuu` at `p[i]` on a line whose prefix gave `ts` (not NaN): read in
 *  the prefix's year, or its neighbour's across New Year (journal Jan 1 00:00:00, klog Dec 31 23:59:59). */
export function klogHeaderTime(p: string, i: number, ts: number, ctx: ParseContext): number {
  const year = utcYear(ts);
  const t = ctx.years.parseKlog(p, i, year);
  return Math.abs(t - ts) > 180 * 86400000 ? ctx.years.parseKlog(p, i, year + (t > ts ? -1 : 1)) : t;
}

/** klogHeaderTime() of the bytes `b[i, end)` (a line folded without being decoded: signals/templates.ts), on a line
 *  whose prefix gave `ctx.years.at[0]` (not NaN), into `ctx.years.at[1]`. */
export function klogHeaderTimeAt(b: Uint8Array, i: number, end: number, ctx: ParseContext): void {
  const at = ctx.years.at;
  const ts = at[0] as number;
  const year = utcYear(ts);
  ctx.years.klogAt(b, i, end, year);
  const t = at[1] as number;
  if (Math.abs(t - ts) > 180 * 86400000) ctx.years.klogAt(b, i, end, year + (t > ts ? -1 : 1));
}

/** A line's time from its prefix's and its klog header's: journal `short` has whole seconds, the header of the same
 *  entry microseconds; the same second → the finer one (stall start times are back-computed from these stamps). */
export function finerTime(ts: number, headerTs: number): number {
  return ts % 1000 === 0 && Math.abs(headerTs - ts) < 1000 ? headerTs : ts;
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
  if (Number.isNaN(rec.ts)) rec.ts = rec.payloadTs = ctx.years.parseKlog(p, 1);
  else {
    rec.payloadTs = klogHeaderTime(p, 1, rec.ts, ctx);
    rec.ts = finerTime(rec.ts, rec.payloadTs);
  }
  if (rec.pid === null) rec.pid = tid;
  if (!Number.isNaN(rec.ts)) rec.timeOfDay = NaN;
  parseBody(p, close + 2, rec);
}

/** A klog header cut down to `[PID ]file.go:NNN] ` (its severity, date and time were lost; the time may have been read
 *  already as a time of day). */
function parseKlogTail(p: string, i: number, rec: Rec): void {
  let j = i;
  if (isDigit(p.charCodeAt(j))) {
    while (isDigit(p.charCodeAt(j))) j++;
    if (rec.pid === null) rec.pid = Number(p.slice(i, j));
    while (p.charCodeAt(j) === 32) j++;
  }
  const close = p.indexOf('] ', j);
  rec.kind = 'klog';
  rec.caller = p.slice(j, close);
  parseBody(p, close + 2, rec);
}

/** What follows a klog header: a structured `"msg" k=v…` or printf text. */
function parseBody(p: string, from: number, rec: Rec): void {
  if (p.charCodeAt(from) === 34 && parseStructured(p, from, rec)) return;
  rec.msg = p.slice(from);
}

/** `"msg" key=value…`: the quoted message and lazily parsed fields. False when the quote is not a whole message. */
function parseStructured(p: string, from: number, rec: Rec): boolean {
  const q = readQuoted(p, from);
  if (!q || !(q.end >= p.length || p.charCodeAt(q.end) === 32)) return false;
  // A bare fragment `"msg" err="…"` (the header cut off) is still a klog line: the quoting is klog's.
  if (rec.kind === 'text') rec.kind = 'klog';
  rec.msg = q.value;
  rec.lazyFields(p, q.end);
  return true;
}

/** crictl / ctr / docker CLI: `FATA[0002] message` (logrus's text formatter without a TTY time). */
function parseCliLogrus(p: string, rec: Rec): void {
  rec.kind = 'logrus';
  rec.level = LOGRUS_LEVELS[p.slice(0, 4)] ?? null;
  rec.msg = p.slice(11);
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

function parseJsonPayload(p: string, rec: Rec, ctx: ParseContext): void {
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
      const env: Envelope = { start: 0, json: false, timeAt: 0, timeForm: 'other', ts: t ? t.ms : rec.ts, host: rec.host, ident: rec.ident, pid: rec.pid, mono: rec.mono, timeOfDay: rec.timeOfDay, text: rec.text, line: rec.line, offset: rec.offset };
      const r = parsePayload(inner, env, ctx);
      rec.kind = r.kind;
      rec.level = r.level;
      rec.caller = r.caller;
      rec.msg = r.msg;
      rec.fields = r.fields;
      rec.payload = r.payload;
      rec.payloadTs = r.payloadTs;
      rec.ts = r.ts;
      rec.pid = r.pid;
    }
    return;
  }
  rec.kind = 'json';
  rec.msg = (o['msg'] as string).replace(/\n$/, '');
  rec.caller = typeof o['caller'] === 'string' ? (o['caller'] as string) : null;
  const tsv = o['ts'];
  if (typeof tsv === 'number') rec.payloadTs = tsv < 1e11 ? tsv * 1000 : tsv; // zap's epoch seconds or klog's ms
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

function parseLogrus(p: string, rec: Rec, ctx: ParseContext): void {
  const f = parseKeyValues(p, 0);
  rec.kind = 'logrus';
  rec.fields = f;
  rec.msg = f['msg'] ?? p;
  const lv = f['level'];
  rec.level = lv ? (LOGRUS_LEVELS[lv] ?? 'I') : null;
  const t = f['time'] ? parseIso(f['time'], 0, ctx.wall) : null;
  if (t) {
    rec.payloadTs = t.ms;
    // A journal envelope has whole seconds (or none): the runtime's own stamp is finer, and the time it happened.
    if (Number.isNaN(rec.ts) || (rec.ts % 1000 === 0 && Math.abs(t.ms - rec.ts) < 1000)) rec.ts = t.ms;
  }
}

/** A whole line that is JSON: a journal export object, kubelet JSON logging, or docker json-file. */
function parseJsonLine(line: string, i: number, env: Envelope, ctx: ParseContext): LogRecord | null {
  const body = i > 0 ? line.slice(i) : line;
  const journal = body.includes('"__REALTIME_TIMESTAMP"') || body.includes('"MESSAGE"');
  if (journal || EXPORT_HINT.test(body)) {
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(body) as Record<string, unknown>;
    } catch {
      return journal ? null : parsePayload(body, env, ctx);
    }
    // A cloud or log-store export's entry (input/exports.ts): its time, host and unit; the message read as any other.
    const x = o && typeof o === 'object' && !Array.isArray(o) && !('__REALTIME_TIMESTAMP' in o) && !('MESSAGE' in o) ? exportEntry(o) : null;
    if (x) return parsePayload(x.message, { ...env, ts: x.us / 1000, host: x.host ?? env.host, ident: x.ident, pid: x.pid }, ctx);
    if (!journal) return parsePayload(body, env, ctx);
    const us = o['__REALTIME_TIMESTAMP'];
    const ts = typeof us === 'string' || typeof us === 'number' ? Number(us) / 1000 : NaN;
    const msg = jsonString(o['MESSAGE']) ?? '';
    const pidv = o['_PID'] ?? o['SYSLOG_PID'];
    const pid = pidv !== undefined ? Number(pidv) : NaN;
    return parsePayload(msg, {
      ...env,
      ts,
      host: typeof o['_HOSTNAME'] === 'string' ? (o['_HOSTNAME'] as string) : env.host,
      ident: typeof o['SYSLOG_IDENTIFIER'] === 'string' ? (o['SYSLOG_IDENTIFIER'] as string) : typeof o['_COMM'] === 'string' ? (o['_COMM'] as string) : null,
      pid: Number.isInteger(pid) ? pid : null,
    }, ctx);
  }
  return parsePayload(body, env, ctx);
}

/** Keys only export entries carry (input/exports.ts exportForm), looked for before a JSON line is parsed as one. */
const EXPORT_HINT = /"(?:textPayload|jsonPayload|logStreamName|ingestionTime|line|_raw|result|_source|@timestamp|SyslogMessage|host|kubernetes|systemd_unit)":/;

const KUBELET_IDENT = /^(?:kubelet|kubenswrapper|hyperkube|k3s|k3s-agent|k3s-server|rke2|rke2-agent|rke2-server|kubelet-wrapper|atomic-openshift-node|origin-node|openshift-node|microk8s\.daemon-kubelite|kubelite|snap\.microk8s\.daemon-kubelite)$/;
// MicroK8s runs its containerd as the snap service `microk8s.daemon-containerd`.
const RUNTIME_IDENT = /^(?:dockerd(?:-current)?|docker(?:-containerd(?:-current)?)?|containerd(?:-shim\S*)?|(?:snap\.)?microk8s\.daemon-containerd|crio|cri-o|conmon|runc|crictl)$/;
/** What only a kubelet's klog lines say: its own files and words (the sniffer's kubelet text, input/sniff.ts). */
const KUBELET_CONTENT = /kubelet|kuberuntime|pleg|generic\.go|remote_runtime\.go|pod_workers\.go|docker_sandbox\.go|setters\.go/i;
const CONTROLLER_IDENT = /^(?:kube-controller-manager|kube-apiserver|kube-scheduler|openshift-controller-manager|cloud-controller-manager)$/;
const SYSTEM_IDENT = /^(?:systemd|init\.scope|systemd-\S+)$/;
/** Callers of the controller manager's node lifecycle and leader election (the kubelet never logs from these). */
const CONTROLLER_CALLER = /^(?:\S*\/)?(?:node_lifecycle_controller|nodecontroller|node_controller|controller_utils|taint_manager|leaderelection|nodelifecycle\S*)\.go:/;
/** zap JSON of components embedded next to the kubelet (etcd in k3s/rke2). */
const ETCD_CALLER = /^(?:etcdserver|embed|wal|raft|rafthttp|mvcc|v3rpc|etcdmain|membership|snap|backend)\//;

function originOf(rec: LogRecord): Origin {
  const ident = rec.ident ?? '';
  // A dmesg stamp is the kernel's, unless a journal identifier follows it (journalctl -o short-monotonic).
  if (ident === 'kernel' || (!Number.isNaN(rec.mono) && ident === '')) return 'kernel';
  if (rec.kind === 'logrus') return 'runtime';
  if (rec.kind === 'klog' || rec.kind === 'json') {
    if (CONTROLLER_IDENT.test(ident) || (rec.caller !== null && CONTROLLER_CALLER.test(rec.caller))) return 'controller';
    if (rec.kind === 'json' && rec.caller !== null && ETCD_CALLER.test(rec.caller)) return 'system';
    // Runtimes log logrus or JSON of their own; a klog line under a runtime's journal name is a component it runs in a
    // container: a kubelet's when it says kubelet things (`docker[641]: I1212 … kubelet.go:1820] skipping pod …`).
    if (RUNTIME_IDENT.test(ident)) return rec.kind === 'klog' && KUBELET_CONTENT.test(`${rec.caller ?? ''} ${rec.msg}`) ? 'kubelet' : 'runtime';
    return 'kubelet';
  }
  // A condition's key quoted from YAML or describe output (`message: …`, `Reason: …`) names no writer.
  if (ident === '' || /^(?:message|reason|type|status|Message|Reason)$/.test(ident)) return 'unknown';
  if (RUNTIME_IDENT.test(ident)) return 'runtime';
  if (KUBELET_IDENT.test(ident)) return 'kubelet';
  if (CONTROLLER_IDENT.test(ident)) return 'controller';
  if (SYSTEM_IDENT.test(ident)) return 'system';
  return 'system';
}
