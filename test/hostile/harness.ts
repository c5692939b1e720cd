// The run and the bounds of a hostile case, for cases whose server lives in the test's own process (a loopback
// Prometheus): bin/plegscope spawned without blocking the event loop, under /usr/bin/time for its peak RSS.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Analysis } from '../../src/contract/analysis.js';
import { BIN } from '../helpers/cli.js';

export const MAX_MS = 60_000;
export const MAX_RSS_MB = 200;
/** Raw C0 (but TAB, LF), DEL, C1 and bidi controls: none may reach a terminal. */
// eslint-disable-next-line no-control-regex
export const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

export interface Run { code: number; stdout: string; stderr: string; rssMB: number; ms: number }

/** bin/plegscope with `args` (killed past twice the bound, so a hang fails the bound instead of the suite). */
export function runAsync(dir: string, args: string[]): Promise<Run> {
  const rssFile = join(dir, `rss-${process.hrtime.bigint()}`);
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', '%M', '-o', rssFile, process.execPath, BIN, ...args], { env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => { stdout += b.toString(); });
    child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), MAX_MS * 2);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      let rssKB = NaN;
      try {
        rssKB = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop());
      } catch { /* killed before time wrote it */ }
      resolve({ code: code ?? -1, stdout, stderr, rssMB: rssKB / 1024, ms: Date.now() - t0 });
    });
  });
}

/** The bounds every hostile run keeps. */
export function bounded(r: Run, exit: number[], rssMB = MAX_RSS_MB): void {
  expect(r.ms, 'ends within a minute').toBeLessThanOrEqual(MAX_MS);
  expect(r.rssMB, `peak RSS ${r.rssMB.toFixed(0)} MB`).toBeLessThanOrEqual(rssMB);
  expect(exit, `exit ${r.code}; stderr: ${r.stderr.slice(0, 500)}`).toContain(r.code);
  expect(r.stdout).not.toMatch(RAW_CONTROL);
  expect(r.stderr).not.toMatch(RAW_CONTROL);
  expect(r.stderr, 'no stack trace').not.toMatch(/^\s+at |Error: |node:internal/m);
  if (r.code === 2) expect(r.stderr.trim().split('\n'), 'one line').toHaveLength(1);
}

/** The JSON report of a run that exited 0/1, with `node` found and its one stall read. */
export function analyzed(r: Run, node: string): Analysis {
  const a = JSON.parse(r.stdout) as Analysis;
  const good = a.nodes.find((n) => n.name === node);
  expect(good, `${node} analyzed`).toBeDefined();
  expect(good?.stalls).toHaveLength(1);
  return a;
}

export const warned = (a: Analysis, re: RegExp): boolean => a.warnings.some((w) => re.test(w.message));
