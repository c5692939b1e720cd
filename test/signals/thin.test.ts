// Dense runs of one kind of line fold into a few events per bucket (src/signals/thin.ts): counts stay exact, a run's
// last line stays the one kept, and ordinary files are not touched.
import { describe, expect, it } from 'vitest';
import { thinTime, Thinner, type EventDraft } from '../../src/signals/thin.js';
import { lineCount, type SignalEvent } from '../../src/signals/events.js';

const unhealthy = (i: number, ts: number, host = 'w1'): SignalEvent => ({
  type: 'relist-unhealthy', ageSeconds: 180 + i, thresholdSeconds: 180, neverSucceeded: false, source: 'sync-loop', runtimeDown: false, uptimeSeconds: null,
  ts, host, ref: { artifact: 0, line: i + 1, offset: i * 100, ts, mono: NaN, text: `line ${i}` },
});

describe('Thinner', () => {
  it('keeps every event of a file that gives fewer than 20 000', () => {
    const events: SignalEvent[] = [];
    const t = new Thinner(events);
    for (let i = 0; i < 19_000; i++) t.add(unhealthy(i, 1_000 + i)); // 1000 a second
    expect(events).toHaveLength(19_000);
    expect(t.folded).toBe(0);
  });

  it('past that, three lines a second per kind and host, the rest folded into the newest: counts exact', () => {
    const events: SignalEvent[] = [];
    const t = new Thinner(events);
    const N = 60_000;
    for (let i = 0; i < N; i++) t.add(unhealthy(i, i * 20)); // 50 a second
    t.settleAll();
    expect(lineCount(events)).toBe(N);
    expect(events.length).toBeLessThan(40_000);
    // The last line of the run is kept as itself (its time ends the stall), and stands for those before it.
    const last = events.reduce((a, b) => (b.ts > a.ts ? b : a));
    expect(last.ref.line).toBe(N);
    expect(last.n).toBeGreaterThan(1);
  });

  it('one range of a file cut into four starts folding at a quarter of the events: the file keeps what one pass keeps', () => {
    const events: SignalEvent[] = [];
    const t = new Thinner(events, null, 4);
    for (let i = 0; i < 5_000; i++) t.add(unhealthy(i, 1_000 + i));
    expect(t.folded).toBe(0);
    for (let i = 5_000; i < 15_000; i++) t.add(unhealthy(i, 1_000 + i));
    t.settleAll();
    expect(t.folded).toBeGreaterThan(9_000);
    expect(lineCount(events)).toBe(15_000);
  });

  it('other hosts and other kinds are runs of their own', () => {
    const events: SignalEvent[] = [];
    const t = new Thinner(events);
    for (let i = 0; i < 20_000; i++) t.add(unhealthy(i, i));
    for (let i = 0; i < 100; i++) {
      t.add(unhealthy(i, 500_000 + i, 'w1'));
      t.add(unhealthy(i, 500_000 + i, 'w2'));
    }
    t.settleAll();
    const at = events.filter((e) => e.ts >= 500_000);
    expect(lineCount(at.filter((e) => e.host === 'w1'))).toBe(100);
    expect(lineCount(at.filter((e) => e.host === 'w2'))).toBe(100);
    expect(at.filter((e) => e.host === 'w2').length).toBe(4);
  });

  it('a folded line is not made into an event: only the newest of a bucket is, when the bucket ends', () => {
    const events: SignalEvent[] = [];
    const t = new Thinner(events);
    let built = 0;
    const build = (d: EventDraft, host: string | null, i: number): SignalEvent => {
      built++;
      return { ...unhealthy(i, i * 20, host ?? 'w1'), ...d } as SignalEvent;
    };
    const N = 60_000;
    for (let i = 0; i < N; i++) {
      const e = unhealthy(i, i * 20);
      t.offer({ type: e.type, ageSeconds: e.ageSeconds, thresholdSeconds: 180, neverSucceeded: false, source: 'sync-loop', runtimeDown: false, uptimeSeconds: null }, 'w1', e.ts, i, build);
    }
    t.settleAll();
    expect(lineCount(events)).toBe(N);
    expect(built).toBeLessThan(40_000);
    // Each event once, and each tail once more: its newest line, made when its bucket ended.
    expect(built).toBe(events.length + events.filter((e) => (e.n ?? 1) > 1).length);
    const last = events.reduce((a, b) => (b.ts > a.ts ? b : a));
    expect(last.ref.line).toBe(N);
    expect(last.type === 'relist-unhealthy' && last.ageSeconds).toBe(180 + N - 1);
  });

  it('kernel lines naming a new server, task or victim each fold like any kind; the runtime\'s and a kill\'s two lines are runs of their own', () => {
    const events: SignalEvent[] = [];
    const t = new Thinner(events);
    const N = 60_000;
    const at = (i: number, ts: number) => ({ ts, host: 'w1', ref: { artifact: 0, line: i + 1, offset: 0, ts, mono: NaN, text: `line ${i}` } });
    for (let i = 0; i < N; i++) {
      const ts = i * 5; // 200 lines a second
      const j = i >> 2;
      const runtime = j % 100 === 0;
      const e: SignalEvent = i % 4 === 0 ? { type: 'nfs-not-responding', server: `nfs-${i}.example.com`, ...at(i, ts) }
        : i % 4 === 1 ? { type: 'hung-task', task: runtime ? 'containerd' : `foo-${i}`, seconds: 120, ...at(i, ts) }
        : { type: 'oom-kill', process: runtime ? 'dockerd' : `foo-${i}`, pid: i, killed: i % 4 === 3, ...at(i, ts) };
      t.add(e);
    }
    t.settleAll();
    expect(events.length).toBeLessThan(40_000);
    const of = (test: (e: SignalEvent) => boolean): number => lineCount(events.filter(test));
    expect(of((e) => e.type === 'nfs-not-responding')).toBe(N / 4);
    expect(of((e) => e.type === 'hung-task')).toBe(N / 4);
    expect(of((e) => e.type === 'hung-task' && e.task === 'containerd')).toBe(N / 400);
    expect(of((e) => e.type === 'oom-kill' && e.killed)).toBe(N / 4);
    expect(of((e) => e.type === 'oom-kill' && !e.killed && e.process === 'dockerd')).toBe(N / 400);
  });

  it('a raw dmesg line folds by its seconds since boot; a line with no stamp at all never does', () => {
    expect(thinTime({ ts: 1_000, mono: 5 })).toBe(1_000);
    expect(thinTime({ ts: NaN, mono: 4711.5 })).toBe(4_711_500);
    expect(thinTime({ ts: NaN, mono: NaN })).toBeNaN();
  });
});
