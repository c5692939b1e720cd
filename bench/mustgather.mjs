#!/usr/bin/env node
// Both cores on independent work (issue 7): a synthetic must-gather of 200 nodes — the merged workers' kubelet log
// (short-precise, UTC, all hosts interleaved, as `oc adm node-logs` writes it), one Node YAML (~15 KB, with its image
// list, as oc writes it), one dmesg per node and CRI-O's merged service log (half the kubelet's size) — analyzed on one core (taskset -c 0) and on all of them, default
// settings both times; also on all cores with worker threads off (PLEGSCOPE_WORKERS=0), and, as a reference for what
// two cores give this work here, two processes analyzing one half of the must-gather each, at the same time (buildHalves).
// Then the same must-gather packed as a .tar.gz, next to `gzip -dc | grep -F -c` (no goal: what CI on an archive costs).
// Goal: all cores ≤ 60 % of the one-core wall time.
//   node bench/mustgather.mjs            (BENCH_MG_MB=200 sets the size of the merged log; BENCH_RUNS=5 the runs)
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, createWriteStream, existsSync, linkSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, rmSync, writeFileSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, 'out', 'mg200');
const MB = Number(process.env.BENCH_MG_MB || 200);
const NODES = 200;
const IMAGE = join(ROOT, 'must-gather.local.4242', 'quay-io-openshift-release-dev-ocp-v4-0-art-dev-sha256-' + 'ab'.repeat(32));
const LOG = join(IMAGE, 'host_service_logs', 'workers', 'kubelet_service.log');
const CRIO = join(IMAGE, 'host_service_logs', 'workers', 'crio_service.log');
const CRIO_MB = Math.round(MB / 2);
const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n) => String(n).padStart(2, '0');
const names = Array.from({ length: NODES }, (_, i) => `worker-${String(i).padStart(3, '0')}`);

function stamp(t) {
  const d = new Date(t);
  const us = String(d.getUTCMilliseconds() * 1000).padStart(6, '0');
  const hms = `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`;
  return { journal: `${MON[d.getUTCMonth()]} ${p2(d.getUTCDate())} ${hms}.${us}`, klog: `${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())} ${hms}.${us}` };
}

const GEN_VERSION = '3';
const STAMP = join(ROOT, 'generated');

/** Lines of all nodes interleaved in time order (3 ms apart), as `oc adm node-logs` merges them, up to `target` bytes. */
async function writeMerged(file, target, lineOf) {
  const out = createWriteStream(file);
  let bytes = 0;
  let t = Date.UTC(2024, 2, 11, 0, 0, 0);
  for (let k = 0; bytes < target; k++, t += 3) {
    const i = k % NODES;
    const line = lineOf(k, i, names[i], t, stamp(t)) + '\n';
    bytes += line.length;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

async function build() {
  if (existsSync(LOG) && statSync(LOG).size >= MB * 1024 * 1024 && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === GEN_VERSION) return;
  mkdirSync(join(IMAGE, 'host_service_logs', 'workers'), { recursive: true });
  mkdirSync(join(IMAGE, 'cluster-scoped-resources', 'core', 'nodes'), { recursive: true });
  mkdirSync(join(IMAGE, 'namespaces', 'default'), { recursive: true });
  writeFileSync(join(IMAGE, 'version'), 'openshift/must-gather\n4.16.0\n');
  writeFileSync(join(IMAGE, 'timestamp'), '2024-03-12 09:00:00.000000000 +0000 UTC m=+0.01\n');
  writeFileSync(join(ROOT, 'must-gather.local.4242', 'timestamp'), '2024-03-12 09:00:00.000000000 +0000 UTC m=+0.01\n');
  const stalled = new Set([7, 42, 99, 150, 199]);
  for (const [i, n] of names.entries()) {
    writeFileSync(join(IMAGE, 'cluster-scoped-resources', 'core', 'nodes', `${n}.yaml`), [
      'apiVersion: v1', 'kind: Node', 'metadata:', `  name: ${n}`, 'status:', '  conditions:', '  - type: Ready',
      `    status: "${stalled.has(i) ? 'False' : 'True'}"`, `    reason: ${stalled.has(i) ? 'KubeletNotReady' : 'KubeletReady'}`,
      `    message: '${stalled.has(i) ? 'PLEG is not healthy: pleg was last seen active 3m5.3s ago; threshold is 3m0s' : 'kubelet is posting ready status'}'`,
      '    lastTransitionTime: "2024-03-11T10:03:00Z"', '  images:',
      ...Array.from({ length: 60 }, (_, k) => [`  - names:`, `    - quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${(k.toString(16).padStart(2, '0')).repeat(32)}`, `    sizeBytes: ${400000000 + k * 7919}`]).flat(),
      '  nodeInfo:', '    kubeletVersion: v1.29.6', '    containerRuntimeVersion: cri-o://1.29.6', '',
    ].join('\n'));
    mkdirSync(join(IMAGE, 'nodes', n), { recursive: true });
    writeFileSync(join(IMAGE, 'nodes', n, 'dmesg'), Array.from({ length: 200 }, (_, k) => `[ ${(k * 3.1).toFixed(6)}] eth0: link up, 10 Gbps, full duplex ${k}`).join('\n') + '\n');
  }
  const L = Date.UTC(2024, 2, 11, 0, 10, 0);
  await writeMerged(LOG, MB * 1024 * 1024, (k, i, n, t, s) => {
    const pid = 3000 + i;
    if (stalled.has(i) && t > L + 180_000 && t < L + 900_000 && k % 7 === 0) {
      const age = (t - L) / 1000;
      return `${s.journal} ${n} kubenswrapper[${pid}]: E${s.klog} ${String(pid).padStart(7)} kubelet.go:2392] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active ${Math.floor(age / 60)}m${(age % 60).toFixed(3)}s ago; threshold is 3m0s"`;
    }
    if (k % 41 === 0) {
      return `${s.journal} ${n} kubenswrapper[${pid}]: I${s.klog} ${String(pid).padStart(7)} kubelet.go:2435] "SyncLoop (PLEG): event for pod" pod="openshift-monitoring/node-exporter-${i}" event={"ID":"0892e7d7-4185-4b43-ac7d-497027d06088","Type":"ContainerStarted","Data":"a13cf8c0"}`;
    }
    return `${s.journal} ${n} kubenswrapper[${pid}]: I${s.klog} ${String(pid).padStart(7)} prober.go:107] "Probe succeeded" probeType="Readiness" pod="openshift-dns/dns-default-${i}" podUID="0892e7d7-4185-4b43-ac7d-497027d06088" containerName="dns"`;
  });
  // CRI-O's own log, merged the same way (gather_service_logs writes one per service): about half the kubelet's.
  await writeMerged(CRIO, CRIO_MB * 1024 * 1024, (k, i, n, t, s) => {
    const pid = 2000 + i;
    const iso = new Date(t).toISOString().replace('T', ' ').replace('Z', '000000Z');
    if (stalled.has(i) && t > L && t < L + 900_000 && k % 13 === 0) {
      return `${s.journal} ${n} crio[${pid}]: time="${iso}" level=info msg="Stopping container: 5f3c0d0b1e2a${i} (timeout: 30s)" id=0892e7d7-4185-4b43-ac7d-497027d06088 name=/runtime.v1.RuntimeService/StopContainer`;
    }
    return `${s.journal} ${n} crio[${pid}]: time="${iso}" level=info msg="Checking image status: quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${'ab'.repeat(32)}" id=0892e7d7-4185-4b43-ac7d-497027d06088 name=/runtime.v1.ImageService/ImageStatus`;
  });
  writeFileSync(STAMP, GEN_VERSION);
}

function argsOf(target, outFile) {
  return [join(import.meta.dirname, '..', 'bin', 'plegscope'), 'analyze', target, '--format', 'json', '-o', outFile, '--year', '2024'];
}

function run(env, oneCore, target, outFile) {
  const args = argsOf(target, outFile);
  const [cmd, argv] = oneCore ? ['taskset', ['-c', '0', process.execPath, ...args]] : [process.execPath, args];
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`plegscope failed: ${r.error?.message ?? r.stderr}`);
  return Number(process.hrtime.bigint() - t) / 1e9;
}

/** CPU seconds (user + system, all threads) of a run, from the shell's `times`: what the wall times above leave
 *  out. Where the threaded run spends more CPU than the one-core run, splitting the work costs that much (measured:
 *  the must-gather 1.64 s against 1.18 s; per-node journals 1.00 s against 1.09 s). Null where bash is missing. */
function cpuOf(env, oneCore, target, outFile) {
  const args = argsOf(target, outFile).map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const cmd = `${oneCore ? 'taskset -c 0 ' : ''}'${process.execPath}' ${args} && times`;
  const r = spawnSync('bash', ['-c', cmd], { env: { ...process.env, ...env }, encoding: 'utf8' });
  // `times` prints the shell's user and system time, then its children's: "0m1.234s 0m0.210s".
  const m = r.status === 0 ? /\n?(\d+)m([\d.]+)s (\d+)m([\d.]+)s\s*$/.exec(r.stdout) : null;
  return m ? Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4]) : null;
}

/** Seconds until every one of `targets` is analyzed, each by its own process, all started at once (no worker threads:
 *  each process is one thread of JavaScript). */
async function runTogether(targets) {
  const t = process.hrtime.bigint();
  await Promise.all(targets.map(([target, outFile]) => new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argsOf(target, outFile), { env: { ...process.env, PLEGSCOPE_WORKERS: '0' }, stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`plegscope failed on ${target} (exit ${code})`))));
  })));
  return Number(process.hrtime.bigint() - t) / 1e9;
}

const RUNS = Math.max(1, Number(process.env.BENCH_RUNS || 5));
/** Median of RUNS runs, interleaved with the others so that a noisy moment hits every mode alike. */
async function medians(modes) {
  const times = modes.map(() => []);
  for (let i = 0; i < RUNS; i++) for (const [k, m] of modes.entries()) times[k].push(await m());
  return times.map((ts) => ts.sort((a, b) => a - b)[Math.floor(ts.length / 2)]);
}

/**
 * The must-gather cut in two, each half a must-gather of its own: half the nodes' YAMLs and dmesg (hard links) and
 * half of each merged log (cut at a newline). Two processes analyzing one half each, at the same time: the work split
 * evenly between two runtimes that share nothing and never wait for each other, each paying its own start-up and JIT
 * compilation (as a worker thread does). A reference for what two cores give this work on this machine.
 */
const HALVES = join(import.meta.dirname, 'out', 'mg200-halves');
function buildHalves() {
  const marker = join(HALVES, 'generated');
  const stamp = `${GEN_VERSION}:${statSync(LOG).size}`;
  if (existsSync(marker) && readFileSync(marker, 'utf8') === stamp) return;
  rmSync(HALVES, { recursive: true, force: true });
  const top = join(ROOT, 'must-gather.local.4242');
  const copy = (from, to, half) => {
    for (const e of readdirSync(from, { withFileTypes: true })) {
      const [src, dst] = [join(from, e.name), join(to, e.name)];
      if (e.isDirectory()) {
        // One node of two per half, by its position in the sorted list.
        if (/^worker-\d+$/.test(e.name) && Number(e.name.slice(7)) % 2 !== half) continue;
        mkdirSync(dst, { recursive: true });
        copy(src, dst, half);
      } else if (/^worker-(\d+)\.yaml$/.test(e.name)) {
        if (Number(e.name.slice(7, -5)) % 2 === half) linkSync(src, dst);
      } else if (/_service\.log$/.test(e.name)) {
        const size = statSync(src).size;
        const fd = openSync(src, 'r');
        const probe = Buffer.alloc(64 * 1024);
        const n = readSync(fd, probe, 0, probe.length, Math.floor(size / 2));
        closeSync(fd);
        const cut = Math.floor(size / 2) + probe.subarray(0, n).indexOf(10) + 1;
        const bytes = readFileSync(src);
        writeFileSync(dst, half === 0 ? bytes.subarray(0, cut) : bytes.subarray(cut));
      } else {
        linkSync(src, dst);
      }
    }
  };
  for (const half of [0, 1]) {
    mkdirSync(join(HALVES, String(half), 'must-gather.local.4242'), { recursive: true });
    copy(top, join(HALVES, String(half), 'must-gather.local.4242'), half);
  }
  writeFileSync(marker, stamp);
}

/** The other shape of a many-node bundle: one journal per node (sos-collect, a folder of `journalctl -u kubelet`). */
const PER_NODE = join(import.meta.dirname, 'out', 'pernode');
const PER_NODE_FILES = 40;
const PER_NODE_MB = 10;

async function buildPerNode() {
  const marker = join(PER_NODE, 'generated');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === GEN_VERSION) return;
  mkdirSync(PER_NODE, { recursive: true });
  for (let f = 0; f < PER_NODE_FILES; f++) {
    const n = `node-${String(f).padStart(2, '0')}`;
    const pid = 4000 + f;
    const out = createWriteStream(join(PER_NODE, `${n}.log`));
    let bytes = 0;
    for (let k = 0, t = Date.UTC(2024, 2, 11, 0, 0, 0); bytes < PER_NODE_MB * 1024 * 1024; k++, t += 40) {
      const s = stamp(t);
      const line = (k % 41 === 0
        ? `${s.journal} ${n} kubelet[${pid}]: I${s.klog} ${String(pid).padStart(7)} kubelet.go:2435] "SyncLoop (PLEG): event for pod" pod="default/app-${k % 30}" event={"ID":"0892e7d7","Type":"ContainerStarted","Data":"a13cf8c0"}`
        : `${s.journal} ${n} kubelet[${pid}]: I${s.klog} ${String(pid).padStart(7)} prober.go:107] "Probe succeeded" probeType="Readiness" pod="default/app-${k % 30}" containerName="app"`) + '\n';
      bytes += line.length;
      if (!out.write(line)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
  }
  writeFileSync(marker, GEN_VERSION);
}

async function report(title, target, outFile, halves) {
  const go = (env, oneCore = false) => run(env, oneCore, target, outFile);
  go({}); // warm the page cache
  if (halves) await runTogether(halves);
  const modes = [() => go({}), () => go({ PLEGSCOPE_WORKERS: '0' }), ...(hasTaskset ? [() => go({}, true)] : [])];
  const [all, noThreads, one, split] = await medians(halves ? [...modes, () => runTogether(halves)] : modes);
  const pct = (x) => `${((x / one) * 100).toFixed(0)} % of one core`;
  console.log(`${title}; median of ${RUNS} runs`);
  if (one !== undefined) console.log(`  one core (taskset -c 0)      ${one.toFixed(2)} s`);
  else console.log('  one core                     (taskset not available: not measured)');
  console.log(`  all cores, no worker threads ${noThreads.toFixed(2)} s`);
  console.log(`  all cores (default)          ${all.toFixed(2)} s${one !== undefined ? `   (${pct(all)}; goal ≤ 60 %)` : ''}`);
  if (split !== undefined) console.log(`  two processes, half each, at once ${split.toFixed(2)} s${one !== undefined ? `   (${pct(split)}: the work split evenly between two runtimes that share nothing)` : ''}`);
  const cpu = (oneCore) => {
    const ts = [0, 1, 2].map(() => cpuOf({}, oneCore, target, outFile));
    return ts.includes(null) ? null : ts.sort((a, b) => a - b)[1];
  };
  const cpuAll = cpu(false);
  const cpuOne = hasTaskset ? cpu(true) : null;
  if (cpuAll !== null) console.log(`  CPU time, median of 3 (user + system, all threads): all cores ${cpuAll.toFixed(2)} s${cpuOne !== null ? `, one core ${cpuOne.toFixed(2)} s` : ''}`);
  return {
    oneCoreSeconds: one ?? null, allCoresSeconds: all, noThreadsSeconds: noThreads, ratio: one !== undefined ? all / one : null, pass: one !== undefined ? all / one <= 0.6 : null,
    cpuSeconds: { allCores: cpuAll, oneCore: cpuOne },
    ...(split !== undefined ? { halvesTogetherSeconds: split, halvesRatio: one !== undefined ? split / one : null } : {}),
  };
}

const hasTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
await build();
await buildPerNode();
const size = statSync(LOG).size / 1024 / 1024;
buildHalves();
const halves = [0, 1].map((h) => [join(HALVES, String(h), 'must-gather.local.4242'), join(HALVES, `analysis-${h}.json`)]);
const mg = await report(`must-gather: ${NODES} nodes, merged kubelet log ${size.toFixed(0)} MiB + CRI-O log ${(statSync(CRIO).size / 1024 / 1024).toFixed(0)} MiB, ${NODES} dmesg + Node YAMLs`, join(ROOT, 'must-gather.local.4242'), join(ROOT, 'analysis.json'), halves);
const pn = await report(`per-node journals: ${PER_NODE_FILES} files of ${PER_NODE_MB} MiB`, PER_NODE, join(import.meta.dirname, 'out', 'pernode-analysis.json'));

/** The same must-gather as the .tar.gz people attach to a case (and CI reads), against `gzip -dc | grep -F -c`. */
function tarball() {
  const tgz = join(import.meta.dirname, 'out', 'mg200.tar.gz');
  const marker = `${tgz}.generated`;
  const stamp = `${GEN_VERSION}:${statSync(LOG).size}`;
  if (!existsSync(tgz) || !existsSync(marker) || readFileSync(marker, 'utf8') !== stamp) {
    const r = spawnSync('tar', ['-czf', tgz, '-C', ROOT, 'must-gather.local.4242']);
    if (r.status !== 0) return null;
    writeFileSync(marker, stamp);
  }
  const keywords = ['PLEG is not healthy', 'runtime service failed', 'Unable to retrieve pods', 'NodeNotReady'];
  const grepCmd = `gzip -dc ${JSON.stringify(tgz)} | grep -a -F -c ${keywords.map((k) => `-e ${JSON.stringify(k)}`).join(' ')}`;
  const timeShell = () => {
    const t = process.hrtime.bigint();
    spawnSync('bash', ['-c', grepCmd]);
    return Number(process.hrtime.bigint() - t) / 1e9;
  };
  run({}, false, tgz, join(ROOT, 'analysis-tgz.json'));
  const times = { grep: [], pleg: [] };
  for (let i = 0; i < RUNS; i++) {
    times.grep.push(timeShell());
    times.pleg.push(run({}, false, tgz, join(ROOT, 'analysis-tgz.json')));
  }
  const [grep, pleg] = [times.grep, times.pleg].map((ts) => ts.sort((a, b) => a - b)[Math.floor(ts.length / 2)]);
  console.log(`the same must-gather as a .tar.gz (${(statSync(tgz).size / 1024 / 1024).toFixed(0)} MiB); median of ${RUNS} runs`);
  console.log(`  gzip -dc | grep -F -c         ${grep.toFixed(2)} s`);
  console.log(`  plegscope analyze            ${pleg.toFixed(2)} s   (${((grep / pleg) * 100).toFixed(0)} % of grep's throughput)`);
  return { grepSeconds: grep, plegscopeSeconds: pleg, ratio: grep / pleg };
}
const tgz = tarball();

/**
 * The same must-gather with what a real one holds besides: namespaced resources, here 100 namespaces of 30 pods, each a
 * manifest and two container logs (9 000 files, ~60 MB). None is read; they cost their listing. Hard links to the rest.
 */
const NAMESPACED = join(import.meta.dirname, 'out', 'mg200-namespaced');
function buildNamespaced() {
  const marker = join(NAMESPACED, 'generated');
  const stamp = `${GEN_VERSION}:${statSync(LOG).size}:9000`;
  if (existsSync(marker) && readFileSync(marker, 'utf8') === stamp) return;
  rmSync(NAMESPACED, { recursive: true, force: true });
  const link = (from, to) => {
    for (const e of readdirSync(from, { withFileTypes: true })) {
      const [src, dst] = [join(from, e.name), join(to, e.name)];
      if (e.isDirectory()) {
        mkdirSync(dst, { recursive: true });
        link(src, dst);
      } else linkSync(src, dst);
    }
  };
  mkdirSync(join(NAMESPACED, 'must-gather.local.4242'), { recursive: true });
  link(join(ROOT, 'must-gather.local.4242'), join(NAMESPACED, 'must-gather.local.4242'));
  const img = IMAGE.replace(ROOT, NAMESPACED);
  const log = (n) => Array.from({ length: n }, (_, k) => `2024-03-11T10:${p2(k % 60)}:00.000000000Z stdout F request ${k} served in ${k % 17} ms path=/api/v1/things/${k}`).join('\n') + '\n';
  for (let n = 0; n < 100; n++) {
    for (let p = 0; p < 30; p++) {
      const pod = `app-${p}-7d9f8b6c5-x${n}${p}`;
      const dir = join(img, 'namespaces', `ns-${n}`, 'pods', pod);
      mkdirSync(join(dir, 'app', 'app', 'logs'), { recursive: true });
      writeFileSync(join(dir, `${pod}.yaml`), ['apiVersion: v1', 'kind: Pod', 'metadata:', `  name: ${pod}`, `  namespace: ns-${n}`, 'spec:', '  containers:', '  - name: app', `    image: quay.io/x/app:${p}`, 'status:', '  phase: Running', ''].join('\n'));
      writeFileSync(join(dir, 'app', 'app', 'logs', 'current.log'), log(100 + ((p * 13) % 400)));
      writeFileSync(join(dir, 'app', 'app', 'logs', 'previous.log'), log(50));
    }
  }
  writeFileSync(marker, stamp);
}
buildNamespaced();
const nsTimes = [];
for (let i = 0; i < RUNS; i++) nsTimes.push(run({}, false, join(NAMESPACED, 'must-gather.local.4242'), join(NAMESPACED, 'analysis.json')));
const nsMedian = nsTimes.sort((a, b) => a - b)[Math.floor(nsTimes.length / 2)];
console.log(`the same must-gather with 9 000 namespaced files added (pod manifests and logs, not read); median of ${RUNS} runs`);
console.log(`  plegscope analyze            ${nsMedian.toFixed(2)} s   (without them ${mg.allCoresSeconds.toFixed(2)} s)`);
const namespaced = { files: 9000, allCoresSeconds: nsMedian };
console.log(JSON.stringify({ bench: 'plegscope-mustgather-cores', runs: RUNS, mustGather: { nodes: NODES, logMiB: Math.round(size), ...mg }, perNode: { files: PER_NODE_FILES, fileMiB: PER_NODE_MB, ...pn }, mustGatherTarball: tgz, mustGatherNamespaced: namespaced }));
