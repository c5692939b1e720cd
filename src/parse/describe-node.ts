// `kubectl describe node` (and `kubectl get events`) as people paste them into tickets: the whole output, its
// Conditions table alone, a single condition row, or the Events table. Columns are aligned with spaces (kubectl ≥ 1.9)
// or separated by tabs (older kubectl, and what a paste makes of them); header rows may be missing.
//
//   Name:               ip-10-0-1-23.ec2.internal
//   Conditions:
//     Type             Status  LastHeartbeatTime                 LastTransitionTime                Reason                       Message
//     ----             ------  -----------------                 ------------------                ------                       -------
//     MemoryPressure   False   Sun, 06 Dec 2020 18:56:49 +0100   Sun, 06 Dec 2020 10:02:11 +0100   KubeletHasSufficientMemory   kubelet has sufficient memory available
//     Ready            False   Sun, 06 Dec 2020 18:56:49 +0100   Sun, 06 Dec 2020 18:49:40 +0100   KubeletNotReady              PLEG is not healthy: pleg was last seen active 10m18.040734348s ago; threshold is 3m0s
//   System Info:
//     Kernel Version:             4.14.203-156.332.amzn2.x86_64
//     Container Runtime Version:  docker://19.3.6
//     Kubelet Version:            v1.17.12-eks-7684af
//   Non-terminated Pods:          (23 in total)
//   Events:
//     Type     Reason    Age    From            Message
//     ----     ------    ----   ----            -------
//     Warning  TaskHung  5m23s  kernel-monitor  INFO: task kswapd0:49 blocked for more than 120 seconds.
//
// Old layouts: `  Ready \t\tUnknown \tThu, 06 Jul 2017 18:57:38 -0700 \t… \tNodeStatusUnknown \tKubelet stopped posting
// node status.` and events as `FirstSeen LastSeen Count From SubObjectPath Type Reason Message`.
// `kubectl get events`: `LAST SEEN   TYPE      REASON         OBJECT              MESSAGE`.
import type { NodeCondition } from './node-object.js';
import { LineSet } from '../util/line-set.js';

export interface DescribeEvent {
  type: string | null;
  reason: string;
  /** How long before the output was taken (the newest occurrence), in seconds; null when not given or `<invalid>`. */
  ageSeconds: number | null;
  /** `(x4 over 10m)` */
  count: number;
  from: string | null;
  message: string;
  /** The node a `kubectl get events` row is about (its OBJECT column, `node/NAME`); null in describe output. */
  node: string | null;
  line: number;
  text: string;
}

export interface DescribeNode {
  name: string | null;
  kubeletVersion: string | null;
  containerRuntimeVersion: string | null;
  kernelVersion: string | null;
  osImage: string | null;
  podsCapacity: number | null;
  /** `Non-terminated Pods: (23 in total)` */
  pods: number | null;
  conditions: NodeCondition[];
  /** The Events table's rows, unless they were handed to the caller one by one as read (parseDescribeNode's `onEvent`). */
  events: DescribeEvent[];
  /** Where System Info states each version (for evidence). */
  versionRefs: Partial<Record<'kubelet' | 'runtime' | 'kernel' | 'os', { line: number; text: string }>>;
  /** Lines read as the output's own (keys, table rows): the others (log lines pasted with it) are left to the log reader. */
  consumed: LineSet;
  /** Rows that looked like table rows but could not be read. */
  skipped: number;
}

const MONTHS: Record<string, number> = { Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11 };
/** RFC 1123 with a numeric zone (what kubectl prints) or a zone name. */
const RFC1123 = /([A-Z][a-z]{2}), (\d\d) ([A-Z][a-z]{2}) (\d{4}) (\d\d):(\d\d):(\d\d) ([+-]\d{4}|[A-Z]{2,5})/y;
const CONDITION = /^\s*([A-Z][A-Za-z0-9]+)[ \t]+(True|False|Unknown)[ \t]+/;

/** `Sun, 06 Dec 2020 18:56:49 +0100` at `i` → epoch ms and end, or null. */
export function parseRfc1123(s: string, i: number): { ms: number; end: number } | null {
  RFC1123.lastIndex = i;
  const m = RFC1123.exec(s);
  if (!m) return null;
  const mon = MONTHS[m[3] as string];
  if (mon === undefined) return null;
  const zone = m[8] as string;
  let off = 0;
  if (zone[0] === '+' || zone[0] === '-') off = (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(3, 5))) * (zone[0] === '-' ? -1 : 1);
  else if (zone !== 'UTC' && zone !== 'GMT') return null;
  const ms = Date.UTC(Number(m[4]), mon, Number(m[2]), Number(m[5]), Number(m[6]), Number(m[7])) - off * 60000;
  return { ms, end: i + m[0].length };
}

/** Splits a table row on tabs and runs of 2+ spaces. */
function cells(line: string): string[] {
  return line.trim().split(/\s*\t\s*| {2,}/).map((c) => c.trim()).filter((c) => c !== '');
}

/** `5m23s`, `3m (x4 over 10m)`, `2d3h`, `<invalid>` → seconds of the newest occurrence and the count. */
export function parseAge(cell: string): { seconds: number | null; count: number } {
  const countM = /\(x(\d+) over [^)]*\)/.exec(cell);
  const m = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?/.exec(cell.trim());
  const any = m && m[0].length > 0;
  const seconds = any ? (Number(m[1] ?? 0) * 86400 + Number(m[2] ?? 0) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0)) : null;
  return { seconds, count: countM ? Number(countM[1]) : 1 };
}

/** One condition row (the two times are located by their shape, so that tabs, spaces and missing columns all read). */
function conditionRow(line: string, lineNo: number): NodeCondition | null {
  const head = CONDITION.exec(line);
  if (!head) return null;
  let i = head[0].length;
  const times: number[] = [];
  for (let k = 0; k < 2; k++) {
    while (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9) i++;
    if (line.startsWith('<unknown>', i)) {
      times.push(NaN);
      i += 9;
      continue;
    }
    const t = parseRfc1123(line, i);
    if (!t) {
      const iso = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/y;
      iso.lastIndex = i;
      const m = iso.exec(line);
      if (!m) return null;
      times.push(Date.parse(m[0]));
      i += m[0].length;
      continue;
    }
    times.push(t.ms);
    i = t.end;
  }
  const rest = cells(line.slice(i));
  const reason = rest[0] ?? null;
  const message = rest.length > 1 ? rest.slice(1).join(' ') : null;
  return {
    type: head[1] as string, status: head[2] as string, reason, message,
    lastHeartbeatTime: times[0] as number, lastTransitionTime: times[1] as number, line: lineNo, text: line,
  };
}

/** A Ready row cut down to its reason and message, as people paste it from the Conditions table:
 *    KubeletNotReady              PLEG is not healthy: pleg was last seen active 3m7.3s ago; threshold is 3m0s
 *  The kubelet's Ready reasons name the status (KubeletNotReady: False, KubeletReady: True); no times. */
const CUT_READY = /^\s*(KubeletNotReady|KubeletReady)(?:\s{2,}|\t+)(\S.*)$/;
function cutReadyRow(line: string, lineNo: number): NodeCondition | null {
  const m = CUT_READY.exec(line);
  if (!m) return null;
  return {
    type: 'Ready', status: m[1] === 'KubeletReady' ? 'True' : 'False', reason: m[1] as string, message: (m[2] as string).trim(),
    lastHeartbeatTime: NaN, lastTransitionTime: NaN, line: lineNo, text: line,
  };
}

/** An events table's columns, split around TYPE (located in each row by its value, since empty cells such as an old
 *  layout's SubObjectPath vanish when columns are split). */
interface EventLayout {
  before: string[];
  after: string[];
}

function eventLayout(header: string): EventLayout | null {
  const h = cells(header).map((c) => c.toUpperCase().replace(/\s+/g, ''));
  const t = h.indexOf('TYPE');
  if (t < 0 || h.indexOf('REASON') < 0 || h.indexOf('MESSAGE') < 0) return null;
  return { before: h.slice(0, t), after: h.slice(t + 1) };
}

/** The default modern layout when the header row was not pasted: Type Reason Age From Message. */
const DEFAULT_EVENTS: EventLayout = { before: [], after: ['REASON', 'AGE', 'FROM', 'MESSAGE'] };

function eventRow(line: string, lineNo: number, layout: EventLayout): DescribeEvent | null {
  const c = cells(line);
  const ti = c.findIndex((x) => x === 'Normal' || x === 'Warning');
  if (ti < 0) return null;
  const col: Record<string, string> = {};
  layout.before.forEach((name, k) => {
    if (k < ti) col[name] = c[k] as string;
  });
  // The message is the last column and may itself hold runs of spaces: it is everything from its column on.
  let k = ti + 1;
  for (const name of layout.after) {
    if (k >= c.length) break;
    if (name === 'MESSAGE') {
      col[name] = c.slice(k).join('  ');
      break;
    }
    col[name] = c[k++] as string;
  }
  if (!col['REASON'] || col['MESSAGE'] === undefined) return null;
  const age = parseAge(col['AGE'] ?? col['LASTSEEN'] ?? '');
  const node = /^node\/(\S+)$/i.exec(col['OBJECT'] ?? '')?.[1] ?? null;
  // One shape for every row (a field present in some rows only gives the rows shapes of their own).
  return {
    type: c[ti] as string, reason: col['REASON'], ageSeconds: age.seconds, count: Number(col['COUNT']) || age.count,
    from: col['FROM'] ?? col['SOURCE'] ?? null, message: col['MESSAGE'], node, line: lineNo, text: line,
  };
}

export interface NodeRow {
  name: string;
  /** `Ready`, `NotReady`, `Ready,SchedulingDisabled`, `Unknown` … */
  status: string;
  version: string | null;
  kernel: string | null;
  runtime: string | null;
  line: number;
  text: string;
}

/**
 * `kubectl get nodes` (and `-o wide`):
 *
 *   NAME                          STATUS     ROLES    AGE   VERSION
 *   ip-10-0-1-23.ec2.internal     NotReady   <none>   10d   v1.21.5-eks-bc4871b
 */
export function parseGetNodes(text: string): NodeRow[] {
  const lines = text.split('\n');
  const out: NodeRow[] = [];
  let cols: string[] | null = null;
  lines.forEach((raw, k) => {
    const line = raw.replace(/\r$/, '');
    if (/^\s*NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\b/.test(line)) {
      cols = line.trim().split(/\s{2,}|\t+/).map((c) => c.trim());
      return;
    }
    if (!cols || line.trim() === '') return;
    const c = line.trim().split(/\s{2,}|\t+/);
    const at = (name: string): string | null => {
      const i = (cols as string[]).indexOf(name);
      return i >= 0 && c[i] !== undefined && c[i] !== '<none>' ? (c[i] as string) : null;
    };
    const name = at('NAME');
    const status = at('STATUS');
    if (!name || !status) return;
    out.push({ name, status, version: at('VERSION'), kernel: at('KERNEL-VERSION'), runtime: at('CONTAINER-RUNTIME'), line: k + 1, text: line });
  });
  return out;
}

/** Each line of `input` and its number (from 1), as `split('\n')` gives them; a Buffer's decoded line by line (no
 *  string of the whole document, and no line that keeps one alive). */
function eachLine(input: string | Buffer, fn: (raw: string, lineNo: number) => void): void {
  const buf = typeof input === 'string' ? null : input;
  const end = input.length;
  let lineNo = 0;
  for (let at = 0; at <= end;) {
    let nl = buf ? buf.indexOf(10, at) : (input as string).indexOf('\n', at);
    if (nl < 0) nl = end;
    fn(buf ? buf.toString('utf8', at, nl) : (input as string).slice(at, nl), ++lineNo);
    at = nl + 1;
  }
}

/**
 * Reads `kubectl describe node` (or `kubectl get events`). With `onEvent`, each Events row is handed over as it is read
 * (with the node's name as known by then) and none is kept: a table of 120 000 rows costs what one row does.
 */
export function parseDescribeNode(input: string | Buffer, onEvent?: (e: DescribeEvent, name: string | null) => void): DescribeNode {
  const out: DescribeNode = {
    name: null, kubeletVersion: null, containerRuntimeVersion: null, kernelVersion: null, osImage: null,
    podsCapacity: null, pods: null, conditions: [], events: [], versionRefs: {}, consumed: new LineSet(), skipped: 0,
  };
  let section: 'none' | 'capacity' | 'events' = 'none';
  let layout: EventLayout = DEFAULT_EVENTS;
  // The node the rows name (`kubectl get events` names it in every row), undefined before the first row; mixed: not one.
  let rowsNode: string | null | undefined;
  let mixed = false;
  const event = (e: DescribeEvent): void => {
    if (rowsNode === undefined) rowsNode = e.node;
    else if (rowsNode !== e.node) mixed = true;
    if (onEvent) onEvent(e, out.name);
    else out.events.push(e);
  };
  eachLine(input, (raw, lineNo) => {
    const line = raw.replace(/\r$/, '');
    const t = line.trim();
    if (t === '' || /^-+(?:\s+-+)*$/.test(t)) return;
    // A log line pasted with the output is the log reader's.
    if (/^(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d|\d{4}-\d\d-\d\d[T ]\d\d:\d\d|[IWEF]\d{4} \d\d:\d\d:\d\d\.\d|time=")/.test(t)) return;
    out.consumed.add(lineNo);
    // An event row (its message may hold `key: value`-looking text).
    if (/^\s*(?:Normal|Warning)(?:\s{2,}|\t)/.test(line)) {
      const e = eventRow(line, lineNo, layout);
      if (e) event(e);
      else out.skipped++;
      return;
    }
    const cut = cutReadyRow(line, lineNo);
    if (cut) {
      out.conditions.push(cut);
      return;
    }
    const key = /^([A-Za-z][\w .()-]*?):\s*(.*)$/.exec(t);
    if (!/^\s/.test(line) && key) {
      // A top-level key starts a section.
      const [, k2, v] = key as unknown as [string, string, string];
      section = k2 === 'Events' ? 'events' : k2 === 'Capacity' ? 'capacity' : 'none';
      if (k2 === 'Name' && v) out.name = v.trim();
      const pods = /^\((\d+) in total\)/.exec(v);
      if (k2 === 'Non-terminated Pods' && pods) out.pods = Number(pods[1]);
      return;
    }
    const cond = conditionRow(line, lineNo);
    if (cond) {
      out.conditions.push(cond);
      return;
    }
    const head = /^\s*(?:Type\s+Reason\s+Age|FirstSeen\s+LastSeen|LAST SEEN\s+TYPE)/.test(line) ? eventLayout(line) : null;
    if (head) {
      layout = head;
      section = 'events';
      return;
    }
    if (key) {
      const [, k2, v] = key as unknown as [string, string, string];
      const val = v.trim();
      const at = { line: lineNo, text: line };
      if (k2 === 'Kubelet Version') {
        out.kubeletVersion = val;
        out.versionRefs.kubelet = at;
      } else if (k2 === 'Container Runtime Version') {
        out.containerRuntimeVersion = val;
        out.versionRefs.runtime = at;
      } else if (k2 === 'Kernel Version') {
        out.kernelVersion = val;
        out.versionRefs.kernel = at;
      } else if (k2 === 'OS Image') {
        out.osImage = val;
        out.versionRefs.os = at;
      }
      else if (k2 === 'pods' && section === 'capacity' && out.podsCapacity === null) out.podsCapacity = Number(val) || null;
      else if (k2 === 'Hostname' && out.name === null) out.name = val;
      if (section !== 'events') return;
    }
    if (section === 'events' || /^\s*(?:Normal|Warning)\s/.test(line)) {
      const e = eventRow(line, lineNo, layout);
      if (e) event(e);
      else if (section === 'events') out.skipped++;
    }
  });
  // `kubectl get events` about one node names it in every row.
  if (out.name === null && typeof rowsNode === 'string' && !mixed) out.name = rowsNode;
  return out;
}
