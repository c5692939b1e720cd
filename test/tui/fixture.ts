// A small multi-node input for the TUI tests: three kubelet journals (host field differs), a containerd journal, a
// kernel log. worker-3 and worker-5 stall (runtime timeouts), worker-1 stays healthy. worker-3's journal is long
// enough to span several 1024-line blocks, and holds one hostile line (escape sequences, \r, a bidi override).
// `hosts` renames the three nodes (long, look-alike cloud names); `shiftMs` moves every time (across midnight).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { at, jl, kl, lines, skipLines, syncLoopEvent } from '../helpers/scenario.js';

export const DE = 'rpc error: code = DeadlineExceeded desc = context deadline exceeded';
/** The hostile line's payload: clear screen, OSC 52 clipboard write, carriage return, right-to-left override. */
export const HOSTILE = '"Probe failed" probeType="Liveness" pod="default/evil-0" output="\x1b[2J\x1b]52;c;ZXZpbA==\x07 pwned\roverwritten \u202Etxt.exe"';
export const HOSTILE_AT = at('09:40:00.250');

function node(host: string, pid: number, lastRelist: number | null, until: number, shift: number): string[] {
  const o = { host, pid };
  const ls: string[] = [
    kl(at('09:30:00') + shift, 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.28.3"', o),
    kl(at('09:30:01') + shift, 'I', 'kuberuntime_manager.go:257', '"Container runtime initialized" containerRuntime="containerd" version="1.7.13" apiVersion="v1"', o),
  ];
  // Background chatter every 2 s: probes and PLEG events (what a real journal is mostly made of).
  for (let t = at('09:30:02') + shift; t < at('10:30:00') + shift; t += 2000) {
    const inStall = lastRelist !== null && t > lastRelist && t < until;
    if (inStall) ls.push(kl(t, 'I', 'prober.go:107', `"Probe failed" probeType="Readiness" pod="default/web-${(t / 2000) % 7}" podUID="0892e7d7" containerName="web"`, o));
    else if ((t / 2000) % 3 === 0) ls.push(syncLoopEvent(t, 'structured', o));
    else ls.push(kl(t, 'I', 'kubelet_getters.go:187', `"Pod status updated" pod="default/web-${(t / 2000) % 7}" status="Running"`, o));
  }
  if (lastRelist !== null) {
    for (let t = lastRelist + 120_000; t < until; t += 120_000) {
      ls.push(kl(t, 'E', 'remote_runtime.go:294', `"ListPodSandbox with filter from runtime service failed" err="${DE}" filter="nil"`, o));
      ls.push(kl(t + 1, 'E', 'generic.go:238', `"GenericPLEG: Unable to retrieve pods" err="${DE}"`, o));
    }
    ls.push(...skipLines(lastRelist, until, 'structured', o));
    ls.push(kl(lastRelist + 181_000, 'I', 'kubelet_node_status.go:669', `"Recording event message for node" node="${host}" event="NodeNotReady"`, o));
    ls.push(syncLoopEvent(until + 3000, 'structured', o));
    ls.push(kl(until + 9000, 'I', 'kubelet_node_status.go:669', `"Recording event message for node" node="${host}" event="NodeReady"`, o));
  }
  return ls;
}

export interface Fixture {
  dir: string;
  cleanup(): void;
}

export interface FixtureOptions {
  /** Names of the three nodes (default worker-3, worker-5, worker-1). */
  hosts?: [string, string, string];
  /** Added to every time (default 0: 09:30 to 10:30 on 2024-03-11). */
  shiftMs?: number;
}

export function writeFixture(opts: FixtureOptions = {}): Fixture {
  const dir = mkdtempSync(join(tmpdir(), 'plegscope-tui-'));
  const [a, b, c] = opts.hosts ?? ['worker-3', 'worker-5', 'worker-1'];
  const sh = opts.shiftMs ?? 0;
  const T = (hms: string) => at(hms) + sh;
  const iso = (t: number) => new Date(t).toISOString().replace(/\.\d{3}Z$/, '.000000000Z');
  const w3 = node(a, 2817, T('10:00:00.250'), T('10:14:00'), sh);
  w3.push(kl(HOSTILE_AT + sh, 'W', 'prober.go:107', HOSTILE, { host: a, pid: 2817 }));
  const files: Record<string, string> = {
    [`${a}/kubelet.log`]: lines(w3),
    [`${a}/containerd.log`]: lines([
      jl(T('09:30:00'), 'containerd[1021]', `time="${iso(T('09:30:00.100'))}" level=info msg="starting containerd" revision=7c3aca7 version=v1.7.13`, a),
      ...Array.from({ length: 40 }, (_, i) => jl(T('10:00:30') + i * 20_000, 'containerd[1021]', `time="${iso(T('10:00:30') + i * 20_000)}" level=error msg="ListPodSandbox failed" error="failed to list sandboxes: context deadline exceeded"`, a)),
      jl(T('10:14:30'), 'containerd[1021]', `time="${iso(T('10:14:30'))}" level=info msg="runtime recovered"`, a),
    ]),
    [`${a}/dmesg.log`]: lines([
      jl(T('10:05:00'), 'kernel', 'INFO: task containerd:1021 blocked for more than 120 seconds.', a),
      jl(T('10:05:00'), 'kernel', '      Not tainted 5.15.0-1053-aws #58~20.04.1-Ubuntu', a),
    ]),
    [`${b}/kubelet.log`]: lines(node(b, 3311, T('10:05:00.500'), T('10:12:00'), sh)),
    [`${c}/kubelet.log`]: lines(node(c, 1999, null, 0, sh)),
  };
  for (const [name, content] of Object.entries(files)) {
    const p = join(dir, name);
    mkdirSync(join(p, '..'), { recursive: true });
    writeFileSync(p, content);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
