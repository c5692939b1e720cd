import { describe, expect, it } from 'vitest';
import { KERNEL_WASM } from '../../src/parse/kernel.js';
import { kernelModule } from '../../src/parse/kernel-code.js';

describe('scan kernel', () => {
  it('ships the encoding of its code (after a change to kernel-code.ts, put the value printed here in KERNEL_WASM)', () => {
    expect(Buffer.from(kernelModule()).toString('base64')).toBe(KERNEL_WASM);
  });
});
