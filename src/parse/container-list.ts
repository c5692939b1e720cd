// `crictl pods`, `crictl ps -a` and `docker ps -a` tables → counts. The pile of exited containers (and of NotReady
// sandboxes) is what makes every ListContainers slow (design.md §5 exited_containers); running counts stand in for
// kubelet metrics when a bundle has none.

/** The table a count came from (`docker-info`: the Containers/Running/Stopped lines of `docker info`). */
export type ListKind = 'crictl-pods' | 'crictl-ps' | 'docker-ps' | 'docker-info';

export interface ContainerCounts {
  kind: ListKind;
  /** Sandboxes: crictl pods rows, docker `k8s_POD_*` containers. */
  sandboxes: number | null;
  sandboxesReady: number | null;
  /** Containers other than sandboxes. */
  containers: number | null;
  running: number | null;
  exited: number | null;
}

const HEADERS: Array<[Exclude<ListKind, 'docker-info'>, RegExp]> = [
  ['crictl-pods', /^POD ID\s+CREATED\s+STATE\s+NAME\s+NAMESPACE\b/],
  ['crictl-ps', /^CONTAINER(?: ID)?\s+IMAGE\s+CREATED\s+STATE\s+NAME\s+ATTEMPT\b/],
  ['docker-ps', /^CONTAINER ID\s+IMAGE\s+COMMAND\s+CREATED\s+STATUS\b/],
];

/** Which table the first non-blank line of `text` heads, if any. */
export function listKind(text: string): Exclude<ListKind, 'docker-info'> | null {
  const first = text.split('\n').find((l) => l.trim() !== '') ?? '';
  for (const [k, re] of HEADERS) if (re.test(first)) return k;
  return null;
}

export function countContainers(text: string): ContainerCounts | null {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  const hi = lines.findIndex((l) => l.trim() !== '');
  if (hi < 0) return null;
  const kind = listKind(lines[hi] as string);
  if (!kind) return null;
  const rows = lines.slice(hi + 1).filter((l) => l.trim() !== '' && !/^(?:time=|level=|E\d{4} |W\d{4} )/.test(l));
  if (kind === 'crictl-pods') {
    // STATE is Ready / NotReady; columns are separated by 2+ spaces (CREATED is "2 hours ago").
    let ready = 0;
    for (const r of rows) if (/\s{2,}Ready\s{2,}/.test(r)) ready++;
    return { kind, sandboxes: rows.length, sandboxesReady: ready, containers: null, running: null, exited: null };
  }
  if (kind === 'crictl-ps') {
    let running = 0;
    let exited = 0;
    for (const r of rows) {
      if (/\s{2,}Running\s{2,}/.test(r) || /\sCONTAINER_RUNNING\s/.test(r)) running++;
      else if (/\s{2,}Exited\s{2,}/.test(r) || /\sCONTAINER_EXITED\s/.test(r)) exited++;
    }
    return { kind, sandboxes: null, sandboxesReady: null, containers: rows.length, running, exited };
  }
  let running = 0;
  let exited = 0;
  let sandboxes = 0;
  let sandboxesUp = 0;
  let containers = 0;
  for (const r of rows) {
    const up = /\s{2,}Up\s/.test(r);
    const ex = /\s{2,}(?:Exited \(|Dead\b|Created\s)/.test(r);
    if (/\sk8s_POD_\S+\s*$/.test(r)) {
      sandboxes++;
      if (up) sandboxesUp++;
      continue;
    }
    containers++;
    if (up) running++;
    else if (ex) exited++;
  }
  return { kind, sandboxes, sandboxesReady: sandboxesUp, containers, running, exited };
}
