// One entry of a cloud or log-store export (a JSON object: Cloud Logging, CloudWatch, Loki, Splunk, Elasticsearch, ECS,
// Log Analytics, a shipper's record): its fields give only a time, a host, a unit/identifier and a PID around the message,
// which the shared recogniser then reads as any log line. Example entries:
//   {"textPayload":"E0311 10:02:03.456789 2817 generic.go:205] \"PLEG is not healthy\" …","resource":{"labels":{"node_name":"worker-3"}},"logName":"projects/p/logs/kubelet","timestamp":"2024-03-11T10:02:03.456789Z"}
//   {"timestamp":1710151323456,"message":"Mar 11 10:02:03 worker-3 kubelet[2817]: E0311 …","logStreamName":"worker-3/kubelet"}
// The files source reads whole export documents (src/sources/files/exports.ts); the record parser reads one entry per
// line (src/parse/record.ts).

/** What an export entry gives: its time (µs since the epoch, NaN when it has none), host, identifier, PID, message. */
export interface ExportEntry {
  us: number;
  host: string | null;
  ident: string | null;
  pid: number | null;
  message: string;
}

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** A MESSAGE is cut here (as a binary journal's is), so that its JSON line stays whole under the line reader's cut. */
export const MAX_MESSAGE = 128 * 1024;

// ---------------------------------------------------------------------------------------------------------------------
// One entry

/** The value at a dotted path (`host.name`: nested, or a key with a dot in it, as flattened exports write it). */
function field(o: Obj, path: string): unknown {
  if (path in o) return o[path];
  const dot = path.indexOf('.');
  if (dot < 0) return undefined;
  // `labels.compute.googleapis.com/resource_name`: the first segment, then the rest as one key or as a path.
  const head = o[path.slice(0, dot)];
  return isObj(head) ? field(head, path.slice(dot + 1)) : undefined;
}

function firstString(o: Obj, paths: readonly string[]): string | null {
  for (const p of paths) {
    const v = field(o, p);
    if (typeof v === 'string' && v !== '') return v;
    if (typeof v === 'number') return String(v);
  }
  return null;
}

const TIME_KEYS = ['timestamp', '@timestamp', '_time', 'TimeGenerated', 'TimeGenerated [UTC]', 'time', 'date', 'receiveTimestamp', 'ingestionTime'] as const;
const MESSAGE_KEYS = ['textPayload', 'jsonPayload.MESSAGE', 'jsonPayload.message', 'jsonPayload.log', '@message', 'message', 'line', '_raw', 'SyslogMessage', 'log', 'MESSAGE', 'Message'] as const;
const HOST_KEYS = [
  'resource.labels.node_name', 'labels.compute.googleapis.com/resource_name', 'jsonPayload._HOSTNAME', 'host.name', 'host.hostname',
  'Computer', 'HostName', 'hostname', '_HOSTNAME', 'labels.host', 'labels.hostname', 'labels.node', 'labels.node_name', 'labels.nodename',
  'labels.instance', 'kubernetes.host', 'agent.hostname', 'host',
] as const;
const IDENT_KEYS = [
  'jsonPayload.SYSLOG_IDENTIFIER', 'jsonPayload._SYSTEMD_UNIT', 'SYSLOG_IDENTIFIER', 'ProcessName', 'process.name', 'systemd.unit',
  'log.syslog.appname', 'systemd_unit', '_SYSTEMD_UNIT', 'labels.syslog_identifier', 'labels.unit', 'labels.systemd_unit', 'labels.service_name', 'kubernetes.container_name',
] as const;
const PID_KEYS = ['jsonPayload._PID', 'jsonPayload.SYSLOG_PID', 'ProcessID', 'process.pid', '_PID', 'pid'] as const;

/** The export form an object is an entry of, or null: each by keys only that form writes. */
export function exportForm(o: Obj): string | null {
  if (('textPayload' in o || 'jsonPayload' in o) && ('logName' in o || 'insertId' in o || isObj(o.resource))) return 'gcp';
  if (typeof o.message === 'string' && typeof o.timestamp === 'number' && ('logStreamName' in o || 'ingestionTime' in o || 'eventId' in o)) return 'cloudwatch';
  if (typeof o.line === 'string' && isObj(o.labels) && 'timestamp' in o) return 'loki';
  if (isObj(o.result) && typeof o.result._raw === 'string') return 'splunk';
  if (typeof o._raw === 'string' && '_time' in o) return 'splunk';
  if (isObj(o._source) && ('_index' in o || '_id' in o)) return 'elasticsearch';
  if ('@timestamp' in o && (typeof o.message === 'string' || typeof o.log === 'string') && ('host' in o || 'ecs' in o || 'agent' in o || 'systemd' in o || 'process' in o)) return 'ecs';
  if ('TimeGenerated' in o && typeof o.SyslogMessage === 'string') return 'azure';
  if ((typeof o.log === 'string' || typeof o.message === 'string') && !('msg' in o) && ('kubernetes' in o || typeof o.host === 'string' || typeof o.systemd_unit === 'string')) return 'shipped';
  return null;
}

/** An export entry's time, host, identifier and message, or null when `o` is no export entry (exportForm). */
export function exportEntry(o: Obj): ExportEntry | null {
  const form = exportForm(o);
  return form ? entryOf(o, form) : null;
}

export function entryOf(o: Obj, form: string): ExportEntry | null {
  if (form === 'splunk' && isObj(o.result)) o = o.result;
  else if (form === 'elasticsearch') o = o._source as Obj;
  let message = firstString(o, MESSAGE_KEYS);
  if (message === null) {
    // A structured payload without a message field: the payload itself is what was logged.
    const p = o.jsonPayload;
    if (!isObj(p)) return null;
    message = JSON.stringify(p);
  }
  let host = firstString(o, HOST_KEYS);
  let ident = firstString(o, IDENT_KEYS);
  if (form === 'gcp' && ident === null && typeof o.logName === 'string') ident = gcpLogName(o.logName);
  if (form === 'splunk' && ident === null && typeof o.source === 'string') ident = splunkSource(o.source);
  const stream = typeof o.logStreamName === 'string' ? o.logStreamName : typeof o['@logStream'] === 'string' ? (o['@logStream'] as string) : null;
  if (stream !== null) {
    const s = streamName(stream);
    host ??= s.host;
    ident ??= s.ident;
  }
  const pidText = firstString(o, PID_KEYS);
  let pid = pidText !== null && /^\d+$/.test(pidText) ? Number(pidText) : null;
  let us = NaN;
  for (const k of TIME_KEYS) {
    const v = field(o, k);
    if (v !== undefined && v !== null && v !== '') {
      us = timeUs(v);
      if (!Number.isNaN(us)) break;
    }
  }
  message = message.replace(/\r?\n$/, '');
  // A shipped syslog line (`_raw`, a CloudWatch agent tailing /var/log/messages) keeps its own prefix: its host,
  // identifier and PID are read from it; the export's time is kept (the prefix has no year).
  const sys = SYSLOG_PREFIX.exec(message);
  if (sys) {
    host ??= sys[1] ?? null;
    ident ??= sys[2] ?? null;
    if (pid === null && sys[3] !== undefined) pid = Number(sys[3]);
    message = message.slice(sys[0].length);
  }
  if (message.length > MAX_MESSAGE) message = message.slice(0, MAX_MESSAGE);
  return { us, host, ident: ident === null ? null : unitName(ident), pid, message };
}

const MONTHS = 'Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec';
const SYSLOG_PREFIX = new RegExp(String.raw`^(?:(?:${MONTHS}) [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)?|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)) (\S+) ([^\s\[\]:]+)(?:\[(\d+)\])?: `);

/** `kubelet.service` → `kubelet`; a unit's instance and GKE's runtime log keep their names. */
function unitName(s: string): string {
  const u = s.replace(/\.service$/, '');
  return u === 'container-runtime' ? 'containerd' : u;
}

/** `projects/p/logs/kubelet` → kubelet; `projects/p/logs/cloudaudit.googleapis.com%2Factivity` → its decoded name. */
export function gcpLogName(name: string): string | null {
  const m = /\/logs\/([^/]+)$/.exec(name);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1] as string);
  } catch {
    return m[1] as string;
  }
}

/** Splunk's source: `journald://kubelet`, `/var/log/kubelet.log` → kubelet; `/var/log/messages` names no unit. */
export function splunkSource(source: string): string | null {
  const j = /^journald:\/\/(.+)$/.exec(source);
  if (j) return j[1] as string;
  const base = (source.split('/').pop() ?? '').replace(/\.log(?:\.\d+)?$/, '');
  return /^(?:kubelet|containerd|dockerd|docker|crio|kernel|kube-proxy)$/.test(base) ? base : null;
}

const STREAM_UNIT = /^(kubelet|containerd|dockerd|docker|crio|kube-proxy|kernel|kubelite|k3s|rke2-agent|rke2-server)(?:\.service)?$/;

/** A CloudWatch log stream's name: `host/unit`, `unit/host`, `unit-host`, `unit.service-host`, or a host alone. */
export function streamName(stream: string): { host: string | null; ident: string | null } {
  const parts = stream.split('/').filter((p) => p !== '');
  if (parts.length >= 2) {
    const last = parts[parts.length - 1] as string;
    const first = parts[0] as string;
    if (STREAM_UNIT.test(last)) return { host: parts[parts.length - 2] as string, ident: last };
    if (STREAM_UNIT.test(first)) return { host: parts[1] as string, ident: first };
    return { host: null, ident: null };
  }
  const m = /^(kubelet|containerd|dockerd|docker|crio|kube-proxy|kernel)(?:\.service)?[-_.](.+)$/.exec(stream);
  if (m) return { host: m[2] as string, ident: m[1] as string };
  if (STREAM_UNIT.test(stream)) return { host: null, ident: stream };
  // An EC2 instance or a node name alone.
  return /^(?:i-[0-9a-f]{8,17}|ip-\d+-\d+-\d+-\d+\S*)$/.test(stream) ? { host: stream, ident: null } : { host: null, ident: null };
}

/**
 * An export's time as µs since the epoch: RFC 3339 (up to nanoseconds; no zone: UTC, as every export writes UTC),
 * `2024-03-11 10:04:12.000 UTC`, Kibana's `Mar 11, 2024 @ 10:04:12.000`, Azure's portal `3/11/2024, 10:04:12.000 AM`, or epoch seconds, ms or µs.
 */
export function timeUs(v: unknown): number {
  if (typeof v === 'number') return epochUs(v);
  if (typeof v !== 'string') return NaN;
  const s = v.trim();
  if (/^\d+(?:\.\d+)?$/.test(s)) return epochUs(Number(s));
  let m = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?\s*(Z|UTC|GMT|[+-]\d\d:?\d\d)?$/i.exec(s);
  if (m) return civilUs(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!, m[7], m[8]);
  // Kibana's CSV (its default dateFormat, in the browser's zone: read as UTC): `Mar 11, 2024 @ 10:04:12.000`.
  m = new RegExp(String.raw`^(${MONTHS}) (\d{1,2}), (\d{4}) @ (\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?$`).exec(s);
  if (m) return civilUs(+m[3]!, MONTHS.split('|').indexOf(m[1]!) + 1, +m[2]!, +m[4]!, +m[5]!, +m[6]!, m[7], undefined);
  m = /^(\d{1,2})\/(\d{1,2})\/(\d{4}),? (\d{1,2}):(\d\d):(\d\d)(?:\.(\d{1,9}))? ?([AP]M)?$/i.exec(s);
  if (m) {
    let h = +m[4]!;
    if (m[8]) h = (h % 12) + (m[8].toUpperCase() === 'PM' ? 12 : 0);
    return civilUs(+m[3]!, +m[1]!, +m[2]!, h, +m[5]!, +m[6]!, m[7], undefined);
  }
  return NaN;
}

function epochUs(n: number): number {
  if (!Number.isFinite(n) || n <= 0) return NaN;
  if (n < 1e11) return Math.round(n * 1e6); // seconds
  if (n < 1e14) return Math.round(n * 1e3); // ms
  if (n < 1e17) return Math.round(n); // µs
  return Math.round(n / 1e3); // ns
}

function civilUs(y: number, mo: number, d: number, h: number, mi: number, s: number, frac: string | undefined, zone: string | undefined): number {
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  if (Number.isNaN(ms) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return NaN;
  let us = ms * 1000 + (frac ? Math.floor(Number(frac.padEnd(9, '0')) / 1000) : 0);
  const z = zone && /^[+-]/.test(zone) ? /^([+-])(\d\d):?(\d\d)$/.exec(zone) : null;
  if (z) us -= (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3])) * 60_000_000;
  return us;
}

/** The entry as the `journalctl -o json` line the recogniser reads (with its newline). */
export function journalLine(e: ExportEntry): string {
  let line = '{';
  if (!Number.isNaN(e.us)) line += `"__REALTIME_TIMESTAMP":"${e.us}",`;
  if (e.host !== null) line += `"_HOSTNAME":${JSON.stringify(e.host)},`;
  line += `"SYSLOG_IDENTIFIER":${JSON.stringify(e.ident ?? '')},`;
  if (e.pid !== null) line += `"_PID":"${e.pid}",`;
  return `${line}"MESSAGE":${JSON.stringify(e.message)}}\n`;
}
