// Fixture bundles built at test time (nothing big is committed): realistic minimal trees per
// shared/reference/bundle-layouts.md §10, written as a folder, a tar (plain, gzip, xz, bzip2) or a zip.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { kl, jl, skipLines, syncLoopEvent, sorted } from '../helpers/scenario.js';
// @ts-expect-error -- plain .mjs (the hostile inputs' zip writer, which can also make central directories that lie)
import { zipOf } from '../hostile/inputs.mjs';

export type Entry =
  | string
  | Buffer
  | { symlink: string }
  | { hardlink: string }
  | { fifo: true }
  | { device: true };

export type Files = Record<string, Entry>;

export const haveXz = spawnSync('xz', ['--version']).status === 0;
export const haveBzip2 = spawnSync('bzip2', ['--help']).status === 0;

export type Form = 'dir' | 'tar' | 'tar.gz' | 'tar.xz' | 'tar.bz2' | 'zip';
export const FORMS: Form[] = ['dir', 'tar', 'tar.gz', 'tar.xz', 'tar.bz2', 'zip'];

export function formAvailable(f: Form): boolean {
  return f === 'tar.xz' ? haveXz : f === 'tar.bz2' ? haveBzip2 : true;
}

const MTIME = new Date(Date.UTC(2024, 0, 11, 12, 0, 0));

/** Writes `files` as a folder under `dir` (symlinks as symlinks). */
export function writeDir(dir: string, files: Files): void {
  for (const [rel, e] of Object.entries(files)) {
    const p = path.join(dir, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    if (typeof e === 'string' || Buffer.isBuffer(e)) {
      fs.writeFileSync(p, e);
      // Collection time, as an unpacked bundle keeps it (year-less lines are anchored on it when nothing says better).
      fs.utimesSync(p, MTIME, MTIME);
    } else if ('symlink' in e) fs.symlinkSync(e.symlink, p);
    else if ('hardlink' in e) fs.linkSync(path.join(dir, e.hardlink), p);
  }
}

/** A tar of `files`, in insertion order, members named exactly as given (`../x`, `/abs` included). */
export async function tarBuffer(files: Files): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    pack.on('data', (c: Buffer) => chunks.push(c));
    pack.on('end', () => resolve());
    pack.on('error', reject);
  });
  for (const [name, e] of Object.entries(files)) {
    await new Promise<void>((resolve, reject) => {
      const cb = (err?: Error | null) => (err ? reject(err) : resolve());
      if (typeof e === 'string' || Buffer.isBuffer(e)) pack.entry({ name, mtime: MTIME, mode: 0o644 }, e, cb);
      else if ('symlink' in e) pack.entry({ name, type: 'symlink', linkname: e.symlink, mtime: MTIME }, cb);
      else if ('hardlink' in e) pack.entry({ name, type: 'link', linkname: e.hardlink, mtime: MTIME }, cb);
      else if ('fifo' in e) pack.entry({ name, type: 'fifo', mtime: MTIME }, cb);
      else pack.entry({ name, type: 'character-device', devmajor: 1, devminor: 3, mtime: MTIME }, cb);
    });
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** A zip of `files` (deflate; symlinks as unix symlink members). */
export function zipBuffer(files: Files): Buffer {
  const members: Array<{ name: string; data: Buffer; symlink?: boolean }> = [];
  for (const [name, e] of Object.entries(files)) {
    if (typeof e === 'string' || Buffer.isBuffer(e)) members.push({ name, data: Buffer.from(e) });
    else if ('symlink' in e) members.push({ name, data: Buffer.from(e.symlink), symlink: true });
  }
  return zipOf(members, MTIME) as Buffer;
}

export function compress(buf: Buffer, how: 'gz' | 'xz' | 'bz2'): Buffer {
  if (how === 'gz') return zlib.gzipSync(buf);
  return execFileSync(how === 'xz' ? 'xz' : 'bzip2', ['-c'], { input: buf, maxBuffer: 1 << 30 });
}

/** Writes `files` in the given form under `dir`, named `name` (+ extension); returns the path to analyze. */
export async function writeBundle(dir: string, name: string, files: Files, form: Form): Promise<string> {
  if (form === 'dir') {
    const p = path.join(dir, name);
    writeDir(p, prefixed(files, ''));
    return p;
  }
  const p = path.join(dir, `${name}.${form}`);
  if (form === 'zip') fs.writeFileSync(p, zipBuffer(files));
  else {
    const t = await tarBuffer(files);
    fs.writeFileSync(p, form === 'tar' ? t : compress(t, form === 'tar.gz' ? 'gz' : form === 'tar.xz' ? 'xz' : 'bz2'));
  }
  return p;
}

function prefixed(files: Files, prefix: string): Files {
  const out: Files = {};
  for (const [k, v] of Object.entries(files)) out[prefix + k] = v;
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Content. Times are UTC instants; `offsetMin` shifts the printed wall clock to the node's zone (the journal and the
// klog header both print local time).

export const BASE = Date.UTC(2024, 0, 11, 9, 0, 0);

function shift(lines: string[], offsetMin: number): string[] {
  if (offsetMin === 0) return lines;
  return lines; // lines are generated already shifted by the callers below
}

export interface LogSet {
  kubelet: string;
  runtime: string;
  dmesgT: string;
}

/**
 * One node's logs around a PLEG stall the runtime caused: relists fail with DeadlineExceeded, the sync loop skips,
 * the node goes NotReady, relist comes back. `precise`: must-gather's short-precise service log format.
 */
export function nodeLogs(host: string, o: { offsetMin?: number; stallAt?: number | null; ident?: string; precise?: boolean; version?: string } = {}): LogSet {
  const off = (o.offsetMin ?? 0) * 60000;
  const t = (ms: number) => ms + off;
  const kopt = { host, ident: o.ident ?? 'kubelet', pid: 2817 };
  const ls: string[] = [];
  ls.push(kl(t(BASE), 'I', 'server.go:487', `"Kubelet version" kubeletVersion="${o.version ?? 'v1.28.3'}"`, kopt));
  for (let m = 1; m < 40; m += 2) ls.push(syncLoopEvent(t(BASE + m * 60_000 + 123), 'structured', kopt));
  if (o.stallAt !== null) {
    const last = BASE + (o.stallAt ?? 10 * 60_000);
    for (let k = 1; k <= 3; k++) {
      ls.push(kl(t(last + k * 121_000), 'E', 'generic.go:238', '"GenericPLEG: Unable to retrieve pods" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded"', kopt));
      ls.push(kl(t(last + k * 121_000 + 5), 'E', 'remote_runtime.go:294', '"ListPodSandbox with filter from runtime service failed" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded" filter="nil"', kopt));
    }
    ls.push(...skipLines(t(last), t(last + 6 * 60_000), 'structured', kopt));
    ls.push(kl(t(last + 181_000), 'I', 'kubelet_node_status.go:700', `"Recording event message for node" node="${host}" event="NodeNotReady"`, kopt));
    ls.push(kl(t(last + 181_500), 'I', 'setters.go:552', `"Node became not ready" node="${host}" condition={"type":"Ready","status":"False","reason":"KubeletNotReady","message":"PLEG is not healthy: pleg was last seen active 3m1.5s ago; threshold is 3m0s"}`, kopt));
    // Recovery: the SyncLoop events come back after the stall; drop the ones inside it.
    const inside = (l: string) => {
      const m = /^\w{3} \d{2} (\d{2}):(\d{2}):(\d{2})/.exec(l);
      if (!m) return false;
      const sec = Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
      const lastLocal = new Date(t(last));
      const s0 = lastLocal.getUTCHours() * 3600 + lastLocal.getUTCMinutes() * 60 + lastLocal.getUTCSeconds();
      return l.includes('SyncLoop (PLEG)') && sec > s0 && sec < s0 + 6 * 60 + 5;
    };
    for (let i = ls.length - 1; i >= 0; i--) if (inside(ls[i] as string)) ls.splice(i, 1);
    ls.push(syncLoopEvent(t(last + 6 * 60_000 + 8_000), 'structured', kopt));
  }
  ls.push(kl(t(BASE + 45 * 60_000), 'I', 'kubelet.go:2400', '"SyncLoop (housekeeping)"', kopt));
  let kubelet = sorted(ls);
  if (o.precise) kubelet = kubelet.map((l) => l.replace(/^(\w{3} \d{2} \d{2}:\d{2}:\d{2}) /, (_, a: string) => `${a}.${String(Math.abs(hash(l)) % 1_000_000).padStart(6, '0')} `));
  const runtime = sorted([
    jl(t(BASE + 2 * 60_000), 'containerd[911]', 'time="2024-01-11T09:02:00.000000000Z" level=info msg="starting containerd" revision=abc version=1.7.13', host),
    jl(t(BASE + 12 * 60_000), 'containerd[911]', 'time="2024-01-11T09:12:00.000000000Z" level=error msg="failed to handle container TaskExit event" error="failed to stop container: context deadline exceeded"', host),
  ]).join('\n') + '\n';
  const d = new Date(t(BASE + 11 * 60_000));
  const dmesgT = `[Thu Jan 11 ${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}:00 2024] eth0: Link is Up - 10Gbps/Full\n`;
  return { kubelet: kubelet.join('\n') + '\n', runtime, dmesgT };
}

function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

void shift;

export function nodeYaml(name: string, o: { ready: boolean; role: 'master' | 'worker'; plegAgeS?: number; heartbeat?: string; transition?: string; version?: string }): string {
  const cond = o.ready
    ? `  - lastHeartbeatTime: "2024-01-11T09:44:00Z"\n    lastTransitionTime: "2024-01-10T08:00:00Z"\n    message: kubelet is posting ready status\n    reason: KubeletReady\n    status: "True"\n    type: Ready`
    : `  - lastHeartbeatTime: "${o.heartbeat}"\n    lastTransitionTime: "${o.transition}"\n    message: 'PLEG is not healthy: pleg was last seen active ${Math.floor((o.plegAgeS ?? 185) / 60)}m${((o.plegAgeS ?? 185) % 60).toFixed(1)}s ago; threshold is 3m0s'\n    reason: KubeletNotReady\n    status: "False"\n    type: Ready`;
  return `apiVersion: v1
kind: Node
metadata:
  labels:
    kubernetes.io/hostname: ${name}
    node-role.kubernetes.io/${o.role}: ""
  name: ${name}
spec: {}
status:
  capacity:
    cpu: "8"
    memory: 32761868Ki
    pods: "250"
  conditions:
  - lastHeartbeatTime: "2024-01-11T09:44:00Z"
    lastTransitionTime: "2024-01-10T08:00:00Z"
    message: kubelet has sufficient memory available
    reason: KubeletHasSufficientMemory
    status: "False"
    type: MemoryPressure
${cond}
  nodeInfo:
    containerRuntimeVersion: cri-o://1.27.1-3.rhaos4.14.git
    kernelVersion: 5.14.0-284.30.1.el9_2.x86_64
    kubeletVersion: ${o.version ?? 'v1.27.6+f67aeb3'}
    osImage: Red Hat Enterprise Linux CoreOS 414.92.202309201615-0 (Plow)
`;
}

export const CRICTL_PODS = `POD ID              CREATED             STATE               NAME                                  NAMESPACE           ATTEMPT             RUNTIME
a1b2c3d4e5f6a       2 hours ago         Ready               kube-proxy-x7k2p                      kube-system         0                   (default)
b1b2c3d4e5f6b       2 hours ago         Ready               web-0                                 default             0                   (default)
c1b2c3d4e5f6c       3 hours ago         NotReady            web-old                               default             0                   (default)
`;

export const CRICTL_PS_A = `CONTAINER           IMAGE               CREATED             STATE               NAME                ATTEMPT             POD ID              POD
1111111111111       sha256:aaaa         2 hours ago         Running             kube-proxy          0                   a1b2c3d4e5f6a       kube-proxy-x7k2p
2222222222222       sha256:bbbb         2 hours ago         Running             web                 0                   b1b2c3d4e5f6b       web-0
3333333333333       sha256:bbbb         3 hours ago         Exited              web                 4                   c1b2c3d4e5f6c       web-old
`;
