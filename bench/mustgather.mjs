#!/usr/bin/env node
// Both cores on independent work (issue 7): a synthetic must-gather of 200 nodes — the merged workers' kubelet log
// (short-precise, UTC, all hosts interleaved, as `oc adm node-logs` writes it), one Node YAML (~15 KB, with its image
// list, as oc writes it) and one dmesg per node — analyzed on one core (taskset -c 0) and on all of them, default
// settings both times; also on all cores with worker threads off (PLEGSCOPE_WORKERS=0).
// Goal: all cores ≤ 60 % of the one-core wall time.
//   node bench/mustgather.mjs            (BENCH_MG_MB=200 sets the size of the merged log; BENCH_RUNS=5 the runs)
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, 'out', 'mg200');
const MB = Number(process.env.BENCH_MG_MB || 200);
const NODES = 200;
const IMAGE = join(ROOT, 'must-gather.local.4242', 'quay-io-openshift-release-dev-ocp-v4-0-art-dev-sha256-' + 'ab'.repeat(32));
const LOG = join(IMAGE, 'host_service_logs', 'workers', 'kubelet_service.log');
const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n) => String(n).padStart(2, '0');
const names = Array.from({ length: NODES }, (_, i) => `worker-${String(i).padStart(3, '0')}`);

function stamp(t) {
  const d = new Date(t);
  const us = String(d.getUTCMilliseconds() * 1000).padStart(6, '0');
  const hms = `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`;
  return { journal: `${MON[d.getUTCMonth()]} ${p2(d.getUTCDate())} ${hms}.${us}`, klog: `${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())} ${hms}.${us}` };
}

const GEN_VERSION = '2';
const STAMP = join(ROOT, 'generated');

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
  const out = createWriteStream(LOG);
  const target = MB * 1024 * 1024;
  let bytes = 0;
  let t = Date.UTC(2024, 2, 11, 0, 0, 0);
  let k = 0;
  const L = Date.UTC(2024, 2, 11, 0, 10, 0);
  while (bytes < target) {
    const i = k % NODES;
    const n = names[i];
    const pid = 3000 + i;
    const s = stamp(t);
    let line;
    if (stalled.has(i) && t > L + 180_000 && t < L + 900_000 && k % 7 === 0) {
      const age = (t - L) / 1000;
      line = `${s.journal} ${n} kubenswrapper[${pid}]: E${s.klog} ${String(pid).padStart(7)} kubelet.go:2392] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active ${Math.floor(age / 60)}m${(age % 60).toFixed(3)}s ago; threshold is 3m0s"`;
    } else if (k % 41 === 0) {
      line = `${s.journal} ${n} kubenswrapper[${pid}]: I${s.klog} ${String(pid).padStart(7)} kubelet.go:2435] "SyncLoop (PLEG): event for pod" pod="openshift-monitoring/node-exporter-${i}" event={"ID":"0892e7d7-4185-4b43-ac7d-497027d06088","Type":"ContainerStarted","Data":"a13cf8c0"}`;
    } else {
      line = `${s.journal} ${n} kubenswrapper[${pid}]: I${s.klog} ${String(pid).padStart(7)} prober.go:107] "Probe succeeded" probeType="Readiness" pod="openshift-dns/dns-default-${i}" podUID="0892e7d7-4185-4b43-ac7d-497027d06088" containerName="dns"`;
    }
    line += '\n';
    bytes += line.length;
    if (!out.write(line)) await once(out, 'drain');
    t += 3;
    k++;
  }
  out.end();
  await once(out, 'finish');
  writeFileSync(STAMP, GEN_VERSION);
}

function run(env, oneCore = false) {
  const args = [join(import.meta.dirname, '..', 'bin', 'plegscope'), 'analyze', join(ROOT, 'must-gather.local.4242'), '--format', 'json', '-o', join(ROOT, 'analysis.json')];
  const [cmd, argv] = oneCore ? ['taskset', ['-c', '0', process.execPath, ...args]] : [process.execPath, args];
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`plegscope failed: ${r.error?.message ?? r.stderr}`);
  return Number(process.hrtime.bigint() - t) / 1e9;
}

const RUNS = Math.max(1, Number(process.env.BENCH_RUNS || 5));
/** Median of RUNS runs, interleaved with the others so that a noisy moment hits every mode alike. */
function medians(modes) {
  const times = modes.map(() => []);
  for (let i = 0; i < RUNS; i++) modes.forEach((m, k) => times[k].push(m()));
  return times.map((ts) => ts.sort((a, b) => a - b)[Math.floor(ts.length / 2)]);
}

await build();
const size = statSync(LOG).size / 1024 / 1024;
const hasTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
run({}); // warm the page cache
const [all, noThreads, one] = medians([() => run({}), () => run({ PLEGSCOPE_WORKERS: '0' }), ...(hasTaskset ? [() => run({}, true)] : [])]);
console.log(`must-gather: ${NODES} nodes, merged kubelet log ${size.toFixed(0)} MiB, ${NODES} dmesg + Node YAMLs; median of ${RUNS} runs`);
if (one !== undefined) console.log(`one core (taskset -c 0)      ${one.toFixed(2)} s`);
else console.log('one core                     (taskset not available: not measured)');
console.log(`all cores, no worker threads ${noThreads.toFixed(2)} s`);
console.log(`all cores (default)          ${all.toFixed(2)} s${one !== undefined ? `   (${((all / one) * 100).toFixed(0)} % of one core; goal ≤ 60 %)` : ''}`);
console.log(JSON.stringify({ bench: 'plegscope-mustgather-cores', nodes: NODES, logMiB: Math.round(size), runs: RUNS, oneCoreSeconds: one ?? null, allCoresSeconds: all, noThreadsSeconds: noThreads, ratio: one !== undefined ? all / one : null, pass: one !== undefined ? all / one <= 0.6 : null }));
