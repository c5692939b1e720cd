// Ranges against one pass on generated logs of one to eleven hosts with what real ones hold now and then: stalls that
// cross range boundaries, hosts that fall silent, restarts, NotReady/Ready, CRLF endings, over-long lines, blank lines,
// journal headers in the middle, a New Year, no newline at the end. Seeded: a failure names its seed and can be replayed.
import { afterAll, describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { headAtSync, splitRanges } from '../../src/sources/files/ranges.js';
import { resolveZone } from '../../src/parse/time.js';
import { extractSignals, type ExtractOptions } from '../../src/signals/extract.js';
import { extractRanges, planRanges, runRangeHere, type RangePlan } from '../../src/sources/files/segments.js';
import { goDur } from '../helpers/scenario.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'plegscope-ranges-random-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** mulberry32: small, seedable. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n: number) => String(n).padStart(2, '0');

function mergedLog(seed: number): string {
  const r = rng(seed);
  const hosts = Array.from({ length: 1 + Math.floor(r() * 11) }, (_, i) => `node-${seed}-${i}`);
  const pid = hosts.map((_, i) => 1000 + i);
  const silentFrom = hosts.map(() => (r() < 0.2 ? r() : 2));
  // Per host: when its PLEG stalls (fraction of the log) and for how long.
  const stalls = hosts.map(() => (r() < 0.5 ? { from: r() * 0.8, len: 0.05 + r() * 0.4 } : null));
  const newYear = r() < 0.25;
  const start = newYear ? Date.UTC(2023, 11, 31, 23, 52, 0) : Date.UTC(2024, 2, 11, 9, 0, 0);
  const n = 1500 + Math.floor(r() * 2500);
  const out: string[] = [];
  let t = start;
  for (let k = 0; k < n; k++) {
    t += 50 + Math.floor(r() * 900);
    const f = k / n;
    const i = Math.floor(r() * hosts.length);
    if (f >= (silentFrom[i] as number)) continue;
    const d = new Date(t);
    const hms = `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`;
    const us = String(d.getUTCMilliseconds() * 1000).padStart(6, '0');
    if (r() < 0.003) {
      out.push(`-- Logs begin at Mon 2024-03-11 08:00:01 UTC, end at Mon 2024-03-11 23:00:00 UTC. --`);
      continue;
    }
    if (r() < 0.004) {
      out.push('');
      continue;
    }
    if (r() < 0.002) pid[i] = (pid[i] as number) + 7;
    const head = `${MON[d.getUTCMonth()]} ${p2(d.getUTCDate())} ${hms}.${us} ${hosts[i]} kubenswrapper[${pid[i]}]:`;
    const klog = (sev: string, src: string) => `${sev}${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())} ${hms}.${us} ${String(pid[i]).padStart(7)} ${src}]`;
    const st = stalls[i];
    const x = r();
    let line: string;
    if (st && f > st.from && f < st.from + st.len && x < 0.5) {
      const age = 180 + (f - st.from) * 3000;
      line = `${head} ${klog('E', 'kubelet.go:2392')} "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active ${goDur(Math.round(age * 1000) / 1000)} ago; threshold is 3m0s"`;
    } else if (x < 0.12) {
      line = `${head} ${klog('I', 'kubelet.go:2435')} "SyncLoop (PLEG): event for pod" pod="ns/p-${k % 9}" event={"ID":"0892e7d7","Type":"ContainerStarted","Data":"a13cf8c0"}`;
    } else if (x < 0.13) {
      line = `${head} ${klog('I', 'kubelet_node_status.go:669')} "Recording event message for node" node="${hosts[i]}" event="${r() < 0.5 ? 'NodeNotReady' : 'NodeReady'}"`;
    } else if (x < 0.135) {
      line = `${head} ${klog('I', 'server.go:487')} "Kubelet version" kubeletVersion="v1.29.6"`;
    } else if (x < 0.15) {
      line = `${head} ${klog('E', 'remote_runtime.go:294')} "ListPodSandbox with filter from runtime service failed" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded"`;
    } else if (x < 0.152) {
      line = `${head} ${klog('I', 'prober.go:107')} "Probe failed" output="${'x'.repeat(300 * 1024)}"`;
    } else {
      line = `${head} ${klog('I', 'prober.go:107')} "Probe succeeded" probeType="Readiness" pod="ns/p-${k % 13}"`;
    }
    out.push(r() < 0.05 ? `${line}\r` : line);
  }
  return out.join('\n') + (r() < 0.8 ? '\n' : '');
}

const opts = (): ExtractOptions => ({ artifact: 5, zone: resolveZone('UTC'), notAfterMs: Date.UTC(2024, 5, 1) });

/** What the seeds exercised, summed: the last test checks they reached what they are meant to. */
const seen = { fixUps: 0, proofs: 0, restarts: 0, longLines: 0, multiHost: 0, newYear: 0, stalled: 0 };

describe('ranges against one pass, generated merged logs', () => {
  // PLEGSCOPE_TEST_SEEDS=500 for a longer hunt.
  for (let seed = 1; seed <= Number(process.env["PLEGSCOPE_TEST_SEEDS"] ?? 12); seed++) {
    it(`seed ${seed}`, async () => {
      const text = mergedLog(seed);
      const o = opts();
      const one = await extractSignals(Readable.from([Buffer.from(text, 'latin1')]), o);
      const file = path.join(tmp, `m${seed}.log`);
      fs.writeFileSync(file, text, 'latin1');
      const size = fs.statSync(file).size;
      const head = fs.readFileSync(file).subarray(0, 64 * 1024);
      seen.proofs += one.events.filter((e) => e.type === 'relist-proof').length;
      seen.restarts += one.events.filter((e) => e.type === 'kubelet-line').length;
      seen.stalled += one.events.filter((e) => e.type === 'relist-unhealthy').length > 0 ? 1 : 0;
      seen.longLines += one.scan.longLineCount;
      seen.newYear += one.hosts.some((h) => new Date(h.first).getUTCFullYear() !== new Date(h.last).getUTCFullYear()) ? 1 : 0;
      for (const n of [2, 5, 13]) {
        for (const warmup of [0, 4096, undefined]) {
          const plan = planRanges(head, size, o) ?? ({ minFirst: size, multiHost: false } as RangePlan);
          if (warmup !== undefined) plan.warmupBytes = warmup;
          if (plan.multiHost) seen.multiHost++;
          const ranges = splitRanges(file, size, n, plan.minFirst);
          const heads = ranges.map((x) => headAtSync(x.realPath, x.start, 16 * 1024));
          const seg = await extractRanges(ranges, heads, o, async (x, options) => {
            if (options.proofsFor) seen.fixUps++;
            return runRangeHere(o, x, options);
          }, plan);
          const what = `seed ${seed}, ${ranges.length} ranges, warm-up ${warmup ?? 'default'}`;
          expect(seg.events, what).toEqual(one.events);
          expect(seg.hosts, what).toEqual(one.hosts);
          expect(seg.warnings, what).toEqual(one.warnings);
          expect(seg.scan.lines, what).toBe(one.scan.lines);
          expect(seg.scan.lastLine, what).toEqual(one.scan.lastLine);
          expect(seg.nodeNames, what).toEqual(one.nodeNames);
          expect(seg.bootAnchors, what).toEqual(one.bootAnchors);
        }
      }
    });
  }
  it('the seeds reached stalls across boundaries (fix-ups), restarts, over-long lines and a New Year', () => {
    expect(seen.fixUps).toBeGreaterThan(0);
    expect(seen.proofs).toBeGreaterThan(0);
    expect(seen.restarts).toBeGreaterThan(0);
    expect(seen.longLines).toBeGreaterThan(0);
    expect(seen.multiHost).toBeGreaterThan(0);
    expect(seen.newYear).toBeGreaterThan(0);
    expect(seen.stalled).toBeGreaterThan(3);
  });
});
