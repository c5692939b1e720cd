// The fast paths (chunk prefilter, on-demand needles, sampled lines, worker threads) change nothing but speed:
// every shipped fixture gives the same report with them as without.
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from './helpers/cli.js';

const FIX = join(__dirname, '..', 'fixtures');
const inputs = [join(FIX, 'sample-incident'), ...readdirSync(join(FIX, 'corpus'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => join(FIX, 'corpus', d.name))];

const strip = (s: string) => s.replace(/"generatedAt": "[^"]+"/, '');

describe('fast paths', () => {
  for (const p of inputs) {
    it(`${p.split('/').slice(-2).join('/')}: same JSON with the prefilter and threads as without`, () => {
      const fast = cli(['analyze', p, '--format', 'json', '--year', '2024'], { env: { PLEGSCOPE_WORKERS: '2' } });
      const slow = cli(['analyze', p, '--format', 'json', '--year', '2024', '--no-prefilter'], { env: { PLEGSCOPE_WORKERS: '0' } });
      expect(fast.code).toBe(0);
      expect(strip(fast.stdout)).toBe(strip(slow.stdout));
    });
  }
});
