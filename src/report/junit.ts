// `--format junit`: results as CI servers read them (the Jenkins/Ant JUnit XML that Jenkins, GitLab, GitHub test
// reporters, Azure DevOps and TeamCity all accept). One testsuite per node, one testcase per rule evaluated on it, and
// a leading `pleg-healthy` testcase per node: the verdict, failed whenever the node stalled, whatever `--fail-on` says
// (a passing test of that name must mean a healthy PLEG). A rule's testcase fails exactly when its finding fails the
// `--fail-on` policy the exit code follows (policy.ts); without `--fail-on`, the findings that explain a stall at a
// confidence of 0.5 or more fail, and nothing else (an `info` finding never does). Passing findings, weak alternatives
// ("also considered") among them, go to system-out.
import type { Analysis, NodeReport, Stall } from '../contract/analysis.js';
import { sanitize } from '../util/sanitize.js';
import { ALSO_CONSIDERED, count, severityWords, unattached, unattachedUnlisted, verdictKind } from './words.js';
import { clusterOf, clusterSentences, stallDuration, stallEndPhrase, stallStart } from './cluster.js';
import { findingFails, stalled, type FailOn } from './policy.js';

export interface JunitOptions {
  /** The `--fail-on` level: a severity, `stall`, or undefined (then: the verdict and the findings that explain a stall). */
  failOn?: string;
  /** Zone for the times in failure texts. */
  zone?: string;
  /** Evidence lines per failure. */
  evidenceLines?: number;
}

/** Per node: every rule evaluated, with whether it fired (AnalysisRun.evaluated). */
export type Evaluated = ReadonlyMap<string, ReadonlyArray<{ id: string; fired: boolean }>>;

// XML 1.0 allows TAB, LF, CR and nothing else below 0x20, no lone surrogates, no U+FFFE/U+FFFF. Log text has already
// been through sanitize(), which makes controls visible; this is the last guard for what XML itself forbids.
// eslint-disable-next-line no-control-regex
const XML_INVALID = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function xmlEscape(s: string): string {
  return s.replace(XML_INVALID, '\ufffd').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] as string);
}

/** Log-derived text for a failure body or attribute: made inert (sanitize) and well-formed. */
function text(s: string): string {
  return xmlEscape(sanitize(s));
}

interface Case {
  name: string;
  failure: { message: string; type: string; body: string } | null;
  out: string | null;
  /** Not decided by this input (a node whose PLEG state it cannot tell, files tied to no node): why. */
  skipped?: string;
}

function stallLine(s: Stall, i: number, zone: string): string {
  return `stall #${i + 1}: ${stallDuration(s)} without a relist (last relist ${stallStart(s, zone)}, ${stallEndPhrase(s, zone, true)})${s.nodeNotReady ? ', node NotReady' : ''}`;
}

interface Resolved {
  failOn: FailOn;
  zone: string;
  evidenceLines: number;
}

function nodeCases(n: NodeReport, rules: ReadonlyArray<{ id: string; fired: boolean }>, opts: Resolved): Case[] {
  const { failOn, zone, evidenceLines } = opts;
  const cases: Case[] = [];
  const stallText = n.stalls.map((s, i) => stallLine(s, i, zone)).join('\n');
  if (verdictKind(n) === 'unknown') {
    cases.push({ name: 'pleg-healthy', failure: null, out: null, skipped: 'PLEG state unknown: nothing in the input shows whether relist worked on this node (no kubelet log spanning the health threshold, relist metrics, or Ready status at a known time)' });
  } else cases.push({
    name: 'pleg-healthy',
    failure: stalled(n) ? {
      message: `PLEG unhealthy: ${count(n.stalls.length, 'stall')}, cause ${n.verdict.primaryCause ?? 'unknown'}`,
      type: 'pleg_stall',
      body: stallText + '\n' + n.stalls.flatMap((s) => s.evidence.slice(0, evidenceLines)).map((e) => `${e.file}:${e.line}  ${e.text}`).join('\n'),
    } : null,
    out: null,
  });
  const seen = new Set<string>();
  const ids = [...rules.map((r) => r.id), ...n.findings.map((f) => f.ruleId)].filter((id) => !seen.has(id) && (seen.add(id), true));
  for (const id of ids) {
    const f = n.findings.find((x) => x.ruleId === id);
    if (!f) {
      cases.push({ name: id, failure: null, out: null });
      continue;
    }
    const body = [
      `${f.title}`,
      `${f.cause} · ${severityWords(f)} · confidence ${f.confidence.toFixed(2)}`,
      ...(f.considered ? [`${ALSO_CONSIDERED.title} (${ALSO_CONSIDERED.why}): no --fail-on level counts it.`] : []),
      '',
      f.summary,
      '',
      'Evidence:',
      ...f.evidence.slice(0, evidenceLines).map((e) => `  ${e.file}:${e.line}  ${e.text}`),
      ...(f.evidence.length > evidenceLines ? [`  … ${f.evidence.length - evidenceLines} more in --format json`] : []),
      '',
      `Remedy: ${f.remediation}`,
    ].join('\n');
    cases.push(findingFails(f, failOn)
      ? { name: id, failure: { message: `[${f.severity}] ${f.title}`, type: f.cause, body }, out: null }
      : { name: id, failure: null, out: body });
  }
  return cases;
}

/** Each line of a multi-line body sanitised on its own, so the line breaks survive and nothing else does. */
function block(s: string): string {
  return s.split('\n').map(text).join('\n');
}

export function renderJunit(analysis: Analysis, evaluated: Evaluated, options: JunitOptions = {}): string {
  const opts: Resolved = { failOn: options.failOn as FailOn, zone: options.zone ?? 'UTC', evidenceLines: options.evidenceLines ?? 5 };
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  const cluster = clusterOf(analysis);
  if (cluster) {
    const props = [
      ['nodes', String(cluster.nodes)],
      ['flapped', cluster.flapped.map((n) => n.name).join(',')],
      ...cluster.shared.filter((t) => t.common !== null).map((t) => [`shared.${t.trait}`, t.common as string]),
    ];
    suites.push([
      '  <testsuite name="cluster" tests="0" failures="0" errors="0" skipped="0" time="0">',
      '    <properties>',
      ...props.map(([k, v]) => `      <property name="${text(k as string)}" value="${text(v as string)}"/>`),
      '    </properties>',
      `    <system-out>${block(clusterSentences(cluster, opts.zone).join('\n'))}</system-out>`,
      '  </testsuite>',
    ].join('\n'));
  }
  for (const n of analysis.nodes) {
    const cases = nodeCases(n, evaluated.get(n.name) ?? [], opts);
    const nf = cases.filter((c) => c.failure).length;
    tests += cases.length;
    failures += nf;
    const classname = `plegscope.${n.name.replace(/\./g, '_')}`;
    const ns = cases.filter((c) => c.skipped).length;
    const lines = [`  <testsuite name="${text(n.name)}" tests="${cases.length}" failures="${nf}" errors="0" skipped="${ns}" time="0">`];
    lines.push('    <properties>');
    lines.push(`      <property name="verdict" value="${n.verdict.plegUnhealthy ? 'pleg-unhealthy' : verdictKind(n) === 'unknown' ? 'pleg-unknown' : 'pleg-healthy'}"/>`);
    lines.push(`      <property name="primaryCause" value="${n.verdict.primaryCause ?? ''}"/>`);
    lines.push(`      <property name="confidence" value="${n.verdict.confidence.toFixed(2)}"/>`);
    lines.push(`      <property name="kubeletVersion" value="${text(n.kubeletVersion ?? '')}"/>`);
    lines.push(`      <property name="runtime" value="${n.runtime ?? ''}"/>`);
    lines.push('    </properties>');
    for (const c of cases) {
      const open = `    <testcase name="${text(c.name)}" classname="${text(classname)}" time="0"`;
      if (!c.failure && !c.out && !c.skipped) {
        lines.push(open + '/>');
        continue;
      }
      lines.push(open + '>');
      if (c.skipped) lines.push(`      <skipped message="${text(c.skipped)}"/>`);
      if (c.failure) lines.push(`      <failure message="${text(c.failure.message)}" type="${text(c.failure.type)}">${block(c.failure.body)}</failure>`);
      if (c.out) lines.push(`      <system-out>${block(c.out)}</system-out>`);
      lines.push('    </testcase>');
    }
    lines.push('  </testsuite>');
    suites.push(lines.join('\n'));
  }
  // Files no node could be tied to: listed, not judged (a CI reader sees them without opening the report).
  const loose = unattached(analysis);
  if (loose.length > 0) {
    tests += 1;
    suites.push([
      '  <testsuite name="inputs" tests="1" failures="0" errors="0" skipped="1" time="0">',
      '    <testcase name="unattached files" classname="plegscope.inputs" time="0">',
      `      <skipped message="${text(`${count(loose.length + unattachedUnlisted(analysis), 'file')} not tied to a node: ${loose.map((a) => a.path).join(', ')}${unattachedUnlisted(analysis) > 0 ? ` and ${unattachedUnlisted(analysis)} more (counted in the JSON report, not listed)` : ''}`)}"/>`,
      '    </testcase>',
      '  </testsuite>',
    ].join('\n'));
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="plegscope" tests="${tests}" failures="${failures}" errors="0" time="0">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
