#!/usr/bin/env node
// `node bench/dense.mjs`: journals where most lines match (issue 27), next to `grep -F -c`. A kubelet stalls 20 min in
// every 30: each line of a stall (2 ms apart) is "PLEG is not healthy" (70 %) or a ListPodSandbox DeadlineExceeded
// (30 %), the rest a readiness probe; the first 10 min are quiet. For each size (BENCH_DENSE_SIZES MiB, default
// 50,400,2048) `plegscope analyze FILE --format json` (default settings: the threads plegscope chooses, one worker for a dense log of 256 MiB and more) and `grep -F -c 'PLEG is not
// healthy' FILE` are run in turn (BENCH_RUNS pairs, default 3) on a warm page cache; printed: median wall times, their
// ratio (goal ≤ 10), plegscope's CPU time per MiB (goal: at the largest size within 1.2× of the smallest) and its peak
// RSS (goal ≤ 200 MB), then one JSON line. The machine's other load moves every figure: compare ratios from one run.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'bench', 'out');
const BIN = join(ROOT, 'bin', 'plegscope');
const GEN_VERSION = 1;
const sizes = (process.env.BENCH_DENSE_SIZES || '50,400,2048').split(',').map(Number);
const runs = Math.max(1, Number(process.env.BENCH_RUNS || 3));
const log = (...a) => console.error('[bench:dense]', ...a);
const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n) => String(n).padStart(2, '0');

/** A small deterministic generator (xorshift), so that every run writes the same journal. */
function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}

function generate(file, mib) {
  const rand = rng(11);
  const fd = openSync(`${file}.tmp`, 'w');
  const target = mib * 2 ** 20;
  const pid = 2231;
  const start = Date.UTC(2024, 2, 1);
  let written = 0;
  let t = start;
  while (written < target) {
    const lines = [];
    for (let k = 0; k < 20000; k++) {
      t += 2;
      const d = new Date(t);
      const day = d.getUTCDate();
      const hms = `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`;
      const us = `${String(d.getUTCMilliseconds()).padStart(3, '0')}000`;
      const pre = `${MON[d.getUTCMonth()]} ${day < 10 ? ` ${day}` : day} ${hms} dense-node-1 kubelet[${pid}]: `;
      const md = `${p2(d.getUTCMonth() + 1)}${p2(day)}`;
      const phase = ((t - start) / 1000) % 1800;
      if (phase < 600) {
        lines.push(`${pre}I${md} ${hms}.${us}    ${pid} kubelet.go:2115] "SyncLoop (probe)" probe="readiness" status="ready" pod="ns-1/app-${Math.floor(rand() * 300)}"`);
      } else {
        const ago = phase - 600 + 180;
        const m = Math.floor(ago / 60);
        const s = (ago - 60 * m).toFixed(6);
        lines.push(rand() < 0.7
          ? `${pre}E${md} ${hms}.${us}    ${pid} kubelet.go:2040] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active ${m}m${s}s ago; threshold is 3m0s"`
          : `${pre}E${md} ${hms}.${us}    ${pid} remote_runtime.go:356] "ListPodSandbox with filter from runtime service failed" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded" filter="nil"`);
      }
    }
    const chunk = `${lines.join('\n')}\n`;
    writeSync(fd, chunk);
    written += Buffer.byteLength(chunk);
  }
  closeSync(fd);
  renameSync(`${file}.tmp`, file);
}

function timed(argv, rssFile) {
  const pre = rssFile && existsSync('/usr/bin/time') ? ['/usr/bin/time', '-f', '%M %U %S', '-o', rssFile] : [];
  const all = [...pre, ...argv];
  const t0 = process.hrtime.bigint();
  const r = spawnSync(all[0], all.slice(1), { maxBuffer: 1 << 30 });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${argv.join(' ')} exited ${r.status}: ${String(r.stderr).slice(0, 300)}`);
  if (!pre.length) return { s, rssMB: null, cpu: null, stdout: String(r.stdout) };
  const [kb, u, sys] = readFileSync(rssFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
  return { s, rssMB: kb / 1024, cpu: u + sys, stdout: String(r.stdout) };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

mkdirSync(OUT, { recursive: true });
const rows = [];
for (const mib of sizes) {
  const file = join(OUT, `dense-${mib}MiB-v${GEN_VERSION}.log`);
  if (!existsSync(file)) {
    log(`writing ${file}`);
    generate(file, mib);
  }
  const bytes = statSync(file).size;
  const ours = [];
  const theirs = [];
  const cpu = [];
  let rss = 0;
  let count = null;
  for (let i = 0; i < runs; i++) {
    const a = timed([process.execPath, BIN, 'analyze', file, '--format', 'json'], join(OUT, 'dense-rss.txt'));
    const b = timed(['grep', '-F', '-c', 'PLEG is not healthy', file]);
    ours.push(a.s);
    theirs.push(b.s);
    if (a.cpu !== null) cpu.push(a.cpu);
    rss = Math.max(rss, a.rssMB ?? 0);
    count = Number(b.stdout.trim());
    log(`${mib} MiB run ${i + 1}: plegscope ${a.s.toFixed(2)} s (cpu ${a.cpu?.toFixed(2) ?? '?'} s), grep -F -c ${b.s.toFixed(2)} s`);
  }
  const mb = bytes / 2 ** 20;
  rows.push({
    mib: +mb.toFixed(0), plegscopeS: +median(ours).toFixed(2), grepS: +median(theirs).toFixed(2), ratio: +(median(ours) / median(theirs)).toFixed(1),
    msPerMiB: +((median(ours) * 1000) / mb).toFixed(1), cpuMsPerMiB: cpu.length ? +((median(cpu) * 1000) / mb).toFixed(1) : null, peakRssMB: rss ? Math.round(rss) : null, grepCount: count,
  });
}
for (const r of rows) {
  console.log(`dense ${r.mib} MiB: plegscope ${r.plegscopeS} s, grep -F -c ${r.grepS} s: ${r.ratio}× grep (goal <= 10); ${r.msPerMiB} ms/MiB wall, ${r.cpuMsPerMiB ?? '?'} ms/MiB CPU; peak RSS ${r.peakRssMB ?? '?'} MB (goal <= 200)`);
}
const first = rows[0];
const last = rows[rows.length - 1];
const growth = first && last && first.cpuMsPerMiB && last.cpuMsPerMiB ? +(last.cpuMsPerMiB / first.cpuMsPerMiB).toFixed(2) : null;
console.log(`CPU per MiB at ${last?.mib} MiB / at ${first?.mib} MiB: ${growth ?? '?'} (goal <= 1.2)`);
console.log(JSON.stringify({ bench: 'dense', rows, cpuPerMiBGrowth: growth }));
