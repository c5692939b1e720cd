#!/usr/bin/env node
// Fleet row (issue 17): `plegscope scan --prometheus URL --since 7d` over 200 kubelets × 7 days scraped every 60 s.
// The relist series of every kubelet (kubelet_pleg_last_seen_seconds, kubelet_pleg_relist_duration_seconds buckets,
// _sum, _count) plus the counters scan reads for its columns (list_podsandbox calls and errors, running pods) are
// written as OpenMetrics, backfilled with `promtool tsdb create-blocks-from openmetrics`, served by Debian's prometheus
// on 127.0.0.1 (own config and storage under bench/out/fleet), and scanned: wall time and peak RSS of plegscope, and
// whether it found exactly the stalls written (start and end within one scrape).
//   node bench/fleet.mjs      BENCH_FLEET_NODES=200 BENCH_FLEET_DAYS=7 set the size; the data is reused when it exists
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const NODES = Number(process.env.BENCH_FLEET_NODES || 200);
const DAYS = Number(process.env.BENCH_FLEET_DAYS || 7);
const SCRAPE_S = 60;
const OUT = join(ROOT, 'bench', 'out', 'fleet');
const GEN_VERSION = '1';
const log = (...a) => console.error('[fleet]', ...a);

// The window ends at the last whole hour, so `--since 7d` covers it.
const END = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000;
const START = END - DAYS * 86_400_000;
const names = Array.from({ length: NODES }, (_, i) => `node-${String(i).padStart(3, '0')}`);
const LE = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10'];
const FRAC = [0.08, 0.55, 0.93, 0.985, 0.995, 0.998, 0.999, 0.9995, 1, 1, 1];

/** Every 20th kubelet stalls once or twice, 4 to 25 minutes, at times spread over the week (deterministic). */
function stallsOf(i) {
  if (i % 20 !== 7) return [];
  const out = [];
  const n = 1 + (i % 2);
  for (let k = 0; k < n; k++) {
    const at = START + Math.floor(((i * 7919 + k * 104729) % 1000) / 1000 * (END - START - 86_400_000)) + 3_600_000 + 17_000;
    out.push({ from: Math.floor(at / 1000) * 1000, to: Math.floor(at / 1000) * 1000 + (4 + ((i + k * 13) % 22)) * 60_000 + 3_000 });
  }
  return out.sort((a, b) => a.from - b.from);
}

/** The kubelet's relist state at a scrape: relists every ~1.02 s except inside a stall. */
function stateAt(t, stalls, offset) {
  let frozen = 0;
  let seen = t - 1000 - (offset % 700);
  for (const s of stalls) {
    if (t >= s.to) frozen += s.to - s.from;
    else if (t >= s.from) {
      frozen += t - s.from;
      seen = s.from;
    }
  }
  const count = Math.floor((t - START + 86_400_000 - frozen) / 1020);
  return { seen: Math.floor(seen / 1000), count };
}

async function generate(file) {
  const ws = createWriteStream(file);
  let buf = [];
  let samples = 0;
  const flush = async (force) => {
    if (buf.length < 50_000 && !force) return;
    if (!ws.write(buf.join('\n') + '\n')) await once(ws, 'drain');
    buf = [];
  };
  const metrics = [
    ['kubelet_pleg_last_seen_seconds', [''], (st) => [st.seen]],
    ['kubelet_pleg_relist_duration_seconds_bucket', [...LE, '+Inf'].map((le) => `,le="${le}"`), (st) => [...FRAC.map((f) => Math.floor(st.count * f)), st.count]],
    ['kubelet_pleg_relist_duration_seconds_count', [''], (st) => [st.count]],
    ['kubelet_pleg_relist_duration_seconds_sum', [''], (st) => [Math.round(st.count * 12.5) / 1000]],
    ['kubelet_running_pods', [''], () => [40]],
    ['kubelet_runtime_operations_errors_total', [',operation_type="list_podsandbox"'], (st, stalls, t) => [stalls.reduce((n, s) => n + (t >= s.from ? Math.floor((Math.min(t, s.to) - s.from) / 121_000) : 0), 0)]],
    ['kubelet_runtime_operations_total', [',operation_type="list_podsandbox"'], (st) => [st.count + Math.floor(st.count / 10)]],
  ];
  for (const [name, suffixes, valuesOf] of metrics) {
    for (let j = 0; j < suffixes.length; j++) {
      for (let i = 0; i < NODES; i++) {
        const stalls = stallsOf(i);
        const offset = (i * 397) % (SCRAPE_S * 1000);
        const head = `${name}{instance="10.2.${i >> 8}.${i & 255}:10250",job="kubelet",node="${names[i]}"${suffixes[j]}} `;
        for (let t = START + offset; t < END; t += SCRAPE_S * 1000) {
          buf.push(`${head}${valuesOf(stateAt(t, stalls, offset), stalls, t)[j]} ${t / 1000}`);
          samples++;
          await flush(false);
        }
      }
    }
  }
  buf.push('# EOF');
  await flush(true);
  ws.end();
  await once(ws, 'finish');
  return samples;
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
}

function peakRss(args) {
  const rss = join(OUT, 'rss.txt');
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', '-o', rss, process.execPath, join(ROOT, 'bin', 'plegscope'), ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return { wall: (performance.now() - t0) / 1000, rssMiB: Number(readFileSync(rss, 'utf8').trim().split('\n').pop()) / 1024, ...r };
}

async function main() {
  for (const b of ['prometheus', 'promtool', '/usr/bin/time']) {
    if (spawnSync(b, ['--version'], { stdio: 'ignore' }).error) throw new Error(`${b} is needed (scripts/install-test-deps.sh installs prometheus; /usr/bin/time is Debian's "time")`);
  }
  const key = JSON.stringify({ GEN_VERSION, NODES, DAYS, START });
  const data = join(OUT, 'data');
  if (!existsSync(join(OUT, 'key.json')) || readFileSync(join(OUT, 'key.json'), 'utf8') !== key) {
    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(data, { recursive: true });
    const om = join(OUT, 'fleet.om');
    let t = performance.now();
    const n = await generate(om);
    log(`wrote ${(n / 1e6).toFixed(1)} M samples (${NODES} kubelets × ${DAYS} d at ${SCRAPE_S} s) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    t = performance.now();
    const r = spawnSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', '--quiet', '--max-block-duration=24h', om, data], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`promtool: ${r.stderr}`);
    log(`backfilled in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    rmSync(om);
    writeFileSync(join(OUT, 'key.json'), key);
  } else log('reusing the backfilled data in bench/out/fleet');
  writeFileSync(join(OUT, 'prometheus.yml'), 'global:\n  scrape_interval: 60s\nscrape_configs: []\n');
  const port = await freePort();
  const proc = spawn('prometheus', [`--config.file=${join(OUT, 'prometheus.yml')}`, `--storage.tsdb.path=${data}`, `--web.listen-address=127.0.0.1:${port}`, '--storage.tsdb.retention.time=3650d', '--log.level=warn'], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  try {
    const deadline = Date.now() + 180_000;
    for (;;) {
      try { if ((await fetch(`${url}/-/ready`)).status === 200) break; } catch { /* starting */ }
      if (Date.now() > deadline || proc.exitCode !== null) throw new Error('prometheus did not start');
      await new Promise((r) => setTimeout(r, 500));
    }
    const until = new Date(END).toISOString();
    const args = ['scan', '--prometheus', url, '--since', new Date(START).toISOString(), '--until', until, '--format', 'json'];
    peakRss(args); // warm the server's caches as a second scan would
    const r = peakRss(args);
    if (r.status !== 0) throw new Error(`scan failed: ${r.stderr}`);
    const scan = JSON.parse(r.stdout);
    let expected = 0;
    let matched = 0;
    for (let i = 0; i < NODES; i++) {
      for (const s of stallsOf(i)) {
        expected++;
        const n = scan.nodes.find((x) => x.name === names[i]);
        if (n?.stalls.some((x) => Math.abs(Date.parse(x.start) - s.from) <= SCRAPE_S * 1000 && Math.abs(Date.parse(x.end) - s.to) <= SCRAPE_S * 1000)) matched++;
      }
    }
    const rel = peakRss(['scan', '--prometheus', url, '--since', '7d']);
    const row = { row: 'fleet scan', nodes: NODES, days: DAYS, scrapeSeconds: SCRAPE_S, wallSeconds: Number(r.wall.toFixed(2)), peakRssMiB: Number(r.rssMiB.toFixed(1)), stepSeconds: scan.source.stepSeconds, stalledNodes: scan.nodes.length, stallsFound: matched, stallsWritten: expected, relativeSinceWallSeconds: Number(rel.wall.toFixed(2)) };
    console.log(`fleet scan: ${NODES} kubelets × ${DAYS} d at ${SCRAPE_S} s → ${r.wall.toFixed(2)} s, peak RSS ${r.rssMiB.toFixed(1)} MiB, step ${scan.source.stepSeconds} s; ${scan.nodes.length} stalled nodes, ${matched}/${expected} stalls within one scrape`);
    console.log(JSON.stringify(row));
  } finally {
    proc.kill('SIGTERM');
    await once(proc, 'exit');
  }
}

main().catch((e) => { console.error(`fleet: ${e.message}`); process.exit(1); });
