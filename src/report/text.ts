// The default report: verdict per node first, then the stall timeline (a one-line chart), the ranked findings with
// their best evidence lines, what was ruled out, the gaps and the per-operation latency table. Reads only the Analysis.
import { DateTime } from '../util/datetime.js';
import type { Analysis, NodeReport, Quantiles, Severity } from '../contract/analysis.js';
import { sanitize, sanitizeLine } from '../util/sanitize.js';

export interface TextOptions {
  color: boolean;
  /** IANA zone or fixed offset for displayed times. */
  zone: string;
  /** Evidence lines shown per finding. */
  evidenceLines?: number;
  width?: number;
}

const SEV_COLOR: Record<Severity, string> = { critical: '31;1', high: '31', medium: '33', low: '36', info: '2' };

class Painter {
  constructor(private readonly on: boolean) {}
  c(code: string, s: string): string {
    return this.on ? `\x1b[${code}m${s}\x1b[0m` : s;
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

export function fmtDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m${String(r).padStart(2, '0')}s` : `${m}m${String(r).padStart(2, '0')}s`;
}

export function fmtSeconds(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—';
  if (x < 0.001) return `${(x * 1e6).toFixed(0)}µs`;
  if (x < 1) return `${(x * 1000).toFixed(x < 0.01 ? 2 : 0)}ms`;
  return `${x < 10 ? x.toFixed(2) : x.toFixed(1)}s`;
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function lpad(s: string, n: number): string {
  return s.length >= n ? s : ' '.repeat(n - s.length) + s;
}

/** A one-line chart of the node's log window: █ stall, ▒ NotReady (no stall), | kubelet start, · normal. */
export function timelineBar(node: NodeReport, width: number): string | null {
  const a = Date.parse(node.coverage.from ?? node.window.start ?? '');
  const b = Date.parse(node.coverage.to ?? node.window.end ?? '');
  if (!Number.isFinite(a) || !Number.isFinite(b) || b <= a) return null;
  const cells: string[] = Array.from({ length: width }, () => '·');
  const col = (t: number): number => Math.min(width - 1, Math.max(0, Math.floor(((t - a) / (b - a)) * width)));
  for (const w of node.notReady) {
    const from = col(Date.parse(w.from));
    const to = col(w.to ? Date.parse(w.to) : b);
    for (let i = from; i <= to; i++) cells[i] = '▒';
  }
  for (const s of node.stalls) {
    // A stall whose lines carry no time has no place on the bar.
    if (s.unhealthyFrom === null) continue;
    const from = col(Date.parse(s.unhealthyFrom));
    const to = col(s.endedAt ? Date.parse(s.endedAt) : b);
    for (let i = from; i <= to; i++) cells[i] = '█';
  }
  for (const r of node.restarts) cells[col(Date.parse(r.at))] = '|';
  return cells.join('');
}

/** Where one source's samples lie: its first and last scrape (or step) and how many. */
export function metricsSpan(m: NonNullable<NodeReport['metricsFrom']>[number], zone: string): string {
  const unit = m.kind === 'prometheus' ? 'point' : 'scrape';
  const span = m.from && m.to && m.from !== m.to ? `${fmtTime(m.from, zone)} → ${fmtTime(m.to, zone, false)}` : fmtTime(m.from, zone);
  return `${span}, ${m.points} ${unit}${m.points === 1 ? '' : 's'}`;
}

function quantileLine(label: string, q: Quantiles | null): string | null {
  if (!q) return null;
  return `${label} p50 ${fmtSeconds(q.p50)}  p90 ${fmtSeconds(q.p90)}  p99 ${fmtSeconds(q.p99)}  max ${fmtSeconds(q.max)}`;
}

export function renderText(analysis: Analysis, opts: TextOptions): string {
  const p = new Painter(opts.color);
  const zone = opts.zone;
  const nEvidence = opts.evidenceLines ?? 3;
  const out: string[] = [];
  const arts = analysis.inputs.flatMap((i) => i.artifacts);
  const roles = new Map<string, number>();
  for (const a of arts) roles.set(a.role, (roles.get(a.role) ?? 0) + 1);
  out.push(`${p.bold('plegscope')} ${analysis.tool.version} — ${analysis.nodes.length} node(s) from ${arts.length} file(s) (${[...roles.entries()].map(([r, n]) => `${r}×${n}`).join(', ') || 'nothing readable'})`);
  if (analysis.nodes.length === 0) {
    out.push('', 'No kubelet log, runtime log or metrics found in the input.');
  }

  // Nodes with nothing to say (PLEG healthy, no finding, never NotReady) are listed together at the end: in a
  // 200-node must-gather the five that flapped must not drown among 195 healthy sections.
  const quiet = (n: NodeReport): boolean => !n.verdict.plegUnhealthy && n.findings.length === 0 && n.notReady.length === 0 && analysis.nodes.length > 1;
  for (const n of analysis.nodes) {
    if (quiet(n)) continue;
    out.push('');
    const v = n.verdict;
    const verdict = v.plegUnhealthy
      ? p.red(`PLEG UNHEALTHY`) + ` — cause: ${p.bold(v.primaryCause ?? 'unknown')} (confidence ${v.confidence.toFixed(2)})`
      : p.green('PLEG healthy') + (n.findings.some((f) => f.cause === 'other' && f.severity !== 'info') ? ` — ${p.yellow('node NotReady for another reason')}` : '');
    out.push(`${p.bold(sanitize(n.name))}  ${verdict}`);
    out.push(p.dim(`  kubelet ${n.kubeletVersion ?? 'version unknown'} · runtime ${n.runtime ?? 'unknown'} · logs ${fmtTime(n.window.start, zone)} → ${fmtTime(n.window.end, zone)}${n.coverage.truncated ? ' · TRUNCATED input' : ''}`));

    if (n.stalls.length > 0) {
      out.push(`  ${p.bold('Stalls')}`);
      n.stalls.forEach((s, i) => {
        out.push(`    #${i + 1} last relist ${fmtTime(s.lastRelistAt, zone)} · unhealthy from ${fmtTime(s.unhealthyFrom, zone, false)} · ended ${s.endedAt ? fmtTime(s.endedAt, zone, false) : '—'} (${s.endedBy}) · ${p.bold(fmtDuration(s.durationSeconds))} without a relist · max age ${fmtDuration(s.maxLastSeenAgoSeconds)}${s.nodeNotReady ? ' · ' + p.yellow('NodeNotReady') : ''}`);
      });
    }
    const bar = timelineBar(n, Math.max(20, (opts.width ?? 80) - 12));
    if (bar && (n.stalls.length > 0 || n.notReady.length > 0 || n.restarts.length > 1)) {
      out.push(`  ${p.bold('Timeline')}  ${p.dim('█ stall  ▒ NotReady  | kubelet start')}`);
      out.push(`    ${bar}`);
      out.push(`    ${pad(fmtTime(n.coverage.from, zone), Math.max(0, bar.length - 25))}${lpad(fmtTime(n.coverage.to, zone), 25)}`);
    }
    if (n.notReady.length > 0) {
      out.push(`  ${p.bold('NotReady')}`);
      for (const w of n.notReady.slice(0, 8)) out.push(`    ${fmtTime(w.from, zone)} → ${w.to ? fmtTime(w.to, zone, false) : 'end of log'}  ${sanitizeLine(w.reason, 140)}`);
      if (n.notReady.length > 8) out.push(p.dim(`    … ${n.notReady.length - 8} more`));
    }

    if (n.findings.length > 0) {
      out.push(`  ${p.bold('Findings')}`);
      n.findings.forEach((f, i) => {
        out.push(`    ${i + 1}. ${p.c(SEV_COLOR[f.severity], `[${f.severity}]`)} ${p.bold(f.title)}  ${p.dim(`${f.cause} · confidence ${f.confidence.toFixed(2)} · ${f.ruleId}`)}`);
        out.push(`       ${sanitize(f.summary)}`);
        for (const e of f.evidence.slice(0, nEvidence)) {
          out.push(p.dim(`       ${sanitize(e.file)}:${e.line}`) + `  ${sanitizeLine(e.text, 220)}`);
        }
        if (f.evidence.length > nEvidence) out.push(p.dim(`       … ${f.evidence.length - nEvidence} more evidence line(s) in --format json`));
        out.push(`       ${p.dim('remedy:')} ${sanitize(f.remediation)}`);
      });
    }
    if (n.ruledOut.length > 0) {
      out.push(`  ${p.bold('Ruled out')}`);
      for (const r of n.ruledOut) out.push(`    - ${r.cause}: ${sanitize(r.reason)}`);
    }
    if (n.gaps.length > 0) {
      out.push(`  ${p.bold('Gaps')} ${p.dim('(evidence that would decide more)')}`);
      for (const g of n.gaps) {
        out.push(`    - ${g.missing}: ${sanitize(g.why)}`);
        out.push(`      ${p.dim('$')} ${sanitize(g.collect)}`);
      }
    }
    if (n.metricsFrom && n.metricsFrom.length > 0) {
      out.push(`  ${p.bold('Metrics from')}`);
      for (const m of n.metricsFrom) out.push(`    ${sanitize(m.source)} ${p.dim(`(${metricsSpan(m, zone)})`)}`);
    }
    const relist = [quantileLine('duration', n.relist.durationSeconds), quantileLine('interval', n.relist.intervalSeconds)].filter((x): x is string => x !== null);
    if (relist.length > 0) {
      out.push(`  ${p.bold('Relist')} ${p.dim(`(${n.relist.source})`)}`);
      for (const l of relist) out.push(`    ${l}`);
    }
    if (n.pods.running !== null || n.pods.containers !== null) {
      out.push(`  ${p.bold('Pods')} running ${n.pods.running ?? '—'} · containers ${n.pods.containers ?? '—'}`);
    }
    if (n.operations.length > 0) {
      out.push(`  ${p.bold('CRI operations')}`);
      out.push(p.dim(`    ${pad('operation', 24)}${pad('source', 8)}${lpad('count', 9)}${lpad('errors', 8)}${lpad('timeouts', 10)}${lpad('p50', 9)}${lpad('p90', 9)}${lpad('p99', 9)}`));
      for (const o of n.operations) {
        const line = `    ${pad(sanitize(o.operation), 24)}${pad(o.source, 8)}${lpad(o.count === null ? '—' : String(o.count), 9)}${lpad(o.errors === null ? '—' : String(o.errors), 8)}${lpad(String(o.timeouts), 10)}${lpad(fmtSeconds(o.p50Seconds), 9)}${lpad(fmtSeconds(o.p90Seconds), 9)}${lpad(fmtSeconds(o.p99Seconds), 9)}`;
        out.push((o.errors ?? 0) > 0 || o.timeouts > 0 ? p.yellow(line) : line);
      }
    }
  }
  const quietNodes = analysis.nodes.filter(quiet);
  if (quietNodes.length > 0) {
    out.push('', `${p.green('PLEG healthy')}, nothing to report: ${quietNodes.length} node(s)`);
    const names = quietNodes.map((n) => sanitize(n.name));
    out.push(`  ${names.slice(0, 40).join(', ')}${names.length > 40 ? `, … ${names.length - 40} more (all in --format json)` : ''}`);
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
      out.push(`  ${w.file ? sanitize(w.file) + (w.line ? `:${w.line}` : '') + ': ' : ''}${sanitizeLine(w.message, 300)}${count > 1 ? p.dim(` (and ${count - 1} more like it)`) : ''}`);
    }
    if (shown.length > 20) out.push(p.dim(`  … ${shown.length - 20} more kinds in --format json`));
  }
  return out.join('\n') + '\n';
}
