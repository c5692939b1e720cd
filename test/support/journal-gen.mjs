// Deterministic generator of realistic kubelet journals and /metrics snapshots, with ground truth.
//
// Used by tests (small, exact journals whose stalls are known) and by bench/run.mjs (hundreds of MB). Plain .mjs
// so it runs without a build. Everything is driven by one seeded PRNG: the same options give the same bytes.
// All generated text is ASCII on purpose, so byte counts are string lengths (cheap on the hot path).
//
// The model follows design.md §2 and kubelet-catalog.md: relist every ~1 s, relistTime = start of the last relist
// whose GetPods succeeded, Healthy() fails when now - relistTime > 3m, the sync loop then logs "Skipping pod
// synchronization" with its 0.1 s .. 5 s back-off, node status (every 10 s) flips Ready. Incidents are simulated
// mechanically (hung CRI calls with the 2 min deadline, serial GetPodStatus, housekeeping blocked on the runtime
// cache) rather than drawn as a picture, so the quirks of real logs come out by themselves: first ages of "3m4s"
// instead of "3m0s", relists that fail every 2m1s, NotReady posted only after a blocked Version() call returns.

import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

// ---------------------------------------------------------------------------------------------------------------
// PRNG: xmur3 string hash feeding sfc32. Small, fast, and identical on every platform (no Math.random anywhere).

export function createRng(seed = 1) {
  const str = String(seed);
  let h = 1779033703 ^ str.length;
  for (let i = 0; i < str.length; i++) {
    h = Math.imul(h ^ str.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  const mix = () => {
    h = Math.imul(h ^ (h >>> 16), 2246822507);
    h = Math.imul(h ^ (h >>> 13), 3266489909);
    return (h ^= h >>> 16) >>> 0;
  };
  let a = mix(), b = mix(), c = mix(), d = mix();
  const u32 = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 15; i++) u32();
  const float = () => u32() / 4294967296;
  const HEX = '0123456789abcdef';
  const rng = {
    u32,
    float,
    /** integer in [lo, hi] */
    int: (lo, hi) => lo + Math.floor(float() * (hi - lo + 1)),
    /** float in [lo, hi) */
    range: (lo, hi) => lo + float() * (hi - lo),
    pick: (arr) => arr[Math.floor(float() * arr.length)],
    chance: (p) => float() < p,
    exp: (mean) => -Math.log(1 - float()) * mean,
    normal: () => {
      const u = 1 - float();
      const v = float();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    },
    logn: (median, sigma) => median * Math.exp(sigma * rng.normal()),
    hex: (n) => {
      let s = '';
      while (s.length < n) {
        let x = u32();
        for (let i = 0; i < 8 && s.length < n; i++) { s += HEX[x & 15]; x >>>= 4; }
      }
      return s;
    },
    uuid: () => {
      const x = rng.hex(32);
      return `${x.slice(0, 8)}-${x.slice(8, 12)}-4${x.slice(13, 16)}-${'89ab'[u32() & 3]}${x.slice(17, 20)}-${x.slice(20, 32)}`;
    },
    /** Kubernetes' rand.String alphabet (pod-template-hash, generateName suffixes). */
    kname: (n) => {
      const A = 'bcdfghjklmnpqrstvwxz2456789';
      let s = '';
      for (let i = 0; i < n; i++) s += A[Math.floor(float() * A.length)];
      return s;
    },
  };
  return rng;
}

// ---------------------------------------------------------------------------------------------------------------
// Go formatting helpers (the analyzer parses exactly these renderings).

/** time.Duration.String() for a duration in nanoseconds (integer Number; exact up to ~104 days). */
export function goDuration(ns) {
  ns = Math.round(ns);
  if (ns === 0) return '0s';
  const neg = ns < 0;
  if (neg) ns = -ns;
  let out;
  if (ns < 1e9) {
    // Sub-second values keep a smaller unit; "us" stands in for Go's micro sign to keep the output ASCII.
    if (ns < 1e3) out = `${ns}ns`;
    else if (ns < 1e6) out = `${trimFrac(ns, 1e3)}us`;
    else out = `${trimFrac(ns, 1e6)}ms`;
  } else {
    const h = Math.floor(ns / 3.6e12);
    let rem = ns - h * 3.6e12;
    const m = Math.floor(rem / 6e10);
    rem -= m * 6e10;
    out = '';
    if (h) out += `${h}h`;
    if (h || m) out += `${m}m`;
    out += `${trimFrac(rem, 1e9)}s`;
  }
  return neg ? `-${out}` : out;
}

function trimFrac(v, unit) {
  const whole = Math.floor(v / unit);
  const frac = v - whole * unit;
  if (!frac) return String(whole);
  const digits = String(unit).length - 1;
  return `${whole}.${String(frac).padStart(digits, '0').replace(/0+$/, '')}`;
}

/** strconv.FormatFloat(v, 'g', -1, 64) as the Prometheus text encoder writes sample values. */
export function goFloat(v) {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (v === 0) return '0';
  const a = Math.abs(v);
  const [mant, e] = a.toExponential().split('e');
  const exp = Number(e);
  // shortest 'g' uses the exponent form when exp < -4 or exp >= 6 (Go sets eprec = 6 for the shortest form)
  const s = exp < -4 || exp >= 6 ? `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}` : String(a);
  return v < 0 ? `-${s}` : s;
}

/** strconv.Quote for the ASCII strings we generate. */
const q = (s) => `"${String(s).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

const pad2 = (n) => (n < 10 ? `0${n}` : `${n}`);
const pad6 = (n) => String(n).padStart(6, '0');
const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DOW = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** '+0100', '-05:00', 'UTC', 90 (minutes east) → minutes east of UTC. */
export function parseTz(tz) {
  if (tz == null || tz === '' || tz === 'UTC' || tz === 'Z') return 0;
  if (typeof tz === 'number') return tz;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(String(tz));
  if (!m) throw new Error(`journal-gen: unsupported tz ${tz} (use a fixed offset like +0100 or minutes)`);
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

function tzSuffix(min, colon = false) {
  const sign = min < 0 ? '-' : '+';
  const a = Math.abs(min);
  return `${sign}${pad2(Math.floor(a / 60))}${colon ? ':' : ''}${pad2(a % 60)}`;
}

/** Per-second cache of the date strings every line needs; one entry per role (klog time, journal time). */
class Clock {
  constructor(tzMin) {
    this.off = tzMin * 60;
    this.sec = NaN;
    this.tzs = tzSuffix(tzMin);
  }
  set(sec) {
    if (sec === this.sec) return this;
    this.sec = sec;
    const d = new Date((sec + this.off) * 1000);
    const Y = d.getUTCFullYear(), M = d.getUTCMonth(), D = d.getUTCDate();
    const hms = `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`;
    this.klog = `${pad2(M + 1)}${pad2(D)} ${hms}`;
    this.short = `${MON[M]} ${pad2(D)} ${hms}`;
    this.iso = `${Y}-${pad2(M + 1)}-${pad2(D)}T${hms}`;
    this.ctime = `${DOW[d.getUTCDay()]} ${MON[M]} ${pad2(D)} ${hms} ${Y}`;
    return this;
  }
}

/** ISO-8601 with offset, µs precision, for ground-truth documents. */
export function isoAt(ms, tz = 0) {
  const off = parseTz(tz);
  const d = new Date(Math.floor(ms) + off * 60000);
  const us = Math.round((ms - Math.floor(ms)) * 1000);
  const base = d.toISOString().slice(0, 23);
  return `${base}${us ? String(us).padStart(3, '0') : ''}${off ? tzSuffix(off, true) : 'Z'}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Min-heap of scheduled items ordered by (t, insertion order), so lines produced in one callback keep their order.

class Heap {
  constructor() { this.a = []; this.n = 0; }
  get size() { return this.a.length; }
  push(x) {
    x.q = this.n++;
    const a = this.a;
    a.push(x);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const y = a[p];
      if (x.t < y.t || (x.t === y.t && x.q < y.q)) { a[i] = y; i = p; } else break;
    }
    a[i] = x;
  }
  pop() {
    const a = this.a;
    const top = a[0];
    const last = a.pop();
    if (a.length) {
      let i = 0;
      const n = a.length;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        let c = l;
        if (r < n && (a[r].t < a[l].t || (a[r].t === a[l].t && a[r].q < a[l].q))) c = r;
        const y = a[c];
        if (y.t < last.t || (y.t === last.t && y.q < last.q)) { a[i] = y; i = c; } else break;
      }
      a[i] = last;
    }
    return top;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Constants of the kubelet model (microseconds).

const SEC = 1e6;
const MIN = 60 * SEC;
const THRESH = 3 * MIN; // relistThreshold
const CRI_TIMEOUT = 2 * MIN; // --runtime-request-timeout default
const DE = 'rpc error: code = DeadlineExceeded desc = context deadline exceeded';
const READY_FILTER = '&PodSandboxFilter{Id:,State:&PodSandboxStateValue{State:SANDBOX_READY,},LabelSelector:map[string]string{},}';
const CTR_FILTER = '&ContainerFilter{Id:,State:nil,PodSandboxId:,LabelSelector:map[string]string{},}';

// file:line per era: S = structured 1.21+ (numbers from 1.28), P = klog printf 1.13-1.20 (1.19), G = glog 1.11.
// Line numbers are illustrative (catalog §1.2: never key on them) but stable, as in a real journal.
const FL = {
  syncAdd: ['kubelet.go:2430', 'kubelet.go:1866', 'kubelet.go:1837'],
  syncUpdate: ['kubelet.go:2436', 'kubelet.go:1872', 'kubelet.go:1843'],
  syncDelete: ['kubelet.go:2442', 'kubelet.go:1882', 'kubelet.go:1853'],
  syncRemove: ['kubelet.go:2446', 'kubelet.go:1878', 'kubelet.go:1849'],
  syncPleg: ['kubelet.go:2461', 'kubelet.go:1919', 'kubelet.go:1884'],
  syncProbe: ['kubelet.go:2514', 'kubelet.go:1951', 'kubelet.go:1915'],
  skip: ['kubelet.go:2329', 'kubelet.go:1846', 'kubelet.go:1835'],
  mainLoop: ['kubelet.go:2303', 'kubelet.go:1822', 'kubelet.go:1768'],
  cleanFail: ['kubelet.go:2498', 'kubelet.go:1954', 'kubelet.go:1918'],
  hkSlow: ['kubelet.go:2503', '', ''],
  gcFail: ['kubelet.go:1400', 'kubelet.go:1300', 'kubelet.go:1253'],
  sanity: ['kubelet.go:2812', 'kubelet.go:2152', 'kubelet.go:2113'],
  finished: ['generic.go:334', '', ''],
  unableRetrieve: ['generic.go:238', 'generic.go:205', 'generic.go:197'],
  ignoring: ['generic.go:283', 'generic.go:252', 'generic.go:241'],
  reinspect: ['generic.go:309', 'generic.go:281', 'generic.go:266'],
  topo: ['topology_manager.go:215', '', ''],
  volVerify: ['reconciler_common.go:258', 'reconciler.go:224', 'reconciler.go:207'],
  volMount: ['reconciler_common.go:231', 'reconciler.go:269', 'reconciler.go:252'],
  volSetUp: ['operation_generator.go:721', 'operation_generator.go:663', 'operation_generator.go:558'],
  volUnmount: ['reconciler_common.go:172', 'reconciler.go:196', 'reconciler.go:181'],
  volTearDown: ['operation_generator.go:882', 'operation_generator.go:788', 'operation_generator.go:688'],
  volDetached: ['reconciler_common.go:300', 'reconciler.go:319', 'reconciler.go:301'],
  noSandbox: ['util.go:30', 'kuberuntime_manager.go:439', 'kuberuntime_manager.go:385'],
  killing: ['kuberuntime_container.go:745', 'kuberuntime_container.go:635', 'kuberuntime_container.go:553'],
  termFail: ['kuberuntime_container.go:758', 'kuberuntime_container.go:648', 'kuberuntime_container.go:566'],
  removeCtr: ['scope.go:117', 'topology_manager.go:219', ''],
  podErr: ['pod_workers.go:1300', 'pod_workers.go:191', 'pod_workers.go:186'],
  probeFail: ['prober.go:107', 'prober.go:117', 'prober.go:111'],
  probeErr: ['prober.go:97', 'prober.go:106', 'prober.go:104'],
  ctrMessage: ['kuberuntime_manager.go:1012', 'kuberuntime_manager.go:646', 'kuberuntime_manager.go:513'],
  nameserver: ['dns.go:153', 'dns.go:135', 'dns.go:131'],
  cadvisor: ['manager.go:1106', 'manager.go:1044', 'manager.go:1054'],
  fsHandler: ['fsHandler.go:133', 'fsHandler.go:135', 'fsHandler.go:135'],
  cpuStale: ['cpu_manager.go:395', '', ''],
  cpuDel: ['state_mem.go:107', '', ''],
  memStale: ['memory_manager.go:354', '', ''],
  orphan: ['kubelet_volumes.go:161', 'kubelet_volumes.go:140', 'kubelet_volumes.go:128'],
  statusFail: ['status_manager.go:853', 'status_manager.go:568', 'status_manager.go:461'],
  nodeEvent: ['kubelet_node_status.go:679', 'kubelet_node_status.go:486', 'kubelet_node_status.go:442'],
  notReady: ['setters.go:552', 'setters.go:555', 'kubelet_node_status.go:828'],
  rrListSandbox: ['remote_runtime.go:294', 'remote_runtime.go:203', 'remote_runtime.go:169'],
  rrListCtr: ['remote_runtime.go:390', 'remote_runtime.go:277', 'remote_runtime.go:262'],
  rrCtrStatus: ['remote_runtime.go:432', 'remote_runtime.go:314', 'remote_runtime.go:282'],
  rrStatus: ['remote_runtime.go:625', 'remote_runtime.go:494', 'remote_runtime.go:425'],
  rrVersion: ['remote_runtime.go:150', 'remote_runtime.go:86', 'remote_runtime.go:72'],
  rrExec: ['remote_runtime.go:501', 'remote_runtime.go:394', 'remote_runtime.go:344'],
  rrStopCtr: ['remote_runtime.go:366', 'remote_runtime.go:276', 'remote_runtime.go:245'],
  rrRunSandbox: ['remote_runtime.go:193', 'remote_runtime.go:113', 'remote_runtime.go:92'],
  krListSandbox: ['kuberuntime_sandbox.go:297', 'kuberuntime_sandbox.go:218', 'kuberuntime_sandbox.go:198'],
  krListCtr: ['kuberuntime_container.go:495', 'kuberuntime_container.go:384', 'kuberuntime_container.go:323'],
  krPodCtrStatus: ['kuberuntime_manager.go:1141', 'kuberuntime_manager.go:969', 'kuberuntime_manager.go:859'],
  krSandboxStatus: ['kuberuntime_manager.go:1111', 'kuberuntime_manager.go:934', 'kuberuntime_manager.go:839'],
  krVersion: ['kuberuntime_manager.go:329', 'kuberuntime_manager.go:249', 'kuberuntime_manager.go:222'],
  krCreateSandbox: ['kuberuntime_sandbox.go:72', 'kuberuntime_sandbox.go:69', 'kuberuntime_sandbox.go:65'],
  krCreateSandbox2: ['kuberuntime_manager.go:1166', 'kuberuntime_manager.go:741', 'kuberuntime_manager.go:647'],
  listErr: ['kubelet_pods.go:1103', 'kubelet_pods.go:1024', 'kubelet_pods.go:945'],
  cniStatus: ['docker_sandbox.go:402', 'docker_sandbox.go:402', 'docker_sandbox.go:355'],
};
const ERA_IDX = { S: 0, P: 1, G: 2 };

// Workloads a mid-size cluster schedules on a worker. [namespace, base, kind, containers, extra volumes, flags]
const WORKLOADS = [
  ['kube-system', 'kube-proxy', 'ds', ['kube-proxy'], ['kube-proxy:configmap', 'xtables-lock:host-path', 'lib-modules:host-path'], {}],
  ['kube-system', 'calico-node', 'ds', ['calico-node'], ['var-run-calico:host-path', 'cni-bin-dir:host-path', 'cni-net-dir:host-path', 'policysync:host-path'], {}],
  ['kube-system', 'ebs-csi-node', 'ds', ['ebs-plugin', 'node-driver-registrar', 'liveness-probe'], ['kubelet-dir:host-path', 'plugin-dir:host-path', 'registration-dir:host-path', 'device-dir:host-path'], {}],
  ['logging', 'fluent-bit', 'ds', ['fluent-bit'], ['config:configmap', 'varlog:host-path', 'mnt:host-path'], {}],
  ['monitoring', 'node-exporter', 'ds', ['node-exporter', 'kube-rbac-proxy'], ['proc:host-path', 'sys:host-path', 'root:host-path', 'tls:secret'], {}],
  ['kube-system', 'coredns', 'deploy', ['coredns'], ['config-volume:configmap'], { replicas: 1 }],
  ['monitoring', 'kube-state-metrics', 'deploy', ['kube-state-metrics', 'kube-rbac-proxy-main', 'kube-rbac-proxy-self'], ['tls:secret'], { replicas: 1 }],
  ['monitoring', 'prometheus-k8s', 'sts', ['prometheus', 'config-reloader'], ['config:secret', 'config-out:empty-dir', 'tls-assets:projected', 'prometheus-k8s-db:empty-dir', 'web-config:secret'], { replicas: 1 }],
  ['ingress-nginx', 'ingress-nginx-controller', 'deploy', ['controller'], ['webhook-cert:secret'], { replicas: 1 }],
  ['default', 'web', 'deploy', ['nginx'], ['html:configmap'], { replicas: 2, flaky: true }],
  ['payments', 'ledger-writer', 'deploy', ['app', 'istio-proxy'], ['config:configmap', 'istio-envoy:empty-dir', 'istio-token:projected', 'tmp:empty-dir'], { replicas: 2, java: true }],
  ['payments', 'payment-gateway', 'deploy', ['app', 'istio-proxy'], ['config:configmap', 'istio-envoy:empty-dir', 'istio-token:projected'], { replicas: 2 }],
  ['checkout', 'cart', 'deploy', ['cart'], ['config:configmap'], { replicas: 2 }],
  ['checkout', 'checkout-api', 'deploy', ['api'], ['config:configmap', 'tls-certs:secret'], { replicas: 2, flaky: true }],
  ['checkout', 'recommendation', 'deploy', ['app'], ['model-cache:empty-dir'], { replicas: 1, crash: true }],
  ['redis', 'redis', 'sts', ['redis', 'metrics'], ['data:empty-dir', 'config:configmap'], { replicas: 1, exec: ['redis-cli', 'ping'] }],
  ['search', 'indexer', 'deploy', ['indexer'], ['scratch:empty-dir'], { replicas: 2 }],
  ['search', 'query-frontend', 'deploy', ['frontend'], ['config:configmap'], { replicas: 2 }],
  ['argocd', 'argocd-repo-server', 'deploy', ['argocd-repo-server'], ['tmp:empty-dir', 'gpg-keyring:empty-dir'], { replicas: 1 }],
  ['cert-manager', 'cert-manager-webhook', 'deploy', ['cert-manager-webhook'], [], { replicas: 1 }],
  ['default', 'notifications', 'deploy', ['worker'], ['config:configmap'], { replicas: 2 }],
  ['batch', 'report-builder', 'cronjob', ['report'], ['reports:empty-dir'], { replicas: 0 }],
  ['batch', 'ingest-worker', 'job', ['worker'], ['scratch:empty-dir'], { replicas: 0 }],
];
const IMAGES = {
  'kube-proxy': 'registry.k8s.io/kube-proxy:v1.28.3', 'calico-node': 'docker.io/calico/node:v3.26.4', nginx: 'docker.io/library/nginx:1.25.3',
  redis: 'docker.io/library/redis:7.2.4', coredns: 'registry.k8s.io/coredns/coredns:v1.10.1',
};

const PLUGIN = {
  configmap: 'kubernetes.io/configmap', secret: 'kubernetes.io/secret', 'empty-dir': 'kubernetes.io/empty-dir',
  'host-path': 'kubernetes.io/host-path', projected: 'kubernetes.io/projected',
};

const STYLE_DEFAULTS = {
  structured: { kubeletVersion: 'v1.28.3', runtime: 'containerd', runtimeVersion: '1.7.13' },
  printf: { kubeletVersion: 'v1.19.4', runtime: 'docker', runtimeVersion: '19.03.13' },
  glog11: { kubeletVersion: 'v1.11.4', runtime: 'docker', runtimeVersion: '17.03.2-ce' },
};
const ENVELOPES = new Set(['short', 'short-precise', 'short-iso', 'short-iso-precise', 'json', 'bare']);
const CAUSES = new Set(['list_timeout', 'container_status_timeout', 'slow_relist', 'deadlock', 'cni']);

function normalizeOptions(opts = {}) {
  // The relist deadlock only exists in kubelets < 1.14: without an explicit style, write one as a 1.11 kubelet would.
  const implied = opts.style == null && (opts.stalls ?? []).some((s) => s.cause === 'deadlock') ? { style: 'glog11' } : {};
  const o = {
    host: 'worker-3', ident: 'kubelet', pid: 2817, start: Date.UTC(2024, 2, 11, 9, 0, 0), durationMs: null, targetBytes: null,
    style: 'structured', envelope: 'short', tz: 0, seed: 1, stalls: [], rate: 1, pods: 36, crashLoopPods: 1, verbosity: 2,
    nameserverSpam: true, recordActivity: false, boot: true, ...implied,
    // an option passed as undefined means "default", as callers spreading their own options expect
    ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)),
  };
  if (!STYLE_DEFAULTS[o.style]) throw new Error(`journal-gen: unknown style ${o.style}`);
  if (!ENVELOPES.has(o.envelope)) throw new Error(`journal-gen: unknown envelope ${o.envelope}`);
  const d = STYLE_DEFAULTS[o.style];
  const hasCni = o.stalls.some((s) => s.cause === 'cni');
  // The CNI hang is a dockershim story (catalog §7): pick a dockershim-era kubelet unless told otherwise.
  o.kubeletVersion ??= hasCni && o.style === 'structured' ? 'v1.22.17' : d.kubeletVersion;
  o.runtime ??= hasCni ? 'docker' : d.runtime;
  o.runtimeVersion ??= o.runtime === 'docker' ? (o.style === 'glog11' ? '17.03.2-ce' : o.style === 'printf' ? '19.03.13' : '20.10.24') : d.runtimeVersion;
  o.tzMin = parseTz(o.tz);
  o.minor = Number(/^v?1\.(\d+)/.exec(o.kubeletVersion)?.[1] ?? 28);
  if (o.durationMs == null && o.targetBytes == null) o.durationMs = 2 * 3600e3;
  o.stalls = o.stalls.map((s, i) => {
    if (!CAUSES.has(s.cause)) throw new Error(`journal-gen: stall ${i}: unknown cause ${s.cause}`);
    if (!(s.at > o.start)) throw new Error(`journal-gen: stall ${i}: at must be after start`);
    const endedBy = s.endedBy ?? (s.cause === 'deadlock' ? 'restart' : 'recovered');
    if (!['recovered', 'restart', 'end-of-log'].includes(endedBy)) throw new Error(`journal-gen: stall ${i}: unknown endedBy ${endedBy}`);
    if (!(s.durationMs > 0)) throw new Error(`journal-gen: stall ${i}: durationMs must be > 0`);
    return { ...s, endedBy };
  }).sort((a, b) => a.at - b.at);
  return o;
}

/** Kubernetes-ish pod name for a workload. */
function podName(rng, base, kind, ordinal, atUs) {
  switch (kind) {
    case 'ds': return `${base}-${rng.kname(5)}`;
    case 'sts': return `${base}-${ordinal}`;
    case 'cronjob': return `${base}-${Math.floor(atUs / MIN)}-${rng.kname(5)}`;
    case 'job': return `${base}-${ordinal}-${rng.kname(5)}`;
    default: return `${base}-${rng.kname(10)}-${rng.kname(5)}`;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The simulated node: kubelet voice, pods, background traffic, envelopes.

class Sim {
  constructor(o) {
    this.o = o;
    this.rng = createRng(o.seed);
    // Formatting noise (journal lag, cursors) draws from its own stream so every envelope carries the same content.
    this.frng = createRng(`${o.seed}:envelope`);
    this.era = o.style === 'structured' ? 'S' : o.style === 'printf' ? 'P' : 'G';
    this.ei = ERA_IDX[this.era];
    this.minor = o.minor;
    this.heap = new Heap();
    this.setPid(o.pid);
    this.startUs = o.start * 1000;
    this.endUs = o.durationMs != null ? this.startUs + o.durationMs * 1000 : Infinity;
    this.kc = new Clock(o.tzMin);
    this.jc = new Clock(o.tzMin);
    this.lastJt = 0;
    this.docker = o.runtime === 'docker';
    this.rtPrefix = this.docker ? 'docker://' : 'containerd://';
    this.node = o.host;
    this.pods = [];
    this.incidents = [];
    this.kubeletStarts = [];
    this.wls = WORKLOADS.map(([ns, base, kind, ctrs, vols, flags]) => ({
      ns, base, kind, ctrs, vols, flags, hash: this.rng.kname(10), ordinal: 0,
    }));
    this.saToken = new Map(); // namespace -> default-token-xxxxx (pre-1.22 secret token volumes)
    this.activity = o.recordActivity ? [] : null;
    this.podTimeline = o.recordActivity ? [] : null;
    this.bootId = this.frng.hex(32);
    this.machineId = this.frng.hex(32);
    this.invocation = this.frng.hex(32);
    this.seqnum = 0x2a1f3 + this.frng.int(0, 1 << 20);
    this.seqId = this.frng.hex(32);
    this.bootUs = this.startUs - this.frng.int(40, 90) * SEC;
    this.artefactLines = 0;
  }

  setPid(pid) {
    this.pid = pid;
    this.pidStr = String(pid).padStart(7);
  }

  f(key) { return FL[key][this.ei]; }

  // --- scheduling -------------------------------------------------------------------------------------------

  at(t, fn) { this.heap.push({ t: Math.round(t), fn }); }
  /** A klog line that is emitted unconditionally (startup, incidents). */
  emit(t, sev, key, msg, tag) { this.heap.push({ t: Math.round(t), sev, file: this.f(key), msg, tag }); }
  emitF(t, sev, file, msg, tag) { this.heap.push({ t: Math.round(t), sev, file, msg, tag }); }
  /** A line without klog header: kubelet stderr noise (ident null) or a systemd line (ident 'systemd'). */
  raw(t, msg, ident = null) { this.heap.push({ t: Math.round(t), raw: true, msg, ident }); }

  incidentAt(t) {
    for (const inc of this.incidents) if (t >= inc.onset && t < inc.resume) return inc;
    return null;
  }

  /**
   * Background line. 'sync' lines come from the sync loop or pod workers and vanish while an incident owns the
   * node; 'any' lines come from goroutines that keep running (prober, cadvisor, volume reconciler).
   */
  bg(t, kind, sev, key, msg) {
    if (t >= this.endUs) return;
    if (kind === 'sync' && this.incidentAt(t)) return;
    this.emit(t, sev, key, msg);
  }

  // --- voice ------------------------------------------------------------------------------------------------

  podRef(p) { return this.era === 'S' ? q(`${p.ns}/${p.name}`) : `${p.name}_${p.ns}(${p.uid})`; }
  podFull(p) { return `${p.name}_${p.ns}(${p.uid})`; }
  podsList(ps) {
    if (this.era !== 'S') return q(ps.map((p) => this.podFull(p)).join(', '));
    if (this.minor >= 28) return `[${ps.map((p) => q(`${p.ns}/${p.name}`)).join(',')}]`;
    return `[${ps.map((p) => `${p.ns}/${p.name}`).join(' ')}]`;
  }

  syncLoop(t, op, ps, kind = 'sync') {
    if (!ps.length) return;
    const key = { ADD: 'syncAdd', UPDATE: 'syncUpdate', DELETE: 'syncDelete', REMOVE: 'syncRemove' }[op];
    const msg = this.era === 'S' ? `"SyncLoop ${op}" source="api" pods=${this.podsList(ps)}` : `SyncLoop (${op}, "api"): ${this.podsList(ps)}`;
    if (kind === 'force') this.emit(t, 'I', key, msg);
    else this.bg(t, kind, 'I', key, msg);
  }

  plegEventText(p, type, data) {
    if (this.era === 'S') {
      const ev = this.minor >= 28 ? `{"ID":${q(p.uid)},"Type":${q(type)},"Data":${q(data)}}` : `&{ID:${p.uid} Type:${type} Data:${data}}`;
      return `"SyncLoop (PLEG): event for pod" pod=${q(`${p.ns}/${p.name}`)} event=${ev}`;
    }
    return `SyncLoop (PLEG): ${q(this.podFull(p))}, event: &pleg.PodLifecycleEvent{ID:${q(p.uid)}, Type:${q(type)}, Data:${q(data)}}`;
  }

  finishedText(p, cid, exitCode) {
    return `"Generic (PLEG): container finished" podID=${q(p.uid)} containerID=${q(cid)} exitCode=${exitCode}`;
  }

  /** A container state change seen by the next relist; deferred while an incident stops relists or the sync loop. */
  pleg(t, p, type, data, exitCode = null) {
    if (t >= this.endUs) return;
    const inc = this.incidentAt(t);
    if (inc) { inc.deferred.push({ p, type, data, exitCode }); return; }
    this.plegNow(t, p, type, data, exitCode);
  }

  plegNow(t, p, type, data, exitCode) {
    if (type === 'ContainerDied' && exitCode != null && this.era === 'S') this.emit(t, 'I', 'finished', this.finishedText(p, data, exitCode));
    this.emit(t + this.rng.int(30, 400), 'I', 'syncPleg', this.plegEventText(p, type, data));
  }

  volText(prefix, p, v, podKnown = true) {
    const uniq = `${PLUGIN[v.type]}/${p.uid}-${v.name}`;
    const who = podKnown ? p.name : p.uid;
    const body = `${prefix} for volume "${v.name}" (UniqueName: "${uniq}") pod "${who}" (UID: "${p.uid}") `;
    if (this.era !== 'S') return body;
    return podKnown ? `${q(body)} pod=${q(`${p.ns}/${p.name}`)}` : q(body);
  }

  tearDownText(p, v) {
    const uniq = `${PLUGIN[v.type]}/${p.uid}-${v.name}`;
    return `UnmountVolume.TearDown succeeded for volume "${uniq}" (OuterVolumeSpecName: "${v.name}") pod "${p.uid}" (UID: "${p.uid}"). InnerVolumeSpecName "${v.name}". PluginName "${PLUGIN[v.type]}", VolumeGidValue ""`;
  }

  detachedText(p, v) {
    const body = `Volume detached for volume "${v.name}" (UniqueName: "${PLUGIN[v.type]}/${p.uid}-${v.name}") on node "${this.node}" DevicePath ""`;
    return this.era === 'S' ? q(body) : body;
  }

  podErrText(p, errText) {
    if (this.era === 'S') return `"Error syncing pod, skipping" err=${q(errText)} pod=${q(`${p.ns}/${p.name}`)} podUID=${q(p.uid)}`;
    return `Error syncing pod ${p.uid} (${q(this.podFull(p))}), skipping: ${errText}`;
  }

  probeFailText(p, c, probeType, output) {
    if (this.era === 'S') {
      return `"Probe failed" probeType=${q(probeType)} pod=${q(`${p.ns}/${p.name}`)} podUID=${q(p.uid)} containerName=${q(c.name)} probeResult="failure" output=${q(output)}`;
    }
    return `${probeType} probe for "${this.podFull(p)}:${c.name}" failed (failure): ${output}`;
  }

  /** runtimeErrors() rendering for this kubelet version (catalog §4.1). */
  aggregate(parts) {
    if (this.minor <= 13) return `[${parts.join(' ')}]`;
    const ps = this.minor === 14 ? parts.map((x) => `${x}.`) : parts;
    return ps.length === 1 ? ps[0] : `[${ps.join(', ')}]`;
  }

  skipText(parts) {
    const agg = this.aggregate(parts);
    if (this.era === 'S') return `"Skipping pod synchronization" err=${q(agg)}`;
    return `skipping pod synchronization - ${agg}`;
  }
  get skipSev() { return this.era === 'S' || this.minor >= 16 ? 'E' : 'I'; }

  nodeEventText(ev) {
    return this.era === 'S'
      ? `"Recording event message for node" node=${q(this.node)} event=${q(ev)}`
      : `Recording ${ev} event message for node ${this.node}`;
  }

  goTime(t, startedUs) {
    const us = Math.round(t);
    this.kc.set(Math.floor(us / SEC));
    const d = this.kc.iso.replace('T', ' ');
    const extra = this.rng.int(0, 999);
    const ns = (us % SEC) * 1000 + extra;
    const frac = String(ns).padStart(9, '0').replace(/0+$/, '');
    const zone = this.o.tzMin === 0 ? '+0000 UTC' : `${tzSuffix(this.o.tzMin)} ${tzSuffix(this.o.tzMin).slice(0, 3)}`;
    const up = us - startedUs + 3000; // the monotonic clock started a few ms before the first log line
    const mono = `${Math.floor(up / SEC)}.${String((up % SEC) * 1000 + extra).padStart(9, '0')}`;
    return `${d}${frac ? `.${frac}` : ''} ${zone} m=+${mono}`;
  }

  notReadyText(t, parts) {
    const msg = this.minor <= 13 ? parts.join(',') : this.aggregate(parts);
    if (this.era === 'S' && this.minor >= 28) {
      const iso = new Date(Math.floor(t / 1000)).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const cond = `{"type":"Ready","status":"False","lastHeartbeatTime":"${iso}","lastTransitionTime":"${iso}","reason":"KubeletNotReady","message":${JSON.stringify(msg)}}`;
      return `"Node became not ready" node=${q(this.node)} condition=${cond}`;
    }
    // process start for the monotonic "m=+" reading: boot, or the restart planned by an earlier incident
    let started = this.startUs;
    for (const inc of this.incidents) if (inc.restartUs != null && inc.restartUs <= t) started = inc.restartUs;
    const ts = this.goTime(t, started);
    const cond = `{Type:Ready Status:False LastHeartbeatTime:${ts} LastTransitionTime:${ts} Reason:KubeletNotReady Message:${msg}}`;
    return this.era === 'S' ? `"Node became not ready" node=${q(this.node)} condition=${cond}` : `Node became not ready: ${cond}`;
  }

  /** The three-line CRI error chain of a failed call, kubelet client first (catalog §6). */
  criError(t, key, sMsg, sFields, pMsg) {
    if (this.era === 'S') this.emit(t, 'E', key, `${q(sMsg)} err=${q(DE)}${sFields ? ` ${sFields}` : ''}`);
    else this.emit(t, 'E', key, `${pMsg}: ${DE}`);
  }

  statusErrorGo() {
    return this.era === 'G'
      ? '&status.statusError{Code:4, Message:"context deadline exceeded", Details:[]*any.Any(nil)}'
      : '&status.statusError{Code:4, Message:"context deadline exceeded", Details:[]*any.Any(nil), XXX_NoUnkeyedLiteral:struct {}{}, XXX_unrecognized:[]uint8(nil), XXX_sizecache:0}';
  }

  // --- pods -------------------------------------------------------------------------------------------------

  newPod(wl, t) {
    const r = this.rng;
    const name = wl.kind === 'deploy' ? `${wl.base}-${wl.hash}-${r.kname(5)}` : podName(r, wl.base, wl.kind, wl.ordinal++, t);
    const uid = r.uuid();
    let tokenVol;
    if (this.era === 'S' && this.minor >= 22) tokenVol = { name: `kube-api-access-${r.kname(5)}`, type: 'projected' };
    else {
      if (!this.saToken.has(wl.ns)) this.saToken.set(wl.ns, `default-token-${r.kname(5)}`);
      tokenVol = { name: this.saToken.get(wl.ns), type: 'secret' };
    }
    const vols = wl.vols.map((v) => { const [n, ty] = v.split(':'); return { name: n, type: ty }; });
    vols.push(tokenVol);
    const p = {
      wl, ns: wl.ns, name, uid, kind: wl.kind, vols, sandbox: r.hex(64), ip: `10.244.3.${r.int(2, 250)}`,
      containers: wl.ctrs.map((c) => ({ name: c, id: r.hex(64), restarts: 0 })),
      pinned: false, crash: !!wl.flags.crash, flaky: !!wl.flags.flaky, exec: wl.flags.exec || null, java: !!wl.flags.java,
      alive: true, bornUs: t,
    };
    return p;
  }

  record(t, type, p, extra = {}) {
    if (this.activity) this.activity.push({ t: Math.round(t), type, ns: p.ns, pod: p.name, uid: p.uid, sandbox: p.sandbox, ...extra });
  }

  countPods(t) {
    if (!this.podTimeline) return;
    const live = this.pods.filter((p) => p.alive);
    this.podTimeline.push([Math.round(t), live.length, live.reduce((n, p) => n + p.containers.length, 0)]);
  }

  /** Pod admission as a 1.2x kubelet logs it at --v=2: ADD, volumes, sandbox, containers, readiness. */
  addPod(t, p, { batch = false } = {}) {
    const r = this.rng;
    this.pods.push(p);
    this.countPods(t);
    if (!batch) this.syncLoop(t, 'ADD', [p]);
    let x = t + r.int(200, 2000);
    if (this.era === 'S') this.bg(x, 'sync', 'I', 'topo', `"Topology Admit Handler" podUID=${q(p.uid)} podNamespace=${q(p.ns)} podName=${q(p.name)}`);
    x += r.int(40e3, 140e3);
    for (const v of p.vols) { this.bg(x, 'any', 'I', 'volVerify', this.volText('operationExecutor.VerifyControllerAttachedVolume started', p, v)); x += r.int(50, 900); }
    x += r.int(80e3, 120e3);
    for (const v of p.vols) { this.bg(x, 'any', 'I', 'volMount', this.volText('operationExecutor.MountVolume started', p, v)); x += r.int(50, 900); }
    for (const v of p.vols) { x += r.int(1e3, 60e3); this.bg(x, 'any', 'I', 'volSetUp', this.volText('MountVolume.SetUp succeeded', p, v)); }
    x += r.int(100e3, 600e3);
    this.bg(x, 'sync', 'I', 'noSandbox', this.era === 'S'
      ? `"No sandbox for pod can be found. Need to start a new one" pod=${q(`${p.ns}/${p.name}`)}`
      : `No sandbox for pod ${q(this.podFull(p))} can be found. Need to start a new one`);
    const sbReady = x + r.int(300e3, 1500e3);
    this.record(sbReady - 150e3, 'sandbox', p);
    this.pleg(sbReady + r.int(10e3, 1000e3), p, 'ContainerStarted', p.sandbox);
    let c0 = sbReady + r.int(400e3, 4e6);
    for (const c of p.containers) {
      this.record(c0, 'start', p, { container: c.name, id: c.id });
      this.pleg(c0 + r.int(10e3, 1000e3), p, 'ContainerStarted', c.id);
      c0 += r.int(100e3, 900e3);
    }
    this.syncLoop(c0 + r.int(200e3, 1.5e6), 'UPDATE', [p]);
    if (this.era === 'S' && p.kind !== 'job' && p.kind !== 'cronjob') {
      this.bg(c0 + r.int(5e6, 25e6), 'sync', 'I', 'syncProbe', `"SyncLoop (probe)" probe="readiness" status="ready" pod=${q(`${p.ns}/${p.name}`)}`);
    }
    return c0;
  }

  /** Graceful deletion: DELETE, kill, died events, volume teardown, REMOVE, leftovers. */
  deletePod(t, p, { alreadyExited = false, grace = null, batch = false } = {}) {
    const r = this.rng;
    if (!p.alive) return;
    p.alive = false;
    this.countPods(t);
    if (!batch) this.syncLoop(t, 'DELETE', [p]);
    let x = t + r.int(300, 3000);
    const g = grace ?? (p.wl.base === 'ingress-nginx-controller' ? 300 : 30);
    if (!alreadyExited) {
      for (const c of p.containers) {
        this.bg(x, 'sync', 'I', 'killing', this.era === 'S'
          ? `"Killing container with a grace period" pod=${q(`${p.ns}/${p.name}`)} podUID=${q(p.uid)} containerName=${q(c.name)} containerID=${q(this.rtPrefix + c.id)} gracePeriod=${g}`
          : `Killing container "${this.rtPrefix}${c.id}" with ${g} second grace period`);
        x += r.int(20, 400);
      }
    }
    let died = x + (alreadyExited ? r.int(50e3, 400e3) : r.int(300e3, Math.min(g, 12) * SEC));
    if (!alreadyExited) {
      for (const c of p.containers) {
        const code = r.pick([0, 0, 0, 137, 143, 143]);
        this.record(died - 20e3, 'died', p, { container: c.name, id: c.id, exitCode: code });
        this.pleg(died + r.int(10e3, 1000e3), p, 'ContainerDied', c.id, code);
        died += r.int(1000, 300e3);
      }
    }
    this.record(died, 'sandbox-stop', p);
    const sbDied = died + r.int(200e3, 1200e3);
    this.pleg(sbDied, p, 'ContainerDied', p.sandbox);
    let u = sbDied + r.int(20e3, 200e3);
    for (const v of p.vols) { this.bg(u, 'any', 'I', 'volUnmount', this.volText('operationExecutor.UnmountVolume started', p, v, false)); u += r.int(50, 900); }
    for (const v of p.vols) { u += r.int(2e3, 40e3); this.bg(u, 'any', 'I', 'volTearDown', this.tearDownText(p, v)); }
    u += r.int(20e3, 150e3);
    for (const v of p.vols) { this.bg(u, 'any', 'I', 'volDetached', this.detachedText(p, v)); u += r.int(50, 900); }
    const rm = u + r.int(300e3, 2e6);
    this.syncLoop(rm, 'DELETE', [p]);
    this.syncLoop(rm + r.int(2e3, 30e3), 'REMOVE', [p]);
    if (r.chance(0.05)) {
      this.bg(rm + r.int(1e3, 50e3), 'sync', 'E', 'statusFail', this.era === 'S'
        ? `"Failed to update status for pod" pod=${q(`${p.ns}/${p.name}`)} podUID=${q(p.uid)} err=${q(`failed to patch status "{\\"metadata\\":{\\"uid\\":\\"${p.uid}\\"}}" for pod "${p.ns}"/"${p.name}": pods "${p.name}" not found`)}`
        : `Failed to update status for pod "${this.podFull(p)}": failed to patch status "{\\"metadata\\":{\\"uid\\":\\"${p.uid}\\"}}" for pod "${p.ns}"/"${p.name}": pods "${p.name}" not found`);
    }
    let rc = rm + r.int(50e3, 800e3);
    if (this.f('removeCtr')) {
      for (const c of p.containers) {
        this.record(rc, 'remove', p, { container: c.name, id: c.id });
        this.bg(rc, 'sync', 'I', 'removeCtr', this.era === 'S' ? `"RemoveContainer" containerID=${q(c.id)}` : `[topologymanager] RemoveContainer - Container ID: ${c.id}`);
        rc += r.int(3e3, 40e3);
      }
    }
    for (const c of p.containers) {
      if (r.chance(0.3)) {
        this.bg(died + r.int(1e3, 100e3), 'any', 'W', 'cadvisor', `Failed to process watch event {EventType:0 Name:/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${p.uid.replace(/-/g, '_')}.slice/${this.docker ? 'docker' : 'cri-containerd'}-${c.id}.scope WatchSource:0}: task ${c.id} not found: not found`);
      }
    }
    if (this.era === 'S') {
      let s = rc + r.int(3e6, 10e6);
      for (const c of p.containers) {
        this.bg(s, 'any', 'E', 'cpuStale', `"RemoveStaleState: removing container" podUID=${q(p.uid)} containerName=${q(c.name)}`);
        this.bg(s + r.int(5, 60), 'any', 'I', 'cpuDel', `"Deleted CPUSet assignment" podUID=${q(p.uid)} containerName=${q(c.name)}`);
        this.bg(s + r.int(60, 200), 'any', 'I', 'memStale', `"RemoveStaleState removing state" podUID=${q(p.uid)} containerName=${q(c.name)}`);
        s += r.int(200, 900);
      }
    }
    const orphan = rc + r.int(2e6, 40e6);
    this.bg(orphan, 'any', 'I', 'orphan', this.era === 'S'
      ? `"Cleaned up orphaned pod volumes dir" podUID=${q(p.uid)} path=${q(`/var/lib/kubelet/pods/${p.uid}/volumes`)}`
      : `Cleaned up orphaned pod volumes dir from pod ${q(p.uid)} at /var/lib/kubelet/pods/${p.uid}/volumes`);
    this.at(orphan + 1, () => { const i = this.pods.indexOf(p); if (i >= 0) this.pods.splice(i, 1); });
    return orphan;
  }

  livePods(filter = () => true) { return this.pods.filter((p) => p.alive && filter(p)); }
}

// ---------------------------------------------------------------------------------------------------------------
// Kubelet start (boot or restart) and the background traffic of an ordinary node.

Sim.prototype.systemd = function systemd(t, what) {
  const modern = this.era === 'S';
  const unit = modern ? 'kubelet.service - kubelet: The Kubernetes Node Agent' : 'kubelet: The Kubernetes Node Agent';
  const r = this.rng;
  if (what === 'start') { this.raw(t, `Started ${unit}.`, 'systemd'); return t; }
  this.raw(t, `Stopping ${unit}...`, 'systemd');
  let x = t + r.int(150e3, 1500e3);
  if (modern) this.raw(x, 'kubelet.service: Deactivated successfully.', 'systemd');
  else this.raw(x, 'kubelet.service: Succeeded.', 'systemd');
  x += r.int(200, 2000);
  this.raw(x, `Stopped ${unit}.`, 'systemd');
  if (modern) {
    const cpu = (t - (this.kubeletStartedUs ?? this.startUs)) / SEC * r.range(0.02, 0.05);
    const m = Math.floor(cpu / 60);
    this.raw(x + r.int(20, 200), `kubelet.service: Consumed ${m ? `${m}min ` : ''}${(cpu - m * 60).toFixed(3)}s CPU time.`, 'systemd');
  }
  return x;
};

/**
 * Startup block. On boot every pod is admitted from scratch (sandboxes, containers); on a restart the containers are
 * still running, so the first relist reports all of them as ContainerStarted.
 */
Sim.prototype.startKubelet = function startKubelet(t0, { restart, pid }) {
  const r = this.rng;
  const S = this.era === 'S';
  this.at(t0 - 1, () => { this.setPid(pid); this.kubeletStartedUs = t0; });
  this.kubeletStarts.push({ t: t0, pid, restart });
  this.systemd(t0 - r.int(5e3, 40e3), 'start');
  let t = t0 + r.int(30e3, 120e3);
  const step = (a = 50, b = 3000) => (t += r.int(a, b));
  const I = (key, msg, file) => (file ? this.emitF(step(), 'I', file, msg) : this.emit(step(), 'I', key, msg));
  const node = q(this.node);
  if (S) {
    this.raw(t, 'Flag --container-runtime-endpoint has been deprecated, This parameter should be set via the config file specified by the Kubelet\'s --config flag. See https://kubernetes.io/docs/tasks/administer-cluster/kubelet-config-file/ for more information.');
    this.raw(step(20, 200), 'Flag --pod-infra-container-image has been deprecated, will be removed in a future release. Image garbage collector will get sandbox image information from CRI.');
    I(null, '"--pod-infra-container-image will not be pruned by the image garbage collector in kubelet and should also be set in the remote runtime"', 'server.go:203');
    I(null, `"Kubelet version" kubeletVersion=${q(this.o.kubeletVersion)}`, 'server.go:467');
    I(null, '"Golang settings" GOGC="" GOMAXPROCS="" GOTRACEBACK=""', 'server.go:469');
    I(null, '"Client rotation is on, will bootstrap in background"', 'server.go:895');
    I(null, 'Loading cert/key pair from "/var/lib/kubelet/pki/kubelet-client-current.pem".', 'certificate_store.go:130');
    I(null, '"Starting client certificate rotation"', 'certificate_manager.go:356');
    I(null, 'feature gates: &{map[]}', 'feature_gate.go:249');
    I(null, '"Starting controller" name="client-ca-bundle::/etc/kubernetes/pki/ca.crt"', 'dynamic_cafile_content.go:157');
    I(null, '"--cgroups-per-qos enabled, but --cgroup-root was not specified.  defaulting to /"', 'server.go:725');
    I(null, '"Container manager verified user specified cgroup-root exists" cgroupRoot=[]', 'container_manager_linux.go:265');
    I(null, '"Creating Container Manager object based on Node Config" nodeConfig={"RuntimeCgroupsName":"","SystemCgroupsName":"","KubeletCgroupsName":"","KubeletOOMScoreAdj":-999,"ContainerRuntime":"","CgroupsPerQOS":true,"CgroupRoot":"/","CgroupDriver":"systemd","KubeletRootDir":"/var/lib/kubelet","ProtectKernelDefaults":false,"NodeAllocatableConfig":{"KubeReservedCgroupName":"","SystemReservedCgroupName":"","ReservedSystemCPUs":{},"EnforceNodeAllocatable":{"pods":{}},"KubeReserved":null,"SystemReserved":null,"HardEvictionThresholds":[{"Signal":"memory.available","Operator":"LessThan","Value":{"Quantity":"100Mi","Percentage":0},"GracePeriod":0,"MinReclaim":null},{"Signal":"nodefs.available","Operator":"LessThan","Value":{"Quantity":null,"Percentage":0.1},"GracePeriod":0,"MinReclaim":null},{"Signal":"nodefs.inodesFree","Operator":"LessThan","Value":{"Quantity":null,"Percentage":0.05},"GracePeriod":0,"MinReclaim":null},{"Signal":"imagefs.available","Operator":"LessThan","Value":{"Quantity":null,"Percentage":0.15},"GracePeriod":0,"MinReclaim":null}]},"QOSReserved":{},"CPUManagerPolicy":"none","CPUManagerPolicyOptions":null,"TopologyManagerScope":"container","CPUManagerReconcilePeriod":10000000000,"ExperimentalMemoryManagerPolicy":"None","ExperimentalMemoryManagerReservedMemory":null,"PodPidsLimit":-1,"EnforceCPULimits":true,"CPUCFSQuotaPeriod":100000000,"TopologyManagerPolicy":"none","TopologyManagerPolicyOptions":null}', 'container_manager_linux.go:270');
    I(null, '"Creating topology manager with none policy"', 'topology_manager.go:138');
    I(null, '"Creating device plugin manager"', 'container_manager_linux.go:301');
    I(null, '"Initialized new in-memory state store"', 'state_mem.go:36');
    I(null, '"Attempting to sync node with API server"', 'kubelet.go:393');
    I(null, '"Adding static pod path" path="/etc/kubernetes/manifests"', 'kubelet.go:298');
    I(null, '"Adding apiserver pod source"', 'kubelet.go:309');
    I(null, this.docker
      ? `"Container runtime initialized" containerRuntime="docker" version=${q(this.o.runtimeVersion)} apiVersion="1.41.0"`
      : `"Container runtime initialized" containerRuntime="containerd" version=${q(this.o.runtimeVersion)} apiVersion="v1"`, 'kuberuntime_manager.go:257');
    I(null, '"Started kubelet"', 'server.go:1227');
    I(null, '"Starting FS ResourceAnalyzer"', 'fs_resource_analyzer.go:67');
    I(null, '"Setting rate limiting for podresources endpoint" qps=100 burstTokens=10', 'ratelimit.go:65');
    I(null, '"Starting to listen" address="0.0.0.0" port=10250', 'server.go:162');
    I(null, '"Adding debug handlers to kubelet server"', 'server.go:462');
    I(null, '"Starting Kubelet Volume Manager"', 'volume_manager.go:291');
    I(null, '"Desired state populator starts to run"', 'desired_state_of_world_populator.go:151');
    I(null, '"Reconciler: start to sync state"', 'reconciler_new.go:29');
    I(null, 'Registration of the systemd container factory successfully', 'factory.go:221');
    I(null, `Registration of the ${this.docker ? 'docker' : 'containerd'} container factory successfully`, 'factory.go:221');
    I(null, '"Initialized iptables rules." protocol="IPv4"', 'kubelet_network_linux.go:50');
    I(null, '"Initialized iptables rules." protocol="IPv6"', 'kubelet_network_linux.go:50');
    I(null, '"Starting to sync pod status with apiserver"', 'status_manager.go:217');
  } else {
    const G = this.era === 'G';
    this.raw(t, 'Flag --cgroup-driver has been deprecated, This parameter should be set via the config file specified by the Kubelet\'s --config flag. See https://kubernetes.io/docs/tasks/administer-cluster/kubelet-config-file/ for more information.');
    I(null, `Version: ${this.o.kubeletVersion}`, G ? 'server.go:408' : 'server.go:416');
    if (G) I(null, 'No cloud provider specified.', 'plugins.go:97');
    else I(null, 'Client rotation is on, will bootstrap in background', 'server.go:837');
    I(null, 'feature gates: &{map[]}', G ? 'feature_gate.go:230' : 'feature_gate.go:243');
    I(null, '--cgroups-per-qos enabled, but --cgroup-root was not specified.  defaulting to /', G ? 'server.go:648' : 'server.go:645');
    I(null, 'container manager verified user specified cgroup-root exists: []', G ? 'container_manager_linux.go:243' : 'container_manager_linux.go:276');
    I(null, G ? 'Watching apiserver' : 'Watching apiserver', G ? 'kubelet.go:299' : 'kubelet.go:273');
    if (this.docker) {
      I(null, 'Connecting to docker on unix:///var/run/docker.sock', 'client.go:77');
      I(null, 'Hairpin mode set to "hairpin-veth"', 'docker_service.go:238');
      I(null, 'Docker cri networking managed by cni', 'docker_service.go:253');
    }
    I(null, this.docker
      ? `Container runtime docker initialized, version: ${this.o.runtimeVersion}, apiVersion: ${G ? '1.27.0' : '1.40.0'}`
      : `Container runtime containerd initialized, version: ${this.o.runtimeVersion}, apiVersion: v1alpha2`, G ? 'kuberuntime_manager.go:186' : 'kuberuntime_manager.go:214');
    I(null, 'Started kubelet', G ? 'server.go:986' : 'server.go:1148');
    I(null, G ? 'Starting to listen on 0.0.0.0:10250' : 'Starting to listen on 0.0.0.0:10250', G ? 'server.go:129' : 'server.go:152');
    I(null, 'Starting Kubelet Volume Manager', G ? 'volume_manager.go:247' : 'volume_manager.go:265');
    I(null, 'Desired state populator starts to run', G ? 'desired_state_of_world_populator.go:130' : 'desired_state_of_world_populator.go:139');
    I(null, 'Starting to sync pod status with apiserver', G ? 'status_manager.go:140' : 'status_manager.go:158');
  }
  // main loop, and the start-up look-alikes of an unhealthy PLEG (design §5: never a stall)
  this.emit(step(), 'I', 'mainLoop', S ? '"Starting kubelet main sync loop"' : 'Starting kubelet main sync loop.');
  const early = this.minor <= 12
    ? ['container runtime is down', 'PLEG is not healthy: pleg was last seen active 2562047h47m16.854775807s ago; threshold is 3m0s']
    : ['container runtime status check may not have completed yet', 'PLEG is not healthy: pleg has yet to be successful'];
  let bt = step(20, 400);
  let back = 1e5;
  const nArte = r.int(2, 5);
  for (let i = 0; i < nArte; i++) {
    const parts = i < 2 || this.minor <= 12 ? early : early.slice(1);
    this.emit(bt, this.skipSev, 'skip', this.skipText(parts), { artefact: true });
    bt += back + r.int(30, 300);
    back = Math.min(back * 2, 5e6);
  }
  if (S) {
    I(null, '"Starting CPU manager" policy="none"', 'cpu_manager.go:214');
    I(null, '"Reconciling" reconcilePeriod="10s"', 'cpu_manager.go:215');
    I(null, '"Initialized new in-memory state store"', 'state_mem.go:36');
    I(null, '"None policy: Start"', 'policy_none.go:49');
    I(null, '"Starting memorymanager" policy="None"', 'memory_manager.go:169');
    I(null, `"Attempting to register node" node=${node}`, 'kubelet_node_status.go:70');
    I(null, `"Node was previously registered" node=${node}`, 'kubelet_node_status.go:108');
    I(null, `"Successfully registered node" node=${node}`, 'kubelet_node_status.go:73');
  } else {
    I(null, '[cpumanager] starting with none policy', 'cpu_manager.go:184');
    I(null, '[cpumanager] none policy: Start', 'policy_none.go:43');
    I(null, `Attempting to register node ${this.node}`, 'kubelet_node_status.go:71');
    I(null, `Node ${this.node} was previously registered`, 'kubelet_node_status.go:108');
    I(null, `Successfully registered node ${this.node}`, 'kubelet_node_status.go:73');
  }
  t = Math.max(t, bt);
  for (const ev of ['NodeHasSufficientMemory', 'NodeHasNoDiskPressure', 'NodeHasSufficientPID']) this.emit(step(20, 300), 'I', 'nodeEvent', this.nodeEventText(ev));
  const readyAt = t + r.int(1.5e6, 6e6);
  if (S) this.emitF(readyAt - r.int(100, 900), 'I', 'kubelet_node_status.go:493', '"Fast updating node status as it just became ready"');
  this.emit(readyAt, 'I', 'nodeEvent', this.nodeEventText('NodeReady'), { ready: true });
  this.readyAt = readyAt;

  // pods: ADD in one batch, then admission (boot) or re-verification + first-relist events (restart)
  const addT = t + r.int(200e3, 900e3);
  const pods = this.livePods();
  this.syncLoop(addT, 'ADD', pods, 'force');
  let x = addT + r.int(1e3, 20e3);
  let last = addT;
  for (const p of pods) {
    if (restart) {
      if (S) this.emit(x, 'I', 'topo', `"Topology Admit Handler" podUID=${q(p.uid)} podNamespace=${q(p.ns)} podName=${q(p.name)}`);
      let v = x + r.int(30e3, 200e3);
      for (const vol of p.vols) { this.emit(v, 'I', 'volVerify', this.volText('operationExecutor.VerifyControllerAttachedVolume started', p, vol)); v += r.int(100, 2000); }
      for (const vol of p.vols) { v += r.int(1e3, 30e3); this.emit(v, 'I', 'volSetUp', this.volText('MountVolume.SetUp succeeded', p, vol)); }
      x += r.int(2e3, 40e3);
      last = Math.max(last, v);
    } else {
      const idx = this.pods.indexOf(p);
      if (idx >= 0) this.pods.splice(idx, 1);
      last = Math.max(last, this.addPod(x, p, { batch: true }));
      x += r.int(50e3, 900e3);
    }
  }
  if (restart) {
    // first relist after a restart: every running container is "new"
    let e = Math.max(readyAt, addT) + r.int(100e3, 800e3);
    for (const p of pods) {
      this.plegNow(e, p, 'ContainerStarted', p.sandbox);
      e += r.int(30, 400);
      for (const c of p.containers) { this.plegNow(e, p, 'ContainerStarted', c.id); e += r.int(30, 400); }
    }
    last = Math.max(last, e);
  }
  return last;
};

/** Ordinary life of a busy-enough node; rates scale with opts.rate. */
Sim.prototype.startBackground = function startBackground(t0) {
  const r = this.rng;
  const rate = this.o.rate;
  const S = this.era === 'S';
  const every = (mean, fn, first = t0) => {
    const tick = (t) => {
      if (t >= this.endUs) return;
      if (!this.incidentAt(t)) fn(t);
      this.at(t + r.exp(mean / rate) * SEC + 1, tick);
    };
    this.at(first + r.exp(mean / rate) * SEC, tick);
  };
  const refill = (t) => {
    // keep the node near its usual pod count (after evictions, the scheduler brings pods back)
    const deploys = this.wls.filter((w) => w.kind === 'deploy');
    if (this.livePods().length < this.o.pods - 2) this.addPod(t, this.newPod(r.pick(deploys), t));
  };
  // status echo from the API server (label/annotation/status patches) and the DNS warning on pod syncs
  every(22, (t) => {
    const ps = this.livePods();
    if (ps.length < this.o.pods - 2 && r.chance(0.1)) refill(t);
    if (!ps.length) return;
    const p = r.pick(ps);
    this.syncLoop(t, 'UPDATE', [p]);
    if (this.o.nameserverSpam && r.chance(0.4)) {
      this.bg(t + r.int(200, 90e3), 'sync', 'E', 'nameserver', S
        ? '"Nameserver limits exceeded" err="Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: 10.0.0.2 10.0.0.3 10.0.0.4"'
        : 'Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: 10.0.0.2 10.0.0.3 10.0.0.4');
    }
  });
  // cron jobs: a pod that runs for a while, completes, and is garbage-collected by the Job TTL
  const cron = this.wls.find((w) => w.kind === 'cronjob');
  every(300, (t) => {
    const p = this.newPod(cron, t);
    const up = this.addPod(t, p);
    const done = up + r.int(20, 150) * SEC;
    const c = p.containers[0];
    this.at(done, () => {
      if (!p.alive) return;
      this.record(done, 'died', p, { container: c.name, id: c.id, exitCode: 0 });
      this.pleg(done + r.int(10e3, 1e6), p, 'ContainerDied', c.id, 0);
      this.pleg(done + r.int(1.1e6, 2e6), p, 'ContainerDied', p.sandbox);
      this.syncLoop(done + r.int(2e6, 3e6), 'UPDATE', [p]);
    });
    this.at(done + r.int(60, 240) * SEC, (t2) => { if (!this.incidentAt(t2)) this.deletePod(t2, p, { alreadyExited: true }); else this.at(t2 + 5 * MIN, (t3) => this.deletePod(t3, p, { alreadyExited: true })); });
    refill(t);
  });
  // rollouts: new ReplicaSet pod comes up, the old one goes away
  every(1500, (t) => {
    const deploys = this.wls.filter((w) => w.kind === 'deploy' && this.livePods((p) => p.wl === w && !p.pinned && !p.crash).length);
    if (!deploys.length) return;
    const w = r.pick(deploys);
    w.hash = r.kname(10);
    let x = t;
    for (const old of this.livePods((p) => p.wl === w && !p.pinned && !p.crash)) {
      const up = this.addPod(x, this.newPod(w, x));
      this.deletePod(up + r.int(5, 25) * SEC, old);
      x = up + r.int(5, 20) * SEC;
    }
  });
  // rare noise
  every(3600, (t) => {
    const p = r.pick(this.livePods());
    if (!p) return;
    const c = r.pick(p.containers);
    this.bg(t, 'any', 'W', 'fsHandler', `fs: disk usage and inodes count on following dirs took ${r.range(1.0, 3.5).toFixed(9).replace(/0+$/, '')}s: [/var/lib/${this.docker ? 'docker/containers' : 'containerd/io.containerd.grpc.v1.cri/containers'}/${c.id}]; will not log again for this container unless duration exceeds 2s`);
  });
  if (S && this.minor >= 26) {
    every(2400, (t) => {
      const ms = r.int(1010, 1900);
      this.bg(t, 'sync', 'E', 'hkSlow', `"Housekeeping took longer than expected" err="housekeeping took too long" expected="1s" actual=${q(goDuration(ms * 1e6))}`);
    });
  }
  // flaky readiness probes: bursts of failures, then ready again
  for (const p of this.livePods((x) => x.flaky)) this.flaky(p, t0);
  // crash-looping pods
  let n = 0;
  const crashFrom = this.o.crashLoopAfterMs != null ? this.startUs + this.o.crashLoopAfterMs * 1000 : t0 + r.int(10, 120) * SEC;
  for (const p of this.livePods((x) => x.crash)) if (n++ < this.o.crashLoopPods) this.crashLoop(p, crashFrom);
};

Sim.prototype.flaky = function flaky(p, t0) {
  const r = this.rng;
  const S = this.era === 'S';
  const episode = (t) => {
    if (t >= this.endUs || !p.alive) return;
    const c = p.containers[0];
    const n = r.int(2, 10);
    const outs = [`HTTP probe failed with statuscode: 503`, `Get "http://${p.ip}:8080/ready": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, `Get "http://${p.ip}:8080/ready": dial tcp ${p.ip}:8080: connect: connection refused`];
    const out = r.pick(outs);
    let x = t;
    for (let i = 0; i < n; i++) {
      this.bg(x, 'any', 'I', 'probeFail', this.probeFailText(p, c, 'Readiness', out));
      if (i === 2 && S) this.bg(x + r.int(100, 3000), 'sync', 'I', 'syncProbe', `"SyncLoop (probe)" probe="readiness" status="" pod=${q(`${p.ns}/${p.name}`)}`);
      x += 10 * SEC + r.int(-3000, 3000);
    }
    if (n > 2 && S) this.bg(x, 'sync', 'I', 'syncProbe', `"SyncLoop (probe)" probe="readiness" status="ready" pod=${q(`${p.ns}/${p.name}`)}`);
    this.at(x + r.exp(1800 / this.o.rate) * SEC, episode);
  };
  this.at(t0 + r.exp(900 / this.o.rate) * SEC, episode);
};

Sim.prototype.crashLoop = function crashLoop(p, t0) {
  const r = this.rng;
  const S = this.era === 'S';
  const BACK = [10, 20, 40, 80, 160, 300];
  const c = p.containers[0];
  let k = 0;
  const die = (t) => {
    if (t >= this.endUs || !p.alive) return;
    const code = r.pick([1, 1, 1, 2, 137]);
    this.record(t, 'died', p, { container: c.name, id: c.id, exitCode: code });
    const seen = t + r.int(20e3, 1000e3);
    this.pleg(seen, p, 'ContainerDied', c.id, code);
    const back = BACK[Math.min(k, BACK.length - 1)];
    k++;
    const restartAt = t + back * SEC + r.int(0, 2e6);
    const pretty = goDuration(back * 1e9);
    const err = `failed to "StartContainer" for "${c.name}" with CrashLoopBackOff: "back-off ${pretty} restarting failed container=${c.name} pod=${p.name}_${p.ns}(${p.uid})"`;
    for (let x = seen + r.int(5e3, 200e3); x < restartAt - 1e6; x += r.int(8e6, 16e6)) this.bg(x, 'sync', 'E', 'podErr', this.podErrText(p, S ? err : err));
    this.at(restartAt, (t2) => {
      const inc = this.incidentAt(t2);
      if (inc) { this.at(Math.min(inc.resume, this.endUs) + r.int(2, 20) * SEC, start); return; }
      start(t2);
    });
  };
  const start = (t) => {
    if (t >= this.endUs || !p.alive) return;
    if (this.f('removeCtr')) this.bg(t, 'sync', 'I', 'removeCtr', S ? `"RemoveContainer" containerID=${q(c.id)}` : `[topologymanager] RemoveContainer - Container ID: ${c.id}`);
    this.record(t, 'remove', p, { container: c.name, id: c.id });
    c.id = r.hex(64);
    c.restarts++;
    const up = t + r.int(300e3, 2e6);
    this.record(up, 'start', p, { container: c.name, id: c.id });
    this.pleg(up + r.int(20e3, 1e6), p, 'ContainerStarted', c.id);
    this.at(up + r.int(8, 45) * SEC, die);
  };
  this.at(t0, die);
};

// ---------------------------------------------------------------------------------------------------------------
// Incidents. Each one is planned up front: first the relist schedule it implies (relistOk = relists whose GetPods
// succeeded), then the sync loop and node-status loop are replayed against runtimeErrors() of that schedule, so
// the unhealthy lines, their ages and the NotReady transitions follow from the mechanics.

class Incident {
  constructor(sim, spec, index) {
    this.sim = sim;
    this.r = sim.rng;
    this.spec = spec;
    this.index = index;
    this.cause = spec.cause;
    this.endedBy = spec.endedBy;
    this.at = Math.round(spec.at * 1000);
    this.E = Math.round((spec.at + spec.durationMs) * 1000);
    this.rec = this.endedBy === 'recovered';
    this.onset = this.at;
    this.resume = Infinity;
    this.relistOk = [];
    this.relists = [];
    this.calls = [];
    this.windows = [];
    this.deferred = [];
    this.ownEvents = [];
    this.rtDownFrom = Infinity;
    this.rtUpAt = Infinity;
    this.listHung = null;
    this.versionHung = null;
    this.notReady = [];
    this.skipMarks = [];
    this.burstAt = null;
    this.victim = null;
  }

  relistTimeAt(t) {
    let rt = t - SEC; // before the incident relists run every second
    for (const x of this.relistOk) { if (x.ok <= t) rt = x.s; else break; }
    return rt;
  }

  windowFor(rt) { return this.windows.find((w) => w.lastRelistUs === rt) || null; }

  /** runtimeErrors() at t: parts, PLEG age and the window it belongs to. */
  errsAt(t) {
    const parts = [];
    if (t >= this.rtDownFrom && t < this.rtUpAt) parts.push('container runtime is down');
    const rt = this.relistTimeAt(t);
    let win = null;
    let ageNs = 0;
    if (t - rt > THRESH) {
      ageNs = (t - rt) * 1000 + this.r.int(0, 999);
      parts.push(`PLEG is not healthy: pleg was last seen active ${goDuration(ageNs)} ago; threshold is 3m0s`);
      win = this.windowFor(rt);
    }
    return parts.length ? { parts, win, ageNs } : null;
  }

  computeWindows() {
    const ok = this.relistOk;
    for (let i = 0; i < ok.length; i++) {
      const cur = ok[i];
      const next = ok[i + 1];
      if (!next && this.rec) continue;
      const end = next ? next.ok : this.E;
      if (end - cur.s <= THRESH) continue;
      this.windows.push({
        incident: this.index, cause: this.cause, lastRelistUs: cur.s, fromUs: cur.s + THRESH, endUs: end,
        endedBy: next ? 'recovered' : this.endedBy, lines: 0, skipLines: 0, first: null, last: null, maxAgeNs: 0,
        notReadyLine: null, notReadyUs: null,
      });
    }
  }

  /** Replays the sync loop: skip lines with back-off, and housekeeping blocked on the runtime cache. */
  runSyncLoop(from, to) {
    const s = this.sim;
    const r = this.r;
    let t = from;
    let back = 0;
    let nextHK = from + r.int(0, 2 * SEC);
    let mark = null;
    while (t < to) {
      const e = this.errsAt(t);
      if (e) {
        if (!mark) { mark = { from: t, to: null }; this.skipMarks.push(mark); }
        s.emit(t, s.skipSev, 'skip', s.skipText(e.parts), e.win ? { win: e.win, ageNs: e.ageNs, skip: true } : undefined);
        back = back ? Math.min(back * 2, 5 * SEC) : 0.1 * SEC;
        t += back + r.int(20, 400);
        continue;
      }
      if (mark) { mark.to = t; mark = null; }
      back = 0;
      if (t >= nextHK) {
        if (this.listHung && t >= this.listHung[0] && t < this.listHung[1]) {
          const dl = t + CRI_TIMEOUT + r.int(100, 900);
          let end;
          if (dl < this.listHung[1]) {
            end = dl;
            this.housekeepingFail(dl);
            this.calls.push({ op: 'list_podsandbox', s: t, e: dl, ok: false });
          } else if (this.rec) {
            end = this.listHung[1] + r.int(1000, 4000);
            this.calls.push({ op: 'list_podsandbox', s: t, e: end, ok: true });
          } else break;
          if (s.era === 'S' && s.minor >= 26) {
            s.emit(end + r.int(100, 600), 'E', 'hkSlow', `"Housekeeping took longer than expected" err="housekeeping took too long" expected="1s" actual=${q(goDuration(Math.round((end - t) / 1000) * 1e6))}`);
          }
          t = end + r.int(200, 900);
          nextHK = t;
          continue;
        }
        nextHK = t + 2 * SEC;
      }
      t += r.int(150e3, 1000e3);
    }
    if (mark) mark.to = null;
  }

  housekeepingFail(t) {
    const s = this.sim;
    if (s.era === 'S') {
      s.criError(t, 'rrListSandbox', 'ListPodSandbox with filter from runtime service failed', `filter=${q(READY_FILTER)}`);
      s.emit(t + 25, 'E', 'krListSandbox', `"Failed to list pod sandboxes" err=${q(DE)}`);
      s.emit(t + 60, 'E', 'listErr', `"Error listing containers" err=${q(DE)}`);
      s.emit(t + 90, 'E', 'cleanFail', `"Failed cleaning pods" err=${q(DE)}`);
    } else {
      s.criError(t, 'rrListSandbox', '', '', `ListPodSandbox with filter ${READY_FILTER} from runtime service failed`);
      s.emit(t + 25, 'E', 'krListSandbox', `ListPodSandbox failed: ${DE}`);
      s.emit(t + 60, 'E', 'listErr', `Error listing containers: ${s.statusErrorGo()}`);
      s.emit(t + 90, 'E', 'cleanFail', `Failed cleaning pods: ${DE}`);
    }
  }

  /** Replays the node-status loop (every 10 s, +4 % jitter); a hung runtime blocks it in Version() for 2 min. */
  runNodeStatus(from, to) {
    const s = this.sim;
    const r = this.r;
    let t = from - r.int(0, 10 * SEC);
    let ready = true;
    let cur = null;
    while (t < to) {
      let done = t + r.int(2000, 9000);
      if (this.versionHung && t >= this.versionHung[0] && t < this.versionHung[1]) {
        const dl = t + CRI_TIMEOUT + r.int(100, 900);
        if (dl < this.versionHung[1]) {
          done = dl;
          if (s.era === 'S') {
            s.emit(dl, 'E', 'rrVersion', `"Version from runtime service failed" err=${q(DE)}`);
            s.emit(dl + 30, 'E', 'krVersion', `"Get remote runtime typed version failed" err=${q(DE)}`);
          } else {
            s.emit(dl, 'E', 'rrVersion', `Version from runtime service failed: ${DE}`);
            s.emit(dl + 30, 'E', 'krVersion', `Get remote runtime version failed: ${DE}`);
          }
          this.calls.push({ op: 'version', s: t, e: dl, ok: false });
        } else if (this.rec) {
          done = this.versionHung[1] + r.int(2000, 6000);
          this.calls.push({ op: 'version', s: t, e: done, ok: true });
        } else break;
      }
      if (done > t + 10e3) done += r.int(60, 250); // the setters run after the blocked Version() returned
      const e = this.errsAt(done);
      if (e && ready) {
        const txt = s.notReadyText(done, e.parts);
        cur = { fromUs: done, toUs: null, message: s.minor <= 13 ? e.parts.join(',') : s.aggregate(e.parts), line: null, readyLine: null };
        this.notReady.push(cur);
        s.emit(done, 'I', 'nodeEvent', s.nodeEventText('NodeNotReady'), { nr: cur, nrEvent: true });
        s.emit(done + r.int(10, 60), 'I', 'notReady', txt, { nr: cur, win: e.win, ageNs: e.ageNs });
        ready = false;
      } else if (!e && !ready) {
        s.emit(done, 'I', 'nodeEvent', s.nodeEventText('NodeReady'), { ready: cur });
        cur.toUs = done;
        ready = true;
      }
      t = done + 10 * SEC + r.int(0, 400e3);
    }
  }

  /** A periodic caller whose first call at `first` (>= the hang) blocks; returns the completion of the call in flight at E. */
  hungLoop(first, period, timeout, op, onFail) {
    const r = this.r;
    let t = first;
    for (;;) {
      if (t >= this.E) return null;
      const dl = t + timeout + r.int(100, 900);
      if (dl < this.E) {
        onFail(dl, t);
        this.calls.push({ op, s: t, e: dl, ok: false });
        t = dl + period + r.int(1000, 300e3);
        continue;
      }
      if (!this.rec) return null;
      const e = this.E + r.int(1000, 5000);
      this.calls.push({ op, s: t, e, ok: true });
      return e;
    }
  }

  plan() {
    const fn = {
      list_timeout: this.planListTimeout, container_status_timeout: this.planContainerStatus, slow_relist: this.planSlowRelist,
      deadlock: this.planDeadlock, cni: this.planCni,
    }[this.cause];
    fn.call(this);
    this.finish();
  }

  // --- causes ---------------------------------------------------------------------------------------------

  planListTimeout() {
    const s = this.sim;
    const r = this.r;
    const at = this.at;
    const E = this.E;
    const rd = this.spec.runtimeDown ?? true;
    const H = at + r.int(3000, 9000);
    this.hangFrom = H;
    this.relistOk.push({ s: at, ok: at + r.int(1500, 3500) });
    const firstEnd = at + r.int(4000, 12000);
    this.relists.push({ s: at, e: firstEnd, ok: true });
    this.listHung = [H, E];
    let t = firstEnd + SEC + r.int(50, 400);
    for (;;) {
      if (t >= E) {
        if (this.rec) {
          const ok = t + r.int(2000, 5000);
          this.relistOk.push({ s: t, ok });
          this.calls.push({ op: 'list_podsandbox', s: t, e: ok - 1200, ok: true }, { op: 'list_containers', s: ok - 1100, e: ok - 200, ok: true });
          this.relists.push({ s: t, e: ok + r.int(300e3, 1500e3), ok: true });
          this.burstAt = ok;
        }
        break;
      }
      const dl = t + CRI_TIMEOUT + r.int(200, 900);
      if (dl < E) {
        if (s.era === 'S') {
          s.criError(dl, 'rrListSandbox', 'ListPodSandbox with filter from runtime service failed', 'filter="nil"');
          s.emit(dl + r.int(15, 60), 'E', 'krListSandbox', `"Failed to list pod sandboxes" err=${q(DE)}`);
          s.emit(dl + r.int(70, 130), 'E', 'unableRetrieve', `"GenericPLEG: Unable to retrieve pods" err=${q(DE)}`);
        } else {
          s.criError(dl, 'rrListSandbox', '', '', 'ListPodSandbox with filter nil from runtime service failed');
          s.emit(dl + r.int(15, 60), 'E', 'krListSandbox', `ListPodSandbox failed: ${DE}`);
          s.emit(dl + r.int(70, 130), 'E', 'unableRetrieve', `GenericPLEG: Unable to retrieve pods: ${DE}`);
        }
        this.calls.push({ op: 'list_podsandbox', s: t, e: dl, ok: false });
        const e = dl + r.int(150, 300);
        this.relists.push({ s: t, e, ok: false });
        t = e + SEC + r.int(50, 400);
        continue;
      }
      if (this.rec) {
        const ok = E + r.int(1500, 4000);
        this.relistOk.push({ s: t, ok });
        this.calls.push({ op: 'list_podsandbox', s: t, e: ok - r.int(800, 1200), ok: true }, { op: 'list_containers', s: ok - 700, e: ok - 100, ok: true });
        this.relists.push({ s: t, e: ok + r.int(300e3, 1500e3), ok: true });
        this.burstAt = ok;
      }
      break;
    }
    if (rd) {
      // updateRuntimeUp: Status every 5 s; the runtime is "down" 30 s after the last good one
      const first = H + r.int(0, 5 * SEC);
      this.rtDownFrom = first - 5 * SEC + r.int(1000, 3000) + 30 * SEC;
      const up = this.hungLoop(first, 5 * SEC, CRI_TIMEOUT, 'status', (dl) => {
        if (s.era === 'S') {
          s.emit(dl, 'E', 'rrStatus', `"Status from runtime service failed" err=${q(DE)}`);
          s.emit(dl + r.int(20, 80), 'E', 'sanity', `"Container runtime sanity check failed" err=${q(DE)}`);
        } else {
          s.emit(dl, 'E', 'rrStatus', `Status from runtime service failed: ${DE}`);
          s.emit(dl + r.int(20, 80), 'E', 'sanity', `Container runtime sanity check failed: ${DE}`);
        }
      });
      this.rtUpAt = up ?? (this.rec ? E + r.int(1000, 5000) : Infinity);
      this.versionHung = [H, E];
      // exec probes need the runtime too (ExecSync timeout = probe timeout + 2 min)
      for (const p of s.livePods((x) => x.exec)) {
        const c = p.containers[0];
        this.hungLoop(H + r.int(0, 10 * SEC), 10 * SEC, CRI_TIMEOUT + SEC, 'exec_sync', (dl) => {
          if (s.era === 'S') {
            const cmd = s.minor >= 28 ? `[${p.exec.map(q).join(',')}]` : `[${p.exec.join(' ')}]`;
            s.emit(dl, 'E', 'rrExec', `"ExecSync cmd from runtime service failed" err=${q(DE)} containerID=${q(c.id)} cmd=${cmd}`);
            s.emit(dl + r.int(20, 90), 'E', 'probeErr', `"Probe errored" err=${q(DE)} probeType="Liveness" pod=${q(`${p.ns}/${p.name}`)} podUID=${q(p.uid)} containerName=${q(c.name)}`);
          } else {
            s.emit(dl, 'E', 'rrExec', `ExecSync ${c.id} '${p.exec.join(' ')}' from runtime service failed: ${DE}`);
            s.emit(dl + r.int(20, 90), 'I', 'probeErr', `Liveness probe for "${s.podFull(p)}:${c.name}" errored: ${DE}`);
          }
        });
      }
    }
    // container GC lists containers once a minute
    this.hungLoop(H + r.int(0, MIN), MIN, CRI_TIMEOUT, 'list_containers', (dl) => {
      if (s.era === 'S') {
        s.criError(dl, 'rrListCtr', 'ListContainers with filter from runtime service failed', `filter=${q(CTR_FILTER)}`);
        s.emit(dl + r.int(15, 60), 'E', 'krListCtr', `"ListContainers failed" err=${q(DE)}`);
        s.emit(dl + r.int(70, 130), 'E', 'gcFail', `"Container garbage collection failed" err=${q(DE)}`);
      } else {
        s.criError(dl, 'rrListCtr', '', '', `ListContainers with filter ${CTR_FILTER} from runtime service failed`);
        s.emit(dl + r.int(15, 60), 'E', 'krListCtr', `getKubeletContainers failed: ${DE}`);
        s.emit(dl + r.int(70, 130), 'E', 'gcFail', `Container garbage collection failed: ${DE}`);
      }
    });
    // a workload container exits while the runtime is hung; the kubelet only learns it after recovery
    const v = s.livePods((p) => p.java && !p.pinned)[0] || s.livePods((p) => !p.pinned && p.kind === 'deploy')[0];
    if (v) {
      v.pinned = true;
      const c = v.containers[0];
      const diedUs = H + r.int(1, 4) * SEC;
      this.victim = { pod: v, container: c, oldId: c.id, diedUs, exitCode: 137 };
      this.ownEvents.push({ p: v, type: 'ContainerDied', data: c.id, exitCode: 137 });
      s.record(diedUs, 'died', v, { container: c.name, id: c.id, exitCode: 137, oom: true });
    }
  }

  planContainerStatus() {
    const s = this.sim;
    const r = this.r;
    const v = this.pickVictim((p) => p.containers.length >= 1 && p.kind === 'deploy');
    const c = v.containers[0];
    this.victim = { pod: v, container: c, oldId: c.id };
    // relist 0 (starts S0) inspects the pod once and hangs 2 min; relist 1 starts exactly at `at`
    const g = () => r.int(1500, 4000);
    const hang = () => CRI_TIMEOUT + r.int(200, 900);
    const g0 = g(), h0 = hang(), tail0 = r.int(200, 900), gap0 = SEC + r.int(50, 400);
    const S0 = this.at - (g0 + h0 + 100 + tail0 + gap0);
    this.onset = S0 - 80 * SEC;
    this.relistOk.push({ s: S0, ok: S0 + g0 });
    const fail = (dl, event) => {
      if (s.era === 'S') {
        s.emit(dl, 'E', 'rrCtrStatus', `"ContainerStatus from runtime service failed" err=${q(DE)} containerID=${q(c.id)}`);
        s.emit(dl + r.int(20, 80), 'E', 'krPodCtrStatus', `"getPodContainerStatuses for pod failed" err=${q(DE)} pod=${q(`${v.ns}/${v.name}`)}`);
        if (event && s.o.verbosity >= 4) s.emit(dl + r.int(90, 150), 'E', 'ignoring', `"PLEG: Ignoring events for pod" err=${q(DE)} pod=${q(`${v.ns}/${v.name}`)}`);
      } else {
        s.emit(dl, 'E', 'rrCtrStatus', `ContainerStatus ${q(c.id)} from runtime service failed: ${DE}`);
        s.emit(dl + r.int(20, 80), 'E', 'krPodCtrStatus', `getPodContainerStatuses for pod ${q(s.podFull(v))} failed: ${DE}`);
        // catalog §2.3: E in glog (<=1.12); V(4) Info in the klog printf era; name/namespace order as in the source
        if (event && (s.era === 'G' || s.o.verbosity >= 4)) s.emit(dl + r.int(90, 150), s.era === 'G' ? 'E' : 'I', 'ignoring', `PLEG: Ignoring events for pod ${v.name}/${v.ns}: ${DE}`);
        if (!event && s.era === 'G') s.emit(dl + r.int(90, 150), 'E', 'reinspect', `PLEG: pod ${v.name}/${v.ns} failed reinspection: ${DE}`);
      }
    };
    this.relistLoop(S0, g0, (k) => (k === 0 ? 1 : 2), (dl, s0, i) => {
      fail(dl, i === 0);
      this.calls.push({ op: 'container_status', s: s0, e: dl, ok: false });
    }, 'container_status', { hang: h0, tail: tail0, gap: gap0 });
    // the story before the hang: liveness fails, the kubelet kills the container, the shim never answers again
    const p0 = S0 - 75 * SEC;
    const out = `Get "http://${v.ip}:8080/healthz": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`;
    for (let i = 0; i < 3; i++) s.emit(p0 + i * 10 * SEC + r.int(0, 3000), 'I', 'probeFail', s.probeFailText(v, c, 'Liveness', out));
    const k0 = p0 + 20 * SEC + r.int(20e3, 80e3);
    if (s.era === 'S') {
      s.emit(k0, 'I', 'syncProbe', `"SyncLoop (probe)" probe="liveness" status="unhealthy" pod=${q(`${v.ns}/${v.name}`)}`);
      s.emit(k0 + r.int(200, 2000), 'I', 'ctrMessage', `"Message for Container of pod" containerName=${q(c.name)} containerStatusID={"Type":${q(s.docker ? 'docker' : 'containerd')},"ID":${q(c.id)}} pod=${q(`${v.ns}/${v.name}`)} containerMessage=${q(`Container ${c.name} failed liveness probe, will be restarted`)}`);
    } else {
      s.emit(k0, 'I', 'syncProbe', `SyncLoop (container unhealthy): ${q(s.podFull(v))}`);
    }
    this.killFrom = k0 + r.int(2000, 9000);
    this.killVictim = v;
    this.killContainer = c;
    this.ownEvents.push({ p: v, type: 'ContainerDied', data: c.id, exitCode: 137 });
    s.record(S0 - r.int(1, 5) * SEC, 'hang', v, { container: c.name, id: c.id });
  }

  planCni() {
    const s = this.sim;
    const r = this.r;
    const victims = [];
    for (let i = 0; i < 3; i++) victims.push(this.pickVictim((p) => p.kind === 'deploy' && !victims.includes(p)));
    this.victims = victims;
    const g0 = r.int(1500, 4000), h0 = CRI_TIMEOUT + r.int(200, 900), tail0 = r.int(200, 900), gap0 = SEC + r.int(50, 400);
    const S0 = this.at - (g0 + h0 + 100 + tail0 + gap0);
    this.onset = S0 - 25 * SEC;
    this.relistOk.push({ s: S0, ok: S0 + g0 });
    const cniErr = (p) => `CNI failed to retrieve network namespace path: cannot find network namespace for the terminated container "${p.sandbox}"`;
    const plug = s.minor <= 15 ? 'NetworkPlugin' : 'networkPlugin';
    this.relistLoop(S0, g0, (k) => Math.min(k + 1, 3), (dl, s0, i) => {
      const p = victims[i % victims.length];
      if (s.era === 'S') s.emit(dl, 'E', 'krSandboxStatus', `"PodSandboxStatus of sandbox for pod" err=${q(DE)} podSandboxID=${q(p.sandbox)} pod=${q(`${p.ns}/${p.name}`)}`);
      else s.emit(dl, 'E', 'krSandboxStatus', `PodSandboxStatus of sandbox ${q(p.sandbox)} for pod ${q(s.podFull(p))} error: ${DE}`);
      const w = s0 + r.int(150, 175) * SEC;
      if (w < this.E) s.emit(w, 'W', 'cniStatus', `failed to read pod IP from plugin/docker: ${plug} cni failed on the status hook for pod "${p.name}_${p.ns}": ${cniErr(p)}`);
      this.calls.push({ op: 'podsandbox_status', s: s0, e: dl, ok: false });
    }, 'podsandbox_status', { hang: h0, tail: tail0, gap: gap0 });
    // a new pod whose CNI ADD hangs and holds the per-pod lock: RunPodSandbox times out after 4 min, again and again
    const wl = s.wls.find((w) => w.base === 'cart');
    const x = s.newPod(wl, S0 - 20 * SEC);
    this.cniPod = x;
    s.syncLoop(S0 - 20 * SEC, 'ADD', [x], 'force');
    for (let t = S0 - 19 * SEC; ;) {
      const dl = t + 2 * CRI_TIMEOUT + r.int(200, 900);
      if (dl >= this.E) break;
      const full = s.podFull(x);
      if (s.era === 'S') {
        s.emit(dl, 'E', 'rrRunSandbox', `"RunPodSandbox from runtime service failed" err=${q(DE)}`);
        s.emit(dl + 40, 'E', 'krCreateSandbox', `"Failed to create sandbox for pod" err=${q(DE)} pod=${q(`${x.ns}/${x.name}`)}`);
        s.emit(dl + 80, 'E', 'krCreateSandbox2', `"CreatePodSandbox for pod failed" err=${q(DE)} pod=${q(`${x.ns}/${x.name}`)}`);
        s.emit(dl + 120, 'E', 'podErr', s.podErrText(x, `failed to "CreatePodSandbox" for "${full}" with CreatePodSandboxError: "Failed to create sandbox for pod \\"${full}\\": ${DE}"`));
      } else {
        s.emit(dl, 'E', 'rrRunSandbox', `RunPodSandbox from runtime service failed: ${DE}`);
        s.emit(dl + 40, 'E', 'krCreateSandbox', `CreatePodSandbox for pod ${q(full)} failed: ${DE}`);
        s.emit(dl + 80, 'E', 'krCreateSandbox2', `createPodSandbox for pod ${q(full)} failed: ${DE}`);
        s.emit(dl + 120, 'E', 'podErr', s.podErrText(x, `failed to "CreatePodSandbox" for "${full}" with CreatePodSandboxError: "CreatePodSandbox for pod \\"${full}\\" failed: ${DE}"`));
      }
      this.calls.push({ op: 'run_podsandbox', s: t, e: dl, ok: false });
      t = dl + r.int(10, 20) * SEC;
    }
  }

  planSlowRelist() {
    const s = this.sim;
    const r = this.r;
    const wl = s.wls.find((w) => w.kind === 'job');
    this.onset = this.at - 60 * SEC;
    const N = r.int(150, 260);
    const pods = [];
    for (let i = 0; i < N; i++) pods.push(s.newPod(wl, this.onset));
    this.churnPods = pods;
    for (let i = 0, t = this.onset + r.int(0, 2e6); i < N; i += 10, t += r.int(1e6, 5e6)) s.syncLoop(t, 'ADD', pods.slice(i, i + 10), 'force');
    // consecutive relists that each take a bit more than the threshold: GetPodStatus for every changed pod, serially
    let t = this.at;
    const plan = [];
    while (t < this.E) {
      const ok = t + r.int(20e3, 80e3);
      const d = r.int(182, 228) * SEC;
      this.relistOk.push({ s: t, ok });
      plan.push({ s: t, ok, e: t + d });
      this.relists.push({ s: t, e: t + d, ok: true });
      t = t + d + SEC + r.int(50, 400);
    }
    if (this.rec) {
      const ok = t + r.int(5000, 20000);
      this.relistOk.push({ s: t, ok });
      this.relists.push({ s: t, e: ok + r.int(200e3, 900e3), ok: true });
    }
    this.slowPlan = plan;
  }

  planDeadlock() {
    this.relistOk.push({ s: this.at, ok: this.at + this.r.int(1500, 3500) });
    this.relists.push({ s: this.at, e: Infinity, ok: true }); // the relist never returns: no metric sample
    if (this.rec) {
      const t = this.E;
      this.relistOk.push({ s: t, ok: t + this.r.int(1500, 3500) });
      this.burstAt = t + 4000;
    }
  }

  pickVictim(filter) {
    const s = this.sim;
    const cands = s.livePods((p) => !p.pinned && !p.crash && filter(p));
    const p = cands.length ? this.r.pick(cands) : s.livePods()[0];
    p.pinned = true;
    return p;
  }

  /**
   * Relists that each inspect `hangsFor(k)` pods whose status call hangs for the full 2 min deadline (container
   * status, CNI). relistOk[0] (start S0) is pushed by the caller. The hang in flight at E returns; the next relist is
   * fast and ends the incident.
   */
  relistLoop(S0, g0, hangsFor, onFail, op, first) {
    const r = this.r;
    let s = S0;
    let ok = S0 + g0;
    for (let k = 0; ; k++) {
      let x = ok;
      let crossed = false;
      for (let i = 0, n = hangsFor(k); i < n; i++) {
        // the first relist's timing is fixed by the caller so that the next relist starts exactly at `at`
        const dl = x + (k === 0 && first ? first.hang : CRI_TIMEOUT + r.int(200, 900));
        if (dl >= this.E) {
          crossed = true;
          if (this.rec) {
            const back = this.E + r.int(1000, 4000);
            this.calls.push({ op, s: x, e: back, ok: true });
            this.burstAt = back;
            x = back;
          }
          break;
        }
        onFail(dl, x, i);
        x = dl + (k === 0 && first ? 100 : r.int(50, 300));
      }
      if (crossed && !this.rec) break; // restart / end of log while still hung: the relist never finishes
      const e = x + (k === 0 && first ? first.tail : r.int(200, 900));
      this.relists.push({ s, e, ok: true });
      const next = e + (k === 0 && first ? first.gap : SEC + r.int(50, 400));
      if (next >= this.E && !this.rec) break;
      const nok = next + r.int(1500, 4000);
      this.relistOk.push({ s: next, ok: nok });
      if (crossed || next >= this.E) {
        this.burstAt ??= nok;
        this.relists.push({ s: next, e: nok + r.int(200e3, 900e3), ok: true });
        break;
      }
      s = next;
      ok = nok;
    }
  }

  // --- common tail ----------------------------------------------------------------------------------------

  finish() {
    const s = this.sim;
    const r = this.r;
    this.computeWindows();
    const lastWin = this.windows[this.windows.length - 1];
    const recT = this.rec ? Math.max(this.relistOk[this.relistOk.length - 1].ok, lastWin ? lastWin.endUs : 0) : this.E;
    this.recoveredUs = this.rec ? recT : null;
    this.runSyncLoop(this.onset, this.rec ? recT + 10 * SEC : this.E);
    this.runNodeStatus(this.onset, this.rec ? recT + 25 * SEC : this.E);
    if (this.cause === 'slow_relist') this.emitSlowRelist();
    if (this.cause === 'container_status_timeout') this.emitKillRetries();
    if (this.rec) {
      const b = this.burstAt ?? recT;
      this.resume = b;
      s.at(b, (t) => this.burst(t));
    } else if (this.endedBy === 'restart') {
      const stopEnd = s.systemd(this.E, 'stop');
      const t0 = stopEnd + r.int(1, 3) * SEC + r.int(0, 999e3);
      this.restartUs = t0;
      this.resume = t0 + 30 * SEC;
      s.at(t0 - 10, (t) => {
        const end = s.startKubelet(t + 10, { restart: true, pid: s.pid + r.int(1500, 40000) });
        this.resume = Math.min(this.resume, end);
        const nr = this.notReady[this.notReady.length - 1];
        if (nr && nr.toUs == null) nr.toUs = s.readyAt;
      });
    } else {
      s.endUs = Math.min(s.endUs, this.E);
    }
  }

  skipResumeAfter(t) {
    for (const m of this.skipMarks) if (m.from <= t && (m.to == null || m.to > t)) return m.to ?? t;
    return t;
  }

  /** What the first working relist reports, and what the API server queued for the node meanwhile. */
  burst(b) {
    const s = this.sim;
    const r = this.r;
    const syncAt = Math.max(b, this.skipResumeAfter(b)) + r.int(100, 900);
    let x = b + r.int(100, 2000);
    let y = syncAt;
    for (const ev of [...this.ownEvents, ...this.deferred]) {
      if (!ev.p.alive && ev.type !== 'ContainerDied') continue;
      if (ev.type === 'ContainerDied' && ev.exitCode != null && s.era === 'S') s.emit(x, 'I', 'finished', s.finishedText(ev.p, ev.data, ev.exitCode));
      y = Math.max(y, x) + r.int(40, 400);
      s.emit(y, 'I', 'syncPleg', s.plegEventText(ev.p, ev.type, ev.data));
      x += r.int(100, 3000);
    }
    // the node lifecycle controller flipped every pod's Ready condition; the updates arrive together
    const live = s.livePods();
    const nrFrom = this.notReady.length ? this.notReady[0].fromUs : null;
    const evict = nrFrom != null && b - nrFrom > 305 * SEC;
    let u = y + r.int(50e3, 400e3);
    for (let i = 0; i < live.length; i += 6) { s.syncLoop(u, 'UPDATE', live.slice(i, i + 6), 'force'); u += r.int(5e3, 200e3); }
    if (evict) {
      // NoExecute taint node.kubernetes.io/not-ready: tolerationSeconds=300 expired while the kubelet was blind
      const gone = live.filter((p) => p.kind !== 'ds' && !p.pinned && !p.crash);
      if (gone.length) s.syncLoop(u + r.int(10e3, 100e3), 'DELETE', gone, 'force');
      let d = u + r.int(200e3, 600e3);
      for (const p of gone) { s.deletePod(d, p, { batch: true }); d += r.int(5e3, 300e3); }
      this.evicted = gone.map((p) => `${p.ns}/${p.name}`);
    }
    // the victim comes back with a fresh container
    if (this.victim) {
      const { pod: p, container: c } = this.victim;
      const t = syncAt + r.int(2, 8) * SEC;
      s.at(t, (t2) => {
        if (!p.alive) return;
        if (s.f('removeCtr')) s.emit(t2, 'I', 'removeCtr', s.era === 'S' ? `"RemoveContainer" containerID=${q(c.id)}` : `[topologymanager] RemoveContainer - Container ID: ${c.id}`);
        s.record(t2, 'remove', p, { container: c.name, id: c.id });
        c.id = r.hex(64);
        c.restarts++;
        this.victim.newId = c.id;
        const up = t2 + r.int(400e3, 2e6);
        s.record(up, 'start', p, { container: c.name, id: c.id });
        s.pleg(up + r.int(20e3, 900e3), p, 'ContainerStarted', c.id);
      });
    }
    if (this.cause === 'slow_relist') {
      let d = u + r.int(30, 90) * SEC;
      for (let i = 0; i < this.churnPods.length; i += 10) { s.syncLoop(d, 'DELETE', this.churnPods.slice(i, i + 10), 'force'); d += r.int(1e6, 4e6); }
    }
  }

  emitSlowRelist() {
    const s = this.sim;
    const r = this.r;
    const pods = this.churnPods;
    let pi = 0;
    for (const rl of this.slowPlan) {
      // serial GetPodStatus for each changed pod; events go out as each pod is done
      let x = rl.ok + r.int(100e3, 600e3);
      while (x < rl.e - 500e3) {
        const p = pods[pi++ % pods.length];
        const per = r.int(500e3, 1400e3);
        this.calls.push({ op: 'list_podsandbox', s: x, e: x + per * 0.2, ok: true }, { op: 'podsandbox_status', s: x + per * 0.2, e: x + per * 0.5, ok: true },
          { op: 'list_containers', s: x + per * 0.5, e: x + per * 0.7, ok: true }, { op: 'container_status', s: x + per * 0.7, e: x + per, ok: true });
        x += per;
        const c = p.containers[0];
        const evs = pi <= pods.length ? [['ContainerStarted', p.sandbox, null], ['ContainerStarted', c.id, null]] : [['ContainerDied', c.id, r.pick([0, 0, 0, 1])], ['ContainerDied', p.sandbox, null]];
        for (const [type, data, code] of evs) {
          if (type === 'ContainerDied' && code != null && s.era === 'S') s.emit(x, 'I', 'finished', s.finishedText(p, data, code));
          const sync = this.skipResumeAfter(x);
          s.emit(Math.max(x, sync) + r.int(30, 300), 'I', 'syncPleg', s.plegEventText(p, type, data));
          x += r.int(20, 300);
        }
        if (s.era === 'S' && s.minor >= 26 && r.chance(0.02) && this.skipResumeAfter(x) === x) {
          s.emit(x + r.int(100, 900), 'E', 'hkSlow', `"Housekeeping took longer than expected" err="housekeeping took too long" expected="1s" actual=${q(goDuration(r.int(1100, 2900) * 1e6))}`);
        }
      }
    }
  }

  emitKillRetries() {
    const s = this.sim;
    const r = this.r;
    const v = this.killVictim;
    const c = this.killContainer;
    const S = s.era === 'S';
    let t = this.killFrom;
    while (t < this.E) {
      t = this.skipResumeAfter(t);
      if (t >= this.E) break;
      s.emit(t, 'I', 'killing', S
        ? `"Killing container with a grace period" pod=${q(`${v.ns}/${v.name}`)} podUID=${q(v.uid)} containerName=${q(c.name)} containerID=${q(s.rtPrefix + c.id)} gracePeriod=30`
        : `Killing container "${s.rtPrefix}${c.id}" with 30 second grace period`);
      const dl = t + 30 * SEC + CRI_TIMEOUT + r.int(100, 900);
      if (dl >= this.E) { if (this.rec) this.calls.push({ op: 'stop_container', s: t, e: this.E + r.int(1000, 3000), ok: true }); break; }
      if (S) {
        s.emit(dl, 'E', 'rrStopCtr', `"StopContainer from runtime service failed" err=${q(DE)} containerID=${q(c.id)}`);
        s.emit(dl + 40, 'E', 'termFail', `"Container termination failed with gracePeriod" err=${q(DE)} pod=${q(`${v.ns}/${v.name}`)} podUID=${q(v.uid)} containerName=${q(c.name)} containerID=${q(s.rtPrefix + c.id)} gracePeriod=30`);
        s.emit(dl + 90, 'E', 'podErr', s.podErrText(v, `failed to "KillContainer" for "${c.name}" with KillContainerError: "${DE}"`));
      } else {
        s.emit(dl, 'E', 'rrStopCtr', `StopContainer ${q(c.id)} from runtime service failed: ${DE}`);
        s.emit(dl + 40, 'E', 'termFail', `Container ${q(s.rtPrefix + c.id)} termination failed with gracePeriod 30: ${DE}`);
        s.emit(dl + 90, 'E', 'podErr', s.podErrText(v, `failed to "KillContainer" for "${c.name}" with KillContainerError: "${DE}"`));
      }
      this.calls.push({ op: 'stop_container', s: t, e: dl, ok: false });
      t = dl + r.int(10, 15) * SEC;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Envelopes, main loop, ground truth.

Sim.prototype.init = function init() {
  const r = this.rng;
  const o = this.o;
  for (const wl of this.wls) {
    const n = wl.kind === 'ds' ? 1 : wl.flags.replicas;
    for (let i = 0; i < n; i++) this.pods.push(this.newPod(wl, this.startUs));
  }
  const scalable = this.wls.filter((w) => w.kind === 'deploy' && !w.flags.crash);
  for (let i = 0; this.pods.length < o.pods; i++) this.pods.push(this.newPod(scalable[i % scalable.length], this.startUs));
  // incidents are planned before any traffic so background activity can step around them
  let prevEnd = -Infinity;
  o.stalls.forEach((spec, i) => {
    const inc = new Incident(this, spec, i);
    this.incidents.push(inc);
    inc.plan();
    if (inc.onset < prevEnd) throw new Error(`journal-gen: stall ${i} overlaps the previous one (keep a few minutes between them)`);
    prevEnd = Number.isFinite(inc.resume) ? Math.max(inc.resume, inc.E) + 60 * SEC : Infinity;
  });
  let t = this.startUs + r.int(20e3, 200e3);
  if (o.boot) t = this.startKubelet(t, { restart: false, pid: o.pid });
  else this.kubeletStartedUs = this.startUs - 3600 * SEC;
  this.startBackground(t + 30 * SEC);
};

Sim.prototype.setPidJournal = function setPidJournal() {
  this.streamId = this.frng.hex(32);
  this.invocation = this.frng.hex(32);
};

Sim.prototype.format = function format(it) {
  const o = this.o;
  const t = it.t;
  let payload;
  if (it.raw) {
    if (it.ident && o.envelope === 'bare') return null; // systemd lines are not in the kubelet's own log file
    payload = it.msg;
  } else {
    const kc = this.kc.set(Math.floor(t / SEC));
    payload = `${it.sev}${kc.klog}.${pad6(t % SEC)} ${this.pidStr} ${it.file}] ${it.msg}`;
  }
  if (o.envelope === 'bare') return payload;
  // journald stamps the line when it receives it: a little after klog's own timestamp, never going backwards
  let jt = t + this.frng.int(15, 700);
  if (jt <= this.lastJt) jt = this.lastJt + 1;
  this.lastJt = jt;
  const sys = it.ident === 'systemd';
  const ident = sys ? 'systemd' : o.ident;
  const pid = sys ? 1 : this.pid;
  const jc = this.jc.set(Math.floor(jt / SEC));
  switch (o.envelope) {
    case 'short': return `${jc.short} ${o.host} ${ident}[${pid}]: ${payload}`;
    case 'short-precise': return `${jc.short}.${pad6(jt % SEC)} ${o.host} ${ident}[${pid}]: ${payload}`;
    case 'short-iso': return `${jc.iso}${jc.tzs} ${o.host} ${ident}[${pid}]: ${payload}`;
    case 'short-iso-precise': return `${jc.iso}.${pad6(jt % SEC)}${jc.tzs} ${o.host} ${ident}[${pid}]: ${payload}`;
    default: {
      if (!this.streamId || this.streamPid !== this.pid) { this.setPidJournal(); this.streamPid = this.pid; }
      const mono = jt - this.bootUs;
      const cursor = `s=${this.seqId};i=${(this.seqnum++).toString(16)};b=${this.bootId};m=${mono.toString(16)};t=${jt.toString(16)};x=${this.frng.hex(16)}`;
      const head = `{"__CURSOR":"${cursor}","__REALTIME_TIMESTAMP":"${jt}","__MONOTONIC_TIMESTAMP":"${mono}","_BOOT_ID":"${this.bootId}","_MACHINE_ID":"${this.machineId}","_HOSTNAME":${JSON.stringify(o.host)},"PRIORITY":"6","SYSLOG_FACILITY":"3"`;
      if (sys) {
        return `${head},"_UID":"0","_GID":"0","_CAP_EFFECTIVE":"1ffffffffff","_TRANSPORT":"journal","SYSLOG_IDENTIFIER":"systemd","_PID":"1","_COMM":"systemd","_EXE":"/usr/lib/systemd/systemd","_CMDLINE":"/sbin/init","_SYSTEMD_CGROUP":"/init.scope","_SYSTEMD_UNIT":"init.scope","_SYSTEMD_SLICE":"-.slice","UNIT":"kubelet.service","CODE_FILE":"src/core/job.c","CODE_FUNC":"job_emit_done_message","MESSAGE":${JSON.stringify(payload)}}`;
      }
      return `${head},"_UID":"0","_GID":"0","_CAP_EFFECTIVE":"1ffffffffff","_SYSTEMD_SLICE":"system.slice","_TRANSPORT":"stdout","_STREAM_ID":"${this.streamId}","SYSLOG_IDENTIFIER":${JSON.stringify(ident)},"_PID":"${pid}","_COMM":"kubelet","_EXE":"/usr/bin/kubelet","_CMDLINE":"/usr/bin/kubelet --bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf --config=/var/lib/kubelet/config.yaml --container-runtime-endpoint=unix:///run/containerd/containerd.sock --v=2","_SYSTEMD_CGROUP":"/system.slice/kubelet.service","_SYSTEMD_UNIT":"kubelet.service","_SYSTEMD_INVOCATION_ID":"${this.invocation}","MESSAGE":${JSON.stringify(payload)}}`;
    }
  }
};

Sim.prototype.onTagged = function onTagged(it, line) {
  const tag = it.tag;
  const ms = it.t / 1000;
  if (tag.artefact) this.artefactLines++;
  if (tag.win) {
    const w = tag.win;
    w.lines++;
    if (tag.skip) w.skipLines++;
    if (!w.first) w.first = { line, ms };
    w.last = { line, ms };
    if (tag.ageNs > w.maxAgeNs) w.maxAgeNs = tag.ageNs;
    if (tag.nr && w.notReadyLine == null) { w.notReadyLine = line; w.notReadyUs = it.t; }
  }
  if (tag.nr && tag.nrEvent) tag.nr.line = line;
  if (tag.ready) {
    const nr = tag.ready === true ? this.pendingReady : tag.ready;
    if (nr) { nr.readyLine = line; nr.toUs = it.t; }
    if (tag.ready === true) this.pendingReady = null;
  }
};

const ms = (us) => (us == null || !Number.isFinite(us) ? null : us / 1000);

Sim.prototype.truthDoc = function truthDoc(stats) {
  const o = this.o;
  const lastUs = stats.lastUs;
  const stalls = [];
  const incidents = [];
  for (const inc of this.incidents) {
    if (inc.onset >= lastUs) continue;
    const idx = [];
    for (const w of inc.windows) {
      if (w.fromUs >= lastUs) continue;
      let endedBy = w.endedBy;
      let endUs = w.endUs;
      if (endedBy === 'end-of-log' || endUs > lastUs) { endedBy = 'end-of-log'; endUs = null; }
      idx.push(stalls.length);
      stalls.push({
        incident: inc.index, cause: inc.cause,
        lastRelistAtMs: ms(w.lastRelistUs), unhealthyFromMs: ms(w.fromUs),
        firstUnhealthyLine: w.first?.line ?? null, firstUnhealthyMs: w.first?.ms ?? null,
        lastUnhealthyLine: w.last?.line ?? null, lastUnhealthyMs: w.last?.ms ?? null,
        endedAtMs: ms(endUs), endedBy,
        durationSeconds: ((endUs ?? lastUs) - w.lastRelistUs) / SEC,
        maxAgeSeconds: w.maxAgeNs / 1e9, unhealthyLines: w.lines, skipLines: w.skipLines,
        nodeNotReady: inc.notReady.some((n) => n.fromUs <= (endUs ?? lastUs) && (n.toUs == null || n.toUs >= w.lastRelistUs)),
        notReadyLine: w.notReadyLine, notReadyAtMs: ms(w.notReadyUs),
      });
    }
    incidents.push({
      index: inc.index, cause: inc.cause, at: inc.spec.at, durationMs: inc.spec.durationMs, endedBy: inc.endedBy,
      onsetMs: ms(inc.onset), endMs: ms(inc.E), recoveredAtMs: ms(inc.recoveredUs), restartedAtMs: ms(inc.restartUs),
      stalls: idx,
      runtimeDown: Number.isFinite(inc.rtDownFrom) ? { fromMs: ms(inc.rtDownFrom), toMs: ms(inc.rtUpAt) } : null,
      notReady: inc.notReady.filter((n) => n.fromUs < lastUs).map((n) => ({ fromMs: ms(n.fromUs), toMs: n.toUs != null && n.toUs <= lastUs ? ms(n.toUs) : null, message: n.message, line: n.line, readyLine: n.readyLine })),
      victim: inc.victim ? { pod: `${inc.victim.pod.ns}/${inc.victim.pod.name}`, podUID: inc.victim.pod.uid, container: inc.victim.container.name, containerId: inc.victim.oldId, newContainerId: inc.victim.newId ?? null } : null,
      evicted: inc.evicted ?? [],
      calls: inc.calls.filter((c) => c.e <= lastUs).sort((a, b) => a.e - b.e).map((c) => ({ op: c.op, startMs: ms(c.s), endMs: ms(c.e), ok: c.ok })),
      relists: inc.relists.filter((x) => Number.isFinite(x.e) && x.e <= lastUs).map((x) => ({ startMs: ms(x.s), endMs: ms(x.e), ok: x.ok })),
      relistOk: inc.relistOk.filter((x) => x.ok <= lastUs).map((x) => ({ startMs: ms(x.s), okMs: ms(x.ok) })),
      hungFrom: ms(inc.hangFrom ?? null),
    });
  }
  return {
    host: o.host, ident: o.ident, style: o.style, envelope: o.envelope, kubeletVersion: o.kubeletVersion, runtime: o.runtime,
    runtimeVersion: o.runtimeVersion, tzMinutes: o.tzMin, seed: o.seed,
    bytes: stats.bytes, lines: stats.lines, firstMs: ms(stats.firstUs), lastMs: ms(lastUs),
    stalls, incidents,
    kubeletStarts: this.kubeletStarts.filter((k) => k.t < lastUs).map((k) => ({ atMs: ms(k.t), pid: k.pid, restart: k.restart })),
    startupArtefactLines: this.artefactLines, reordered: stats.reordered,
    activity: this.activity ? this.activity.filter((a) => a.t <= lastUs).sort((a, b) => a.t - b.t).map((a) => ({ ...a, t: ms(a.t) })) : undefined,
    podTimeline: this.podTimeline ? this.podTimeline.filter((x) => x[0] <= lastUs).map(([t, p, c]) => [ms(t), p, c]) : undefined,
  };
};

function* runSim(sim, stats) {
  const o = sim.o;
  const target = o.targetBytes ?? Infinity;
  try {
    sim.init();
    const heap = sim.heap;
    let lastT = -Infinity;
    while (heap.size) {
      const it = heap.pop();
      if (it.t >= sim.endUs) break;
      if (it.fn) { it.fn(it.t); continue; }
      if (it.t < lastT) { it.t = lastT; stats.reordered++; }
      lastT = it.t;
      if (it.tag?.ready === true && !sim.pendingReady) {
        const inc = sim.incidents.find((x) => x.endedBy === 'restart' && x.restartUs != null && x.restartUs <= it.t && x.notReady.length && x.notReady[x.notReady.length - 1].readyLine == null);
        if (inc) sim.pendingReady = inc.notReady[inc.notReady.length - 1];
      }
      const line = sim.format(it);
      if (line === null) continue;
      stats.lines++;
      stats.bytes += line.length + 1;
      if (stats.firstUs == null) stats.firstUs = it.t;
      stats.lastUs = it.t;
      if (it.tag) sim.onTagged(it, stats.lines);
      yield line;
      if (stats.bytes >= target) break;
    }
  } finally {
    Object.assign(sim.truthTarget, sim.truthDoc(stats));
  }
}

/**
 * Lines (without newline) of a kubelet journal, generated lazily: safe for gigabytes. The returned generator has a
 * `truth` object that is filled in when iteration ends (completely or by `return()`/`break`).
 *
 * @param {object} [opts]
 * @param {string} [opts.host='worker-3']
 * @param {string} [opts.ident='kubelet']      SYSLOG_IDENTIFIER / short-format ident
 * @param {number} [opts.pid=2817]
 * @param {number} [opts.start]                epoch ms of the first line (default 2024-03-11T09:00:00Z)
 * @param {number} [opts.durationMs]           log length (default 2 h when neither this nor targetBytes is given)
 * @param {number} [opts.targetBytes]          stop once this many bytes were produced
 * @param {'structured'|'printf'|'glog11'} [opts.style='structured']  ('glog11' when a deadlock stall is asked for)
 * @param {'short'|'short-precise'|'short-iso'|'short-iso-precise'|'json'|'bare'} [opts.envelope='short']
 * @param {number|string} [opts.tz=0]          fixed offset of the node's local time: minutes east, '+0100', '-05:00'
 * @param {number|string} [opts.seed=1]
 * @param {Array<{at:number,durationMs:number,cause:string,endedBy?:string,runtimeDown?:boolean}>} [opts.stalls]
 * @param {number} [opts.rate=1]               background activity multiplier
 * @param {number} [opts.pods=36]              pods on the node
 * @param {number} [opts.crashLoopPods=1]
 * @param {number} [opts.crashLoopAfterMs]     when the crash loop starts (default: a minute or two after start-up)
 * @param {number} [opts.verbosity=2]          --v; 4 adds the V(4) "PLEG: Ignoring events for pod" lines
 * @param {string} [opts.kubeletVersion]       default by style: v1.28.3 / v1.19.4 / v1.11.4 (v1.22.17 with a cni stall)
 * @param {'containerd'|'docker'} [opts.runtime]
 * @param {boolean} [opts.boot=true]           start with a kubelet start-up block
 * @param {boolean} [opts.recordActivity=false] add container lifecycle activity and pod counts to the truth
 */
export function generateKubeletJournal(opts = {}) {
  const o = normalizeOptions(opts);
  const sim = new Sim(o);
  const truth = {};
  sim.truthTarget = truth;
  const stats = { lines: 0, bytes: 0, firstUs: null, lastUs: null, reordered: 0 };
  const gen = runSim(sim, stats);
  gen.truth = truth;
  return gen;
}

/** Streams a journal to `path` (1 MiB writes, honouring backpressure); resolves to the ground truth. */
export async function writeJournal(path, opts = {}) {
  const gen = generateKubeletJournal(opts);
  const ws = createWriteStream(path);
  const failed = once(ws, 'error').then(([e]) => { throw e; });
  failed.catch(() => {});
  let buf = [];
  let size = 0;
  for (const line of gen) {
    buf.push(line);
    size += line.length + 1;
    if (size >= 1 << 20) {
      const ok = ws.write(`${buf.join('\n')}\n`);
      buf = [];
      size = 0;
      if (!ok) await Promise.race([once(ws, 'drain'), failed]);
    }
  }
  if (buf.length) ws.write(`${buf.join('\n')}\n`);
  ws.end();
  await Promise.race([once(ws, 'finish'), failed]);
  return gen.truth;
}

// ---------------------------------------------------------------------------------------------------------------
// /metrics snapshots (kubelet 1.28 text exposition).

export const DEF_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
// ExponentialBuckets(.005, 2.5, 14), as the kubelet computes them (repeated float multiplication)
export const CRI_BUCKETS = (() => { const b = []; let v = 0.005; for (let i = 0; i < 14; i++) { b.push(v); v *= 2.5; } return b; })();

/** An empty histogram: `counts[i]` is the cumulative count for `bounds[i]`; `count` is the +Inf bucket. */
export function emptyHistogram(bounds) { return { bounds, counts: bounds.map(() => 0), count: 0, sum: 0 }; }

export function observe(h, v) {
  h.count++;
  h.sum += v;
  for (let i = h.bounds.length - 1; i >= 0 && v <= h.bounds[i]; i--) h.counts[i]++;
  return h;
}

/** Bucket-wise b - a (a window between two snapshots). */
export function histogramDelta(a, b) {
  return { bounds: b.bounds, counts: b.counts.map((c, i) => c - a.counts[i]), count: b.count - a.count, sum: b.sum - a.sum };
}

/** PromQL histogram_quantile(q, …) over cumulative buckets (linear interpolation; +Inf bucket → highest finite bound). */
export function histogramQuantile(q, h) {
  const total = h.count;
  if (!(total > 0)) return NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  const rank = q * total;
  const les = [...h.bounds, Infinity];
  const cum = [...h.counts, h.count];
  let b = cum.findIndex((c) => c >= rank);
  if (b === les.length - 1) return h.bounds[h.bounds.length - 1];
  if (b === 0 && les[0] <= 0) return les[0];
  const start = b === 0 ? 0 : les[b - 1];
  const below = b === 0 ? 0 : cum[b - 1];
  const inBucket = cum[b] - below;
  return start + (les[b] - start) * ((rank - below) / inBucket);
}

const CRI_OPS_128 = ['version', 'status', 'run_podsandbox', 'stop_podsandbox', 'remove_podsandbox', 'podsandbox_status', 'list_podsandbox',
  'create_container', 'start_container', 'stop_container', 'remove_container', 'list_containers', 'container_status', 'exec_sync',
  'update_runtime_config', 'list_images', 'image_status', 'pull_image', 'remove_image', 'image_fs_info', 'container_stats',
  'list_container_stats', 'list_podsandbox_stats', 'update_container'];

const FEATURES_128 = [['APIListChunking', 'BETA'], ['APIPriorityAndFairness', 'BETA'], ['APIResponseCompression', 'BETA'], ['AllAlpha', 'ALPHA', 0], ['AllBeta', 'BETA', 0],
  ['AppArmor', 'BETA'], ['CPUManager', ''], ['CPUManagerPolicyAlphaOptions', 'ALPHA', 0], ['CPUManagerPolicyBetaOptions', 'BETA'], ['CPUManagerPolicyOptions', 'BETA'],
  ['CSIMigrationPortworx', 'BETA', 0], ['CSINodeExpandSecret', 'BETA'], ['CloudDualStackNodeIPs', 'ALPHA', 0], ['ConsistentHTTPGetHandlers', ''], ['ContainerCheckpoint', 'ALPHA', 0],
  ['CronJobsScheduledAnnotation', 'BETA'], ['DevicePluginCDIDevices', 'ALPHA', 0], ['DisableCloudProviders', 'ALPHA', 0], ['DisableKubeletCloudCredentialProviders', 'ALPHA', 0],
  ['DownwardAPIHugePages', ''], ['DynamicResourceAllocation', 'ALPHA', 0], ['EventedPLEG', 'BETA', 0], ['ExpandedDNSConfig', 'BETA'], ['GracefulNodeShutdown', 'BETA'],
  ['GracefulNodeShutdownBasedOnPodPriority', 'BETA'], ['HPAContainerMetrics', 'BETA'], ['InPlacePodVerticalScaling', 'ALPHA', 0], ['KubeletCgroupDriverFromCRI', 'ALPHA', 0],
  ['KubeletInUserNamespace', 'ALPHA', 0], ['KubeletPodResourcesDynamicResources', 'ALPHA', 0], ['KubeletPodResourcesGet', 'ALPHA', 0], ['KubeletTracing', 'BETA'],
  ['LegacyServiceAccountTokenCleanUp', 'ALPHA', 0], ['LocalStorageCapacityIsolationFSQuotaMonitoring', 'ALPHA', 0], ['MemoryManager', 'BETA'], ['MemoryQoS', 'ALPHA', 0],
  ['NodeInclusionPolicyInPodTopologySpread', 'BETA'], ['NodeLogQuery', 'ALPHA', 0], ['NodeSwap', 'BETA', 0], ['PodAndContainerStatsFromCRI', 'ALPHA', 0],
  ['PodDisruptionConditions', 'BETA'], ['PodHostIPs', 'ALPHA', 0], ['PodReadyToStartContainersCondition', 'ALPHA', 0], ['PodSchedulingReadiness', 'BETA'],
  ['ProcMountType', 'ALPHA', 0], ['RecoverVolumeExpansionFailure', 'ALPHA', 0], ['RemainingItemCount', 'BETA'], ['RotateKubeletServerCertificate', 'BETA'],
  ['SidecarContainers', 'ALPHA', 0], ['SizeMemoryBackedVolumes', 'BETA'], ['TopologyManagerPolicyAlphaOptions', 'ALPHA', 0], ['TopologyManagerPolicyBetaOptions', 'BETA'],
  ['TopologyManagerPolicyOptions', 'BETA'], ['UserNamespacesSupport', 'ALPHA', 0], ['WatchList', 'ALPHA', 0], ['WinDSR', 'ALPHA', 0], ['WinOverlay', 'BETA']];

/**
 * Kubelet /metrics text from explicit cumulative counts, so two snapshots give exact, known deltas.
 *
 * @param {object} o
 * @param {number} o.timestampMs           scrape time; printed after every sample when `withTimestamps`
 * @param {boolean} [o.withTimestamps=false]
 * @param {{counts:number[],count:number,sum:number}} o.relistDuration   DefBuckets, cumulative
 * @param {{counts:number[],count:number,sum:number}} o.relistInterval   DefBuckets, cumulative
 * @param {number} o.plegLastSeenSeconds
 * @param {number} [o.plegDiscardEvents=0]
 * @param {Record<string,{duration:{counts:number[],count:number,sum:number},errors?:number,total?:number}>} o.operations  CRI_BUCKETS
 * @param {number} o.runningPods
 * @param {{running?:number,exited?:number,created?:number,unknown?:number}} o.runningContainers
 * @param {number} [o.processStartTimeSeconds]   defaults to 2 h before the scrape
 * @param {string} [o.host='worker-3']
 * @param {string} [o.kubeletVersion='v1.28.3']
 * @param {number} [o.startedPods] [o.startedContainers] counters; default derived from uptime
 */
export function generateMetricsSnapshot(o) {
  const ts = o.withTimestamps ? ` ${Math.round(o.timestampMs)}` : '';
  const now = o.timestampMs / 1000;
  const start = o.processStartTimeSeconds ?? now - 7200;
  const up = Math.max(1, now - start);
  const host = o.host ?? 'worker-3';
  const ver = o.kubeletVersion ?? 'v1.28.3';
  const out = [];
  const fam = (name, type, help, alpha = '[ALPHA] ') => { out.push(`# HELP ${name} ${alpha}${help}`, `# TYPE ${name} ${type}`); };
  const lbl = (labels) => {
    const ks = Object.keys(labels);
    return ks.length ? `{${ks.map((k) => `${k}="${String(labels[k]).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`).join(',')}}` : '';
  };
  const sample = (name, labels, v) => out.push(`${name}${lbl(labels)} ${goFloat(v)}${ts}`);
  const hist = (name, labels, h, bounds) => {
    bounds.forEach((b, i) => sample(`${name}_bucket`, { ...labels, le: String(b) }, h.counts[i]));
    sample(`${name}_bucket`, { ...labels, le: '+Inf' }, h.count);
    sample(`${name}_sum`, labels, h.sum);
    sample(`${name}_count`, labels, h.count);
  };
  // deterministic shape for series nobody asked about: fractions of a count that grows with uptime
  const synth = (bounds, count, median, spread = 1.6) => {
    const h = emptyHistogram(bounds);
    const n = Math.round(count);
    h.count = n;
    h.counts = bounds.map((b) => Math.round(n / (1 + Math.pow(median / b, spread))));
    h.counts[h.counts.length - 1] = Math.min(n, h.counts[h.counts.length - 1]);
    for (let i = 1; i < h.counts.length; i++) h.counts[i] = Math.max(h.counts[i], h.counts[i - 1]);
    h.sum = Number((n * median * 1.3).toFixed(6));
    return h;
  };
  const major = ver.replace(/^v/, '').split('.');

  // --- Go runtime and process (client_golang collectors: no stability prefix)
  fam('go_gc_duration_seconds', 'summary', 'A summary of the pause duration of garbage collection cycles.', '');
  [[0, 3.1e-05], [0.25, 6.02e-05], [0.5, 8.33e-05], [0.75, 0.000131], [1, 0.004417]].forEach(([qq, v]) => sample('go_gc_duration_seconds', { quantile: String(qq) }, v));
  sample('go_gc_duration_seconds_sum', {}, Number((up / 120 * 0.00011).toFixed(9)));
  sample('go_gc_duration_seconds_count', {}, Math.floor(up / 120));
  fam('go_goroutines', 'gauge', 'Number of goroutines that currently exist.', '');
  sample('go_goroutines', {}, 412 + (o.runningPods ?? 30) * 9);
  fam('go_info', 'gauge', 'Information about the Go environment.', '');
  sample('go_info', { version: 'go1.20.10' }, 1);
  const mem = [
    ['alloc_bytes', 'gauge', 'Number of bytes allocated and still in use.', 5.1238912e+07], ['alloc_bytes_total', 'counter', 'Total number of bytes allocated, even if freed.', 1.9e6 * up],
    ['buck_hash_sys_bytes', 'gauge', 'Number of bytes used by the profiling bucket hash table.', 1.734213e+06], ['frees_total', 'counter', 'Total number of frees.', 1.21e4 * up],
    ['gc_sys_bytes', 'gauge', 'Number of bytes used for garbage collection system metadata.', 1.0851392e+07], ['heap_alloc_bytes', 'gauge', 'Number of heap bytes allocated and still in use.', 5.1238912e+07],
    ['heap_idle_bytes', 'gauge', 'Number of heap bytes waiting to be used.', 3.3153024e+07], ['heap_inuse_bytes', 'gauge', 'Number of heap bytes that are in use.', 6.1669376e+07],
    ['heap_objects', 'gauge', 'Number of allocated objects.', 318812], ['heap_released_bytes', 'gauge', 'Number of heap bytes released to OS.', 2.1258240e+07],
    ['heap_sys_bytes', 'gauge', 'Number of heap bytes obtained from system.', 9.48224e+07], ['last_gc_time_seconds', 'gauge', 'Number of seconds since 1970 of last garbage collection.', now - 37.2],
    ['lookups_total', 'counter', 'Total number of pointer lookups.', 0], ['mallocs_total', 'counter', 'Total number of mallocs.', 1.24e4 * up],
    ['mcache_inuse_bytes', 'gauge', 'Number of bytes in use by mcache structures.', 4800], ['mcache_sys_bytes', 'gauge', 'Number of bytes used for mcache structures obtained from system.', 15600],
    ['mspan_inuse_bytes', 'gauge', 'Number of bytes in use by mspan structures.', 752640], ['mspan_sys_bytes', 'gauge', 'Number of bytes used for mspan structures obtained from system.', 1.02e+06],
    ['next_gc_bytes', 'gauge', 'Number of heap bytes when next garbage collection will take place.', 8.3886168e+07], ['other_sys_bytes', 'gauge', 'Number of bytes used for other system allocations.', 1.458739e+06],
    ['stack_inuse_bytes', 'gauge', 'Number of bytes in use by the stack allocator.', 6.029312e+06], ['stack_sys_bytes', 'gauge', 'Number of bytes obtained from system for stack allocator.', 6.029312e+06],
    ['sys_bytes', 'gauge', 'Number of bytes obtained from system.', 1.21994264e+08],
  ];
  for (const [n, ty, help, v] of mem) { fam(`go_memstats_${n}`, ty, help, ''); sample(`go_memstats_${n}`, {}, Math.round(v)); }
  fam('go_threads', 'gauge', 'Number of OS threads created.', '');
  sample('go_threads', {}, 27);
  fam('process_cpu_seconds_total', 'counter', 'Total user and system CPU time spent in seconds.', '');
  sample('process_cpu_seconds_total', {}, Number((up * 0.031).toFixed(2)));
  fam('process_max_fds', 'gauge', 'Maximum number of open file descriptors.', '');
  sample('process_max_fds', {}, 1.048576e+06);
  fam('process_open_fds', 'gauge', 'Number of open file descriptors.', '');
  sample('process_open_fds', {}, 61 + (o.runningPods ?? 30));
  fam('process_resident_memory_bytes', 'gauge', 'Resident memory size in bytes.', '');
  sample('process_resident_memory_bytes', {}, 1.05230336e+08);
  fam('process_start_time_seconds', 'gauge', 'Start time of the process since unix epoch in seconds.', '');
  sample('process_start_time_seconds', {}, Number(start.toFixed(2)));
  fam('process_virtual_memory_bytes', 'gauge', 'Virtual memory size in bytes.', '');
  sample('process_virtual_memory_bytes', {}, 2.018357248e+09);
  fam('process_virtual_memory_max_bytes', 'gauge', 'Maximum amount of virtual memory available in bytes.', '');
  sample('process_virtual_memory_max_bytes', {}, 1.8446744073709552e+19);

  // --- component-base
  fam('kubernetes_build_info', 'gauge', "A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.");
  sample('kubernetes_build_info', { build_date: '2023-10-18T11:33:18Z', compiler: 'gc', git_commit: 'a8a1abc25cad87333840cd7d54be2efaf31a3177', git_tree_state: 'clean', git_version: ver, go_version: 'go1.20.10', major: major[0], minor: major[1], platform: 'linux/amd64' }, 1);
  fam('kubernetes_feature_enabled', 'gauge', 'This metric records the data about the stage and enablement of a k8s feature.', '[BETA] ');
  for (const [name, stage, on = 1] of FEATURES_128) sample('kubernetes_feature_enabled', { name, stage }, on);
  fam('registered_metrics_total', 'counter', 'The count of registered metrics broken by stability level and deprecation version.', '[BETA] ');
  sample('registered_metrics_total', { deprecated_version: '', stability_level: 'ALPHA' }, 151);
  sample('registered_metrics_total', { deprecated_version: '', stability_level: 'BETA' }, 4);
  sample('registered_metrics_total', { deprecated_version: '', stability_level: 'STABLE' }, 10);

  // --- client-go towards the API server
  const api = 'api.prod-eu1.example.internal:6443';
  const verbs = [['GET', 0.55], ['PATCH', 0.12], ['POST', 0.03], ['PUT', 0.01], ['DELETE', 0.004]];
  fam('rest_client_request_duration_seconds', 'histogram', 'Request latency in seconds. Broken down by verb, and host.', '[ALPHA] ');
  const RB = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];
  for (const [v, r] of verbs) hist('rest_client_request_duration_seconds', { host: api, verb: v }, synth(RB, up * r, 0.012), RB);
  const SB = [64, 256, 512, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216];
  fam('rest_client_request_size_bytes', 'histogram', 'Request size in bytes. Broken down by verb and host.');
  for (const [v, r] of verbs) hist('rest_client_request_size_bytes', { host: api, verb: v }, synth(SB, up * r, v === 'GET' ? 1 : 900), SB);
  fam('rest_client_response_size_bytes', 'histogram', 'Response size in bytes. Broken down by verb and host.');
  for (const [v, r] of verbs) hist('rest_client_response_size_bytes', { host: api, verb: v }, synth(SB, up * r, 3000), SB);
  fam('rest_client_requests_total', 'counter', 'Number of HTTP requests, partitioned by status code, method, and host.');
  for (const [v, r] of verbs) {
    sample('rest_client_requests_total', { code: v === 'POST' ? '201' : '200', host: api, method: v }, Math.round(up * r));
    if (v === 'GET') { sample('rest_client_requests_total', { code: '404', host: api, method: v }, Math.round(up * 0.002)); sample('rest_client_requests_total', { code: '<error>', host: api, method: v }, 3); }
    if (v === 'PATCH') sample('rest_client_requests_total', { code: '409', host: api, method: v }, Math.round(up * 0.0004));
  }
  fam('rest_client_transport_cache_entries', 'gauge', 'Number of transport entries in the internal cache.');
  sample('rest_client_transport_cache_entries', {}, 3);
  fam('rest_client_transport_create_calls_total', 'counter', 'Number of calls to get a new transport, partitioned by the result of the operation hit: obtained from the cache, miss: created and added to the cache, uncacheable: created and not cached');
  sample('rest_client_transport_create_calls_total', { result: 'hit' }, 14);
  sample('rest_client_transport_create_calls_total', { result: 'miss' }, 3);

  // --- volumes
  const SOB = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 25, 50, 120, 300, 600];
  fam('storage_operation_duration_seconds', 'histogram', 'Storage operation duration', '[BETA] ');
  const plugins = ['kubernetes.io/configmap', 'kubernetes.io/empty-dir', 'kubernetes.io/host-path', 'kubernetes.io/projected', 'kubernetes.io/secret'];
  const pods = o.runningPods ?? 30;
  for (const op of ['verify_controller_attached_volume', 'volume_mount', 'volume_unmount', 'unmap_volume']) {
    for (const p of plugins) {
      if (op === 'unmap_volume' && p !== 'kubernetes.io/empty-dir') continue;
      hist('storage_operation_duration_seconds', { migrated: 'false', operation_name: op, status: 'success', volume_plugin: p }, synth(SOB, pods * (1 + up / 3600), op === 'volume_mount' ? 0.04 : 0.01), SOB);
    }
  }
  fam('volume_manager_total_volumes', 'gauge', 'Number of volumes in Volume Manager');
  for (const p of plugins) for (const st of ['actual_state_of_world', 'desired_state_of_world']) sample('volume_manager_total_volumes', { plugin_name: p, state: st }, Math.round(pods * (p.endsWith('projected') ? 1.1 : 0.6)));

  // --- kubelet
  fam('kubelet_active_pods', 'gauge', 'The number of pods the kubelet considers active and which are being considered when admitting new pods. static is true if the pod is not from the apiserver.');
  sample('kubelet_active_pods', { static: '' }, o.runningPods);
  fam('kubelet_certificate_manager_client_expiration_renew_errors', 'counter', 'Counter of certificate renewal errors.');
  sample('kubelet_certificate_manager_client_expiration_renew_errors', {}, 0);
  fam('kubelet_certificate_manager_client_ttl_seconds', 'gauge', 'Gauge of the TTL (time-to-live) of the Kubelet\'s client certificate. The value is in seconds until certificate expiry (negative if already expired). If client certificate is invalid or unused, the value will be +INF.');
  sample('kubelet_certificate_manager_client_ttl_seconds', {}, Math.round(2.6e7 - up));
  fam('kubelet_cgroup_manager_duration_seconds', 'histogram', 'Duration in seconds for cgroup manager operations. Broken down by method.');
  for (const op of ['create', 'destroy', 'update']) hist('kubelet_cgroup_manager_duration_seconds', { operation_type: op }, synth(DEF_BUCKETS, op === 'update' ? up / 20 : pods * 1.5, 0.004), DEF_BUCKETS);
  fam('kubelet_container_log_filesystem_used_bytes', 'gauge', 'Bytes used by the container\'s logs on the filesystem.');
  fam('kubelet_cpu_manager_pinning_errors_total', 'counter', 'The number of cpu core allocations which required pinning failed.');
  sample('kubelet_cpu_manager_pinning_errors_total', {}, 0);
  fam('kubelet_cpu_manager_pinning_requests_total', 'counter', 'The number of cpu core allocations which required pinning.');
  sample('kubelet_cpu_manager_pinning_requests_total', {}, 0);
  fam('kubelet_desired_pods', 'gauge', 'The number of pods the kubelet is being instructed to run. static is true if the pod is not from the apiserver.');
  sample('kubelet_desired_pods', { static: '' }, o.runningPods);
  sample('kubelet_desired_pods', { static: 'true' }, 0);
  fam('kubelet_evented_pleg_connection_error_count', 'counter', 'The number of errors encountered during the establishment of streaming connection with the CRI runtime.');
  sample('kubelet_evented_pleg_connection_error_count', {}, 0);
  fam('kubelet_evented_pleg_connection_latency_seconds', 'histogram', 'The latency of streaming connection with the CRI runtime, measured in seconds.');
  hist('kubelet_evented_pleg_connection_latency_seconds', {}, emptyHistogram(DEF_BUCKETS), DEF_BUCKETS);
  fam('kubelet_evented_pleg_connection_success_count', 'counter', 'The number of times a streaming client was obtained to receive CRI Events.');
  sample('kubelet_evented_pleg_connection_success_count', {}, 0);
  fam('kubelet_http_inflight_requests', 'gauge', 'Number of the inflight http requests');
  sample('kubelet_http_inflight_requests', { long_running: 'false', method: 'GET', path: 'metrics', server_type: 'readwrite' }, 1);
  fam('kubelet_http_requests_duration_seconds', 'histogram', 'Duration in seconds to serve http requests');
  for (const path of ['metrics', 'metrics/cadvisor', 'stats', 'pods']) hist('kubelet_http_requests_duration_seconds', { long_running: 'false', method: 'GET', path, server_type: 'readwrite' }, synth(DEF_BUCKETS, up / (path === 'pods' ? 600 : 30), path === 'metrics/cadvisor' ? 0.08 : 0.01), DEF_BUCKETS);
  fam('kubelet_http_requests_total', 'counter', 'Number of the http requests received since the server started');
  for (const path of ['metrics', 'metrics/cadvisor', 'stats', 'pods']) sample('kubelet_http_requests_total', { long_running: 'false', method: 'GET', path, server_type: 'readwrite' }, Math.round(up / (path === 'pods' ? 600 : 30)));
  fam('kubelet_managed_ephemeral_containers', 'gauge', 'Current number of ephemeral containers in pods managed by this kubelet.');
  sample('kubelet_managed_ephemeral_containers', {}, 0);
  fam('kubelet_mirror_pods', 'gauge', 'The number of mirror pods the kubelet will try to create (one per admitted static pod)');
  sample('kubelet_mirror_pods', {}, 0);
  fam('kubelet_node_name', 'gauge', 'The node\'s name. The count is always 1.');
  sample('kubelet_node_name', { node: host }, 1);
  fam('kubelet_orphan_pod_cleaned_volumes', 'gauge', 'The total number of orphaned Pods whose volumes were cleaned in the last periodic sweep.');
  sample('kubelet_orphan_pod_cleaned_volumes', {}, 0);
  fam('kubelet_orphan_pod_cleaned_volumes_errors', 'gauge', 'The number of orphaned Pods whose volumes failed to be cleaned in the last periodic sweep.');
  sample('kubelet_orphan_pod_cleaned_volumes_errors', {}, 0);
  fam('kubelet_pleg_discard_events', 'counter', 'The number of discard events in PLEG.');
  sample('kubelet_pleg_discard_events', {}, o.plegDiscardEvents ?? 0);
  fam('kubelet_pleg_last_seen_seconds', 'gauge', 'Timestamp in seconds when PLEG was last seen active.');
  sample('kubelet_pleg_last_seen_seconds', {}, o.plegLastSeenSeconds);
  fam('kubelet_pleg_relist_duration_seconds', 'histogram', 'Duration in seconds for relisting pods in PLEG.');
  hist('kubelet_pleg_relist_duration_seconds', {}, o.relistDuration, DEF_BUCKETS);
  fam('kubelet_pleg_relist_interval_seconds', 'histogram', 'Interval in seconds between relisting in PLEG.');
  hist('kubelet_pleg_relist_interval_seconds', {}, o.relistInterval, DEF_BUCKETS);
  const PSB = [0.5, 1, 2, 3, 4, 5, 6, 8, 10, 20, 30, 45, 60, 120, 180, 240, 300, 360, 480, 600, 900, 1200, 1800, 2700, 3600];
  const started = o.startedPods ?? Math.round(pods + up / 300);
  fam('kubelet_pod_start_duration_seconds', 'histogram', 'Duration in seconds from kubelet seeing a pod for the first time to the pod starting to run');
  hist('kubelet_pod_start_duration_seconds', {}, synth(PSB, started, 4.5), PSB);
  fam('kubelet_pod_start_sli_duration_seconds', 'histogram', 'Duration in seconds to start a pod, excluding time to pull images and run init containers, measured from pod creation timestamp to when all its containers are reported as started and observed via watch');
  hist('kubelet_pod_start_sli_duration_seconds', {}, synth(PSB, started, 2.2), PSB);
  fam('kubelet_pod_worker_duration_seconds', 'histogram', 'Duration in seconds to sync a single pod. Broken down by operation type: create, update, or sync');
  hist('kubelet_pod_worker_duration_seconds', { operation_type: 'create' }, synth(DEF_BUCKETS, started, 0.9), DEF_BUCKETS);
  hist('kubelet_pod_worker_duration_seconds', { operation_type: 'sync' }, synth(DEF_BUCKETS, up * pods / 60, 0.02), DEF_BUCKETS);
  hist('kubelet_pod_worker_duration_seconds', { operation_type: 'update' }, synth(DEF_BUCKETS, up / 20, 0.05), DEF_BUCKETS);
  fam('kubelet_restarted_pods_total', 'counter', 'Number of pods that have been restarted because they were deleted and recreated with the same UID while the kubelet was watching them (common for static pods, extremely uncommon for API pods)');
  sample('kubelet_restarted_pods_total', { static: '' }, 0);
  fam('kubelet_run_podsandbox_duration_seconds', 'histogram', 'Duration in seconds of the run_podsandbox operations. Broken down by RuntimeClass.Handler.');
  hist('kubelet_run_podsandbox_duration_seconds', { runtime_handler: '' }, synth(DEF_BUCKETS, started, 0.35), DEF_BUCKETS);
  fam('kubelet_running_containers', 'gauge', 'Number of containers currently running');
  const rc = o.runningContainers ?? {};
  for (const st of ['created', 'exited', 'running', 'unknown']) if (rc[st] != null) sample('kubelet_running_containers', { container_state: st }, rc[st]);
  fam('kubelet_running_pods', 'gauge', 'Number of pods that have a running pod sandbox');
  sample('kubelet_running_pods', {}, o.runningPods);
  fam('kubelet_runtime_operations_duration_seconds', 'histogram', 'Duration in seconds of runtime operations. Broken down by operation type.');
  const ops = Object.keys(o.operations ?? {}).sort();
  for (const op of ops) hist('kubelet_runtime_operations_duration_seconds', { operation_type: op }, o.operations[op].duration, CRI_BUCKETS);
  fam('kubelet_runtime_operations_errors_total', 'counter', 'Cumulative number of runtime operation errors by operation type.');
  for (const op of ops) if (o.operations[op].errors) sample('kubelet_runtime_operations_errors_total', { operation_type: op }, o.operations[op].errors);
  fam('kubelet_runtime_operations_total', 'counter', 'Cumulative number of runtime operations by operation type.');
  for (const op of ops) sample('kubelet_runtime_operations_total', { operation_type: op }, o.operations[op].total ?? o.operations[op].duration.count);
  fam('kubelet_started_containers_total', 'counter', 'Cumulative number of containers started');
  sample('kubelet_started_containers_total', { container_type: 'container' }, o.startedContainers ?? Math.round(started * 1.4));
  sample('kubelet_started_containers_total', { container_type: 'init_container' }, Math.round(started * 0.2));
  fam('kubelet_started_pods_total', 'counter', 'Cumulative number of pods started');
  sample('kubelet_started_pods_total', {}, started);
  fam('kubelet_topology_manager_admission_duration_ms', 'histogram', 'Duration in milliseconds to serve a pod admission request.');
  const TB = [0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 51.2, 102.4, 204.8, 409.6, 819.2];
  hist('kubelet_topology_manager_admission_duration_ms', {}, synth(TB, started, 0.08), TB);
  fam('kubelet_topology_manager_admission_requests_total', 'counter', 'The number of admission requests where resources have to be aligned.');
  sample('kubelet_topology_manager_admission_requests_total', {}, started);
  fam('kubelet_working_pods', 'gauge', 'Number of pods the kubelet is actually running, broken down by lifecycle phase, whether the pod is desired, orphaned, or runtime only (also orphaned), and whether the pod is static. An orphaned pod has been removed from local configuration or force deleted in the API and consumes resources that are not otherwise visible.');
  for (const lc of ['sync', 'terminating', 'terminated']) for (const cfg of ['desired', 'orphan', 'runtime_only']) for (const st of ['false', 'true']) sample('kubelet_working_pods', { config: cfg, lifecycle: lc, static: st }, lc === 'sync' && cfg === 'desired' && st === 'false' ? o.runningPods : 0);
  fam('workqueue_adds_total', 'counter', 'Total number of adds handled by workqueue');
  for (const n of ['DynamicCABundle-client-ca-bundle', 'DynamicServingCertificateController']) sample('workqueue_adds_total', { name: n }, Math.round(up / 60));
  fam('workqueue_depth', 'gauge', 'Current depth of workqueue');
  for (const n of ['DynamicCABundle-client-ca-bundle', 'DynamicServingCertificateController']) sample('workqueue_depth', { name: n }, 0);
  fam('workqueue_retries_total', 'counter', 'Total number of retries handled by workqueue');
  for (const n of ['DynamicCABundle-client-ca-bundle', 'DynamicServingCertificateController']) sample('workqueue_retries_total', { name: n }, 0);
  return `${out.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------------------------
// Counters consistent with a generated journal (uses the journal's ground truth; same numbers for any snapshot time).

// normal-operation CRI traffic of this node: calls per second, median latency (s), log-normal sigma
const OP_MODEL = {
  version: [0.1, 0.0006, 0.4], status: [0.2, 0.0012, 0.5], list_podsandbox: [0.55, 0.003, 0.6], list_containers: [0.12, 0.004, 0.6],
  container_status: [0.25, 0.0019, 0.5], podsandbox_status: [0.08, 0.0024, 0.5], exec_sync: [0.1, 0.035, 0.5], image_fs_info: [0.1, 0.0011, 0.4],
  list_images: [0.02, 0.006, 0.4], image_status: [0.05, 0.0009, 0.4], list_container_stats: [0.1, 0.012, 0.6], list_podsandbox_stats: [0.1, 0.014, 0.6],
  container_stats: [0.02, 0.003, 0.5], update_runtime_config: [0.0002, 0.0008, 0.3],
  run_podsandbox: [0.004, 0.32, 0.5], create_container: [0.006, 0.045, 0.5], start_container: [0.006, 0.11, 0.5],
  stop_container: [0.005, 1.8, 1.2], remove_container: [0.005, 0.02, 0.5], stop_podsandbox: [0.004, 0.15, 0.6], remove_podsandbox: [0.004, 0.03, 0.5],
};

/**
 * The counters a kubelet would expose at `atMs`, given the journal it wrote (`truth` from writeJournal, which must be
 * generated with the same kubelet start). Normal traffic is a seeded model; incident calls and relists come from the
 * truth, so a failed ListPodSandbox line in the journal is exactly one error in the metrics.
 */
export function kubeletCountersAt(truth, atMs, { seed = truth.seed, runningContainers } = {}) {
  const startMs = [...truth.kubeletStarts].reverse().find((k) => k.atMs <= atMs)?.atMs ?? truth.firstMs;
  const rng = createRng(`${seed}:metrics:${startMs}`);
  const incs = truth.incidents.filter((i) => i.onsetMs < atMs);
  // spans where the incident replaces normal relists / normal calls of some operations
  const spans = incs.map((i) => {
    const rl = i.relists;
    const from = rl.length ? rl[0].startMs : i.at;
    const lastEnd = rl.length ? rl[rl.length - 1].endMs : i.at;
    const to = i.endedBy === 'recovered' ? Math.max(lastEnd, i.recoveredAtMs ?? lastEnd) : (i.restartedAtMs ?? Infinity);
    const hungOps = i.cause === 'list_timeout' ? (i.runtimeDown ? null : new Set(['list_podsandbox', 'list_containers'])) : new Set();
    const hang = i.cause === 'list_timeout' ? [i.hungFrom, i.endedBy === 'recovered' ? i.recoveredAtMs : Infinity] : null;
    return { i, from, to, hungOps, hang };
  });
  const relistDuration = emptyHistogram(DEF_BUCKETS);
  const relistInterval = emptyHistogram(DEF_BUCKETS);
  let lastOkStart = null;
  const observeRelist = (s, e, ok) => {
    if (lastOkStart != null) observe(relistInterval, (s - lastOkStart) / 1000);
    if (e <= atMs) observe(relistDuration, (e - s) / 1000);
    if (ok) lastOkStart = s;
  };
  // each normal relist is one ListPodSandbox + one ListContainers (GetPods), most of its duration
  const relistCalls = [];
  // relists: every ~1 s after the previous one finished, except inside incident spans
  let t = startMs + 1000 + rng.int(100, 600);
  let lastSeen = startMs;
  for (const sp of spans.filter((x) => x.from >= startMs)) {
    while (t < sp.from && t < atMs) {
      const d = rng.logn(0.009, 0.45) * 1000;
      observeRelist(t, t + d, true);
      if (t + d <= atMs) relistCalls.push(d);
      lastSeen = t;
      t = t + d + 1000 + rng.int(0, 3);
    }
    if (t >= atMs) break;
    for (const r of sp.i.relists) {
      if (r.startMs >= atMs) break;
      observeRelist(r.startMs, r.endMs, r.ok);
    }
    for (const r of sp.i.relistOk) if (r.okMs <= atMs) lastSeen = r.startMs;
    t = Number.isFinite(sp.to) ? sp.to + 1000 : Infinity;
  }
  while (t < atMs) {
    const d = rng.logn(0.009, 0.45) * 1000;
    observeRelist(t, t + d, true);
    if (t + d <= atMs) relistCalls.push(d);
    lastSeen = t;
    t = t + d + 1000 + rng.int(0, 3);
  }
  // CRI operations
  const operations = {};
  for (const [op, [rate, med, sig]] of Object.entries(OP_MODEL)) {
    const h = emptyHistogram(CRI_BUCKETS);
    let errors = 0;
    const r2 = createRng(`${seed}:op:${op}:${startMs}`);
    let x = startMs + r2.exp(1000 / rate);
    while (x < atMs) {
      const blocked = spans.some((sp) => sp.hang && x >= sp.hang[0] && x < sp.hang[1] && (sp.hungOps == null || sp.hungOps.has(op)));
      const d = r2.logn(med, sig);
      if (!blocked && x + d * 1000 <= atMs) observe(h, d);
      x += r2.exp(1000 / rate);
    }
    operations[op] = { duration: h, errors };
  }
  for (const d of relistCalls) {
    observe(operations.list_podsandbox.duration, (d * 0.42) / 1000);
    observe(operations.list_containers.duration, (d * 0.46) / 1000);
  }
  for (const sp of spans) {
    for (const c of sp.i.calls) {
      if (c.startMs < startMs || c.endMs > atMs) continue;
      operations[c.op] ??= { duration: emptyHistogram(CRI_BUCKETS), errors: 0 };
      observe(operations[c.op].duration, (c.endMs - c.startMs) / 1000);
      if (!c.ok) operations[c.op].errors++;
    }
  }
  // pods as the PLEG last saw them
  let runningPods = 30;
  let containers = 50;
  if (truth.podTimeline) {
    for (const [tt, p, c] of truth.podTimeline) { if (tt > Math.min(atMs, lastSeen + 1000)) break; runningPods = p; containers = c; }
  }
  return {
    timestampMs: atMs, processStartTimeSeconds: startMs / 1000,
    relistDuration, relistInterval, plegLastSeenSeconds: Number((lastSeen / 1000).toFixed(6)),
    operations, runningPods, runningContainers: runningContainers ?? { created: 0, exited: 4, running: containers, unknown: 0 },
    host: truth.host, kubeletVersion: truth.kubeletVersion,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// containerd's own journal (journalctl -u containerd, short format, logrus text), driven by the kubelet's activity.

/**
 * Lines of `journalctl -u containerd` consistent with a kubelet journal generated with `recordActivity: true`.
 * A list_timeout incident shows up as containerd stuck on the OOM-killed container's shim: "get state for" timeouts,
 * TaskExit handling failing with back-off, then the shim cleanup when it comes back.
 *
 * @param {object} truth  ground truth of the kubelet journal (with `activity`)
 * @param {object} [o]    { host, pid=1021, seed, tz, version='1.7.13' }
 * @returns {string[]}
 */
export function generateContainerdJournal(truth, o = {}) {
  const host = o.host ?? truth.host;
  const pid = o.pid ?? 1021;
  const rng = createRng(`${o.seed ?? truth.seed}:containerd`);
  const tzMin = parseTz(o.tz ?? truth.tzMinutes ?? 0);
  const clock = new Clock(tzMin);
  const version = o.version ?? truth.runtimeVersion ?? '1.7.13';
  const items = [];
  // sub-millisecond noise: containerd's goroutines do not log on the kubelet's microsecond grid
  const add = (ms, level, msg, extra = '', ident = 'containerd') => items.push({ ms: ms + rng.float(), level, msg, extra, ident, q: items.length });
  const sys = (ms, text) => items.push({ ms, raw: text, ident: 'systemd', q: items.length });
  // logrus text formatter: bare when safe, else Go-quoted (newlines become \n)
  const quoteMsg = (m) => (/^[A-Za-z.]+$/.test(m) ? m : `"${m.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`);
  const boot = truth.firstMs - rng.int(1500, 2500);
  sys(boot, 'Starting containerd.service - containerd container runtime...');
  let b = boot + rng.int(40, 120);
  add(b, 'info', 'starting containerd', ` revision=7c3aca7a610df76212171d200ca3811ff6096eb8 version=v${version}`);
  for (const [p, ty] of [['io.containerd.snapshotter.v1.aufs', 'io.containerd.snapshotter.v1'], ['io.containerd.content.v1.content', 'io.containerd.content.v1'],
    ['io.containerd.snapshotter.v1.native', 'io.containerd.snapshotter.v1'], ['io.containerd.snapshotter.v1.overlayfs', 'io.containerd.snapshotter.v1'],
    ['io.containerd.metadata.v1.bolt', 'io.containerd.metadata.v1'], ['io.containerd.differ.v1.walking', 'io.containerd.differ.v1'],
    ['io.containerd.runtime.v2.task', 'io.containerd.runtime.v2'], ['io.containerd.monitor.v1.cgroups', 'io.containerd.monitor.v1'],
    ['io.containerd.grpc.v1.cri', 'io.containerd.grpc.v1']]) {
    add(b += rng.int(1, 8), 'info', `loading plugin "${p}"...`, ` type=${ty}`);
  }
  add(b += rng.int(1, 4), 'info', 'skip loading plugin "io.containerd.snapshotter.v1.aufs"...', ' error="aufs is not supported (modprobe aufs failed: exit status 1 \\"modprobe: FATAL: Module aufs not found in directory /lib/modules/5.15.0-1053-aws\\\\n\\"): skip plugin" type=io.containerd.snapshotter.v1');
  add(b += rng.int(2, 9), 'info', 'Connect containerd service');
  add(b += rng.int(1, 3), 'info', 'using legacy CRI server');
  add(b += rng.int(1, 3), 'info', 'Get image filesystem path "/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs"');
  add(b += rng.int(1, 3), 'info', 'serving...', ' address=/run/containerd/containerd.sock.ttrpc');
  add(b += rng.int(0, 2), 'info', 'serving...', ' address=/run/containerd/containerd.sock');
  add(b += rng.int(0, 2), 'info', 'Start subscribing containerd event');
  add(b += rng.int(0, 2), 'info', 'Start recovering state');
  add(b += rng.int(5, 30), 'info', 'Start event monitor');
  add(b += rng.int(0, 2), 'info', 'Start snapshots syncer');
  add(b += rng.int(0, 2), 'info', 'Start cni network conf syncer for default');
  add(b += rng.int(0, 2), 'info', 'Start streaming server');
  add(b += rng.int(0, 2), 'info', `containerd successfully booted in 0.${rng.int(40, 90)}${rng.int(1000, 9999)}s`);
  sys(b += rng.int(1, 5), 'Started containerd.service - containerd container runtime.');

  const meta = (a) => `&PodSandboxMetadata{Name:${a.pod},Uid:${a.uid},Namespace:${a.ns},Attempt:0,}`;
  const cmeta = (a) => `&ContainerMetadata{Name:${a.container},Attempt:${a.attempt ?? 0},}`;
  const attempts = new Map();
  const inc = (truth.incidents || []).find((i) => i.cause === 'list_timeout');
  const hang = inc ? [inc.hungFrom, inc.recoveredAtMs ?? inc.endMs] : null;
  const inHang = (ms) => hang && ms >= hang[0] && ms < hang[1];
  const shim = () => {
    const out = [];
    for (const ty of ['io.containerd.event.v1.publisher', 'io.containerd.internal.v1.shutdown', 'io.containerd.ttrpc.v1.task', 'io.containerd.ttrpc.v1.pause']) out.push([`loading plugin "${ty}"...`, ` runtime=io.containerd.runc.v2 type=${ty.split('.').slice(0, 4).join('.')}`]);
    return out;
  };
  for (const a of truth.activity || []) {
    let t = a.t - rng.int(5, 200);
    if (inHang(t) && !a.oom) continue;
    switch (a.type) {
      case 'sandbox': {
        add(t, 'info', `RunPodSandbox for ${meta(a)}`);
        t += rng.int(40, 180);
        for (const [m, x] of shim()) add(t += rng.int(0, 2), 'info', m, x);
        add(t + rng.int(60, 300), 'info', `RunPodSandbox for ${meta(a)} returns sandbox id "${a.sandbox}"`);
        break;
      }
      case 'start': {
        const k = `${a.uid}/${a.container}`;
        const n = attempts.get(k) ?? 0;
        attempts.set(k, n + 1);
        const m = { ...a, attempt: n };
        if (n === 0 && rng.chance(0.25)) {
          const img = `registry.example.internal/${a.ns}/${a.container}:${rng.int(1, 9)}.${rng.int(0, 30)}.${rng.int(0, 9)}`;
          const tp = t - rng.int(1500, 9000);
          add(tp, 'info', `PullImage "${img}"`);
          const sha = rng.hex(64);
          add(tp + rng.int(300, 1200), 'info', `ImageCreate event name:"${img}" labels:{key:"io.cri-containerd.image" value:"managed"}`);
          add(tp + rng.int(1300, 1400), 'info', `stop pulling image ${img}: active requests=0, bytes read=${rng.int(2e6, 9e7)}`);
          add(tp + rng.int(1400, 1500), 'info', `Pulled image "${img}" with image id "sha256:${sha}", repo tag "${img}", repo digest "${img.split(':')[0]}@sha256:${rng.hex(64)}", size "${rng.int(2e6, 9e7)}" in ${(rng.range(1.2, 8)).toFixed(6)}s`);
        }
        add(t, 'info', `CreateContainer within sandbox "${a.sandbox}" for container ${cmeta(m)}`);
        add(t += rng.int(20, 120), 'info', `CreateContainer within sandbox "${a.sandbox}" for ${cmeta(m)} returns container id "${a.id}"`);
        // runc.v2 groups a pod's containers under the sandbox's shim: no shim start-up lines here
        add(t += rng.int(0, 3), 'info', `StartContainer for "${a.id}"`);
        add(t + rng.int(60, 250), 'info', `StartContainer for "${a.id}" returns successfully`);
        break;
      }
      case 'died': {
        if (a.oom && hang) {
          // the exit of the OOM-killed container cannot be processed while containerd is stuck
          add(t, 'info', `TaskOOM event &TaskOOM{ContainerID:${a.id},XXX_unrecognized:[],}`);
          const exited = new Date(a.t).toISOString().replace('T', ' ').replace('Z', '');
          const ev = `&TaskExit{ContainerID:${a.id},ID:${a.id},Pid:48237,ExitStatus:137,ExitedAt:${exited}${rng.int(100, 999)}421 +0000 UTC,XXX_unrecognized:[],}`;
          add(t + 10000 + rng.int(0, 50), 'error', `failed to handle container TaskExit event ${ev}`, ' error="failed to stop container: failed to delete task: context deadline exceeded: unknown"');
          let back = 1000;
          for (let x = t + 10000 + back; x < hang[1] - 2000; back = Math.min(back * 2, 300000), x += back + 10000) {
            add(x, 'error', `failed to handle backOff event ${ev} for ${a.id}`, ' error="failed to handle container TaskExit event: failed to stop container: failed to delete task: context deadline exceeded: unknown"');
          }
          for (let x = t + rng.int(3000, 9000); x < hang[1] - 1000; x += rng.int(10000, 16000)) {
            add(x, 'error', `get state for ${a.id}`, ' error="context deadline exceeded: unknown"');
            if (rng.chance(0.5)) add(x + rng.int(1, 40), 'warning', 'unknown status', ' status=0');
          }
          for (let x = t + rng.int(30000, 90000); x < hang[1]; x += rng.int(120000, 300000)) add(x, 'error', 'ttrpc: received message on inactive stream', ` stream=${rng.int(3, 99) * 2 + 1}`);
          let r = hang[1] - rng.int(300, 900);
          add(r, 'info', 'shim disconnected', ` id=${a.id} namespace=k8s.io`);
          add(r += rng.int(1, 5), 'warning', 'cleaning up after shim disconnected', ` id=${a.id} namespace=k8s.io`);
          add(r += rng.int(1, 5), 'info', 'cleaning up dead shim', ' namespace=k8s.io');
          add(r += rng.int(5, 20), 'warning', 'cleanup warnings time="' + new Date(r).toISOString().replace(/\.\d+Z$/, 'Z') + '" level=info msg="starting signal loop" namespace=k8s.io pid=' + rng.int(50000, 60000) + ' runtime=io.containerd.runc.v2\n');
          add(r += rng.int(5, 50), 'info', `TaskExit event in podsandbox handler container_id:"${a.id}" id:"${a.id}" pid:48237 exit_status:137 exited_at:{seconds:${Math.floor(a.t / 1000)} nanos:${rng.int(1e8, 9e8)}}`);
          break;
        }
        if (a.exitCode === 143 || a.exitCode === 137) {
          add(t - rng.int(300, 12000), 'info', `StopContainer for "${a.id}" with timeout 30 (s)`);
          add(t - rng.int(100, 290), 'info', `Stop container "${a.id}" with signal terminated`);
        }
        // a container exit inside a live pod is handled silently at info level (the pod's shim keeps running)
        if (a.exitCode === 143 || a.exitCode === 137) add(t + rng.int(20, 90), 'info', `StopContainer for "${a.id}" returns successfully`);
        break;
      }
      case 'sandbox-stop': {
        add(t, 'info', `StopPodSandbox for "${a.sandbox}"`);
        add(t + rng.int(10, 40), 'info', 'shim disconnected', ` id=${a.sandbox} namespace=k8s.io`);
        add(t + rng.int(40, 60), 'warning', 'cleaning up after shim disconnected', ` id=${a.sandbox} namespace=k8s.io`);
        add(t + rng.int(60, 70), 'info', 'cleaning up dead shim', ' namespace=k8s.io');
        add(t + rng.int(80, 400), 'info', `TearDown network for sandbox "${a.sandbox}" successfully`);
        add(t + rng.int(400, 450), 'info', `StopPodSandbox for "${a.sandbox}" returns successfully`);
        break;
      }
      case 'remove': {
        add(t, 'info', `RemoveContainer for "${a.id}"`);
        add(t + rng.int(8, 60), 'info', `RemoveContainer for "${a.id}" returns successfully`);
        break;
      }
      default:
    }
  }
  items.sort((x, y) => x.ms - y.ms || x.q - y.q);
  const lastMs = truth.lastMs + 5000;
  const out = [];
  for (const it of items) {
    if (it.ms > lastMs) break;
    const sec = Math.floor(it.ms / 1000);
    clock.set(sec);
    const prefix = `${clock.short} ${host} ${it.ident}[${it.ident === 'systemd' ? 1 : pid}]: `;
    if (it.raw) { out.push(prefix + it.raw); continue; }
    // containerd stamps RFC 3339 with nanoseconds in UTC
    const ns = String(Math.round((it.ms - sec * 1000) * 1e6) + rng.int(0, 999)).padStart(9, '0');
    const iso = `${new Date(sec * 1000).toISOString().slice(0, 19)}.${ns}Z`;
    out.push(`${prefix}time="${iso}" level=${it.level} msg=${quoteMsg(it.msg)}${it.extra}`);
  }
  return out;
}
