// `plegscope tui <paths…>`: the interactive triage view (src/tui). Registered on the program by main.ts.
import { Option, type Command } from './commander.js';
import { InputError } from '../input/artifact.js';
import { resolveZone } from '../parse/time.js';
import { BUILTIN_RULES } from '../rules/catalog.js';
import { readSmallTextFile } from '../input/text-file.js';
import { addPrometheusOptions, ANALYZE_SINCE, prometheusAsk, type PrometheusFlags } from './scan-command.js';

interface TuiFlags extends PrometheusFlags {
  year?: number;
  tz: string;
  rules?: string;
  color?: boolean;
}

function parseYear(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1970 || n > 2200) throw new InputError('--year', `"${v}" is not a year`);
  return n;
}

function colorOn(flag: boolean | undefined): boolean {
  if (flag === false) return false;
  return !(process.env['NO_COLOR'] !== undefined && process.env['NO_COLOR'] !== '');
}

export function registerTui(program: Command): Command {
  const cmd = program
    .command('tui')
    .description('browse the analysis by keyboard: nodes → timeline → findings → evidence lines in the merged log')
    .argument('[paths...]', 'the same inputs as analyze: logs, metrics, folders, bundles, archives (not - : the terminal is the keyboard)')
    .option('--year <year>', 'year of year-less timestamps (journal short, klog headers); default: from headers or file dates', parseYear)
    .option('--tz <zone>', 'time zone of zone-less timestamps and of displayed times (IANA name, +hh:mm, UTC); default: the zone a bundle records, else UTC')
    .option('--rules <file>', 'add a rule pack (YAML or JSON), as for analyze')
    .option('--no-color', 'no colours (also: NO_COLOR=1)')
    .addOption(new Option('--debug', 'print stack traces on errors').hideHelp());
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
      const prometheus = await prometheusAsk(flags, paths);
      if (paths.includes('-')) throw new InputError('-', 'tui reads keys from the terminal, so it cannot read the input from stdin: save it to a file first');
      try {
        if (flags.tz !== undefined) resolveZone(flags.tz);
      } catch {
        throw new InputError('--tz', `unknown time zone "${flags.tz}" (use an IANA name like Europe/Berlin, or +02:00, or UTC)`);
      }
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
      // A person at a terminal asked for an interactive screen: ink must draw frames even when CI-style variables are
      // set in the environment (ink renders only the last frame when it thinks it runs in CI).
      process.env['CI'] = '0';
      const { runTui } = await import('../tui/run.js');
      process.exitCode = await runTui({ paths, prometheus, year: flags.year, tz: flags.tz, zone: flags.tz ?? 'UTC', color: colorOn(flags.color), rules, customSignals });
    });
}

function quote(p: string): string {
  return /^[\w./@:+-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}
