// As a user runs it: a sosreport's own time zone applies to its year- and zone-less journal without --tz, and the
// result equals the same logs given loose with --tz set to that zone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';
import { writeBundle, writeDir } from './fixtures.js';
import { fixtures } from './kinds.js';
import type { Analysis } from '../../src/contract/analysis.js';

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'plegscope-zone-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bundle time zone from the command line', () => {
  it('sosreport (Europe/Berlin) without --tz equals the loose logs with --tz Europe/Berlin', async () => {
    const fx = (await fixtures()).find((f) => f.kind === 'sosreport')!;
    const bundle = await writeBundle(dir, fx.name, fx.files, 'tar.gz');
    const loose = join(dir, 'loose');
    writeDir(loose, fx.loose);
    const a = JSON.parse(cli(['analyze', bundle, '--format', 'json']).stdout) as Analysis;
    const b = JSON.parse(cli(['analyze', loose, '--format', 'json', '--tz', fx.tz]).stdout) as Analysis;
    const stalls = (x: Analysis) => x.nodes.flatMap((n) => n.stalls.map((s) => [s.lastRelistAt, s.endedAt]));
    expect(stalls(a).length).toBeGreaterThan(0);
    expect(stalls(a)).toEqual(stalls(b));
    const utc = JSON.parse(cli(['analyze', loose, '--format', 'json']).stdout) as Analysis;
    expect(stalls(utc)).not.toEqual(stalls(a));
  });
});
