// `plegscope mcp --root DIR …`: the Model Context Protocol server on stdio (src/mcp/server.ts). stdout belongs to the
// protocol from the first byte: usage errors are caught before the server starts (one line on stderr, exit 2), and
// nothing else is printed. With --prometheus URL (and its connection options) the `scan` tool asks that server; the
// client only chooses the window.
import type { Command } from './commander.js';
import { UsageError, checkZone } from './options.js';
import { prometheusClient, SCAN_BUDGET, windowOf, type PrometheusFlags } from './scan-command.js';
import { BUILTIN_RULES } from '../rules/catalog.js';

interface McpFlags {
  root?: string[];
  maxOutput: number;
  prometheus?: string;
  prometheusTokenFile?: string;
  prometheusHeader?: string[];
  prometheusCa?: string;
  prometheusInsecure?: boolean;
}

const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

function chars(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1000 || n > 50_000_000) throw new UsageError(`--max-output: "${v}" is not a number of characters (1000–50000000)`);
  return n;
}

export function registerMcp(program: Command): Command {
  const cmd = program
    .command('mcp')
    .description('serve plegscope\'s tools (analyze, rules; scan with --prometheus) to an MCP client (Claude Desktop, VS Code, …) over stdio; only files under --root are read')
    .option('--root <dir>', 'a folder the tools may read (repeatable; required): paths outside every root, by name or through a symlink, are refused', collect)
    .option('--max-output <chars>', 'characters per text a tool returns (the summary, the JSON report); longer ones are cut with a note (default 400000)', chars, 400_000)
    .option('--prometheus <url>', 'offer the scan tool, asking this Prometheus-compatible API (the client chooses the window only)')
    .option('--prometheus-token-file <file>', 'bearer token for --prometheus, read from FILE')
    .option('--prometheus-header <name=value>', 'extra HTTP header for --prometheus (repeatable)', collect)
    .option('--prometheus-ca <file>', 'CA certificate (PEM) for --prometheus')
    .option('--prometheus-insecure', 'do not verify the --prometheus server\'s TLS certificate');
  cmd.addHelpText('after', `
Examples:
  plegscope mcp --root ~/incidents
  plegscope mcp --root /srv/support-bundles --root /var/tmp/pleg --prometheus http://prometheus.monitoring:9090

MCP client configuration (Claude Desktop's claude_desktop_config.json "mcpServers", VS Code's .vscode/mcp.json "servers"):
  "plegscope": { "command": "plegscope", "args": ["mcp", "--root", "/path/to/incidents"] }`);
  cmd.action(async (flags: McpFlags) => {
    const { makeRoots, RootError } = await import('../mcp/roots.js');
    let roots;
    try {
      roots = makeRoots(flags.root ?? []);
    } catch (e) {
      if (e instanceof RootError) throw new UsageError(e.message);
      throw e;
    }
    const stray = (['prometheusTokenFile', 'prometheusHeader', 'prometheusCa', 'prometheusInsecure'] as const).find((k) => flags[k] !== undefined);
    if (!flags.prometheus && stray) throw new UsageError(`--${stray.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} goes with --prometheus URL`);
    const pflags: PrometheusFlags = { prometheus: flags.prometheus, prometheusTokenFile: flags.prometheusTokenFile, prometheusHeader: flags.prometheusHeader, prometheusCa: flags.prometheusCa, prometheusInsecure: flags.prometheusInsecure };
    const client = flags.prometheus ? await prometheusClient(pflags) : null;
    const [{ serveStdio }, { rulesList, rulesShow }] = await Promise.all([import('../mcp/server.js'), import('./rules-command.js')]);
    await serveStdio({
      roots,
      maxOutput: flags.maxOutput,
      checkZone: (z) => checkZone(z),
      rulesText: (id) => (id === undefined ? rulesList(BUILTIN_RULES, 100) : rulesShow(BUILTIN_RULES, id)),
      ...(client ? {
        scan: {
          url: client.display,
          run: async (since?: string, until?: string) => {
            const { sinceMs, untilMs } = windowOf({ since, until }, '7d');
            const [{ scanFleet }, { PrometheusError }] = await Promise.all([import('../sources/prometheus/scan.js'), import('../sources/prometheus/client.js')]);
            try {
              return await scanFleet(client.forRun(SCAN_BUDGET), sinceMs, untilMs);
            } catch (e) {
              // One line a person can act on, naming the server (as the CLI prints it): the tool's error text.
              if (e instanceof PrometheusError) throw new Error(`${e.where}: ${e.message}`);
              throw e;
            }
          },
        },
      } : {}),
    });
  });
  return cmd;
}
