// The range queue: workers and the reading thread share it, each taking the next range no other thread has claimed; a
// worker that dies takes no more ranges.
import { afterAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SignalPool } from '../../src/sources/files/pool.js';
import { resolveZone } from '../../src/parse/time.js';
import type { ExtractOptions } from '../../src/signals/extract.js';
import type { ExtractJob } from '../../src/sources/files/worker-protocol.js';
import { at, kl, lines, skipLines } from '../helpers/scenario.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'plegscope-pool-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const job: ExtractJob = { artifact: 0, zone: 'UTC', notAfterMs: null, custom: [], year: 2024 };
const here: ExtractOptions = { artifact: 0, zone: resolveZone('UTC'), notAfterMs: null, year: 2024 };

describe('signal pool', () => {
  it('a worker that dies fails its own range; the reading thread runs the rest', async () => {
    const crash = path.join(tmp, 'crash.mjs');
    // It claims the range it is sent (as the real worker does), then dies.
    fs.writeFileSync(crash, "import { parentPort, workerData } from 'node:worker_threads';\nparentPort.on('message', (m) => { Atomics.compareExchange(m.claim, 0, 0, workerData.claimId); throw new Error('worker fell over'); });\n");
    const log = path.join(tmp, 'k.log');
    const text = lines([kl(at('10:00:00'), 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.28.3"'), ...skipLines(at('10:00:00'), at('10:05:00'))]);
    fs.writeFileSync(log, text);
    const range = { realPath: log, start: 0, end: Buffer.byteLength(text) };
    const pool = new SignalPool(crash, 1);
    try {
      const first = pool.runRange(job, here, range, { first: true });
      await expect(first).rejects.toThrow(/worker fell over/);
      const second = pool.runRange(job, here, range, { first: true });
      await pool.helpUntil(second);
      const r = await second;
      expect(r.signals.events.some((e) => e.type === 'relist-unhealthy')).toBe(true);
      expect(r.signals.scan.lines).toBe(text.split('\n').length - 1);
    } finally {
      await pool.close();
    }
  });

  it('a range sent to a busy worker is taken by the reading thread when it is free first', async () => {
    // This worker claims what it is sent, says so in a file, holds the range until the test releases it (a file), and
    // answers with a marker instead of a result. No timing: each step waits for the one before it.
    const claimed = path.join(tmp, 'claimed');
    const release = path.join(tmp, 'release');
    const slow = path.join(tmp, 'slow.mjs');
    fs.writeFileSync(slow, [
      "import fs from 'node:fs';",
      "import { parentPort, workerData } from 'node:worker_threads';",
      'parentPort.on(\'message\', (m) => {',
      '  if (Atomics.compareExchange(m.claim, 0, 0, workerData.claimId) !== 0) return;',
      `  fs.writeFileSync(${JSON.stringify(claimed)}, '');`,
      `  while (!fs.existsSync(${JSON.stringify(release)})) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);`,
      "  parentPort.postMessage({ type: 'done', id: m.id, result: { byWorker: true } });",
      '});',
    ].join('\n'));
    const log = path.join(tmp, 'k2.log');
    const text = lines([kl(at('10:00:00'), 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.28.3"'), ...skipLines(at('10:00:00'), at('10:01:00'))]);
    fs.writeFileSync(log, text);
    const range = { realPath: log, start: 0, end: Buffer.byteLength(text) };
    const pool = new SignalPool(slow, 1);
    try {
      // The worker claims the first range before the second is sent.
      const first = pool.runRange(job, here, range, { first: true });
      while (!fs.existsSync(claimed)) await new Promise((resolve) => setTimeout(resolve, 10));
      const second = pool.runRange(job, here, range, { first: true });
      // Once this thread has run the second, the worker lets the first go.
      void second.then(() => fs.writeFileSync(release, ''));
      const both = Promise.all([first, second]);
      await pool.helpUntil(both);
      const [a, b] = await both;
      expect(a).toEqual({ byWorker: true });
      // Run here while the worker was still busy with the first: a real result.
      expect(b.signals.scan.lines).toBe(text.split('\n').length - 1);
    } finally {
      await pool.close();
    }
  });
});
