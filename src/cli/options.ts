// Option values shared by `analyze` and `tui`: checked before anything is read, each mistake one line (exit 2).
import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { resolveZone } from '../parse/time.js';

export class UsageError extends Error {}

/** `--evidence all|N`: evidence lines per finding in the text report. */
export function parseEvidence(v: string): number {
  if (v === 'all') return Infinity;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--evidence: "${v}" is neither "all" nor a number of lines`);
  return n;
}

export function parseYear(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1970 || n > 2200) throw new UsageError(`--year: "${v}" is not a year`);
  return n;
}

/** `--tz`, `--display-tz`: an IANA name, UTC, or a UTC offset that exists on Earth (−12:00 … +14:00, minutes 00–59). */
export function checkZone(v: string, option = '--tz'): void {
  const fixed = /^[+-](\d{2}):?(\d{2})$/.exec(v);
  if (fixed && (Number(fixed[1]) > 14 || Number(fixed[2]) > 59)) {
    throw new UsageError(`${option}: "${v}" is not a UTC offset (hours 00 to 14, minutes 00 to 59)`);
  }
  try {
    resolveZone(v);
  } catch {
    throw new UsageError(`${option}: unknown time zone "${v}" (use an IANA name like Europe/Berlin, or +02:00, or UTC)`);
  }
}

/** The zone the report shows times in: --display-tz; else the zone the input was read in (--tz), so that report times
 *  match the log lines they cite; else UTC. */
export function displayZone(flags: { tz?: string; displayTz?: string }): string {
  if (flags.displayTz !== undefined) checkZone(flags.displayTz, '--display-tz');
  const z = flags.displayTz ?? flags.tz ?? 'UTC';
  // A fixed offset as the time library names it (`+01:00` → `UTC+01:00`).
  const fixed = /^([+-])(\d{2}):?(\d{2})$/.exec(z);
  return fixed ? `UTC${fixed[1]}${fixed[2]}:${fixed[3]}` : z;
}

export const TZ_HELP = 'time zone of timestamps that carry none (IANA name, +hh:mm, UTC); default: the zone a bundle records, else UTC';
export const DISPLAY_TZ_HELP = 'time zone of the times the report shows; default: --tz, else UTC';

/** What an output names on disk, if it exists as a regular file: its real path and identity. */
function existing(file: string | undefined): { real: string; dev: number; ino: number } | null {
  if (file === undefined || file.startsWith('/dev/')) return null;
  try {
    const st = statSync(file);
    return st.isFile() ? { real: realpathSync(file), dev: st.dev, ino: st.ino } : null;
  } catch {
    return null;
  }
}

/**
 * Refuses a file the run writes (`-o`, `--redact-map`) that is a file it was given to read (logs, the rule pack, a
 * token file): writing it would overwrite the evidence, silently. Checked before anything is read.
 */
export function checkOutputsApart(outputs: Array<[option: string, file: string | undefined]>, inputs: Array<string | undefined>): void {
  for (const [option, file] of outputs) {
    const out = existing(file);
    if (out === null) continue;
    for (const p of inputs) {
      if (p === undefined || p === '-' || p === '') continue;
      try {
        const st = statSync(p);
        if (st.isFile() && st.dev === out.dev && st.ino === out.ino) throw new UsageError(`${option} ${file}: is an input of this run (${p}): refusing to overwrite it`);
      } catch (err) {
        if (err instanceof UsageError) throw err;
      }
    }
  }
}

/**
 * The same for a file inside a folder the run read, once the folder is read: refused when the run took it (or an
 * archive's members) as evidence. A file the run passed over (an earlier report written there) may be replaced.
 */
export function checkOutputsUnread(outputs: Array<[option: string, file: string | undefined]>, inputs: ReadonlyArray<{ path: string; kind: string; artifacts: ReadonlyArray<{ path: string; role: string; format: string }> }>): void {
  for (const [option, file] of outputs) {
    const out = existing(file);
    if (out === null) continue;
    for (const inp of inputs) {
      if (inp.kind !== 'directory') continue;
      let root: string;
      try {
        root = resolve(realpathSync(inp.path));
      } catch {
        continue;
      }
      if (!out.real.startsWith(root + sep)) continue;
      const rel = out.real.slice(root.length + 1).split(sep).join('/');
      const read = inp.artifacts.some((a) => (a.path === rel || a.path.startsWith(`${rel}/`) || a.path.startsWith(`${rel}:`)) && a.role !== 'other');
      if (read) throw new UsageError(`${option} ${file}: is an input of this run (${inp.path}): refusing to overwrite it`);
    }
  }
}

/** Whether a kubeconfig is at hand, without reading one: $KUBECONFIG is set, or ~/.kube/config exists (a stat only). */
export function kubeconfigAtHand(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env['KUBECONFIG'] ?? '') !== '') return true;
  try {
    return statSync(join(env['HOME'] ?? homedir(), '.kube', 'config')).isFile();
  } catch {
    return false;
  }
}
