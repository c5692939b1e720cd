// One log artifact → signal events, streamed. Holds per-host state so that frequent lines (SyncLoop (PLEG) events,
// every kubelet line's PID) become a handful of events rather than millions: the model needs the first proof of a
// relist after a stall, a PID change, and each host's log window, not every occurrence.
import type { Readable } from 'node:stream';
import { LineScanner, scanStream, type ScanResult } from '../parse/lines.js';
import { parseLine, parseMarker, type LogRecord, type ParseContext } from '../parse/record.js';
import { YearClock, WallClock } from '../parse/time.js';
import type { Zone } from 'luxon';
import type { Ref, SignalEvent } from './events.js';
import { MATCHERS, allNeedles, type Matcher } from './matchers.js';
import { MultiSearch } from '../parse/multisearch.js';
import type { CustomPattern } from './custom.js';

export type { CustomPattern } from './custom.js';

export interface HostWindow {
  host: string | null;
  first: number;
  last: number;
  /** Last line written by the kubelet itself (klog/JSON payload): a stall that outlives it ran to the end of the log. */
  kubeletLast: number;
}

export interface ExtractWarning {
  line: number | null;
  message: string;
}

export interface ArtifactSignals {
  artifact: number;
  events: SignalEvent[];
  /** Time span per journal host (null = lines without a host field). */
  hosts: HostWindow[];
  scan: ScanResult;
  warnings: ExtractWarning[];
  /** Node names the kubelet itself printed (node="…"), most frequent first. */
  nodeNames: string[];
  /** Boot times (epoch ms) implied by kernel lines that carry both a wall-clock and a seconds-since-boot stamp. */
  bootAnchors: number[];
}

export interface ExtractOptions {
  artifact: number;
  zone: Zone;
  year?: number;
  /** A time the log cannot be later than (collection time, file mtime): anchors year-less stamps. */
  notAfterMs: number | null;
  /** Disable the chunk prefilter (every line parsed): for checking the fast path gives identical results. */
  noPrefilter?: boolean;
  custom?: CustomPattern[];
  maxRefText?: number;
}

/** Proofs kept between stalls, for density views; the first proof after an unhealthy line is always kept. */
const PROOF_SPACING_MS = 60_000;
const CLOCK_DISAGREE_MS = 60_000;
/** Lines always parsed at the top of a file (the scanner's `headLines`): host, headers, start-up. */
const HEAD_LINES = 64;

export function buildPrefilter(custom: CustomPattern[] = []): MultiSearch {
  return new MultiSearch(allNeedles(custom.flatMap((c) => c.needles)));
}

/** Which matchers (by index in MATCHERS) and custom patterns each needle of the prefilter wakes. */
function needleRoutes(search: MultiSearch, custom: CustomPattern[]): Array<{ matchers: number[]; custom: number[] }> {
  return search.needles.map((n) => ({
    matchers: MATCHERS.map((m, i) => (m.needles.includes(n) ? i : -1)).filter((i) => i >= 0),
    custom: custom.map((c, i) => (c.needles.includes(n) ? i : -1)).filter((i) => i >= 0),
  }));
}

interface HostState {
  window: HostWindow;
  awaitingProof: boolean;
  lastProofKept: number;
  pidByIdent: Map<string, number>;
}

export async function extractSignals(stream: Readable, opts: ExtractOptions): Promise<ArtifactSignals> {
  const wall = new WallClock(opts.zone);
  const years = new YearClock(wall, { year: opts.year, notAfterMs: opts.notAfterMs });
  const ctx: ParseContext = { years, wall };
  const events: SignalEvent[] = [];
  const warnings: ExtractWarning[] = [];
  const hosts = new Map<string | null, HostState>();
  const nodeNames = new Map<string, number>();
  const maxText = opts.maxRefText ?? 16384;
  const custom = opts.custom ?? [];
  let disagreements = 0;
  let firstDisagreement: { line: number; deltaMs: number } | null = null;
  let lastTs = NaN;
  let backwardJumps = 0;

  const hostState = (h: string | null): HostState => {
    let s = hosts.get(h);
    if (!s) {
      s = { window: { host: h, first: NaN, last: NaN, kubeletLast: NaN }, awaitingProof: false, lastProofKept: -Infinity, pidByIdent: new Map() };
      hosts.set(h, s);
    }
    return s;
  };

  const refOf = (rec: LogRecord): Ref => ({
    artifact: opts.artifact, line: rec.line, offset: rec.offset, ts: rec.ts, mono: rec.mono,
    text: rec.text.length > maxText ? rec.text.slice(0, maxText) : rec.text,
  });

  const search = buildPrefilter(custom);
  const routes = needleRoutes(search, custom);
  const wokenMatchers = new Uint8Array(MATCHERS.length);
  const wokenCustom = new Uint8Array(custom.length);

  // The same needle search decides which matchers see a line, with or without the chunk prefilter, so both paths
  // give the same events by construction.
  const bootAnchors: number[] = [];
  const onRecord = (rec: LogRecord, buf: Buffer, from: number, to: number): void => {
    if (Number.isNaN(rec.ts) && Number.isNaN(rec.mono)) return;
    wokenMatchers.fill(0);
    wokenCustom.fill(0);
    let any = false;
    for (let p = from; p < to;) {
      const at = search.next(buf, p, to);
      if (at < 0) break;
      const r = routes[search.lastNeedle];
      if (r) {
        for (const i of r.matchers) wokenMatchers[i] = 1;
        for (const i of r.custom) wokenCustom[i] = 1;
        any = true;
      }
      p = at + 1;
    }
    // Only lines a needle woke (and the head of the file) shape the windows and PID tracking: the prefilter lets
    // exactly those through, so the slow path must not see more.
    if (!any && rec.line > HEAD_LINES) return;
    if (!Number.isNaN(rec.ts) && !Number.isNaN(rec.mono) && bootAnchors.length < 16) bootAnchors.push(rec.ts - rec.mono * 1000);
    const st = hostState(rec.host);
    const w = st.window;
    if (!Number.isNaN(rec.ts)) {
      if (!(w.first <= rec.ts)) w.first = rec.ts;
      if (!(w.last >= rec.ts)) w.last = rec.ts;
    }
    if ((rec.kind === 'klog' || rec.kind === 'json') && !(w.kubeletLast >= rec.ts)) w.kubeletLast = rec.ts;
    if (!Number.isNaN(lastTs) && rec.ts < lastTs - 3600_000) backwardJumps++;
    if (!Number.isNaN(rec.ts)) lastTs = rec.ts;

    if (!Number.isNaN(rec.payloadTs) && rec.ts !== rec.payloadTs && Math.abs(rec.ts - rec.payloadTs) > CLOCK_DISAGREE_MS && rec.kind === 'klog') {
      disagreements++;
      if (!firstDisagreement) firstDisagreement = { line: rec.line, deltaMs: rec.ts - rec.payloadTs };
    }

    // A new kubelet PID on the same host and identifier = the kubelet restarted in between.
    if ((rec.kind === 'klog' || rec.kind === 'json') && rec.pid !== null) {
      const key = rec.ident ?? '';
      const prev = st.pidByIdent.get(key);
      if (prev !== undefined && prev !== rec.pid) {
        events.push({ type: 'kubelet-line', pid: rec.pid, ident: rec.ident, ts: rec.ts, host: rec.host, ref: refOf(rec) });
      }
      st.pidByIdent.set(key, rec.pid);
    }

    for (let mi = 0; mi < MATCHERS.length; mi++) {
      if (!wokenMatchers[mi]) continue;
      const m = MATCHERS[mi] as Matcher;
      if (m.kinds && !m.kinds.includes(rec.kind)) continue;
      const out = m.match(rec);
      if (!out) continue;
      for (const d of Array.isArray(out) ? out : [out]) {
        if (d.type === 'relist-proof') {
          if (!st.awaitingProof && rec.ts - st.lastProofKept < PROOF_SPACING_MS) continue;
          st.awaitingProof = false;
          st.lastProofKept = rec.ts;
        } else if (d.type === 'relist-unhealthy' || d.type === 'node-not-ready') {
          st.awaitingProof = true;
        } else if (d.type === 'node-name') {
          nodeNames.set(d.node, (nodeNames.get(d.node) ?? 0) + 1);
          continue;
        }
        events.push({ ...d, ts: rec.ts, host: rec.host, ref: refOf(rec) } as SignalEvent);
      }
    }
    for (let ci = 0; ci < custom.length; ci++) {
      const c = custom[ci] as CustomPattern;
      if (wokenCustom[ci] && c.test(rec.text)) events.push({ type: 'custom', signal: c.id, ts: rec.ts, host: rec.host, ref: refOf(rec) });
    }
  };

  const scanner = new LineScanner({
    line(text, lineNo, offset, buf, from, to) {
      if (text.charCodeAt(0) === 45 && text.startsWith('-- ')) {
        const mk = parseMarker(text);
        if (mk?.type === 'begin') years.setYear(mk.year, mk.month);
        return;
      }
      const rec = parseLine(text, lineNo, offset, ctx);
      if (rec) onRecord(rec, buf, from, to);
    },
  }, { prefilter: opts.noPrefilter ? null : search, headLines: HEAD_LINES });

  let scan: ScanResult;
  try {
    scan = await scanStream(stream, scanner);
  } catch (err) {
    scan = scanner.finish();
    warnings.push({ line: scan.lines || null, message: `read stopped after line ${scan.lines}: ${(err as Error).message}` });
  }
  // The last line fixes the end of the log window even when the prefilter skipped it.
  if (scan.lastLine) {
    const rec = parseLine(scan.lastLine.text, scan.lastLine.lineNo, scan.lastLine.offset, ctx);
    if (rec && !Number.isNaN(rec.ts)) {
      const w = hostState(rec.host).window;
      if (!(w.last >= rec.ts)) w.last = rec.ts;
      if (!(w.first <= rec.ts)) w.first = rec.ts;
      if ((rec.kind === 'klog' || rec.kind === 'json') && !(w.kubeletLast >= rec.ts)) w.kubeletLast = rec.ts;
    }
  }
  if (disagreements > 0 && firstDisagreement) {
    const d = firstDisagreement as { line: number; deltaMs: number };
    warnings.push({
      line: d.line,
      message: `journal time and klog header time disagree by ${Math.round(d.deltaMs / 1000)} s on ${disagreements} line(s) (first here): the kubelet was stalled writing logs, or the two clocks use different zones; journal time used`,
    });
  }
  if (backwardJumps > 0) {
    warnings.push({ line: null, message: `${backwardJumps} time jump(s) backwards by more than an hour: merged or out-of-order log, or a clock step` });
  }
  if (scan.longLineCount > 0) {
    warnings.push({ line: scan.longLines[0] ?? null, message: `${scan.longLineCount} over-long line(s) cut (first at line ${scan.longLines[0]})` });
  }
  return {
    artifact: opts.artifact,
    events,
    hosts: [...hosts.values()].map((h) => h.window).filter((w) => !Number.isNaN(w.first)),
    scan,
    warnings,
    nodeNames: [...nodeNames.entries()].sort((a, b) => b[1] - a[1]).map((e) => e[0]),
    bootAnchors,
  };
}
