// `--format markdown`: for a CI job summary ($GITHUB_STEP_SUMMARY, GitLab/Azure summaries) or a ticket comment.
// CommonMark plus GFM tables and `<details>` folds (GitHub, GitLab, Gitea and Azure DevOps render them; elsewhere their
// content still reads): a verdict table for all nodes, then per node its summary table, stalls, the findings with
// every evidence line in fenced code blocks (the first few open, the rest folded), what was ruled out, the gaps (with
// the commands that collect each) and the per-operation latency table. Log text is sanitised and either escaped
// (prose, table cells: no raw HTML, no accidental emphasis or links) or fenced (evidence: a code block shows it byte for
// byte and interprets nothing). The only HTML is ours: `<details>` and `<summary>` with fixed text.
import type { Analysis, Finding, NodeReport } from '../contract/analysis.js';
import { sanitize, sanitizeLine } from '../util/sanitize.js';
import { checkResult, clusterLongest, clusterOf, longestStallText, clusterSentences, displaySpan, displayTime, stallDuration, stallEnded, stallStart } from './cluster.js';
import { fmtDuration } from './layout.js';
import { metricsSpan } from './text.js';
import { ALSO_CONSIDERED, count, foldLabel, LONGEST_STALL, severityWords, splitFindings, UNATTACHED, unattached, unattachedUnlisted, unattachedWhy, filesRead, VERDICT, VERDICT_CELL, verdictKind, yearNote, unreadNotes, type FOLDED } from './words.js';
import { operationsView, relistLines } from './latency.js';

export interface MarkdownOptions {
  /** IANA zone or fixed offset for displayed times. */
  zone?: string;
  /** Findings shown open per node (the rest, as complete, in a fold). */
  topFindings?: number;
  /** Evidence lines per finding shown open (the rest in a fold). */
  evidenceLines?: number;
}

/** A fold: `summary` shown, `body` (Markdown) when opened. Blank lines around the body let it render as Markdown. */
function details(summary: string, body: string[]): string[] {
  return ['<details>', `<summary>${summary}</summary>`, '', ...body, '</details>', ''];
}

/**
 * Inline text made literal: sanitised, then every character CommonMark or GFM could read as markup is
 * backslash-escaped (`<` and `&` too, so no raw HTML or entity ever comes through).
 */
export function mdText(s: string): string {
  return sanitize(s).replace(/[\\`*_[\]<>|~&]/g, '\\$&');
}

/** Inline text that starts a block: also escape what would make it a heading, quote, list item or rule. */
function mdLead(s: string): string {
  const t = mdText(s);
  return t.replace(/^(\s*)([#>+=-]|\d+(?=[.)]))/, (_, sp: string, c: string) => (/\d/.test(c) ? `${sp}${c}\\` : `${sp}\\${c}`));
}

/** A code span for text that may itself contain backticks (CommonMark: the fence must be a longer run). */
function mdCode(s: string): string {
  const t = sanitize(s);
  let longest = 0;
  for (const m of t.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const fence = '`'.repeat(longest + 1);
  const pad = t.startsWith('`') || t.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${t}${pad}${fence}`;
}

/** Prose in which `backticked` parts are code (rule remedies, summaries): code spans kept, the rest escaped. */
/** A finding's summary one fact a line (its `lines`): each sentence a paragraph, a list of what was seen a list. */
function mdFacts(f: Finding): string[] {
  if (!f.lines?.length) return [mdRich(f.summary)];
  const out: string[] = [];
  let inList = false;
  for (const l of f.lines) {
    const item = l.startsWith('- ');
    if (out.length && !(item && inList)) out.push('');
    out.push(item ? `- ${mdRich(l.slice(2))}` : mdRich(l));
    inList = item;
  }
  return out;
}

function mdRich(s: string): string {
  const parts = s.split(/(`[^`\n]+`)/);
  return parts.map((p, i) => (i % 2 === 1 ? mdCode(p.slice(1, -1)) : i === 0 ? mdLead(p) : mdText(p))).join('');
}

/** A fenced code block whose fence no content line can close. */
function fenced(lines: string[], info = 'text'): string[] {
  const body = lines.map((l) => sanitizeLine(l, 8192));
  let longest = 0;
  for (const l of body) for (const m of l.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${info}`, ...body, fence];
}

/** A code span inside a table cell: GFM splits cells on `|` even within code, unless escaped. */
function cellCode(s: string): string {
  return mdCode(s).replace(/\|/g, '\\|');
}

function cell(s: string): string {
  return mdText(s) || ' ';
}

function table(head: string[], rows: string[][], align?: Array<'l' | 'r'>): string[] {
  const sep = head.map((_, i) => (align?.[i] === 'r' ? '---:' : '---'));
  return [`| ${head.join(' | ')} |`, `| ${sep.join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`)];
}

function verdictCell(n: NodeReport): string {
  const k = verdictKind(n);
  return k === 'unhealthy' ? `**${VERDICT_CELL[k]}**` : VERDICT_CELL[k];
}

function findingBlock(f: Finding, i: number, nEvidence: number): string[] {
  const out = [
    `#### ${f.considered ? '' : `${i + 1}. `}\\[${severityWords(f)}\\] ${mdText(f.title)}`,
    '',
    `${mdCode(f.cause)} · confidence ${f.confidence.toFixed(2)} · rule ${mdCode(f.ruleId)}`,
    '',
    ...mdFacts(f),
    '',
  ];
  append(out, evidence(f.evidence, nEvidence));
  if (f.checks?.length) {
    // Each count of the summary with the grep that gives it, in the bundle's folder (a comment says what it finds).
    append(out, details(`Check the counts with grep (${f.checks.length})`, [...fenced(f.checks.flatMap((c) => [`# ${c.what}: ${checkResult(c)}`, c.grep]), 'sh'), '']));
  }
  out.push(`**Remedy:** ${mdRich(f.remediation)}`, '');
  if (f.references.length > 0) out.push(`References: ${f.references.map(mdLink).join(' · ')}`, '');
  return out;
}

/** Evidence lines: the first `shown` in a code block, every other one in a fold. */
function evidence(lines: Array<{ file: string; line: number; text: string }>, shown: number, kind: keyof typeof FOLDED = 'evidence'): string[] {
  const fmt = (e: { file: string; line: number; text: string }) => `${e.file}:${e.line}  ${e.text}`;
  const out: string[] = [];
  if (shown > 0 && lines.length > 0) append(out, fenced(lines.slice(0, shown).map(fmt)), '');
  const rest = lines.slice(Math.max(0, shown));
  if (rest.length > 0) append(out, details(foldLabel(rest.length, shown > 0 && lines.length > rest.length, kind), fenced(rest.map(fmt))));
  return out;
}

/** A web address as an autolink; anything else as text. */
function mdLink(u: string): string {
  return /^https?:\/\/[^\s<>"'`]+$/.test(u) ? `<${u}>` : mdText(u);
}

function nodeSection(n: NodeReport, zone: string, top: number, nEvidence: number): string[] {
  const out: string[] = [`## ${mdLead(n.name)}`, ''];
  const v = n.verdict;
  const k = verdictKind(n);
  out.push(k === 'unhealthy' ? `**${VERDICT[k]}**` : VERDICT[k], '');
  append(out, table(['primary cause', 'kubelet', 'runtime', 'logs', 'evidence read', 'pods'], [[
    v.primaryCause ? `${cellCode(v.primaryCause)} (confidence ${v.confidence.toFixed(2)})` : '—',
    cell(n.kubeletVersion ?? 'unknown'),
    n.runtime ?? 'unknown',
    cell(displaySpan(n.window.start ?? '', n.window.end, zone, '—')),
    cell((n.coverage.roles.join(', ') || 'none') + (n.coverage.truncated ? ' (input TRUNCATED)' : '')),
    `running ${n.pods.running ?? '—'} · containers ${n.pods.containers ?? '—'}`,
  ]]), '');

  if (n.stalls.length > 0) {
    out.push('### Stalls', '');
    append(out, table(['#', 'last relist', 'unhealthy from', 'ended', 'without a relist', 'max age', 'NotReady'], n.stalls.map((s, i) => [
      String(i + 1), cell(stallStart(s, zone)), cell(displayTime(s.unhealthyFrom, zone)),
      cell(stallEnded(s, zone, true)),
      cell(stallDuration(s)), fmtDuration(s.maxLastSeenAgoSeconds), s.nodeNotReady ? 'yes' : 'no',
    ]), ['r', 'l', 'l', 'l', 'r', 'r', 'l']), '');
    append(out, evidence(n.stalls.flatMap((s) => s.evidence), 0, 'stall'));
  }
  if (n.notReady.length > 0) {
    out.push('### NotReady', '');
    const row = (w: NodeReport['notReady'][number]) => [cell(displaySpan(w.from, w.to, zone)), cell(sanitizeLine(w.reason, 200))];
    append(out, table(['from → to', 'reason'], n.notReady.slice(0, 10).map(row)), '');
    if (n.notReady.length > 10) append(out, details(`${n.notReady.length - 10} more NotReady windows`, [...table(['from → to', 'reason'], n.notReady.slice(10).map(row)), '']));
  }
  const { shown, considered } = splitFindings(n.findings);
  if (shown.length > 0) {
    out.push('### Findings', '');
    shown.slice(0, top).forEach((f, i) => append(out, findingBlock(f, i, nEvidence)));
    const rest = shown.slice(top);
    if (rest.length > 0) {
      const titles = rest.map((f) => `\\[${severityWords(f)}\\] ${mdText(f.title)}`).join('; ');
      out.push(`Also found (${rest.length}): ${titles}`, '');
      append(out, details(`${rest.length} more finding${rest.length === 1 ? '' : 's'}, with their evidence`, rest.flatMap((f, i) => findingBlock(f, top + i, nEvidence))));
    }
  }
  if (considered.length > 0) {
    // Weak alternatives: one line each (what speaks against one is at the end of its summary), all of it in a fold.
    out.push(`### ${ALSO_CONSIDERED.title}`, '', mdRich(ALSO_CONSIDERED.note), '');
    for (const f of considered) out.push(`- \\[${severityWords(f)}\\] ${mdText(f.title)} · ${mdCode(f.cause)} · confidence ${f.confidence.toFixed(2)}`);
    out.push('');
    append(out, details(`${considered.length === 1 ? 'its summary' : 'their summaries'}, evidence and remedies`, considered.flatMap((f, i) => findingBlock(f, i, nEvidence))));
  }
  if (n.ruledOut.length > 0) {
    out.push('### Ruled out', '');
    for (const r of n.ruledOut) out.push(`- ${mdCode(r.cause)}: ${mdRich(r.reason)}`);
    out.push('');
  }
  if (n.gaps.length > 0) {
    out.push('### Gaps', '', 'Evidence that was not in the input and would decide between the remaining causes:', '');
    for (const g of n.gaps) {
      out.push(`- **${mdText(g.missing)}**: ${mdRich(g.why)}`, '');
      append(out, fenced(g.collect.split('\n'), 'sh').map((l) => `  ${l}`), '');
    }
  }
  if (n.metricsFrom && n.metricsFrom.length > 0) {
    out.push('### Metrics from', '', ...n.metricsFrom.map((m) => `- \`${m.source.replace(/`/g, "'")}\` (${metricsSpan(m, zone)})`), '');
  }
  const relist = relistLines(n, zone);
  if (relist) {
    out.push('### Relist', '', `${mdLead(relist.window.charAt(0).toUpperCase() + relist.window.slice(1))}.`, '');
    for (const l of relist.lines) out.push(`- **${l.label}**: ${mdText(l.text)}`);
    for (const note of relist.notes) out.push(`- ${mdText(note)}`);
    out.push('');
  }
  const ops = operationsView(n, zone, 'wide');
  if (ops) {
    out.push('### CRI operations', '');
    if (ops.rows.length > 0) {
      // Each count says its window: the metrics window's columns, then the whole log's (marked "log").
      const windows = [ops.metricsLabel && `calls, errors and latency: ${ops.metricsLabel}`, ops.logLabel && `columns marked (log): the ${ops.logLabel}`].filter(Boolean).join('; ');
      out.push(`${mdLead(windows.charAt(0).toUpperCase() + windows.slice(1))}.`, '');
      append(out, table(
        ops.columns.map((c) => (c.group === 'log' ? `${c.head} (log)` : c.head)),
        ops.rows.map((o) => ops.columns.map((c) => (c.group === 'name' ? cellCode(c.cell(o)) : cell(c.cell(o))))),
        ops.columns.map((c) => (c.right ? 'r' : 'l')),
      ), '');
    }
    if (ops.notes.length > 0) append(out, ops.notes.map((x) => `- ${mdText(x)}`), '');
  }
  return out;
}

export function renderMarkdown(analysis: Analysis, options: MarkdownOptions = {}): string {
  const zone = options.zone ?? 'UTC';
  const top = options.topFindings ?? 3;
  const nEvidence = options.evidenceLines ?? 3;
  const { files, roles } = filesRead(analysis);
  const out: string[] = ['# plegscope report', ''];
  out.push(`plegscope ${mdText(analysis.tool.version)} · ${count(analysis.nodes.length, 'node')} from ${count(files, 'file')}` +
    (roles.size ? ` (${[...roles.entries()].map(([r, k]) => `${r} ×${k}`).join(', ')})` : ''), '');
  const years = yearNote(analysis);
  if (years) out.push(`> **Note:** ${mdText(years)}`, '');
  for (const note of unreadNotes(analysis)) out.push(`> **Warning:** ${mdText(note.replace(/^warning: /, ''))}`, '');
  if (analysis.nodes.length === 0) out.push('No node in the input: what was read names none and shows no PLEG state (the warnings say what each file held).', '');

  const cluster = clusterOf(analysis);
  if (cluster) {
    out.push('## Cluster', '');
    for (const s of clusterSentences(cluster, zone)) out.push(`- ${mdLead(s)}`);
    out.push('');
    if (cluster.flapped.length > 0) {
      append(out, table(['node', 'stalls', 'first unhealthy', LONGEST_STALL, 'NotReady', 'cause', 'kubelet', 'runtime', 'pods'], cluster.flapped.map((n) => [
        cell(n.name), String(n.stalls), cell(displayTime(n.firstUnhealthyFrom, zone)), clusterLongest(n),
        n.nodeNotReady ? 'yes' : 'no', n.primaryCause ? cellCode(n.primaryCause) : 'unknown', cell(n.kubeletVersion ?? '?'), n.runtime ?? '?',
        n.runningPods === null ? '—' : String(n.runningPods),
      ]), ['l', 'r', 'l', 'r', 'l', 'l', 'l', 'l', 'r']), '');
    }
  }

  if (analysis.nodes.length > 0) {
    out.push('## Verdict', '');
    append(out, table(['node', 'PLEG', 'primary cause', 'confidence', 'stalls', LONGEST_STALL, 'NotReady', 'kubelet', 'runtime'], analysis.nodes.map((n) => [
      cell(n.name), verdictCell(n), n.verdict.primaryCause ? cellCode(n.verdict.primaryCause) : '—',
      n.verdict.plegUnhealthy ? n.verdict.confidence.toFixed(2) : '—', String(n.stalls.length), longestStallText(n),
      n.notReady.length > 0 ? 'yes' : 'no', cell(n.kubeletVersion ?? '?'), n.runtime ?? '?',
    ]), ['l', 'l', 'l', 'r', 'r', 'r', 'l', 'l', 'l']), '');
  }

  for (const n of analysis.nodes) append(out, nodeSection(n, zone, top, nEvidence));

  const loose = unattached(analysis);
  if (loose.length > 0) {
    out.push(`## ${UNATTACHED} (${count(loose.length, 'file')})`, '', 'Read, but in no node\'s verdict.', '');
    append(out, loose.map((x) => `- ${mdCode(x.path)} (${x.role}): ${mdText(sanitizeLine(unattachedWhy(analysis, x.path), 300))}`), '');
    const more = unattachedUnlisted(analysis);
    if (more > 0) out.push(`…and ${count(more, 'file')} more, counted in --format json (\`unlisted\`), not listed.`, '');
  }

  if (analysis.warnings.length > 0) {
    out.push(`## Warnings (${analysis.warnings.length})`, '');
    const item = (w: (typeof analysis.warnings)[number]) => `- ${w.file ? mdCode((w.path ?? w.file) + (w.line ? `:${w.line}` : '')) + ': ' : ''}${mdText(sanitizeLine(w.message, 300))}`;
    append(out, analysis.warnings.slice(0, 20).map(item), '');
    if (analysis.warnings.length > 20) append(out, details(`${analysis.warnings.length - 20} more warnings`, [...analysis.warnings.slice(20).map(item), '']));
  }
  return out.join('\n');
}

/** `out.push(...rows)` for lists as long as the input makes them (a spread of 100 000 items overflows the stack). */
function append(out: string[], rows: string[], ...tail: string[]): void {
  for (const r of rows) out.push(r);
  for (const t of tail) out.push(t);
}
