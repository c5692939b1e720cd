// Evidence belongs to its node (issue 14 point 2): inputs laid out the way SREs collect them — a folder per node, files
// named as plegscope's own gap advice names them (`node-a-kubelet.log`, `node-a-20240311T101000Z.metrics`,
// `node-a-dmesg.txt`), several paths on the command line, metrics that name their node — analyzed with the real CLI.
// Identity comes from the content (journal host, `kubelet_node_name`), then the path, then the name; a kernel log alone
// is never a node verdict; a file that cannot be tied to a node is listed as such in every format.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Analysis } from '../src/contract/analysis.js';
import { cli } from './helpers/cli.js';
import { at, kl, skipLines, syncLoopEvent, writeFolder } from './helpers/scenario.js';

const FIX = join(__dirname, '..', 'fixtures', 'sample-incident');
const tmp = mkdtempSync(join(tmpdir(), 'plegscope-identity-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const folder = (name: string, files: Record<string, string>): string => writeFolder(tmp, name, files);

/** The kubelet's own log file (`--log-file`, or `/var/log/kubelet.log` on nodes without systemd): klog lines, no host. */
const klogOnly = (ls: string[]): string => ls.map((l) => l.replace(/^\w{3} \d{2} [\d:]{8} \S+ \S+: /, '')).join('\n') + '\n';
/** Raw `dmesg` (seconds since boot, no host). */
const DMESG = '[    0.000000] Linux version 5.15.0-1053-aws (buildd@lcy02-amd64-032) #58~20.04.1-Ubuntu SMP\n[ 4242.123456] INFO: task containerd:1021 blocked for more than 120 seconds.\n[ 4242.123460]       Not tainted 5.15.0-1053-aws #58~20.04.1-Ubuntu\n';
const stalled = (host: string) => klogOnly([kl(at('10:00:00'), 'I', 'kubelet.go:2434', '"SyncLoop ADD" source="api" pods=["default/web-0"]', { host }), ...skipLines(at('10:00:00'), at('10:06:00'), 'structured', { host }), syncLoopEvent(at('10:06:03'), 'structured', { host })]);
const healthy = (host: string) => klogOnly([syncLoopEvent(at('10:00:00'), 'structured', { host }), syncLoopEvent(at('10:07:00'), 'structured', { host })]);
/** A sample kubelet /metrics snapshot with its `kubelet_node_name` line replaced (or removed with null). */
const snapshot = (file: string, node: string | null): string => readFileSync(join(FIX, file), 'utf8')
  .replace(/^kubelet_node_name\{node="worker-3"\} .*\n/m, node === null ? '' : `kubelet_node_name{node="${node}"} 1\n`);

function analysisOf(args: string[]): Analysis {
  const r = cli(['analyze', ...args, '--format', 'json', '--year', '2024']);
  expect([0, 1], r.stderr).toContain(r.code);
  return JSON.parse(r.stdout) as Analysis;
}
const names = (a: Analysis) => a.nodes.map((n) => n.name).sort();
const filesOf = (a: Analysis, node: string) => a.inputs.flatMap((i) => i.artifacts).filter((x) => x.node === node).map((x) => x.path).sort();

describe('evidence belongs to its node', () => {
  it('a folder per node: the folder names the node of every file in it, dmesg included; no pseudo-nodes', () => {
    const d = folder('per-node', {
      'node-5/kubelet.log': stalled('node-5'),
      'node-5/dmesg.txt': DMESG,
      'worker-3/kubelet.log': healthy('worker-3'),
      'worker-3/dmesg.txt': DMESG,
    });
    const a = analysisOf([d]);
    expect(names(a)).toEqual(['node-5', 'worker-3']);
    expect(filesOf(a, 'node-5')).toEqual(['node-5/dmesg.txt', 'node-5/kubelet.log']);
    expect(a.nodes.find((n) => n.name === 'node-5')!.stalls).toHaveLength(1);
    expect(a.nodes.find((n) => n.name === 'worker-3')!.stalls).toHaveLength(0);
    expect(a.warnings.map((w) => w.message).join('\n')).not.toMatch(/analyzed as a node of its own/);
  });

  it('a folder named for the node whose journal names its host: one node, the folder its alias, the dmesg with it', () => {
    const d = folder('alias', {
      'node-5/kubelet.log': readFileSync(join(FIX, 'kubelet.log'), 'utf8').replace(/ worker-3 /g, ' ip-10-0-0-5 '),
      'node-5/dmesg.txt': DMESG,
      'node-6/kubelet.log': readFileSync(join(FIX, 'kubelet.log'), 'utf8').replace(/ worker-3 /g, ' ip-10-0-0-6 '),
    });
    const a = analysisOf([d]);
    expect(names(a)).toEqual(['ip-10-0-0-5', 'ip-10-0-0-6']);
    expect(filesOf(a, 'ip-10-0-0-5')).toEqual(['node-5/dmesg.txt', 'node-5/kubelet.log']);
  });

  it('files named as the gap advice names them: node-a-kubelet.log, node-a-<time>.metrics, node-a-dmesg.txt', () => {
    const d = folder('named', {
      'node-a-kubelet.log': stalled('node-a'),
      'node-a-20240311T101000Z.metrics': snapshot('metrics-20240311T101000Z.txt', null),
      'node-a-dmesg.txt': DMESG,
      'node-b-kubelet.log': healthy('node-b'),
      'node-b-dmesg.txt': DMESG,
    });
    const a = analysisOf([d]);
    expect(names(a)).toEqual(['node-a', 'node-b']);
    expect(filesOf(a, 'node-a')).toEqual(['node-a-20240311T101000Z.metrics', 'node-a-dmesg.txt', 'node-a-kubelet.log']);
    expect(filesOf(a, 'node-b')).toEqual(['node-b-dmesg.txt', 'node-b-kubelet.log']);
    expect(a.nodes.find((n) => n.name === 'node-a')!.metricsFrom?.length).toBe(1);
  });

  it('several paths on the command line: each names its node by its folder, not "kubelet.log" twice', () => {
    const d = folder('args', { 'node-a/kubelet.log': stalled('node-a'), 'node-b/kubelet.log': healthy('node-b') });
    const a = analysisOf([join(d, 'node-a', 'kubelet.log'), join(d, 'node-b', 'kubelet.log')]);
    expect(names(a)).toEqual(['node-a', 'node-b']);
    expect(a.nodes.find((n) => n.name === 'node-a')!.stalls).toHaveLength(1);
  });

  it('kubelet_node_name names the node of a snapshot whatever the file is called; content wins over the path', () => {
    const d = folder('labelled', {
      // journal lines name their host: node-a and node-b
      'node-a.log': readFileSync(join(FIX, 'kubelet.log'), 'utf8').replace(/ worker-3 /g, ' node-a '),
      'node-b.log': readFileSync(join(FIX, 'kubelet.log'), 'utf8').replace(/ worker-3 /g, ' node-b '),
      'metrics-20240311T101000Z.txt': snapshot('metrics-20240311T101000Z.txt', 'node-b'),
      // a folder named node-a, but the snapshot says node-b: its content decides
      'node-a/metrics-20240311T102000Z.txt': snapshot('metrics-20240311T102000Z.txt', 'node-b'),
    });
    const a = analysisOf([d]);
    expect(names(a)).toEqual(['node-a', 'node-b']);
    expect(filesOf(a, 'node-b')).toContain('metrics-20240311T101000Z.txt');
    expect(filesOf(a, 'node-b')).toContain('node-a/metrics-20240311T102000Z.txt');
    expect(a.nodes.find((n) => n.name === 'node-a')!.metricsFrom).toBeUndefined();
  });

  it('metrics two years away from the only node\'s logs are not its evidence: left unattached, with a warning', () => {
    const old = snapshot('metrics-20240311T101000Z.txt', null).replace(/ 1710151800000$/gm, ' 1647000000000').replace(/kubelet_pleg_last_seen_seconds [\d.e+]+/, 'kubelet_pleg_last_seen_seconds 1.6469998e+09');
    const d = folder('far', { 'kubelet.log': readFileSync(join(FIX, 'kubelet.log'), 'utf8'), 'metrics.txt': old });
    const a = analysisOf([d]);
    expect(names(a)).toEqual(['worker-3']);
    expect(a.nodes[0]!.metricsFrom).toBeUndefined();
    expect(a.inputs[0]!.artifacts.find((x) => x.path === 'metrics.txt')!.node).toBeNull();
    expect(a.warnings.find((w) => w.file === 'metrics.txt')?.message).toMatch(/2022-03-11.*not attached|not attached.*2022-03-11/);
  });

  it('a kernel log alone is never a node verdict: no "PLEG healthy" for a node known only from its dmesg', () => {
    const d = folder('kernel-only', { 'dmesg.txt': DMESG });
    const r = cli(['analyze', d, '--year', '2024']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/PLEG healthy/);
    expect(r.stdout).toMatch(/PLEG state unknown/);
    const a = analysisOf([d]);
    expect(a.nodes[0]!.verdict.plegUnhealthy).toBe(false);
    expect(a.nodes[0]!.verdict.plegState).toBe('unknown');
  });

  it('a file no node can be tied to is listed as such in every format, and makes no node', () => {
    const d = folder('stray', {
      'node-a/kubelet.log': stalled('node-a'),
      'node-b/kubelet.log': healthy('node-b'),
      'dmesg.txt': DMESG,
    });
    const a = analysisOf([d]);
    expect(names(a)).toEqual(['node-a', 'node-b']);
    expect(a.inputs[0]!.artifacts.find((x) => x.path === 'dmesg.txt')!.node).toBeNull();
    for (const format of ['text', 'markdown', 'html']) {
      const out = cli(['analyze', d, '--year', '2024', '--format', format]).stdout;
      expect(out, format).toMatch(/not tied to a node|Not tied to a node/);
      expect(out, format).toContain('dmesg.txt');
    }
    const junit = cli(['analyze', d, '--year', '2024', '--format', 'junit']).stdout;
    expect(junit).toMatch(/<testcase name="unattached files"[^>]*>\s*<skipped message="[^"]*dmesg\.txt/);
  });
});
