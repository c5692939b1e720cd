// Versions with a known bug that stalls PLEG or flaps the node NotReady the way this tool looks at: a small data table,
// matched against the versions the input states (journal start lines, `docker info`, `containerd -v`, `kubectl
// describe node`, a hung-task report's kernel). A match is supporting evidence with its link, never a cause on its own.
// Every range was checked against the projects' tags, CHANGELOGs or release notes (git tag --contains <fix>), not
// recalled; what could not be verified is not here.
import type { Cause } from '../contract/analysis.js';
import type { Component } from '../signals/events.js';

export interface VersionRange {
  component: Component;
  /** Inclusive; absent = every earlier version. */
  from?: string;
  /** Exclusive: the first release that has the fix; absent = no release fixes it. */
  before?: string;
  /** Releases on other branches that got the fix (a version on the same major.minor at or past one is not affected). */
  fixedIn?: string[];
  /** Instead of a range: a pattern the version string must match (kernel builds). */
  pattern?: string;
}

export interface KnownBug {
  id: string;
  cause: Cause;
  title: string;
  /** What goes wrong and how it shows, plainly. */
  what: string;
  /** Every range must match (a runtime version and a kernel, say). */
  match: VersionRange[];
  /** Facts of which the input must show at least one: a bug of a wide range of versions is cited only with a sign of
   *  it (a stall, or the calls it makes time out), one that every version has only with its own signature. */
  needs?: string[];
  /** A more precise entry decides when this component's version is stated (docker's bundled runc vs. runc itself). */
  unlessStated?: Component;
  links: string[];
}

export const KNOWN_BUGS: KnownBug[] = [
  {
    id: 'pleg-channel-deadlock', cause: 'relist_deadlock',
    title: 'Kubelet before 1.14: relist blocks forever on a full PLEG event channel',
    what: 'Before 1.14 relist blocked sending to the PLEG event channel (capacity 1000) once it was full; with PLEG unhealthy the sync loop stopped draining it, so relist never finished again and the node stayed NotReady until the kubelet restarted (fixed in 1.14.0, not backported).',
    match: [{ component: 'kubelet', before: '1.14.0' }],
    needs: ['stall.count'],
    links: ['https://github.com/kubernetes/kubernetes/issues/72482', 'https://github.com/kubernetes/kubernetes/pull/72709'],
  },
  {
    id: 'cri-grpc-4mib-limit', cause: 'exited_containers',
    title: 'Kubelet before 1.10.5/1.11: list replies over 4 MiB fail every relist',
    what: "The kubelet's CRI client kept gRPC's 4 MiB receive limit, so with enough (mostly exited) containers or sandboxes every ListContainers/ListPodSandbox reply failed with ResourceExhausted and PLEG went unhealthy; 1.10.5 and 1.11.0 raised it to 16 MiB.",
    match: [{ component: 'kubelet', before: '1.11.0', fixedIn: ['1.10.5'] }],
    needs: ['cri.sizeLimit', 'stall.count'],
    links: ['https://github.com/kubernetes/kubernetes/pull/63977', 'https://github.com/kubernetes/kubernetes/pull/64672'],
  },
  {
    id: 'docker-ps-locks', cause: 'runtime_timeout',
    title: 'Docker before 17.07: `docker ps` takes every container\'s lock',
    what: 'Before Docker 17.07 listing containers locked each container in turn, so one container whose lock a stuck operation held made every list (the relist, through dockershim) hang until it timed out.',
    match: [{ component: 'docker', before: '17.07.0' }],
    needs: ['stall.count', 'cri.listTimeouts', 'runtime.brokenPipe', 'cli.timeouts', 'relist.failedTimeouts'],
    links: ['https://github.com/moby/moby/pull/31273'],
  },
  {
    id: 'runc-exec-fifo-hang', cause: 'runtime_timeout',
    title: 'runc rc2–rc4: a container start that never returns (exec fifo race)',
    what: 'When the `runc init` stub died at the wrong moment (OOM-killed, or racing a delete), `runc start` waited forever on the exec fifo, and the daemon kept that container locked: its status calls time out on every relist.',
    match: [{ component: 'runc', from: '1.0.0-rc2', before: '1.0.0-rc5' }],
    needs: ['stall.count', 'cri.perIdTimeouts', 'cli.timeouts'],
    links: ['https://github.com/opencontainers/runc/pull/1698', 'https://github.com/moby/moby/pull/36097'],
  },
  {
    id: 'docker-exec-fifo-hang', cause: 'runtime_timeout',
    title: 'Docker before 17.12.1/18.02: bundled runc with the exec fifo hang',
    what: 'Docker CE bundled a runc with the exec fifo race until 17.12.1-ce / 18.02.0-ce (18.01.0-ce still had it): a container start could hang forever with dockerd holding the container\'s lock.',
    match: [{ component: 'docker', before: '18.02.0', fixedIn: ['17.12.1'] }],
    needs: ['stall.count', 'cri.perIdTimeouts', 'cli.timeouts'],
    unlessStated: 'runc',
    links: ['https://github.com/moby/moby/pull/36097', 'https://github.com/opencontainers/runc/pull/1698'],
  },
  {
    id: 'runc-freezer-stuck', cause: 'runtime_timeout',
    title: 'runc rc91–rc92: a cgroup v1 freeze that never ends',
    what: 'Freezing a cgroup v1 container looped forever when the cgroup stayed FREEZING, and with the systemd cgroup driver runc freezes on every update (container start, UpdateContainerResources): runc and the container hang, and calls about it time out.',
    match: [{ component: 'runc', from: '1.0.0-rc91', before: '1.0.0-rc93' }],
    links: ['https://github.com/opencontainers/runc/pull/2774', 'https://github.com/opencontainers/runc/pull/2918'],
  },
  {
    id: 'runc-rc93', cause: 'runtime_timeout',
    title: 'runc 1.0.0-rc93: `runc init` hang and freezer regressions (fixed in rc94)',
    what: 'runc rc93 shipped regressions that rc94 fixed with an "update as soon as possible" note, among them a `runc init` hang and a freeze left in place on failure; nodes on rc93 (containerd.io 1.4.3-2, 1.4.4-1) had PLEG stalls with per-sandbox DeadlineExceeded that a runc upgrade cured.',
    match: [{ component: 'runc', from: '1.0.0-rc93', before: '1.0.0-rc94' }],
    links: ['https://github.com/opencontainers/runc/releases/tag/v1.0.0-rc94', 'https://github.com/kubermatic/machine-controller/issues/989'],
  },
  {
    id: 'runc-kmem-rhel7', cause: 'memory_pressure',
    title: 'runc rc3–rc93 on a RHEL/CentOS 7 kernel: kernel-memory accounting leaks',
    what: "From rc3 runc switched on kernel-memory accounting for every container cgroup; the RHEL/CentOS 7 3.10 kernel's kmem accounting does not reclaim and can oops, so memory leaks until allocations fail (\"SLUB: Unable to allocate memory on node -1\"), cgroup OOM storms follow and the runtime can wedge (runc rc94 ignores kmem; builds with the nokmem tag avoid it).",
    match: [{ component: 'runc', from: '1.0.0-rc3', before: '1.0.0-rc94' }, { component: 'kernel', pattern: '^3\\.10\\.0-.*\\.el7' }],
    links: ['https://github.com/kubernetes/kubernetes/issues/61937', 'https://github.com/opencontainers/runc/issues/1725', 'https://github.com/opencontainers/runc/pull/2840', 'https://github.com/rancher/rancher/issues/15655'],
  },
  {
    id: 'docker-kmem-rhel7', cause: 'memory_pressure',
    title: 'Docker up to 18.09.0 on a RHEL/CentOS 7 kernel: kernel-memory accounting leaks',
    what: "Docker CE up to 18.09.0 bundled a runc that switches on kernel-memory accounting for every container cgroup; on the RHEL/CentOS 7 3.10 kernel that leaks kernel memory until allocations fail, cgroup OOM storms follow and the runtime can wedge.",
    match: [{ component: 'docker', before: '18.09.1' }, { component: 'kernel', pattern: '^3\\.10\\.0-.*\\.el7' }],
    unlessStated: 'runc',
    links: ['https://github.com/kubernetes/kubernetes/issues/61937', 'https://github.com/moby/moby/issues/29638', 'https://github.com/rancher/rancher/issues/15655'],
  },
  {
    id: 'containerd-shim-fifo-hang', cause: 'runtime_timeout',
    title: 'containerd 1.2.7–1.4.0: v1 shims hang on a full log pipe',
    what: "With shim_debug off containerd never read the v1 shim's log fifo, so a shim that logged enough blocked on the full pipe and hung on exit and exec; calls about its containers time out (fixed in 1.4.1 and 1.5.0 only).",
    match: [{ component: 'containerd', from: '1.2.7', before: '1.4.1' }],
    needs: ['stall.count', 'cri.perIdTimeouts', 'runtime.stateTimeouts', 'cli.timeouts'],
    links: ['https://github.com/containerd/containerd/pull/4546', 'https://github.com/containerd/containerd/pull/4560'],
  },
  {
    id: 'containerd-1.2.12-shim-hang', cause: 'runtime_timeout',
    title: 'containerd 1.2.12: shims hang on single-core machines',
    what: 'containerd 1.2.12 carried a pid-locking regression that made shims and containers hang on single-core machines; 1.2.13 fixed it.',
    match: [{ component: 'containerd', from: '1.2.12', before: '1.2.13' }],
    links: ['https://github.com/containerd/containerd/pull/4025'],
  },
  {
    id: 'containerd-update-lock', cause: 'runtime_timeout',
    title: 'containerd: one hung UpdateContainerResources blocks ListContainers (no release fixes it)',
    what: "The CRI plugin holds a container's status lock while UpdateContainerResources waits on the shim, and ListContainers needs every container's status lock: one hung update (typically the static CPU manager changing cpusets) blocks every list, and the relist, until it returns.",
    match: [{ component: 'containerd' }],
    needs: ['runtime.blockedCall'],
    links: ['https://github.com/containerd/containerd/issues/10583'],
  },
  {
    id: 'crio-status-oplock', cause: 'runtime_timeout',
    title: 'CRI-O before 1.18 (1.15.4, 1.17.2): ContainerStatus waits behind a slow stop',
    what: "ContainerStatus took the container's operation lock, which StopContainer can hold for minutes, so the kubelet's per-pod status calls during relist blocked behind slow stops.",
    match: [{ component: 'cri-o', before: '1.18.0', fixedIn: ['1.15.4', '1.17.2'] }],
    needs: ['cri.perIdTimeouts'],
    links: ['https://github.com/cri-o/cri-o/pull/3457', 'https://github.com/cri-o/cri-o/pull/3539'],
  },
  {
    id: 'crio-sandbox-oplock', cause: 'runtime_timeout',
    title: 'CRI-O before 1.34 (1.31.10, 1.32.6, 1.33.1): PodSandboxStatus waits behind a slow infra stop',
    what: "PodSandboxStatus read the infra container's state under its operation lock, so a sandbox whose infra container was slow to stop blocked PodSandboxStatus, which relist calls for every changed pod.",
    match: [{ component: 'cri-o', before: '1.34.0', fixedIn: ['1.31.10', '1.32.6', '1.33.1'] }],
    needs: ['cri.podSandboxStatusTimeouts'],
    links: ['https://github.com/cri-o/cri-o/pull/9188', 'https://github.com/cri-o/cri-o/pull/9291'],
  },
  {
    id: 'crio-1.23.0-list-panic', cause: 'runtime_restart',
    title: 'CRI-O 1.23.0: panics while serving the list calls',
    what: 'CRI-O 1.23.0 returned its cached structs from ListContainers/ListPodSandbox, so a state change during serialization panicked protobuf and crio crashed, failing relists until it was back.',
    match: [{ component: 'cri-o', from: '1.23.0', before: '1.23.1' }],
    links: ['https://github.com/cri-o/cri-o/pull/5606'],
  },
];

/** A version → comparable parts: numbers, then a pre-release rank (`-rc93` → 93; a release ranks above every rc). */
function parts(v: string): number[] | null {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-.+~]?rc\.?(\d+))?/i.exec(v.trim());
  if (!m) return null;
  return [Number(m[1]), Number(m[2]), Number(m[3] ?? 0), m[4] !== undefined ? Number(m[4]) : Number.MAX_SAFE_INTEGER];
}

export function compareVersions(a: string, b: string): number | null {
  const x = parts(a);
  const y = parts(b);
  if (!x || !y) return null;
  for (let i = 0; i < 4; i++) if ((x[i] as number) !== (y[i] as number)) return (x[i] as number) - (y[i] as number);
  return 0;
}

/** Whether a version falls in a range (its own fixes on other branches counted). */
export function inRange(version: string, r: VersionRange): boolean {
  if (r.pattern) return new RegExp(r.pattern).test(version);
  const v = parts(version);
  if (!v) return false;
  if (r.from !== undefined && (compareVersions(version, r.from) ?? -1) < 0) return false;
  if (r.before !== undefined && (compareVersions(version, r.before) ?? 1) >= 0) return false;
  for (const f of r.fixedIn ?? []) {
    const p = parts(f);
    if (p && p[0] === v[0] && p[1] === v[1] && (compareVersions(version, f) ?? -1) >= 0) return false;
  }
  return true;
}
