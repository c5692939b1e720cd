import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PassThrough, Readable } from 'node:stream';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError, type Artifact } from '../../src/sources/artifact.js';
import { discover } from '../../src/sources/files/discover.js';

const LINE =
  'Nov 21 10:00:04 node-1 kubelet[1234]: E1121 10:00:04.631719    1234 kubelet.go:2373] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3m0.416753742s ago; threshold is 3m0s"\n';

function readAll(stream: Readable): Promise<{ data: Buffer; error: Error | null }> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    stream.on('data', (c: Buffer) => parts.push(c));
    stream.on('end', () => resolve({ data: Buffer.concat(parts), error: null }));
    stream.on('error', (error) => resolve({ data: Buffer.concat(parts), error }));
  });
}

/** Produces `total` bytes of kubelet lines on demand and counts how many were pulled. */
function lazyLog(total: number): { stream: Readable; pulled: () => number } {
  let produced = 0;
  const chunk = Buffer.from(LINE.repeat(Math.ceil(16384 / LINE.length)));
  const stream = new Readable({
    read() {
      if (produced >= total) {
        this.push(null);
        return;
      }
      const piece = chunk.subarray(0, Math.min(chunk.length, total - produced));
      produced += piece.length;
      this.push(piece);
    },
  });
  return { stream, pulled: () => produced };
}

describe('discover: stdin', () => {
  it('kind stdin, path -, head buffered, the rest streamed once', async () => {
    const total = 3 * 1024 * 1024;
    const { stream, pulled } = lazyLog(total);
    const d = await discover(['-'], { stdin: stream });
    expect(d.inputs).toEqual([{ path: '-', kind: 'stdin' }]);
    const a = d.artifacts[0] as Artifact;
    expect(a).toMatchObject({ path: '-', input: 0, role: 'kubelet-log', format: 'journal-short', compression: null, size: null, mtime: null, nodeHint: null, nameTime: null });
    expect(a.head.length).toBe(64 * 1024);
    // Sniffing must not have swallowed stdin.
    expect(pulled()).toBeLessThan(512 * 1024);
    const all = await readAll(a.open());
    expect(all.error).toBeNull();
    expect(all.data.length).toBe(total);
    expect(all.data.subarray(0, a.head.length).equals(a.head)).toBe(true);
    expect(all.data.toString().split('\n').filter(Boolean).every((l) => l + '\n' === LINE || LINE.startsWith(l))).toBe(true);
    const second = await readAll(a.open());
    expect(second.error?.message).toBe('stdin can be read only once');
  });

  it('gzip on stdin', async () => {
    const text = LINE.repeat(2000);
    const stdin = new PassThrough();
    const gz = zlib.gzipSync(text);
    // Dribble it in, as a pipe would.
    let off = 0;
    const timer = setInterval(() => {
      if (off >= gz.length) {
        stdin.end();
        clearInterval(timer);
        return;
      }
      stdin.write(gz.subarray(off, off + 1000));
      off += 1000;
    }, 0);
    const d = await discover(['-'], { stdin });
    const a = d.artifacts[0] as Artifact;
    expect(a).toMatchObject({ compression: 'gzip', role: 'kubelet-log' });
    expect((await readAll(a.open())).data.toString()).toBe(text);
  });

  it('a short stdin is read whole; empty stdin is an InputError', async () => {
    const d = await discover(['-'], { stdin: Readable.from([Buffer.from(LINE)]) });
    expect(d.artifacts[0]?.head.toString()).toBe(LINE);
    expect((await readAll((d.artifacts[0] as Artifact).open())).data.toString()).toBe(LINE);
    await expect(discover(['-'], { stdin: Readable.from([]) })).rejects.toMatchObject({ path: '-', message: 'empty input' });
    await expect(discover(['-'], { stdin: Readable.from([]) })).rejects.toBeInstanceOf(InputError);
  });

  it('a read error on stdin after the head reaches the consumer as a stream error', async () => {
    let n = 0;
    const stdin = new Readable({
      read() {
        n += 1;
        if (n <= 20) this.push(Buffer.from(LINE.repeat(100)));
        else this.destroy(Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' }));
      },
    });
    const d = await discover(['-'], { stdin });
    const all = await readAll((d.artifacts[0] as Artifact).open());
    expect(all.error?.message).toBe('input/output error');
    expect(all.data.length).toBe(20 * 100 * LINE.length);
  });

  it('stdin named twice is an InputError', async () => {
    await expect(discover(['-', '-'], { stdin: Readable.from([Buffer.from(LINE)]) })).rejects.toMatchObject({ path: '-', message: 'stdin can be named only once' });
  });

  it('a real pipe from another process', async () => {
    const child = spawn(process.execPath, ['-e', `process.stdout.write(${JSON.stringify(LINE)}.repeat(5000))`]);
    const d = await discover(['-'], { stdin: child.stdout });
    const a = d.artifacts[0] as Artifact;
    expect(a.role).toBe('kubelet-log');
    expect((await readAll(a.open())).data.length).toBe(LINE.length * 5000);
  });
});

describe('compressed loose files and stdin are bounded like archive members', () => {
  // 8 MiB of one line as gzip (~1000×): past a 2 MiB ratio floor the output stops with EBOMB, after what came before.
  const bomb = zlib.gzipSync(Buffer.from(LINE.repeat(Math.ceil((8 << 20) / LINE.length))), { level: 9 });
  const limits = { ratioFloorBytes: 2 << 20 };

  it('stdin', async () => {
    const d = await discover(['-'], { stdin: Readable.from([bomb]), limits });
    const r = await readAll((d.artifacts[0] as Artifact).open());
    expect((r.error as Error & { code?: string }).code).toBe('EBOMB');
    expect(r.error?.message).toMatch(/^decompression stopped after \d\.\d MiB from \d+ KiB of -: more than 100× expansion/);
    expect(r.data.length).toBeGreaterThanOrEqual(2 << 20);
    expect(r.data.length).toBeLessThan(4 << 20);
  });

  it('a loose .gz file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plegscope-bomb-'));
    try {
      const f = path.join(dir, 'kubelet.log.gz');
      fs.writeFileSync(f, bomb);
      const d = await discover([f], { limits });
      const r = await readAll((d.artifacts[0] as Artifact).open());
      expect(r.error?.message).toMatch(new RegExp(`^decompression stopped after \\d\\.\\d MiB from \\d+ KiB of ${f.replace(/[.]/g, '\\.')}: `));
      expect(r.data.length).toBeLessThan(4 << 20);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('discover: process.stdin in a child process', () => {
  let out: string;
  beforeAll(() => {
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'plegscope-build-'));
    const root = fileURLToPath(new URL('../..', import.meta.url));
    execFileSync(
      path.join(root, 'node_modules/.bin/tsc'),
      ['--ignoreConfig', '--outDir', out, '--rootDir', path.join(root, 'src'), '--module', 'nodenext', '--moduleResolution', 'nodenext',
        '--target', 'es2022', '--types', 'node', '--skipLibCheck', '--strict', path.join(root, 'src/sources/files/discover.ts')],
      { cwd: root, stdio: 'pipe' },
    );
    fs.writeFileSync(path.join(out, 'package.json'), '{"type":"module"}\n');
    // The build lives outside the repo: let it find the runtime dependencies (tar-stream) there.
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(out, 'node_modules'));
  }, 60_000);
  afterAll(() => {
    fs.rmSync(out, { recursive: true, force: true });
  });

  const run = (input: Buffer): Promise<{ code: number | null; stdout: string }> =>
    new Promise((resolve) => {
      const script = `
        import { discover } from ${JSON.stringify(path.join(out, 'sources/files/discover.js'))};
        try {
          const d = await discover(['-']);
          const a = d.artifacts[0];
          let n = 0;
          for await (const c of a.open()) n += c.length;
          console.log(JSON.stringify({ kind: d.inputs[0].kind, role: a.role, format: a.format, compression: a.compression, head: a.head.length, n }));
        } catch (e) {
          console.log(JSON.stringify({ error: e.name, path: e.path, message: e.message }));
        }`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d));
      child.on('close', (code) => resolve({ code, stdout }));
      child.stdin.end(input);
    });

  it('reads piped stdin', async () => {
    const r = await run(Buffer.from(LINE.repeat(3000)));
    expect(JSON.parse(r.stdout)).toEqual({ kind: 'stdin', role: 'kubelet-log', format: 'journal-short', compression: null, head: 65536, n: LINE.length * 3000 });
  });

  it('reads gzip on piped stdin', async () => {
    const r = await run(zlib.gzipSync(LINE.repeat(3000)));
    expect(JSON.parse(r.stdout)).toMatchObject({ compression: 'gzip', n: LINE.length * 3000 });
  });

  it('empty piped stdin is an InputError', async () => {
    const r = await run(Buffer.alloc(0));
    expect(JSON.parse(r.stdout)).toEqual({ error: 'InputError', path: '-', message: 'empty input' });
  });
});
