// The sample incident (fixtures/sample-incident) as cloud and log-store exports, each in its documented field layout:
// Google Cloud LogEntry (cloud.google.com/logging/docs/reference/v2/rest/v2/LogEntry), CloudWatch Logs
// FilterLogEvents / GetLogEvents output, Loki logcli `--output=jsonl`, Splunk's JSON export, ECS (Elasticsearch
// `_search` hits), Azure Monitor's Syslog table, and the CSV exports of these tools.
import { incidentEntries, type ExportEntry } from './journal-files.js';

export interface Line { us: number; host: string; ident: string; pid: string | null; message: string }

/** The sample's kubelet, containerd and kernel lines, in time order (µs since the epoch, UTC). */
export function sampleLines(): Line[] {
  return incidentEntries().map((e: ExportEntry) => ({
    us: Number(e.realtime),
    host: e.fields['_HOSTNAME'] as string,
    ident: e.fields['SYSLOG_IDENTIFIER'] as string,
    pid: e.fields['_PID'] ?? null,
    message: e.fields['MESSAGE'] as string,
  }));
}

/** RFC 3339 with µs: `2024-03-11T10:04:12.000150Z`. */
export function rfc3339(us: number): string {
  return new Date(Math.floor(us / 1000)).toISOString().replace(/\.(\d{3})Z$/, (_m, ms: string) => `.${ms}${String(us % 1000).padStart(3, '0')}Z`);
}

const unit = (l: Line) => (l.ident === 'kernel' ? 'kernel' : l.ident === 'systemd' ? 'init.scope' : `${l.ident}.service`);

export function gcpEntry(l: Line, i: number): object {
  const text = i % 2 === 0;
  return {
    insertId: `id${i}`,
    ...(text ? { textPayload: l.message } : { jsonPayload: { MESSAGE: l.message, SYSLOG_IDENTIFIER: l.ident, _SYSTEMD_UNIT: unit(l), ...(l.pid ? { _PID: l.pid } : {}) } }),
    resource: { type: 'k8s_node', labels: { project_id: 'p', location: 'us-central1-a', cluster_name: 'c', node_name: l.host } },
    timestamp: rfc3339(l.us),
    severity: 'INFO',
    labels: { 'compute.googleapis.com/resource_name': l.host },
    logName: `projects/p/logs/${l.ident === 'containerd' ? 'container-runtime' : l.ident}`,
    receiveTimestamp: rfc3339(l.us + 1_000_000),
  };
}

export function cloudwatchEvent(l: Line, i: number): object {
  // The CloudWatch agent's `log_stream_name: "{hostname}/kubelet"`.
  return { logStreamName: `${l.host}/${l.ident}`, timestamp: Math.floor(l.us / 1000), message: l.message, ingestionTime: Math.floor(l.us / 1000) + 800, eventId: String(37845e50 + i) };
}

export function lokiLine(l: Line): object {
  return { labels: { host: l.host, unit: unit(l), job: 'systemd-journal' }, line: l.message, timestamp: rfc3339(l.us) };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** The line as syslog wrote it (`Mar 11 10:04:12 worker-3 kubelet[2817]: …`): what Splunk keeps as `_raw`. */
export function syslogLine(l: Line): string {
  const d = new Date(Math.floor(l.us / 1000));
  const t = d.toISOString().slice(11, 19);
  return `${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${t} ${l.host} ${l.ident}${l.pid ? `[${l.pid}]` : ''}: ${l.message}`;
}

export function splunkResult(l: Line): object {
  return { preview: false, result: { _raw: syslogLine(l), _time: rfc3339(l.us).replace('Z', '+00:00'), host: l.host, source: '/var/log/messages', sourcetype: 'syslog', index: 'os' } };
}

export function ecsHit(l: Line, i: number): object {
  return {
    _index: 'logs-system.syslog-default', _id: `h${i}`, _score: null,
    _source: { '@timestamp': rfc3339(l.us), message: l.message, host: { name: l.host, hostname: l.host }, process: { name: l.ident, ...(l.pid ? { pid: Number(l.pid) } : {}) }, systemd: { unit: unit(l) }, ecs: { version: '8.0.0' } },
    sort: [Math.floor(l.us / 1000)],
  };
}

export function azureRow(l: Line): object {
  return { TenantId: '00000000-0000-0000-0000-000000000000', SourceSystem: 'Linux', TimeGenerated: rfc3339(l.us), Computer: l.host, EventTime: rfc3339(l.us), Facility: 'daemon', HostName: l.host, SeverityLevel: 'info', SyslogMessage: l.message, ProcessID: l.pid ?? '', HostIP: '10.0.1.2', ProcessName: l.ident, MG: '', Type: 'Syslog', _ResourceId: '', TableName: 'PrimaryResult' };
}

/** One CSV field, quoted when it must be (RFC 4180). */
export function csvField(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csv(header: string[], rows: string[][]): string {
  return [header.map(csvField).join(','), ...rows.map((r) => r.map(csvField).join(','))].join('\r\n') + '\r\n';
}

/** Kibana's default dateFormat: `Mar 11, 2024 @ 10:04:12.000`. */
function kibanaTime(us: number): string {
  const d = new Date(Math.floor(us / 1000));
  return `${d.toUTCString().slice(8, 11)} ${d.getUTCDate()}, ${d.getUTCFullYear()} @ ${d.toISOString().slice(11, 23)}`;
}

/** `{"tables":[{"name":"PrimaryResult","columns":[{name,type}…],"rows":[[…]…]}]}` of the sample's Syslog rows. */
function laTables(lines: Line[]): object {
  const rows = lines.map((l) => azureRow(l) as Record<string, string>);
  const names = Object.keys(rows[0] ?? {}).filter((n) => n !== 'TableName');
  const type = (n: string) => (n === 'TimeGenerated' || n === 'EventTime' ? 'datetime' : n === 'ProcessID' ? 'int' : 'string');
  return { tables: [{ name: 'PrimaryResult', columns: names.map((name) => ({ name, type: type(name) })), rows: rows.map((r) => names.map((n) => (n === 'ProcessID' && r[n] !== '' ? Number(r[n]) : r[n]))) }] };
}

export const jsonl = (xs: object[]): string => xs.map((x) => JSON.stringify(x)).join('\n') + '\n';

/** Each export form of the sample: its file name and content. */
export function exportForms(lines: Line[]): Array<[string, string]> {
  const newestFirst = lines.slice().reverse();
  return [
    ['gcloud-array.json', JSON.stringify(newestFirst.map(gcpEntry), null, 2)],
    ['gcp-lines.json', jsonl(lines.map(gcpEntry))],
    ['filter-log-events.json', JSON.stringify({ events: lines.map(cloudwatchEvent), searchedLogStreams: [] }, null, 4)],
    ['get-log-events.json', JSON.stringify({ events: lines.map((l) => ({ timestamp: Math.floor(l.us / 1000), message: syslogLine(l), ingestionTime: Math.floor(l.us / 1000) + 500 })), nextForwardToken: 'f/1', nextBackwardToken: 'b/1' })],
    ['cloudwatch-lines.json', jsonl(lines.map(cloudwatchEvent))],
    ['fluent-bit.json', jsonl(lines.map((l) => ({ date: l.us / 1e6, message: l.message, host: l.host, systemd_unit: `${l.ident}.service`, pid: l.pid })))],
    ['es-search.json', JSON.stringify({ took: 12, timed_out: false, _shards: { total: 1, successful: 1, skipped: 0, failed: 0 }, hits: { total: { value: lines.length, relation: 'eq' }, max_score: null, hits: newestFirst.map(ecsHit) } })],
    ['es-hits.json', jsonl(lines.map(ecsHit))],
    // `logcli query --forward --output=jsonl` (without --forward logcli prints newest first: see below).
    ['loki.jsonl', jsonl(lines.map(lokiLine))],
    ['splunk.json', jsonl(lines.map(splunkResult))],
    ['az-query.json', JSON.stringify(lines.map(azureRow), null, 2)],
    // The Log Analytics REST API's answer (the portal's JSON export): columns, then rows of values.
    ['la-rest.json', JSON.stringify(laTables(lines))],
    ['insights.csv', csv(['@timestamp', '@message', '@logStream', '@log'], newestFirst.map((l) => [rfc3339(l.us).replace('T', ' ').replace('Z', ''), l.message, `${l.host}/${l.ident}`, '123456789012:/eks/node']))],
    ['azure.csv', csv(['TenantId', 'TimeGenerated [UTC]', 'Computer', 'ProcessName', 'ProcessID', 'SyslogMessage', 'Type'], lines.map((l) => ['t', rfc3339(l.us), l.host, l.ident, l.pid ?? '', l.message, 'Syslog']))],
    ['kibana.csv', csv(['@timestamp', 'host.name', 'process.name', 'message'], newestFirst.map((l) => [kibanaTime(l.us), l.host, l.ident, l.message]))],
    ['splunk.csv', csv(['_time', 'host', 'source', 'sourcetype', '_raw'], newestFirst.map((l) => [rfc3339(l.us).replace('Z', '+00:00'), l.host, '/var/log/messages', 'syslog', syslogLine(l)]))],
    ['logs-explorer.csv', csv(['insertId', 'logName', 'resource.labels.node_name', 'timestamp', 'textPayload'], lines.map((l, i) => [`id${i}`, `projects/p/logs/${l.ident}`, l.host, rfc3339(l.us), l.message]))],
  ];
}
