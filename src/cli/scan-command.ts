// `plegscope scan --prometheus URL --since 7d`: every node whose PLEG went unhealthy in the window, ranked, from the
// fleet's metric store. Also the Prometheus options analyze and tui share, and --since/--until.
import { writeFileSync } from 'node:fs';
import { Option, type Command } from './commander.js';
import type { PrometheusClient, RunBudget } from '../sources/prometheus/client.js';
import { InputError } from '../sources/artifact.js';
import type { PrometheusAsk } from '../sources/prometheus/history.js';

import { UsageError } from './options.js';
import { isoTime } from '../util/instant.js';

export { UsageError };

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `7d`, `90m`, `1h30m` back from now, or an RFC 3339 time (`2024-03-11T10:00:00Z`, `2024-03-11T11:00:00+01:00`). */
export function parseWhen(v: string, nowMs: number, option: string): number {
  const d = /^(?:\d+(?:ms|[smhdw]))+$/.test(v) ? [...v.matchAll(/(\d+)(ms|[smhdw])/g)].reduce((t, m) => t + Number(m[1]) * UNITS[m[2]!]!, 0) : null;
  if (d !== null) return nowMs - d;
  if (/^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:\d\d)$/i.test(v)) {
    const t = Date.parse(v.replace(' ', 'T'));
    if (Number.isFinite(t)) return t;
  }
  throw new UsageError(`${option}: "${v}" is neither a duration back from now (7d, 6h, 90m) nor an RFC 3339 time (2024-03-11T10:00:00Z)`);
}

export interface PrometheusFlags {
  prometheus?: string;
  prometheusTokenFile?: string;
  prometheusHeader?: string[];
  prometheusCa?: string;
  prometheusInsecure?: boolean;
  prometheusTimeout?: number;
  node?: string[];
  since?: string;
  until?: string;
}

function collect(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}

function seconds(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || n > 3600) throw new UsageError(`--prometheus-timeout: "${v}" is not a number of seconds (1–3600)`);
  return n;
}

/** The options every command that reads a Prometheus takes. */
export function addPrometheusOptions(cmd: Command, o: { nodes: boolean; defaultSince: string }): Command {
  cmd
    .option('--prometheus <url>', 'read the kubelet metrics history from this Prometheus-compatible API (Prometheus, Thanos querier, Mimir, VictoriaMetrics)')
    .option('--prometheus-token-file <file>', 'bearer token for --prometheus, read from FILE (OpenShift: oc whoami -t > token)')
    .option('--prometheus-header <name=value>', 'extra HTTP header for --prometheus (repeatable), e.g. X-Scope-OrgID=tenant', collect)
    .option('--prometheus-ca <file>', 'CA certificate (PEM) the --prometheus server\'s certificate is signed by')
    .option('--prometheus-insecure', 'do not verify the --prometheus server\'s TLS certificate')
    .option('--prometheus-timeout <seconds>', 'per request to --prometheus (default 30)', seconds);
  if (o.nodes) cmd.option('--node <name>', 'with --prometheus: a node to read from it (repeatable; needed when no files are given)', collect);
  cmd
    .option('--since <when>', `with --prometheus: start of the window, a duration back from now (7d, 6h) or an RFC 3339 time (default ${o.defaultSince})`)
    .option('--until <when>', 'with --prometheus: end of the window (default now)');
  return cmd;
}

// The client, the fleet scan and its report load only when --prometheus is given: start-up counts on every run.
export async function prometheusClient(flags: PrometheusFlags, budget?: Partial<RunBudget>): Promise<PrometheusClient> {
  const { PrometheusClient, PrometheusError } = await import('../sources/prometheus/client.js');
  try {
    return new PrometheusClient({
      url: flags.prometheus!, tokenFile: flags.prometheusTokenFile, headers: flags.prometheusHeader, ca: flags.prometheusCa,
      insecure: flags.prometheusInsecure, timeoutMs: flags.prometheusTimeout !== undefined ? flags.prometheusTimeout * 1000 : undefined,
      ...(budget ? { budget } : {}),
    });
  } catch (e) {
    if (e instanceof PrometheusError) throw new UsageError(e.message);
    throw e;
  }
}

export function windowOf(flags: PrometheusFlags, defaultSince: string, nowMs = Date.now()): { sinceMs: number; untilMs: number } {
  const untilMs = flags.until ? parseWhen(flags.until, nowMs, '--until') : nowMs;
  const sinceMs = parseWhen(flags.since ?? defaultSince, nowMs, '--since');
  if (sinceMs >= untilMs) throw new UsageError(`--since (${isoTime(sinceMs)}) is not before --until (${isoTime(untilMs)})`);
  return { sinceMs, untilMs };
}

/** What analyze and tui hand to analyze(): undefined without --prometheus; usage errors for options that need it. */
export async function prometheusAsk(flags: PrometheusFlags, paths: string[]): Promise<PrometheusAsk | undefined> {
  const needs = ['prometheusTokenFile', 'prometheusHeader', 'prometheusCa', 'prometheusInsecure', 'prometheusTimeout', 'node', 'since', 'until'] as const;
  if (!flags.prometheus) {
    const stray = needs.find((k) => flags[k] !== undefined);
    if (stray) throw new UsageError(`--${stray.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} goes with --prometheus URL`);
    if (paths.length === 0) throw new UsageError('nothing to analyze: give files or folders, or --prometheus URL --node NAME');
    return undefined;
  }
  if (paths.length === 0 && !(flags.node && flags.node.length > 0)) {
    throw new UsageError('--prometheus without files needs --node NAME (or use "plegscope scan --prometheus URL" for the whole fleet)');
  }
  return { client: await prometheusClient(flags), nodes: flags.node, ...windowOf(flags, ANALYZE_SINCE) };
}

export const ANALYZE_SINCE = '6h';
/** scan's default budget: a fleet of thousands of flagged kubelets is read in part, with a warning, not for hours. */
const SCAN_MAX_REQUESTS = 2000;
const SCAN_TIMEOUT_MS = 10 * 60_000;
/** Points kept over a scan's answers (each stretch's are modelled and let go; the flat pass's are two numbers each). */
const SCAN_MAX_POINTS = 5_000_000;
/** A scan's budget by default (the CLI's options change the first two; the MCP server's scans use it as it is). */
export const SCAN_BUDGET: Partial<RunBudget> = {
  maxRequests: SCAN_MAX_REQUESTS, requestsOption: 'the bound on requests per scan', timeoutMs: SCAN_TIMEOUT_MS, timeoutOption: 'the bound on time per scan', maxPoints: SCAN_MAX_POINTS,
};

function count(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000) throw new UsageError(`--max-requests: "${v}" is not a number of requests (1–1000000)`);
  return n;
}

function duration(v: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(v);
  const ms = m ? Number(m[1]) * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? 's'] as number) : NaN;
  if (!(ms >= 1000 && ms <= 24 * 3_600_000)) throw new UsageError(`--timeout: "${v}" is not a duration between 1s and 24h (90s, 10m)`);
  return ms;
}
const SCAN_SINCE = '7d';

interface ScanFlags extends PrometheusFlags {
  maxRequests: number;
  timeout: number;
  format: 'text' | 'json';
  output?: string;
  color?: boolean;
  failOnStall?: boolean;
}

export function registerScan(program: Command): Command {
  const cmd = program
    .command('scan')
    .description('list every node whose PLEG went unhealthy in a window, from the fleet\'s Prometheus: ranked, with start, end, longest stall, relist p99, CRI errors and pods')
    .addOption(new Option('-f, --format <format>', 'text or json').choices(['text', 'json']).default('text'))
    .option('-o, --output <file>', 'write the list to FILE instead of stdout')
    .option('--fail-on-stall', 'exit 1 when a node stalled in the window')
    .option('--max-requests <n>', 'ask the server at most N times in the whole scan; past it the scan stops early and says what it did not read', count, SCAN_MAX_REQUESTS)
    .option('--timeout <duration>', 'the whole scan within this time (90s, 10m); past it the scan stops early and says so', duration, SCAN_TIMEOUT_MS)
    .option('--no-color', 'no colours (also: NO_COLOR=1)');
  addPrometheusOptions(cmd, { nodes: false, defaultSince: SCAN_SINCE });
  cmd.addHelpText('after', `
Examples:
  plegscope scan --prometheus http://prometheus.monitoring:9090 --since 7d
  plegscope scan --prometheus https://thanos-querier-openshift-monitoring.apps.example.com --prometheus-token-file token --since 24h --format json
  plegscope scan --prometheus URL --since 2024-03-11T00:00:00Z --until 2024-03-12T00:00:00Z

Then: plegscope analyze --prometheus URL --node NAME --since … --until … for one node's causes.
Exit codes: 0 done, 1 --fail-on-stall and a node stalled, 2 unusable server or usage error.`);
  cmd.action(async (flags: ScanFlags) => {
    if (!flags.prometheus) throw new UsageError('scan needs --prometheus URL');
    const client = await prometheusClient(flags, { ...SCAN_BUDGET, maxRequests: flags.maxRequests, requestsOption: '--max-requests', timeoutMs: flags.timeout, timeoutOption: '--timeout' });
    const { sinceMs, untilMs } = windowOf(flags, SCAN_SINCE);
    const [{ PrometheusError }, { scanFleet }, { renderScanJson, renderScanText }] = await Promise.all([
      import('../sources/prometheus/client.js'), import('../sources/prometheus/scan.js'), import('../report/scan.js'),
    ]);
    let result;
    try {
      result = await scanFleet(client, sinceMs, untilMs);
    } catch (e) {
      if (e instanceof PrometheusError) throw new InputError(e.where, e.message);
      throw e;
    }
    const color = !flags.output && flags.color !== false && !(process.env['NO_COLOR'] !== undefined && process.env['NO_COLOR'] !== '') && process.stdout.isTTY === true;
    const text = flags.format === 'json' ? renderScanJson(result) : renderScanText(result, { color });
    if (flags.output) writeFileSync(flags.output, text);
    else process.stdout.write(text);
    process.exitCode = flags.failOnStall && result.nodes.length > 0 ? 1 : 0;
  });
  return cmd;
}
