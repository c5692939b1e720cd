// Cloud and log-store exports (src/sources/files/exports.ts): the sample incident written in each export's documented layout
// must give the sample's own analysis (verdict, cause, stalls, latencies), the node named by the export's host field.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Analysis } from '../../src/contract/analysis.js';
import { compressionOf, decode } from '../../src/sources/files/decode.js';
import { collect } from '../../src/sources/files/entry-stream.js';
import { exportDocument, isExportDocument } from '../../src/sources/files/exports.js';
import { exportEntry, journalLine, streamName, timeUs } from '../../src/parse/export-entry.js';
import { DEFAULT_LIMITS } from '../../src/sources/files/limits.js';
import { sniff } from '../../src/sources/files/sniff.js';
import { BIN } from '../helpers/cli.js';
import { azureRow, cloudwatchEvent, csv, exportForms as forms, gcpEntry, jsonl, lokiLine, sampleLines, type Line } from '../support/exports.js';

const SAMPLE = join(__dirname, '..', '..', 'fixtures', 'sample-incident');
const METRICS = ['metrics-20240311T101000Z.txt', 'metrics-20240311T102000Z.txt'];

function analyzeJson(paths: string[]): { code: number; analysis: Analysis; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, 'analyze', ...paths, '--format', 'json'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 64 << 20 });
  return { code: r.status ?? -1, analysis: JSON.parse(r.stdout || '{}') as Analysis, stderr: r.stderr };
}

describe('exports of the sample incident', () => {
  let dir: string;
  let sample: Analysis;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'plegscope-exports-'));
    const r = analyzeJson([SAMPLE]);
    expect(r.code, r.stderr).toBe(0);
    sample = r.analysis;
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const [name, text] of forms(sampleLines())) {
    it(`${name}: the sample's verdict, cause, stalls and latencies`, async () => {
      const folder = join(dir, name.replace(/\W/g, '-'));
      mkdirSync(folder);
      writeFileSync(join(folder, name), text);
      for (const m of METRICS) copyFileSync(join(SAMPLE, m), join(folder, m));
      const r = analyzeJson([folder]);
      expect(r.code, r.stderr).toBe(0);
      const [a, b] = [sample.nodes[0], r.analysis.nodes[0]];
      expect(r.analysis.nodes.map((n) => n.name)).toEqual(['worker-3']);
      expect(r.analysis.warnings).toEqual([]);
      const art = r.analysis.inputs[0]?.artifacts.find((x) => x.path === name);
      expect(art?.role).toBe('kubelet-log');
      expect(art?.node).toBe('worker-3');
      expect(b?.verdict).toEqual(a?.verdict);
      expect(b?.verdict.primaryCause).toBe(a?.verdict.primaryCause);
      expect(b?.stalls.length).toBe(a?.stalls.length);
      // To the second: a CSV's times are milliseconds, the sample's klog stamps microseconds.
      const sec = (t: string | null | undefined) => t?.slice(0, 19) ?? null;
      expect(b?.stalls.map((s) => [sec(s.unhealthyFrom), sec(s.endedAt)])).toEqual(a?.stalls.map((s) => [sec(s.unhealthyFrom), sec(s.endedAt)]));
      expect(b?.relist.duration !== null).toBe(a?.relist.duration !== null);
      expect(b?.operations.map((o) => [o.operation, o.latency !== null, o.timeouts])).toEqual(a?.operations.map((o) => [o.operation, o.latency !== null, o.timeouts]));
      expect(b?.findings.map((f) => f.ruleId)).toEqual(a?.findings.map((f) => f.ruleId));
      // Every evidence line cites the export: its own line (JSON lines), or its entry in time order (a whole document,
      // as decoded: the line journalctl -o json would print for it).
      const raw = Buffer.from(text);
      const lines = compressionOf(raw) === 'export'
        ? (await collect(decode(Readable.from([raw]), 'export'), 1 << 30)).data.toString('utf8').split('\n')
        : text.split('\n');
      const cited = (b?.findings ?? []).flatMap((f) => f.evidence).filter((x) => x.file === name);
      expect(cited.length).toBeGreaterThan(0);
      for (const e of cited) expect(lines[(e.line ?? 0) - 1]?.trim(), `${name}:${e.line}`).toBe(e.text.trim());
    }, 60_000);
  }

  it('newest-first JSON lines (logcli without --forward): the same verdict, cause and stall start', () => {
    const name = 'logcli-backward.jsonl';
    writeFileSync(join(dir, name), jsonl(sampleLines().reverse().map(lokiLine)));
    const r = analyzeJson([join(dir, name)]);
    expect(r.code, r.stderr).toBe(0);
    const [a, b] = [sample.nodes[0], r.analysis.nodes[0]];
    expect(b?.verdict.primaryCause).toBe(a?.verdict.primaryCause);
    expect(b?.stalls.map((s) => s.unhealthyFrom?.slice(0, 19))).toEqual(a?.stalls.map((s) => s.unhealthyFrom?.slice(0, 19)));
  }, 60_000);

  it('compressed exports (.json.gz, .csv.zst, .jsonl.xz) are read by their content: the sample\'s analysis', () => {
    const folder = join(dir, 'compressed');
    mkdirSync(folder);
    const all = new Map(forms(sampleLines()));
    const pack = (cmd: string, text: string | undefined) => execFileSync(cmd, ['-c'], { input: text });
    writeFileSync(join(folder, 'gcloud.json.gz'), pack('gzip', all.get('gcloud-array.json')));
    writeFileSync(join(folder, 'azure.csv.zst'), pack('zstd', all.get('azure.csv')));
    writeFileSync(join(folder, 'loki.jsonl.xz'), pack('xz', all.get('loki.jsonl')));
    for (const m of METRICS) copyFileSync(join(SAMPLE, m), join(folder, m));
    const r = analyzeJson([folder]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.analysis.warnings).toEqual([]);
    expect(r.analysis.inputs[0]?.artifacts.filter((x) => !x.path.startsWith('metrics')).map((x) => [x.path, x.role, x.node, x.format])).toEqual([
      ['azure.csv.zst', 'kubelet-log', 'worker-3', 'journal-json'], ['gcloud.json.gz', 'kubelet-log', 'worker-3', 'journal-json'], ['loki.jsonl.xz', 'kubelet-log', 'worker-3', 'export-json'],
    ]);
    const [a, b] = [sample.nodes[0], r.analysis.nodes[0]];
    expect(b?.verdict).toEqual(a?.verdict);
    expect(b?.stalls.map((s) => s.unhealthyFrom?.slice(0, 19))).toEqual(a?.stalls.map((s) => s.unhealthyFrom?.slice(0, 19)));
    expect(b?.findings.map((f) => f.ruleId)).toEqual(a?.findings.map((f) => f.ruleId));
  }, 60_000);

  it('an export document inside a tar: read as the member it is', () => {
    const folder = join(dir, 'tar');
    mkdirSync(folder);
    writeFileSync(join(folder, 'gcloud.json'), JSON.stringify(sampleLines().map(gcpEntry)));
    execFileSync('tar', ['-czf', join(dir, 'export.tar.gz'), '-C', folder, 'gcloud.json']);
    const r = analyzeJson([join(dir, 'export.tar.gz')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.analysis.nodes.map((n) => n.name)).toEqual(['worker-3']);
    expect(r.analysis.nodes[0]?.verdict.primaryCause).toBe(sample.nodes[0]?.verdict.primaryCause);
    expect(r.analysis.inputs[0]?.artifacts.map((x) => [x.path, x.role])).toEqual([['gcloud.json', 'kubelet-log']]);
  }, 60_000);

  it('one export file alone is its node\'s kubelet, runtime and kernel log: no gap asks for those', () => {
    const name = 'alone.json';
    writeFileSync(join(dir, name), jsonl(sampleLines().map(gcpEntry)));
    const r = analyzeJson([join(dir, name)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.analysis.nodes.map((n) => n.name)).toEqual(['worker-3']);
    expect(r.analysis.nodes[0]?.verdict.primaryCause).toBe(sample.nodes[0]?.verdict.primaryCause);
    expect(r.analysis.nodes[0]?.stalls.length).toBe(sample.nodes[0]?.stalls.length);
  }, 60_000);
});

describe('export entries', () => {
  it('reads each form\'s time, host, unit and message', () => {
    const us = Date.UTC(2024, 2, 11, 10, 4, 12) * 1000 + 150;
    const msg = 'E0311 10:04:12.000150    2817 generic.go:205] "GenericPLEG: Unable to retrieve pods" err="rpc error: code = DeadlineExceeded"';
    const want = { us, host: 'worker-3', ident: 'kubelet', pid: null, message: msg };
    expect(exportEntry({ insertId: 'x', textPayload: msg, resource: { type: 'k8s_node', labels: { node_name: 'worker-3' } }, timestamp: '2024-03-11T10:04:12.000150Z', logName: 'projects/p/logs/kubelet' })).toEqual(want);
    expect(exportEntry({ insertId: 'x', jsonPayload: { MESSAGE: msg, _SYSTEMD_UNIT: 'kubelet.service' }, labels: { 'compute.googleapis.com/resource_name': 'worker-3' }, timestamp: '2024-03-11T10:04:12.000150Z', logName: 'projects/p/logs/syslog' })).toEqual(want);
    expect(exportEntry({ logStreamName: 'worker-3/kubelet', timestamp: 1710151452000, message: msg, ingestionTime: 1, eventId: '1' })).toEqual({ ...want, us: us - 150 });
    expect(exportEntry({ labels: { host: 'worker-3', unit: 'kubelet.service' }, line: msg, timestamp: '2024-03-11T10:04:12.000150000Z' })).toEqual(want);
    expect(exportEntry({ result: { _raw: `Mar 11 10:04:12 worker-3 kubelet[2817]: ${msg}`, _time: '2024-03-11T10:04:12.000+00:00', host: 'worker-3', source: '/var/log/messages' } })).toEqual({ ...want, us: us - 150, pid: 2817 });
    expect(exportEntry({ _index: 'i', _source: { '@timestamp': '2024-03-11T10:04:12.000150Z', message: msg, host: { name: 'worker-3' }, systemd: { unit: 'kubelet.service' } } })).toEqual(want);
    expect(exportEntry({ TimeGenerated: '2024-03-11T10:04:12.0001500Z', Computer: 'worker-3', ProcessName: 'kubelet', SyslogMessage: msg })).toEqual(want);
    expect(exportEntry({ log: `${msg}\n`, host: 'worker-3', systemd_unit: 'kubelet.service', time: '2024-03-11T10:04:12.000150Z' })).toEqual(want);
    // Not exports: a journal line, a docker json-file line, kubelet JSON logging.
    expect(exportEntry({ __REALTIME_TIMESTAMP: '1', MESSAGE: msg })).toBeNull();
    expect(exportEntry({ log: msg, stream: 'stderr', time: '2024-03-11T10:04:12Z' })).toBeNull();
    expect(exportEntry({ ts: 1710151452000, msg: 'x', v: 0 })).toBeNull();
  });

  it('log stream names and times', () => {
    expect(streamName('i-0abc123def4567890/kubelet')).toEqual({ host: 'i-0abc123def4567890', ident: 'kubelet' });
    expect(streamName('kubelet-ip-10-0-1-2.ec2.internal')).toEqual({ host: 'ip-10-0-1-2.ec2.internal', ident: 'kubelet' });
    expect(streamName('kubelet.service-ip-10-0-1-2.ec2.internal')).toEqual({ host: 'ip-10-0-1-2.ec2.internal', ident: 'kubelet' });
    expect(streamName('ip-10-0-1-2.ec2.internal')).toEqual({ host: 'ip-10-0-1-2.ec2.internal', ident: null });
    const ms = Date.UTC(2024, 2, 11, 10, 4, 12);
    expect(timeUs('2024-03-11T11:04:12.5+01:00')).toBe(ms * 1000 + 500_000);
    expect(timeUs('2024-03-11 10:04:12.000 UTC')).toBe(ms * 1000);
    expect(timeUs('3/11/2024, 10:04:12.000 AM')).toBe(ms * 1000);
    expect(timeUs('Mar 11, 2024 @ 10:04:12.000')).toBe(ms * 1000);
    expect(timeUs('1710151452.25')).toBe(ms * 1000 + 250_000);
    expect(timeUs(1710151452000)).toBe(ms * 1000);
    expect(timeUs('yesterday')).toBeNaN();
  });

  it('CSV: RFC 4180 quoting, a message over several rows, newest first turned round', () => {
    const text = '"@timestamp","host.name","message"\r\n'
      + '"2024-03-11T10:04:13.000Z","worker-3","second, with a comma and ""quotes"""\r\n'
      + '"2024-03-11T10:04:12.000Z","worker-3","first\nof two lines"\r\n';
    expect(isExportDocument(Buffer.from(text))).toBe(true);
    expect(exportDocument(text).entries.map((e) => e.message)).toEqual(['first\nof two lines', 'second, with a comma and "quotes"']);
    // A CSV of other things, JSON lines, a Prometheus answer: not export documents.
    expect(isExportDocument(Buffer.from('name,value\na,1\n'))).toBe(false);
    expect(isExportDocument(Buffer.from(jsonl([{ labels: { host: 'a' }, line: 'x', timestamp: '2024-03-11T10:04:12Z' }])))).toBe(false);
    expect(isExportDocument(Buffer.from('{"status":"success","data":{"resultType":"vector","result":[]}}'))).toBe(false);
    expect(isExportDocument(Buffer.from('{"kind":"Node","apiVersion":"v1"}'))).toBe(false);
  });

  it('a CSV of several MiB is read a window at a time: the same entries as read whole, records over line breaks included', async () => {
    const rows: string[][] = [];
    for (let i = 0; i < 30_000; i++) {
      const t = new Date(Date.UTC(2024, 2, 11, 10) + i * 1000).toISOString();
      // Every seventh message holds line breaks and quotes, so that some fall across a window's end.
      rows.push([t, `worker-${i % 3}`, i % 7 === 0 ? `line one of ${i}\nline "two"\r\nthree, ${'x'.repeat(i % 200)}` : `message ${i} ${'y'.repeat(i % 150)}`]);
    }
    const text = csv(['@timestamp', 'host.name', 'message'], rows);
    expect(text.length).toBeGreaterThan(3 << 20);
    const whole = exportDocument(text).entries.map((e) => journalLine(e)).join('');
    const read = (await collect(decode(Readable.from([Buffer.from(text)]), 'export'), 1 << 30)).data.toString('utf8');
    expect(read.length).toBe(whole.length);
    expect(read === whole).toBe(true);
  }, 60_000);

  it('a whole document is decoded into journal JSON lines in time order, and sniffed as a kubelet log', async () => {
    const lines = sampleLines();
    const doc = Buffer.from(JSON.stringify({ events: lines.slice().reverse().map(cloudwatchEvent) }));
    expect(compressionOf(doc)).toBe('export');
    const out = (await collect(decode(Readable.from([doc]), 'export'), 1 << 30)).data.toString('utf8');
    const got = out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, string>);
    expect(got).toHaveLength(lines.length);
    expect(got.map((g) => Number(g['__REALTIME_TIMESTAMP']))).toEqual(lines.map((l) => Math.floor(l.us / 1000) * 1000));
    expect(got[0]).toMatchObject({ _HOSTNAME: 'worker-3', MESSAGE: lines[0]?.message });
    expect(sniff(Buffer.from(out.slice(0, 64 * 1024)), 'x.json')).toEqual({ role: 'kubelet-log', format: 'journal-json' });
    expect(sniff(Buffer.from(jsonl(lines.slice(0, 100).map(lokiLine))), 'x.json')).toEqual({ role: 'kubelet-log', format: 'export-json' });
    // One entry alone (pasted into a ticket) is a log too.
    const one = lines.find((l) => l.message.includes('PLEG is not healthy')) as Line;
    expect(sniff(Buffer.from(`${JSON.stringify(cloudwatchEvent(one, 0))}\n`), 'x.json')).toEqual({ role: 'kubelet-log', format: 'export-json' });
  });

  it('a JSON document past the bound, or cut short, is read up to its last whole entry, then one error', async () => {
    const rows = sampleLines().slice(0, 200).map(azureRow);
    const doc = Buffer.from(JSON.stringify(rows, null, 2));
    const r = await collect(decode(Readable.from([doc]), 'export', undefined, { ...DEFAULT_LIMITS, maxExportBytes: 16 * 1024 }), 1 << 30);
    const n = r.data.toString('utf8').split('\n').filter((l) => l !== '').length;
    expect(n).toBeGreaterThan(10);
    expect(n).toBeLessThan(200);
    expect(r.error?.message).toBe('export document larger than 16 KiB: only its first 16 KiB read');
    const cut = await collect(decode(Readable.from([doc.subarray(0, doc.length - 300)]), 'export'), 1 << 30);
    expect(cut.data.toString('utf8').split('\n').filter((l) => l !== '')).toHaveLength(199);
    expect(cut.error?.message).toBe('export document cut short: 199 entries read');
  });

  it('hostile nesting is scanned, not parsed at every level', () => {
    expect(exportDocument(`[${'['.repeat(1_000_000)}`)).toEqual({ entries: [], whole: false });
    expect(exportDocument(`@timestamp,message\n${','.repeat(1_000_000)}\n2024-03-11T10:04:12Z,m\n`).entries.map((e) => e.message)).toEqual(['m']);
    const deep = `[${'['.repeat(5000)}{"TimeGenerated":"2024-03-11T10:04:12Z","Computer":"w","SyslogMessage":"x"}${']'.repeat(5000)}]`;
    expect(exportDocument(deep).entries).toEqual([]);
    const wide = `{"events":[${Array.from({ length: 3 }, () => '{"timestamp":1710151452000,"message":"m","ingestionTime":1}').join(',')}]}`;
    expect(exportDocument(wide).entries.map((e) => e.message)).toEqual(['m', 'm', 'm']);
  });
});
