// Issue 22.4: when a node's kubelet journal is missing, the first gap says so, with the command that collects it in
// the input's world (a plain folder: journalctl; a sosreport: sos report / journalctl on the node; a must-gather or an
// inspect: oc adm node-logs). bin/plegscope as users run it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Analysis, NodeReport } from '../src/contract/analysis.js';
import { cli } from './helpers/cli.js';
import { nodeYaml, writeBundle, type Files } from './bundles/fixtures.js';
import { fixtures as kindFixtures, type KindFixture } from './bundles/kinds.js';

const SAMPLE = path.join(__dirname, '..', 'fixtures', 'sample-incident');

function run(args: string[]): Analysis {
  const r = cli(['analyze', ...args, '--format', 'json']);
  expect([0, 1], r.stderr).toContain(r.code);
  return JSON.parse(r.stdout) as Analysis;
}

function node(a: Analysis, name: string): NodeReport {
  const n = a.nodes.find((x) => x.name === name);
  expect(n, `node ${name} among ${a.nodes.map((x) => x.name).join(', ')}`).toBeDefined();
  return n as NodeReport;
}

describe('the missing kubelet journal is the first gap', () => {
  let dir: string;
  let kinds: KindFixture[];
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plegscope-gaps-'));
    kinds = await kindFixtures();
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('runtime and kernel logs only: journalctl -u kubelet over the incident window', () => {
    const d = path.join(dir, 'no-kubelet');
    fs.mkdirSync(d);
    for (const f of ['containerd.log', 'dmesg.txt']) fs.copyFileSync(path.join(SAMPLE, f), path.join(d, f));
    const n = node(run([d]), 'worker-3');
    expect(n.coverage.roles).not.toContain('kubelet-log');
    expect(n.gaps[0]?.missing).toBe('kubelet log of this node');
    expect(n.gaps[0]?.collect).toMatch(/^# on the node, as root:\njournalctl -u kubelet --since '2024-03-11 \d\d:\d\d:00 UTC' --until '2024-03-11 \d\d:\d\d:00 UTC' -o short-iso-precise > kubelet\.log$/m);
    // Said once.
    expect(n.gaps.filter((g) => g.missing.startsWith('kubelet log')).length).toBe(1);
  });

  it('metrics only: the same', () => {
    const d = path.join(dir, 'metrics-only');
    fs.mkdirSync(d);
    for (const f of fs.readdirSync(SAMPLE).filter((x) => x.startsWith('metrics-'))) fs.copyFileSync(path.join(SAMPLE, f), path.join(d, f));
    const a = run([d]);
    for (const n of a.nodes) {
      expect(n.gaps[0]?.missing).toBe('kubelet log of this node');
      expect(n.gaps[0]?.collect).toContain('journalctl -u kubelet');
      expect(n.gaps[0]?.collect).toContain('-o short-iso-precise > kubelet.log');
    }
  });

  it('a sosreport without the kubelet journal: sos report on the node, or journalctl', async () => {
    const fx = kinds.find((k) => k.kind === 'sosreport') as KindFixture;
    const runtime = fx.loose['containerd.log'] as string;
    const files: Files = {};
    for (const [k, v] of Object.entries(fx.files)) {
      if (/kubelet/.test(k)) continue;
      files[k] = /journalctl_--no-pager(_--boot)?$|var\/log\/messages$/.test(k) ? runtime : v;
    }
    const p = await writeBundle(dir, fx.name, files, 'tar.xz');
    const n = node(run([p, '--tz', fx.tz]), 'worker1');
    expect(n.coverage.roles).not.toContain('kubelet-log');
    expect(n.gaps[0]?.missing).toBe('kubelet log of this node');
    expect(n.gaps[0]?.collect).toContain('sos report -o kubernetes');
    expect(n.gaps[0]?.collect).toContain('journalctl -u kubelet');
  });

  it('a must-gather node with no kubelet log: oc adm node-logs NODE -u kubelet', async () => {
    const fx = kinds.find((k) => k.kind === 'must-gather') as KindFixture;
    const yaml = Object.keys(fx.files).find((k) => k.endsWith('/nodes/master-0.yaml')) as string;
    const files: Files = { ...fx.files, [yaml.replace('master-0', 'worker-0')]: nodeYaml('worker-0', { ready: false, role: 'worker', plegAgeS: 245, heartbeat: '2024-01-11T09:20:05Z', transition: '2024-01-11T09:17:05Z' }) };
    const p = await writeBundle(dir, fx.name, files, 'tar.gz');
    const a = run([p]);
    const w = node(a, 'worker-0');
    expect(w.gaps[0]?.missing).toBe('kubelet log of this node');
    expect(w.gaps[0]?.collect).toMatch(/^oc adm node-logs worker-0 -u kubelet/);
    // The master whose journal is there is not told to collect it.
    expect(node(a, 'master-0').gaps.some((g) => g.missing.startsWith('kubelet log'))).toBe(false);
  });

  it('an oc adm inspect (node object only): oc adm node-logs NODE -u kubelet', async () => {
    const fx = kinds.find((k) => k.kind === 'inspect') as KindFixture;
    const p = await writeBundle(dir, fx.name, fx.files, 'dir');
    const w = node(run([p]), 'worker-0');
    expect(w.gaps[0]?.missing).toBe('kubelet log of this node');
    expect(w.gaps[0]?.collect).toMatch(/^oc adm node-logs worker-0 -u kubelet/);
  });

  it('the text report lists it first', () => {
    const d = path.join(dir, 'no-kubelet');
    const r = cli(['analyze', d]);
    const gaps = r.stdout.slice(r.stdout.indexOf('Gaps'));
    expect(gaps.split('\n')[1]).toMatch(/^\s+- kubelet log of this node:/);
  });
});
