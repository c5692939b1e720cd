// `plegscope alerts`: prints Prometheus alerting rules for PLEG trouble (src/report/alert-rules.ts builds them), as a
// rules file (`groups:`, what `promtool check rules` and Prometheus' rule_files read) or a Prometheus Operator
// PrometheusRule. Options are checked before anything is printed; each mistake is one line (exit 2).
import { Option, type Command } from './commander.js';
import { UsageError } from './options.js';
import { writeOutputFile } from '../sources/text-file.js';
import { TOOL_VERSION } from '../version.js';
import type { AlertFormat } from '../report/alert-rules.js';

interface AlertsFlags {
  format: AlertFormat;
  threshold: string;
  for: string;
  selector?: string;
  runbookUrl: string;
  prometheusUrl?: string;
  group: string;
  name: string;
  namespace?: string;
  output?: string;
}

/** Where the runbook is served unless --runbook-url says (the rules module loads only when rules are printed). */
export const DEFAULT_RUNBOOK_URL = 'https://github.com/your-org/plegscope/blob/main/docs/runbook.md';

const UNIT_S: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400, w: 604_800, y: 31_536_000 };

/** A Prometheus duration (`3m`, `90s`, `1h30m`) in seconds. */
export function parsePromDuration(v: string, option: string): number {
  if (!/^(?:\d+(?:ms|[smhdwy]))+$/.test(v)) throw new UsageError(`${option}: "${v}" is not a duration (3m, 90s, 1h30m)`);
  return [...v.matchAll(/(\d+)(ms|[smhdwy])/g)].reduce((t, m) => t + Number(m[1]) * UNIT_S[m[2]!]!, 0);
}

const MATCHER = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\\n]|\\.)*)"\s*$/;

/**
 * `--selector`: label matchers as PromQL writes them inside braces, comma-separated (`job="kubelet",metrics_path=
 * "/metrics"`; braces around them are fine). Returned normalised; anything else (a second selector, a function, an
 * unquoted value, `__name__`) is a usage error, so nothing but matchers reaches the rules.
 */
export function parseSelector(v: string): string {
  let s = v.trim();
  if (s.startsWith('{') && s.endsWith('}')) s = s.slice(1, -1);
  if (s.trim() === '') return '';
  // Split on commas outside quotes.
  const parts: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quoted && c === '\\') { cur += c + (s[i + 1] ?? ''); i++; continue; }
    if (c === '"') quoted = !quoted;
    if (c === ',' && !quoted) { parts.push(cur); cur = ''; continue; }
    cur += c;
  }
  parts.push(cur);
  const out: string[] = [];
  for (const p of parts) {
    if (p.trim() === '' ) continue;
    const m = MATCHER.exec(p);
    if (!m) throw new UsageError(`--selector: "${p.trim()}" is not a label matcher (label="value", label=~"regex", label!="value", label!~"regex")`);
    if (m[1] === '__name__') throw new UsageError('--selector: __name__ is set by each rule; select on target labels (job, metrics_path, …)');
    out.push(`${m[1]}${m[2]}"${m[3]}"`);
  }
  return out.join(', ');
}

export function registerAlerts(program: Command): Command {
  const cmd = program
    .command('alerts')
    .description('print Prometheus alerting rules for PLEG trouble (stuck, relist stopped or slow, CRI calls failing or slow, kubelet restarts), each with a runbook link and the plegscope command that analyzes it')
    .addOption(new Option('-f, --format <format>', 'rules: a rules file (groups:, for rule_files and promtool); prometheusrule: a Prometheus Operator PrometheusRule').choices(['rules', 'prometheusrule']).default('rules'))
    .option('--threshold <duration>', 'how long without a relist is a stall (the kubelet\'s own threshold is 3m; Evented PLEG nodes get at least 10m)', '3m')
    .option('--for <duration>', 'how long a condition holds before its alert fires (all but KubeletRestarted)', '1m')
    .option('--selector <matchers>', 'label matchers added to every selector, e.g. \'job="kubelet",metrics_path="/metrics"\'')
    .option('--runbook-url <url>', 'where docs/runbook.md is served; runbook_url annotations add each alert\'s anchor', DEFAULT_RUNBOOK_URL)
    .option('--prometheus-url <url>', 'the Prometheus the plegscope annotation\'s analyze command asks (default: the evaluating Prometheus\' external URL)')
    .option('--group <name>', 'rule group name', 'plegscope-pleg')
    .option('--name <name>', 'with --format prometheusrule: metadata.name', 'plegscope-pleg')
    .option('--namespace <namespace>', 'with --format prometheusrule: metadata.namespace (default: none; kubectl -n decides)')
    .option('-o, --output <file>', 'write the rules to FILE instead of stdout');
  cmd.addHelpText('after', `
Examples:
  plegscope alerts > pleg-rules.yaml && promtool check rules pleg-rules.yaml
  plegscope alerts --selector 'job="kubelet",metrics_path="/metrics"' --format prometheusrule --namespace monitoring | kubectl apply -f -
  plegscope alerts --threshold 5m --for 2m --runbook-url https://git.example.com/sre/plegscope/blob/main/docs/runbook.md

Alerts: KubeletPLEGNotHealthy, KubeletPLEGRelistStopped, KubeletPLEGRelistSlow, KubeletRuntimeOperationsFailing,
KubeletRuntimeOperationsSlow, KubeletRestarted (docs/runbook.md, one section each).`);
  cmd.action(async (flags: AlertsFlags) => {
    const thresholdSeconds = parsePromDuration(flags.threshold, '--threshold');
    if (thresholdSeconds < 60) throw new UsageError('--threshold: at least 1m (the kubelet relists every second; its own threshold is 3m)');
    const forSeconds = parsePromDuration(flags.for, '--for');
    if (flags.format !== 'prometheusrule' && flags.namespace !== undefined) throw new UsageError('--namespace goes with --format prometheusrule');
    for (const [opt, url] of [['--runbook-url', flags.runbookUrl], ['--prometheus-url', flags.prometheusUrl]] as const) {
      if (url !== undefined && !/^https?:\/\/[^\s{}"]+$/.test(url)) throw new UsageError(`${opt}: "${url}" is not an http(s) URL`);
    }
    const { buildAlertRules, prometheusRule } = await import('../report/alert-rules.js');
    const groups = buildAlertRules({
      thresholdSeconds,
      forSeconds,
      selector: parseSelector(flags.selector ?? ''),
      runbookUrl: flags.runbookUrl,
      prometheusUrl: flags.prometheusUrl ?? '{{ $externalURL }}',
      group: flags.group,
    });
    const yaml = (await import('js-yaml')).default;
    const doc = flags.format === 'prometheusrule' ? prometheusRule(groups, flags.name, flags.namespace) : groups;
    const text = `# Generated by plegscope alerts ${TOOL_VERSION}; runbook: ${flags.runbookUrl}\n`
      + yaml.dump(doc, { lineWidth: -1, noRefs: true, quotingType: '"' });
    if (flags.output) writeOutputFile(flags.output, text);
    else process.stdout.write(text);
  });
  return cmd;
}
