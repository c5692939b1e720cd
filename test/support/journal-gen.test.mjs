// Self-check of the journal generator: its ground truth must describe its own output exactly, or every test built
// on it would assert against a wrong picture.
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join, dirname } from 'node:path';
import {
  generateKubeletJournal, goDuration, goFloat, generateMetricsSnapshot, kubeletCountersAt, histogramDelta, histogramQuantile,
  emptyHistogram, observe, CRI_BUCKETS,
} from './journal-gen.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const AT = Date.UTC(2024, 2, 11, 9, 40, 0, 500);

/** Go duration string -> nanoseconds (only the forms goDuration produces for >= 1 s). */
function parseGoDuration(s) {
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(\d+)(?:\.(\d+))?s$/.exec(s);
  if (!m) throw new Error(`bad duration ${s}`);
  const frac = (m[4] ?? '').padEnd(9, '0');
  return (Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3])) * 1e9 + Number(frac || 0);
}

/** klog header time of a journal line, as epoch ms (UTC node, year 2024). */
function klogMs(line) {
  const m = /[IWE](\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{6})/.exec(line);
  return Date.UTC(2024, Number(m[1]) - 1, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])) + Number(m[6]) / 1000;
}

describe('goDuration / goFloat', () => {
  it('formats like Go', () => {
    expect(goDuration(3 * 60e9 + 416753742)).toBe('3m0.416753742s');
    expect(goDuration(16 * 3.6e12 + 14 * 60e9 + 34439643899)).toBe('16h14m34.439643899s');
    expect(goDuration(180e9)).toBe('3m0s');
    expect(goDuration(3600e9 + 5e9)).toBe('1h0m5s');
    expect(goDuration(1.102e9)).toBe('1.102s');
    expect(goFloat(1710151632.348)).toBe('1.710151632348e+09');
    expect(goFloat(298.0232238769531)).toBe('298.0232238769531');
    expect(goFloat(1e-5)).toBe('1e-05');
  });
});

describe('generateKubeletJournal ground truth', () => {
  const cases = [];
  for (const style of ['structured', 'printf', 'glog11']) {
    for (const cause of ['list_timeout', 'container_status_timeout', 'slow_relist', 'deadlock', 'cni']) cases.push([style, cause]);
  }
  it.each(cases)('%s / %s: every unhealthy line is counted and points at its stall', (style, cause) => {
    const gen = generateKubeletJournal({ style, durationMs: 3600e3, seed: `${style}-${cause}`, stalls: [{ at: AT, durationMs: 16 * 60e3, cause }] });
    const lines = [...gen];
    const t = gen.truth;
    expect(t.lines).toBe(lines.length);
    expect(t.bytes).toBe(lines.reduce((n, l) => n + l.length + 1, 0));
    expect(t.reordered).toBe(0);
    expect(t.stalls.length).toBeGreaterThan(0);
    expect(t.stalls[0].lastRelistAtMs).toBe(AT);
    const unhealthy = lines.filter((l) => /pleg was last seen active (?!2562047h)/.test(l));
    expect(unhealthy.length).toBe(t.stalls.reduce((n, s) => n + s.unhealthyLines, 0));
    for (const s of t.stalls) {
      expect(lines[s.firstUnhealthyLine - 1]).toMatch(/pleg was last seen active/);
      expect(lines[s.lastUnhealthyLine - 1]).toMatch(/pleg was last seen active/);
      expect(s.firstUnhealthyMs).toBeGreaterThanOrEqual(s.unhealthyFromMs);
    }
    for (const l of unhealthy) {
      const age = parseGoDuration(/last seen active (\S+) ago/.exec(l)[1]);
      const relist = klogMs(l) - age / 1e6;
      // skip lines are exact to the microsecond; the node condition was computed a few µs before it was logged
      const tol = /Node became not ready/.test(l) ? 1 : 0.002;
      const s = t.stalls.find((x) => Math.abs(x.lastRelistAtMs - relist) < tol);
      expect(s, l).toBeTruthy();
      if (!/Node became not ready/.test(l)) {
        expect(klogMs(l)).toBeGreaterThanOrEqual(s.firstUnhealthyMs);
        expect(klogMs(l)).toBeLessThanOrEqual(s.lastUnhealthyMs);
      }
    }
    // sync-loop back-off: 0.1 s, doubling, capped at 5 s
    const first = t.stalls[0];
    const skips = unhealthy.filter((l) => /kipping pod synchronization/.test(l)).map(klogMs).filter((x) => x <= first.lastUnhealthyMs);
    const gaps = skips.slice(1).map((x, i) => x - skips[i]);
    for (const g of gaps) expect(g).toBeLessThan(5000 + 2);
    if (cause === 'deadlock') expect(first.endedBy).toBe('restart');
  });

  it('is deterministic per seed and identical across envelopes', () => {
    const opts = { durationMs: 1800e3, stalls: [{ at: Date.UTC(2024, 2, 11, 9, 10), durationMs: 10 * 60e3, cause: 'list_timeout' }] };
    const a = [...generateKubeletJournal({ ...opts, seed: 3 })];
    const b = [...generateKubeletJournal({ ...opts, seed: 3 })];
    const c = [...generateKubeletJournal({ ...opts, seed: 4 })];
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    const json = [...generateKubeletJournal({ ...opts, seed: 3, envelope: 'json' })].map((l) => JSON.parse(l).MESSAGE);
    expect(json).toEqual(a.map((l) => l.replace(/^.*?\]: /, '')));
    const bare = [...generateKubeletJournal({ ...opts, seed: 3, envelope: 'bare' })];
    expect(bare).toEqual(json.filter((_, i) => !a[i].includes(' systemd[1]: ')));
  });

  it('stops at targetBytes and reports the truncated stall as end-of-log', () => {
    const gen = generateKubeletJournal({ targetBytes: 400_000, durationMs: 10 * 3600e3, stalls: [{ at: Date.UTC(2024, 2, 11, 9, 20), durationMs: 3 * 3600e3, cause: 'deadlock', endedBy: 'recovered' }] });
    const lines = [...gen];
    expect(gen.truth.bytes).toBeGreaterThanOrEqual(400_000);
    expect(gen.truth.bytes - lines[lines.length - 1].length - 1).toBeLessThan(400_000);
    expect(gen.truth.stalls[0].endedBy).toBe('end-of-log');
    expect(gen.truth.stalls[0].endedAtMs).toBeNull();
  });
});

describe('metrics', () => {
  it('histogram_quantile matches PromQL on the CRI buckets', () => {
    const h = emptyHistogram(CRI_BUCKETS);
    for (let i = 0; i < 5; i++) observe(h, 120.001);
    expect(histogramQuantile(0.5, h)).toBeCloseTo(208.6162567, 6);
    expect(histogramQuantile(0.99, h)).toBeCloseTo(296.2350846, 6);
  });

  it('two snapshots of a generated journal give the deltas of its failed calls', () => {
    const gen = generateKubeletJournal({ durationMs: 3600e3, recordActivity: true, stalls: [{ at: AT, durationMs: 15 * 60e3, cause: 'list_timeout' }] });
    for (const _ of gen); // eslint-disable-line no-unused-vars
    const t1 = AT + 4 * 60e3;
    const t2 = AT + 14 * 60e3;
    const [a, b] = [t1, t2].map((x) => kubeletCountersAt(gen.truth, x));
    const failed = gen.truth.incidents[0].calls.filter((c) => c.op === 'list_podsandbox' && !c.ok && c.endMs > t1 && c.endMs <= t2).length;
    const d = histogramDelta(a.operations.list_podsandbox.duration, b.operations.list_podsandbox.duration);
    expect(d.count).toBe(failed);
    expect(b.operations.list_podsandbox.errors - a.operations.list_podsandbox.errors).toBe(failed);
    expect(a.plegLastSeenSeconds).toBe(b.plegLastSeenSeconds);
    const text = generateMetricsSnapshot({ ...b, withTimestamps: true });
    expect(text).toContain('# HELP kubelet_pleg_relist_duration_seconds [ALPHA] Duration in seconds for relisting pods in PLEG.');
    expect(text).toContain(`kubelet_runtime_operations_duration_seconds_bucket{operation_type="list_podsandbox",le="298.0232238769531"} `);
    for (const line of text.split('\n').filter((l) => l && !l.startsWith('#'))) expect(line.endsWith(` ${t2}`)).toBe(true);
  });
});

describe('fixtures/sample-incident', () => {
  it('is what fixtures/make-sample.mjs generates', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'fixtures', 'make-sample.mjs'), '--check'], { encoding: 'utf8' });
    expect(r.stderr + r.stdout).toContain('fixtures match the generator');
    expect(r.status).toBe(0);
  });
});
