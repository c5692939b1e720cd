// The fast paths (chunk prefilter, on-demand needles, sampled lines, worker threads reading byte ranges) change nothing
// but speed: every shipped fixture, and a merged many-host log like must-gather's, gives the same report with them as
// without. PLEGSCOPE_SPLIT_BYTES=0 makes every plain log large enough to be cut into ranges (several per thread, no
// warm-up: a stall across a boundary ends through a fix-up pass); three workers and this thread share them.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from './helpers/cli.js';
import { mergedNodeLogs } from './helpers/scenario.js';

const FIX = join(__dirname, '..', 'fixtures');
const dirsOf = (d: string) => readdirSync(join(FIX, d), { withFileTypes: true }).filter((x) => x.isDirectory()).map((x) => join(FIX, d, x.name));
const inputs = [join(FIX, 'sample-incident'), ...dirsOf('corpus'), ...dirsOf('incidents')];

const strip = (s: string) => s.replace(/"generatedAt": "[^"]+"/, '');
const FAST = { PLEGSCOPE_WORKERS: '3', PLEGSCOPE_SPLIT_BYTES: '0' };
const SLOW = { PLEGSCOPE_WORKERS: '0' };

const tmp = mkdtempSync(join(tmpdir(), 'plegscope-fastpath-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('fast paths', () => {
  for (const p of inputs) {
    it(`${p.split('/').slice(-2).join('/')}: same JSON with the prefilter and threads as without`, () => {
      const fast = cli(['analyze', p, '--format', 'json', '--year', '2024'], { env: FAST });
      const slow = cli(['analyze', p, '--format', 'json', '--year', '2024', '--no-prefilter'], { env: SLOW });
      expect(fast.code).toBe(0);
      expect(strip(fast.stdout)).toBe(strip(slow.stdout));
    });
  }

  it('a merged 40-host log on a worker: same stalls, restarts and per-host windows as one pass of every line', () => {
    const file = join(tmp, 'kubelet_service.log');
    writeFileSync(file, mergedNodeLogs());
    const fast = cli(['analyze', file, '--format', 'json', '--year', '2024'], { env: FAST });
    const slow = cli(['analyze', file, '--format', 'json', '--year', '2024', '--no-prefilter'], { env: SLOW });
    expect(fast.code).toBe(0);
    expect(strip(fast.stdout)).toBe(strip(slow.stdout));
    const a = JSON.parse(fast.stdout) as { nodes: Array<{ name: string; stalls: unknown[]; restarts: unknown[]; window: { start: string; end: string } }> };
    expect(a.nodes).toHaveLength(40);
    // Every host logs until 00:40: each window ends with its host's last line (the tail is read again), not with the
    // last line that happened to be sampled.
    for (const n of a.nodes) expect(n.window.end >= '2024-03-11T00:39:56.000Z').toBe(true);
    for (const n of a.nodes) expect(n.window.start <= '2024-03-11T00:00:04.000Z').toBe(true);
    expect(a.nodes.filter((n) => n.stalls.length > 0).map((n) => n.name)).toEqual(['worker-03', 'worker-17', 'worker-31']);
    expect(a.nodes.find((n) => n.name === 'worker-09')?.restarts).toHaveLength(1);
  });
});
