// `--format html`: one self-contained file to attach to a ticket or publish as a CI artifact. No script, no font, no
// image or style from anywhere (a Content-Security-Policy of `default-src 'none'` says so to the browser as well), so it
// opens offline and cannot call home. Per node: an SVG timeline (stalls, NotReady, kubelet starts, the time since the
// last successful relist against the threshold, and CRI error density / relist latency when the analysis carries them
// as series), the findings with their evidence, the latency table, coverage and gaps. Prints on paper as it reads on
// screen. Every string that came from a log is sanitised and HTML-escaped; nothing is ever inserted unescaped.
import type { Analysis, Finding, NodeReport, Quantiles } from '../contract/analysis.js';
import { DateTime } from 'luxon';
import { sanitize, sanitizeLine } from '../util/sanitize.js';
import { clusterOf, clusterSentences, displaySpan, displayTime, ENDED } from './cluster.js';
import { fmtDuration, fmtSeconds } from './text.js';

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
  --nr:#f9a825; --restart:#1565c0; --cri:#6a1b9a; --relist:#2e7d32; --ok:#2e7d32; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--fg);
  background: var(--bg); margin: 0 auto; max-width: 1100px; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 19px; margin: 32px 0 8px; border-bottom: 2px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 16px; margin: 20px 0 6px; } h4 { font-size: 14px; margin: 0 0 4px; }
.meta, .muted { color: var(--muted); }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 13px; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: var(--panel); } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code, pre { font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
pre { background: var(--panel); border: 1px solid var(--line); padding: 8px; white-space: pre-wrap; overflow-wrap: anywhere; margin: 6px 0; }
.badge { display: inline-block; font-size: 12px; font-weight: 600; padding: 1px 8px; border-radius: 10px; vertical-align: middle; }
.badge.unhealthy { background: #fde0e0; color: var(--stall); } .badge.healthy { background: #e3f4e4; color: var(--ok); }
.badge.other { background: #fff4d6; color: #8a5a00; }
.finding { border: 1px solid var(--line); border-left: 5px solid var(--muted); padding: 8px 12px; margin: 10px 0; break-inside: avoid; }
.sev-critical { border-left-color: #8e0000; } .sev-high { border-left-color: var(--stall); } .sev-medium { border-left-color: var(--nr); }
.sev-low { border-left-color: #0277bd; } .sev-info { border-left-color: #9e9e9e; }
.sev { font-weight: 700; text-transform: uppercase; font-size: 11px; letter-spacing: .04em; }
figure.timeline { margin: 8px 0 12px; } figure.timeline svg { width: 100%; height: auto; display: block; }
figcaption { font-size: 12px; color: var(--muted); }
.legend span { display: inline-block; margin-right: 14px; } .legend i { display: inline-block; width: 12px; height: 10px; margin-right: 4px; vertical-align: baseline; }
svg text { font: 11px system-ui, "DejaVu Sans", sans-serif; fill: var(--muted); }
svg .stall { fill: var(--stall); } svg .pre { fill: var(--pre); } svg .notready { fill: var(--nr); }
svg .restart { stroke: var(--restart); stroke-width: 2; } svg .restart-mark { fill: var(--restart); }
svg .age { fill: none; stroke: var(--stall); stroke-width: 1.5; } svg .threshold { stroke: var(--muted); stroke-dasharray: 4 3; }
svg .cri { fill: var(--cri); } svg .relist { fill: none; stroke: var(--relist); stroke-width: 1.5; } svg .relist-dot { fill: var(--relist); }
svg .lane { fill: #fafbfc; stroke: var(--line); } svg .grid { stroke: #eceff3; }
ul { margin: 4px 0 10px; padding-left: 22px; }
@media print {
  body { max-width: none; padding: 0; font-size: 11px; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  section.node + section.node { break-before: page; } h2, h3 { break-after: avoid; } table, figure, pre { break-inside: avoid; }
}
`;

const W = 960;
const LEFT = 150;
const RIGHT = 16;
const PLOT = W - LEFT - RIGHT;

const TICK_STEPS_MIN = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 10080];

function num(x: number): string {
  return (Math.round(x * 10) / 10).toString();
}

interface Scale {
  a: number;
  b: number;
  x(t: number): number;
}

function scale(a: number, b: number): Scale {
  return { a, b, x: (t) => LEFT + (Math.min(b, Math.max(a, t)) - a) / (b - a) * PLOT };
}

/** Axis ticks on round local times of the display zone (whole minutes/hours there, not in UTC), at most ~8. */
function ticks(s: Scale, zone: string): Array<{ x: number; label: string }> {
  const spanMin = (s.b - s.a) / 60000;
  const step = TICK_STEPS_MIN.find((m) => spanMin / m <= 8) ?? 10080;
  const stepMs = step * 60000;
  // Every step divides an hour or a day, so counting from the start of the hour (day) lands on round times.
  const start = DateTime.fromMillis(s.a, { zone }).startOf(step >= 60 ? 'day' : 'hour');
  const out: Array<{ x: number; label: string }> = [];
  let lastDay = '';
  for (let t = start.toMillis(); t <= s.b; t += stepMs) {
    if (t < s.a) continue;
    const d = DateTime.fromMillis(t, { zone });
    const day = d.toFormat('yyyy-MM-dd');
    out.push({ x: s.x(t), label: day !== lastDay ? d.toFormat(step >= 1440 ? 'MM-dd' : 'MM-dd HH:mm') : d.toFormat('HH:mm') });
    lastDay = day;
  }
  return out;
}

function seriesOf(n: NodeReport): NodeSeries | null {
  return (n as NodeReport & { series?: NodeSeries }).series ?? null;
}

/** The node's timeline as inline SVG, or null when its window is unknown. */
export function timelineSvg(n: NodeReport, zone: string): string | null {
  const a = Date.parse(n.coverage.from ?? n.window.start ?? '');
  const b = Date.parse(n.coverage.to ?? n.window.end ?? '');
  if (!Number.isFinite(a) || !Number.isFinite(b) || b <= a) return null;
  const s = scale(a, b);
  const series = seriesOf(n);
  const parts: string[] = [];
  let y = 6;
  const lane = (label: string, h: number, body: string[], cls: string): void => {
    parts.push(`<g class="lane-${cls}" transform="translate(0 ${y})"><text x="${LEFT - 8}" y="${h / 2 + 4}" text-anchor="end">${esc(label)}</text>` +
      `<rect class="lane" x="${LEFT}" y="0" width="${PLOT}" height="${h}"/>${body.join('')}</g>`);
    y += h + 8;
  };
  const end = (t: string | null): number => (t ? Date.parse(t) : b);
  // Stalls whose lines carry no time have no place on a time axis (the stall table still lists them).
  const stalls = n.stalls.filter((st): st is typeof st & { lastRelistAt: string; unhealthyFrom: string } => st.lastRelistAt !== null && st.unhealthyFrom !== null);

  // PLEG: from the last good relist to the threshold the node was still "healthy"; past it, unhealthy.
  lane('PLEG stalls', 24, stalls.flatMap((st, i) => {
    const x0 = s.x(Date.parse(st.lastRelistAt));
    const x1 = s.x(Date.parse(st.unhealthyFrom));
    const x2 = s.x(end(st.endedAt));
    const tip = `<title>stall #${i + 1}: ${esc(fmtDuration(st.durationSeconds))} without a relist, ${esc(displaySpan(st.lastRelistAt, st.endedAt, zone))} (${esc(ENDED[st.endedBy])})</title>`;
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
  const maxS = stalls.reduce((m, st) => Math.max(m, (end(st.endedAt) - Date.parse(st.lastRelistAt)) / 1000), thresholdS * 1.25);
  const hAge = 64;
  const yv = (v: number): number => hAge - 3 - (v / maxS) * (hAge - 8);
  const pts: string[] = [`${LEFT},${num(yv(0))}`];
  for (const st of stalls) {
    const t0 = Date.parse(st.lastRelistAt);
    const t1 = end(st.endedAt);
    pts.push(`${num(s.x(t0))},${num(yv(0))}`, `${num(s.x(t1))},${num(yv((t1 - t0) / 1000))}`);
    if (st.endedAt) pts.push(`${num(s.x(t1))},${num(yv(0))}`);
  }
  if (stalls.length === 0 || stalls[stalls.length - 1]!.endedAt) pts.push(`${LEFT + PLOT},${num(yv(0))}`);
  lane('since last relist', hAge, [
    `<line class="threshold" x1="${LEFT}" x2="${LEFT + PLOT}" y1="${num(yv(thresholdS))}" y2="${num(yv(thresholdS))}"><title>threshold ${esc(fmtDuration(thresholdS))}</title></line>`,
    `<text x="${LEFT + PLOT - 4}" y="${num(yv(thresholdS) - 3)}" text-anchor="end">${esc(fmtDuration(thresholdS))}</text>`,
    `<text x="${LEFT + 4}" y="11">max ${esc(fmtDuration(maxS))}</text>`,
    `<polyline class="age" points="${pts.join(' ')}"/>`,
  ], 'age');

  const cri = series?.criErrors?.filter((p) => p.errors > 0) ?? [];
  if (cri.length > 0) {
    const h = 44;
    const top = cri.reduce((m, p) => Math.max(m, p.errors), -Infinity);
    lane('CRI errors', h, [
      `<text x="${LEFT + 4}" y="11">max ${top}/bucket</text>`,
      ...cri.map((p) => {
        const t = Date.parse(p.at);
        const x0 = s.x(t);
        const x1 = s.x(t + p.seconds * 1000);
        const bh = Math.max(1, (p.errors / top) * (h - 6));
        return `<rect class="cri" x="${num(x0)}" y="${num(h - 2 - bh)}" width="${num(Math.max(1.5, x1 - x0 - 0.5))}" height="${num(bh)}"><title>${esc(displayTime(p.at, zone))}: ${p.errors} CRI error(s), ${p.timeouts} timeout(s)</title></rect>`;
      }),
    ], 'cri');
  }
  const rel = series?.relist ?? [];
  if (rel.length > 0) {
    const h = 44;
    const top = rel.reduce((m, p) => Math.max(m, p.seconds), 1);
    const ry = (v: number): number => h - 3 - (v / top) * (h - 8);
    lane('relist duration', h, [
      `<text x="${LEFT + 4}" y="11">max ${esc(fmtSeconds(top))}</text>`,
      `<polyline class="relist" points="${rel.map((p) => `${num(s.x(Date.parse(p.at)))},${num(ry(p.seconds))}`).join(' ')}"/>`,
      ...rel.map((p) => `<circle class="relist-dot" cx="${num(s.x(Date.parse(p.at)))}" cy="${num(ry(p.seconds))}" r="2"><title>${esc(displayTime(p.at, zone))}: relist ${esc(fmtSeconds(p.seconds))}</title></circle>`),
    ], 'relist');
  }

  const plotBottom = y - 8;
  const restarts = n.restarts.map((r) => {
    const x = num(s.x(Date.parse(r.at)));
    return `<g class="restart-at" data-at="${esc(r.at)}"><line class="restart" x1="${x}" x2="${x}" y1="4" y2="${plotBottom}"/><path class="restart-mark" d="M${x} 2 l-4 -2 h8 z"/><title>kubelet start ${esc(displayTime(r.at, zone))}${r.version ? ' ' + esc(r.version) : ''}</title></g>`;
  });
  const axisY = plotBottom + 16;
  const tk = ticks(s, zone);
  const grid = tk.map((t) => `<line class="grid" x1="${num(t.x)}" x2="${num(t.x)}" y1="6" y2="${plotBottom}"/>`);
  const labels = tk.map((t) => `<text x="${num(t.x)}" y="${axisY}" text-anchor="middle">${esc(t.label)}</text>`);
  const height = axisY + 6;
  return `<svg xmlns="http://www.w3.org/2000/svg" class="timeline-svg" viewBox="0 0 ${W} ${height}" width="${W}" height="${height}" role="img" aria-label="timeline of ${esc(n.name)}">` +
    `<g class="grid-lines">${grid.join('')}</g>${parts.join('')}${restarts.join('')}<g class="axis">${labels.join('')}</g></svg>`;
}

function badge(n: NodeReport): string {
  if (n.verdict.plegUnhealthy) return '<span class="badge unhealthy">PLEG unhealthy</span>';
  if (n.findings.some((f) => f.cause === 'other' && f.severity !== 'info')) return '<span class="badge other">PLEG healthy · NotReady for another reason</span>';
  return '<span class="badge healthy">PLEG healthy</span>';
}

function quantRow(label: string, q: Quantiles | null): string {
  if (!q) return '';
  return `<tr><td>${label}</td><td class="num">${fmtSeconds(q.p50)}</td><td class="num">${fmtSeconds(q.p90)}</td><td class="num">${fmtSeconds(q.p99)}</td><td class="num">${fmtSeconds(q.max)}</td></tr>`;
}

/** Tool prose in which `backticked` parts are code. */
function rich(s: string): string {
  return s.split(/(`[^`\n]+`)/).map((p, i) => (i % 2 === 1 ? `<code>${esc(p.slice(1, -1))}</code>` : esc(p))).join('');
}

function findingHtml(f: Finding, i: number, nEvidence: number): string {
  const ev = f.evidence.slice(0, nEvidence).map((e) => `<span class="ev-src">${esc(e.file)}:${e.line}</span>  ${esc(sanitizeLine(e.text, 1000))}`);
  return `<article class="finding sev-${f.severity}" data-rule="${esc(f.ruleId)}" data-cause="${esc(f.cause)}">` +
    `<h4>${i + 1}. <span class="sev">${esc(f.severity)}</span> ${esc(f.title)}</h4>` +
    `<div class="muted"><code>${esc(f.cause)}</code> · confidence ${f.confidence.toFixed(2)} · rule <code>${esc(f.ruleId)}</code></div>` +
    `<p>${rich(f.summary)}</p>` +
    (ev.length ? `<pre class="evidence">${ev.join('\n')}</pre>` : '') +
    (f.evidence.length > nEvidence ? `<div class="muted">${f.evidence.length - nEvidence} more evidence line(s) in --format json</div>` : '') +
    `<p><strong>Remedy:</strong> ${rich(f.remediation)}</p></article>`;
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

  const svg = timelineSvg(n, zone);
  if (svg) {
    const series = seriesOf(n);
    const legend = [
      '<span><i style="background:var(--pre)"></i>no relist yet, under threshold</span>',
      '<span><i style="background:var(--stall)"></i>PLEG unhealthy</span>',
      '<span><i style="background:var(--nr)"></i>NotReady</span>',
      '<span><i style="background:var(--restart)"></i>kubelet start</span>',
      ...(series?.criErrors?.length ? ['<span><i style="background:var(--cri)"></i>CRI errors</span>'] : []),
      ...(series?.relist?.length ? ['<span><i style="background:var(--relist)"></i>relist duration (metrics)</span>'] : []),
    ];
    out.push(`<figure class="timeline">${svg}<figcaption class="legend">${legend.join('')}</figcaption></figure>`);
  }

  if (n.stalls.length > 0) {
    out.push('<h3>Stalls</h3><table class="stalls"><thead><tr><th class="num">#</th><th>last relist</th><th>unhealthy from</th><th>ended</th><th class="num">without a relist</th><th class="num">max age</th><th>NotReady</th></tr></thead><tbody>');
    n.stalls.forEach((st, i) => out.push(`<tr><td class="num">${i + 1}</td><td>${esc(displayTime(st.lastRelistAt, zone))}</td><td>${esc(displayTime(st.unhealthyFrom, zone))}</td>` +
      `<td>${st.endedAt ? esc(displayTime(st.endedAt, zone)) + ' ' : ''}(${esc(ENDED[st.endedBy])})</td><td class="num">${fmtDuration(st.durationSeconds)}</td><td class="num">${fmtDuration(st.maxLastSeenAgoSeconds)}</td><td>${st.nodeNotReady ? 'yes' : 'no'}</td></tr>`));
    out.push('</tbody></table>');
  }
  if (n.notReady.length > 0) {
    out.push('<h3>NotReady</h3><table class="notready"><thead><tr><th>from → to</th><th>reason</th></tr></thead><tbody>');
    for (const w of n.notReady.slice(0, 20)) out.push(`<tr><td>${esc(displaySpan(w.from, w.to, zone))}</td><td>${esc(sanitizeLine(w.reason, 300))}</td></tr>`);
    out.push('</tbody></table>');
    if (n.notReady.length > 20) out.push(`<p class="muted">${n.notReady.length - 20} more in --format json</p>`);
  }
  if (n.findings.length > 0) {
    out.push(`<h3>Findings</h3><div class="findings">${n.findings.map((f, i) => findingHtml(f, i, nEvidence)).join('')}</div>`);
  } else {
    out.push('<h3>Findings</h3><p class="muted">No rule fired on this node.</p>');
  }
  if (n.ruledOut.length > 0) {
    out.push(`<h3>Ruled out</h3><ul class="ruled-out">${n.ruledOut.map((r) => `<li><code>${esc(r.cause)}</code>: ${rich(r.reason)}</li>`).join('')}</ul>`);
  }
  const relist = quantRow('relist duration', n.relist.durationSeconds) + quantRow('relist interval', n.relist.intervalSeconds);
  if (relist || n.operations.length > 0) {
    out.push('<h3>Latency</h3>');
    if (relist) out.push(`<table class="relist"><thead><tr><th>relist (${esc(n.relist.source)})</th><th class="num">p50</th><th class="num">p90</th><th class="num">p99</th><th class="num">max</th></tr></thead><tbody>${relist}</tbody></table>`);
    if (n.operations.length > 0) {
      out.push('<table class="operations"><thead><tr><th>CRI operation</th><th>source</th><th class="num">count</th><th class="num">errors</th><th class="num">timeouts</th><th class="num">p50</th><th class="num">p90</th><th class="num">p99</th></tr></thead><tbody>');
      for (const o of n.operations) {
        out.push(`<tr><td><code>${esc(o.operation)}</code></td><td>${o.source}</td><td class="num">${o.count ?? '—'}</td><td class="num">${o.errors ?? '—'}</td><td class="num">${o.timeouts}</td>` +
          `<td class="num">${fmtSeconds(o.p50Seconds)}</td><td class="num">${fmtSeconds(o.p90Seconds)}</td><td class="num">${fmtSeconds(o.p99Seconds)}</td></tr>`);
      }
      out.push('</tbody></table>');
    }
  }
  out.push('<h3>Coverage</h3>' +
    `<p>${esc(displayTime(n.coverage.from, zone))} → ${esc(displayTime(n.coverage.to, zone))} · read: ${esc(n.coverage.roles.join(', ') || 'nothing')}` +
    `${n.coverage.truncated ? ' · <strong>input truncated</strong>' : ''}</p>`);
  if (n.gaps.length > 0) {
    out.push(`<h3>Gaps</h3><p class="muted">Evidence that was not in the input and would decide between the remaining causes:</p><ul class="gaps">${n.gaps.map((g) =>
      `<li><strong>${esc(g.missing)}</strong>: ${rich(g.why)}<pre><code>${esc(g.collect)}</code></pre></li>`).join('')}</ul>`);
  }
  out.push('</section>');
  return out.join('\n');
}

export function renderHtml(analysis: Analysis, options: HtmlOptions = {}): string {
  const zone = options.zone ?? 'UTC';
  const nEvidence = options.evidenceLines ?? 5;
  const arts = analysis.inputs.flatMap((i) => i.artifacts);
  const unhealthy = analysis.nodes.filter((n) => n.verdict.plegUnhealthy).length;
  const body: string[] = [];
  body.push(`<header><h1>plegscope report</h1><p class="meta">plegscope ${esc(analysis.tool.version)} · ${analysis.nodes.length} node(s), ${unhealthy} with PLEG unhealthy · ${arts.length} file(s) read · generated ${esc(displayTime(analysis.generatedAt, zone))}</p></header>`);
  if (analysis.nodes.length === 0) body.push('<p>No kubelet log, runtime log or metrics found in the input.</p>');

  const cluster = clusterOf(analysis);
  if (cluster) {
    body.push(`<section id="cluster"><h2>Cluster</h2><ul>${clusterSentences(cluster, zone).map((s) => `<li>${esc(s)}</li>`).join('')}</ul>`);
    if (cluster.flapped.length > 0) {
      body.push('<table class="flapped"><thead><tr><th>node</th><th class="num">stalls</th><th>first unhealthy</th><th class="num">longest stall</th><th>NotReady</th><th>cause</th><th>kubelet</th><th>runtime</th><th class="num">pods</th></tr></thead><tbody>' +
        cluster.flapped.map((c) => `<tr><td>${esc(c.name)}</td><td class="num">${c.stalls}</td><td>${esc(displayTime(c.firstUnhealthyFrom, zone))}</td><td class="num">${fmtDuration(c.longestStallSeconds)}</td>` +
          `<td>${c.nodeNotReady ? 'yes' : 'no'}</td><td><code>${esc(c.primaryCause ?? 'unknown')}</code></td><td>${esc(c.kubeletVersion ?? '?')}</td><td>${esc(c.runtime ?? '?')}</td><td class="num">${c.runningPods ?? '—'}</td></tr>`).join('') +
        '</tbody></table>');
    }
    body.push('</section>');
  }
  if (analysis.nodes.length > 0) {
    body.push('<section id="verdicts"><h2>Verdict</h2><table class="verdicts"><thead><tr><th>node</th><th>PLEG</th><th>primary cause</th><th class="num">confidence</th><th class="num">stalls</th><th class="num">longest stall</th><th>NotReady</th></tr></thead><tbody>' +
      analysis.nodes.map((n, i) => `<tr><td><a href="#node-${i + 1}">${esc(n.name)}</a></td><td>${badge(n)}</td><td>${n.verdict.primaryCause ? `<code>${esc(n.verdict.primaryCause)}</code>` : '—'}</td>` +
        `<td class="num">${n.verdict.plegUnhealthy ? n.verdict.confidence.toFixed(2) : '—'}</td><td class="num">${n.stalls.length}</td><td class="num">${n.stalls.length ? fmtDuration(n.stalls.reduce((m, s) => Math.max(m, s.durationSeconds), -Infinity)) : '—'}</td><td>${n.notReady.length ? 'yes' : 'no'}</td></tr>`).join('') +
      '</tbody></table></section>');
  }
  analysis.nodes.forEach((n, i) => body.push(nodeHtml(n, i, zone, nEvidence)));
  if (analysis.warnings.length > 0) {
    body.push(`<section id="warnings"><h2>Warnings (${analysis.warnings.length})</h2><ul>${analysis.warnings.slice(0, 50).map((w) =>
      `<li>${w.file ? `<code>${esc(w.file)}${w.line ? ':' + w.line : ''}</code>: ` : ''}${esc(sanitizeLine(w.message, 300))}</li>`).join('')}</ul>` +
      (analysis.warnings.length > 50 ? `<p class="muted">${analysis.warnings.length - 50} more in --format json</p>` : '') + '</section>');
  }
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
    ...body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
