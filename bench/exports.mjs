#!/usr/bin/env node
// `node bench/exports.mjs`: a log store's JSON export read by plegscope against `jq -r .line … | grep -c`. A generated
// kubelet journal (test/support/journal-gen.mjs, the bench mix) is written as Loki `logcli --output=jsonl` lines
// (`{"labels":{"host":…,"unit":…},"line":…,"timestamp":…}`, one entry per line, the export form read in place) up to
// BENCH_EXPORT_MB MiB (default 1024); then `plegscope analyze X.jsonl --format json` and
// `jq -r .line X.jsonl | grep -c -F 'PLEG is not healthy'` are timed in turn (BENCH_RUNS pairs, default 3; pinned to
// one core with taskset when there is one); the median of each, their ratio and plegscope's peak RSS (GNU time) are
// printed, then one JSON line.
import { createWriteStream, existsSync, mkdirSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKubeletJournal } from '../test/support/journal-gen.mjs';
import { sideBySide } from './side-by-side.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'bench', 'out');
const BIN = join(ROOT, 'bin', 'plegscope');
const mb = Number(process.env.BENCH_EXPORT_MB || 1024);
const runs = Math.max(1, Number(process.env.BENCH_RUNS || 3));
const log = (...a) => console.error('[bench:exports]', ...a);

if (spawnSync('jq', ['--version']).status !== 0) {
  log('needs jq (apt-get install jq) for the side-by-side figure');
  process.exit(2);
}

const MONTHS = { Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11 };

async function writeExport(file) {
  const out = createWriteStream(file);
  let size = 0;
  let entries = 0;
  let buf = [];
  const target = mb * 2 ** 20;
  for (const line of generateKubeletJournal({ style: 'structured', envelope: 'short', host: 'worker-3', rate: 6, pods: 60, crashLoopPods: 2, seed: 'bench-v1', start: Date.UTC(2024, 2, 11, 9), durationMs: 24 * 3600e3 * 400 })) {
    const m = /^(\w{3}) +(\d+) (\d\d):(\d\d):(\d\d) (\S+) ([^\s[]+)\[(\d+)\]: (.*)$/.exec(line);
    if (!m) continue;
    const [, mon, day, hh, mm, ss, host, ident, , msg] = m;
    const ts = new Date(Date.UTC(2024, MONTHS[mon], Number(day), Number(hh), Number(mm), Number(ss))).toISOString();
    const text = `${JSON.stringify({ labels: { host, unit: ident === 'systemd' ? 'init.scope' : `${ident}.service` }, line: msg, timestamp: ts })}\n`;
    buf.push(text);
    size += text.length;
    entries++;
    if (buf.length >= 4096) {
      if (!out.write(buf.join(''))) await new Promise((r) => out.once('drain', r));
      buf = [];
    }
    if (size >= target) break;
  }
  out.end(buf.join(''));
  await new Promise((r) => out.on('close', r));
  return entries;
}

mkdirSync(OUT, { recursive: true });
const file = join(OUT, `kubelet-export-${mb}m.jsonl`);
let entries = null;
if (!existsSync(file)) {
  log(`writing ${file} (${mb} MiB of Loki jsonl)`);
  entries = await writeExport(file);
}
const bytes = statSync(file).size;
const r = sideBySide({ bin: BIN, file, out: OUT, runs, log, label: 'exports', pipeline: (pin) => `${pin} jq -r .line '${file}' | ${pin} grep -c -F 'PLEG is not healthy'` });
const result = {
  bench: 'json-export', file: file.replace(`${ROOT}/`, ''), mib: +(bytes / 2 ** 20).toFixed(1), entries,
  plegscopeMs: r.plegscopeMs, jqGrepMs: r.otherMs, ratio: r.ratio, plegscopePeakRssMB: r.plegscopePeakRssMB, pinned: r.pinned, grepCount: r.grepCount,
};
console.log(`JSON export ${result.mib} MiB: plegscope ${result.plegscopeMs} ms, jq -r .line | grep -c ${result.jqGrepMs} ms (throughput ratio ${result.ratio}); plegscope peak RSS ${result.plegscopePeakRssMB ?? '?'} MB`);
console.log(JSON.stringify(result));
