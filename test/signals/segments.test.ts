// A file scanned in byte ranges (as the worker threads do) gives what one pass gives, wherever the cuts fall.
import { afterAll, describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { headAtSync, readRangeSync, splitRanges } from '../../src/sources/files/ranges.js';
import { resolveZone } from '../../src/parse/time.js';
import { extractSignals, type ExtractOptions } from '../../src/signals/extract.js';
import { extractRanges, merge, planRanges, runRangeHere, type RangePlan } from '../../src/sources/files/segments.js';
import type { SegmentOptions } from '../../src/signals/extract.js';
import { at, kl, jl, lines, mergedNodeLogs, skipLines, syncLoopEvent } from '../helpers/scenario.js';

const opts = (year?: number): ExtractOptions => ({ artifact: 3, zone: resolveZone('UTC'), year, notAfterMs: Date.UTC(2025, 0, 10) });

function journal(): string {
  const L = at('10:00:00');
  const ls: string[] = ['-- Logs begin at Mon 2024-03-11 08:00:01 UTC, end at Mon 2024-03-11 23:00:00 UTC. --', kl(at('09:00:00'), 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.28.3"')];
  for (let t = at('09:00:01'); t < at('12:00:00'); t += 997) ls.push(kl(t, 'I', 'prober.go:107', `"Probe succeeded" probeType="Readiness" pod="ns/app-${t % 17}"`));
  ls.push(...skipLines(L, L + 600_000), syncLoopEvent(L + 602_000));
  ls.push(kl(at('10:30:00'), 'I', 'kubelet_node_status.go:669', '"Recording event message for node" node="worker-3" event="NodeNotReady"'));
  ls.push(jl(at('10:31:00'), 'kernel', '[ 4711.000000] INFO: task containerd:77 blocked for more than 120 seconds.'));
  ls.push(kl(at('11:00:00'), 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.28.3"', { pid: 4242 }));
  ls.push(kl(at('11:00:01'), 'E', 'generic.go:238', '"GenericPLEG: Unable to retrieve pods" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded"', { pid: 4242 }));
  return lines(ls);
}

function yearEnd(): string {
  // Built in time order by hand: the `lines()` helper sorts by month and day, which New Year defeats.
  const ls: Array<[number, string]> = [];
  for (let t = Date.UTC(2023, 11, 31, 22, 0, 0); t < Date.UTC(2024, 0, 1, 2, 0, 0); t += 1500) ls.push([t, kl(t, 'I', 'prober.go:107', '"Probe succeeded"')]);
  const L = Date.UTC(2023, 11, 31, 23, 58, 0);
  const skips = skipLines(L, L + 400_000);
  skips.forEach((l, i) => ls.push([L + 180_500 + i, l]));
  ls.push([L + 401_000, syncLoopEvent(L + 401_000)]);
  return ls.sort((a, b) => a[0] - b[0]).map((x) => x[1]).join('\n') + '\n';
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'plegscope-ranges-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
let files = 0;

function fileOf(text: string): string {
  const p = path.join(tmp, `f${files++}.log`);
  fs.writeFileSync(p, text);
  return p;
}

/** One pass over the text, and the same text as a file cut into `n` ranges, each run as a worker runs it (planned as
 *  analyze plans it; `warmupBytes` overrides the warm-up). `fixUps`: the fix-up passes the merge ran. */
async function both(text: string, o: ExtractOptions, n: number, warmupBytes?: number) {
  const one = await extractSignals(Readable.from([Buffer.from(text)]), o);
  const file = fileOf(text);
  const size = Buffer.byteLength(text);
  const plan = planRanges(fs.readFileSync(file).subarray(0, 64 * 1024), size, o) as RangePlan;
  if (warmupBytes !== undefined) plan.warmupBytes = warmupBytes;
  const ranges = splitRanges(file, size, n, plan.minFirst);
  const heads = ranges.map((r) => headAtSync(r.realPath, r.start, 16 * 1024));
  const fixUps: SegmentOptions[] = [];
  const seg = await extractRanges(ranges, heads, o, async (r, options) => {
    if (options.proofsFor) fixUps.push(options);
    return runRangeHere(o, r, options);
  }, plan);
  return { one, seg, fixUps, ranges };
}

describe('byte ranges of a file', () => {
  it('own every line once, in order, wherever the cuts fall (inside a line, on a newline, beyond a long line)', () => {
    const text = ['short', 'x'.repeat(3000), '', 'a line', 'y'.repeat(70_000), 'end without newline'].join('\n');
    const file = fileOf(text);
    const size = Buffer.byteLength(text);
    for (const n of [1, 2, 3, 7, 40, 500]) {
      const parts: Buffer[] = [];
      const starts: number[] = [];
      for (const r of splitRanges(file, size, n)) {
        let first = true;
        readRangeSync(r, (b, position) => {
          if (first) starts.push(position);
          first = false;
          parts.push(Buffer.from(b));
        }, 4096);
      }
      expect(Buffer.concat(parts).toString()).toBe(text);
      // Every range begins with a line.
      for (const p of starts) expect(p === 0 || text[p - 1] === '\n').toBe(true);
    }
  });

  it("a range's head starts at its first whole line", () => {
    const file = fileOf('first line\nsecond line\nthird\n');
    expect(headAtSync(file, 0, 64).toString()).toBe('first line\nsecond line\nthird\n');
    expect(headAtSync(file, 3, 64).toString()).toBe('second line\nthird\n');
    expect(headAtSync(file, 11, 64).toString()).toBe('second line\nthird\n');
    expect(headAtSync(file, 12, 64).toString()).toBe('third\n');
  });
});

describe('extraction in ranges', () => {
  for (const n of [2, 5, 23]) {
    it(`equals one pass: events, windows, restarts, line numbers (${n} ranges)`, async () => {
      const { one, seg } = await both(journal(), opts(), n);
      expect(seg.scan.lines).toBe(one.scan.lines);
      expect(seg.scan.lastLine).toEqual(one.scan.lastLine);
      expect(seg.events).toEqual(one.events);
      expect(seg.hosts).toEqual(one.hosts);
      expect(seg.nodeNames).toEqual(one.nodeNames);
      expect(seg.warnings).toEqual(one.warnings);
      expect(seg.events.filter((e) => e.type === 'kubelet-line')).toHaveLength(1);
    });
  }
  it('carries the year across a New Year boundary between segments', async () => {
    const { one, seg } = await both(yearEnd(), opts(2023), Math.ceil(Buffer.byteLength(yearEnd()) / (32 * 1024)));
    expect(seg.events).toEqual(one.events);
    expect(seg.hosts).toEqual(one.hosts);
    expect(new Date(seg.hosts[0]!.last).getUTCFullYear()).toBe(2024);
  });

  // A merged many-host log (must-gather): each host's relist-proof state crosses range boundaries on its own.
  for (const [n, warmup] of [[3, undefined], [7, 0], [40, 0], [40, 2048]] as const) {
    it(`a merged 40-host log in ${n} ranges (warm-up ${warmup ?? 'default'}): every event, window and restart of one pass`, async () => {
      const text = mergedNodeLogs();
      const { one, seg, fixUps, ranges } = await both(text, opts(2024), n, warmup);
      expect(ranges.length).toBe(n);
      expect(seg.events).toEqual(one.events);
      expect(seg.hosts).toEqual(one.hosts);
      expect(seg.warnings).toEqual(one.warnings);
      expect(seg.scan.lines).toBe(one.scan.lines);
      expect(one.events.filter((e) => e.type === 'relist-proof').length).toBeGreaterThanOrEqual(3);
      expect(one.events.filter((e) => e.type === 'kubelet-line')).toHaveLength(1);
      // Without a warm-up, every stall that runs across a boundary ends through a fix-up pass.
      if (warmup === 0) expect(fixUps.length).toBeGreaterThan(0);
      if (warmup === undefined) expect(fixUps).toHaveLength(0);
    });
  }
  it('a host that stalls and then falls silent: its proof is looked for in every later range at once, found in none', async () => {
    let dead = false;
    const text = mergedNodeLogs().split('\n').filter((l) => {
      if (!l.includes(' worker-03 ')) return true;
      if (dead) return false;
      if (l.includes('PLEG is not healthy')) dead = true;
      return true;
    }).join('\n');
    for (const warmup of [undefined, 0]) {
      const { one, seg, fixUps, ranges } = await both(text, opts(2024), 9, warmup);
      expect(seg.events).toEqual(one.events);
      expect(seg.hosts).toEqual(one.hosts);
      // Without a warm-up every range after the stall's first is searched (at once) for worker-03's proof; with one
      // (4 MB, more than these ranges) the warm-up has already searched each of them whole.
      const forDead = fixUps.filter((f) => f.proofsFor?.some((p) => p.host === 'worker-03')).length;
      if (warmup === 0) expect(forDead).toBeGreaterThanOrEqual(ranges.length - 3);
      else expect(forDead).toBe(0);
      expect(one.events.some((e) => e.type === 'relist-proof' && e.host === 'worker-03')).toBe(false);
    }
  });

  it('a range that cannot be read ends the log there: the ranges before it are kept, with a warning', async () => {
    const text = journal();
    const o = opts(2024);
    const file = fileOf(text);
    const size = Buffer.byteLength(text);
    const plan = planRanges(fs.readFileSync(file).subarray(0, 64 * 1024), size, o) as RangePlan;
    const ranges = splitRanges(file, size, 4, plan.minFirst);
    const heads = ranges.map((r) => headAtSync(r.realPath, r.start, 16 * 1024));
    const broken = (k: number) => extractRanges(ranges, heads, o, async (r, options) => {
      if (r === ranges[k]) throw new Error('EIO: i/o error, read');
      return runRangeHere(o, r, options);
    }, plan);
    // The first two ranges own the lines that start before the third does.
    const cut = (ranges[2] as { start: number }).start;
    const keptLines = text.slice(0, cut - 1).split('\n').length;
    const r = await broken(2);
    expect(r.scan.lines).toBe(keptLines);
    expect(r.warnings).toContainEqual({ line: keptLines, message: `read stopped after line ${keptLines}: EIO: i/o error, read` });
    const one = await extractSignals(Readable.from([Buffer.from(text)]), o);
    expect(r.events.length).toBeGreaterThan(0);
    expect(r.events).toEqual(one.events.filter((e) => e.ref.line <= keptLines));
    await expect(broken(0)).rejects.toThrow(/EIO/);
  });

  it('never cuts inside the head lines, which only the first range parses', () => {
    const text = mergedNodeLogs();
    const plan = planRanges(Buffer.from(text).subarray(0, 64 * 1024), Buffer.byteLength(text), opts(2024)) as RangePlan;
    expect(plan.multiHost).toBe(true);
    expect(text.slice(0, plan.minFirst).split('\n')).toHaveLength(65);
    expect(splitRanges('f', 10_000, 50, 4000).map((r) => r.start).filter((x) => x > 0 && x <= 4000)).toEqual([]);
  });
});

describe('event-dense ranges', () => {
  // A range of a NotReady-dense log holds hundreds of thousands of events; the merge once spread them into push(),
  // past V8's argument limit ("Maximum call stack size exceeded"), and the whole file was dropped.
  it('merges a range of 300 000 events', () => {
    const text = journal();
    const file = fileOf(text);
    const size = Buffer.byteLength(text);
    const one = runRangeHere(opts(2024), { realPath: file, start: 0, end: size }, { first: true });
    const proto = one.signals.events[0] as (typeof one.signals.events)[number];
    const events = Array.from({ length: 300_000 }, (_, i) => ({ ...proto, ref: { ...proto.ref, line: i + 1, offset: i } }));
    const merged = merge([{ signals: { ...one.signals, events }, tail: one.tail }], [undefined], opts(2024));
    expect(merged.events).toHaveLength(300_000);
    expect(merged.events[299_999]?.ref.line).toBe(300_000);
  });
});
