// `--format html`: one self-contained file to attach to a ticket or publish as a CI artifact. No script, no font, no
// image or style from anywhere (a Content-Security-Policy of `default-src 'none'` says so to the browser as well), so it
// opens offline and cannot call home. Per node: an SVG timeline (stalls, NotReady, kubelet starts, the time since the
// last successful relist against the threshold, and CRI error density / relist latency when the analysis carries them
// as series), the findings with their evidence, the latency table, coverage and gaps. Prints on paper as it reads on
// screen. Every string that came from a log is sanitised and HTML-escaped; nothing is ever inserted unescaped.
import type { Analysis, Finding, NodeReport } from '../contract/analysis.js';
import { DateTime } from 'luxon';
import { sanitize, sanitizeLine } from '../util/sanitize.js';
import { checkResult, clusterLongest, clusterOf, longestStallText, clusterSentences, displaySpan, displayTime, stallDuration, stallEnded, stallStart } from './cluster.js';
import { fmtDuration, fmtSeconds } from './layout.js';
import { fleetTimeline, TIMELINE_LEGEND } from './timeline-bar.js';
import { ALSO_CONSIDERED, count, foldLabel, LONGEST_STALL, severityWords, splitFindings, UNATTACHED, unattached, unattachedUnlisted, unattachedWhy, unlistedWords, filesRead, VERDICT, verdictKind, type FOLDED, type VerdictKind, yearNote, unreadNotes } from './words.js';
import { operationsView, relistLines } from './latency.js';

/**
 * Time series the timeline draws when a node carries them (proposed addition to NodeReport: `series?: NodeSeries`).
 * `criErrors`: CRI errors per bucket (every error line or metric delta, not only the cited ones); `relist`: relist
 * duration per metrics interval.
 */
export interface NodeSeries {
  criErrors?: Array<{ at: string; seconds: number; errors: number; timeouts: number }>;
  relist?: Array<{ at: string; seconds: number }>;
}

export interface HtmlOptions {
  zone?: string;
  evidenceLines?: number;
}

/** Sanitised (controls made visible) and HTML-escaped: the only way text gets into the page. */
export function esc(s: string): string {
  return sanitize(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

const CSS = `
:root { --fg:#1b1f24; --muted:#5b6470; --line:#d8dde3; --bg:#fff; --panel:#f6f8fa; --stall:#c62828; --pre:#ef9a9a;
  --nr:#f9a825; --restart:#1565c0; --cri:#6a1b9a; --relist:#2e7d32; --ok:#2e7d32; --nodata:#8a94a0; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--fg);
  background: var(--bg); margin: 0 auto; max-width: 1100px; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 19px; margin: 32px 0 8px; border-bottom: 2px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 16px; margin: 20px 0 6px; } h4 { font-size: 14px; margin: 0 0 4px; }
.meta, .muted { color: var(--muted); }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 13px; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: var(--panel); } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; } table.operations td.num { white-space: nowrap; } th.group { text-align: left; border-bottom: 2px solid var(--muted); }
code, pre { font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
pre { background: var(--panel); border: 1px solid var(--line); padding: 8px; white-space: pre-wrap; overflow-wrap: anywhere; margin: 6px 0; }
.badge { display: inline-block; font-size: 12px; font-weight: 600; padding: 1px 8px; border-radius: 10px; vertical-align: middle; }
.badge.unhealthy { background: #fde0e0; color: var(--stall); } .badge.healthy { background: #e3f4e4; color: var(--ok); }
.badge.other { background: #fff4d6; color: #8a5a00; }
.finding { border: 1px solid var(--line); border-left: 5px solid var(--muted); padding: 8px 12px; margin: 10px 0; break-inside: avoid; }
.sev-critical { border-left-color: #8e0000; } .sev-high { border-left-color: var(--stall); } .sev-medium { border-left-color: var(--nr); }
.sev-low { border-left-color: #0277bd; } .sev-info { border-left-color: #9e9e9e; }
.sev { font-weight: 700; text-transform: uppercase; font-size: 11px; letter-spacing: .04em; }
.finding.considered { border-style: dashed; border-left-style: solid; color: var(--muted); }
figure.timeline { margin: 8px 0 12px; }
.tl { display: grid; grid-template-columns: 128px 1fr; column-gap: 8px; font-size: 12px; color: var(--muted); }
.tl-labels, .tl-plot { position: relative; } .tl-label { position: absolute; right: 0; white-space: nowrap; }
.tl-plot svg { display: block; width: 100%; overflow: visible; } .tl-plot svg * { vector-effect: non-scaling-stroke; }
pre.fleet { white-space: pre; overflow-wrap: normal; line-height: 1.25; } .legend-text { font-size: 12px; color: var(--muted); margin: 2px 0; }
.nodename { white-space: nowrap; } p.fact { margin: 2px 0; } ul.facts { margin: 2px 0 4px; } .scroll-hint { display: none; font-size: 12px; color: var(--muted); margin: 4px 0; }
@media (max-width: 1000px) { .scroll-hint { display: block; } }
.tl-note { position: absolute; font-size: 11px; line-height: 14px; background: rgba(255,255,255,.85); padding: 0 3px; white-space: nowrap; }
header .note { color: #8a5a00; } table.checks td { vertical-align: top; } table.checks code { white-space: pre-wrap; word-break: break-all; }
.tl-zone { text-align: right; padding-top: 2px; white-space: nowrap; }
.tl-axis { position: relative; height: 18px; } .tick { position: absolute; top: 2px; transform: translateX(-50%); white-space: nowrap; }
figcaption { font-size: 12px; color: var(--muted); margin-top: 4px; }
.legend span { display: inline-block; margin-right: 14px; } .legend i { display: inline-block; width: 12px; height: 10px; margin-right: 4px; vertical-align: baseline; }
svg .stall { fill: var(--stall); } svg .pre { fill: var(--pre); } svg .notready { fill: var(--nr); }
svg .restart { stroke: var(--restart); stroke-width: 2; }
svg .age { fill: none; stroke: var(--stall); stroke-width: 1.5; } svg .threshold { stroke: var(--muted); stroke-dasharray: 4 3; }
svg .cri { fill: var(--cri); } svg .relist { fill: none; stroke: var(--relist); stroke-width: 1.5; } svg .relist-dot { stroke: var(--relist); stroke-width: 5; }
svg .lane { fill: #fafbfc; stroke: var(--line); } svg .grid { stroke: #e3e7ec; }
svg .nodata { fill: var(--nodata); fill-opacity: 0.18; } svg .nodata-edge { stroke: var(--nodata); stroke-dasharray: 3 3; }
.legend i.nodata { background: repeating-linear-gradient(90deg, var(--nodata) 0 3px, transparent 3px 6px); opacity: 0.7; }
.wide { overflow-x: auto; max-width: 100%; } pre.cmd { white-space: pre; overflow-x: auto; overflow-wrap: normal; } details { margin: 4px 0; } summary { cursor: pointer; color: var(--muted); }
table.files { width: 100%; } table.files td { font-size: 12px; } table.files td:nth-child(2), .nw { white-space: nowrap; }
table.files td:nth-child(1), table.files td:nth-child(3) { overflow-wrap: anywhere; } .refs a { overflow-wrap: anywhere; }
pre.evidence .ev { display: block; padding-left: 2em; text-indent: -2em; } pre.evidence .ev + .ev { margin-top: 3px; }
.ev-src { color: var(--muted); }
ul { margin: 4px 0 10px; padding-left: 22px; }
@media print {
  body { max-width: none; padding: 0; font-size: 11px; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  section.node + section.node { break-before: page; } h2, h3 { break-after: avoid; } table, figure, pre { break-inside: avoid; }
}
`;

// The timeline: lanes of SVG shapes stretched to the page's width (viewBox units across, pixels down), with every
// piece of text in HTML beside or over them, so text keeps its size at any width (readable on a 700 px screen) and
// nothing is distorted. Axis ticks are spaced for the narrowest plot, so their labels never overlap.
const VB = 1000;
/** Width of the plot on a 700 px screen (the narrowest the ticks are spaced for), and of a label character there. */
const MIN_PLOT_PX = 520;
const LABEL_CHAR_PX = 7.5;
const LABEL_GAP_PX = 16;

const TICK_STEPS_MIN = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 10080];

function num(x: number): string {
  return (Math.round(x * 10) / 10).toString();
}

interface Scale {
  a: number;
  b: number;
  /** Position in viewBox units (0…VB). */
  x(t: number): number;
}

function scale(a: number, b: number): Scale {
  return { a, b, x: (t) => (Math.min(b, Math.max(a, t)) - a) / (b - a) * VB };
}

function pct(x: number): string {
  return `${num((x / VB) * 100)}%`;
}

/** Ticks on round times of one step in the display zone (whole minutes/hours there, not in UTC); the first and each
 *  one on a new day carry the date. A label that would hang past either edge of the narrowest plot is left out. */
function ticksOf(s: Scale, zone: string, step: number): Array<{ x: number; label: string }> {
  const stepMs = step * 60000;
  // Every step divides an hour or a day, so counting from the start of the hour (day) lands on round times.
  const start = DateTime.fromMillis(s.a, { zone }).startOf(step >= 60 ? 'day' : 'hour');
  const px = (x: number): number => (x / VB) * MIN_PLOT_PX;
  const out: Array<{ x: number; label: string }> = [];
  let lastDay = '';
  for (let t = start.toMillis(); t <= s.b; t += stepMs) {
    if (t < s.a) continue;
    const d = DateTime.fromMillis(t, { zone });
    const day = d.toFormat('yyyy-MM-dd');
    const label = day !== lastDay ? d.toFormat(step >= 1440 ? 'MM-dd' : 'MM-dd HH:mm') : d.toFormat('HH:mm');
    const x = s.x(t);
    const half = (label.length * LABEL_CHAR_PX) / 2;
    if (px(x) < half || px(x) > MIN_PLOT_PX - half) continue;
    out.push({ x, label });
    lastDay = day;
  }
  return out;
}

/** Axis ticks: the finest round step whose labels keep apart on the narrowest plot. */
export function ticks(s: Scale, zone: string): Array<{ x: number; label: string }> {
  for (const step of TICK_STEPS_MIN) {
    if ((s.b - s.a) / (step * 60000) > 12) continue;
    const tk = ticksOf(s, zone, step);
    const px = (x: number): number => (x / VB) * MIN_PLOT_PX;
    const apart = tk.every((t, i) => i === 0 || px(t.x) - px((tk[i - 1] as { x: number }).x) >= ((t.label.length + (tk[i - 1] as { label: string }).label.length) / 2) * LABEL_CHAR_PX + LABEL_GAP_PX);
    if (apart) return tk;
  }
  return ticksOf(s, zone, TICK_STEPS_MIN[TICK_STEPS_MIN.length - 1] as number);
}

function seriesOf(n: NodeReport): NodeSeries | null {
  return (n as NodeReport & { series?: NodeSeries }).series ?? null;
}

/** The zone the report's times are in, as the axis names it. */
function zoneName(zone: string, at: number): string {
  const d = DateTime.fromMillis(at, { zone });
  if (!d.isValid) return zone;
  const off = d.toFormat('ZZ');
  return zone === 'UTC' || zone === 'Etc/UTC' || off === zone ? (off === '+00:00' ? 'UTC' : off) : `${zone} (${off})`;
}

/** Spans of [a, b] the node's input says nothing of, with why: before or after what it covers (when the axis reaches
 *  past it), and a stall's undecided end (between its last unhealthy line and the next line of the kubelet at work). */
function noDataSpans(n: NodeReport, a: number, b: number): Array<[number, number, string]> {
  const out: Array<[number, number, string]> = [];
  const from = Date.parse(n.coverage.from ?? '');
  const to = Date.parse(n.coverage.to ?? '');
  if (Number.isFinite(from) && from > a) out.push([a, Math.min(from, b), 'before the node\'s input starts']);
  if (Number.isFinite(to) && to < b) out.push([Math.max(to, a), b, 'after the node\'s input ends']);
  for (const st of n.stalls) {
    if (!st.endedBetween) continue;
    const t0 = Math.max(a, Date.parse(st.endedBetween.from));
    const t1 = Math.min(b, st.endedBetween.to ? Date.parse(st.endedBetween.to) : b);
    if (Number.isFinite(t0) && Number.isFinite(t1) && t1 > t0) {
      out.push([t0, t1, st.endedBetween.to ? 'the stall ended somewhere in here: no line says when' : 'the stall\'s end: the log says nothing more']);
    }
  }
  return out;
}

/** The node's timeline (lanes, labels and axis), or null when its window is unknown. */
export function timelineHtml(n: NodeReport, zone: string): string | null {
  const a = Date.parse(n.coverage.from ?? n.window.start ?? '');
  const b = Date.parse(n.coverage.to ?? n.window.end ?? '');
  if (!Number.isFinite(a) || !Number.isFinite(b) || b <= a) return null;
  const s = scale(a, b);
  const series = seriesOf(n);
  const shapes: string[] = [];
  const labels: string[] = [];
  const notes: string[] = [];
  let y = 4;
  const GAP = 8;
  const lane = (label: string, h: number, body: string[], cls: string): void => {
    labels.push(`<div class="tl-label" style="top:${y}px;height:${h}px;line-height:${h}px">${esc(label)}</div>`);
    shapes.push(`<g class="lane-${cls}" transform="translate(0 ${y})"><rect class="lane" x="0" y="0" width="${VB}" height="${h}"/>${body.join('')}</g>`);
    y += h + GAP;
  };
  const note = (text: string, top: number, side: 'left' | 'right', offset = '4px'): void => {
    notes.push(`<span class="tl-note" style="top:${num(top)}px;${side}:${offset}">${esc(text)}</span>`);
  };
  // A label at the left edge starts right of a kubelet-start line there (one at the log's start is common), not on it.
  const leftStarts = n.restarts.map((r) => s.x(Date.parse(r.at))).filter((x) => Number.isFinite(x) && x < VB * 0.2);
  const leftClear = leftStarts.length ? `calc(${pct(Math.max(...leftStarts))} + 6px)` : '4px';
  const end = (t: string | null): number => (t ? Date.parse(t) : b);
  // Stalls whose lines carry no time have no place on a time axis (the stall table still lists them).
  const stalls = n.stalls.filter((st): st is typeof st & { lastRelistAt: string; unhealthyFrom: string } => st.lastRelistAt !== null && st.unhealthyFrom !== null);
  // Where the input says nothing (timeline-bar.ts's ╌): outside what the node's input covers, and between a stall's
  // last unhealthy line and the next line that shows the kubelet at work when no line says when it ended.
  const noData = noDataSpans(n, a, b);
  // How far a stall is drawn: to its last unhealthy line when its end is only known to lie in a range (then no data, as
  // the text bar draws it; endedAt is an estimate inside that range), else to its end, else to the end of the axis.
  const stallEnd = (st: (typeof stalls)[number]): number => (st.endedBetween ? Date.parse(st.endedBetween.from) : st.endedAt ? Date.parse(st.endedAt) : b);

  // PLEG: from the last good relist to the threshold the node was still "healthy"; past it, unhealthy.
  lane('PLEG stalls', 24, stalls.flatMap((st, i) => {
    const x0 = s.x(Date.parse(st.lastRelistAt));
    const x1 = s.x(Date.parse(st.unhealthyFrom));
    const x2 = s.x(stallEnd(st));
    const tip = `<title>stall #${i + 1}: ${esc(stallDuration(st))} without a relist, from ${esc(displayTime(st.lastRelistAt, zone))}, ended ${esc(stallEnded(st, zone, true))}</title>`;
    return [
      `<rect class="pre" x="${num(x0)}" y="3" width="${num(Math.max(1, x1 - x0))}" height="18">${tip}</rect>`,
      `<rect class="stall" data-stall="${i + 1}" data-from="${esc(st.unhealthyFrom)}" data-to="${esc(st.endedAt ?? '')}" x="${num(x1)}" y="3" width="${num(Math.max(2, x2 - x1))}" height="18">${tip}</rect>`,
    ];
  }), 'stalls');

  lane('NotReady', 24, n.notReady.map((w) => {
    const x0 = s.x(Date.parse(w.from));
    const x1 = s.x(end(w.to));
    return `<rect class="notready" data-from="${esc(w.from)}" x="${num(x0)}" y="3" width="${num(Math.max(2, x1 - x0))}" height="18"><title>NotReady ${esc(displaySpan(w.from, w.to, zone))}: ${esc(sanitizeLine(w.reason, 200))}</title></rect>`;
  }), 'notready');

  // Time since the last successful relist: by definition it grows at 1 s/s from the last good relist until a relist
  // succeeds again, so each stall is a ramp from 0 to its duration; the dashed line is the 3 min threshold.
  const thresholdS = stalls.length ? (Date.parse(stalls[0]!.unhealthyFrom) - Date.parse(stalls[0]!.lastRelistAt)) / 1000 : 180;
  const maxS = stalls.reduce((m, st) => Math.max(m, (stallEnd(st) - Date.parse(st.lastRelistAt)) / 1000), thresholdS * 1.25);
  const hAge = 64;
  const yv = (v: number): number => hAge - 3 - (v / maxS) * (hAge - 18);
  // One line per stretch the input decides: a stall whose end is unknown stops at its last unhealthy line, and the
  // line takes up again at 0 where the input shows the kubelet at work.
  const lines: string[][] = [[`0,${num(yv(0))}`]];
  for (const st of stalls) {
    const pts = lines[lines.length - 1] as string[];
    const t0 = Date.parse(st.lastRelistAt);
    const t1 = stallEnd(st);
    pts.push(`${num(s.x(t0))},${num(yv(0))}`, `${num(s.x(t1))},${num(yv((t1 - t0) / 1000))}`);
    if (st.endedBetween) {
      if (st.endedBetween.to) lines.push([`${num(s.x(Date.parse(st.endedBetween.to)))},${num(yv(0))}`]);
    } else if (st.endedAt) pts.push(`${num(s.x(t1))},${num(yv(0))}`);
  }
  const lastSt = stalls[stalls.length - 1];
  if (!lastSt || (lastSt.endedBetween ? lastSt.endedBetween.to : lastSt.endedAt)) (lines[lines.length - 1] as string[]).push(`${VB},${num(yv(0))}`);
  const ageTop = y;
  lane('since last relist', hAge, [
    `<line class="threshold" x1="0" x2="${VB}" y1="${num(yv(thresholdS))}" y2="${num(yv(thresholdS))}"><title>threshold ${esc(fmtDuration(thresholdS))}</title></line>`,
    ...lines.filter((l) => l.length > 1).map((l) => `<polyline class="age" points="${l.join(' ')}"/>`),
  ], 'age');
  // The lane's scale: its top (the longest stall) at the left, the threshold at the right, above its dashed line.
  note(`max ${fmtDuration(maxS)}`, ageTop + 1, 'left', leftClear);
  note(`threshold ${fmtDuration(thresholdS)}`, ageTop + yv(thresholdS) - 15, 'right');

  const cri = series?.criErrors?.filter((p) => p.errors > 0) ?? [];
  if (cri.length > 0) {
    const h = 44;
    const top = cri.reduce((m, p) => Math.max(m, p.errors), -Infinity);
    note(`max ${top}/bucket`, y + 1, 'left', leftClear);
    lane('CRI errors', h, cri.map((p) => {
      const t = Date.parse(p.at);
      const x0 = s.x(t);
      const x1 = s.x(t + p.seconds * 1000);
      const bh = Math.max(1, (p.errors / top) * (h - 16));
      return `<rect class="cri" x="${num(x0)}" y="${num(h - 2 - bh)}" width="${num(Math.max(1.5, x1 - x0 - 0.5))}" height="${num(bh)}"><title>${esc(displayTime(p.at, zone))}: ${count(p.errors, 'CRI error')}, ${count(p.timeouts, 'timeout')}</title></rect>`;
    }), 'cri');
  }
  const rel = series?.relist ?? [];
  if (rel.length > 0) {
    const h = 44;
    const top = rel.reduce((m, p) => Math.max(m, p.seconds), 1);
    const ry = (v: number): number => h - 3 - (v / top) * (h - 16);
    note(`max ${fmtSeconds(top)}`, y + 1, 'left', leftClear);
    lane('relist duration', h, [
      `<polyline class="relist" points="${rel.map((p) => `${num(s.x(Date.parse(p.at)))},${num(ry(p.seconds))}`).join(' ')}"/>`,
      ...rel.map((p) => `<line class="relist-dot" x1="${num(s.x(Date.parse(p.at)))}" x2="${num(s.x(Date.parse(p.at)))}" y1="${num(ry(p.seconds) - 2)}" y2="${num(ry(p.seconds) + 2)}"><title>${esc(displayTime(p.at, zone))}: relist ${esc(fmtSeconds(p.seconds))}</title></line>`),
    ], 'relist');
  }

  const height = y - GAP + 4;
  const restarts = n.restarts.map((r) => {
    const x = num(s.x(Date.parse(r.at)));
    return `<g class="restart-at" data-at="${esc(r.at)}"><line class="restart" x1="${x}" x2="${x}" y1="0" y2="${height}"/><title>kubelet start ${esc(displayTime(r.at, zone))}${r.version ? ' ' + esc(r.version) : ''}</title></g>`;
  });
  const shade = noData.map(([t0, t1, why]) => {
    const x0 = num(s.x(t0));
    const x1 = num(s.x(t1));
    return `<g class="nodata-at" data-from="${esc(new Date(t0).toISOString())}" data-to="${esc(new Date(t1).toISOString())}"><rect class="nodata" x="${x0}" y="0" width="${num(Math.max(1, s.x(t1) - s.x(t0)))}" height="${height}"/>` +
      `<line class="nodata-edge" x1="${x0}" x2="${x0}" y1="0" y2="${height}"/><line class="nodata-edge" x1="${x1}" x2="${x1}" y1="0" y2="${height}"/>` +
      `<title>no data ${esc(displaySpan(new Date(t0).toISOString(), new Date(t1).toISOString(), zone))}: ${esc(why)}</title></g>`;
  });
  const tk = ticks(s, zone);
  const grid = tk.map((t) => `<line class="grid" x1="${num(t.x)}" x2="${num(t.x)}" y1="0" y2="${height}"/>`);
  const axis = tk.map((t) => `<span class="tick" style="left:${pct(t.x)}">${esc(t.label)}</span>`);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" class="timeline-svg" viewBox="0 0 ${VB} ${height}" preserveAspectRatio="none" height="${height}" role="img" aria-label="timeline of ${esc(n.name)}">` +
    `<g class="grid-lines">${grid.join('')}</g>${shapes.join('')}${shade.join('')}${restarts.join('')}</svg>`;
  return `<div class="tl"><div class="tl-labels" style="height:${height}px">${labels.join('')}</div>` +
    `<div class="tl-plot" style="height:${height}px">${svg}${notes.join('')}</div>` +
    `<div class="tl-zone">${esc(`time, ${zoneName(zone, a)}`)}</div><div class="tl-axis">${axis.join('')}</div></div>`;
}

/** A finding's summary one fact a line (its `lines`): sentences as paragraphs, a list of what was seen as a list. */
function factsHtml(f: Finding): string {
  if (!f.lines?.length) return `<p>${rich(f.summary)}</p>`;
  const out: string[] = [];
  let items: string[] = [];
  const flush = (): void => {
    if (items.length) out.push(`<ul class="facts">${items.map((i) => `<li>${rich(i)}</li>`).join('')}</ul>`);
    items = [];
  };
  for (const l of f.lines) {
    if (l.startsWith('- ')) items.push(l.slice(2));
    else {
      flush();
      out.push(`<p class="fact">${rich(l)}</p>`);
    }
  }
  flush();
  return out.join('');
}

/** The fleet on one time axis, as the text report draws it (timeline-bar.ts): a row per node, each name a link. */
function fleetHtml(analysis: Analysis, zone: string): string {
  const fleet = fleetTimeline(analysis.nodes, 64);
  if (!fleet) return '';
  const nameW = Math.max(...fleet.rows.map((r) => r.name.length));
  const rows = fleet.rows.map((r) => `${nodeLink(analysis, r.name)}${' '.repeat(nameW - r.name.length)} ${esc(r.cells)}`);
  const ends = `${' '.repeat(nameW)} ${esc(displayTime(new Date(fleet.axis.a).toISOString(), zone))} → ${esc(displayTime(new Date(fleet.axis.b).toISOString(), zone))}`;
  return `<h3>Fleet timeline</h3><p class="legend-text">${esc(TIMELINE_LEGEND)}</p><div class="wide"><pre class="fleet">${[...rows, ends].join('\n')}</pre></div>` +
    (fleet.left > 0 ? `<p class="muted">… ${esc(count(fleet.left, 'more node'))} (PLEG healthy) not drawn</p>` : '');
}

/** A node's name linking to its section (the name as is when the analysis has no such node). */
function nodeLink(analysis: Analysis, name: string): string {
  const i = analysis.nodes.findIndex((n) => n.name === name);
  return i >= 0 ? `<a href="#node-${i + 1}">${esc(name)}</a>` : esc(name);
}

const BADGE_CLASS: Record<VerdictKind, string> = { unhealthy: 'unhealthy', notready: 'other', healthy: 'healthy', unknown: 'other' };

function badge(n: NodeReport): string {
  const k = verdictKind(n);
  return `<span class="badge ${BADGE_CLASS[k]}">${esc(VERDICT[k])}</span>`;
}

/** A reference: a link when it is a web address, else text. */
function reference(u: string): string {
  return /^https?:\/\/[^\s<>"']+$/.test(u) ? `<a href="${esc(u)}" rel="noreferrer noopener">${esc(u)}</a>` : esc(u);
}

/** Evidence lines: the first `shown` in a block, the rest (every one of them) in a fold a reader opens. */
function evidenceBlock(lines: Array<{ file: string; line: number; text: string }>, shown: number, kind: keyof typeof FOLDED = 'evidence'): string {
  // One block per line, wrapped lines indented under it: where one evidence line ends and the next begins stays clear.
  const fmt = (e: { file: string; line: number; text: string }) => `<span class="ev"><span class="ev-src">${esc(e.file)}:${e.line}</span>  ${esc(sanitizeLine(e.text, 8192))}</span>`;
  const head = lines.slice(0, shown).map(fmt);
  const rest = lines.slice(shown).map(fmt);
  return (head.length ? `<pre class="evidence">${head.join('')}</pre>` : '') +
    (rest.length ? `<details class="more-evidence"><summary>${foldLabel(rest.length, head.length > 0, kind)}</summary><pre class="evidence">${rest.join('')}</pre></details>` : '');
}

/** Tool prose in which `backticked` parts are code. */
function rich(s: string): string {
  return s.split(/(`[^`\n]+`)/).map((p, i) => (i % 2 === 1 ? `<code>${esc(p.slice(1, -1))}</code>` : esc(p))).join('');
}

function findingHtml(f: Finding, i: number, nEvidence: number): string {
  return `<article class="finding sev-${f.severity}${f.considered ? ' considered' : ''}" data-rule="${esc(f.ruleId)}" data-cause="${esc(f.cause)}" data-severity="${f.severity}">` +
    `<h4>${f.considered ? '' : `${i + 1}. `}<span class="sev">${esc(severityWords(f))}</span> ${esc(f.title)}</h4>` +
    `<div class="muted"><code>${esc(f.cause)}</code> · confidence ${f.confidence.toFixed(2)} · rule <code>${esc(f.ruleId)}</code></div>` +
    factsHtml(f) +
    evidenceBlock(f.evidence, nEvidence) +
    (f.checks?.length
      ? `<details class="checks"><summary>Check the counts with grep (${f.checks.length})</summary><table class="checks"><tbody>${f.checks.map((c) =>
        `<tr><td>${esc(c.what)}</td><td class="num">${esc(checkResult(c))}</td><td><code>${esc(c.grep)}</code></td></tr>`).join('')}</tbody></table></details>`
      : '') +
    `<p><strong>Remedy:</strong> ${rich(f.remediation)}</p>` +
    (f.references.length ? `<p class="refs">References: ${f.references.map(reference).join(' · ')}</p>` : '') +
    '</article>';
}

function nodeHtml(n: NodeReport, idx: number, zone: string, nEvidence: number): string {
  const out: string[] = [];
  out.push(`<section class="node" id="node-${idx + 1}" data-node="${esc(n.name)}">`);
  out.push(`<h2>${esc(n.name)} ${badge(n)}</h2>`);
  const v = n.verdict;
  out.push('<table class="verdict"><tbody>' +
    `<tr><th>primary cause</th><td>${v.primaryCause ? `<code>${esc(v.primaryCause)}</code> (confidence ${v.confidence.toFixed(2)})` : '—'}</td></tr>` +
    `<tr><th>kubelet</th><td>${esc(n.kubeletVersion ?? 'unknown')}</td></tr><tr><th>runtime</th><td>${esc(n.runtime ?? 'unknown')}</td></tr>` +
    `<tr><th>logs</th><td>${esc(displayTime(n.window.start, zone))} → ${esc(displayTime(n.window.end, zone))}</td></tr>` +
    `<tr><th>pods</th><td>running ${n.pods.running ?? '—'} · containers ${n.pods.containers ?? '—'}</td></tr></tbody></table>`);

  const svg = timelineHtml(n, zone);
  if (svg) {
    const series = seriesOf(n);
    const legend = [
      '<span><i style="background:var(--pre)"></i>no relist yet, under threshold</span>',
      '<span><i style="background:var(--stall)"></i>PLEG unhealthy</span>',
      '<span><i style="background:var(--nr)"></i>NotReady</span>',
      '<span><i style="background:var(--restart)"></i>kubelet start</span>',
      ...(svg.includes('class="nodata-at"') ? ['<span><i class="nodata"></i>no data (the input does not say)</span>'] : []),
      ...(series?.criErrors?.length ? ['<span><i style="background:var(--cri)"></i>CRI errors</span>'] : []),
      ...(series?.relist?.length ? ['<span><i style="background:var(--relist)"></i>relist duration (metrics)</span>'] : []),
    ];
    out.push(`<figure class="timeline">${svg}<figcaption class="legend">${legend.join('')}</figcaption></figure>`);
  }

  if (n.stalls.length > 0) {
    out.push('<h3>Stalls</h3><table class="stalls"><thead><tr><th class="num">#</th><th>last relist</th><th>unhealthy from</th><th>ended</th><th class="num">without a relist</th><th class="num">max age</th><th>NotReady</th></tr></thead><tbody>');
    n.stalls.forEach((st, i) => out.push(`<tr><td class="num">${i + 1}</td><td>${esc(stallStart(st, zone))}</td><td>${esc(displayTime(st.unhealthyFrom, zone))}</td>` +
      `<td>${esc(stallEnded(st, zone, true))}</td><td class="num">${esc(stallDuration(st))}</td><td class="num">${fmtDuration(st.maxLastSeenAgoSeconds)}</td><td>${st.nodeNotReady ? 'yes' : 'no'}</td></tr>`));
    out.push('</tbody></table>');
    const lines = n.stalls.flatMap((st) => st.evidence);
    if (lines.length) out.push(evidenceBlock(lines, 0, 'stall'));
  }
  if (n.notReady.length > 0) {
    out.push('<h3>NotReady</h3><table class="notready"><thead><tr><th>from → to</th><th>reason</th></tr></thead><tbody>');
    for (const w of n.notReady) out.push(`<tr><td>${esc(displaySpan(w.from, w.to, zone))}</td><td>${esc(sanitizeLine(w.reason, 300))}</td></tr>`);
    out.push('</tbody></table>');
  }
  const { shown, considered } = splitFindings(n.findings);
  if (shown.length > 0) {
    out.push(`<h3>Findings</h3><div class="findings">${shown.map((f, i) => findingHtml(f, i, nEvidence)).join('')}</div>`);
  } else {
    out.push(`<h3>Findings</h3><p class="muted">${considered.length ? 'No finding stands; the weak alternatives are below.' : 'No rule fired on this node.'}</p>`);
  }
  if (considered.length > 0) {
    out.push(`<h3>${ALSO_CONSIDERED.title}</h3><p class="muted">${rich(ALSO_CONSIDERED.note)}</p>` +
      `<div class="findings considered">${considered.map((f, i) => findingHtml(f, i, nEvidence)).join('')}</div>`);
  }
  if (n.ruledOut.length > 0) {
    out.push(`<h3>Ruled out</h3><ul class="ruled-out">${n.ruledOut.map((r) => `<li><code>${esc(r.cause)}</code>: ${rich(r.reason)}</li>`).join('')}</ul>`);
  }
  const relist = relistLines(n, zone);
  const ops = operationsView(n, zone, 'wide');
  if (relist || ops) {
    out.push('<h3>Latency</h3>');
    if (relist) {
      out.push(`<table class="relist"><thead><tr><th colspan="2">relist · ${esc(relist.window)}</th></tr></thead><tbody>${relist.lines.map((l) => `<tr><td>${l.label}</td><td>${esc(l.text)}</td></tr>`).join('')}</tbody></table>`);
      for (const note of relist.notes) out.push(`<p class="muted">${esc(note)}</p>`);
    }
    if (ops && ops.rows.length > 0) {
      // Columns grouped by the window they cover: the metrics window's, the whole log's.
      const group = (g: 'name' | 'metrics' | 'log', label: string | null): string => {
        const span = ops.columns.filter((c) => c.group === g).length;
        return span ? `<th colspan="${span}"${g === 'name' ? '' : ' class="group"'}>${esc(label ?? '')}</th>` : '';
      };
      out.push(`<table class="operations"><thead><tr>${group('name', null)}${group('metrics', ops.metricsLabel)}${group('log', ops.logLabel)}</tr>` +
        `<tr>${ops.columns.map((c) => `<th${c.right ? ' class="num"' : ''}>${c.group === 'name' ? 'CRI operation' : esc(c.head)}</th>`).join('')}</tr></thead><tbody>`);
      for (const o of ops.rows) {
        out.push(`<tr>${ops.columns.map((c) => (c.group === 'name' ? `<td><code>${esc(c.cell(o))}</code></td>` : `<td class="num">${esc(c.cell(o))}</td>`)).join('')}</tr>`);
      }
      out.push('</tbody></table>');
    }
    if (ops && ops.notes.length > 0) out.push(`<ul class="muted latency-notes">${ops.notes.map((x) => `<li>${esc(x)}</li>`).join('')}</ul>`);
  }
  out.push('<h3>Coverage</h3>' +
    `<p>${esc(displayTime(n.coverage.from, zone))} → ${esc(displayTime(n.coverage.to, zone))} · read: ${esc(n.coverage.roles.join(', ') || 'nothing')}` +
    `${n.coverage.truncated ? ' · <strong>input truncated</strong>' : ''}</p>`);
  if (n.gaps.length > 0) {
    out.push(`<h3>Gaps</h3><p class="muted">Evidence that was not in the input and would decide between the remaining causes:</p><ul class="gaps">${n.gaps.map((g) =>
      `<li><strong>${esc(g.missing)}</strong>: ${rich(g.why)}<pre class="cmd"><code>${g.collect.split('\n').map(esc).join('\n')}</code></pre></li>`).join('')}</ul>`);
  }
  out.push('</section>');
  return out.join('\n');
}

/** The files the analysis read: where, what, whose, how many lines, what time span. */
function filesHtml(analysis: Analysis, zone: string): string {
  const rows = analysis.inputs.flatMap((inp) => [...inp.artifacts.map((a) => `<tr><td><code>${esc(a.path)}</code></td><td>${esc(a.role)}</td><td>${esc(a.node ?? '—')}</td>` +
    `<td class="num">${a.lines}</td><td>${a.from ? compactSpan(a.from, a.to ?? null, zone) : '—'}</td></tr>`),
  // Files counted but not listed (past MAX_LISTED_FILES of one node and role): one row each group.
  ...(inp.unlisted ?? []).map((u) => `<tr class="unlisted"><td colspan="3">${esc(unlistedWords(u))}</td><td class="num">${u.lines}</td><td>—</td></tr>`)]);
  const inputs = analysis.inputs.map((i) => `<code>${esc(i.path)}</code> (${esc(i.kind)})`).join(', ');
  return `<section id="files"><h2>Files read (${filesRead(analysis).files})</h2><p class="muted">From ${inputs}; paths as found in the input.</p>` +
    `<table class="files"><thead><tr><th>path</th><th>role</th><th>node</th><th class="num">lines</th><th>time span (${esc(zoneName(zone, Date.parse(analysis.generatedAt) || 0))})</th></tr></thead><tbody>${rows.join('')}</tbody></table></section>`;
}

/** `2024-03-11 23:25:00 → 00:24:58` (the end's date only when it differs), in `zone`, as HTML (breaks only at →). */
function compactSpan(from: string, to: string | null, zone: string): string {
  const a = DateTime.fromISO(from, { setZone: true }).setZone(zone);
  if (!a.isValid) return esc(from);
  const b = to ? DateTime.fromISO(to, { setZone: true }).setZone(zone) : null;
  const end = !b || !b.isValid ? '' : b.toFormat(b.toFormat('yyyy-MM-dd') === a.toFormat('yyyy-MM-dd') ? 'HH:mm:ss' : 'MM-dd HH:mm:ss');
  return `<span class="nw">${a.toFormat('yyyy-MM-dd HH:mm:ss')}</span>${end ? ` → <span class="nw">${end}</span>` : ''}`;
}

export function renderHtml(analysis: Analysis, options: HtmlOptions = {}): string {
  const zone = options.zone ?? 'UTC';
  const nEvidence = options.evidenceLines ?? 5;
  const arts = analysis.inputs.flatMap((i) => i.artifacts);
  const read = filesRead(analysis).files;
  const unhealthy = analysis.nodes.filter((n) => n.verdict.plegUnhealthy).length;
  const body: string[] = [];
  body.push(`<header><h1>plegscope report</h1><p class="meta">plegscope ${esc(analysis.tool.version)} · ${count(analysis.nodes.length, 'node')}, ${unhealthy} with PLEG unhealthy · ${count(read, 'file')} read · generated ${esc(displayTime(analysis.generatedAt, zone))}</p>${yearNote(analysis) ? `<p class="note">${esc(yearNote(analysis) as string)}</p>` : ''}${unreadNotes(analysis).map((n) => `<p class="note">${esc(n)}</p>`).join('')}</header>`);
  if (analysis.nodes.length === 0) body.push('<p>No node in the input: what was read names none and shows no PLEG state (the warnings say what each file held).</p>');

  const cluster = clusterOf(analysis);
  if (cluster) {
    body.push(`<section id="cluster"><h2>Cluster</h2><ul>${clusterSentences(cluster, zone).map((s) => `<li>${esc(s)}</li>`).join('')}</ul>`);
    if (cluster.flapped.length > 0) {
      body.push(`<p class="scroll-hint">the table scrolls sideways: more columns to the right →</p><table class="flapped"><thead><tr><th>node</th><th class="num">stalls</th><th>first unhealthy</th><th class="num">${LONGEST_STALL}</th><th>NotReady</th><th>cause</th><th>kubelet</th><th>runtime</th><th class="num">pods</th></tr></thead><tbody>` +
        cluster.flapped.map((c) => `<tr><td class="nodename">${nodeLink(analysis, c.name)}</td><td class="num">${c.stalls}</td><td>${esc(displayTime(c.firstUnhealthyFrom, zone))}</td><td class="num">${esc(clusterLongest(c))}</td>` +
          `<td>${c.nodeNotReady ? 'yes' : 'no'}</td><td><code>${esc(c.primaryCause ?? 'unknown')}</code></td><td>${esc(c.kubeletVersion ?? '?')}</td><td>${esc(c.runtime ?? '?')}</td><td class="num">${c.runningPods ?? '—'}</td></tr>`).join('') +
        '</tbody></table>');
    }
    body.push(fleetHtml(analysis, zone), '</section>');
  }
  if (analysis.nodes.length > 0) {
    body.push(`<section id="verdicts"><h2>Verdict</h2><table class="verdicts"><thead><tr><th>node</th><th>PLEG</th><th>primary cause</th><th class="num">confidence</th><th class="num">stalls</th><th class="num">${LONGEST_STALL}</th><th>NotReady</th></tr></thead><tbody>` +
      analysis.nodes.map((n, i) => `<tr><td class="nodename"><a href="#node-${i + 1}">${esc(n.name)}</a></td><td>${badge(n)}</td><td>${n.verdict.primaryCause ? `<code>${esc(n.verdict.primaryCause)}</code>` : '—'}</td>` +
        `<td class="num">${n.verdict.plegUnhealthy ? n.verdict.confidence.toFixed(2) : '—'}</td><td class="num">${n.stalls.length}</td><td class="num">${esc(longestStallText(n))}</td><td>${n.notReady.length ? 'yes' : 'no'}</td></tr>`).join('') +
      '</tbody></table></section>');
  }
  analysis.nodes.forEach((n, i) => body.push(nodeHtml(n, i, zone, nEvidence)));
  const loose = unattached(analysis);
  if (loose.length > 0) {
    body.push(`<section id="unattached"><h2>${UNATTACHED} (${count(loose.length, 'file')})</h2><p class="muted">Read, but in no node's verdict.</p><ul>` +
      loose.map((x) => `<li><code>${esc(x.path)}</code> (${esc(x.role)}): ${esc(sanitizeLine(unattachedWhy(analysis, x.path), 300))}</li>`).join('') +
      (unattachedUnlisted(analysis) > 0 ? `<li>…and ${count(unattachedUnlisted(analysis), 'file')} more, counted in the JSON report (<code>unlisted</code>), not listed</li>` : '') + '</ul></section>');
  }
  if (analysis.warnings.length > 0) {
    const li = (w: (typeof analysis.warnings)[number]) => `<li>${w.file ? `<code>${esc(w.path ?? w.file)}${w.line ? ':' + w.line : ''}</code>: ` : ''}${esc(sanitizeLine(w.message, 300))}</li>`;
    const rest = analysis.warnings.slice(50);
    body.push(`<section id="warnings"><h2>Warnings (${analysis.warnings.length})</h2><ul>${analysis.warnings.slice(0, 50).map(li).join('')}</ul>` +
      (rest.length ? `<details><summary>${rest.length} more ${rest.length === 1 ? 'warning' : 'warnings'}</summary><ul>${rest.map(li).join('')}</ul></details>` : '') + '</section>');
  }
  if (arts.length > 0) body.push(filesHtml(analysis, zone));
  const title = `plegscope — ${analysis.nodes.length === 1 ? (analysis.nodes[0] as NodeReport).name : `${analysis.nodes.length} nodes`}`;
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${esc(title)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    // A table wider than the window scrolls on its own; the page never does.
    ...body.map((b) => b.replace(/<table\b/g, '<div class="wide"><table').replace(/<\/table>/g, '</table></div>')),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
