// The pipeline's bundle-specific reading, kept out of analyze.ts: per-artifact clocks (zone and year anchor from the
// bundle), and the small files that are not logs but say something about a node (Node objects, container tables,
// must-gather's skipped nodes).
import type { Artifact } from '../artifact.js';
import type { ArtifactData } from '../../model/node.js';
import { resolveZone } from '../../parse/time.js';
import type { ArtifactSignals } from '../../signals/extract.js';
import type { ContainerCounts } from '../../parse/container-list.js';
import type { LineTest } from '../../util/line-set.js';

const MAX_OBJECT_BYTES = 64 * 1024 * 1024;
const MAX_TABLE_BYTES = 16 * 1024 * 1024;

/** Zone name for an artifact's zone-less stamps: `--tz` wins, then what the bundle says, then UTC. */
export function artifactZone(a: Artifact, tz: string | undefined, warn: (message: string) => void): string {
  if (tz) return tz;
  if (a.zone) {
    try {
      resolveZone(a.zone);
      return a.zone;
    } catch {
      warn(`the bundle names the time zone "${a.zone}", which is not known here: UTC assumed (use --tz)`);
    }
  }
  return 'UTC';
}

/** A time the artifact cannot be later than: the bundle's collection time when known, else what the caller has. */
export function artifactNotAfter(a: Artifact, fallback: number | null): number | null {
  return a.collectedAt ?? fallback;
}

/** Whether the artifact's year-less stamps are anchored without help from other logs. */
export function selfAnchored(a: Artifact): boolean {
  return typeof a.collectedAt === 'number';
}

/** The bundle fields of ArtifactData. */
export function bundleFields(a: Artifact): Partial<ArtifactData> {
  return {
    truncated: a.truncated ?? false,
    priority: a.priority ?? 0,
    group: a.group ?? null,
    bundleKind: a.bundleKind ?? null,
    collectedAt: a.collectedAt ?? null,
    nodeRole: a.nodeRole ?? null,
    ...(a.refusals ? { refusals: a.refusals } : {}),
  };
}

/** Whether `readExtras` has something to read for this artifact. */
export function hasExtras(a: Artifact): boolean {
  return a.role === 'node-object' || a.parseAs !== undefined;
}

/** Roles read whole and parsed as a document (their events come with the log lines pasted in them). */
export function isDocument(a: Artifact): boolean {
  return a.role === 'node-describe' || a.role === 'cli-output';
}

async function readBytes(a: Artifact, max: number): Promise<{ bytes: Buffer; complete: boolean }> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const c of a.open()) {
    const b = c as Buffer;
    parts.push(b);
    n += b.length;
    if (n > max) return { bytes: Buffer.concat(parts).subarray(0, max), complete: false };
  }
  return { bytes: Buffer.concat(parts), complete: true };
}

async function readText(a: Artifact, max: number): Promise<{ text: string; complete: boolean }> {
  const { bytes, complete } = await readBytes(a, max);
  return { text: bytes.toString('utf8'), complete };
}

/** Lines as `text.split('\n')` counts them, less an empty last one. */
function lineCount(bytes: Buffer): number {
  let n = 0;
  for (let at = bytes.indexOf(10); at >= 0; at = bytes.indexOf(10, at + 1)) n++;
  return n + (bytes.length > 0 && bytes[bytes.length - 1] === 10 ? 0 : 1);
}

/** The lines of `bytes` that `own` holds made spaces, in place (offsets and line numbers stay): what is left for the log
 *  reader is the log lines pasted with a document, not the rows it already read. */
function blankLines(bytes: Buffer, own: LineTest): void {
  let lineNo = 1;
  for (let at = 0; at < bytes.length; lineNo++) {
    let nl = bytes.indexOf(10, at);
    if (nl < 0) nl = bytes.length;
    if (own.has(lineNo)) bytes.fill(0x20, at, nl);
    at = nl + 1;
  }
}

const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/** A document (`kubectl describe node`, `kubectl get nodes`, node conditions, a command transcript) read whole and parsed;
 *  its bytes too, for the log lines pasted with it. */
export async function readDocument(a: Artifact, warn: (line: number | null, message: string) => void): Promise<{ bytes: Buffer; signals: ArtifactSignals; containers: ContainerCounts | null; consumed: LineTest }> {
  // The parsers load with the first document (start-up counts on every run; loose logs need none of them).
  const [{ parseGetNodes, parseDescribeNode }, { parseConditionFragments }, { parseCliOutput }, { cliSignals, conditionSignals, describeSignals, DescribeRows, nodeListSignals }] = await Promise.all([
    import('../../parse/describe-node.js'), import('../../parse/node-object.js'), import('../../parse/cli-output.js'), import('../../signals/documents.js'),
  ]);
  const read = await readBytes(a, MAX_DOCUMENT_BYTES);
  if (!read.complete) warn(null, `larger than ${MAX_DOCUMENT_BYTES} bytes: only the first ${MAX_DOCUMENT_BYTES} read`);
  // Cut inside a character: the bytes the text decodes to (as the log reader reads them).
  const bytes = read.complete ? read.bytes : Buffer.from(read.bytes.toString('utf8'));
  const lines = lineCount(bytes);
  const every: LineTest = { has: (line) => line >= 1 && line <= lines };
  if (a.role === 'node-describe' && a.format !== 'kubectl-get-nodes' && a.format !== 'node-conditions') {
    // Parsed from the bytes line by line, its rows made events as they are read: the text is never held whole twice.
    const rows = new DescribeRows(a.id);
    const d = parseDescribeNode(bytes, (ev, name) => rows.row(ev, name));
    if (d.skipped > 0) warn(null, `${d.skipped} events row(s) not read (columns not recognised)`);
    const signals = describeSignals(d, a.id, lines, bytes.length, rows);
    blankLines(bytes, d.consumed);
    return { bytes, signals, containers: null, consumed: d.consumed };
  }
  const text = bytes.toString('utf8');
  if (a.format === 'kubectl-get-nodes') return { bytes, signals: nodeListSignals(parseGetNodes(text), a.id, lines, bytes.length), containers: null, consumed: every };
  if (a.format === 'node-conditions') return { bytes, signals: conditionSignals(parseConditionFragments(text), a.id, lines, bytes.length), containers: null, consumed: every };
  const c = parseCliOutput(text);
  const { ref: _ref, ...counts } = c.containers ?? { ref: null };
  void _ref;
  return { bytes, signals: cliSignals(c, a.id, lines, bytes.length), containers: c.containers ? (counts as ContainerCounts) : null, consumed: c.consumed };
}

/** Node objects, container tables, skipped-node lists. */
export async function readExtras(a: Artifact, warn: (line: number | null, message: string) => void): Promise<Partial<ArtifactData>> {
  if (a.role === 'node-object') {
    const { text, complete } = await readText(a, MAX_OBJECT_BYTES);
    if (!complete) {
      warn(null, `node objects larger than ${MAX_OBJECT_BYTES} bytes: not read`);
      return {};
    }
    const { nodes, error } = (await import('../../parse/node-object.js')).parseNodeObjects(text);
    if (error) warn(null, `node object could not be read: ${error}`);
    const single = !/^\s*(?:"?kind"?:\s*"?(?:NodeList|List)"?|"?items"?:)/m.test(text);
    return { nodeObjects: nodes, singleNodeObject: single && nodes.length === 1 };
  }
  if (a.parseAs === 'container-list') {
    const { text } = await readText(a, MAX_TABLE_BYTES);
    const counts = (await import('../../parse/container-list.js')).countContainers(text);
    return { containers: counts };
  }
  if (a.parseAs === 'skipped-nodes') {
    const { text } = await readText(a, MAX_TABLE_BYTES);
    const names = new Set<string>();
    for (const tok of text.split(/[\s,;]+/)) if (/^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/.test(tok)) names.add(tok);
    return { skippedNodes: [...names] };
  }
  return {};
}
