// The pipeline, end to end: sources → parse/signals → model → rules → the Analysis (the one contract every view reads).
// Only this file knows every stage; each stage knows only the ones before it.
import type {
  Analysis, EvidenceRef, Finding, NodeReport, OperationStats, Quantiles,
} from './contract/analysis.js';
import { SCHEMA_VERSION } from './contract/analysis.js';
import type { Artifact, Reach } from './sources/artifact.js';
import { join as pathJoin } from 'node:path';
import { statSync } from 'node:fs';
import type { LogIndex } from './sources/files/line-reader.js';
import { JOURNAL_FIELDS } from './sources/files/journal.js';
import { foldCommand } from './sources/files/fold.js';
import { EXPORT_ENTRIES_JQ } from './sources/files/exports.js';
import { iso } from './parse/time.js';
import { messageOf } from './parse/message.js';
import { buildNodes, type NodeModel } from './model/node.js';
import { plegCoverage } from './model/coverage.js';
import { computeFacts, type Cite } from './rules/facts.js';
import { evaluate, type NodeJudgement } from './rules/engine.js';
import { BUILTIN_RULES } from './rules/catalog.js';
import { BUILTIN_GAPS } from './rules/gaps.js';
import type { GapSpec, RuleSpec } from './rules/spec.js';
import { TOOL_VERSION } from './version.js';
import { plurals } from './util/plural.js';
import { readInputs, type ReadOptions } from './sources/files/reads.js';
import type { PrometheusAsk } from './sources/prometheus/history.js';
import type { SourceRead } from './sources/source.js';

export interface AnalyzeOptions extends ReadOptions {
  rules?: RuleSpec[];
  gaps?: GapSpec[];
  now?: () => Date;
  /** A kubeconfig is at hand (the CLI looks: $KUBECONFIG, ~/.kube/config): gaps end with `plegscope collect`. */
  kubeconfigAtHand?: boolean;
  /** A Prometheus history read next to the files (--prometheus): src/sources/prometheus/history.ts. */
  prometheus?: PrometheusAsk;
}

export interface AnalysisRun {
  analysis: Analysis;
  /** Per node, every rule evaluated (JUnit wants one testcase per rule). */
  evaluated: Map<string, NodeJudgement['evaluated']>;
  /** Artifact id → path and byte offsets known, for views that re-read lines lazily (TUI). */
  artifacts: Artifact[];
  /** For views that re-read lines lazily (TUI): per log artifact id its line checkpoints and clock; per node its
   *  artifact ids and the times of its CRI errors (for density charts). */
  views?: ViewIndex;
  /** Archive members read while the archive was indexed; of them, kept, or read again because the options differed
   *  (the rest turned out not to be read at all). */
  early: { read: number; kept: number; reread: number };
}

export interface ViewIndex {
  logs: Map<number, LogIndex>;
  nodes: Map<string, { artifacts: number[]; criErrors: Array<{ op: string; ts: number; layer: 'client' | 'caller' }> }>;
}

export async function analyze(opts: AnalyzeOptions): Promise<AnalysisRun> {
  // Sources (src/sources): every input read, on this thread and workers (files: per artifact its signals, metrics,
  // dumps, extras); then the Prometheus history, asked for the nodes and stalls the files show (or --node over
  // --since/--until). Ids continue from one source to the next.
  const files = await readInputs(opts);
  const prom = opts.prometheus ? await (await import('./sources/prometheus/history.js')).prometheusData(opts.prometheus, files.data, files.disc.artifacts.length) : null;
  const sources: SourceRead[] = prom ? [files, prom] : [files];

  // Model: per node its timeline, CRI operations and metrics.
  const { nodes, warnings: modelWarnings } = buildNodes(sources.flatMap((s) => s.data));
  for (const w of modelWarnings) {
    const a = w.artifact !== null ? files.disc.artifacts[w.artifact] : undefined;
    if (a) files.warn(a, null, w.message);
    else files.warnings.push({ file: null, line: null, message: w.message });
  }

  // Rules: per node its facts, judged; then the report, as the contract every view reads.
  const rules = opts.rules ?? BUILTIN_RULES;
  const gaps = opts.gaps ?? BUILTIN_GAPS;
  const evaluated = new Map<string, NodeJudgement['evaluated']>();
  const fileOf = (id: number): string => sources.map((s) => s.cite(id)).find((c) => c !== undefined) ?? '?';
  const located = new Map<number, Located | null>();
  const sourceOf = (id: number): Located | null => {
    if (!located.has(id)) {
      const a = files.disc.artifacts[id];
      located.set(id, a ? locate(a, files.disc.inputs[a.input]?.path, files.disc.inputs[a.input]?.kind) : null);
    }
    return located.get(id) ?? null;
  };
  const served = new Set(sources.flatMap((s) => [...s.served]));
  const reports: NodeReport[] = nodes.map((n) => {
    const sheet = computeFacts(n);
    // A kubeconfig at hand: the gaps end with the plegscope collect command that gets them all.
    if (opts.kubeconfigAtHand) sheet.facts['cluster.kubeconfig'] = true;
    const judgement = evaluate(rules, gaps, sheet);
    evaluated.set(n.name, judgement.evaluated);
    return toNodeReport(n, judgement, fileOf, served, sourceOf);
  });
  // Each artifact's node, found once (a scan of every node per artifact was quadratic in a folder of many files).
  const firstNode = new Map<number, string>();
  for (const n of nodes) for (const id of n.artifacts) if (!firstNode.has(id)) firstNode.set(id, n.name);
  const nodeOf = (id: number): string | null => firstNode.get(id) ?? null;

  const analysis: Analysis = {
    schemaVersion: SCHEMA_VERSION,
    tool: { name: 'plegscope', version: TOOL_VERSION },
    generatedAt: (opts.now?.() ?? new Date()).toISOString(),
    inputs: sources.flatMap((s) => s.inputs(nodeOf)),
    nodes: reports,
    warnings: sortWarnings(sources.flatMap((s) => s.warnings)).map((w) => withGivenPath({ ...w, message: plurals(w.message) }, files.disc)),
  };
  const viewNodes: ViewIndex['nodes'] = new Map(nodes.map((n) => [n.name, {
    artifacts: n.artifacts,
    criErrors: n.events.flatMap((e) => (e.type === 'cri-error' ? [{ op: e.op, ts: e.ts, layer: e.layer }] : [])),
  }]));
  return { analysis, evaluated, artifacts: files.disc.artifacts, views: { logs: files.logs, nodes: viewNodes }, early: files.early };
}

/** A warning with its file as the user named it (`path`), when that differs from `file` (relative to its input, as
 *  artifacts and evidence name it). */
function withGivenPath(w: Analysis['warnings'][number], disc: { inputs: Array<{ path: string }>; artifacts: Artifact[] }): Analysis['warnings'][number] {
  const path = pathAsGiven(w.file, disc);
  return path !== null && path !== w.file ? { ...w, path } : w;
}

/** A warning's file as the user named it: a file found in a folder they gave is `junk/a.txt`, not `a.txt` (artifact
 *  paths, in evidence, stay relative to their input). Members of archives keep their own paths. */
function pathAsGiven(file: string | null, disc: { inputs: Array<{ path: string }>; artifacts: Artifact[] }): string | null {
  if (file === null) return null;
  const a = disc.artifacts.find((x) => x.path === file);
  const input = a ? disc.inputs[a.input] : undefined;
  if (!a || !input || input.path === '-' || file === input.path || file.startsWith(`${input.path.replace(/\/+$/, '')}/`)) return file;
  let dir = false;
  try {
    dir = statSync(input.path).isDirectory();
  } catch {
    return file;
  }
  return dir ? pathJoin(input.path, file) : file;
}

function sortWarnings(ws: Analysis['warnings']): Analysis['warnings'] {
  return [...ws].sort((a, b) => (a.file ?? '').localeCompare(b.file ?? '') || (a.line ?? 0) - (b.line ?? 0) || a.message.localeCompare(b.message));
}

function evidence(refs: Cite[], fileOf: (id: number) => string): EvidenceRef[] {
  return refs.map((r) => withMessage('file' in r ? r : { file: fileOf(r.artifact), line: r.line, ts: iso(r.ts), text: r.text }));
}

/** A cited line with its message (parse/message.ts) when the line has a prefix to take off. */
function withMessage(e: EvidenceRef): EvidenceRef {
  if (e.message !== undefined) return e;
  const message = messageOf(e.text);
  return message === null ? e : { ...e, message };
}

function quantiles(q: Quantiles | null | undefined): Quantiles | null {
  if (!q) return null;
  return { p50: q.p50, p90: q.p90, p99: q.p99, max: q.max };
}

function toNodeReport(n: NodeModel, j: NodeJudgement, fileOf: (id: number) => string, served: Set<string>, sourceOf: (id: number) => Located | null): NodeReport {
  const m = n.metrics;
  // Calls, errors and latency of the metrics window; errors (logErrors) and timeouts of the whole log.
  const hasLog = n.roles.includes('kubelet-log') || n.cri.length > 0;
  const ops = new Map<string, OperationStats>();
  for (const o of m?.operations ?? []) {
    ops.set(o.operation, {
      operation: o.operation, source: 'metrics', count: o.count, errors: o.errors, timeouts: 0, p50Seconds: o.p50, p90Seconds: o.p90, p99Seconds: o.p99,
      ...(hasLog ? { logErrors: 0 } : {}),
      latency: o.latency,
    });
  }
  for (const c of n.cri) {
    const cur = ops.get(c.operation);
    if (cur) {
      cur.source = 'both';
      cur.timeouts = c.timeouts;
      cur.logErrors = c.errors;
    } else {
      ops.set(c.operation, {
        operation: c.operation, source: 'logs', count: null, errors: c.errors, timeouts: c.timeouts, p50Seconds: null, p90Seconds: null, p99Seconds: null,
        logErrors: c.errors, latency: null,
      });
    }
  }
  const findings: Finding[] = j.fired.map((f) => ({
    ruleId: f.spec.id,
    cause: f.spec.cause,
    severity: f.severity,
    confidence: f.confidence,
    title: f.spec.title,
    summary: f.summary + (f.because.length ? ` Supporting: ${f.because.join('; ')}.` : '') + (f.against.length ? ` Against: ${f.against.join('; ')}.` : ''),
    lines: f.lines,
    evidence: evidence(f.evidence, fileOf),
    remediation: f.spec.remediation,
    references: f.spec.references ?? [],
    ...(f.checks.length ? { checks: f.checks.map((c) => ({ ...c, grep: grepCommand(c.grep, sourceOf, (id) => n.hostFilter?.get(id) ?? null) })) } : {}),
    ruleSeverity: f.spec.severity,
    explains: f.spec.explains,
    ...(f.considered ? { considered: true as const } : {}),
  }));
  const shown = j.verdict.plegUnhealthy ? [] : plegCoverage(n);
  const from = [n.windowStart, m?.windowStartMs ?? null].filter((x): x is number => x !== null);
  const to = [n.windowEnd, m?.windowEndMs ?? null].filter((x): x is number => x !== null);
  return {
    name: n.name,
    kubeletVersion: n.kubeletVersion,
    runtime: n.runtime,
    window: { start: iso(n.windowStart), end: iso(n.windowEnd) },
    verdict: { ...j.verdict, plegState: j.verdict.plegUnhealthy ? 'unhealthy' : shown.length > 0 ? 'healthy' : 'unknown' },
    stalls: n.timeline.stalls.map((s) => ({
      lastRelistAt: s.sinceUnknown ? null : iso(s.lastRelistAt),
      unhealthyFrom: s.sinceUnknown ? iso(s.firstLineAt) : iso(s.lastRelistAt + s.thresholdSeconds * 1000),
      ...(s.sinceUnknown ? { relistNeverSucceeded: true } : {}),
      endedAt: iso(s.endedAt),
      ...(s.endedBetween ? { endedBetween: { from: iso(s.endedBetween.from) as string, to: iso(s.endedBetween.to) } } : {}),
      endedBy: s.endedBy,
      durationSeconds: round3(s.durationSeconds),
      maxLastSeenAgoSeconds: round3(s.maxAgeSeconds),
      nodeNotReady: s.nodeNotReady,
      evidence: evidence([...s.evidence, ...(s.endEvidence ? [s.endEvidence] : [])], fileOf),
    })),
    notReady: n.timeline.notReady.map((w) => ({ from: iso(w.from) as string, to: iso(w.to), reason: w.reason, evidence: evidence(w.evidence, fileOf) })),
    restarts: n.timeline.restarts.map((r) => ({ at: iso(r.at) as string, version: r.version, evidence: evidence(r.evidence, fileOf) })),
    relist: {
      source: m && (m.relist.duration || m.relist.interval) ? 'metrics' : 'none',
      durationSeconds: quantiles(m?.relist.duration) ?? null,
      intervalSeconds: quantiles(m?.relist.interval) ?? null,
      ...(m ? { duration: m.relist.duration?.latency ?? null, interval: m.relist.interval?.latency ?? null } : {}),
    },
    operations: [...ops.values()].sort((a, b) => a.operation.localeCompare(b.operation)),
    pods: { running: m?.runningPods ?? n.bundle.containers?.sandboxesReady ?? null, containers: m?.runningContainers ?? n.bundle.containers?.running ?? null },
    findings,
    ruledOut: j.ruledOut,
    ...(j.notSeen.length ? { notSeen: j.notSeen } : {}),
    coverage: {
      from: from.length ? iso(Math.min(...from)) : null,
      to: to.length ? iso(Math.max(...to)) : null,
      truncated: n.truncated,
      roles: n.roles,
      ...(shown.length ? { plegHealthyBy: shown } : {}),
    },
    gaps: j.gaps,
    ...(m ? { metricsFrom: m.sources.map((x) => ({ source: x.file, kind: served.has(x.file) ? 'prometheus' as const : 'file' as const, from: iso(x.fromMs), to: iso(x.toMs), points: x.points })) } : {}),
    ...(m ? { metricsWindow: { from: iso(m.windowStartMs), to: iso(m.windowEndMs), scrapes: m.snapshots, cumulative: m.cumulative } } : {}),
  };
}

/** The shell command a count check prints, to be pasted where plegscope ran: `grep -cE 'pattern' file` for one plain
 *  file, by the path the user gave (a folder's file under it); a compressed file read with its own tool (`zgrep`,
 *  `xzgrep`, `bzgrep`), a UTF-16 file through iconv; an archive's member read in place (`tar -xOf bundle.tar.xz member`);
 *  the node's own lines of a file that holds several hosts' (must-gather's merged service logs) picked by the host
 *  field; several files counted as one stream, as the report does. */
function grepCommand(template: string, source: (id: number) => Located | null, hostOf: (id: number) => string | null): string {
  const m = /^\{grep\} ('(?:[^']|'\\'')*'|\S+) ((?:\{file:\d+\} ?)+)$/.exec(template);
  if (!m) return template;
  const pattern = m[1] as string;
  const files = [...(m[2] as string).matchAll(/\{file:(\d+)\}/g)].map((x) => ({ at: source(Number(x[1])), host: hostOf(Number(x[1])) }));
  if (files.some((f) => f.at === null)) return `# read from stdin: save it to a file and run grep -cE ${pattern} on it`;
  const located = files as Array<{ at: Located; host: string | null }>;
  const command = countCommand(pattern, located);
  // What came on stdin has no path: the command reads it saved as FILE.
  return located.some((f) => f.at.stdin) ? `# stdin saved as FILE: ${command}` : command;
}

function countCommand(pattern: string, located: Array<{ at: Located; host: string | null }>): string {
  if (located.length === 1) {
    const { at, host } = located[0] as { at: Located; host: string | null };
    if (at.direct !== null && host === null) return `${at.direct.tool} -cE ${pattern} ${shellWord(at.direct.file)}`;
    if (at.direct !== null && at.direct.tool === 'grep' && host !== null) return `${hostFilter(host, at.format)} ${shellWord(at.direct.file)} | grep -cE ${pattern}`;
    return `${at.stream}${host !== null ? ` | ${hostFilter(host, at.format)}` : ''} | grep -cE ${pattern}`;
  }
  if (located.every((f) => f.at.direct?.tool === 'grep' && f.host === null)) return `cat ${located.map((f) => shellWord((f.at.direct as { file: string }).file)).join(' ')} | grep -cE ${pattern}`;
  return `{ ${located.map((f) => `${f.at.stream}${f.host !== null ? ` | ${hostFilter(f.host, f.at.format)}` : ''}`).join('; ')}; } | grep -cE ${pattern}`;
}

/** Where a file's bytes are, for the shell: `direct` when one grep-like tool reads the file itself, and always a
 *  `stream` command that writes its decoded lines. */
interface Located {
  direct: { tool: string; file: string } | null;
  stream: string;
  format: string;
  /** Read from stdin: FILE stands for what came there. */
  stdin?: boolean;
}

/** How the shell reaches artifact `a` from where plegscope ran (null for stdin). */
function locate(a: Artifact, inputPath: string | undefined, inputKind: string | undefined): Located | null {
  if (inputPath === undefined) return null;
  if (inputPath === '-' || inputKind === 'stdin') {
    const at = locate({ ...a, path: 'FILE' }, 'FILE', inputKind === 'stdin' ? 'file' : inputKind);
    return at && { ...at, stdin: true };
  }
  const under = (rel: string): string => (rel === '' ? inputPath : pathJoin(inputPath, rel));
  const base = a.reach ? (a.reach.disk === null ? inputPath : under(a.reach.disk)) : inputKind === 'file' ? inputPath : under(a.path);
  // A binary journal is read by journalctl, which takes a file: an archive's member is first saved to a temporary one.
  const journal = a.compression === 'journal' ? `journalctl -o json --output-fields=${JOURNAL_FIELDS.join(',')} --file` : null;
  const decode = journal ? `{ j=$(mktemp); cat > "$j"; ${journal} "$j"; rm -f "$j"; }` : DECODE[a.compression ?? ''] ?? null;
  const members = a.reach?.members ?? [];
  // A hard-wrapped paste is counted as it was read: its wrapped lines joined by the same rule (sources/files/fold.ts). A JSON
  // export document entry by entry, one a line (jq); a CSV export by its own lines, as a plain file.
  const then = a.wrap !== undefined ? foldCommand(a.wrap) : a.document === 'json' ? EXPORT_ENTRIES_JQ : null;
  const format = a.document === 'json' ? 'export-json' : a.document === 'csv' ? 'export-csv' : a.format;
  if (members.length === 0) {
    const tool = a.compression === null || a.compression === 'export' ? 'grep' : GREP_TOOL[a.compression] ?? null;
    return {
      direct: tool && !then ? { tool, file: base } : null,
      stream: journal ? `${journal} ${shellWord(base)}` : then ? (decode ? `${decode} ${shellWord(base)} | ${then}` : `${then} ${shellWord(base)}`) : `${decode ?? 'cat'} ${shellWord(base)}`,
      format,
    };
  }
  const [first, ...inner] = members as [Reach['members'][number], ...Reach['members']];
  const steps = [first.kind === 'tar' ? `tar -xOf ${shellWord(base)} ${shellWord(first.name)}` : `unzip -p ${shellWord(base)} ${shellWord(unzipName(first.name))}`];
  // A zip inside an archive must be a file to be read (its index is at its end): a temporary one.
  for (const x of inner) steps.push(x.kind === 'tar' ? `tar -xO${TAR_FLAG[x.compression ?? ''] ?? ''}f - ${shellWord(x.name)}` : `{ z=$(mktemp); cat > "$z"; unzip -p "$z" ${shellWord(unzipName(x.name))}; rm -f "$z"; }`);
  if (decode) steps.push(decode);
  if (then) steps.push(then);
  return { direct: null, stream: steps.join(' | '), format };
}

/** unzip reads member names as wildcards: `[`, `*`, `?` stand for themselves in brackets. */
function unzipName(name: string): string {
  return name.replace(/[[*?]/g, '[$&]');
}

const DECODE: Record<string, string> = { gzip: 'gzip -dc', xz: 'xz -dc', bzip2: 'bzip2 -dc', zstd: 'zstd -dcq', utf16le: 'iconv -f UTF-16LE -t UTF-8', utf16be: 'iconv -f UTF-16BE -t UTF-8' };
const GREP_TOOL: Record<string, string> = { gzip: 'zgrep', xz: 'xzgrep', bzip2: 'bzgrep', zstd: 'zstdgrep' };
const TAR_FLAG: Record<string, string> = { gzip: 'z', xz: 'J', bzip2: 'j' };

/** The lines of one host in a log of several: the journal's host column (`Jan 11 09:00:00 HOST ident: …`, ISO stamps
 *  `2024-01-11T09:00:00+0000 HOST …`, JSON `"_HOSTNAME":"HOST"`). */
function hostFilter(host: string, format: string): string {
  if (format === 'journal-json') return `grep -F ${shellWord(`"_HOSTNAME":"${host}"`)}`;
  // A cloud export's JSON lines name the host in a field of their own (`"host":`, `"node_name":`, `"Computer":` …).
  if (format === 'export-json') return `grep -F ${shellWord(`"${host}"`)}`;
  // A CSV export's host column, quoted or not.
  if (format === 'export-csv') return `grep -F ${shellWord(host)}`;
  if (!/^[\w.:-]+$/.test(host)) return `grep -F ${shellWord(` ${host} `)}`;
  const column = format.startsWith('journal-short-iso') || format === 'rfc3339-prefixed' ? 2 : format === 'journal-short' || format === 'journal-short-precise' || format === 'syslog' ? 4 : null;
  return column === null ? `awk '{ for (i = 1; i <= 5 && i <= NF; i++) if ($i == "${host}") { print; next } }'` : `awk '$${column} == "${host}"'`;
}

/** A path as one shell word (single-quoted unless it is plain). */
function shellWord(s: string): string {
  return /^[\w./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

