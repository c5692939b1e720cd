#!/usr/bin/env node
// plegscope on a sosreport .tar.xz whose kubelet journal is ≥ 200 MB, against `xz -dc | grep -F -c` on the same
// archive (issue 4: bundles are read in place, streamed, with flat memory). Separate from bench/run.mjs, which
// measures loose journals.
//
//   node bench/bundle.mjs                   generate if needed (bench/out/bundle/, git-ignored), then measure
//   BENCH_BUNDLE_MB=300 node bench/bundle.mjs   size of the kubelet journal inside, in MiB (default 220)
//   BENCH_RUNS=3                            timed runs per measurement; the best is reported (default 1)
//
// Needs `npm run build` first (dist/), and the xz tool.

import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync, openSync, closeSync } from 'node:fs';
import { once } from 'node:events';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import tar from 'tar-stream';
import { generateKubeletJournal, writeJournal } from '../test/support/journal-gen.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'bench', 'out', 'bundle');
const MiB = 2 ** 20;
const GEN_VERSION = 1;
const START = Date.UTC(2024, 2, 11, 9, 0, 0);
const KEYWORDS = ['PLEG is not healthy', 'runtime service failed', 'Unable to retrieve pods', 'NodeNotReady'];
const MIX = { style: 'structured', envelope: 'short', host: 'worker-3', rate: 6, pods: 60, crashLoopPods: 2, seed: 'bench-bundle-v1' };
const mib = Number(process.env.BENCH_BUNDLE_MB || 220);
const runs = Math.max(1, Number(process.env.BENCH_RUNS || 1));
const log = (...a) => console.error('[bench:bundle]', ...a);

if (spawnSync('xz', ['--version']).status !== 0) {
  console.error('bench:bundle: needs the xz tool');
  process.exit(2);
}

const NAME = 'sosreport-worker-3-2024-03-11-benchmk';
const archive = join(OUT, `${NAME}.tar.xz`);
const journal = join(OUT, 'kubelet-journal.log');
const meta = join(OUT, 'bundle.json');

async function ensure() {
  const key = JSON.stringify({ GEN_VERSION, mib, MIX });
  if (existsSync(archive) && existsSync(meta)) {
    try {
      const m = JSON.parse(readFileSync(meta, 'utf8'));
      if (m.key === key && statSync(archive).size === m.archiveBytes) {
        log(`reusing ${relative(ROOT, archive)}`);
        return m;
      }
    } catch { /* regenerate */ }
  }
  mkdirSync(OUT, { recursive: true });
  const target = Math.round(mib * MiB);
  log(`generating a ${mib} MiB kubelet journal`);
  // Bytes per hour of this mix in steady state, so that the stalls land inside the journal; targetBytes cuts it exactly.
  const size = (h) => { let n = 0; for (const line of generateKubeletJournal({ ...MIX, start: START, durationMs: h * 3600e3 })) n += line.length + 1; return n; };
  const perHour = (size(3) - size(1)) / 2;
  const span = (target / perHour) * 1.3 * 3600e3;
  const truth = await writeJournal(journal, {
    ...MIX, start: START, durationMs: Math.round(span), targetBytes: target,
    stalls: [
      { at: START + Math.round(span * 0.2), durationMs: 14 * 60e3, cause: 'list_timeout', endedBy: 'recovered' },
      { at: START + Math.round(span * 0.4), durationMs: 12 * 60e3, cause: 'container_status_timeout', endedBy: 'recovered' },
    ],
  });
  const jBytes = statSync(journal).size;
  const collected = new Date(START + span + 3600e3);
  const day = collected.toISOString().slice(0, 10);
  const hms = collected.toISOString().slice(11, 19);
  const small = {
    'version.txt': 'sos report: 4.9.0\n',
    'sos_commands/host/hostname': 'worker-3\n',
    'sos_commands/systemd/timedatectl': `               Local time: Mon ${day} ${hms} UTC\n           Universal time: Mon ${day} ${hms} UTC\n                Time zone: Etc/UTC (UTC, +0000)\n`,
    'sos_reports/manifest.json': JSON.stringify({ version: '4.9.0', components: { report: { plugins: {} } } }),
    'sos_commands/containerd/journalctl_--no-pager_--unit_containerd': 'Mar 11 09:00:00 worker-3 containerd[911]: time="2024-03-11T09:00:00.000000000Z" level=info msg="starting containerd" version=1.7.13\n',
    'sos_commands/kernel/dmesg_-T': '[Mon Mar 11 09:00:00 2024] eth0: Link is Up - 10Gbps/Full\n',
  };
  log(`packing ${relative(ROOT, archive)} (tar | xz -T0 -3)`);
  const pack = tar.pack();
  const xz = spawn('xz', ['-T0', '-3', '-c'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const out = createWriteStream(archive);
  xz.stdout.pipe(out);
  pack.pipe(xz.stdin);
  const mtime = collected;
  const add = (name, data) => new Promise((res, rej) => pack.entry({ name: `${NAME}/${name}`, mtime }, data, (e) => (e ? rej(e) : res())));
  for (const [n, d] of Object.entries(small)) await add(n, d);
  await new Promise((res, rej) => {
    const entry = pack.entry({ name: `${NAME}/sos_commands/kubernetes/journalctl_--no-pager_--unit_kubelet`, size: jBytes, mtime }, (e) => (e ? rej(e) : res()));
    createReadStream(journal).pipe(entry);
  });
  pack.finalize();
  await once(out, 'finish');
  rmSync(journal, { force: true });
  const m = { key, archiveBytes: statSync(archive).size, journalBytes: jBytes, stalls: truth.stalls.length, lines: truth.lines };
  writeFileSync(meta, `${JSON.stringify(m)}\n`);
  log(`  journal ${(jBytes / MiB).toFixed(0)} MiB → archive ${(m.archiveBytes / MiB).toFixed(1)} MiB`);
  return m;
}

function timeIt(cmd, argv, stdoutFile) {
  const fd = stdoutFile ? openSync(stdoutFile, 'w') : null;
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { stdio: ['ignore', fd ?? 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 64 * MiB });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  if (fd !== null) closeSync(fd);
  return { ...r, wall };
}

const m = await ensure();
const grepCmd = `xz -dc -T0 ${JSON.stringify(archive)} | grep -a -F -c ${KEYWORDS.map((k) => `-e ${JSON.stringify(k)}`).join(' ')}`;
let grep = null;
for (let i = 0; i < runs + 1; i++) {
  const r = timeIt('bash', ['-o', 'pipefail', '-c', grepCmd]);
  if (i === 0) continue; // warm-up: page cache
  if (!grep || r.wall < grep.wall) grep = { wall: r.wall, matches: Number(String(r.stdout).trim()), status: r.status };
}

const report = join(OUT, 'last-analysis.json');
const rssFile = join(OUT, 'rss.txt');
const preload = join(OUT, 'rss-preload.mjs');
writeFileSync(preload, "import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => { try { writeFileSync(process.env.BENCH_RSS_FILE, String(process.resourceUsage().maxRSS)); } catch {} });\n");
let pleg = null;
for (let i = 0; i < runs; i++) {
  rmSync(rssFile, { force: true });
  const bin = join(ROOT, 'bin', 'plegscope');
  const argv = [bin, 'analyze', archive, '--format', 'json'];
  process.env.BENCH_RSS_FILE = rssFile;
  // The plegscope process's own peak (resourceUsage): GNU time's %M would report the largest of the process tree,
  // which is the `xz -T0` decoder plegscope spawns (its threads' buffers), not plegscope.
  const r = timeIt(process.execPath, ['--import', preload, ...argv], report);
  let stalls = null;
  let kubeletLines = null;
  try {
    const a = JSON.parse(readFileSync(report, 'utf8'));
    stalls = a.nodes.reduce((n, x) => n + x.stalls.length, 0);
    kubeletLines = a.inputs[0].artifacts.find((x) => x.role === 'kubelet-log')?.lines ?? null;
  } catch (e) {
    console.error(`bench:bundle: no JSON report (exit ${r.status}): ${(r.stderr || e.message).trim().split('\n').slice(-3).join(' | ')}`);
    process.exit(1);
  }
  let rssKiB = null;
  try { rssKiB = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop()); } catch { /* unknown */ }
  if (!pleg || r.wall < pleg.wall) pleg = { wall: r.wall, rssMiB: rssKiB ? rssKiB / 1024 : null, stalls, kubeletLines, status: r.status };
}

const jm = m.journalBytes / MiB;
const rows = [
  ['tool', 'wall s', 'journal MiB/s', 'peak RSS MiB', 'note'],
  ['xz -dc | grep -F -c', grep.wall.toFixed(2), (jm / grep.wall).toFixed(0), '-', `${grep.matches} matching lines`],
  ['plegscope analyze', pleg.wall.toFixed(2), (jm / pleg.wall).toFixed(0), pleg.rssMiB?.toFixed(0) ?? '?', `${pleg.stalls}/${m.stalls} stalls, ${pleg.kubeletLines} journal lines; ${((grep.wall / pleg.wall) * 100).toFixed(0)}% of grep's throughput`],
];
const w = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
console.log(`${relative(ROOT, archive)}: ${(m.archiveBytes / MiB).toFixed(1)} MiB compressed, kubelet journal ${jm.toFixed(0)} MiB`);
for (const r of rows) console.log(r.map((c, i) => String(c).padEnd(w[i])).join('  '));
console.log(JSON.stringify({
  bench: 'plegscope-bundle-vs-xz-grep', archiveMiB: +(m.archiveBytes / MiB).toFixed(1), journalMiB: +jm.toFixed(1),
  grepSeconds: +grep.wall.toFixed(3), plegscopeSeconds: +pleg.wall.toFixed(3), ratio: +(grep.wall / pleg.wall).toFixed(3),
  peakRssMiB: pleg.rssMiB ? +pleg.rssMiB.toFixed(1) : null, stallsFound: pleg.stalls, stallsExpected: m.stalls,
  pass: grep.wall / pleg.wall >= 0.25 && (pleg.rssMiB ?? Infinity) < 200e6 / MiB && pleg.stalls === m.stalls,
}));
