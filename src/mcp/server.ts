// `plegscope mcp`: a Model Context Protocol server on stdio (the official SDK), for an assistant to run plegscope on
// evidence the user has put in the folders given by --root. Tools:
//   analyze  paths (files, folders, bundles) under a root → a short summary and the JSON contract (report/json.ts)
//   scan     only with `mcp --prometheus URL`: the fleet scan of that server (the client chooses the window only)
//   rules    the cause catalog, or one rule in full
// Arguments are validated against each tool's schema (zod, by the SDK): a bad one is an error result, a malformed
// request a JSON-RPC error; the server goes on either way. Paths go through roots.ts (nothing outside a root is read),
// stdin is never read, nothing is run in a shell, and each text handed back is bounded (cut with a note saying so).
// Analyses run one at a time: each may take hundreds of MB.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { analyze } from '../analyze.js';
import type { Analysis, FleetScan } from '../contract/analysis.js';
import { longestStallText, withCluster } from '../report/cluster.js';
import { renderJson } from '../report/json.js';
import { VERDICT, verdictKind } from '../report/words.js';
import { renderScanJson, renderScanText } from '../report/scan.js';
import { sanitize } from '../util/sanitize.js';
import { TOOL_VERSION } from '../version.js';
import { confine, type Root } from './roots.js';

export interface McpOptions {
  roots: Root[];
  /** Characters per text handed back (each of summary and JSON). */
  maxOutput: number;
  /** Throws (a message for the client) when a zone name is not one. */
  checkZone: (zone: string) => void;
  /** The catalog as text: all rules, or one (null: no such rule). */
  rulesText: (id?: string) => string | null;
  /** The fleet scan of the server's --prometheus, when it was given. */
  scan?: { url: string; run: (since?: string, until?: string) => Promise<FleetScan> };
}

type Text = { type: 'text'; text: string };

/** `text` cut to `max` characters, with a line saying what was left out and how to get all of it. */
export function bounded(text: string, max: number, whole: string): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… truncated: ${max} of ${text.length} characters shown; for all of it run ${whole}\n`;
}

/** A few lines per node: verdict, cause and confidence, stalls, the first findings; then the warnings' count. */
export function summary(a: Analysis): string {
  const out: string[] = [];
  for (const n of a.nodes) {
    const kind = verdictKind(n);
    const cause = n.verdict.primaryCause ? `; cause ${n.verdict.primaryCause} (confidence ${n.verdict.confidence.toFixed(2)})` : '';
    out.push(`${sanitize(n.name)}: ${VERDICT[kind]}${cause}`);
    if (n.stalls.length > 0) {
      out.push(`  ${n.stalls.length} stall(s), longest ${longestStallText(n)} without a relist; first: last relist ${n.stalls[0]!.lastRelistAt ?? '?'}, ended ${n.stalls[0]!.endedAt ?? 'not in the input'}`);
    }
    for (const f of n.findings.filter((x) => !x.considered).slice(0, 3)) out.push(`  [${f.severity}] ${sanitize(f.title)} (${f.ruleId}, ${f.confidence.toFixed(2)})`);
    if (n.gaps.length > 0) out.push(`  missing: ${n.gaps.map((g) => sanitize(g.missing)).join('; ')}`);
  }
  if (a.warnings.length > 0) out.push(`${a.warnings.length} warning(s) (see "warnings" in the JSON)`);
  return `${out.join('\n')}\n`;
}

/** One at a time (an analysis may take hundreds of MB). */
function serial(): <T>(job: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(job: () => Promise<T>): Promise<T> => {
    const run = tail.then(job, job);
    tail = run.catch(() => undefined);
    return run;
  };
}

export function buildServer(o: McpOptions): McpServer {
  const server = new McpServer({ name: 'plegscope', version: TOOL_VERSION }, {
    instructions: 'plegscope analyzes kubelet "PLEG is not healthy" incidents. Call analyze with paths (files, folders, support bundles) under the folders this server was started with; rules lists the causes it knows' + (o.scan ? '; scan lists the nodes whose PLEG stalled on its Prometheus.' : '.'),
  });
  const queue = serial();
  const text = (t: string): Text => ({ type: 'text', text: t });

  server.registerTool('analyze', {
    title: 'Analyze PLEG evidence',
    description: 'Analyze kubelet, runtime and kernel logs, /metrics snapshots, goroutine dumps, folders of them and support bundles (sosreport, must-gather, …; archives read in place) for "PLEG is not healthy" incidents. Returns a short summary (verdict, cause, stalls, findings per node) and the JSON report (plegscope\'s contract: stalls, findings with evidence lines, ruled-out causes, gaps with the commands that collect what is missing). Paths must lie under the server\'s --root folders; relative paths are taken from them.',
    inputSchema: {
      paths: z.array(z.string().min(1).max(4096)).min(1).max(64).describe('files or folders to analyze together, absolute or relative to a root'),
      tz: z.string().min(1).max(64).optional().describe('time zone of timestamps that carry none (IANA name, +hh:mm, UTC)'),
      year: z.number().int().min(1970).max(2200).optional().describe('year of year-less timestamps'),
      json: z.boolean().optional().describe('include the JSON report (default true)'),
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, async ({ paths, tz, year, json }) => {
    const real = paths.map((p) => confine(p, o.roots));
    if (tz !== undefined) o.checkZone(tz);
    const run = await queue(() => analyze({ paths: real, tz, year }));
    if (run.analysis.nodes.length === 0) {
      const first = run.analysis.warnings[0];
      throw new Error(`nothing to analyze in ${paths.join(' ')}: no kubelet, runtime or kernel log, metrics snapshot or goroutine dump recognised${first ? ` (first warning: ${first.file ? `${first.file}: ` : ''}${first.message})` : ''}`);
    }
    const a = withCluster(run.analysis);
    const whole = `"plegscope analyze ${paths.join(' ')} --format json -o report.json"`;
    const content: Text[] = [text(bounded(summary(a), o.maxOutput, `"plegscope analyze ${paths.join(' ')}"`))];
    if (json !== false) content.push(text(bounded(renderJson(a), o.maxOutput, whole)));
    return { content };
  });

  server.registerTool('rules', {
    title: 'PLEG cause catalog',
    description: 'The causes plegscope knows: one line per rule (id, cause, severity, what it explains, title), or with id one rule in full (what it reads, how its confidence moves, the remedy, references).',
    inputSchema: { id: z.string().min(1).max(200).optional().describe('a rule id from the list') },
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, async ({ id }) => {
    const out = o.rulesText(id);
    if (out === null) throw new Error(`no rule "${id}" (call rules without an id for the list)`);
    return { content: [text(bounded(out, o.maxOutput, id ? `"plegscope rules show ${id}"` : '"plegscope rules"'))] };
  });

  if (o.scan) {
    const scan = o.scan;
    server.registerTool('scan', {
      title: 'Fleet scan for PLEG stalls',
      description: `List every node whose PLEG went unhealthy in a window, from the Prometheus this server was started with (${scan.url}): ranked by longest stall, with each stall's start and end, relist p99, CRI errors and pods. Then analyze one node's causes with plegscope analyze --prometheus … --node NAME.`,
      inputSchema: {
        since: z.string().min(1).max(40).optional().describe('start: a duration back from now (7d, 6h, 90m) or an RFC 3339 time; default 7d'),
        until: z.string().min(1).max(40).optional().describe('end: a duration back from now or an RFC 3339 time; default now'),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    }, async ({ since, until }) => {
      const result = await queue(() => scan.run(since, until));
      return { content: [text(bounded(renderScanText(result, { color: false }), o.maxOutput, '"plegscope scan"')), text(bounded(renderScanJson(result), o.maxOutput, '"plegscope scan --format json"'))] };
    });
  }
  return server;
}

/** Serves on stdin/stdout until the client closes stdin. */
export async function serveStdio(o: McpOptions): Promise<void> {
  const server = buildServer(o);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
