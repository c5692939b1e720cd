// The year of a file's year-less stamps (`Mar 11 10:04:12 …` journal lines, klog `I0311 …` headers), chosen per file
// from its own evidence first: adding an unrelated log of another year to the input must not move this file.
//
// From the most to the least specific:
//   option     --year
//   bundle     the bundle's collection time (sosreport, must-gather …)
//   content    a full date in the file's own first lines (containerd's `time="2024-03-11T…"`, `-- Logs begin at …`)
//   same-host  a year-carrying log of the same host (its journal host, or the node its path names)
//   file-name  a date in the file's name (`kubelet-20240311.log`)
//   file-date  the file's modification time
//   today      nothing else: the current year
// The last three are assumptions: the report says so, and how to set the year (--year).
import type { Artifact } from '../artifact.js';

export type YearFrom = 'option' | 'bundle' | 'content' | 'same-host' | 'file-name' | 'file-date' | 'today';

/** Formats whose every stamp carries its year: they anchor the others and need no anchor. */
export const YEARFUL = /^(journal-short-iso|journal-json|export-json|json-log|cri-log|rfc3339|logrus|docker-json|dmesg-T|openmetrics)/;

const DAY_MS = 86_400_000;
/** `2024-03-11T10:12:44` or `2024-03-11 10:12:44`: a full date and time, the shape no version string or ID has. */
const RE_FULL = /(?<![\d-])(20\d\d)-(0[1-9]|1[0-2])-([0-2]\d|3[01])[T ]([01]\d|2[0-3]):[0-5]\d:[0-5]\d/g;
/** journalctl's `-- Logs begin at Mon 2024-03-11 08:00:01 UTC, end at … --` / `-- Journal begins at …`. */
const RE_BEGIN = /^-- (?:Logs|Journal) begins? at \w{3} (20\d\d)-(\d\d)-(\d\d)/m;
/** The host of a journal short line: `Mar 11 10:04:12 worker-3 kubelet[2817]: …` (also `.123456` fractions). */
const RE_SHORT_HOST = /^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)? (\S+) \S+?(?:\[\d+\])?: /m;

/** The latest full date written in a file's first bytes (epoch ms, read as UTC), or null. */
export function headDate(head: Buffer): number | null {
  const text = head.subarray(0, 64 * 1024).toString('latin1');
  let best: number | null = null;
  const begin = RE_BEGIN.exec(text);
  if (begin) best = Date.UTC(Number(begin[1]), Number(begin[2]) - 1, Number(begin[3]));
  RE_FULL.lastIndex = 0;
  for (let m = RE_FULL.exec(text); m; m = RE_FULL.exec(text)) {
    const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    if (best === null || t > best) best = t;
  }
  return best;
}

/** headDate of a file's head, or what was kept of it (a head not kept: Artifact.headless). */
function dateInHead(a: Pick<Artifact, 'head' | 'headless'>): number | null {
  return a.headless ? a.headless.date : headDate(a.head);
}

/** The host the file's first journal line names, or null. */
export function headHost(head: Buffer): string | null {
  const m = RE_SHORT_HOST.exec(head.subarray(0, 16 * 1024).toString('latin1'));
  return m ? (m[1] as string) : null;
}

type Anchored = Pick<Artifact, 'role' | 'format' | 'collectedAt' | 'head' | 'headless' | 'nodeHint' | 'nameTime' | 'mtime'> & { input?: number };

/** The node a file's head or path says it is of (a journal host, the node its folder or name gives), or null. */
function keyOf(a: Pick<Artifact, 'head' | 'headless' | 'nodeHint'>): string | null {
  const h = (a.headless ? a.headless.host : headHost(a.head)) ?? a.nodeHint;
  return h ? h.toLowerCase().split('.')[0] as string : null;
}

/**
 * Year anchors per node: the latest time each node's dated evidence shows. Known before any file is read from the
 * files' first bytes (a full date in a line, a metrics snapshot's name), then from the year-carrying logs as they are
 * read. A path the user named whose files name at most one node (a node's folder: its journal, its `dmesg -T`) anchors
 * all of them together, whatever else the command line holds; with several nodes in it, only a file's own node does:
 * another node's log of another year never moves it, and neither does a neighbour's folder.
 */
export class YearAnchors {
  private readonly byKey = new Map<string, number>();
  private readonly oneNode: boolean;
  /** Inputs (paths the user named) whose files name at most one node. */
  private readonly oneNodeInputs = new Set<number>();

  constructor(artifacts: ReadonlyArray<Anchored>) {
    const keys = new Set<string>();
    const perInput = new Map<number, Set<string>>();
    for (const a of artifacts) {
      const k = keyOf(a);
      if (k) keys.add(k);
      if (a.input !== undefined) {
        const s = perInput.get(a.input) ?? new Set<string>();
        if (k) s.add(k);
        perInput.set(a.input, s);
      }
    }
    for (const [i, s] of perInput) if (s.size <= 1) this.oneNodeInputs.add(i);
    for (const a of artifacts) {
      const own = a.role === 'metrics' ? a.nameTime : dateInHead(a);
      if (own !== null) this.bump(keyOf(a), own, a.input);
    }
    this.oneNode = keys.size <= 1;
  }

  /** A year-carrying file read: its hosts' last times, and the node its path names. */
  note(a: Pick<Artifact, 'nodeHint'> & { input?: number }, hosts: ReadonlyArray<{ host: string | null; last: number }>): void {
    for (const h of hosts) {
      if (!Number.isFinite(h.last)) continue;
      this.bump(h.host ? h.host.toLowerCase().split('.')[0] as string : a.nodeHint, h.last, a.input);
    }
  }

  /** A metrics snapshot read: the node it names (kubelet_node_name, else its path) was seen at `timeMs`. */
  noteSnapshot(node: string | null, timeMs: number | null): void {
    if (timeMs !== null && Number.isFinite(timeMs)) this.bump(node ? node.toLowerCase().split('.')[0] as string : null, timeMs);
  }

  /** The time the file cannot be later than, and where that came from. `now` is today. */
  anchor(a: Anchored, year: number | undefined, now: number): { notAfterMs: number | null; from: YearFrom } {
    if (year !== undefined) return { notAfterMs: null, from: 'option' };
    if (typeof a.collectedAt === 'number') return { notAfterMs: a.collectedAt, from: 'bundle' };
    const own = dateInHead(a);
    if (own !== null) return { notAfterMs: own + DAY_MS, from: 'content' };
    const k = keyOf(a);
    const same = k ? this.byKey.get(`node:${k}`) : undefined;
    if (same !== undefined) return { notAfterMs: same + DAY_MS, from: 'same-host' };
    const folder = a.input !== undefined && this.oneNodeInputs.has(a.input) ? this.byKey.get(`input:${a.input}`) : undefined;
    if (folder !== undefined) return { notAfterMs: folder + DAY_MS, from: 'same-host' };
    const any = this.oneNode ? this.byKey.get('*') : undefined;
    if (any !== undefined) return { notAfterMs: any + DAY_MS, from: 'same-host' };
    if (a.nameTime !== null) return { notAfterMs: a.nameTime + DAY_MS, from: 'file-name' };
    if (a.mtime !== null) return { notAfterMs: a.mtime, from: 'file-date' };
    return { notAfterMs: now, from: 'today' };
  }

  private bump(k: string | null, t: number, input?: number): void {
    const inp = input !== undefined && this.oneNodeInputs.has(input) ? `input:${input}` : null;
    for (const key of [k ? `node:${k.toLowerCase()}` : null, inp, '*']) {
      if (key === null) continue;
      const v = this.byKey.get(key);
      if (v === undefined || t > v) this.byKey.set(key, t);
    }
  }
}

/**
 * Years to move a file's year-less stamps by, when the year was assumed (file date, today) and one of its own lines says
 * otherwise: a full UTC date inside a line the extractor kept (the Ready condition a kubelet logs, `"lastHeartbeatTime":
 * "2024-03-11T10:09:16Z"`) at that line's own month, day, hour and minute, in another year. 0 when nothing says so.
 * Read after the file (its head had no date: anchor 'content'), from the few lines kept as evidence.
 */
export function statedYearShift(refs: Iterable<{ ts: number; text: string }>): number {
  for (const r of refs) {
    if (!Number.isFinite(r.ts) || !r.text.includes('Z')) continue;
    const at = new Date(r.ts);
    for (const m of r.text.matchAll(RE_FULL_UTC)) {
      const y = Number(m[1]);
      const same = Date.UTC(at.getUTCFullYear(), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
      if (y !== at.getUTCFullYear() && Math.abs(same - r.ts) <= 120_000) return y - at.getUTCFullYear();
    }
  }
  return 0;
}

/** A full date and time in UTC (`Z`) inside a line: `2024-03-11T10:09:16Z`, `2024-03-11T10:09:16.123Z`. */
const RE_FULL_UTC = /(?<![\d-])(20\d\d)-(0[1-9]|1[0-2])-([0-2]\d|3[01])T([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(?:\.\d+)?Z/g;

/** `t` (epoch ms) `years` later (or earlier), at the same date and time. */
export function shiftYears(t: number, years: number): number {
  const d = new Date(t);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.getTime();
}

/** Whether the year of a file's stamps was assumed (not read from the input or given). */
export function yearAssumed(from: YearFrom): boolean {
  return from === 'file-name' || from === 'file-date' || from === 'today';
}
