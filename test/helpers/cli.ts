import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export const BIN = join(__dirname, '..', '..', 'bin', 'plegscope');

export interface CliResult { code: number; stdout: string; stderr: string }

/** Runs the real launcher as a user would (needs `npm run build` first; `npm test` does it). */
export function cli(args: string[], opts: { input?: string | Buffer; env?: Record<string, string>; cwd?: string } = {}): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    input: opts.input, cwd: opts.cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '', FORCE_COLOR: '', ...opts.env }, maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
