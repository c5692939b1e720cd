// Command line: commands, options, exit codes (design.md §6): 0 analyzed, 1 `--fail-on` matched, 2 unusable input or
// usage. Errors are one line naming the file and the problem; a stack trace only with --debug.
import { Command, CommanderError, Option } from './commander.js';
import { analyze } from '../analyze.js';
import { SEVERITIES } from '../contract/analysis.js';
import { InputError } from '../sources/artifact.js';
import { renderJson } from '../report/json.js';
import { renderText } from '../report/text.js';
import { failOnTriggered } from '../report/policy.js';
import type { Evaluated } from '../report/junit.js';
import { withCluster } from '../report/cluster.js';
import { BUILTIN_RULES } from '../rules/catalog.js';
import { TOOL_VERSION } from '../version.js';
import { registerTui } from './tui-command.js';
import { registerCollect } from './collect-command.js';
import { registerWatch } from './watch-command.js';
import { registerAlerts } from './alerts-command.js';
import { registerMcp } from './mcp-command.js';
import { addPrometheusOptions, ANALYZE_SINCE, prometheusAsk, registerScan } from './scan-command.js';
import { requireNodes } from './nothing.js';
import { CliProgress, progressDelay, progressWanted } from './progress.js';
import type { LoadedPack } from '../rules/pack.js';
import { readSmallTextFile, writeOutputFile } from '../sources/text-file.js';
import { existsSync, fstatSync } from 'node:fs';
import { sanitize, sanitizeLine } from '../util/sanitize.js';
import type { AnalyzeFlags } from './flags.js';
import { checkOutputsApart, checkOutputsUnread, checkZone, DISPLAY_TZ_HELP, displayZone, kubeconfigAtHand, parseEvidence, parseYear, TZ_HELP, UsageError } from './options.js';

// The exit code's policy is JUnit's (report/policy.ts): one function decides both.
export { failOnTriggered };

function useColor(flag: boolean | undefined): boolean {
  if (flag === false) return false;
  if (process.env['NO_COLOR'] !== undefined && process.env['NO_COLOR'] !== '') return false;
  if (process.env['FORCE_COLOR'] && process.env['FORCE_COLOR'] !== '0') return true;
  return process.stdout.isTTY === true;
}


/** Widest text report: past it lines are not easier to read, and a $COLUMNS of 10⁹ must not size a buffer. */
const MAX_WIDTH = 1000;

/** Columns the text report fits: the terminal's (unless it goes to a file); else $COLUMNS when set; else 80. Clamped to
 *  40–1000 columns whatever the terminal or the environment says. */
function terminalWidth(toFile = false): number {
  const clamp = (n: number): number => Math.min(MAX_WIDTH, Math.max(40, n));
  if (!toFile && process.stdout.isTTY === true && process.stdout.columns) return clamp(process.stdout.columns);
  const env = Number(process.env['COLUMNS']);
  return Number.isInteger(env) && env >= 40 ? clamp(env) : 80;
}

/** The text report's widths: `--width N` fits everything to N; a terminal fits its columns, and so does $COLUMNS when
 *  set; else (a file, a pipe) prose wraps at 80 and each evidence line stays whole, to be read with `less -S` or grep. */
function reportWidths(flags: { width?: number; output?: string }): { width: number; evidenceWidth: number } {
  if (flags.width !== undefined) return { width: flags.width, evidenceWidth: flags.width };
  const toTerminal = flags.output === undefined && process.stdout.isTTY === true;
  const width = terminalWidth(!toTerminal);
  const env = Number(process.env['COLUMNS']);
  return { width, evidenceWidth: toTerminal || (Number.isInteger(env) && env >= 40) ? width : Infinity };
}

/** `--width N`: columns of the text report. */
function parseWidth(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 40 || n > 1000) throw new UsageError(`--width: "${v}" is not a number of columns from 40 to 1000`);
  return n;
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

/** The report's format: `--format` when given; else what `-o FILE`'s extension says (`.html .json .md .xml`); else text. */
export function reportFormat(flags: { format: AnalyzeFlags['format'] | 'md'; output?: string }, given: boolean): Exclude<AnalyzeFlags['format'], 'md'> {
  if (given || !flags.output) return flags.format === 'md' ? 'markdown' : flags.format;
  const ext = /\.([A-Za-z]+)$/.exec(flags.output)?.[1]?.toLowerCase();
  const byExt: Record<string, Exclude<AnalyzeFlags['format'], 'md'>> = { html: 'html', htm: 'html', json: 'json', md: 'markdown', markdown: 'markdown', xml: 'junit' };
  return (ext && byExt[ext]) || 'text';
}

export async function runAnalyze(paths: string[], flags: AnalyzeFlags, formatGiven = true): Promise<number> {
  if (flags.tz !== undefined) checkZone(flags.tz);
  displayZone(flags);
  if (flags.redactMap && !flags.redact) throw new UsageError('--redact-map FILE goes with --redact');
  checkOutputsApart([['-o', flags.output], ['--redact-map', flags.redactMap]], [...paths, flags.rules, flags.prometheusTokenFile]);
  const pack = flags.rules ? await readPack(flags.rules) : null;
  const prometheus = await prometheusAsk(flags, paths);
  const progress = stderrMayBeTerminal() && progressWanted(process.stderr, process.env) && !flags.output?.startsWith('/dev/') ? new CliProgress(process.stderr, paths, progressDelay(process.env)) : null;
  progress?.begin();
  let run;
  try {
    run = await analyze({
      paths,
      rules: pack ? (await import('../rules/pack.js')).mergeRules(BUILTIN_RULES, pack.pack) : undefined,
      customSignals: pack?.signals,
      year: flags.year,
      tz: flags.tz,
      noPrefilter: flags.prefilter === false,
      prometheus,
      kubeconfigAtHand: kubeconfigAtHand(),
      ...(progress ? {
        onIndex: (member: string) => progress.member(member),
        onRead: ({ artifact, bytes }) => progress.read(artifact.id, artifact.path, bytes),
        onProgress: ({ file, index, total }) => progress.finished(file, index, total),
      } satisfies Partial<Parameters<typeof analyze>[0]> : {}),
    });
  } finally {
    progress?.end();
  }
  requireNodes(paths.length > 0 ? paths : [flags.prometheus ?? ''], run.analysis);
  // Every file read, the ones the report counts without listing (InputInfo.unlisted) too.
  checkOutputsUnread([['-o', flags.output], ['--redact-map', flags.redactMap]], run.analysis.inputs.map((inp, i) => (inp.unlisted ? { ...inp, artifacts: run.artifacts.filter((a) => a.input === i) } : inp)));
  // A source asked for that could not be read is said on stderr too: the report may go to a file nobody opens now.
  for (const w of run.analysis.warnings) if (w.unread) errorLine(`${w.file ? `${w.file}: ` : ''}${w.message}`);
  // Several nodes: the cluster summary comes first, in every format. Redaction rewrites the Analysis itself, before
  // any renderer, so no format can leak what another hides.
  let a = withCluster(run.analysis);
  let evaluated: Evaluated = run.evaluated;
  if (flags.redact) {
    const { redact, rekeyByNode, renderRedactionMap } = await import('../report/redact.js');
    const r = redact(a);
    evaluated = rekeyByNode(a, r.analysis, evaluated);
    a = r.analysis;
    if (flags.redactMap) writeOutputFile(flags.redactMap, renderRedactionMap(r.mapping));
  }
  const zone = displayZone(flags);
  let text: string;
  switch (reportFormat(flags, formatGiven)) {
    case 'json': text = renderJson(a); break;
    // The other renderers are loaded when asked for: start-up time counts on every run.
    case 'markdown': text = (await import('../report/markdown.js')).renderMarkdown(a, { zone }); break;
    case 'junit': text = (await import('../report/junit.js')).renderJunit(a, evaluated, { failOn: flags.failOn, zone }); break;
    case 'html': text = (await import('../report/html.js')).renderHtml(a, { zone }); break;
    default: {
      const color = !flags.output && useColor(flags.color);
      text = renderText(a, { color, zone, ...reportWidths(flags), evidenceLines: flags.evidence });
    }
  }
  if (flags.output) writeOutputFile(flags.output, text);
  else process.stdout.write(text);
  return failOnTriggered(a, flags.failOn) ? 1 : 0;
}

/** The commands, in the order the root's help lists them. */
export const COMMANDS = ['analyze', 'rules', 'tui', 'collect', 'watch', 'scan', 'alerts', 'mcp'] as const;

/**
 * The program with every command, or with just `only` when the run names it (main: `plegscope analyze …` needs no
 * other command's options made; start-up time counts on every run). The root's help, a usage error and a mistyped
 * command name get them all.
 */
export function buildProgram(only?: (typeof COMMANDS)[number]): Command {
  const wanted = (name: (typeof COMMANDS)[number]): boolean => only === undefined || only === name;
  const program = new Command();
  program
    .name('plegscope')
    .description('Why did PLEG stall? Reads kubelet journals, runtime and kernel logs and kubelet /metrics snapshots, rebuilds the relist timeline and names the cause, citing the lines it rests on.')
    .version(TOOL_VERSION, '-V, --version')
    .showHelpAfterError('(run "plegscope --help" for usage)')
    .configureOutput({ writeErr: (s) => process.stderr.write(s.split('\n').map((l) => sanitize(l)).join('\n')) })
    // Set before the subcommands are made: they inherit it, so usage errors reach main() and become exit 2.
    .exitOverride();

  if (wanted('analyze')) registerAnalyze(program);
  if (wanted('rules')) registerRules(program);
  if (wanted('tui')) registerTui(program);
  if (wanted('collect')) registerCollect(program, runAnalyze);
  if (wanted('watch')) registerWatch(program);
  if (wanted('scan')) registerScan(program);
  if (wanted('alerts')) registerAlerts(program);
  if (wanted('mcp')) registerMcp(program);
  program.addHelpText('after', ROOT_EXAMPLES);
  helpAfterErrors(program);
  return program;
}

function registerAnalyze(program: Command): void {
  const analyzeCmd = program
    .command('analyze')
    .description('analyze files, folders or - (stdin), and/or a Prometheus history, and print the report')
    .argument('[paths...]', 'kubelet/runtime/kernel logs, metrics snapshots, folders of them, .gz/.xz files, or - for stdin')
    .addOption(new Option('-f, --format <format>', 'report format: text, json (the contract), markdown or md (CI summaries, tickets), junit (CI test results), html (one self-contained page); default: from -o FILE\'s extension (.html .json .md .xml), else text').choices(['text', 'json', 'markdown', 'md', 'junit', 'html']).default('text'))
    .option('-o, --output <file>', 'write the report to FILE instead of stdout')
    .option('--year <year>', 'year of year-less timestamps (journal short, klog headers); default: from headers or file dates', parseYear)
    .option('--tz <zone>', TZ_HELP)
    .option('--display-tz <zone>', DISPLAY_TZ_HELP)
    .addOption(new Option('--fail-on <level>', 'exit 1 when a node stalled (stall), or when a finding is at or above this severity (as reported: lowered when not established; "also considered" ones never count)').choices([...SEVERITIES, 'stall']))
    .option('--redact', 'replace node/host names, IPs, pod and namespace names, UIDs and container IDs with consistent pseudonyms, in every format')
    .option('--redact-map <file>', 'with --redact: write the pseudonym → original mapping to FILE (keep it apart from the report)')
    .option('--rules <file>', 'add a rule pack (YAML or JSON; see README "Rule packs"); its rules join the built-in catalog')
    .option('--evidence <all|N>', 'text report: evidence lines per finding (default 3; Markdown and HTML carry them all)', parseEvidence)
    .option('--width <columns>', 'text report: columns to fit (default: the terminal\'s, else $COLUMNS; to a file or a pipe, prose at 80 and evidence lines whole)', parseWidth)
    .option('--no-color', 'no colours (also: NO_COLOR=1)')
    .option('--debug', 'print stack traces on errors')
    .addOption(new Option('--no-prefilter', 'parse every line (slow; for checking the fast path)').hideHelp());
  addPrometheusOptions(analyzeCmd, { nodes: true, defaultSince: ANALYZE_SINCE });
  analyzeCmd
    .addHelpText('after', `
Examples:
  # one journal (journalctl -u kubelet > kubelet.log)
  plegscope analyze /var/tmp/kubelet.log
  # a folder of logs, metrics, dmesg and goroutine dumps, its times read in the node's zone
  plegscope analyze node3/ --tz Europe/Berlin
  # from stdin
  journalctl -u kubelet -o short-iso | plegscope analyze -
  # the JSON contract for CI, exit 1 on a high finding
  plegscope analyze logs/ --format json -o report.json --fail-on high
  # CI test results
  plegscope analyze mg.tar.gz --format junit -o pleg.xml --fail-on high
  # a page to attach to a ticket, names replaced
  plegscope analyze sosreport.tar.xz -o pleg.html --redact
  # the node's metrics history around each stall
  plegscope analyze kubelet.log --prometheus http://prometheus:9090
  # metrics history alone, for one node and window
  plegscope analyze --prometheus URL --node worker-3 --since 2024-03-11T09:00:00Z --until 2024-03-11T12:00:00Z

Exit codes: 0 analyzed, 1 --fail-on matched, 2 unusable input or usage error.`)
    .action(async (paths: string[], flags: AnalyzeFlags, cmd: Command) => {
      process.exitCode = await runAnalyze(paths, flags, cmd.getOptionValueSource('format') !== 'default');
    });

}

function registerRules(program: Command): void {
  // Rule packs and the listing are loaded only for this command (start-up time counts on every run).
  const catalog = async (file?: string) => (file ? (await import('../rules/pack.js')).mergeRules(BUILTIN_RULES, (await readPack(file)).pack) : BUILTIN_RULES);
  // --rules may come before or after the subcommand (`rules --rules p.yaml list`, `rules list --rules p.yaml`).
  const packOf = (cmd: Command): string | undefined => (cmd.optsWithGlobals() as { rules?: string }).rules;
  const list = async (cmd: Command): Promise<void> => {
    const { rulesList } = await import('./rules-command.js');
    process.stdout.write(rulesList(await catalog(packOf(cmd)), terminalWidth()));
  };
  // `plegscope rules` alone lists them too.
  const rules = program.command('rules').description('show the cause catalog (built-in rules, plus a pack with --rules); alone: rules list')
    .option('--rules <file>', 'include a rule pack').action((_o: unknown, cmd: Command) => list(cmd));
  rules.command('list').description('one line per rule: id, cause, severity, what it explains, title').action((_o: unknown, cmd: Command) => list(cmd));
  rules.command('show').description('a rule in full: what it reads, how confidence moves, the remedy; a cause\'s name: its rules').argument('<id>', 'a rule id, or a cause (runtime_timeout, disk_io, …)').action(async (id: string, _o: unknown, cmd: Command) => {
    const { rulesShow } = await import('./rules-command.js');
    const rules = await catalog(packOf(cmd));
    const out = rulesShow(rules, id);
    if (out !== null) return void process.stdout.write(out);
    // A cause's name (the one the headline prints): the rules of that cause.
    const ofCause = rules.filter((r) => r.cause === id);
    if (ofCause.length === 0) throw new UsageError(`rules show: no rule or cause "${id}" (see "plegscope rules list")`);
    const { rulesList } = await import('./rules-command.js');
    process.stdout.write(`"${id}" is a cause; its rules (plegscope rules show ID for one):\n${rulesList(ofCause, terminalWidth())}`);
  });
  rules.command('facts').description('every fact a rule can read and every evidence pool it can cite (for rule packs)').action(async () => {
    const { FACTS, POOLS } = await import('../rules/fact-names.js');
    process.stdout.write(`Facts (and custom.<signal id> of a pack's signals):\n${[...FACTS].sort().map((f) => `  ${f}`).join('\n')}\n  has.<role> (kubelet-log, runtime-log, …), knownBugs.<cause>, op.<operation>.<figure>\n\nEvidence pools:\n${[...POOLS].sort().map((f) => `  ${f}`).join('\n')}\n  op.<operation>, custom.<signal id>\n`);
  });
}

const ROOT_EXAMPLES = `
Examples:
  # a node's logs (a folder, files, an archive): the report on the terminal
  plegscope analyze node3/
  # browse it: findings, stalls, the log lines behind them
  plegscope tui node3/
  # a page to attach to a ticket (the format follows the extension)
  plegscope analyze mg.tar.gz -o pleg.html
  # which nodes of a fleet stalled last week
  plegscope scan --prometheus http://prometheus:9090 --since 7d
  # what a cause's rules read
  plegscope rules show runtime_timeout

Each command has its own help: plegscope analyze --help.`;

/** A usage mistake in a command points to that command's help (`plegscope rules show --help`), not the root's. */
function helpAfterErrors(cmd: Command, path = 'plegscope'): void {
  for (const sub of cmd.commands) {
    const name = `${path} ${sub.name()}`;
    sub.showHelpAfterError(`(run "${name} --help" for usage)`);
    helpAfterErrors(sub, name);
  }
}

/** `plegscope some/path`: not a command, but what the user wants analyzed. Null when `args` are not that. */
export function notACommand(program: Command, args: string[]): string | null {
  const first = args[0];
  if (first === undefined || first.startsWith('-') || first === 'help') return null;
  if (program.commands.some((c) => c.name() === first || c.aliases().includes(first))) return null;
  const looksLikePath = /[/\\.]/.test(first) || first === '-' || existsSync(first);
  return looksLikePath
    ? `"${first}" is not a command; to analyze it: plegscope analyze ${args.map((a) => (/^[\w./@:,+=-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ')}`
    : `unknown command "${first}" (commands: ${program.commands.map((c) => c.name()).join(', ')}; to analyze a file or folder: plegscope analyze PATH)`;
}

/** One line on stderr, whatever the message holds (file and member names are the input author's text). */
function errorLine(text: string): void {
  process.stderr.write(`plegscope: ${sanitizeLine(text, 2000)}\n`);
}

/**
 * A reader that stops early (`plegscope analyze … | head -1`) closes the pipe: the rest of the report has nowhere to go
 * and that is not an error. The exit code stays what the run decided (0, or 1 for --fail-on), as if all was written.
 * Any other failure to write is one line and exit 2. Each stream gets this when it is first made (whenMade).
 */
function quietPipes(): void {
  for (const name of ['stdout', 'stderr'] as const) {
    whenMade(name, (s) => s.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') {
        // (Writes after the reader left find the stream destroyed: nothing to say either.)
        s.destroy();
        return;
      }
      if (name === 'stdout') errorLine(`cannot write to stdout: ${err.message}`);
      process.exitCode = 2;
    }));
  }
}

/**
 * Runs `then` on process.stdout or process.stderr when it is first asked for. Node makes each on first use, and for a
 * pipe or a terminal that loads its net and tty modules (~2.5 ms, ~70 page faults): a run that writes nothing to
 * stderr (most) then never makes it. Where Node defines the stream otherwise than as a getter, it is made now.
 */
function whenMade(name: 'stdout' | 'stderr', then: (s: NodeJS.WriteStream) => void): void {
  const own = Object.getOwnPropertyDescriptor(process, name);
  const make = own?.get;
  if (!make || !own.configurable) return then(process[name]);
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable: own.enumerable,
    get() {
      const s = make.call(process) as NodeJS.WriteStream;
      Object.defineProperty(process, name, { configurable: true, enumerable: own.enumerable, get: () => s });
      then(s);
      return s;
    },
  });
}

/** Whether stderr may be a terminal: a character device (a file or a pipe is not, and then process.stderr need not be
 *  made to ask; /dev/null is one, and the stream says). */
function stderrMayBeTerminal(): boolean {
  try {
    return fstatSync(2).isCharacterDevice();
  } catch {
    return false;
  }
}

/** What commander hands `analyze`'s action for `analyze PATH…` and no option (the defaults of its options). */
export const ANALYZE_DEFAULTS: Readonly<AnalyzeFlags> = Object.freeze({ format: 'text', color: true, prefilter: true });

/**
 * The paths of `plegscope analyze PATH…` with no option, no `-` (stdin) and no `--`: the most common run, which needs
 * no program made and no parse (commander's share of a small input's start, ~3 %). Null for anything else, which
 * commander reads: its errors, help and checks stay the only ones. test/startup.test.ts holds the two to the same answers.
 */
export function plainAnalyze(args: string[]): string[] | null {
  if (args[0] !== 'analyze' || args.length < 2) return null;
  const paths = args.slice(1);
  return paths.every((p) => p !== '' && !p.startsWith('-')) ? paths : null;
}

export async function main(argv: string[]): Promise<void> {
  const debug = argv.includes('--debug');
  quietPipes();
  const plain = plainAnalyze(argv.slice(2));
  if (plain) {
    try {
      process.exitCode = await runAnalyze(plain, { ...ANALYZE_DEFAULTS }, false);
    } catch (err) {
      failed(err, debug);
    }
    return;
  }
  const named = argv.slice(2).find((a) => !a.startsWith('-'));
  const program = buildProgram(COMMANDS.find((c) => c === named));
  const stray = notACommand(program, argv.slice(2));
  if (stray) {
    errorLine(stray);
    process.exitCode = 2;
    return;
  }
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0; usage mistakes are exit 2 (commander printed the message).
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    failed(err, debug);
  }
}

/** A run that failed: one line (a stack trace too with --debug), exit 2. */
function failed(err: unknown, debug: boolean): void {
  if (err instanceof InputError) {
    errorLine(`${err.path}: ${err.message}`);
  } else if (err instanceof UsageError) {
    errorLine(err.message);
  } else {
    const e = err as NodeJS.ErrnoException;
    errorLine(`${e.path ? e.path + ': ' : ''}${e.message ?? String(err)}${debug ? '' : ' (run with --debug for details)'}`);
  }
  if (debug && err instanceof Error && err.stack) process.stderr.write(err.stack.split('\n').map((l) => sanitize(l)).join('\n') + '\n');
  process.exitCode = 2;
}
