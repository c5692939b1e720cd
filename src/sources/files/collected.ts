// `collected.json` (src/sources/collected-manifest.ts), read by the files source so that `plegscope analyze DIR` gives
// the answer `collect` printed: node names from the manifest (not from folder names), the year of year-less journal
// stamps from the API server's clock when fetched, the zone of each file (the node log query runs `journalctl --utc`;
// `/var/log/messages` is in the node's own zone, unknown), and every refusal as a warning.
import type { CollectedManifest } from '../collected-manifest.js';

/** Where a file under the collection's root belongs: its node, role, zone and clock, from the manifest. */
export function placeCollected(m: CollectedManifest, rel: string): { node: string; group: string; role: string | null; zone: string | null; collectedAt: number | null; priority: number } | null {
  for (const n of m.nodes) {
    if (!rel.startsWith(`${n.dir}/`)) continue;
    const inner = rel.slice(n.dir.length + 1);
    const f = n.files.find((x) => x.file === inner);
    const t = Date.parse(n.serverDate ?? '');
    // The /logs/ file server's copies (messages, syslog, the binary journal) only fill gaps the log query left.
    const fromFileServer = inner.startsWith('var-log/');
    return {
      node: n.name,
      group: `collected:${n.dir}`,
      role: f?.role ?? null,
      zone: f ? f.zone ?? null : null,
      collectedAt: Number.isFinite(t) ? t : null,
      priority: fromFileServer ? (inner.includes('/journal/') ? 1 : 2) : 0,
    };
  }
  return null;
}

/** Each node's refusals, by its placement group (`collected:<dir>`), with the command that fetches each once fixed. */
export function refusalsByGroup(m: CollectedManifest): Map<string, Array<{ what: string; status: number | null; reason: string; command: string | null }>> {
  return new Map(m.nodes.filter((n) => n.refusals.length > 0).map((n) => [`collected:${n.dir}`, n.refusals.map((r) => {
    const again = retry(r);
    return { what: r.what, status: r.status ?? null, reason: r.reason, command: again ? again.slice('; once fixed: '.length) : null };
  })]));
}

/** Each refusal, as the report's warning (the file named is the manifest). */
export function manifestWarnings(m: CollectedManifest): string[] {
  return m.nodes.flatMap((n) => n.refusals.map((r) => `${n.name}: ${r.what} not collected${r.status ? ` (HTTP ${r.status})` : ''}: ${r.reason}${retry(r)}`));
}

/** The command that fetches a refused path once the cause is fixed (only a plain API path: the manifest is input). */
function retry(r: { url?: string; status?: number }): string {
  if (!r.url || !/^\/api\/v1\/[\w/.?=&%:,-]+$/.test(r.url) || r.status === 404 || r.status === 405 || (r.status === 200 && r.url.includes('/logs/'))) return '';
  return `; once fixed: kubectl get --raw "${r.url}"`;
}
