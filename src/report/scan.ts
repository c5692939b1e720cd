// `plegscope scan` output: a ranked table of the nodes that stalled (text), or the FleetScan document (JSON).
import type { FleetScan } from '../contract/analysis.js';
import { fmtDuration, fmtSeconds } from './text.js';
import { sanitize } from '../util/sanitize.js';

export function renderScanJson(scan: FleetScan): string {
  return `${JSON.stringify(scan, null, 2)}\n`;
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function lpad(s: string, n: number): string {
  return s.length >= n ? s : ' '.repeat(n - s.length) + s;
}

function when(iso: string | null): string {
  return iso ? iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, 'Z') : 'still stalled';
}

export function renderScanText(scan: FleetScan, opts: { color: boolean }): string {
  const c = (code: string, s: string) => (opts.color ? `\x1b[${code}m${s}\x1b[0m` : s);
  const out: string[] = [];
  out.push(`${c('1', 'plegscope scan')} ${sanitize(scan.source.prometheus)} — ${when(scan.window.start)} → ${when(scan.window.end)} (step ${scan.source.stepSeconds}s, ${scan.source.scrapeIntervalAssumed ? `scrape interval not measured: ${scan.source.scrapeIntervalSeconds}s assumed` : `scrapes every ${scan.source.scrapeIntervalSeconds}s`})`);
  const ev = scan.evented?.length ?? 0;
  out.push(`${scan.nodes.length} of ${scan.nodesScanned} node(s) had PLEG stalls${scan.nodes.length ? '' : ev ? ` — none of the ${scan.nodesScanned - ev} it can see went unhealthy in this window` : ' — none went unhealthy in this window'}`);
  if (scan.nodes.length > 0) {
    const w = Math.min(40, Math.max(4, ...scan.nodes.map((n) => n.name.length)));
    out.push('');
    out.push(c('2', `${pad('node', w)}  ${lpad('stalls', 6)}  ${lpad('longest', 9)}  ${pad('first stall (last relist → end)', 45)}  ${lpad('relist p99', 10)}  ${lpad('CRI errors', 16)}  ${lpad('pods', 5)}`));
    for (const n of scan.nodes) {
      const s = n.stalls[0]!;
      const errors = n.criErrors === null ? '—' : `${n.criErrors}${n.criErrorRate !== null ? ` (${(n.criErrorRate * 100).toFixed(n.criErrorRate < 0.01 ? 2 : 1)}%)` : ''}`;
      out.push(`${pad(sanitize(n.name), w)}  ${lpad(String(n.stalls.length), 6)}  ${lpad(fmtDuration(n.longestSeconds), 9)}  ${pad(`${when(s.start)} → ${s.end ? when(s.end).slice(11) : 'still stalled'}`, 45)}  ${lpad(fmtSeconds(n.relistP99Seconds), 10)}  ${lpad(errors, 16)}  ${lpad(n.pods === null ? '—' : String(n.pods), 5)}`);
      for (const x of n.stalls.slice(1, 4)) out.push(c('2', `${pad('', w)}  ${lpad('', 6)}  ${lpad(fmtDuration(x.seconds), 9)}  ${when(x.start)} → ${x.end ? when(x.end).slice(11) : 'still stalled'}`));
      if (n.stalls.length > 4) out.push(c('2', `${pad('', w)}  … ${n.stalls.length - 4} more (--format json)`));
    }
    out.push('', c('2', `Next: plegscope analyze --prometheus ${sanitize(scan.source.prometheus)} --node ${sanitize(scan.nodes[0]!.name)} --since … --until …   (add the node's logs for the cause)`));
  }
  for (const w of scan.warnings) out.push(`warning: ${sanitize(w)}`);
  return out.join('\n') + '\n';
}
