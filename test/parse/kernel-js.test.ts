// The scan kernel in JavaScript (kernel.ts jsKernel: what runs under node --jitless, where WebAssembly is missing)
// against the WebAssembly one, on the same tables and inputs: the same filtered candidates in the same order, and the
// same stops, line numbers, line starts and checkpoints.
import { describe, expect, it } from 'vitest';
import { BITS, CHECKPOINT, Kernel, SHIFT } from '../../src/parse/kernel.js';
import { MultiSearch } from '../../src/parse/multisearch.js';
import { createRng } from '../support/journal-gen.mjs';

const NEEDLES = ['PLEG is not healthy', 'runtime service failed', 'Unable to retrieve pods', 'NodeNotReady', 'context deadline exceeded', 'ListPodSandbox'];

/** Lines of random words, some holding a needle, some starting with '-' (journal markers), some long. */
function text(seed: string, bytes: number): Buffer {
  const rng = createRng(seed);
  const words = ['kubelet', 'I0311', 'pod', 'sandbox', 'err="rpc error"', 'PLEG', 'is', 'not', 'healthy:', 'ok', '-', 'Node'];
  const lines: string[] = [];
  let n = 0;
  while (n < bytes) {
    let line = rng.chance(0.02) ? '-- Boot 1 --' : '';
    const count = rng.chance(0.01) ? 400 : rng.int(1, 14);
    for (let i = 0; i < count; i++) line += `${rng.pick(words)} `;
    if (rng.chance(0.2)) line += rng.pick(NEEDLES);
    lines.push(line);
    n += line.length + 1;
  }
  return Buffer.from(`${lines.join('\n')}\n`, 'latin1');
}

function kernels(): { wasm: Kernel; js: Kernel; m: number } {
  const ms = new MultiSearch(NEEDLES);
  const mem = new Uint8Array(ms.kernel.main.buffer);
  const shift = mem.slice(SHIFT, BITS);
  const bits = mem.slice(BITS, BITS + 8192);
  return { wasm: new Kernel(shift, bits, 'wasm'), js: new Kernel(shift, bits, 'js'), m: (ms as unknown as { m: number }).m };
}

describe('the scan kernel in JavaScript', () => {
  it('walks to the same filtered candidates as the WebAssembly kernel', () => {
    const { wasm, js, m } = kernels();
    for (const size of [100, 5000, 300_000]) {
      const t = text(`walk-${size}`, size);
      wasm.main.set(t);
      js.main.set(t);
      const got = (k: Kernel): number[] => Array.from({ length: k.walk(false, m - 1, t.length, m) }, (_, i) => k.candidate(i));
      const a = got(wasm);
      expect(a.length).toBeGreaterThan(0);
      expect(got(js)).toEqual(a);
    }
  });

  it('advances to the same stops, line numbers, line starts and checkpoints', () => {
    const { wasm, js } = kernels();
    const t = text('advance', 600_000);
    wasm.main.set(t);
    js.main.set(t);
    const rng = createRng('advance-calls');
    for (let call = 0; call < 200; call++) {
      const to = t.lastIndexOf(10, rng.int(1, t.length - 1)) + 1;
      if (to <= 0) continue;
      const pos = t.lastIndexOf(10, rng.int(0, to - 1) - 1) + 1;
      const ev = rng.chance(0.3) ? to + 5 : rng.int(pos, to);
      const maxLine = rng.pick([80, 200, 8192]);
      const lineNo = rng.pick([0, CHECKPOINT - 3, 5 * CHECKPOINT + 7]);
      const run = (k: Kernel) => {
        const nl = k.advance(pos, to, ev, maxLine, lineNo);
        return { nl, lineNo: k.lineNo, lineStart: k.lineStart, cps: Array.from({ length: k.checkpointCount }, (_, i) => k.checkpoint(i)) };
      };
      expect(run(js), `advance(${pos}, ${to}, ${ev}, ${maxLine}, ${lineNo})`).toEqual(run(wasm));
    }
  });
});
