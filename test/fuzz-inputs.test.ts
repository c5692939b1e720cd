// One bad part never costs the report (issue 28, point 2): every fixture and corpus case, damaged the ways files are
// damaged (bytes flipped, digits stretched into absurd times and durations, lines cut short), next to a good kubelet
// logs: the analysis completes and the good nodes are reported with their stall, every time. A seeded PRNG makes each run
// the same; in-process through analyze() (cheap), plus a few runs of bin/plegscope as a user runs it (exit 0/1).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../src/analyze.js';
import type { Analysis } from '../src/contract/analysis.js';
import { BIN } from './helpers/cli.js';
// @ts-expect-error -- plain .mjs generators
import * as gen from './hostile/inputs.mjs';

const g = gen as { goodLog(host?: string): string };
const ROOT = join(__dirname, '..');
/** Two good nodes: with one, a damaged log that lost its host names would be read as that node's (a single-node
 *  input's files belong to its one node); with two, such a log is a node of its own. */
const GOOD = ['fuzz-good-a', 'fuzz-good-b'];
/** Cases: every folder of fixtures/corpus and fixtures/incidents, the sample incident, and the shared corpus when present. */
function cases(): string[] {
  const out: string[] = [join(ROOT, 'fixtures', 'sample-incident')];
  for (const base of [join(ROOT, 'fixtures', 'corpus'), join(ROOT, 'fixtures', 'incidents'), join(ROOT, '..', 'shared', 'corpus', 'cases')]) {
    if (!existsSync(base)) continue;
    for (const d of readdirSync(base).sort()) if (statSync(join(base, d)).isDirectory()) out.push(join(base, d));
  }
  return out;
}

function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p));
    else if (e.isFile() && e.name !== 'meta.json' && !e.name.endsWith('.truth.json')) out.push(p);
  }
  return out;
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

/** One damage of `b`: a few bytes flipped, a run of digits stretched (times of 9e21, ages of 99999999999h), or lines
 *  cut short. */
export function damage(b: Buffer, r: () => number): Buffer {
  const kind = Math.floor(r() * 3);
  if (b.length === 0) return b;
  if (kind === 0) {
    const out = Buffer.from(b);
    for (let k = 0; k < 1 + Math.floor(r() * 8); k++) out[Math.floor(r() * out.length)] = Math.floor(r() * 256);
    return out;
  }
  const text = b.toString('latin1');
  if (kind === 1) {
    // Every few runs of digits stretched by up to 12 more digits (a time or a duration past any bound).
    let n = 0;
    return Buffer.from(text.replace(/\d{2,}/g, (m) => (n++ % (2 + Math.floor(r() * 5)) === 0 ? m + '9'.repeat(1 + Math.floor(r() * 12)) : m)), 'latin1');
  }
  const lines = text.split('\n');
  for (let k = 0; k < Math.max(1, lines.length / 10); k++) {
    const i = Math.floor(r() * lines.length);
    lines[i] = lines[i]!.slice(0, Math.floor(r() * lines[i]!.length));
  }
  return Buffer.from(lines.join('\n'), 'latin1');
}

let tmp: string;
/** The good node's stalls when its log is read alone. */
let alone: string[];
beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'plegscope-fuzz-'));
  mkdirSync(join(tmp, 'alone'));
  writeFileSync(join(tmp, 'alone', 'kubelet.log'), g.goodLog(GOOD[0]));
  alone = (await analyze({ paths: [join(tmp, 'alone')], year: 2024, tz: 'UTC', workers: 0 })).analysis.nodes[0]!.stalls.map((s) => s.unhealthyFrom!);
  expect(alone).toHaveLength(1);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A damaged copy of `src` in a fresh folder, with the good log beside it. */
function damagedCopy(src: string, seed: number): string {
  const r = rng(seed);
  const dst = join(tmp, `${seed}`);
  for (const f of files(src)) {
    const p = join(dst, 'case', relative(src, f));
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, damage(readFileSync(f), r));
  }
  for (const n of GOOD) {
    mkdirSync(join(dst, n), { recursive: true });
    writeFileSync(join(dst, n, 'kubelet.log'), g.goodLog(n));
  }
  return dst;
}

function goodReported(a: Analysis, what: string): void {
  for (const name of GOOD) {
    const n = a.nodes.find((x) => x.name === name);
    expect(n, `${what}: ${name} reported; warnings: ${JSON.stringify(a.warnings.slice(0, 5))}`).toBeDefined();
    expect(n?.stalls.map((s) => s.unhealthyFrom), `${what}: ${name}'s stall, as when its log is read alone`).toEqual(alone);
  }
}

describe('every fixture and corpus case, damaged, next to a good log', () => {
  const all = cases();
  it(`${all.length} cases: the analysis completes and the good nodes are reported`, async () => {
    expect(all.length).toBeGreaterThan(100);
    for (const [i, c] of all.entries()) {
      const dst = damagedCopy(c, 1000 + i);
      let run;
      try {
        run = await analyze({ paths: [dst], year: 2024, tz: 'UTC', workers: 0 });
      } catch (e) {
        throw new Error(`${relative(ROOT, c)} (seed ${1000 + i}): ${(e as Error).stack}`);
      }
      goodReported(run.analysis, `${relative(ROOT, c)} (seed ${1000 + i})`);
      rmSync(dst, { recursive: true, force: true });
    }
  }, 240_000);

  it('as a user runs it: exit 0 or 1, the good nodes in the JSON report', () => {
    for (const [k, i] of [0, 40, 80, 120].entries()) {
      const c = all[i % all.length]!;
      const dst = damagedCopy(c, 5000 + k);
      const r = spawnSync(process.execPath, [BIN, 'analyze', dst, '--year', '2024', '--tz', 'UTC', '--format', 'json'], { encoding: 'utf8', maxBuffer: 64 << 20 });
      expect([0, 1], `${relative(ROOT, c)}: exit ${r.status}: ${r.stderr.slice(0, 300)}`).toContain(r.status);
      expect(r.stderr).not.toMatch(/^\s+at |Invalid time value/m);
      goodReported(JSON.parse(r.stdout) as Analysis, relative(ROOT, c));
    }
  }, 120_000);
});
