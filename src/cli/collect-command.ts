// `plegscope collect NODE…`: a node's evidence through the API server (src/sources/cluster), written to DIR, then the
// analysis of DIR — one command from symptom to cause. The cluster code is loaded only by this command (start-up time
// counts on every run of analyze).
import { Option, type Command } from './commander.js';
import { SEVERITIES } from '../contract/analysis.js';
import { checkZone, DISPLAY_TZ_HELP, parseEvidence, TZ_HELP, UsageError } from './options.js';
import type { AnalyzeFlags } from './flags.js';
import { InputError } from '../sources/artifact.js';
import { sanitizeLine } from '../util/sanitize.js';

export interface ClusterFlags {
  kubeconfig?: string;
  context?: string;
}

interface CollectFlags extends ClusterFlags {
  since: string;
  interval: string;
  output?: string;
  format: AnalyzeFlags['format'];
  report?: string;
  failOn?: string;
  tz?: string;
  displayTz?: string;
  redact?: boolean;
  redactMap?: string;
  rules?: string;
  evidence?: number;
  color?: boolean;
  debug?: boolean;
}

/** `--since`: a duration back from the API server's clock (`90m`, `6h`, `2d`, `1h30m`) or an RFC 3339 time. */
export function parseSince(v: string): { agoMs: number } | { at: number } {
  const d = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(v);
  if (d && v !== '') {
    const ms = ((Number(d[1] ?? 0) * 24 + Number(d[2] ?? 0)) * 60 + Number(d[3] ?? 0)) * 60_000 + Number(d[4] ?? 0) * 1000;
    if (ms > 0) return { agoMs: ms };
  }
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/.test(v) && Number.isFinite(Date.parse(v))) return { at: Date.parse(v) };
  throw new UsageError(`--since: "${v}" is neither a duration (90m, 6h, 2d) nor a time (2024-03-11T09:00:00Z)`);
}

export function parseInterval(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || n > 3600) throw new UsageError(`--interval: "${v}" is not a number of seconds (0 to 3600)`);
  return n;
}

const RE_NODE = /^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/;

export function checkNodes(nodes: string[]): void {
  for (const n of nodes) if (!RE_NODE.test(n)) throw new UsageError(`"${n}" is not a node name (lower-case letters, digits, "-" and ".")`);
}

/** Where a collection goes by default: ./plegscope-<UTC time>/ */
export function defaultDir(now = new Date()): string {
  return `plegscope-${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}`;
}

export function addClusterOptions(cmd: Command): Command {
  return cmd
    .option('--kubeconfig <file>', 'kubeconfig to use (default: $KUBECONFIG, several files joined by ":", else ~/.kube/config; in a pod: its service account)')
    .option('--context <name>', 'kubeconfig context (default: its current-context)');
}

/** Collects into `dir` (lazily loaded cluster code); prints one line per step on stderr. Node not found: exit 2. */
export async function collectInto(nodes: string[], dir: string, flags: ClusterFlags & { since?: string; interval?: string }, say: (l: string) => void): Promise<void> {
  const since = parseSince(flags.since ?? '24h');
  const intervalSeconds = parseInterval(flags.interval ?? '30');
  const [{ resolveAccess }, { KubeClient, ClusterError }, { collect, NodeNotFound }] = await Promise.all([
    import('../sources/cluster/kubeconfig.js'), import('../sources/cluster/client.js'), import('../sources/cluster/collect.js'),
  ]);
  const access = resolveAccess({ kubeconfig: flags.kubeconfig, context: flags.context });
  const client = new KubeClient(access);
  const stop = new AbortController();
  try {
    const m = await collect({ client, nodes, dir, since, intervalSeconds, say, signal: stop.signal, context: access.context });
    for (const n of m.nodes) say(`${n.name}: ${n.files.length} files written to ${dir}/${n.dir}${n.refusals.length ? `; not collected: ${n.refusals.map((r) => r.what).join(', ')}` : ''}`);
  } catch (err) {
    // One line, exit 2: no such node, or no answer from the API server at all.
    if (err instanceof NodeNotFound) throw new InputError(`node/${err.node}`, `no such node in context "${access.context}" (${client.server}): ${err.detail}`);
    if (err instanceof ClusterError) throw new InputError(client.server, err.message);
    throw err;
  } finally {
    client.close();
  }
}

export function registerCollect(program: Command, runAnalyze: (paths: string[], flags: AnalyzeFlags) => Promise<number>): Command {
  const cmd = program
    .command('collect')
    .description('collect nodes\' evidence through the API server (no pod on the node), write it to a folder, and print its analysis')
    .argument('<nodes...>', 'node names');
  addClusterOptions(cmd)
    .option('--since <duration|time>', 'logs from this long ago (90m, 6h, 2d) or this time (RFC 3339)', '24h')
    .option('--interval <seconds>', 'seconds between the two /metrics snapshots', '30')
    .option('-o, --output <dir>', 'folder to write (default: ./plegscope-<UTC time>/)')
    .addOption(new Option('-f, --format <format>', 'report format: text, json, markdown, junit, html').choices(['text', 'json', 'markdown', 'junit', 'html']).default('text'))
    .option('--report <file>', 'write the report to FILE instead of stdout')
    .addOption(new Option('--fail-on <level>', 'exit 1 when a node stalled (stall), or when a finding is at or above this severity').choices([...SEVERITIES, 'stall']))
    .option('--tz <zone>', `${TZ_HELP} (the log query's output is UTC; /var/log files are in the node's zone)`)
    .option('--display-tz <zone>', DISPLAY_TZ_HELP)
    .option('--redact', 'replace names, IPs and IDs with pseudonyms in the report (the collected files are kept as fetched)')
    .option('--redact-map <file>', 'with --redact: write the mapping to FILE')
    .option('--rules <file>', 'add a rule pack')
    .option('--evidence <all|N>', 'text report: evidence lines per finding (default 3)', parseEvidence)
    .option('--no-color', 'no colours (also: NO_COLOR=1)')
    .option('--debug', 'print stack traces on errors')
    .addHelpText('after', `
Sent: GET requests only, to the API server of the kubeconfig's context: the Node, its events, the pods bound to it,
and through the node proxy the kubelet's /metrics (twice, --interval apart), /debug/pprof/goroutine?debug=2,
/healthz?verbose, /configz and its logs (/logs/?query=kubelet&sinceTime=…, else the /logs/ file server).
Needs: get nodes, get nodes/proxy, list events, list pods (README "From a live cluster" has a ClusterRole).

Examples:
  plegscope collect worker-3
  plegscope collect worker-3 worker-7 --context prod --since 6h -o incident-42/
  plegscope collect worker-3 --format json --report pleg.json --fail-on high

Exit codes: 0 analyzed, 1 --fail-on matched, 2 no such node, no access, or usage error.`)
    .action(async (nodes: string[], flags: CollectFlags) => {
      checkNodes(nodes);
      parseSince(flags.since);
      parseInterval(flags.interval);
      if (flags.tz !== undefined) checkZone(flags.tz);
      if (flags.redactMap && !flags.redact) throw new UsageError('--redact-map FILE goes with --redact');
      const dir = flags.output ?? defaultDir();
      await collectInto(nodes, dir, flags, (l) => process.stderr.write(`plegscope: ${sanitizeLine(l, 2000)}\n`));
      process.exitCode = await runAnalyze([dir], {
        format: flags.format, output: flags.report, failOn: flags.failOn, tz: flags.tz, displayTz: flags.displayTz, redact: flags.redact,
        redactMap: flags.redactMap, rules: flags.rules, evidence: flags.evidence, color: flags.color, debug: flags.debug,
      } as AnalyzeFlags);
    });
  return cmd;
}
