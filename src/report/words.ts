// The words every view uses for the same thing: a node's verdict, the durations tables show. One place, so the text
// report, Markdown, HTML, JUnit and the TUI say the same about the same node.
import type { Finding, NodeReport } from '../contract/analysis.js';
import { WEAK_CONFIDENCE } from '../contract/analysis.js';

export type VerdictKind = 'unhealthy' | 'notready' | 'healthy';

/** Stalled; else NotReady for a reason that is not PLEG (relists worked); else healthy. */
export function verdictKind(n: NodeReport): VerdictKind {
  if (n.verdict.plegUnhealthy) return 'unhealthy';
  return n.notReady.length > 0 ? 'notready' : 'healthy';
}

/** The verdict as a phrase (report headings, badges, the TUI's node header). */
export const VERDICT: Record<VerdictKind, string> = {
  unhealthy: 'PLEG unhealthy',
  notready: 'PLEG healthy — NotReady for another reason',
  healthy: 'PLEG healthy',
};

/** The verdict in a table cell under a "PLEG" heading. */
export const VERDICT_CELL: Record<VerdictKind, string> = {
  unhealthy: 'unhealthy',
  notready: 'healthy, NotReady',
  healthy: 'healthy',
};

/** Headings of the duration columns: a stall's duration is the time without a completed relist (from the last good
 *  relist to the first proof of one), three minutes more than the node was reported unhealthy. */
export const LONGEST_STALL = 'longest stall (no relist)';
export const STALL_DURATION = 'without a relist';

/** Lines a report folds away, by what they show. */
export const FOLDED = {
  evidence: ['evidence line', 'evidence lines'],
  stall: ['line that shows the stall', 'lines that show the stalls'],
} as const;

/** What a fold of `n` lines says it holds: `3 more evidence lines` after some are shown, `2 lines that show the
 *  stalls` when it holds all of them. */
export function foldLabel(n: number, after: boolean, kind: keyof typeof FOLDED): string {
  return `${n}${after ? ' more' : ''} ${FOLDED[kind][n === 1 ? 0 : 1]}`;
}

/** `n` and the word for that many: `1 node`, `3 nodes`, `1 stall window` (`many` for irregular plurals). */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A finding's severity as reported: `high`, or `medium (rule: critical)` when it is reported below its rule's severity
 *  (not established, or contradicted: engine.ts effectiveSeverity). */
export function severityWords(f: Finding): string {
  return f.ruleSeverity && f.ruleSeverity !== f.severity ? `${f.severity} (rule: ${f.ruleSeverity})` : f.severity;
}

/** The section after the findings that lists weak alternatives (`considered` findings), and what puts one there. */
export const ALSO_CONSIDERED = {
  title: 'Also considered',
  why: `weak: confidence below ${WEAK_CONFIDENCE.toFixed(2)} or evidence against`,
  /** The sentence under the heading (Markdown, HTML: backticks are code). */
  note: `Weak alternatives: confidence below ${WEAK_CONFIDENCE.toFixed(2)} or evidence against them; no \`--fail-on\` level counts them.`,
} as const;

/** A node's findings split: those that stand, then the weak alternatives the reports list under ALSO_CONSIDERED. */
export function splitFindings(fs: readonly Finding[]): { shown: Finding[]; considered: Finding[] } {
  return { shown: fs.filter((f) => !f.considered), considered: fs.filter((f) => f.considered) };
}
