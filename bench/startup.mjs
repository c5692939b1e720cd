#!/usr/bin/env node
// `npm run bench:startup` (and part of `npm run bench`): plegscope's start-up on a small input, the most common real
// one (issue 27, point 4). A 50 KB kubelet excerpt analyzed as users run it (text report, stdout to /dev/null)
// against `node -e 0`, run in turn (A B A B …, one warm-up pair), the median of the pair-by-pair wall ratios.
//
// Two yardsticks, because NODE_EXTRA_CA_CERTS (set on many corporate machines) costs every Node start ~30 ms, the
// bare `node -e 0` included: with it unset (goal ≤ 2.0) and with it set (goal ≤ 1.7; the machine's own value when it
// has one, else the system's CA bundle). Inputs: the first 50 KB of a generated kubelet journal (the generator of
// bench/run.mjs) and of fixtures/sample-incident/kubelet.log. The code cache lives in bench/out/v8cache for the run
// (the warm-up pair writes it, as a user's first run does). For comparison, without the code cache
// (PLEGSCOPE_CACHE=off) and from the module tree dist/cli/main.js (how every command started before the bundle).
//
//   node bench/startup.mjs          BENCH_RUNS=20 pairs per figure (default 20)
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKubeletJournal } from '../test/support/journal-gen.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'bench', 'out');
const BIN = join(ROOT, 'bin', 'plegscope');
const CACHE = join(OUT, 'v8cache');
const KB50 = 50 * 1024;
const GOALS = { withoutCaCertsAtMost: 2.0, withCaCertsAtMost: 1.7 };
const runs = Math.max(3, Number(process.env.BENCH_RUNS || 20));
const log = (...a) => console.error('[bench:startup]', ...a);

if (!existsSync(join(ROOT, 'dist', 'plegscope.cjs'))) { console.error('bench: dist/ is missing: run "npm run build" (npm run bench does)'); process.exit(2); }
mkdirSync(OUT, { recursive: true });

/** The first 50 KB of `text`, cut after a line. */
const cut = (buf) => buf.subarray(0, buf.lastIndexOf(10, KB50 - 1) + 1);
function excerpts() {
  const gen = join(OUT, 'startup-generated-50KB.log');
  let text = '';
  for (const line of generateKubeletJournal({ style: 'structured', envelope: 'short', host: 'worker-3', rate: 6, pods: 60, crashLoopPods: 2, seed: 'bench-v1', start: Date.UTC(2024, 2, 11, 9, 0, 0), durationMs: 3600e3 })) {
    text += `${line}\n`;
    if (text.length > KB50) break;
  }
  writeFileSync(gen, cut(Buffer.from(text)));
  const fix = join(OUT, 'startup-fixture-50KB.log');
  writeFileSync(fix, cut(readFileSync(join(ROOT, 'fixtures', 'sample-incident', 'kubelet.log'))));
  return [gen, fix];
}

function wall(argv, env) {
  const fd = openSync('/dev/null', 'w');
  const t0 = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv.slice(1), { stdio: ['ignore', fd, 'pipe'], env, encoding: 'utf8' });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  closeSync(fd);
  if (r.error || (r.status !== 0 && r.status !== 1)) throw new Error(`${argv.join(' ')}: ${r.error?.message ?? r.stderr.trim().split('\n').pop()}`);
  return s;
}
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };

/** A and B in turn after one warm-up pair: the median A/B ratio and both medians (ms). */
function paired(a, b, env) {
  wall(a, env);
  wall(b, env);
  const ra = [], rb = [], ratios = [];
  for (let i = 0; i < runs; i++) {
    const x = wall(a, env);
    const y = wall(b, env);
    ra.push(x); rb.push(y); ratios.push(x / y);
  }
  return { ratio: median(ratios), ms: median(ra) * 1000, nodeMs: median(rb) * 1000 };
}

const caFile = process.env.NODE_EXTRA_CA_CERTS || ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt'].find((f) => existsSync(f));
const base = { ...process.env, PLEGSCOPE_CACHE_DIR: CACHE };
delete base.PLEGSCOPE_CACHE;
delete base.NODE_EXTRA_CA_CERTS;
const yardsticks = [['NODE_EXTRA_CA_CERTS unset', base, GOALS.withoutCaCertsAtMost]];
if (caFile) yardsticks.push([`NODE_EXTRA_CA_CERTS=${caFile}`, { ...base, NODE_EXTRA_CA_CERTS: caFile }, GOALS.withCaCertsAtMost]);
else log('no CA bundle found: the yardstick with NODE_EXTRA_CA_CERTS set is skipped');

rmSync(CACHE, { recursive: true, force: true });
// The machine's load before and after (1-minute average): the figures are only worth comparing at a low one.
const loadBefore = loadavg()[0];
const inputs = excerpts();
const node0 = [process.execPath, '-e', '0'];
const tree = (file) => [process.execPath, '--input-type=module', '-e', `import(${JSON.stringify(join(ROOT, 'dist', 'cli', 'main.js'))}).then((m) => m.main(['node', 'plegscope', 'analyze', ${JSON.stringify(file)}]))`];
const rows = [];
for (const file of inputs) {
  for (const [label, env, goal] of yardsticks) {
    log(`${relative(ROOT, file)}, ${label}: ${runs} pairs each`);
    const cached = paired([process.execPath, BIN, 'analyze', file], node0, env);
    const off = paired([process.execPath, BIN, 'analyze', file], node0, { ...env, PLEGSCOPE_CACHE: 'off' });
    const old = paired(tree(file), node0, env);
    rows.push({ input: relative(ROOT, file), yardstick: label, goal, cached, off, old, pass: cached.ratio <= goal });
  }
}

const loadAfter = loadavg()[0];
const f = (v, d = 2) => v.toFixed(d);
console.log(`Start-up: a 50 KB excerpt (text report) against node -e 0, median of ${runs} pairs run in turn (wall ratio); load average ${f(loadBefore)} → ${f(loadAfter)}`);
const table = rows.map((r) => ({
  input: r.input, yardstick: r.yardstick.replace(/=.*/, ' set'), 'node -e 0 ms': f(r.cached.nodeMs, 0), 'plegscope ms': f(r.cached.ms, 0),
  ratio: f(r.cached.ratio), goal: `<= ${r.goal}`, 'cache off': f(r.off.ratio), 'module tree': f(r.old.ratio), '': r.pass ? 'ok' : 'MISSED',
}));
const cols = Object.keys(table[0]);
const w = cols.map((c) => Math.max(c.length, ...table.map((r) => String(r[c]).length)));
const line = (vals) => vals.map((v, i) => String(v).padEnd(w[i])).join('  ');
console.log([line(cols), line(w.map((n) => '-'.repeat(n))), ...table.map((r) => line(cols.map((c) => r[c])))].join('\n'));
console.log('(cache off: PLEGSCOPE_CACHE=off; module tree: dist/cli/main.js imported as before the bundle)');
console.log(JSON.stringify({
  bench: 'plegscope-startup', runs, goals: GOALS, pass: rows.every((r) => r.pass), load: [Number(f(loadBefore)), Number(f(loadAfter))],
  rows: rows.map((r) => ({ input: r.input, yardstick: r.yardstick, ratio: Number(f(r.cached.ratio, 3)), plegscopeMs: Number(f(r.cached.ms, 1)), nodeMs: Number(f(r.cached.nodeMs, 1)), cacheOffRatio: Number(f(r.off.ratio, 3)), moduleTreeRatio: Number(f(r.old.ratio, 3)) })),
}));
