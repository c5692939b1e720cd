// `plegscope tui <paths…>`: the interactive triage view (src/tui). Registered on the program by main.ts.
import { Option, type Command } from './commander.js';
import { InputError } from '../sources/artifact.js';
import { checkZone, DISPLAY_TZ_HELP, displayZone, parseYear, TZ_HELP, UsageError } from './options.js';
import { sanitizeLine } from '../util/sanitize.js';
import { BUILTIN_RULES } from '../rules/catalog.js';
import { readSmallTextFile } from '../sources/text-file.js';
import { addPrometheusOptions, ANALYZE_SINCE, prometheusAsk, type PrometheusFlags } from './scan-command.js';
import { requireNodes } from './nothing.js';
import { addClusterOptions, checkNodes, collectInto, defaultDir, parseInterval, parseSince, type ClusterFlags } from './collect-command.js';

interface TuiFlags extends PrometheusFlags, ClusterFlags {
  interval: string;
  output?: string;
  year?: number;
  tz: string;
  displayTz?: string;
  rules?: string;
  color?: boolean;
  redact?: boolean;
}

function colorOn(flag: boolean | undefined): boolean {
  if (flag === false) return false;
  return !(process.env['NO_COLOR'] !== undefined && process.env['NO_COLOR'] !== '');
}

export function registerTui(program: Command): Command {
  const cmd = program
    .command('tui')
    .description('browse the analysis by keyboard: nodes → timeline → findings → evidence lines in the merged log')
    .argument('[paths...]', 'the same inputs as analyze: logs, metrics, folders, bundles, archives (not - : the terminal is the keyboard); with --kubeconfig or --context: node names, collected first')
    .option('--year <year>', 'year of year-less timestamps (journal short, klog headers); default: from headers or file dates', parseYear)
    .option('--tz <zone>', TZ_HELP)
    .option('--display-tz <zone>', DISPLAY_TZ_HELP)
    .option('--rules <file>', 'add a rule pack (YAML or JSON), as for analyze')
    .option('--no-color', 'no colours (also: NO_COLOR=1)')
    .option('--redact', 'show node/host names, IPs, pod and namespace names, UIDs and IDs as pseudonyms (as analyze --redact does), in the log lines too; the paths being read are not shown')
    .addOption(new Option('--debug', 'print stack traces on errors').hideHelp());
  addClusterOptions(cmd)
    .option('--interval <seconds>', 'with --kubeconfig: seconds between the two /metrics snapshots', '30')
    .option('-o, --output <dir>', 'with --kubeconfig: folder to collect into (default: ./plegscope-<UTC time>/)');
  addPrometheusOptions(cmd, { nodes: true, defaultSince: ANALYZE_SINCE });
  return cmd
    .addHelpText('after', `
Keys: ? help  / filter  : commands  j/k ↑/↓ move  enter open  esc back  q quit (the footer shows what works where).

Needs an interactive terminal; for a report in a pipe or a file use "plegscope analyze".
Exit codes: 0 quit, 2 unusable input, usage error or no terminal, 130 stopped while reading.`)
    .action(async (paths: string[], flags: TuiFlags) => {
      if (process.stdout.isTTY !== true || process.stdin.isTTY !== true) {
        process.stderr.write(`plegscope tui: needs an interactive terminal (${process.stdout.isTTY !== true ? 'stdout' : 'stdin'} is not a TTY); for a report use: plegscope analyze ${paths.map(quote).join(' ')}\n`);
        process.exitCode = 2;
        return;
      }
      // From a cluster: the arguments are nodes, collected first (c in the overview collects one again).
      const fromCluster = flags.kubeconfig !== undefined || flags.context !== undefined;
      let collect: ((node: string) => Promise<void>) | undefined;
      if (fromCluster) {
        if (flags.prometheus) throw new UsageError('--kubeconfig/--context and --prometheus: one source at a time in the TUI');
        checkNodes(paths);
        if (paths.length === 0) throw new UsageError('tui --kubeconfig: name the nodes to collect');
        const since = flags.since ?? '24h';
        parseSince(since);
        parseInterval(flags.interval);
        const dir = flags.output ?? defaultDir();
        const quiet = () => {};
        await collectInto(paths, dir, { ...flags, since }, (l) => process.stderr.write(`plegscope: ${sanitizeLine(l, 2000)}\n`));
        collect = (node) => collectInto([node], dir, { ...flags, since }, quiet);
        paths = [dir];
      }
      const prometheus = fromCluster ? undefined : await prometheusAsk(flags, paths);
      if (paths.includes('-')) throw new InputError('-', 'tui reads keys from the terminal, so it cannot read the input from stdin: save it to a file first');
      if (flags.tz !== undefined) checkZone(flags.tz);
      displayZone(flags);
      let rules;
      let customSignals;
      if (flags.rules) {
        const file = flags.rules;
        const { loadRulePack, mergeRules, RulePackError } = await import('../rules/pack.js');
        try {
          const pack = loadRulePack(readSmallTextFile(file), file);
          rules = mergeRules(BUILTIN_RULES, pack.pack);
          customSignals = pack.signals;
        } catch (err) {
          if (err instanceof RulePackError) throw new InputError(file, err.message);
          throw err;
        }
      }
      const { runTui } = await import('../tui/run.js');
      process.exitCode = await runTui({ paths, prometheus, collect, redact: flags.redact === true, year: flags.year, tz: flags.tz, zone: displayZone(flags), color: colorOn(flags.color), rules, customSignals, accept: (a) => requireNodes(paths.length > 0 ? paths : [flags.prometheus ?? ''], a) });
    });
}

function quote(p: string): string {
  return /^[\w./@:+-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}
