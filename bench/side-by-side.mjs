// One file analyzed by plegscope and counted by a shell pipeline, in turn: `runs` pairs, pinned to one core with taskset
// when there is one, plegscope's peak RSS from GNU time. Shared by bench/journal.mjs and bench/exports.mjs.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

function timed(cmd, args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { maxBuffer: 256 << 20 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${cmd} exited ${r.status}: ${String(r.stderr).slice(0, 300)}`);
  return { ms, stdout: String(r.stdout) };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** `pipeline(pin)` is the shell command to time against `plegscope analyze file --format json` (pin: the taskset prefix). */
export function sideBySide({ bin, file, out, runs, pipeline, log, label }) {
  const pin = spawnSync('taskset', ['-c', '0', 'true']).status === 0 ? ['taskset', '-c', '0'] : [];
  const gnuTime = existsSync('/usr/bin/time');
  const ours = [];
  const theirs = [];
  let rssMB = null;
  let count = null;
  for (let i = 0; i < runs; i++) {
    const rssFile = join(out, `${label}-rss.txt`);
    const pre = [...pin, ...(gnuTime ? ['/usr/bin/time', '-f', '%M', '-o', rssFile] : [])];
    const a = timed(pre[0] ?? process.execPath, [...pre.slice(1), ...(pre.length ? [process.execPath] : []), bin, 'analyze', file, '--format', 'json']);
    ours.push(a.ms);
    if (gnuTime) rssMB = Math.max(rssMB ?? 0, Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop()) / 1024);
    const b = timed('sh', ['-c', pipeline(pin.join(' '))]);
    theirs.push(b.ms);
    count = Number(b.stdout.trim());
    log(`run ${i + 1}: plegscope ${a.ms.toFixed(0)} ms, ${label} pipeline ${b.ms.toFixed(0)} ms`);
  }
  return {
    plegscopeMs: Math.round(median(ours)), otherMs: Math.round(median(theirs)), ratio: +(median(theirs) / median(ours)).toFixed(2),
    plegscopePeakRssMB: rssMB === null ? null : Math.round(rssMB), pinned: pin.length > 0, grepCount: count,
  };
}
