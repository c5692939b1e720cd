// Option values shared by `analyze` and `tui`: checked before anything is read, each mistake one line (exit 2).
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
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

/** Whether a kubeconfig is at hand, without reading one: $KUBECONFIG is set, or ~/.kube/config exists (a stat only). */
export function kubeconfigAtHand(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env['KUBECONFIG'] ?? '') !== '') return true;
  try {
    return statSync(join(env['HOME'] ?? homedir(), '.kube', 'config')).isFile();
  } catch {
    return false;
  }
}
