// The reading thread's reader of a whole plain file (readFileChunks) and the extraction built on it (extractFile): the
// same bytes, in order, as a stream gives, through reused buffers; the same refusals as the walk's own opens.
import { describe, expect, it } from 'vitest';
import { createReadStream, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileChunks } from '../../src/sources/files/ranges.js';
import { extractSignals } from '../../src/signals/extract.js';
import { extractFile } from '../../src/sources/files/ranges.js';
import { resolveZone } from '../../src/parse/time.js';

const FIXTURE_LOG = join(import.meta.dirname, '..', '..', 'fixtures', 'sample-incident', 'kubelet.log');

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'plegscope-chunks-'));
}

describe('readFileChunks', () => {
  it('hands over every byte in order, whatever the chunk size, and reuses its buffers', async () => {
    const want = readFileSync(FIXTURE_LOG);
    for (const size of [997, 4096, 1 << 20]) {
      const parts: Buffer[] = [];
      const seen = new Set<ArrayBufferLike>();
      await readFileChunks(FIXTURE_LOG, (b) => {
        parts.push(Buffer.from(b));
        seen.add(b.buffer);
      }, size);
      expect(Buffer.concat(parts).equals(want)).toBe(true);
      // Two buffers at most, taking turns (one being read into while the other is scanned).
      if (want.length > 2 * size) expect(seen.size).toBe(2);
    }
  });

  it('an empty file gives no chunk', async () => {
    const d = tmp();
    try {
      writeFileSync(join(d, 'empty.log'), '');
      let calls = 0;
      await readFileChunks(join(d, 'empty.log'), () => calls++);
      expect(calls).toBe(0);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });

  it('does not follow a link swapped in for the file, nor read a fifo', async () => {
    const d = tmp();
    try {
      writeFileSync(join(d, 'real.log'), 'x\n');
      symlinkSync(join(d, 'real.log'), join(d, 'link.log'));
      await expect(readFileChunks(join(d, 'link.log'), () => undefined)).rejects.toThrow();
      execFileSync('mkfifo', [join(d, 'pipe.log')]);
      await expect(readFileChunks(join(d, 'pipe.log'), () => undefined)).rejects.toThrow(/not a regular file/);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });

  it('an error thrown by the consumer ends the read with that error', async () => {
    await expect(readFileChunks(FIXTURE_LOG, () => {
      throw new Error('consumer failed');
    }, 1024)).rejects.toThrow('consumer failed');
  });
});

describe('extractFile', () => {
  it('finds what extractSignals finds in a stream of the same file', async () => {
    const opts = { artifact: 3, zone: resolveZone('UTC'), year: 2024, notAfterMs: null, custom: [] };
    const fromStream = await extractSignals(createReadStream(FIXTURE_LOG), opts);
    const chunks: number[] = [];
    const fromFile = await extractFile(FIXTURE_LOG, opts, (b) => chunks.push(b.length));
    expect(fromFile).toEqual(fromStream);
    expect(chunks.reduce((a, b) => a + b, 0)).toBe(readFileSync(FIXTURE_LOG).length);
    expect(fromFile.events.length).toBeGreaterThan(0);
  });

  it('a file that cannot be opened ends as a read that stopped, as a failed stream does', async () => {
    const opts = { artifact: 0, zone: resolveZone('UTC'), year: 2024, notAfterMs: null, custom: [] };
    const missing = join(tmpdir(), 'plegscope-no-such-file.log');
    const fromFile = await extractFile(missing, opts);
    const fromStream = await extractSignals(createReadStream(missing), opts);
    expect(fromFile.warnings.map((w) => w.message.replace(/:.*/, ''))).toEqual(fromStream.warnings.map((w) => w.message.replace(/:.*/, '')));
    expect(fromFile.warnings[0]?.message).toMatch(/^read stopped after line 0/);
  });
});
