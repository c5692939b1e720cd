#!/usr/bin/env node
// `node bench/journal.mjs`: binary journals read natively against `journalctl --directory … | grep -c`. A generated kubelet
// journal (test/support/journal-gen.mjs, the bench mix, BENCH_JOURNAL_HOURS hours, default 24) is written as binary
// journal files by systemd-journal-remote (compact, ZSTD, with the trusted fields journald adds to every entry; it
// rotates at about 100 MiB, so a long journal is a folder of files), then `plegscope analyze DIR --format json` and
// `journalctl --directory DIR | grep -c -F 'PLEG is not healthy'` are
// timed in turn (BENCH_RUNS pairs, default 3; pinned to one core with taskset when there is one); the median of each,
// their ratio and plegscope's peak RSS (GNU time) are printed, then one JSON line.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKubeletJournal } from '../test/support/journal-gen.mjs';
import { sideBySide } from './side-by-side.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'bench', 'out');
const BIN = join(ROOT, 'bin', 'plegscope');
const REMOTE = '/usr/lib/systemd/systemd-journal-remote';
const hours = Number(process.env.BENCH_JOURNAL_HOURS || 24);
const runs = Math.max(1, Number(process.env.BENCH_RUNS || 3));
const log = (...a) => console.error('[bench:journal]', ...a);

if (!existsSync(REMOTE) || spawnSync('journalctl', ['--version']).status !== 0) {
  log(`needs journalctl and ${REMOTE} (scripts/install-test-deps.sh)`);
  process.exit(2);
}

const MONTHS = { Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11 };
const TRUSTED = '_UID=0\n_GID=0\n_CAP_EFFECTIVE=1ffffffffff\n_SELINUX_CONTEXT=unconfined\n_SYSTEMD_SLICE=system.slice\nSYSLOG_FACILITY=3\n_MACHINE_ID=8f2d6c1e3b4a49d7a5c6b7e8f9012345\n_BOOT_ID=5b1f7c4ad2e94f3c9a0b6e7d8c9f0a1b\n';

/** The export stream of the generated journal, written to systemd-journal-remote's stdin. */
async function writeBinary(file) {
  const child = spawn(REMOTE, ['--compress=yes', `--output=${file}`, '-'], { stdio: ['pipe', 'ignore', 'inherit'], env: { ...process.env, SYSTEMD_JOURNAL_COMPACT: '1' } });
  const done = new Promise((resolve, reject) => child.on('close', (c) => (c === 0 ? resolve() : reject(new Error(`journal-remote exited ${c}`)))));
  let parts = [];
  let size = 0;
  let mono = 1_000_000;
  let entries = 0;
  for (const line of generateKubeletJournal({ style: 'structured', envelope: 'short', host: 'worker-3', rate: 6, pods: 60, crashLoopPods: 2, seed: 'bench-v1', start: Date.UTC(2024, 2, 11, 9), durationMs: hours * 3600e3 })) {
    const m = /^(\w{3}) +(\d+) (\d\d):(\d\d):(\d\d) (\S+) ([^\s[]+)\[(\d+)\]: (.*)$/.exec(line);
    if (!m) continue;
    const [, mon, day, hh, mm, ss, host, ident, pid, msg] = m;
    const own = /^[IWEF]\d{4} \d\d:\d\d:\d\d\.(\d{6})/.exec(msg);
    const us = BigInt(Date.UTC(2024, MONTHS[mon], Number(day), Number(hh), Number(mm), Number(ss))) * 1000n + BigInt(own ? Number(own[1]) : 0);
    mono += 1000;
    const unit = ident === 'systemd' ? 'init.scope' : `${ident}.service`;
    const entry = `__REALTIME_TIMESTAMP=${us}\n__MONOTONIC_TIMESTAMP=${mono}\n${TRUSTED}_HOSTNAME=${host}\nSYSLOG_IDENTIFIER=${ident}\n_PID=${pid}\n_COMM=${ident}\n_EXE=/usr/bin/${ident}\n_CMDLINE=/usr/bin/${ident} --config=/var/lib/${ident}/config.yaml\n_SYSTEMD_UNIT=${unit}\n_SYSTEMD_CGROUP=/system.slice/${unit}\n_TRANSPORT=stdout\n_STREAM_ID=3c5e8a1f2b4d4e6f8a9b0c1d2e3f4a5b\nPRIORITY=6\nMESSAGE=${msg}\n\n`;
    parts.push(entry);
    size += entry.length;
    entries++;
    if (size >= 1 << 20) {
      if (!child.stdin.write(parts.join(''))) await new Promise((r) => child.stdin.once('drain', r));
      parts = [];
      size = 0;
    }
  }
  child.stdin.end(parts.join(''));
  await done;
  return entries;
}

// systemd-journal-remote rotates its output at about 100 MiB ("Journal header limits reached"): a long journal is a
// folder of files, as /var/log/journal/<machine-id>/ is. Both sides read the whole folder.
const dir = join(OUT, `journal-${hours}h`);
let entries = null;
if (!existsSync(join(dir, 'kubelet.journal'))) {
  log(`writing ${dir}/ (${hours} h of kubelet journal)`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  entries = await writeBinary(join(dir, 'kubelet.journal'));
}
const files = readdirSync(dir).filter((f) => f.endsWith('.journal'));
const bytes = files.reduce((n, f) => n + statSync(join(dir, f)).size, 0);
const r = sideBySide({ bin: BIN, file: dir, out: OUT, runs, log, label: 'journal', pipeline: (pin) => `${pin} journalctl --directory '${dir}' --no-pager | ${pin} grep -c -F 'PLEG is not healthy'` });
const result = {
  bench: 'binary-journal', dir: dir.replace(`${ROOT}/`, ''), files: files.length, mib: +(bytes / 2 ** 20).toFixed(1), entries, hours,
  plegscopeMs: r.plegscopeMs, journalctlGrepMs: r.otherMs, ratio: r.ratio, plegscopePeakRssMB: r.plegscopePeakRssMB, pinned: r.pinned, grepCount: r.grepCount,
};
console.log(`binary journal ${result.mib} MiB in ${files.length} files (${hours} h): plegscope ${result.plegscopeMs} ms, journalctl --directory | grep -c ${result.journalctlGrepMs} ms (throughput ratio ${result.ratio}); plegscope peak RSS ${result.plegscopePeakRssMB ?? '?'} MB`);
console.log(JSON.stringify(result));
