// The default report: with several nodes the cluster summary first, then per node its verdict, the stall timeline (a
// one-line chart), the ranked findings with their best evidence lines, what was ruled out, the gaps and the
// per-operation latency table. Reads only the Analysis. Fits the terminal: prose wraps at words, the timeline is cut to
// the width, an evidence line shows its message (without the prefix the report already shows) wrapped under itself,
// whole in a file or a pipe; a collection command stays one line.
import { DateTime } from '../util/datetime.js';
import type { Analysis, EvidenceRef, Finding, NodeReport, Severity } from '../contract/analysis.js';
import { sanitize } from '../util/sanitize.js';
import { cutMiddle, fmtDuration, fmtSeconds, shortNames, wrapHanging, wrapWords } from './layout.js';
import { ALSO_CONSIDERED, count, foldLabel, severityWords, splitFindings, UNATTACHED, unattached, unattachedUnlisted, unattachedWhy, filesRead, VERDICT, verdictKind, yearNote, unreadNotes } from './words.js';
import { checkResult, renderClusterText, stallDuration, stallEndPhrase, stallStart } from './cluster.js';
import { operationsTable, relistLines } from './latency.js';
import { fleetTimeline, TIMELINE_LEGEND, timelineBar } from './timeline-bar.js';

export interface TextOptions {
  color: boolean;
  /** IANA zone or fixed offset for displayed times. */
  zone: string;
  /** Evidence lines shown per finding (default 3; Infinity: all). */
  evidenceLines?: number;
  /** Columns to fit (default 80). */
  width?: number;
  /** Columns evidence lines wrap at (default `width`); Infinity: each on one line, whole (a file, a pipe). */
  evidenceWidth?: number;
}

// Re-exported: other modules have long imported them from here.
export { fmtDuration, fmtSeconds };

const SEV_COLOR: Record<Severity, string> = { critical: '31;1', high: '31', medium: '33', low: '36', info: '2' };

export class Painter {
  constructor(private readonly on: boolean) {}
  c(code: string, s: string): string {
    return this.on && s ? `\x1b[${code}m${s}\x1b[0m` : s;
  }
  bold(s: string): string { return this.c('1', s); }
  dim(s: string): string { return this.c('2', s); }
  red(s: string): string { return this.c('31;1', s); }
  green(s: string): string { return this.c('32', s); }
  yellow(s: string): string { return this.c('33', s); }
}

function fmtTime(isoStr: string | null, zone: string, withDate = true): string {
  if (!isoStr) return '—';
  const d = DateTime.fromISO(isoStr, { zone });
  if (!d.isValid) return isoStr;
  return d.toFormat(withDate ? 'yyyy-MM-dd HH:mm:ss ZZ' : 'HH:mm:ss');
}

function lpad(s: string, n: number): string {
  return s.length >= n ? s : ' '.repeat(n - s.length) + s;
}

// The one-line chart lives with the fleet timeline (timeline-bar.ts); re-exported: the TUI has long imported it here.
export { timelineBar };

/** Where one source's samples lie: its first and last scrape (or step) and how many. */
export function metricsSpan(m: NonNullable<NodeReport['metricsFrom']>[number], zone: string): string {
  const unit = m.kind === 'prometheus' ? 'point' : 'scrape';
  const span = m.from && m.to && m.from !== m.to ? `${fmtTime(m.from, zone)} → ${fmtTime(m.to, zone, false)}` : fmtTime(m.from, zone);
  return `${span}, ${m.points} ${unit}${m.points === 1 ? '' : 's'}`;
}

/** Rows an evidence line may take when it wraps; past them the rest is cut in the middle (its end — `err=…` — says most). */
const EVIDENCE_ROWS = 4;

/**
 * An evidence line: its place and time (once: the line's own stamp is not repeated), then its message (the line without
 * the prefix the report already shows: host, unit, klog header), wrapped under itself rather than cut, so that its head
 * (`"ListPodSandbox with filter from runtime service failed"`) and its end (`err=…`) both stay. `width` Infinity: one
 * line, whole (a file or a pipe). Every row but the first is indented by `indent` more columns than the first.
 */
export function evidenceRows(e: EvidenceRef, width: number, zone: string, indent = 2): string[] {
  const time = e.ts ? fmtTime(e.ts, zone, false) : '';
  const body = sanitize(e.message ?? e.text).replace(/\t/g, ' ');
  if (!Number.isFinite(width)) return [`${sanitize(e.file)}:${e.line}  ${time ? `${time}  ` : ''}${body}`];
  const where = cutMiddle(`${sanitize(e.file)}:${e.line}`, Math.max(8, width - time.length - 2));
  const head = `${where}  ${time ? `${time}  ` : ''}`;
  // A place too long to leave room for the message: the message starts on the next row.
  const rows = head.length > width - 20 ? [head.trimEnd(), ...wrapHanging(' '.repeat(indent), body, width, indent)] : wrapHanging(head, body, width, indent);
  if (rows.length <= EVIDENCE_ROWS) return rows;
  const rest = rows.slice(EVIDENCE_ROWS - 1).map((r) => r.trim()).join(' ');
  return [...rows.slice(0, EVIDENCE_ROWS - 1), ' '.repeat(indent) + cutMiddle(rest, width - indent, 0.25)];
}

/** A finding's summary one fact per line (its `lines`; a list item hangs under its `- `), else its paragraph. */
function findingProse(f: Finding, prose: (first: string, text: string, indent?: number) => void): void {
  if (!f.lines?.length) return prose('       ', sanitize(f.summary));
  for (const l of f.lines) {
    if (l.startsWith('- ')) prose('         - ', sanitize(l.slice(2)), 11);
    else prose('       ', sanitize(l), 9);
  }
}

/** The fleet on one time axis (timeline-bar.ts): a row per node, names shortened alike, the axis's ends under it. */
function fleetText(analysis: Analysis, W: number, zone: string, p: Painter, out: string[]): void {
  const nameW = Math.min(24, Math.max(8, ...analysis.nodes.map((n) => sanitize(n.name).length)));
  const fleet = fleetTimeline(analysis.nodes, Math.max(20, W - nameW - 5));
  if (!fleet) return;
  out.push('', `  ${p.bold('Fleet timeline')}  ${p.dim(TIMELINE_LEGEND)}`);
  const names = shortNames(fleet.rows.map((r) => sanitize(r.name)), nameW);
  fleet.rows.forEach((r, i) => out.push(`  ${(names[i] as string).padEnd(nameW)} ${r.cells}`));
  const from = fmtTime(new Date(fleet.axis.a).toISOString(), zone);
  const to = fmtTime(new Date(fleet.axis.b).toISOString(), zone);
  const w = fleet.rows[0]?.cells.length ?? 0;
  const span = `${from} → ${to}`;
  out.push(from.length + to.length + 1 <= w ? `  ${' '.repeat(nameW)} ${from}${lpad(to, w - from.length)}`
    : nameW + 3 + span.length <= W ? `  ${' '.repeat(nameW)} ${span}` : `  ${span}`);
  if (fleet.left > 0) out.push(p.dim(`  … ${count(fleet.left, 'more node')} (PLEG healthy) not drawn`));
}

export function renderText(analysis: Analysis, opts: TextOptions): string {
  const p = new Painter(opts.color);
  const zone = opts.zone;
  const W = Math.max(40, opts.width ?? 80);
  const nEvidence = opts.evidenceLines ?? 3;
  const evidenceW = opts.evidenceWidth === undefined ? W : Number.isFinite(opts.evidenceWidth) ? Math.max(40, opts.evidenceWidth) : Infinity;
  const out: string[] = [];
  /** Prose: wrapped at words, each line painted on its own (so no colour runs across a line end). */
  const prose = (first: string, text: string, indent = first.length, paint: (s: string) => string = (s) => s): void => {
    for (const l of wrapHanging(first, text, W, indent)) out.push(paint(l));
  };
  const { files, roles } = filesRead(analysis);
  const head = wrapWords(`plegscope ${analysis.tool.version} — ${count(analysis.nodes.length, 'node')} from ${count(files, 'file')} (${[...roles.entries()].map(([r, n]) => `${r}×${n}`).join(', ') || 'nothing readable'})`, W);
  out.push(...head.map((l, i) => (i === 0 ? l.replace(/^plegscope/, p.bold('plegscope')) : l)));
  const years = yearNote(analysis);
  if (years) prose('', sanitize(years), 2, (s) => p.yellow(s));
  for (const note of unreadNotes(analysis)) prose('', sanitize(note), 2, (s) => p.yellow(s));
  if (analysis.nodes.length === 0) {
    out.push('');
    prose('', 'No node in the input: what was read names none and shows no PLEG state (the warnings say what each file held).', 0);
  }
  const cluster = renderClusterText(analysis, { color: opts.color, zone, width: W });
  if (cluster) out.push('', cluster.trimEnd());
  fleetText(analysis, W, zone, p, out);

  // Nodes with nothing to say (PLEG healthy, no finding, never NotReady) are listed together at the end: in a
  // 200-node must-gather the five that flapped must not drown among 195 healthy sections.
  const quiet = (n: NodeReport): boolean => verdictKind(n) === 'healthy' && n.findings.length === 0 && analysis.nodes.length > 1;
  for (const n of analysis.nodes) {
    if (quiet(n)) continue;
    out.push('');
    const v = n.verdict;
    const kind = verdictKind(n);
    const name = sanitize(n.name);
    const verdict = kind === 'unhealthy'
      ? `${VERDICT.unhealthy} — cause: ${v.primaryCause ?? 'unknown'} (confidence ${v.confidence.toFixed(2)})`
      : VERDICT[kind];
    const headLines = wrapHanging(`${name}  `, verdict, W, 4);
    out.push(...headLines.map((l, i) => {
      const body = i === 0 ? l.slice(name.length + 2) : l;
      const painted = kind === 'unhealthy' ? body.replace(VERDICT.unhealthy, p.red(VERDICT.unhealthy)) : kind === 'healthy' ? p.green(body) : p.yellow(body);
      return i === 0 ? `${p.bold(name)}  ${painted}` : painted;
    }));
    prose('  ', `kubelet ${n.kubeletVersion ?? 'version unknown'} · runtime ${n.runtime ?? 'unknown'} · logs ${fmtTime(n.window.start, zone)} → ${fmtTime(n.window.end, zone)}${n.coverage.truncated ? ' · TRUNCATED input' : ''}`, 4, (s) => p.dim(s));

    if (n.stalls.length > 0) {
      out.push(`  ${p.bold('Stalls')}`);
      n.stalls.forEach((s, i) => {
        const unhealthy = s.unhealthyFrom === null ? '' : ` · unhealthy from ${fmtTime(s.unhealthyFrom, zone, false)}`;
        prose(`    #${i + 1} `, `last relist ${stallStart(s, zone)}${unhealthy} · ${stallEndPhrase(s, zone)} · ${stallDuration(s)} without a relist · max age ${fmtDuration(s.maxLastSeenAgoSeconds)}${s.nodeNotReady ? ' · NodeNotReady' : ''}`, 7);
      });
    }
    const bar = timelineBar(n, W - 4);
    if (bar && (n.stalls.length > 0 || n.notReady.length > 0 || n.restarts.length > 1)) {
      out.push(`  ${p.bold('Timeline')}  ${p.dim(TIMELINE_LEGEND)}`);
      out.push(`    ${bar}`);
      const from = fmtTime(n.coverage.from ?? n.window.start, zone);
      const to = fmtTime(n.coverage.to ?? n.window.end, zone);
      out.push(from.length + to.length + 1 <= bar.length ? `    ${from}${lpad(to, bar.length - from.length)}` : `    ${from} → ${to}`);
    }
    if (n.notReady.length > 0) {
      out.push(`  ${p.bold('NotReady')}`);
      for (const w of n.notReady.slice(0, 8)) prose('    ', `${fmtTime(w.from, zone)} → ${w.to ? fmtTime(w.to, zone, false) : 'end of log'}  ${sanitize(w.reason)}`, 6);
      if (n.notReady.length > 8) out.push(p.dim(`    … ${n.notReady.length - 8} more`));
    }

    // A finding: its severity as reported, title, summary, evidence lines, the greps of its counts and the remedy (but
    // for a weak alternative, "also considered": its summary says what speaks against it, and its remedy is no advice).
    const finding = (f: Finding, lead: string): void => {
      const sev = `[${severityWords(f)}]`;
      const title = wrapHanging(lead, `${sev} ${sanitize(f.title)}  ${f.cause} · confidence ${f.confidence.toFixed(2)} · ${f.ruleId}`, W, 7);
      out.push(...title.map((l) => l.replace(sev, p.c(SEV_COLOR[f.severity], sev))));
      findingProse(f, prose);
      for (const e of f.evidence.slice(0, nEvidence)) {
        const rows = evidenceRows(e, Number.isFinite(evidenceW) ? evidenceW - 7 : Infinity, zone);
        const where = `${sanitize(e.file)}:${e.line}`;
        out.push(...rows.map((r, i) => `       ${i === 0 && r.startsWith(where) ? p.dim(where) + r.slice(where.length) : r}`));
      }
      if (f.evidence.length > nEvidence) out.push(p.dim(`       … ${foldLabel(f.evidence.length - nEvidence, true, 'evidence')}: --evidence all shows every one`));
      // The counts the summary states, each with the grep that gives it: commands, never wrapped, pasteable whole
      // (what it prints is a shell comment).
      if (f.checks?.length) out.push(`       ${p.dim('check the counts:')}`);
      for (const c of f.checks ?? []) out.push(`       ${p.dim('$')} ${sanitize(c.grep)}  ${p.dim(`# → ${checkResult(c)}`)}`);
      if (!f.considered) prose('       remedy: ', sanitize(f.remediation), 7, (s) => s.replace(/^( {7})remedy:/, `$1${p.dim('remedy:')}`));
    };
    const { shown, considered } = splitFindings(n.findings);
    if (shown.length > 0) {
      out.push(`  ${p.bold('Findings')}`);
      shown.forEach((f, i) => finding(f, `    ${i + 1}. `));
    }
    if (considered.length > 0) {
      out.push(`  ${p.bold(ALSO_CONSIDERED.title)} ${p.dim(`(${ALSO_CONSIDERED.why})`)}`);
      for (const f of considered) finding(f, '    - ');
    }
    if (n.ruledOut.length > 0) {
      out.push(`  ${p.bold('Ruled out')}`);
      for (const r of n.ruledOut) prose('    - ', `${r.cause}: ${sanitize(r.reason)}`);
    }
    if (n.gaps.length > 0) {
      out.push(`  ${p.bold('Gaps')} ${p.dim('(evidence that would decide more)')}`);
      for (const g of n.gaps) {
        prose('    - ', `${g.missing}: ${sanitize(g.why)}`);
        // Commands are never wrapped: a wrapped command cannot be pasted.
        for (const c of g.collect.split('\n')) out.push(c.startsWith('#') ? `      ${p.dim(sanitize(c))}` : `      ${p.dim('$')} ${sanitize(c)}`);
      }
    }
    if (n.metricsFrom && n.metricsFrom.length > 0) {
      out.push(`  ${p.bold('Metrics from')}`);
      for (const m of n.metricsFrom) out.push(`    ${sanitize(m.source)} ${p.dim(`(${metricsSpan(m, zone)})`)}`);
    }
    const relist = relistLines(n, zone);
    if (relist) {
      prose('  Relist  ', relist.window, 4, (s) => (s.startsWith('  Relist  ') ? `  ${p.bold('Relist')}  ${p.dim(s.slice(10))}` : p.dim(s)));
      for (const l of relist.lines) prose(`    ${l.label.padEnd(10)}`, l.text, 14);
      for (const note of relist.notes) prose('    ', note, 4, (s) => p.dim(s));
    }
    if (n.pods.running !== null || n.pods.containers !== null) {
      out.push(`  ${p.bold('Pods')} running ${n.pods.running ?? '—'} · containers ${n.pods.containers ?? '—'}`);
    }
    const ops = operationsTable({ ...n, operations: n.operations.map((o) => ({ ...o, operation: sanitize(o.operation) })) }, zone, W - 4);
    if (ops) {
      out.push(`  ${p.bold('CRI operations')}`);
      if (ops.rows.length > 0) {
        // Aligned over the bar when it fits (prose would close up its spaces), else wrapped.
        if (ops.groups && ops.groups.length <= W - 4) out.push(p.dim(`    ${ops.groups}`));
        else if (ops.groups) prose('    ', ops.groups, 4, (s) => p.dim(s));
        out.push(p.dim(`    ${ops.head}`));
        for (const r of ops.rows) {
          const line = `    ${r.line}`;
          out.push((r.op.errors ?? 0) > 0 || r.op.timeouts > 0 ? p.yellow(line) : line);
        }
      }
      for (const note of ops.notes) prose('    ', note, 4, (s) => p.dim(s));
    }
  }
  const quietNodes = analysis.nodes.filter(quiet);
  if (quietNodes.length > 0) {
    out.push('', `${p.green(VERDICT.healthy)}, nothing to report: ${count(quietNodes.length, 'node')}`);
    const names = quietNodes.map((n) => sanitize(n.name));
    prose('  ', `${names.slice(0, 40).join(', ')}${names.length > 40 ? `, … ${names.length - 40} more (all in --format json)` : ''}`);
  }
  const loose = unattached(analysis);
  const looseMore = unattachedUnlisted(analysis);
  if (loose.length > 0) {
    out.push('', `${p.bold(`${UNATTACHED} (${count(loose.length + looseMore, 'file')})`)} ${p.dim('— read, but in no node\'s verdict')}`);
    for (const x of loose.slice(0, 20)) prose('  - ', `${sanitize(x.path)} (${x.role}): ${sanitize(unattachedWhy(analysis, x.path))}`, 4);
    if (loose.length > 20) out.push(p.dim(`  … ${loose.length - 20} more in --format json${looseMore ? ` (and ${looseMore} counted there, not listed)` : ''}`));
  }
  if (analysis.warnings.length > 0) {
    out.push('', p.bold(`Warnings (${analysis.warnings.length})`));
    // Warnings that differ only in a name or a number (one per node of a must-gather) are shown once, with a count.
    const shape = (m: string): string => m.replace(/^[\w.-]+: /, '').replace(/\d+/g, '#').replace(/`[^`]*`/g, '`…`').replace(/\b[\w-]*\d[\w.-]*\b/g, '#');
    const groups = new Map<string, { first: (typeof analysis.warnings)[number]; count: number }>();
    for (const w of analysis.warnings) {
      const key = `${w.file ?? ''}|${shape(w.message)}`;
      const g = groups.get(key);
      if (g) g.count++;
      else groups.set(key, { first: w, count: 1 });
    }
    const shown = [...groups.values()];
    for (const { first: w, count } of shown.slice(0, 20)) {
      const more = count > 1 ? ` (and ${count - 1} more like it)` : '';
      const lines = wrapHanging('  ', `${w.file ? sanitize(w.path ?? w.file) + (w.line ? `:${w.line}` : '') + ': ' : ''}${sanitize(w.message)}${more}`, W, 4);
      out.push(...lines.map((l, i) => (more && i === lines.length - 1 && l.endsWith(more.trim()) ? l.replace(more.trim(), p.dim(more.trim())) : l)));
    }
    if (shown.length > 20) out.push(p.dim(`  … ${shown.length - 20} more kinds in --format json`));
  }
  return out.join('\n') + '\n';
}

