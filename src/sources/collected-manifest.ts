// The manifest `plegscope collect` writes beside what it fetched (DIR/collected.json): written by the cluster source
// (src/sources/cluster/collect.ts), read back by the files source (src/sources/files/collected.ts). Shared here so that
// neither source reaches into the other.
//
//   {"kind":"plegscope-collect","version":1,"server":"https://…","clusterVersion":"v1.28.3",
//    "nodes":[{"name":"worker-3","dir":"worker-3","serverDate":"2024-03-11T11:00:00Z",
//              "files":[{"file":"kubelet.log","role":"kubelet-log","zone":"UTC","url":"/api/v1/nodes/worker-3/proxy/logs/?query=kubelet&sinceTime=…","status":200,"bytes":776925,"fetchedAt":"…"}],
//              "refusals":[{"what":"the kubelet goroutine dump","url":"…","status":403,"reason":"…"}]}]}

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
  refusals: Refusal[];
}

/** What the API server or the kubelet refused (or did not answer), and why. */
export interface Refusal {
  what: string;
  url?: string;
  status?: number;
  reason: string;
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

