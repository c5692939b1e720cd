// A must-gather's (or inspect's) namespaced resources — pod logs and manifests, tens of thousands of files in a big
// cluster — are never probed: the layout reads nothing there. Outside such a bundle the same paths are probed as ever.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { analyze } from '../../src/analyze.js';
import { discover } from '../../src/sources/files/discover.js';
import { FileSource } from '../../src/sources/files/source.js';
import { findRoots, unreadByLayout, wantMeta } from '../../src/sources/files/bundle.js';
import { TarContainer } from '../../src/sources/files/containers.js';
import { DEFAULT_TOOLS } from '../../src/sources/files/decode.js';
import { Budget, DEFAULT_LIMITS } from '../../src/sources/files/limits.js';
import { closeTree, indexContainer, newTree, probeDeferred } from '../../src/sources/files/tree.js';
import { nodeLogs, writeBundle, writeDir } from '../bundles/fixtures.js';
import { fixtures, type KindFixture } from '../bundles/kinds.js';

let tmp: string;
let all: KindFixture[];
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'plegscope-ns-'));
  all = await fixtures();
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** The paths whose heads discovery reads, while `run` runs. */
async function probed(run: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const head = FileSource.prototype.head;
  vi.spyOn(FileSource.prototype, 'head').mockImplementation(function (this: FileSource, max: number) {
    seen.push(this.path);
    return head.call(this, max);
  });
  await run();
  return seen;
}

const POD_DIR = 'namespaces/openshift-sdn/pods/sdn-x7k2p';
const CTX = { tools: DEFAULT_TOOLS, limits: DEFAULT_LIMITS, budget: new Budget(DEFAULT_LIMITS.maxInputBytes), headBytes: 65536, wantMeta };

/** The must-gather (or inspect) fixture with what a big one holds by the thousand: pod manifests and container logs, one
 *  of them a kubelet-looking log. */
function withPods(kind: string): { fx: KindFixture; files: Record<string, string> } {
  const fx = all.find((f) => f.kind === kind) as KindFixture;
  const files = { ...fx.files };
  const top = Object.keys(files).find((k) => k.includes('/cluster-scoped-resources/'))?.replace(/cluster-scoped-resources\/.*/, '') as string;
  for (let i = 0; i < 20; i++) files[`${top}${POD_DIR}-${i}/sdn-x7k2p-${i}.yaml`] = `apiVersion: v1\nkind: Pod\nmetadata:\n  name: sdn-${i}\n`;
  files[`${top}${POD_DIR}-0/sdn/sdn/logs/current.log`] = nodeLogs('master-0').kubelet;
  return { fx, files };
}


/** `v` with every `from` in its strings read as `to` (a count check's command names the input's path). */
function renamed<T>(v: T, from: string, to: string): T {
  return JSON.parse(JSON.stringify(v).split(from).join(to)) as T;
}

describe.each(['must-gather', 'inspect'])('%s folder', (kind) => {
  it('namespaced files are listed but not probed, and the analysis is unchanged', async () => {
    const { files } = withPods(kind);
    const dir = path.join(tmp, `${kind}-dir`);
    writeDir(dir, files);
    const seen = await probed(() => discover([dir]));
    expect(seen.some((p) => p.includes('cluster-scoped-resources/'))).toBe(true);
    expect(seen.filter((p) => /(^|\/)namespaces\//.test(p))).toEqual([]);
    const a = (await analyze({ paths: [dir], workers: 0 })).analysis;
    const bare = path.join(tmp, `${kind}-bare`);
    writeDir(bare, Object.fromEntries(Object.entries(files).filter(([k]) => !k.includes('/pods/'))));
    const without = (await analyze({ paths: [bare], workers: 0 })).analysis;
    // The same but for the input's path, which the count checks' commands name.
    expect(renamed(a.nodes, dir, bare)).toEqual(without.nodes);
    expect(a.inputs[0]?.artifacts).toEqual(without.inputs[0]?.artifacts);
  });
});

describe.each(['must-gather', 'inspect'])('%s archive', (kind) => {
  it('namespaced members go by unprobed, stay so under the root, and the analysis is unchanged', async () => {
    const { fx, files } = withPods(kind);
    const top = Object.keys(files).find((k) => k.includes('/namespaces/'))?.replace(/namespaces\/.*/, '') as string;
    // A rotated container log goes by like the rest; what is named as a tar or zip archive is opened, as ever.
    files[`${top}${POD_DIR}-2/sdn/sdn/logs/0.log.20240111-091000.gz`] = 'not really gzip\n';
    files[`${top}${POD_DIR}-2/debug.tar.gz`] = 'not really a tarball\n';
    const p = await writeBundle(tmp, `${kind}-pods`, files, 'tar.gz');
    const tree = newTree();
    await indexContainer(new TarContainer(() => fs.createReadStream(p).pipe(zlib.createGunzip())), '', 0, CTX, tree, p);
    expect(tree.files.find((f) => f.path.endsWith('/debug.tar.gz'))?.deferred).toBeUndefined();
    const namespaced = tree.files.filter((f) => /(^|\/)namespaces\//.test(f.path) && !f.path.endsWith('/debug.tar.gz'));
    expect(namespaced.length).toBeGreaterThanOrEqual(22);
    expect(namespaced.some((f) => f.path.endsWith('.log.20240111-091000.gz'))).toBe(true);
    expect(namespaced.every((f) => f.deferred === true && f.format === 'unprobed' && f.head.length === 0)).toBe(true);
    expect(tree.files.filter((f) => !namespaced.includes(f)).some((f) => f.deferred)).toBe(false);
    await probeDeferred(tree, findRoots(tree, p), CTX);
    expect(namespaced.every((f) => f.deferred === true)).toBe(true);
    closeTree(tree);
    const a = (await analyze({ paths: [p], workers: 0 })).analysis;
    const bare = await writeBundle(tmp, `${kind}-bare`, Object.fromEntries(Object.entries(files).filter(([k]) => !k.includes('/pods/'))), 'tar.gz');
    const b = (await analyze({ paths: [bare], workers: 0 })).analysis;
    expect(renamed(a.nodes, p, bare)).toEqual(b.nodes);
    expect(a.inputs[0]?.artifacts).toEqual(b.inputs[0]?.artifacts);
    expect(a.nodes.map((n) => n.name)).toEqual(fx.nodes);
  });
});

describe('outside an API dump', () => {
  it('an archive that is no bundle has its namespaced members probed after the pass, and read', async () => {
    const p = await writeBundle(tmp, 'plain-archive', { 'namespaces/kube-system/pods/kubelet/kubelet.log': nodeLogs('worker-7').kubelet, 'other.txt': 'hello\n' }, 'tar.gz');
    const tree = newTree();
    await indexContainer(new TarContainer(() => fs.createReadStream(p).pipe(zlib.createGunzip())), '', 0, CTX, tree, p);
    const f = tree.files.find((x) => x.path.endsWith('kubelet.log'));
    expect(f?.deferred).toBe(true);
    await probeDeferred(tree, findRoots(tree, p), CTX);
    expect(f?.deferred).toBe(false);
    expect(f?.role).toBe('kubelet-log');
    closeTree(tree);
    const a = (await analyze({ paths: [p], workers: 0 })).analysis;
    expect(a.nodes.map((n) => n.name)).toEqual(['worker-7']);
  });

  it('a folder that is no bundle has its namespaces/ files probed and read', async () => {
    const dir = path.join(tmp, 'plain');
    writeDir(dir, { 'namespaces/kube-system/pods/kubelet/kubelet.log': nodeLogs('worker-7').kubelet });
    const seen = await probed(() => discover([dir]));
    expect(seen).toEqual(['namespaces/kube-system/pods/kubelet/kubelet.log']);
    const a = (await analyze({ paths: [dir], workers: 0 })).analysis;
    expect(a.nodes.map((n) => n.name)).toEqual(['worker-7']);
  });

  it('unreadByLayout holds only under a must-gather or inspect root, for its namespaced paths', () => {
    const root = (dir: string, kind: 'must-gather' | 'inspect' | 'sosreport') => ({ dir, kind, node: null, collectedAt: null, zone: null, truncatedPaths: new Set<string>() });
    const mg = [root('mg/img', 'must-gather')];
    expect(unreadByLayout(mg, 'mg/img/namespaces/a/pods/b/b.yaml')).toBe(true);
    expect(unreadByLayout(mg, 'mg/img/cluster-scoped-resources/core/nodes/n.yaml')).toBe(false);
    expect(unreadByLayout(mg, 'mg/img/host_service_logs/masters/kubelet_service.log')).toBe(false);
    expect(unreadByLayout(mg, 'other/namespaces/a/x.log')).toBe(false);
    expect(unreadByLayout([root('', 'inspect')], 'namespaces/a/pods/b/c/c/logs/current.log')).toBe(true);
    expect(unreadByLayout([root('sos', 'sosreport')], 'sos/sos_commands/kubernetes/namespaces/a/x')).toBe(false);
    // The deepest root decides: a sosreport inside a must-gather folder is read by the sos layout.
    expect(unreadByLayout([root('', 'must-gather'), root('namespaces/x/sos', 'sosreport')], 'namespaces/x/sos/var/log/messages')).toBe(false);
  });
});
