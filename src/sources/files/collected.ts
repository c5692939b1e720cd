// `collected.json`: the manifest `plegscope collect` writes beside what it fetched (src/sources/cluster/collect.ts), read
// back by the files source so that `plegscope analyze DIR` gives the answer `collect` printed: node names from the
// manifest (not from folder names), the year of year-less journal stamps from the API server's clock when fetched, the
// zone of each file (the node log query runs `journalctl --utc`; `/var/log/messages` is in the node's own zone,
// unknown), and every refusal as a warning.
//
//   {"kind":"plegscope-collect","version":1,"server":"https://…","clusterVersion":"v1.28.3",
//    "nodes":[{"name":"worker-3","dir":"worker-3","serverDate":"2024-03-11T11:00:00Z",
//              "files":[{"file":"kubelet.log","role":"kubelet-log","zone":"UTC","url":"/api/v1/nodes/worker-3/proxy/logs/?query=kubelet&sinceTime=…","status":200,"bytes":776925,"fetchedAt":"…"}],
//              "refusals":[{"what":"goroutine dump","url":"…","status":403,"reason":"…"}]}]}

export const MANIFEST_NAME = 'collected.json';

export interface CollectedFile {
  file: string;
  role?: string;
  /** Zone of the file's zone-less stamps: `UTC` for the log query's output, null when not known. */
  zone?: string | null;
  url?: string;
  status?: number;
  bytes?: number;
  fetchedAt?: string;
  truncated?: boolean;
}

export interface CollectedNode {
  name: string;
  dir: string;
  /** The API server's clock (its Date header) when this node's evidence was fetched. */
  serverDate?: string | null;
  files: CollectedFile[];
  refusals: Array<{ what: string; url?: string; status?: number; reason: string }>;
}

export interface CollectedManifest {
  kind: 'plegscope-collect';
  nodes: CollectedNode[];
}

const RE_NODE = /^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/;

/** The manifest's text → what the layout uses, or null when it is not one (then the folder is read as any other). */
export function parseManifest(text: string | null): CollectedManifest | null {
  if (text === null) return null;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return null;
  }
  const d = doc as { kind?: unknown; nodes?: unknown };
  if (d.kind !== 'plegscope-collect' || !Array.isArray(d.nodes)) return null;
  const nodes: CollectedNode[] = [];
  for (const raw of d.nodes as unknown[]) {
    const n = raw as Partial<CollectedNode>;
    if (typeof n.name !== 'string' || !RE_NODE.test(n.name)) continue;
    const dir = typeof n.dir === 'string' && n.dir !== '' && !n.dir.includes('..') ? n.dir : n.name;
    nodes.push({
      name: n.name,
      dir,
      serverDate: typeof n.serverDate === 'string' ? n.serverDate : null,
      files: Array.isArray(n.files) ? n.files.filter((f): f is CollectedFile => typeof (f as CollectedFile)?.file === 'string') : [],
      refusals: Array.isArray(n.refusals) ? n.refusals.filter((r) => typeof r?.what === 'string' && typeof r?.reason === 'string') : [],
    });
  }
  return { kind: 'plegscope-collect', nodes };
}

/** The latest server time in the manifest (epoch ms): nothing collected is later. */
export function manifestTime(m: CollectedManifest): number | null {
  let best: number | null = null;
  for (const n of m.nodes) {
    const t = Date.parse(n.serverDate ?? '');
    if (Number.isFinite(t) && (best === null || t > best)) best = t;
  }
  return best;
}

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

/** Each refusal, as the report's warning (the file named is the manifest). */
export function manifestWarnings(m: CollectedManifest): string[] {
  return m.nodes.flatMap((n) => n.refusals.map((r) => `${n.name}: ${r.what} not collected${r.status ? ` (HTTP ${r.status})` : ''}: ${r.reason}`));
}
