#!/usr/bin/env node
// `npm run bench`: plegscope's throughput and memory against `grep -F` on the same large kubelet journal.
//
// design.md §7 sets the bar: throughput at least a quarter of grep -F scanning for the PLEG keywords, and peak RSS
// under 200 MB whether the input is 10 MB or 2 GB. This script generates the inputs (bench/out/, git-ignored,
// reused when already there with the same parameters), runs both tools on a warm page cache and prints a table and
// one JSON line for CI logs.
//
//   node bench/run.mjs                  generate if needed, then measure
//   node bench/run.mjs --generate-only  only make the journals (works before the CLI exists)
//   BENCH_MB=600 node bench/run.mjs     size of the journal timed against grep, in MiB (default 1024)
//   BENCH_HUGE_MB=2048                  the journal whose peak RSS is measured too (default 2048; 0 skips it)
//   BENCH_RUNS=3                        timed runs per measurement; the best one is reported (default 1)
//   BENCH_NO_GNU_TIME=1                 measure peak RSS with the in-process preload even if /usr/bin/time exists

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync, openSync, closeSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeJournal, generateKubeletJournal } from '../test/support/journal-gen.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'bench', 'out');
const MiB = 2 ** 20;
const GEN_VERSION = 3; // bump when the generator's output changes, so stale journals are regenerated
const START = Date.UTC(2024, 2, 11, 9, 0, 0);
const KEYWORDS = ['PLEG is not healthy', 'runtime service failed', 'Unable to retrieve pods', 'NodeNotReady'];
const MIX = { style: 'structured', envelope: 'short', host: 'worker-3', rate: 6, pods: 60, crashLoopPods: 2, seed: 'bench-v1' };

const args = new Set(process.argv.slice(2));
const bigMiB = Number(process.env.BENCH_MB || 1024);
const hugeMiB = Number(process.env.BENCH_HUGE_MB ?? 2048);
const runs = Math.max(1, Number(process.env.BENCH_RUNS || 1));
if (!(bigMiB >= 1)) { console.error('bench: BENCH_MB must be a positive number'); process.exit(2); }

const log = (...a) => console.error('[bench]', ...a);

/** Bytes per simulated millisecond of this mix in steady state (hours 1..5, after the boot burst); places the stalls. */
function calibrate() {
  const size = (h) => { let n = 0; for (const line of generateKubeletJournal({ ...MIX, start: START, durationMs: h * 3600e3 })) n += line.length + 1; return n; };
  return (size(5) - size(1)) / (4 * 3600e3);
}

/** A journal of `mib` MiB with two stalls (hung runtime, then one stuck container); reused when it already exists. */
async function ensureJournal(name, mib) {
  const file = join(OUT, `${name}.log`);
  const meta = join(OUT, `${name}.truth.json`);
  const target = Math.round(mib * MiB);
  const key = JSON.stringify({ GEN_VERSION, target, MIX });
  if (existsSync(file) && existsSync(meta)) {
    try {
      const m = JSON.parse(readFileSync(meta, 'utf8'));
      if (m.key === key && statSync(file).size === m.truth.bytes) { log(`reusing ${relative(ROOT, file)} (${(m.truth.bytes / MiB).toFixed(0)} MiB)`); return { file, truth: m.truth }; }
    } catch { /* regenerate */ }
  }
  mkdirSync(OUT, { recursive: true });
  const perMs = calibrate();
  const spanMs = (target / perMs) * 1.4; // longer than needed: targetBytes cuts the end exactly
  const est = target / perMs;
  const stalls = [
    { at: START + Math.round(est * 0.35), durationMs: 14 * 60e3, cause: 'list_timeout', endedBy: 'recovered' },
    { at: START + Math.round(est * 0.7), durationMs: 12 * 60e3, cause: 'container_status_timeout', endedBy: 'recovered' },
  ];
  log(`generating ${relative(ROOT, file)}: ${mib} MiB, ~${(est / 3600e3).toFixed(1)} h of kubelet log, 2 stalls`);
  const t0 = performance.now();
  const truth = await writeJournal(file, { ...MIX, start: START, durationMs: Math.round(spanMs), targetBytes: target, stalls });
  const dt = (performance.now() - t0) / 1000;
  log(`  ${(truth.bytes / MiB).toFixed(1)} MiB, ${truth.lines} lines in ${dt.toFixed(1)} s (${(truth.bytes / MiB / dt).toFixed(0)} MiB/s); stalls: ${truth.stalls.length}`);
  const slim = { ...truth, incidents: truth.incidents.map(({ calls, relists, relistOk, ...rest }) => rest) };
  writeFileSync(meta, `${JSON.stringify({ key, truth: slim }, null, 1)}\n`);
  return { file, truth: slim };
}

/** Reads the file once so every timed run sees the same (warm) page cache. */
function warm(file) {
  spawnSync('cat', [file], { stdio: ['ignore', 'ignore', 'ignore'] });
}

function timeIt(cmd, argv, { stdout = 'ignore', env } = {}) {
  // 'pipe' captures; a path sends stdout to that file (the JSON report is small, unlike the input)
  const fd = stdout === 'ignore' ? openSync('/dev/null', 'w') : stdout === 'pipe' ? null : openSync(stdout, 'w');
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { stdio: ['ignore', fd ?? 'pipe', 'pipe'], env: env ?? process.env, maxBuffer: 64 * MiB, encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  if (fd != null) closeSync(fd);
  return { ...r, wall };
}

function grepBench(file, size) {
  const argv = ['-F', '-c', ...KEYWORDS.flatMap((k) => ['-e', k]), file];
  timeIt('grep', argv, { stdout: 'pipe' }); // warm-up run
  let best = null;
  for (let i = 0; i < runs; i++) {
    const r = timeIt('grep', argv, { stdout: 'pipe' });
    if (r.status !== 0 && r.status !== 1) return { ok: false, error: (r.stderr || `exit ${r.status}`).trim() };
    if (!best || r.wall < best.wall) best = { ok: true, wall: r.wall, matches: Number(String(r.stdout).trim()) };
  }
  return { ...best, mibps: size / MiB / best.wall };
}

const TIME = existsSync('/usr/bin/time') && !process.env.BENCH_NO_GNU_TIME ? '/usr/bin/time' : null;

/** Peak RSS of the node process: GNU time when present, else a preload that reports process.resourceUsage().maxRSS. */
function plegscopeBench(file, size, truth) {
  const bin = join(ROOT, 'bin', 'plegscope');
  const cli = ['analyze', file, '--format', 'json', '--year', '2024', '--tz', 'UTC'];
  const rssFile = join(OUT, `rss-${process.pid}.txt`);
  // The report is kept (not /dev/null) so a run that exits early with an empty or partial report is not timed as a
  // fast one; it is also compared with the generator's ground truth.
  const report = join(OUT, 'last-analysis.json');
  const preload = join(OUT, 'rss-preload.mjs');
  let best = null;
  for (let i = 0; i < runs; i++) {
    rmSync(rssFile, { force: true });
    let r;
    let how;
    if (TIME) {
      how = '/usr/bin/time -f %M';
      r = timeIt(TIME, ['-f', '%M', '-o', rssFile, process.execPath, bin, ...cli], { stdout: report });
    } else {
      how = 'process.resourceUsage().maxRSS';
      writeFileSync(preload, "import { writeFileSync } from 'node:fs';\n// written at exit so the parent can read the child's peak RSS without extra tools\nprocess.on('exit', () => { try { writeFileSync(process.env.BENCH_RSS_FILE, String(process.resourceUsage().maxRSS)); } catch {} });\n");
      r = timeIt(process.execPath, ['--import', preload, bin, ...cli], { stdout: report, env: { ...process.env, BENCH_RSS_FILE: rssFile } });
    }
    if (r.error || (r.status !== 0 && r.status !== 1)) {
      const msg = (r.error?.message || r.stderr || '').trim().split('\n').filter((l) => !/^(Command exited|\d+$)/.test(l)).slice(-3).join(' | ');
      return { ok: false, error: `exit ${r.status}${msg ? `: ${msg}` : ''}` };
    }
    let found;
    try {
      const a = JSON.parse(readFileSync(report, 'utf8'));
      if (a.schemaVersion !== 1 || !Array.isArray(a.nodes)) throw new Error('not an Analysis');
      found = a.nodes.reduce((n, x) => n + (x.stalls?.length ?? 0), 0);
    } catch (e) {
      return { ok: false, error: `exit ${r.status}, no valid JSON report (${e.message}) ${(r.stderr || '').trim().split('\n').slice(-2).join(' | ')}` };
    }
    let rssKiB = null;
    try { rssKiB = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop()); } catch { /* unknown */ }
    rmSync(rssFile, { force: true });
    if (!best || r.wall < best.wall) best = { ok: true, wall: r.wall, rssMiB: rssKiB ? rssKiB / 1024 : null, rssHow: how, stalls: found, expected: truth.stalls.length };
  }
  return { ...best, mibps: size / MiB / best.wall };
}

function table(rows) {
  const cols = Object.keys(rows[0]);
  const w = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (vals) => vals.map((v, i) => String(v).padEnd(w[i])).join('  ');
  return [line(cols), line(w.map((n) => '-'.repeat(n))), ...rows.map((r) => line(cols.map((c) => r[c])))].join('\n');
}

const big = await ensureJournal(`kubelet-${bigMiB}MiB`, bigMiB);
const small = await ensureJournal('kubelet-10MiB', 10);
// Memory must stay flat however large the journal: the 2 GB one is measured too (throughput and peak RSS).
const huge = hugeMiB > 0 && hugeMiB !== bigMiB ? await ensureJournal(`kubelet-${hugeMiB}MiB`, hugeMiB) : null;
const journals = [big, small, ...(huge ? [huge] : [])];
if (args.has('--generate-only')) {
  console.log(JSON.stringify({ generated: journals.map((j) => ({ file: relative(ROOT, j.file), bytes: j.truth.bytes, lines: j.truth.lines, stalls: j.truth.stalls.map((s) => ({ cause: s.cause, lastRelistAtMs: s.lastRelistAtMs, endedAtMs: s.endedAtMs })) })) }));
  process.exit(0);
}

if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) log('dist/cli/main.js is missing: run "npm run build" (npm run bench does); plegscope rows will show the error');
const results = [];
for (const j of journals) {
  const size = statSync(j.file).size;
  warm(j.file);
  log(`grep -F on ${relative(ROOT, j.file)}`);
  const g = grepBench(j.file, size);
  log(`plegscope analyze on ${relative(ROOT, j.file)}`);
  const p = plegscopeBench(j.file, size, j.truth);
  results.push({ file: relative(ROOT, j.file), mib: size / MiB, truth: j.truth, grep: g, plegscope: p, ratio: g.ok && p.ok ? p.mibps / g.mibps : null });
}

const f = (v, d = 2) => (v == null || !Number.isFinite(v) ? '-' : v.toFixed(d));
const rows = [];
for (const r of results) {
  rows.push({ input: r.file, 'size MiB': f(r.mib, 1), tool: 'grep -F -c', 'wall s': r.grep.ok ? f(r.grep.wall, 3) : 'error', 'MiB/s': r.grep.ok ? f(r.grep.mibps, 0) : '-', 'peak RSS MiB': '-', note: r.grep.ok ? `${r.grep.matches} matching lines` : r.grep.error });
  rows.push({ input: '', 'size MiB': '', tool: 'plegscope analyze', 'wall s': r.plegscope.ok ? f(r.plegscope.wall, 3) : 'error', 'MiB/s': r.plegscope.ok ? f(r.plegscope.mibps, 0) : '-', 'peak RSS MiB': r.plegscope.ok ? f(r.plegscope.rssMiB, 0) : '-', note: r.plegscope.ok ? `throughput ${f(r.ratio * 100, 0)}% of grep${r === results[0] ? ' (goal >= 25%)' : r.mib < 100 ? ' (start-up bound: the throughput goal is for the large journal)' : ''}; peak RSS goal < 191 MiB; stalls ${r.plegscope.stalls}/${r.plegscope.expected} of ground truth` : r.plegscope.error.slice(0, 160) });
}
console.log(table(rows));
const [rb, rs, rh] = results;
const summary = {
  bench: 'plegscope-vs-grep', runs, inputMiB: Number(f(rb.mib, 1)),
  grepMiBps: rb.grep.ok ? Number(f(rb.grep.mibps, 1)) : null,
  plegscopeMiBps: rb.plegscope.ok ? Number(f(rb.plegscope.mibps, 1)) : null,
  ratio: rb.ratio != null ? Number(f(rb.ratio, 3)) : null,
  peakRssMiB: rb.plegscope.ok && rb.plegscope.rssMiB != null ? Number(f(rb.plegscope.rssMiB, 1)) : null,
  smallPeakRssMiB: rs.plegscope.ok && rs.plegscope.rssMiB != null ? Number(f(rs.plegscope.rssMiB, 1)) : null,
  hugeMiB: rh ? Number(f(rh.mib, 1)) : null,
  hugePeakRssMiB: rh?.plegscope.ok && rh.plegscope.rssMiB != null ? Number(f(rh.plegscope.rssMiB, 1)) : null,
  rssMeasuredWith: rb.plegscope.rssHow ?? null,
  stallsFound: rb.plegscope.ok ? rb.plegscope.stalls : null, stallsExpected: rb.truth.stalls.length,
  goals: { ratioAtLeast: 0.25, peakRssBelowMiB: 200 * 1e6 / MiB },
  pass: rb.ratio != null && rb.plegscope.rssMiB != null ? rb.ratio >= 0.25 && results.every((r) => (r.plegscope.rssMiB ?? 0) * MiB < 200e6) : null,
  errors: results.flatMap((r) => [r.grep, r.plegscope].filter((x) => !x.ok).map((x) => x.error)),
};
console.log(JSON.stringify(summary));
