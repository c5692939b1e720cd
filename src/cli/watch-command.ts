// `plegscope watch`: catch the next stall before the node is repaired or replaced. Watches nodes (src/sources/cluster/
// watch.ts); a node whose Ready condition turns False/Unknown with a PLEG message is collected into DIR/<node>-<UTC time>/
// with its analysis beside it (report.json, report.md), and one line per capture is printed. SIGINT/SIGTERM: exit 0.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from './commander.js';
import { addClusterOptions, collectInto, defaultDir, parseInterval, type ClusterFlags } from './collect-command.js';
import { UsageError } from './options.js';
import { sanitizeLine } from '../util/sanitize.js';

interface WatchFlags extends ClusterFlags {
  selector?: string;
  interval: string;
  since: string;
  output?: string;
  cooldown: string;
  maxConcurrent: string;
  maxDisk: string;
  relistEvery: string;
}

function positive(v: string, what: string, max: number): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || n > max) throw new UsageError(`${what}: "${v}" is not a number from 1 to ${max}`);
  return n;
}

function bytesUnder(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) n += bytesUnder(p);
    else if (e.isFile()) n += statSync(p).size;
  }
  return n;
}

export function registerWatch(program: Command): Command {
  const cmd = program
    .command('watch')
    .description('watch nodes; when one turns NotReady with a PLEG message, collect and analyze it at once (before auto-repair replaces it)');
  addClusterOptions(cmd)
    .option('--selector <labels>', 'only nodes with these labels (e.g. node-role.kubernetes.io/worker=)')
    .option('--interval <seconds>', 'seconds between the two /metrics snapshots of a capture', '30')
    .option('--since <duration>', 'logs of a capture from this long ago', '2h')
    .option('-o, --output <dir>', 'folder for the captures (default: ./plegscope-<UTC time>/)')
    .option('--cooldown <minutes>', 'one capture per node per this many minutes', '30')
    .option('--max-concurrent <n>', 'captures running at once', '2')
    .option('--max-disk <MiB>', 'stop capturing once the captures use this much', '2048')
    .option('--relist-every <seconds>', 'also read each node\'s /metrics this often and capture a node whose relist stopped advancing (kubelet_pleg_last_seen_seconds unchanged); 0: off', '0')
    .addHelpText('after', `
One line per capture on stdout: node, time (UTC), verdict, cause, folder. Each folder holds what was collected, its
manifest (collected.json) and the analysis (report.json, report.md). Runs until SIGINT or SIGTERM (exit 0).
In a cluster: deploy/watch.yaml (a ServiceAccount, the minimal ClusterRole, a Deployment with a volume).`)
    .action(async (flags: WatchFlags) => {
      const interval = parseInterval(flags.interval);
      const cooldownMs = positive(flags.cooldown, '--cooldown', 7 * 24 * 60) * 60_000;
      const maxConcurrent = positive(flags.maxConcurrent, '--max-concurrent', 16);
      const maxDiskBytes = positive(flags.maxDisk, '--max-disk', 1024 * 1024) * 1024 * 1024;
      const relistEveryMs = flags.relistEvery === '0' ? 0 : positive(flags.relistEvery, '--relist-every', 3600) * 1000;
      const out = flags.output ?? defaultDir();
      const [{ resolveAccess }, { KubeClient }, { watchNodes }, { analyze }, { renderJson }, { renderMarkdown }, { withCluster }] = await Promise.all([
        import('../sources/cluster/kubeconfig.js'), import('../sources/cluster/client.js'), import('../sources/cluster/watch.js'),
        import('../analyze.js'), import('../report/json.js'), import('../report/markdown.js'), import('../report/cluster.js'),
      ]);
      const { writeOutputFile } = await import('../sources/text-file.js');
      const access = resolveAccess({ kubeconfig: flags.kubeconfig, context: flags.context });
      const client = new KubeClient(access);
      const stop = new AbortController();
      const end = () => stop.abort();
      process.once('SIGINT', end);
      process.once('SIGTERM', end);
      const say = (l: string) => process.stderr.write(`plegscope: ${sanitizeLine(l, 2000)}\n`);
      say(`watching nodes${flags.selector ? ` (${flags.selector})` : ''} of ${client.server}; captures go to ${out}/`);
      try {
        await watchNodes({
          client, selector: flags.selector, signal: stop.signal, cooldownMs, maxConcurrent, maxDiskBytes, relistEveryMs, say,
          capture: async (node, why) => {
            const at = new Date();
            const dir = join(out, `${node}-${defaultDir(at).slice('plegscope-'.length)}`);
            say(`${node}: ${why}; collecting into ${dir}`);
            await collectInto([node], dir, { ...flags, since: flags.since, interval: String(interval) }, say);
            const run = await analyze({ paths: [dir] });
            const a = withCluster(run.analysis);
            writeOutputFile(join(dir, 'report.json'), renderJson(a));
            writeOutputFile(join(dir, 'report.md'), renderMarkdown(a, { zone: 'UTC' }));
            const n = a.nodes.find((x) => x.name === node) ?? a.nodes[0];
            const verdict = n ? (n.verdict.plegUnhealthy ? 'PLEG unhealthy' : `PLEG ${n.verdict.plegState}`) : 'no node in the evidence';
            process.stdout.write(`${sanitizeLine([node, at.toISOString().replace(/\.\d+Z$/, 'Z'), verdict, n?.verdict.primaryCause ?? '-', dir].join('\t'), 4000)}\n`);
            return bytesUnder(dir);
          },
        });
      } finally {
        process.off('SIGINT', end);
        process.off('SIGTERM', end);
        client.close();
      }
      process.exitCode = 0;
    });
  return cmd;
}
