// Goroutine dumps of the kubelet, dockerd, containerd or cri-o (SIGQUIT / SIGUSR1 / `debug/pprof/goroutine?debug=2`,
// and pprof `debug=1`), one goroutine or hundreds of thousands, as files or pasted with a journal or time prefix on every
// line and their indentation lost. Streamed line by line; what is kept is bounded: the relist goroutines, goroutines
// blocked for minutes in file-system calls, and per lock site the count of goroutines waiting there.
// debug=2 / SIGQUIT:
//   goroutine 417 [chan send, 12 minutes]:
//   k8s.io/kubernetes/pkg/kubelet/pleg.(*GenericPLEG).relist(0xc0004a2000)
//   	/workspace/…/pkg/kubelet/pleg/generic.go:259 +0x8c5
// debug=1:
//   1 @ 0x43a1c5 0x4069f7 0x1c2a4b5
//   #	0x1c2a4b4	k8s.io/kubernetes/pkg/kubelet/pleg.(*GenericPLEG).relist+0x8c4	/workspace/…/generic.go:259
// In a journal, indentation lost:
//   01:38:02 kubelet[188613]: goroutine 328 [syscall, 46 minutes]:
//   01:38:02 kubelet[188613]: syscall.fstatat(0xffffffffffffff9c, 0xc002b20d20, 0x60, 0xc002bcbe48, 0x0, 0xf, 0xc002b0ca00)
//   01:38:02 kubelet[188613]: /usr/local/go/src/syscall/zsyscall_linux_amd64.go:1520 +0xcb
import { parseLine, skipDecoration, type ParseContext } from './record.js';
import { linePrefixOf, skipLinePrefix, type LinePrefix } from '../util/line-prefix.js';
import { resolveZone, WallClock, YearClock } from './time.js';

export interface Goroutine {
  id: number | null;
  /** `chan send`, `select`, `IO wait`, `semacquire`, … (null in debug=1 dumps, which do not say). */
  state: string | null;
  waitMinutes: number | null;
  /** Function names, innermost first. */
  frames: string[];
  /** Innermost frame inside the kubelet (or its CRI client / dockershim). */
  deepestKubeletFrame: string | null;
  line: number;
  headerText: string;
}

export type DumpProgram = 'kubelet' | 'dockerd' | 'containerd' | 'cri-o' | 'unknown';

export interface LockWait {
  /** Goroutines waiting at this site. */
  count: number;
  state: string;
  /** The first frame outside the runtime and sync packages: who takes the lock. */
  site: string;
  maxMinutes: number;
  sample: Goroutine;
}

export interface ParsedGoroutines {
  /** Artifact id of the dump (set by the caller), for evidence refs. */
  artifact?: number;
  format: 'debug2' | 'debug1';
  /** Whose dump it is, from its frames. */
  program: DumpProgram;
  total: number;
  relist: Goroutine[];
  /** Goroutines blocked for 3 minutes or more in a system call under a file-system call (stat, statfs, a mount helper
   *  the kubelet runs and waits for): storage that does not answer. */
  fsWaits: Goroutine[];
  /** The lock site most goroutines wait at (2 or more, waiting a minute or more), if any. */
  lockWait: LockWait | null;
  /** The goroutine that has waited longest. */
  longest: Goroutine | null;
  /** A crash traceback (`fatal error:` / `panic:` printed before the goroutines). */
  crash: { message: string; line: number; text: string } | null;
  /** A runtime's goroutine that has waited 30 minutes or more in a system call or on a lock under the daemon's own work
   *  (its event loop, an inspect, a task's state): one such wait freezes every call that needs the same loop or
   *  container (containerd 0.2's event monitor in `read()` on an OOM eventfd; dockerd's inspect on a container's
   *  mutex). Idle waits (signal handlers, listeners, reapers) are not counted. */
  frozen: Goroutine | null;
  /** Goroutines inside the network plugin's status or set-up/tear-down call (dockershim's GetPodNetworkStatus, the
   *  CNI plugin's exec): with dockershim the relist's PodSandboxStatus waits on them from another goroutine. */
  cniWaits: Goroutine[];
}

const KUBELET_FRAME = /k8s\.io\/(kubernetes\/pkg\/kubelet|cri-client|kubernetes\/pkg\/kubelet\/dockershim)|\/pkg\/kubelet\//;
const HEADER2 = /goroutine (\d+) \[([^\],]+)(?:, (\d+) minutes)?(?:, [^\]]*)?\]:\s*$/;
const HEADER1 = /^(\d+) @ 0x[0-9a-f]/;
/** A frame's source position (`\t/usr/local/go/src/os/stat.go:13 +0x4d`), with or without its indentation. */
const FILE_LINE = /^\s*\S+\.(?:go|s|c):\d+(?: \+0x[0-9a-f]+)?(?: fp=\S+ sp=\S+(?: pc=\S+)?)?\s*$/;
/** File-system calls that block when storage does not answer (NFS, a hung mount, a dead disk). */
const FS_FRAME = /^(?:syscall\.(?:fstatat|Stat|Lstat|Statfs|Fstatfs|Getdents|Open|openat|Readlink|Mount|Unmount)|os\.(?:Stat|Lstat|statNolog|lstatNolog|Open|OpenFile|ReadDir|Readlink)|golang\.org\/x\/sys\/unix\.(?:Statfs|Fstatat|Stat|Lstat)|k8s\.io\/\S*mount\S*\.(?:\(\*\w+\)\.)?(?:IsLikelyNotMountPoint|IsNotMountPoint|PathExists|GetMountRefs|Unmount|Mount)|k8s\.io\/\S*\/(?:volume|fs|mount)\/)/;
const EXEC_WAIT = /^(?:syscall\.wait4|syscall\.Wait4|os\.\(\*Process\)\.wait|os\/exec\.\(\*Cmd\)\.Wait)/;
const LOCK_STATE = /^(?:semacquire|sync\.(?:RW)?Mutex\.R?Lock|sync\.Cond\.Wait)/;
const PLUMBING = /^(?:runtime\.|sync\.|internal\/sync\.|internal\/poll\.)/;
const MAX_KEPT = 8;
/** States in which a goroutine is parked, not running: a wait of minutes there is a wait on something. */
const BLOCKED_STATE = /^(?:syscall|semacquire|sync\.(?:RW)?Mutex\.R?Lock|sync\.Cond\.Wait|chan send|chan receive|select|IO wait)/;
/** The daemon's own work, as opposed to its idle loops: event processing, inspect/state of a container or task, the
 *  list and status calls a kubelet makes (dockerd, containerd 0.2 and 1.x+, cri-o). */
const RUNTIME_WORK = /\(\*Monitor\)\.processEvent|\(\*oom\)\.Flush|ContainerInspect|containerInspect|\(\*Daemon\)\.(?:Containers|ContainerStats|ContainerStop|ContainerKill|ContainerRm|ContainerExecStart|ProcessEvent|handleContainerExit|Cleanup|reduceContainers)|\(\*State\)\.|\(\*Container\)\.(?:R?Lock|State)|\(\*criService\)\.|\(\*task\)\.(?:State|Kill|Delete|Pids)|processEventStream|\(\*eventMonitor\)\.|\(\*Server\)\.(?:ContainerStatus|ListContainers|ListPodSandbox|PodSandboxStatus|StopPodSandbox|StopContainer)|\(\*runtimeOCI\)\.|\(\*Runtime\)\.(?:UpdateContainerStatus|StopContainer)/;
/** Frames of the network plugin's calls (dockershim's plugin manager, the CNI library's exec of a plugin). */
const CNI_FRAME = /GetPodNetworkStatus|getIPsFromPlugin|getIPFromPlugin|\(\*cniNetworkPlugin\)\.|network\.\(\*PluginManager\)\.(?:SetUpPod|TearDownPod)|containernetworking\/cni\/pkg\/invoke|go-cni\.\(\*libcni\)\.(?:Setup|Remove|Status)/;
/** A frame of a debug=1 dump (`#\t0x4b3c1d\tpkg.fn+0x1c\t/path/file.go:12`). */
const DEBUG1_FRAME = /^#\s+0x[0-9a-f]+\s/;

/** A frame of a trace: a call (`pkg.(*T).fn(0xc000…)`), its source position, `created by …`, a debug=1 `#` line. */
function looksLikeFrame(t: string): boolean {
  return /^[^\s(]+\(.*\)$/.test(t) || FILE_LINE.test(t) || t.startsWith('created by ') || t.startsWith('#\t') || t.startsWith('# ') || t.startsWith('...additional frames elided');
}
const MAX_SITES = 4096;

export class GoroutineParser {
  private cur: Goroutine | null = null;
  private format: 'debug2' | 'debug1' = 'debug2';
  private total = 0;
  private readonly relist: Goroutine[] = [];
  private readonly fsWaits: Goroutine[] = [];
  private readonly sites = new Map<string, LockWait>();
  private longest: Goroutine | null = null;
  private frozen: Goroutine | null = null;
  /** A goroutine header was met: frames outside one are a crash's or noise, not a headerless stack. */
  private sawHeader = false;
  private readonly cniWaits: Goroutine[] = [];
  private crash: ParsedGoroutines['crash'] = null;
  private readonly votes: Record<DumpProgram, number> = { kubelet: 0, dockerd: 0, containerd: 0, 'cri-o': 0, unknown: 0 };
  private readonly ctx: ParseContext;
  private prefix: LinePrefix | null | undefined;
  /** A blank line was met inside the current goroutine (it ends there, unless a frame follows). */
  private blank = false;

  constructor() {
    const wall = new WallClock(resolveZone('UTC'));
    this.ctx = { wall, years: new YearClock(wall, { year: 2000 }) };
  }

  push(raw: string, lineNo: number): void {
    const line = this.withoutPrefix(raw);
    const h2 = HEADER2.exec(line);
    if (h2) {
      this.sawHeader = true;
      this.close();
      this.total++;
      this.cur = { id: Number(h2[1]), state: h2[2] as string, waitMinutes: h2[3] ? Number(h2[3]) : null, frames: [], deepestKubeletFrame: null, line: lineNo, headerText: raw };
      return;
    }
    const h1 = HEADER1.exec(line);
    if (h1) {
      this.sawHeader = true;
      this.close();
      this.format = 'debug1';
      this.total += Number(h1[1]);
      this.cur = { id: null, state: null, waitMinutes: null, frames: [], deepestKubeletFrame: null, line: lineNo, headerText: raw };
      return;
    }
    if (this.cur && this.blank) {
      this.blank = false;
      // A blank line ends a goroutine, unless the paste put one between every line: a frame follows it.
      if (!looksLikeFrame(line.trim())) this.close();
    }
    if (!this.cur && !this.sawHeader && (DEBUG1_FRAME.test(line.trim()) || (this.total === 0 && looksLikeFrame(line.trim()) && !line.trim().startsWith('created by ')))) {
      // A dump cut by `grep -C`, or a stack quoted without its header, starts in the middle of a stack: its frames are
      // a goroutine of their own (state and wait unknown).
      if (DEBUG1_FRAME.test(line.trim())) this.format = 'debug1';
      this.total++;
      this.cur = { id: null, state: null, waitMinutes: null, frames: [], deepestKubeletFrame: null, line: lineNo, headerText: raw };
    }
    if (!this.cur) {
      const c = /(?:^|\s)((?:fatal error|panic): .*)$/.exec(line);
      if (c && !this.crash) this.crash = { message: (c[1] as string).trim(), line: lineNo, text: raw };
      return;
    }
    const t = line.trim();
    if (t.startsWith('#\t') || t.startsWith('# ')) {
      const f = t.split(/\t| +/)[2];
      if (f) this.addFrame(f.replace(/\+0x[0-9a-f]+$/, ''));
    } else if (t.length === 0) {
      this.blank = true;
    } else if (!t.startsWith('created by ') && !FILE_LINE.test(t) && !t.startsWith('...additional frames elided')) {
      this.addFrame(t.replace(/\([^()]*\)$/, ''));
    }
  }

  /** A line with a journal or time prefix (a dump written to the journal) without it, and without what a paste put
   *  before it (`> ` quoting, indentation, backticks); a dump line as it is. */
  private withoutPrefix(raw: string): string {
    const c = raw.charCodeAt(0);
    let d = c === 32 || c === 9 || c === 62 || c === 96 ? skipDecoration(raw) : 0;
    // grep's or cat -n's prefix (learned from the first line, as the sniffer does).
    if (this.prefix === undefined && raw.trim() !== '') this.prefix = linePrefixOf(raw, d);
    if (this.prefix) d = skipLinePrefix(raw, d, this.prefix);
    const s = d > 0 ? raw.slice(d) : raw;
    const c0 = s.charCodeAt(0);
    const c1 = s.charCodeAt(1);
    const monthLike = c0 >= 65 && c0 <= 90 && c1 >= 97 && c1 <= 122 && s.charCodeAt(3) === 32;
    const timeLike = c0 >= 48 && c0 <= 57 && c1 >= 48 && c1 <= 57 && (s.charCodeAt(2) === 58 || s.charCodeAt(4) === 45);
    if (!monthLike && !timeLike) return s;
    const rec = parseLine(s, 0, 0, this.ctx);
    if (rec?.ident) this.identVote(rec.ident);
    return rec && rec.payload !== s ? rec.payload : s;
  }

  private addFrame(f: string): void {
    const g = this.cur as Goroutine;
    if (g.frames.length >= 64) return;
    g.frames.push(f);
    if (!g.deepestKubeletFrame && KUBELET_FRAME.test(f)) g.deepestKubeletFrame = f;
  }

  private close(): void {
    const g = this.cur;
    this.cur = null;
    this.blank = false;
    if (!g) return;
    this.vote(g);
    if (g.frames.some((f) => f.includes('GenericPLEG).relist') || f.includes('GenericPLEG).Relist')) && this.relist.length < MAX_KEPT) this.relist.push(g);
    const minutes = g.waitMinutes ?? 0;
    if (minutes > (this.longest?.waitMinutes ?? -1)) this.longest = g;
    if (minutes >= 30 && g.state && BLOCKED_STATE.test(g.state) && g.frames.some((f) => RUNTIME_WORK.test(f)) && minutes > (this.frozen?.waitMinutes ?? -1)) this.frozen = g;
    if (this.cniWaits.length < MAX_KEPT && g.frames.some((f) => CNI_FRAME.test(f))) this.cniWaits.push(g);
    if (g.state === 'syscall' && minutes >= 3 && this.fsWaits.length < MAX_KEPT) {
      const fs = g.frames.some((f) => FS_FRAME.test(f));
      const helper = g.frames.some((f) => EXEC_WAIT.test(f)) && g.frames.some((f) => /mount|Mount|nsenter|du\b|DiskUsage|fsquota/.test(f));
      if (fs || helper) this.fsWaits.push(g);
    }
    if (g.state && LOCK_STATE.test(g.state) && minutes >= 1) {
      const site = g.frames.find((f) => !PLUMBING.test(f)) ?? g.frames[0] ?? '?';
      const key = `${g.state}|${site}`;
      const cur = this.sites.get(key);
      if (cur) {
        cur.count++;
        if (minutes > cur.maxMinutes) {
          cur.maxMinutes = minutes;
          cur.sample = g;
        }
      } else if (this.sites.size < MAX_SITES) {
        this.sites.set(key, { count: 1, state: g.state, site, maxMinutes: minutes, sample: g });
      }
    }
  }

  /** A dump written to a journal says whose it is in every line's identifier. */
  private identVote(ident: string): void {
    if (/^(?:kubelet|kubenswrapper|hyperkube|k3s|rke2|atomic-openshift-node|origin-node)/.test(ident)) this.votes.kubelet++;
    else if (ident.startsWith('dockerd')) this.votes.dockerd++;
    else if (ident.startsWith('containerd')) this.votes.containerd++;
    else if (ident.startsWith('crio')) this.votes['cri-o']++;
  }

  private vote(g: Goroutine): void {
    for (const f of g.frames) {
      // containerd 0.2, the daemon docker 1.11–17.x ran beside dockerd (docker-containerd).
      if (f.startsWith('github.com/docker/containerd/')) this.votes.containerd++;
      if (/k8s\.io\/kubernetes\/(?:pkg\/kubelet|cmd\/kubelet)/.test(f)) this.votes.kubelet++;
      else if (/github\.com\/(?:docker\/docker|moby\/moby)\//.test(f)) this.votes.dockerd++;
      else if (/github\.com\/cri-o\/cri-o\//.test(f)) this.votes['cri-o']++;
      else if (/github\.com\/containerd\/containerd(?:\/v2)?\/(?:services|pkg\/cri|cmd\/containerd|runtime|plugins|metadata|cri)/.test(f)) this.votes.containerd++;
    }
  }

  finish(): ParsedGoroutines {
    this.close();
    const v = this.votes;
    const program: DumpProgram = v.kubelet > 0 ? 'kubelet' : v.dockerd > 0 ? 'dockerd' : v['cri-o'] > 0 ? 'cri-o' : v.containerd > 0 ? 'containerd' : 'unknown';
    let lockWait: LockWait | null = null;
    for (const s of this.sites.values()) if (s.count >= 2 && (!lockWait || s.count > lockWait.count)) lockWait = s;
    // A kubelet's dump has no runtime goroutines of its own to freeze.
    const frozen = program === 'kubelet' ? null : this.frozen;
    return { format: this.format, program, total: this.total, relist: this.relist, fsWaits: this.fsWaits, lockWait, longest: this.longest, crash: this.crash, frozen, cniWaits: this.cniWaits };
  }
}
