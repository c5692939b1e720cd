#!/usr/bin/env node
// `npm run bench`: plegscope's speed where users are (issue 18), every figure against a yardstick in the same run.
//
// 1. Throughput on one thread against `grep -F -c` for the PLEG keywords, on generated kubelet journals of 100 MiB,
//    500 MiB, 1 GiB and 2 GiB: plegscope pinned to one core (`taskset -c 0`, else PLEGSCOPE_WORKERS=0), grep likewise,
//    run in turn (A B A B …) on a warm page cache; the ratio of their throughputs is taken pair by pair and the median
//    is printed (goal ≥ 0.5), with plegscope's peak RSS (goal ≤ 200 MB) and its stalls against the generator's truth.
// 2. Start-up on a small input: bench/startup.mjs (next in `npm run bench`), against `node -e 0` with and without
//    NODE_EXTRA_CA_CERTS.
// 3. Threads: the default (workers as plegscope chooses them) against one thread (PLEGSCOPE_WORKERS=0) on the 1 GiB
//    journal, with both cores free and with one core busy (a spinning process pinned to the last core); median ratio
//    of wall times (goal ≤ 1: the default never costs more).
// 4. Deterministic counters of the prefilter over the 100 MiB journal (no timing): positions the walk stepped on,
//    candidates, candidates left after the start-gram test, matches; per MiB.
// Then one JSON line for CI logs.
//
//   node bench/run.mjs                  generate the journals if needed (bench/out/, git-ignored), then measure
//   node bench/run.mjs --generate-only  only make the journals
//   BENCH_SIZES=100,500                 the journal sizes in MiB (default 100,500,1024,2048)
//   BENCH_RUNS=5                        pairs per measurement (default 5; 20 for the start-up, which is short)
//   BENCH_NO_GNU_TIME=1                 measure peak RSS with the in-process preload even if /usr/bin/time exists

import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
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
const BIN = join(ROOT, 'bin', 'plegscope');
const GOALS = { throughputRatioAtLeast: 0.5, threadsRatioAtMost: 1, peakRssBelowMB: 200 };

const args = new Set(process.argv.slice(2));
const sizes = (process.env.BENCH_SIZES || '100,500,1024,2048').split(',').map(Number);
const runs = Math.max(1, Number(process.env.BENCH_RUNS || 5));
if (!sizes.every((s) => s >= 1)) { console.error('bench: BENCH_SIZES must be sizes in MiB, comma-separated'); process.exit(2); }

const log = (...a) => console.error('[bench]', ...a);

/** Bytes per simulated millisecond of this mix in steady state (hours 1..5, after the boot burst); places the stalls. */
function calibrate() {
  const size = (h) => { let n = 0; for (const line of generateKubeletJournal({ ...MIX, start: START, durationMs: h * 3600e3 })) n += line.length + 1; return n; };
  return (size(5) - size(1)) / (4 * 3600e3);
}

/** A journal of `mib` MiB with two stalls (hung runtime, then one stuck container); reused when it already exists. */
async function ensureJournal(mib) {
  const name = `kubelet-${mib}MiB`;
  const file = join(OUT, `${name}.log`);
  const meta = join(OUT, `${name}.truth.json`);
  const target = Math.round(mib * MiB);
  const key = JSON.stringify({ GEN_VERSION, target, MIX });
  if (existsSync(file) && existsSync(meta)) {
    try {
      const m = JSON.parse(readFileSync(meta, 'utf8'));
      if (m.key === key && statSync(file).size === m.truth.bytes) { log(`reusing ${relative(ROOT, file)}`); return { file, truth: m.truth }; }
    } catch { /* regenerate */ }
  }
  mkdirSync(OUT, { recursive: true });
  const perMs = calibrate();
  const est = target / perMs;
  const stalls = [
    { at: START + Math.round(est * 0.35), durationMs: 14 * 60e3, cause: 'list_timeout', endedBy: 'recovered' },
    { at: START + Math.round(est * 0.7), durationMs: 12 * 60e3, cause: 'container_status_timeout', endedBy: 'recovered' },
  ];
  log(`generating ${relative(ROOT, file)}: ${mib} MiB, ~${(est / 3600e3).toFixed(1)} h of kubelet log, 2 stalls`);
  const truth = await writeJournal(file, { ...MIX, start: START, durationMs: Math.round(est * 1.4), targetBytes: target, stalls });
  const slim = { ...truth, incidents: truth.incidents.map(({ calls, relists, relistOk, ...rest }) => rest) };
  writeFileSync(meta, `${JSON.stringify({ key, truth: slim }, null, 1)}\n`);
  return { file, truth: slim };
}

const hasTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
const TIME = existsSync('/usr/bin/time') && !process.env.BENCH_NO_GNU_TIME ? '/usr/bin/time' : null;
const PRELOAD = join(OUT, 'rss-preload.mjs');

/**
 * Runs a command once: wall seconds, exit status, stdout (when asked), and the peak RSS of the node process it runs
 * (GNU time, else a preload reporting process.resourceUsage().maxRSS) when `rss`.
 */
function runOnce({ argv, env = {}, pin = false, rss = false, stdout = null }) {
  const rssFile = join(OUT, `rss-${process.pid}.txt`);
  rmSync(rssFile, { force: true });
  let cmd = argv;
  let extraEnv = {};
  if (rss && argv[0] === process.execPath) {
    if (TIME) cmd = [TIME, '-f', '%M', '-o', rssFile, ...argv];
    else {
      writeFileSync(PRELOAD, "import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => { try { writeFileSync(process.env.BENCH_RSS_FILE, String(process.resourceUsage().maxRSS)); } catch {} });\n");
      cmd = [argv[0], '--import', PRELOAD, ...argv.slice(1)];
      extraEnv = { BENCH_RSS_FILE: rssFile };
    }
  }
  if (pin && hasTaskset) cmd = ['taskset', '-c', '0', ...cmd];
  const fd = stdout ? openSync(stdout, 'w') : openSync('/dev/null', 'w');
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd[0], cmd.slice(1), { stdio: ['ignore', fd, 'pipe'], env: { ...process.env, ...env, ...extraEnv }, encoding: 'utf8', maxBuffer: 64 * MiB });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  closeSync(fd);
  let rssMiB = null;
  if (rss) {
    try { rssMiB = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop()) / 1024; } catch { /* unknown */ }
    rmSync(rssFile, { force: true });
  }
  const ok = !r.error && (r.status === 0 || r.status === 1);
  return { ok, wall, rssMiB, error: ok ? null : (r.error?.message || r.stderr || `exit ${r.status}`).trim().split('\n').slice(-2).join(' | ') };
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };

/** A and B in turn, `n` pairs after one warm-up pair: per-pair A/B wall ratios, A's and B's walls, A's peak RSS. */
function paired(a, b, n) {
  runOnce(a);
  runOnce(b);
  const out = { ratios: [], a: [], b: [], rss: [], error: null };
  for (let i = 0; i < n; i++) {
    const x = runOnce(a);
    const y = runOnce(b);
    if (!x.ok || !y.ok) { out.error = x.error ?? y.error; break; }
    out.ratios.push(x.wall / y.wall);
    out.a.push(x.wall);
    out.b.push(y.wall);
    if (x.rssMiB !== null) out.rss.push(x.rssMiB);
  }
  return out;
}

/** Reads the file once so every timed run sees the same (warm) page cache. */
function warm(file) {
  spawnSync('cat', [file], { stdio: ['ignore', 'ignore', 'ignore'] });
}

const analyzeArgv = (file, format = 'json') => [process.execPath, BIN, 'analyze', file, '--format', format, '--year', '2024', '--tz', 'UTC'];

/** Stalls in the report plegscope writes for `file` (checked against the generator's truth). */
function stallsOf(file) {
  const report = join(OUT, 'last-analysis.json');
  const r = runOnce({ argv: analyzeArgv(file), env: { PLEGSCOPE_WORKERS: '0' }, stdout: report });
  if (!r.ok) return { error: r.error };
  try {
    const a = JSON.parse(readFileSync(report, 'utf8'));
    return { stalls: a.nodes.reduce((n, x) => n + (x.stalls?.length ?? 0), 0) };
  } catch (e) {
    return { error: `no valid JSON report (${e.message})` };
  }
}

/** The prefilter's own counters over a file (in this process, no timing): what it did per MiB. */
async function counters(file) {
  const { buildPrefilter } = await import('../dist/signals/extract.js');
  const { MatchList } = await import('../dist/parse/multisearch.js');
  const { search } = buildPrefilter([]);
  const before = { ...search.stats };
  const buf = Buffer.allocUnsafe(MiB);
  const out = new MatchList();
  const fd = openSync(file, 'r');
  let bytes = 0;
  let matches = 0;
  for (let n; (n = readSync(fd, buf, 0, buf.length, bytes)) > 0; bytes += n) {
    out.length = 0;
    search.findAll(buf, 0, n, out);
    matches += out.length;
  }
  closeSync(fd);
  const per = (k) => Math.round((search.stats[k] - before[k]) / (bytes / MiB));
  return { mib: bytes / MiB, stepsPerMiB: per('steps'), candidatesPerMiB: per('candidates'), afterStartGramPerMiB: per('verified'), matchesPerMiB: Math.round(matches / (bytes / MiB)), needles: search.needles.length };
}

/** Keeps the last core busy (a spinning node process, pinned there when taskset exists) until stopped. */
function hog() {
  const last = String(availableParallelism() - 1);
  const argv = [process.execPath, '-e', 'for (;;) {}'];
  const child = hasTaskset ? spawn('taskset', ['-c', last, ...argv], { stdio: 'ignore' }) : spawn(argv[0], argv.slice(1), { stdio: 'ignore' });
  return () => child.kill('SIGKILL');
}

const journals = [];
for (const mib of sizes) journals.push({ mib, ...(await ensureJournal(mib)) });
if (args.has('--generate-only')) {
  console.log(JSON.stringify({ generated: journals.map((j) => ({ file: relative(ROOT, j.file), bytes: j.truth.bytes, lines: j.truth.lines })) }));
  process.exit(0);
}
if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) { console.error('bench: dist/ is missing: run "npm run build" (npm run bench does)'); process.exit(2); }

const f = (v, d = 2) => (v == null || !Number.isFinite(v) ? '-' : v.toFixed(d));
const oneThread = hasTaskset ? 'one core (taskset -c 0, PLEGSCOPE_WORKERS=0)' : 'PLEGSCOPE_WORKERS=0 (taskset not available: not pinned)';
const grepArgv = (file) => ['grep', '-F', '-c', ...KEYWORDS.flatMap((k) => ['-e', k]), file];

// 1. Throughput against grep.
const through = [];
for (const j of journals) {
  warm(j.file);
  log(`${relative(ROOT, j.file)}: plegscope and grep -F -c in turn, ${runs} pairs`);
  const p = paired(
    { argv: analyzeArgv(j.file), env: { PLEGSCOPE_WORKERS: '0' }, pin: true, rss: true },
    // (Its count goes to a file: with stdout on /dev/null GNU grep stops at the first match.)
    { argv: grepArgv(j.file), pin: true, stdout: join(OUT, 'grep-count.txt') },
    runs,
  );
  const bytes = statSync(j.file).size;
  const st = stallsOf(j.file);
  through.push({
    mib: j.mib, error: p.error ?? st.error ?? null,
    // Throughput ratio = grep's wall / plegscope's wall, pair by pair.
    ratio: p.ratios.length ? 1 / median(p.ratios) : null,
    plegscopeMiBps: p.a.length ? bytes / MiB / median(p.a) : null,
    grepMiBps: p.b.length ? bytes / MiB / median(p.b) : null,
    peakRssMiB: p.rss.length ? Math.max(...p.rss) : null,
    stalls: st.stalls ?? null, expected: j.truth.stalls.length,
  });
}

// 3. Threads: the default against one thread, on the 1 GiB journal (or the largest given below it).
const tj = journals.find((j) => j.mib === 1024) ?? journals[journals.length - 1];
const threads = {};
for (const busy of [false, true]) {
  log(`${relative(ROOT, tj.file)}: default and PLEGSCOPE_WORKERS=0 in turn, ${busy ? 'one core busy' : 'both cores free'}, ${runs} pairs`);
  const stop = busy ? hog() : () => undefined;
  try {
    const envDefault = { ...process.env };
    delete envDefault.PLEGSCOPE_WORKERS;
    const p = paired({ argv: analyzeArgv(tj.file), env: envDefault, rss: true }, { argv: analyzeArgv(tj.file), env: { PLEGSCOPE_WORKERS: '0' } }, runs);
    threads[busy ? 'oneBusy' : 'bothFree'] = { ratio: p.ratios.length ? median(p.ratios) : null, defaultS: median(p.a), oneThreadS: median(p.b), peakRssMiB: p.rss.length ? Math.max(...p.rss) : null, error: p.error };
  } finally {
    stop();
  }
}

// 4. Counters.
const cnt = await counters(journals[0].file);

const rows = through.map((t) => ({
  input: `${t.mib} MiB journal`, 'grep MiB/s': f(t.grepMiBps, 0), 'plegscope MiB/s': f(t.plegscopeMiBps, 0),
  'throughput ratio': f(t.ratio), goal: `>= ${GOALS.throughputRatioAtLeast}`, 'peak RSS MiB': f(t.peakRssMiB, 0),
  note: t.error ? `error: ${t.error.slice(0, 120)}` : `stalls ${t.stalls}/${t.expected} of ground truth`,
}));
const table = (rs) => {
  const cols = Object.keys(rs[0]);
  const w = cols.map((c) => Math.max(c.length, ...rs.map((r) => String(r[c]).length)));
  const line = (vals) => vals.map((v, i) => String(v).padEnd(w[i])).join('  ');
  return [line(cols), line(w.map((n) => '-'.repeat(n))), ...rs.map((r) => line(cols.map((c) => r[c])))].join('\n');
};
console.log(`Throughput on one thread, ${oneThread}; grep -F -c likewise; median of ${runs} pairs run in turn`);
console.log(table(rows));
console.log(`\nThreads on ${tj.mib} MiB (${availableParallelism()} cores; default/one-thread wall, goal <= ${GOALS.threadsRatioAtMost})${availableParallelism() < 3 ? ': on one or two cores the default is one thread (README "Cores to spare"), so both runs are the same program and the ratio is the machine\'s noise' : ''}:`);
for (const [k, v] of Object.entries(threads)) {
  console.log(`  ${k === 'bothFree' ? 'both cores free' : 'one core busy  '}  default ${f(v.defaultS, 3)} s, one thread ${f(v.oneThreadS, 3)} s: ratio ${f(v.ratio)}${v.error ? ` (error: ${v.error})` : ''}`);
}
console.log(`\nPrefilter over ${f(cnt.mib, 0)} MiB (${cnt.needles} needles), per MiB: ${cnt.stepsPerMiB} positions stepped on, ${cnt.candidatesPerMiB} candidates, ${cnt.afterStartGramPerMiB} after the start-gram test, ${cnt.matchesPerMiB} matches`);

const pass = through.every((t) => t.ratio !== null && t.ratio >= GOALS.throughputRatioAtLeast && t.peakRssMiB !== null && t.peakRssMiB * MiB <= GOALS.peakRssBelowMB * 1e6)
  && Object.values(threads).every((t) => t.ratio !== null && t.ratio <= GOALS.threadsRatioAtMost);
console.log(JSON.stringify({
  bench: 'plegscope-speed', runs, pinned: hasTaskset, rssMeasuredWith: TIME ? '/usr/bin/time -f %M' : 'process.resourceUsage().maxRSS',
  throughput: through.map((t) => ({ mib: t.mib, ratio: t.ratio && Number(f(t.ratio, 3)), grepMiBps: t.grepMiBps && Number(f(t.grepMiBps, 0)), plegscopeMiBps: t.plegscopeMiBps && Number(f(t.plegscopeMiBps, 0)), peakRssMiB: t.peakRssMiB && Number(f(t.peakRssMiB, 1)), stalls: t.stalls, expected: t.expected })),
  threads: Object.fromEntries(Object.entries(threads).map(([k, v]) => [k, { ratio: v.ratio && Number(f(v.ratio, 3)), defaultS: Number(f(v.defaultS, 3)), oneThreadS: Number(f(v.oneThreadS, 3)) }])),
  counters: cnt, goals: GOALS, pass,
  errors: [...through.filter((t) => t.error).map((t) => t.error), ...Object.values(threads).map((t) => t.error)].filter(Boolean),
}));
