// Where the report goes: a pipe closed early, a full disk, a file that cannot be written, and option values that
// cannot be right. Each ends in one line (or none), never a stack trace or a truncated report.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cli } from './helpers/cli.js';
import { at, kl, lines, skipLines, syncLoopEvent } from './helpers/scenario.js';

let dir: string;
let bundle: string;

/** Twelve nodes that each stalled: a JSON report well over the 64 KiB a pipe holds. */
function nodeLog(i: number): string {
  const o = { host: `worker-${i}`, pid: 2800 + i };
  const L = at('10:00:00');
  return lines([
    kl(at('09:00:00'), 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.28.3"', o),
    syncLoopEvent(L - 1000, 'structured', o),
    ...skipLines(L, L + 900_000, 'structured', o),
    syncLoopEvent(L + 905_000, 'structured', o),
  ]);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'plegscope-out-'));
  bundle = join(dir, 'nodes');
  mkdirSync(bundle);
  for (let i = 0; i < 12; i++) writeFileSync(join(bundle, `worker-${i}.log`), nodeLog(i));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `plegscope …` under bash, its stdout into `| head -c 100`: plegscope's own exit status and stderr. */
function piped(args: string[]): { code: number; stderr: string } {
  const quoted = [BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = spawnSync('bash', ['-c', `${JSON.stringify(process.execPath)} ${quoted} | head -c 100 >/dev/null; exit \${PIPESTATUS[0]}`], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status ?? -1, stderr: r.stderr };
}

describe('a reader that stops early', () => {
  it('`analyze … | head` ends quietly with the exit code of a full write (0, or 1 for --fail-on)', () => {
    expect(cli(['analyze', bundle, '--format', 'json']).stdout.length).toBeGreaterThan(64 * 1024);
    for (let i = 0; i < 3; i++) {
      expect(piped(['analyze', bundle, '--format', 'json'])).toEqual({ code: 0, stderr: '' });
      expect(piped(['analyze', bundle, '--format', 'json', '--fail-on', 'stall'])).toEqual({ code: 1, stderr: '' });
      expect(piped(['analyze', bundle])).toEqual({ code: 0, stderr: '' });
    }
  }, 60_000);
});

describe('-o FILE', () => {
  it('a write that fails leaves the earlier report whole, no temporary file, and one line naming the path', () => {
    const out = join(dir, 'report-dir');
    mkdirSync(out, { recursive: true });
    const file = join(out, 'report.json');
    writeFileSync(file, 'the earlier report\n');
    // A file-size limit of 1 KiB (SIGXFSZ ignored): every write past it fails with EFBIG, as ENOSPC fails on a full disk.
    const r = spawnSync('bash', ['-c', `ulimit -f 1; trap '' XFSZ; exec ${JSON.stringify(process.execPath)} ${BIN} analyze ${bundle} --format json -o ${file}`], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`plegscope: ${file}: cannot be written: file too large\n`);
    expect(readFileSync(file, 'utf8')).toBe('the earlier report\n');
    expect(readdirSync(out)).toEqual(['report.json']);
    // Written whole when it can be.
    const ok = cli(['analyze', bundle, '--format', 'json', '-o', file]);
    expect(ok.code).toBe(0);
    expect((JSON.parse(readFileSync(file, 'utf8')) as { nodes: unknown[] }).nodes).toHaveLength(12);
    expect(readdirSync(out)).toEqual(['report.json']);
  });

  it.runIf(existsSync('/dev/full'))('a full device: one line naming it, exit 2', () => {
    const r = cli(['analyze', bundle, '-o', '/dev/full']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('plegscope: /dev/full: cannot be written: no space left on device\n');
  });

  it('a folder that does not exist: one line naming the path', () => {
    const file = join(dir, 'no', 'such', 'report.txt');
    const r = cli(['analyze', bundle, '-o', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`plegscope: ${file}: cannot be written: no such file or directory\n`);
  });
});

describe('option values', () => {
  it('--tz takes an offset only if one exists on Earth', () => {
    for (const tz of ['+99:99', '+15:00', '-13:60']) {
      const r = cli(['analyze', bundle, '--tz', tz]);
      expect(r.code, tz).toBe(2);
      expect(r.stderr, tz).toBe(`plegscope: --tz: "${tz}" is not a UTC offset (hours 00 to 14, minutes 00 to 59)\n`);
    }
    for (const tz of ['+14:00', '-0930']) expect(cli(['analyze', bundle, '--tz', tz]).code, tz).toBe(0);
  });
});
