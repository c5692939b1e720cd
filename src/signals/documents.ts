// Ticket attachments that are not logs (`kubectl describe node`, a transcript of crictl/docker commands) → the same
// signal events a log gives, each citing its line. Messages inside them (an event's message, a condition's message, an
// error a command printed) go through the same matchers as log lines: a hung task reported by node-problem-detector is
// the kernel's hung-task line; `rpc error: … larger than max` in a ContainerGCFailed event is the kubelet's.
import type { DescribeEvent, DescribeNode, NodeRow } from '../parse/describe-node.js';
import type { NodeCondition } from '../parse/node-object.js';
import type { CliOutput } from '../parse/cli-output.js';
import { parseLine, type LogRecord } from '../parse/record.js';
import { resolveZone, WallClock, YearClock } from '../parse/time.js';
import { conditionEvents } from './conditions.js';
import type { Component, Ref, SignalEvent } from './events.js';
import type { ArtifactSignals } from './extract.js';
import { MATCHERS } from './matchers.js';
import { Thinner, type BuildEvent } from './thin.js';
import type { LineTest } from '../util/line-set.js';

type Draft = Omit<SignalEvent, 'ts' | 'host' | 'ref'>;

function ref(artifact: number, line: number, text: string, ts = NaN): Ref {
  return { artifact, line, offset: 0, ts, mono: NaN, text };
}

/** Runs every matcher whose needle the message holds over `message`, as if it were a line of its own. */
export function messageEvents(message: string, at: { artifact: number; line: number; text: string; ts: number; host: string | null }): SignalEvent[] {
  const wall = new WallClock(resolveZone('UTC'));
  const rec = parseLine(message, at.line, 0, { wall, years: new YearClock(wall, { year: 2000 }) }) as LogRecord | null;
  if (!rec) return [];
  rec.ts = at.ts;
  const out: SignalEvent[] = [];
  for (const m of MATCHERS) {
    if (m.from && !m.from.includes(rec.origin)) continue;
    if (!m.needles.some((n) => message.includes(n))) continue;
    const d = m.match(rec);
    for (const x of d ? (Array.isArray(d) ? d : [d]) : []) {
      if (x.type === 'relist-proof' || x.type === 'node-name') continue;
      out.push({ ...x, ts: at.ts, host: at.host, ref: ref(at.artifact, at.line, at.text, at.ts) } as SignalEvent);
    }
  }
  return out;
}

function signals(artifact: number, events: SignalEvent[], lines: number, bytes: number, nodeNames: string[]): ArtifactSignals {
  let first = NaN;
  let last = NaN;
  for (const e of events) {
    if (!Number.isFinite(e.ts)) continue;
    if (!(first <= e.ts)) first = e.ts;
    if (!(last >= e.ts)) last = e.ts;
  }
  return {
    artifact,
    events,
    hosts: Number.isFinite(first) ? [{ host: nodeNames[0] ?? null, first, last, kubeletLast: NaN }] : [],
    scan: { lines, bytes, lastLine: null, longLines: [], longLineCount: 0, checkpoints: [[1, 0]] },
    warnings: [],
    nodeNames,
    bootAnchors: [],
    origins: {},
  };
}

/** The kubelet records some failures twice: an event whose message is the error alone, and a log line that says what
 *  failed (kubelet.go, 1.28: `kl.recorder.Eventf(kl.nodeRef, …, events.ContainerGCFailed, err.Error())` next to
 *  `klog.ErrorS(err, "Container garbage collection failed")`; ImageGCFailed only after the second failure in a row). The event's message is read as that line, so that a
 *  `DeadlineExceeded` there is a call to the runtime that timed out, as it is in the log. */
const EVENT_AS_LOG: Record<string, string> = {
  ContainerGCFailed: 'Container garbage collection failed: ',
  ImageGCFailed: 'Image garbage collection failed multiple times in a row: ',
};

function eventAsLogMessage(reason: string, message: string): string {
  const lead = EVENT_AS_LOG[reason];
  return lead && !message.startsWith(lead.slice(0, 10)) ? lead + message : message;
}

const RUNTIME_PREFIX = /^(docker|containerd|cri-o|remote):\/\/v?(\S+)/;

/** `kubectl describe node`: its conditions (dated), its events (ages only: placed in their order, without a time), and
 *  the versions of its System Info. */
export function describeSignals(d: DescribeNode, artifact: number, lines: number, bytes: number, rows?: DescribeRows): ArtifactSignals {
  const events: SignalEvent[] = [];
  const node = d.name;
  for (const e of conditionEvents(d.conditions, node, artifact)) events.push(e);
  // Other conditions that are true name a problem in their message (node-problem-detector's KernelDeadlock: "task
  // docker:7 blocked for more than 300 seconds").
  for (const c of d.conditions) {
    if (c.type === 'Ready' || c.status !== 'True' || !c.message) continue;
    for (const e of messageEvents(c.message, { artifact, line: c.line, text: c.text, ts: c.lastTransitionTime, host: node })) events.push(e);
  }
  // The rows read one by one as parsed (or, parsed whole, here).
  const table = rows ?? new DescribeRows(artifact);
  if (!rows) for (const ev of d.events) table.row(ev, node);
  for (const e of table.done()) events.push(e);
  const version = (component: Component, v: string | null, at: { line: number; text: string } | undefined): void => {
    if (v && at) events.push({ type: 'component-version', component, version: v, ts: NaN, host: node, ref: ref(artifact, at.line, at.text) });
  };
  version('kubelet', d.kubeletVersion, d.versionRefs.kubelet);
  const rt = d.containerRuntimeVersion ? RUNTIME_PREFIX.exec(d.containerRuntimeVersion) : null;
  if (rt) {
    const comp: Component | null = rt[1] === 'docker' ? 'docker' : rt[1] === 'containerd' ? 'containerd' : rt[1] === 'cri-o' ? 'cri-o' : null;
    if (comp) version(comp, rt[2] as string, d.versionRefs.runtime);
  }
  version('kernel', d.kernelVersion, d.versionRefs.kernel);
  version('os', d.osImage, d.versionRefs.os);
  const out = signals(artifact, events, lines, bytes, node ? [node] : []);
  if (table.dropped > 0) out.warnings.push({ line: null, message: `${table.dropped} events row(s) past the first ${MAX_ROW_EVENTS} events they gave: counted, not read` });
  return out;
}

/** Events a describe output's rows may give beyond those folded (a kind of event signals/thin.ts does not fold). */
const MAX_ROW_EVENTS = 50_000;
const asGiven: BuildEvent<SignalEvent> = (_d, _host, e) => e;

/**
 * The events of an Events table, row by row as parsed (no row kept). Rows have no time, only their order: a dense kind
 * of event is folded as a log's is (signals/thin.ts), with the row's number for its time, so 120 000 rows of hung tasks
 * are a few hundred events whose `n` count every row; past MAX_ROW_EVENTS events the rest of the rows are counted only.
 */
export class DescribeRows {
  private readonly events: SignalEvent[] = [];
  private readonly thin = new Thinner(this.events);
  /** Rows not read past the bound. */
  dropped = 0;

  constructor(private readonly artifact: number) {}

  /** A row of the table; `node`: the node the output is about (a `kubectl get events` row names its own). */
  row(ev: DescribeEvent, node: string | null): void {
    if (this.events.length >= MAX_ROW_EVENTS) {
      this.dropped++;
      return;
    }
    const host = ev.node ?? node;
    const r = ref(this.artifact, ev.line, ev.text);
    if (ev.reason === 'NodeNotReady') this.add({ type: 'node-not-ready', message: null, ts: NaN, host, ref: r });
    else if (ev.reason === 'NodeReady') this.add({ type: 'node-ready', ts: NaN, host, ref: r });
    else if (ev.reason === 'Starting' && /kubelet/i.test(`${ev.from ?? ''} ${ev.message}`)) this.add({ type: 'kubelet-start', version: null, marker: 'started', ts: NaN, host, ref: r });
    else for (const e of messageEvents(eventAsLogMessage(ev.reason, ev.message), { artifact: this.artifact, line: ev.line, text: ev.text, ts: NaN, host })) this.add(e);
  }

  private add(e: SignalEvent): void {
    this.thin.offer(e, e.host, e.ref.line, e, asGiven);
  }

  /** The events, every fold made final. */
  done(): SignalEvent[] {
    this.thin.settleAll();
    return this.events;
  }
}

/** Node conditions pasted without their Node (YAML/JSON fragments). */
export function conditionSignals(c: { name: string | null; conditions: NodeCondition[] }, artifact: number, lines: number, bytes: number): ArtifactSignals {
  const events = conditionEvents(c.conditions, c.name, artifact);
  for (const k of c.conditions) {
    if (k.type === 'Ready' || k.status !== 'True' || !k.message) continue;
    for (const e of messageEvents(k.message, { artifact, line: k.line, text: k.text, ts: k.lastTransitionTime, host: c.name })) events.push(e);
  }
  return signals(artifact, events, lines, bytes, c.name ? [c.name] : []);
}

/** `kubectl get nodes`: a listing of the whole cluster, so only its NotReady nodes (and their versions) are told. */
export function nodeListSignals(rows: NodeRow[], artifact: number, lines: number, bytes: number): ArtifactSignals {
  const events: SignalEvent[] = [];
  for (const r of rows) {
    if (!/NotReady|Unknown/.test(r.status)) continue;
    const at = ref(artifact, r.line, r.text);
    events.push({ type: 'node-not-ready', message: null, ts: NaN, host: r.name, ref: at });
    if (r.version) events.push({ type: 'component-version', component: 'kubelet', version: r.version, ts: NaN, host: r.name, ref: at });
    if (r.kernel) events.push({ type: 'component-version', component: 'kernel', version: r.kernel, ts: NaN, host: r.name, ref: at });
    const rt = r.runtime ? RUNTIME_PREFIX.exec(r.runtime) : null;
    const comp: Component | null = rt ? (rt[1] === 'docker' ? 'docker' : rt[1] === 'containerd' ? 'containerd' : rt[1] === 'cri-o' ? 'cri-o' : null) : null;
    if (rt && comp) events.push({ type: 'component-version', component: comp, version: rt[2] as string, ts: NaN, host: r.name, ref: at });
  }
  return signals(artifact, events, lines, bytes, []);
}

/** The events of a document and of the log lines pasted with it (a describe output and a journal excerpt in one file),
 *  as one artifact's signals. A line both read is told once (by the model's de-duplication). */
export function withLogLines(doc: ArtifactSignals, log: ArtifactSignals, consumed: LineTest): ArtifactSignals {
  const hosts = [...doc.hosts];
  for (const w of log.hosts) {
    const cur = hosts.find((h) => h.host === w.host);
    if (!cur) hosts.push({ ...w });
    else {
      cur.first = Math.min(cur.first, w.first);
      cur.last = Math.max(cur.last, w.last);
      if (!Number.isNaN(w.kubeletLast)) cur.kubeletLast = Number.isNaN(cur.kubeletLast) ? w.kubeletLast : Math.max(cur.kubeletLast, w.kubeletLast);
    }
  }
  // The document's own lines are told by the document; a line the log reader also matched is not told twice. Lines of
  // a document have no time of their own by nature: that is not worth a warning.
  const events = [...doc.events, ...log.events.filter((e) => !consumed.has(e.ref.line))];
  return { ...log, events, hosts, nodeNames: [...new Set([...doc.nodeNames, ...log.nodeNames])], warnings: [...doc.warnings, ...log.warnings.filter((w) => w.code !== 'undated')] };
}

/** A transcript of runtime and host commands: versions, what each command returned, the runtime's own conditions. */
export function cliSignals(c: CliOutput, artifact: number, lines: number, bytes: number): ArtifactSignals {
  const events: SignalEvent[] = [];
  const push = (d: Draft, line: number, text: string): void => {
    events.push({ ...d, ts: NaN, host: null, ref: ref(artifact, line, text) } as SignalEvent);
  };
  for (const v of c.versions) push({ type: 'component-version', component: v.component, version: v.version } as Draft, v.line, v.text);
  for (const r of c.results) {
    push({ type: 'cli-result', tool: r.tool, command: r.command, outcome: r.outcome, seconds: r.seconds, detail: r.detail } as Draft, r.line, r.text);
    // The error text itself is a message like any other (a gRPC size limit, a refused socket).
    if (r.outcome !== 'ok') for (const e of messageEvents(r.detail, { artifact, line: r.line, text: r.text, ts: NaN, host: null })) if (e.type === 'grpc-size-limit') events.push(e);
  }
  for (const k of c.conditions) {
    if (k.type === 'NetworkReady') push({ type: 'network-not-ready', reason: `${k.reason ?? 'NetworkReady=false'}${k.message ? `: ${k.message}` : ''}` } as Draft, k.line, k.text);
  }
  return signals(artifact, events, lines, bytes, []);
}
