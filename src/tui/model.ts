// What the TUI shows, gathered once from an analysis run: the Analysis (the contract every view reads), and per node
// the log artifacts its Log view merges and the times of its CRI errors (for the timeline's density rows).
import type { Analysis, NodeReport, Role } from '../contract/analysis.js';
import type { AnalysisRun } from '../analyze.js';
import type { Artifact } from '../sources/artifact.js';
import type { LogIndex } from '../sources/files/line-reader.js';

export interface LogSource {
  artifact: Artifact;
  index: LogIndex;
  role: Role;
  /** Path as the user finds it (what evidence refs name). */
  path: string;
  /** One letter for the Log view's source column: K kubelet, R runtime, N kernel. */
  tag: string;
}

export interface NodeData {
  report: NodeReport;
  /** The node's logs, kubelet first. */
  sources: LogSource[];
  /** CRI error times per operation (ascending epoch ms), one entry per failed call. */
  criErrors: Map<string, number[]>;
}

export interface TuiModel {
  analysis: Analysis;
  nodes: NodeData[];
  /** Zone for displayed times (IANA name, ±hh:mm, UTC). */
  zone: string;
  color: boolean;
  /** Started from a cluster (tui --kubeconfig): `c` in the overview collects the selected node again. */
  collect?: boolean;
}

const LOG_ROLES: Role[] = ['kubelet-log', 'runtime-log', 'kernel-log'];
const TAGS: Partial<Record<Role, string>> = { 'kubelet-log': 'K', 'runtime-log': 'R', 'kernel-log': 'N' };

export function buildModel(run: AnalysisRun, opts: { zone: string; color: boolean }): TuiModel {
  const { analysis } = run;
  const byId = new Map(run.artifacts.map((a) => [a.id, a]));
  const infoNode = new Map<string, string | null>();
  for (const inp of analysis.inputs) for (const a of inp.artifacts) infoNode.set(a.path, a.node);
  const nodes = analysis.nodes.map((report): NodeData => {
    const view = run.views?.nodes.get(report.name);
    const ids = view?.artifacts ?? run.artifacts.filter((a) => infoNode.get(a.path) === report.name).map((a) => a.id);
    const sources: LogSource[] = [];
    for (const id of ids) {
      const artifact = byId.get(id);
      const index = run.views?.logs.get(id);
      if (!artifact || !index || !LOG_ROLES.includes(artifact.role)) continue;
      sources.push({ artifact, index, role: artifact.role, path: artifact.path, tag: TAGS[artifact.role] ?? '?' });
    }
    sources.sort((a, b) => LOG_ROLES.indexOf(a.role) - LOG_ROLES.indexOf(b.role) || a.path.localeCompare(b.path));
    return { report, sources, criErrors: criTimes(view?.criErrors ?? []) };
  });
  return { analysis, nodes, zone: opts.zone, color: opts.color };
}

/** One count per failed call: the CRI client and its kuberuntime caller often log the same failure; keep the client's. */
export function criTimes(errors: ReadonlyArray<{ op: string; ts: number; layer: 'client' | 'caller' }>): Map<string, number[]> {
  const clientOps = new Set(errors.filter((e) => e.layer === 'client').map((e) => e.op));
  const out = new Map<string, number[]>();
  for (const e of errors) {
    if (!Number.isFinite(e.ts) || (e.layer === 'caller' && clientOps.has(e.op))) continue;
    let l = out.get(e.op);
    if (!l) out.set(e.op, (l = []));
    l.push(e.ts);
  }
  for (const l of out.values()) l.sort((a, b) => a - b);
  return out;
}

/** The log source an evidence ref points into (by path or one of the artifact's aliases). */
export function sourceOf(node: NodeData, file: string): number {
  const i = node.sources.findIndex((s) => s.path === file);
  if (i >= 0) return i;
  return node.sources.findIndex((s) => s.artifact.aliases?.includes(file) ?? false);
}
