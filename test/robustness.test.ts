// Hostile and damaged input: nothing crashes, hangs or leaks control sequences into the text report.
import { describe, expect, it } from 'vitest';
import { signalsOf } from './helpers/signals.js';
import { analyzeFiles, at, kl, lines, skipLines } from './helpers/scenario.js';
import { renderText } from '../src/report/text.js';
import { sanitize } from '../src/util/sanitize.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

describe('damaged lines', () => {
  it('random bytes, truncated headers and broken JSON parse without throwing', async () => {
    const r = rng(7);
    const parts: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const kind = Math.floor(r() * 6);
      if (kind === 0) parts.push(Buffer.from(Array.from({ length: Math.floor(r() * 200) }, () => Math.floor(r() * 256))).toString('latin1'));
      else if (kind === 1) parts.push('Mar 11 10:0');
      else if (kind === 2) parts.push('E0311 10:00:00.00');
      else if (kind === 3) parts.push('{"ts":1,"msg":"Skipping pod synchronization","err":"PLEG is not healthy: pleg was last seen active 3m');
      else if (kind === 4) parts.push('Mar 11 10:00:01 h kubelet[1]: E0311 10:00:01.000000       1 kubelet.go:1] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3mXs ago; threshold is 3m0s"');
      else parts.push('Mar 99 99:99:99 h kubelet[x]: PLEG is not healthy');
    }
    const s = await signalsOf(parts.join('\n'), { chunk: 333 });
    expect(s.scan.lines).toBeGreaterThan(1000);
  });

  it('a very long line is cut and reported, the lines after it still count', async () => {
    const long = 'x'.repeat(3 * 1024 * 1024);
    const text = [long, 'Mar 11 10:03:01 h kubelet[1]: E0311 10:03:01.000000       1 kubelet.go:1] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3m1s ago; threshold is 3m0s"'].join('\n') + '\n';
    const s = await signalsOf(text, { chunk: 64 * 1024 });
    expect(s.events.filter((e) => e.type === 'relist-unhealthy')).toHaveLength(1);
    expect(s.warnings.some((w) => /over-long/.test(w.message))).toBe(true);
  });
});

describe('escape sequences from logs', () => {
  const evil = 'pod="a\u001b[2J\u001b]52;c;ZXZpbA==\u0007b\rX\u202eevil\u0000"';
  it('sanitize makes CSI, OSC 52, CR, bidi overrides and NUL inert', () => {
    const s = sanitize(`x ${evil} y`);
    expect(s).not.toMatch(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(s).toContain('\\x0d');
    expect(s).toContain('\\u202e');
  });
  it('the text report never prints raw control characters from a log', async () => {
    const L = at('10:00:00');
    const ls = [...skipLines(L, L + 400_000), kl(L + 200_000, 'E', 'log.go:32', `"ContainerStatus from runtime service failed" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded" containerID="c0ffee0000000001" ${evil}`)];
    const a = await analyzeFiles({ 'kubelet\u001b[31m.log': lines(ls) });
    const text = renderText(a, { color: false, zone: 'UTC', width: 1000 });
    expect(text).toContain('ContainerStatus');
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });
});
