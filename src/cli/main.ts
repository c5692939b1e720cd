// Command line: commands, options, exit codes (design.md §6): 0 analyzed, 1 `--fail-on` matched, 2 unusable input or
// usage. Errors are one line naming the file and the problem; a stack trace only with --debug.
import { Command, CommanderError, Option } from './commander.js';
import { writeFileSync } from 'node:fs';
import { analyze } from '../analyze.js';
import type { Analysis, Severity } from '../contract/analysis.js';
import { SEVERITIES } from '../contract/analysis.js';
import { InputError } from '../input/artifact.js';
import { resolveZone } from '../parse/time.js';
import { renderJson } from '../report/json.js';
import { renderText } from '../report/text.js';
import type { Evaluated } from '../report/junit.js';
import { renderClusterText, withCluster } from '../report/cluster.js';
import { BUILTIN_RULES } from '../rules/catalog.js';
import { TOOL_VERSION } from '../version.js';
import { registerTui } from './tui-command.js';
import { addPrometheusOptions, ANALYZE_SINCE, prometheusAsk, registerScan, UsageError, type PrometheusFlags } from './scan-command.js';
import type { LoadedPack } from '../rules/pack.js';
import { readSmallTextFile } from '../input/text-file.js';

export function failOnTriggered(analysis: Analysis, failOn: string | undefined): boolean {
  if (!failOn) return false;
  if (failOn === 'stall') return analysis.nodes.some((n) => n.stalls.length > 0);
  const limit = SEVERITIES.indexOf(failOn as Severity);
  return analysis.nodes.some((n) => n.findings.some((f) => SEVERITIES.indexOf(f.severity) <= limit));
}

function useColor(flag: boolean | undefined): boolean {
  if (flag === false) return false;
  if (process.env['NO_COLOR'] !== undefined && process.env['NO_COLOR'] !== '') return false;
  if (process.env['FORCE_COLOR'] && process.env['FORCE_COLOR'] !== '0') return true;
  return process.stdout.isTTY === true;
}

interface AnalyzeFlags extends PrometheusFlags {
  format: 'text' | 'json' | 'markdown' | 'junit' | 'html';
  output?: string;
  year?: number;
  tz?: string;
  failOn?: string;
  color?: boolean;
  debug?: boolean;
  prefilter?: boolean;
  rules?: string;
  redact?: boolean;
  redactMap?: string;
}

// What only some runs need is loaded when asked for (rule packs, redaction, the rules listing, renderers): start-up
// time counts on every run.
async function readPack(file: string): Promise<LoadedPack> {
  const text = readSmallTextFile(file);
  const { loadRulePack, RulePackError } = await import('../rules/pack.js');
  try {
    return loadRulePack(text, file);
  } catch (err) {
    if (err instanceof RulePackError) throw new InputError(file, err.message);
    throw err;
  }
}

function parseYear(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1970 || n > 2200) throw new UsageError(`--year: "${v}" is not a year`);
  return n;
}

async function runAnalyze(paths: string[], flags: AnalyzeFlags): Promise<number> {
  try {
    if (flags.tz !== undefined) resolveZone(flags.tz);
  } catch {
    throw new UsageError(`--tz: unknown time zone "${flags.tz}" (use an IANA name like Europe/Berlin, or +02:00, or UTC)`);
  }
  if (flags.redactMap && !flags.redact) throw new UsageError('--redact-map FILE goes with --redact');
  const pack = flags.rules ? await readPack(flags.rules) : null;
  const prometheus = await prometheusAsk(flags, paths);
  const showProgress = process.stderr.isTTY === true && !flags.output?.startsWith('/dev/');
  const run = await analyze({
    paths,
    rules: pack ? (await import('../rules/pack.js')).mergeRules(BUILTIN_RULES, pack.pack) : undefined,
    customSignals: pack?.signals,
    year: flags.year,
    tz: flags.tz,
    noPrefilter: flags.prefilter === false,
    prometheus,
    onProgress: showProgress ? ({ file, index, total }) => {
      process.stderr.write(`\r\x1b[2Kreading ${index + 1}/${total} ${file.length > 60 ? '…' + file.slice(-59) : file}`);
    } : undefined,
  });
  if (showProgress) process.stderr.write('\r\x1b[2K');
  if (run.analysis.nodes.length === 0) {
    const first = run.analysis.warnings[0];
    throw new InputError(paths.join(' ') || (flags.prometheus ?? ''), `nothing to analyze: no kubelet, runtime or kernel log, metrics snapshot or goroutine dump recognised${first ? ` (${run.analysis.warnings.length} warning(s); first: ${first.file ? first.file + ': ' : ''}${first.message})` : ''}`);
  }
  // Several nodes: the cluster summary comes first, in every format. Redaction rewrites the Analysis itself, before
  // any renderer, so no format can leak what another hides.
  let a = withCluster(run.analysis);
  let evaluated: Evaluated = run.evaluated;
  if (flags.redact) {
    const { redact, rekeyByNode, renderRedactionMap } = await import('../report/redact.js');
    const r = redact(a);
    evaluated = rekeyByNode(a, r.analysis, evaluated);
    a = r.analysis;
    if (flags.redactMap) writeFileSync(flags.redactMap, renderRedactionMap(r.mapping));
  }
  const zone = flags.tz ?? 'UTC';
  let text: string;
  switch (flags.format) {
    case 'json': text = renderJson(a); break;
    // The other renderers are loaded when asked for: start-up time counts on every run.
    case 'markdown': text = (await import('../report/markdown.js')).renderMarkdown(a, { zone }); break;
    case 'junit': text = (await import('../report/junit.js')).renderJunit(a, evaluated, { failOn: flags.failOn, zone }); break;
    case 'html': text = (await import('../report/html.js')).renderHtml(a, { zone }); break;
    default: {
      const color = !flags.output && useColor(flags.color);
      const body = renderText(a, { color, zone, width: process.stdout.columns ?? 100 });
      const cluster = renderClusterText(a, { color, zone });
      // The cluster block goes right after the one-line header.
      const nl = body.indexOf('\n');
      text = cluster ? `${body.slice(0, nl + 1)}\n${cluster}${body.slice(nl + 1)}` : body;
    }
  }
  if (flags.output) writeFileSync(flags.output, text);
  else process.stdout.write(text);
  return failOnTriggered(a, flags.failOn) ? 1 : 0;
}

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('plegscope')
    .description('Why did PLEG stall? Reads kubelet journals, runtime and kernel logs and kubelet /metrics snapshots, rebuilds the relist timeline and names the cause, citing the lines it rests on.')
    .version(TOOL_VERSION, '-V, --version')
    .showHelpAfterError('(run "plegscope --help" for usage)')
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    // Set before the subcommands are made: they inherit it, so usage errors reach main() and become exit 2.
    .exitOverride();

  const analyzeCmd = program
    .command('analyze')
    .description('analyze files, folders or - (stdin), and/or a Prometheus history, and print the report')
    .argument('[paths...]', 'kubelet/runtime/kernel logs, metrics snapshots, folders of them, .gz/.xz files, or - for stdin')
    .addOption(new Option('-f, --format <format>', 'report format: text, json (the contract), markdown (CI summaries, tickets), junit (CI test results), html (one self-contained page)').choices(['text', 'json', 'markdown', 'junit', 'html']).default('text'))
    .option('-o, --output <file>', 'write the report to FILE instead of stdout')
    .option('--year <year>', 'year of year-less timestamps (journal short, klog headers); default: from headers or file dates', parseYear)
    .option('--tz <zone>', 'time zone of zone-less timestamps and of displayed times (IANA name, +hh:mm, UTC); default: the zone a bundle records, else UTC')
    .addOption(new Option('--fail-on <level>', 'exit 1 when a finding at or above this severity exists (or any stall)').choices([...SEVERITIES, 'stall']))
    .option('--redact', 'replace node/host names, IPs, pod and namespace names, UIDs and container IDs with consistent pseudonyms, in every format')
    .option('--redact-map <file>', 'with --redact: write the pseudonym → original mapping to FILE (keep it apart from the report)')
    .option('--rules <file>', 'add a rule pack (YAML or JSON; see README "Rule packs"); its rules join the built-in catalog')
    .option('--no-color', 'no colours (also: NO_COLOR=1)')
    .option('--debug', 'print stack traces on errors')
    .addOption(new Option('--no-prefilter', 'parse every line (slow; for checking the fast path)').hideHelp());
  addPrometheusOptions(analyzeCmd, { nodes: true, defaultSince: ANALYZE_SINCE });
  analyzeCmd
    .addHelpText('after', `
Examples:
  plegscope analyze /var/tmp/kubelet.log                       one journal (journalctl -u kubelet > kubelet.log)
  plegscope analyze node3/ --tz Europe/Berlin                    a folder: logs, metrics, dmesg, goroutine dumps
  journalctl -u kubelet -o short-iso | plegscope analyze -       from stdin
  plegscope analyze logs/ --format json -o report.json --fail-on high
  plegscope analyze mg.tar.gz --format junit -o pleg.xml --fail-on high   CI test results
  plegscope analyze sosreport.tar.xz --format html -o pleg.html --redact  a page to attach to a ticket
  plegscope analyze kubelet.log --prometheus http://prometheus:9090        the node's metrics history around each stall
  plegscope analyze --prometheus URL --node worker-3 --since 2024-03-11T09:00:00Z --until 2024-03-11T12:00:00Z

Exit codes: 0 analyzed, 1 --fail-on matched, 2 unusable input or usage error.`)
    .action(async (paths: string[], flags: AnalyzeFlags) => {
      process.exitCode = await runAnalyze(paths, flags);
    });

  const rules = program.command('rules').description('show the cause catalog (built-in rules, plus a pack with --rules)');
  const catalog = async (file?: string) => (file ? (await import('../rules/pack.js')).mergeRules(BUILTIN_RULES, (await readPack(file)).pack) : BUILTIN_RULES);
  rules.command('list').description('one line per rule').option('--rules <file>', 'include a rule pack').action(async (o: { rules?: string }) => {
    const { rulesList } = await import('./rules-command.js');
    process.stdout.write(rulesList(await catalog(o.rules)));
  });
  rules.command('show').description('a rule in full: what it reads, how confidence moves, the remedy').argument('<id>').option('--rules <file>', 'include a rule pack').action(async (id: string, o: { rules?: string }) => {
    const { rulesShow } = await import('./rules-command.js');
    const out = rulesShow(await catalog(o.rules), id);
    if (out === null) throw new UsageError(`rules show: no rule "${id}" (see "plegscope rules list")`);
    process.stdout.write(out);
  });
  registerTui(program);
  registerScan(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  const debug = argv.includes('--debug');
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0; usage mistakes are exit 2 (commander printed the message).
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    if (err instanceof InputError) {
      process.stderr.write(`plegscope: ${err.path}: ${err.message}\n`);
    } else if (err instanceof UsageError) {
      process.stderr.write(`plegscope: ${err.message}\n`);
    } else {
      const e = err as NodeJS.ErrnoException;
      process.stderr.write(`plegscope: ${e.path ? e.path + ': ' : ''}${e.message ?? String(err)}${debug ? '' : ' (run with --debug for details)'}\n`);
    }
    if (debug && err instanceof Error && err.stack) process.stderr.write(err.stack + '\n');
    process.exitCode = 2;
  }
}
