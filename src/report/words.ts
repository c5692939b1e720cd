// The words every view uses for the same thing: a node's verdict, the durations tables show. One place, so the text
// report, Markdown, HTML, JUnit and the TUI say the same about the same node.
import type { Analysis, ArtifactInfo, Finding, NodeReport } from '../contract/analysis.js';
import { WEAK_CONFIDENCE } from '../contract/analysis.js';

export type VerdictKind = 'unhealthy' | 'notready' | 'healthy' | 'unknown';

/** Stalled; else NotReady for a reason that is not PLEG (relists worked); else healthy — when the input can tell
 *  (coverage.plegHealthyBy): a node known only from its kernel or runtime log, a goroutine dump, command output, a few
 *  event rows or a few kubelet lines has no PLEG state in the input at all. */
export function verdictKind(n: NodeReport): VerdictKind {
  if (n.verdict.plegUnhealthy) return 'unhealthy';
  if (n.verdict.plegState === 'unknown') return 'unknown';
  return n.notReady.length > 0 ? 'notready' : 'healthy';
}

/** The verdict as a phrase (report headings, badges, the TUI's node header). */
export const VERDICT: Record<VerdictKind, string> = {
  unhealthy: 'PLEG unhealthy',
  notready: 'no PLEG stall — NotReady for another reason',
  healthy: 'PLEG healthy',
  unknown: 'PLEG state unknown — nothing in the input shows whether relist worked',
};

/** The verdict in a table cell under a "PLEG" heading. */
export const VERDICT_CELL: Record<VerdictKind, string> = {
  unhealthy: 'unhealthy',
  notready: 'no stall, NotReady',
  healthy: 'healthy',
  unknown: 'unknown',
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

/** Roles of files that are some node's own evidence (a cluster's objects and a controller's log are not). */
const NODE_EVIDENCE = new Set<string>(['kubelet-log', 'runtime-log', 'kernel-log', 'metrics', 'goroutine-dump', 'healthz']);

/** Files the analysis read but could tie to no node (every view lists them: their evidence is in no node's verdict). */
export function unattached(a: Analysis): ArtifactInfo[] {
  return a.inputs.flatMap((i) => i.artifacts).filter((x) => x.node === null && NODE_EVIDENCE.has(x.role));
}

/** Files tied to no node that the report counts but does not list (InputInfo.unlisted). */
export function unattachedUnlisted(a: Analysis): number {
  let n = 0;
  for (const i of a.inputs) for (const u of i.unlisted ?? []) if (u.node === null && NODE_EVIDENCE.has(u.role)) n += u.files;
  return n;
}

/** Every file read, listed or counted (InputInfo.unlisted): how many, and how many of each role, in order of first. */
export function filesRead(a: Analysis): { files: number; roles: Map<string, number> } {
  const roles = new Map<string, number>();
  let files = 0;
  for (const i of a.inputs) {
    for (const x of i.artifacts) roles.set(x.role, (roles.get(x.role) ?? 0) + 1);
    for (const u of i.unlisted ?? []) roles.set(u.role, (roles.get(u.role) ?? 0) + u.files);
    files += i.artifacts.length + (i.unlisted ?? []).reduce((t, u) => t + u.files, 0);
  }
  return { files, roles };
}

/** `and 32 333 more kubelet-log files of node-0 (64 666 lines, 6.2 MiB)`: files counted but not listed (views sanitise
 *  the node name). */
export function unlistedWords(u: { node: string | null; role: string; files: number; lines: number; bytes: number }): string {
  return `and ${u.files} more ${u.role} file${u.files === 1 ? '' : 's'} ${u.node === null ? 'tied to no node' : `of ${u.node}`} (${count(u.lines, 'line')}, ${mib(u.bytes)}), counted but not listed`;
}

function mib(bytes: number): string {
  return bytes >= 1 << 20 ? `${(bytes / (1 << 20)).toFixed(1)} MiB` : bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : count(bytes, 'byte');
}

/** Why a file is tied to no node: the warning the analysis gave for it, else a general reason. */
export function unattachedWhy(a: Analysis, file: string): string {
  return a.warnings.find((w) => w.file === file && /not tied to a node|not attached|left unattached/.test(w.message))?.message
    ?? 'no node name in it, its folder or its file name';
}

/** The heading of the list of files tied to no node. */
export const UNATTACHED = 'Not tied to a node';

const ASSUMED: Record<string, string> = { 'file-name': 'the date in the file name', 'file-date': 'the file\'s modification date', today: 'this year' };

/** When year-less stamps were read in a year the input does not state: one sentence saying which files, which year,
 *  from what, and how to set it; null when no year was assumed. */
export function yearNote(a: Analysis): string | null {
  const groups = new Map<string, string[]>();
  // Files the report counts without listing them (InputInfo.unlisted), in the same year found the same way.
  const unlisted = new Map<string, number>();
  const key = (y: NonNullable<ArtifactInfo['year']>): string => `${y.value} (${ASSUMED[y.from]})`;
  for (const x of a.inputs.flatMap((i) => i.artifacts)) {
    if (!x.year || !(x.year.from in ASSUMED)) continue;
    const k = key(x.year);
    groups.set(k, [...(groups.get(k) ?? []), x.path]);
  }
  for (const u of a.inputs.flatMap((i) => i.unlisted ?? [])) if (u.year && u.year.from in ASSUMED) unlisted.set(key(u.year), (unlisted.get(key(u.year)) ?? 0) + u.files);
  if (groups.size === 0) return null;
  const parts = [...groups].map(([k, files]) => {
    const more = Math.max(0, files.length - 3) + (unlisted.get(k) ?? 0);
    return `as ${k} in ${files.slice(0, 3).join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
  });
  return `Times without a year were read ${parts.join('; ')}: nothing in the input states the year. If it is another, pass --year YYYY.`;
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

/** Sources asked for that could not be read (a `--prometheus` server down), said under every view's header — where a
 *  reader looks first — as well as among the warnings. Log text: views sanitise it. */
export function unreadNotes(a: Analysis): string[] {
  return a.warnings.filter((w) => w.unread).map((w) => `warning: ${w.file ? `${w.file}: ` : ''}${w.message}`);
}
