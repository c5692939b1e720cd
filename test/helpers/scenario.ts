import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { analyze } from '../../src/analyze.js';
import type { Analysis, NodeReport } from '../../src/contract/analysis.js';

const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A kubelet journal line in `journalctl` short format with a klog header, at `t` (epoch ms, UTC). */
export function kl(t: number, level: 'I' | 'W' | 'E', caller: string, payload: string, o: { host?: string; pid?: number; ident?: string } = {}): string {
  const d = new Date(t);
  const p2 = (n: number) => String(n).padStart(2, '0');
  const hms = `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`;
  const us = String(d.getUTCMilliseconds() * 1000).padStart(6, '0');
  const pid = o.pid ?? 2817;
  return `${MON[d.getUTCMonth()]} ${p2(d.getUTCDate())} ${hms} ${o.host ?? 'worker-3'} ${o.ident ?? 'kubelet'}[${pid}]: ${level}${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())} ${hms}.${us} ${String(pid).padStart(7, ' ')} ${caller}] ${payload}`;
}

/** A journal line from another identifier (runtime daemons, kernel, systemd). */
export function jl(t: number, ident: string, payload: string, host = 'worker-3'): string {
  const d = new Date(t);
  const p2 = (n: number) => String(n).padStart(2, '0');
  return `${MON[d.getUTCMonth()]} ${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} ${host} ${ident}: ${payload}`;
}

export const at = (hms: string, day = '2024-03-11') => Date.parse(`${day}T${hms}Z`);

/** Go's %v of a time.Duration for the ages the kubelet prints. */
export function goDur(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds - h * 3600 - m * 60;
  const ss = `${Number(s.toFixed(9))}s`;
  return h > 0 ? `${h}h${m}m${ss}` : m > 0 ? `${m}m${ss}` : ss;
}

export type Style = 'structured' | 'printf' | 'glog';

/** The sync loop's "skipping" lines for a stall: from L+3m to `until`, every 5 s (after the back-off steps). */
export function skipLines(lastRelist: number, until: number, style: Style = 'structured', o: { host?: string; pid?: number; runtimeDown?: boolean } = {}): string[] {
  const out: string[] = [];
  let t = lastRelist + 180_500;
  const steps = [100, 200, 400, 800, 1600, 3200];
  let i = 0;
  while (t <= until) {
    const age = goDur((t - lastRelist) / 1000);
    const pleg = `PLEG is not healthy: pleg was last seen active ${age} ago; threshold is 3m0s`;
    if (style === 'structured') out.push(kl(t, 'E', 'kubelet.go:2373', `"Skipping pod synchronization" err="${o.runtimeDown ? `[container runtime is down, ${pleg}]` : pleg}"`, o));
    else if (style === 'printf') out.push(kl(t, 'E', 'kubelet.go:1846', `skipping pod synchronization - ${o.runtimeDown ? `[container runtime is down, ${pleg}]` : pleg}`, o));
    else out.push(kl(t, 'I', 'kubelet.go:1835', `skipping pod synchronization - [${o.runtimeDown ? 'container runtime is down ' : ''}${pleg}]`, o));
    t += i < steps.length ? steps[i++]! : 5000;
  }
  return out;
}

export function syncLoopEvent(t: number, style: Style = 'structured', o: { host?: string; pid?: number } = {}): string {
  return style === 'structured'
    ? kl(t, 'I', 'kubelet.go:2434', '"SyncLoop (PLEG): event for pod" pod="default/web-0" event={"ID":"0892e7d7-4185-4b43-ac7d-497027d06088","Type":"ContainerStarted","Data":"a13cf8c09114"}', o)
    : kl(t, 'I', 'kubelet.go:1907', 'SyncLoop (PLEG): "web-0_default(0892e7d7-4185-4b43-ac7d-497027d06088)", event: &pleg.PodLifecycleEvent{ID:"0892e7d7-4185-4b43-ac7d-497027d06088", Type:"ContainerStarted", Data:"a13cf8c09114"}', o);
}

export function sorted(lines: string[]): string[] {
  // Lines are built per concern; the journal is in time order. Sort on the parsed time of each line.
  const key = (l: string) => {
    const m = /^(\w{3}) (\d{2}) (\d{2}:\d{2}:\d{2})/.exec(l);
    return m ? `${String(MON.indexOf(m[1]!)).padStart(2, '0')}${m[2]}${m[3]}` : '';
  };
  return lines.map((l, i) => ({ l, i, k: key(l) })).sort((a, b) => a.k.localeCompare(b.k) || a.i - b.i).map((x) => x.l);
}

/** Writes files into a temp dir, analyzes it, removes it. */
export async function analyzeFiles(files: Record<string, string | Buffer>, opts: { year?: number; tz?: string } = {}): Promise<Analysis> {
  const dir = mkdtempSync(join(tmpdir(), 'plegscope-'));
  try {
    for (const [name, content] of Object.entries(files)) {
      const p = join(dir, name);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, content);
    }
    const run = await analyze({ paths: [dir], year: opts.year ?? 2024, tz: opts.tz ?? 'UTC' });
    return run.analysis;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function nodeOf(files: Record<string, string | Buffer>, opts: { year?: number } = {}): Promise<NodeReport> {
  const a = await analyzeFiles(files, opts);
  if (a.nodes.length !== 1) throw new Error(`expected one node, got ${a.nodes.map((n) => n.name).join(', ')}`);
  return a.nodes[0]!;
}

export const lines = (ls: string[]) => sorted(ls).join('\n') + '\n';

/** `oc adm node-logs` style: short-precise, UTC, 40 hosts interleaved; three stall for 10 minutes, one restarts. Cut
 *  into ranges of a few KB, stalls run across range boundaries. */
export function mergedNodeLogs(): string {
  const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const p2 = (n: number) => String(n).padStart(2, '0');
  const stalled = new Set([3, 17, 31]);
  const out: string[] = [];
  const L = Date.UTC(2024, 2, 11, 0, 5, 0);
  let announced = false;
  for (let k = 0, t = Date.UTC(2024, 2, 11, 0, 0, 0); t < Date.UTC(2024, 2, 11, 0, 40, 0); k++, t += 83) {
    const i = k % 40;
    const pid = i === 9 && t > L + 600_000 ? 7777 : 3000 + i;
    const d = new Date(t);
    const hms = `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.${String(d.getUTCMilliseconds() * 1000).padStart(6, '0')}`;
    const head = `${MON[d.getUTCMonth()]} ${p2(d.getUTCDate())} ${hms} worker-${p2(i)} kubenswrapper[${pid}]:`;
    const klog = (sev: string, src: string) => `${sev}${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())} ${hms} ${String(pid).padStart(7)} ${src}]`;
    if (pid === 7777 && !announced) {
      // A restarted kubelet's first lines say so.
      announced = true;
      out.push(`${head} ${klog('I', 'server.go:487')} "Kubelet version" kubeletVersion="v1.29.6"`);
    } else if (stalled.has(i) && t > L + 180_000 && t < L + 780_000 && k % 3 === 0) {
      const age = (t - L) / 1000;
      out.push(`${head} ${klog('E', 'kubelet.go:2392')} "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active ${Math.floor(age / 60)}m${(age % 60).toFixed(3)}s ago; threshold is 3m0s"`);
    } else if (stalled.has(i) && t > L + 120_000 && t < L + 780_000 && k % 11 === 0) {
      out.push(`${head} ${klog('E', 'remote_runtime.go:294')} "ListPodSandbox with filter from runtime service failed" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded" filter="&PodSandboxFilter{Id:,State:nil,LabelSelector:map[string]string{},}"`);
    } else if (k % 13 === 0) {
      out.push(`${head} ${klog('I', 'kubelet.go:2435')} "SyncLoop (PLEG): event for pod" pod="openshift-dns/dns-default-${i}" event={"ID":"0892e7d7","Type":"ContainerStarted","Data":"a13cf8c0"}`);
    } else {
      out.push(`${head} ${klog('I', 'prober.go:107')} "Probe succeeded" probeType="Readiness" pod="openshift-dns/dns-default-${i}" containerName="dns"`);
    }
  }
  return out.join('\n') + '\n';
}

/** Writes `files` (paths with folders) under `root/name` and returns that folder: inputs laid out as a user lays them. */
export function writeFolder(root: string, name: string, files: Record<string, string>): string {
  const d = join(root, name);
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(dirname(join(d, f)), { recursive: true });
    writeFileSync(join(d, f), text);
  }
  return d;
}
