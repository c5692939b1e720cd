// A large dense log (most lines a needle wakes: a runtime outage's spam) gets one worker thread even on two cores; an
// ordinary one as many as the machine gives (none on two cores); PLEGSCOPE_WORKERS / `workers` decide when set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { denseAmong, poolSize } from '../../src/sources/files/reads.js';

const pleg = (i: number): string =>
  `Mar  1 00:${String(10 + (i % 40)).padStart(2, '0')}:00 n1 kubelet[2231]: E0301 00:10:00.002000    2231 kubelet.go:2040] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3m${i % 60}s ago; threshold is 3m0s"`;
const probe = (i: number): string =>
  `Mar  1 00:10:00 n1 kubelet[2231]: I0301 00:10:00.002000    2231 prober.go:107] "Probe succeeded" probeType="Readiness" pod="default/app-${i % 50}" containerName="app"`;

/** `n` lines, one in `every` a PLEG line, the rest probes. */
function log(n: number, every: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(i % every === 0 ? pleg(i) : probe(i));
  return `${out.join('\n')}\n`;
}

describe('a large log is sampled for density before the worker threads are chosen', () => {
  let dir = '';
  const file = (name: string, text: string): { realPath: string; size: number } => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return { realPath: p, size: Buffer.byteLength(text) };
  };
  let dense: { realPath: string; size: number };
  let ordinary: { realPath: string; size: number };
  let sparse: { realPath: string; size: number };
  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'plegscope-dense-')));
    dense = file('dense.log', log(40_000, 2));
    ordinary = file('ordinary.log', log(40_000, 200));
    // Dense only in its first tenth, before every sample (at a fifth, two, three and four fifths of it).
    sparse = file('sparse.log', log(3_000, 1) + log(37_000, 400));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('tells a dense log from an ordinary one', () => {
    expect(denseAmong([dense], [])).toBe(true);
    expect(denseAmong([ordinary], [])).toBe(false);
    expect(denseAmong([sparse], [])).toBe(false);
    expect(denseAmong([ordinary, dense], [])).toBe(true);
  });

  it('one worker for a dense log on two cores or more, none on one; a number set is kept', () => {
    const two = { workers: 0, explicit: false, cores: 2 };
    expect(poolSize([dense], two, [])).toBe(1);
    expect(poolSize([ordinary], two, [])).toBe(0);
    // Three workers would hold three heaps of a dense log's events: one.
    expect(poolSize([dense], { workers: 3, explicit: false, cores: 8 }, [])).toBe(1);
    expect(poolSize([ordinary], { workers: 3, explicit: false, cores: 8 }, [])).toBe(3);
    expect(poolSize([dense], { workers: 0, explicit: false, cores: 1 }, [])).toBe(0);
    expect(poolSize([dense], { workers: 0, explicit: true, cores: 2 }, [])).toBe(0);
    expect(poolSize([dense], { workers: 4, explicit: true, cores: 8 }, [])).toBe(4);
  });

  it('a file gone since it was listed is not dense, and not an error', () => {
    expect(denseAmong([{ realPath: join(dir, 'gone.log'), size: 1 << 30 }], [])).toBe(false);
  });
});
