// A small multi-node input for the TUI tests: three kubelet journals (host field differs), a containerd journal, a
// kernel log. worker-3 and worker-5 stall (runtime timeouts), worker-1 stays healthy. worker-3's journal is long
// enough to span several 1024-line blocks, and holds one hostile line (escape sequences, \r, a bidi override).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { at, jl, kl, lines, skipLines, syncLoopEvent } from '../helpers/scenario.js';

export const DE = 'rpc error: code = DeadlineExceeded desc = context deadline exceeded';
/** The hostile line's payload: clear screen, OSC 52 clipboard write, carriage return, right-to-left override. */
export const HOSTILE = '"Probe failed" probeType="Liveness" pod="default/evil-0" output="\x1b[2J\x1b]52;c;ZXZpbA==\x07 pwned\roverwritten \u202Etxt.exe"';
export const HOSTILE_AT = at('09:40:00.250');

function node(host: string, pid: number, lastRelist: number | null, until: number): string[] {
  const o = { host, pid };
  const ls: string[] = [
    kl(at('09:30:00'), 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.28.3"', o),
    kl(at('09:30:01'), 'I', 'kuberuntime_manager.go:257', '"Container runtime initialized" containerRuntime="containerd" version="1.7.13" apiVersion="v1"', o),
  ];
  // Background chatter every 2 s: probes and PLEG events (what a real journal is mostly made of).
  for (let t = at('09:30:02'); t < at('10:30:00'); t += 2000) {
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

export function writeFixture(): Fixture {
  const dir = mkdtempSync(join(tmpdir(), 'plegscope-tui-'));
  const w3 = node('worker-3', 2817, at('10:00:00.250'), at('10:14:00'));
  w3.push(kl(HOSTILE_AT, 'W', 'prober.go:107', HOSTILE, { host: 'worker-3', pid: 2817 }));
  const files: Record<string, string> = {
    'worker-3/kubelet.log': lines(w3),
    'worker-3/containerd.log': lines([
      jl(at('09:30:00'), 'containerd[1021]', 'time="2024-03-11T09:30:00.100000000Z" level=info msg="starting containerd" revision=7c3aca7 version=v1.7.13'),
      ...Array.from({ length: 40 }, (_, i) => jl(at('10:00:30') + i * 20_000, 'containerd[1021]', `time="2024-03-11T${new Date(at('10:00:30') + i * 20_000).toISOString().slice(11, 19)}.000000000Z" level=error msg="ListPodSandbox failed" error="failed to list sandboxes: context deadline exceeded"`)),
      jl(at('10:14:30'), 'containerd[1021]', 'time="2024-03-11T10:14:30.000000000Z" level=info msg="runtime recovered"'),
    ]),
    'worker-3/dmesg.log': lines([
      jl(at('10:05:00'), 'kernel', 'INFO: task containerd:1021 blocked for more than 120 seconds.'),
      jl(at('10:05:00'), 'kernel', '      Not tainted 5.15.0-1053-aws #58~20.04.1-Ubuntu'),
    ]),
    'worker-5/kubelet.log': lines(node('worker-5', 3311, at('10:05:00.500'), at('10:12:00'))),
    'worker-1/kubelet.log': lines(node('worker-1', 1999, null, 0)),
  };
  for (const [name, content] of Object.entries(files)) {
    const p = join(dir, name);
    mkdirSync(join(p, '..'), { recursive: true });
    writeFileSync(p, content);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
