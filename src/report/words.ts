// The words every view uses for the same thing: a node's verdict, the durations tables show. One place, so the text
// report, Markdown, HTML, JUnit and the TUI say the same about the same node.
import type { NodeReport } from '../contract/analysis.js';

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
