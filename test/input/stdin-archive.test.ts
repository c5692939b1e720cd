// Issue 22.3: an archive piped in (`cat bundle.tar.xz | plegscope analyze -`) is read like the same archive named by
// its path, from a private temporary copy that is gone afterwards: after a normal run, an error, or a signal.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Analysis } from '../../src/contract/analysis.js';
import { BIN, cli } from '../helpers/cli.js';
import { formAvailable, writeBundle } from '../bundles/fixtures.js';
import { fixtures as kindFixtures, type KindFixture } from '../bundles/kinds.js';

/** The report with what names the input taken out: its path, the run's time, the count checks' commands. */
function comparable(a: Analysis): unknown {
  return JSON.parse(JSON.stringify({ ...a, generatedAt: null, inputs: a.inputs.map((i) => ({ ...i, path: null })) }, (k, v: unknown) => (k === 'grep' ? null : v)));
}

describe('an archive on stdin', () => {
  let dir: string;
  let tmp: string;
  let fx: KindFixture;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plegscope-stdin-archive-'));
    tmp = path.join(dir, 'tmp');
    fs.mkdirSync(tmp);
    fx = (await kindFixtures()).find((k) => k.kind === 'sosreport') as KindFixture;
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const form of ['tar', 'tar.gz', 'tar.xz'] as const) {
    it(`${form}: the same report as the same archive named by its path, and no copy left`, async () => {
      if (!formAvailable(form)) return;
      const p = await writeBundle(dir, fx.name, fx.files, form);
      const byPath = cli(['analyze', p, '--format', 'json', '--tz', fx.tz], { env: { TMPDIR: tmp } });
      const piped = cli(['analyze', '-', '--format', 'json', '--tz', fx.tz], { input: fs.readFileSync(p), env: { TMPDIR: tmp } });
      expect(piped.stderr).not.toMatch(/only tar/);
      expect(piped.code, piped.stderr).toBe(byPath.code);
      const a = JSON.parse(piped.stdout) as Analysis;
      expect(a.inputs[0]?.path).toBe('-');
      expect(a.inputs[0]?.kind).toBe('sosreport');
      expect(a.nodes.map((n) => n.name)).toEqual(fx.nodes);
      expect(comparable(a)).toEqual(comparable(JSON.parse(byPath.stdout) as Analysis));
      // Count checks read what came on stdin saved as FILE.
      for (const c of a.nodes.flatMap((n) => n.findings.flatMap((f) => f.checks ?? []))) expect(c.grep).toMatch(/^# stdin saved as FILE: (\{ )?tar -xOf FILE /);
      expect(fs.readdirSync(tmp)).toEqual([]);
    });
  }

  it('a damaged archive on stdin: an error, and no copy left', async () => {
    const p = await writeBundle(dir, 'cut', fx.files, 'tar.gz');
    const bytes = fs.readFileSync(p);
    const r = cli(['analyze', '-'], { input: bytes.subarray(0, Math.floor(bytes.length / 2)), env: { TMPDIR: tmp } });
    expect(r.code).not.toBe(-1);
    expect(fs.readdirSync(tmp)).toEqual([]);
  });

  it('killed while the archive comes in: no copy left', async () => {
    const p = await writeBundle(dir, 'slow', fx.files, 'tar');
    const bytes = fs.readFileSync(p);
    const child = spawn(process.execPath, [BIN, 'analyze', '-'], { env: { ...process.env, TMPDIR: tmp }, stdio: ['pipe', 'ignore', 'ignore'] });
    // The archive and then some (a tar may end in any number of zero blocks), but stdin stays open: the run is copying
    // it when the signal arrives.
    // The run is killed with part of this still unread: the pipe then breaks (EPIPE), as it does for a user's `cat`.
    child.stdin.on('error', () => undefined);
    child.stdin.write(Buffer.concat([bytes, Buffer.alloc(1024 * 1024)]));
    for (let i = 0; i < 600 && !fs.readdirSync(tmp).some((d) => d.startsWith('plegscope-stdin-') && fs.readdirSync(path.join(tmp, d)).length > 0); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(fs.readdirSync(tmp).length).toBe(1);
    const dead = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, sig) => resolve(sig)));
    child.kill('SIGTERM');
    expect(await dead).toBe('SIGTERM');
    expect(fs.readdirSync(tmp)).toEqual([]);
  }, 60_000);
});
