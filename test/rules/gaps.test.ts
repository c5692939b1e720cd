// Collection commands (issue 15 point 5, issue 16 point 1): the gaps' commands are anchored on the node's stalls,
// speak the bundle's world (oc for a must-gather, the node's journalctl for a sosreport, docker for kind, kubectl
// debug elsewhere), keep one command per line, and are safe to paste: values from the input are quoted, and a name
// no Kubernetes node can have gets no command at all. The last part pastes every command into bash with stand-ins
// for kubectl, oc, docker and journalctl, next to a probe file the hostile name would create.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../src/analyze.js';
import type { NodeReport } from '../../src/contract/analysis.js';
import { isNodeName, NO_COMMAND, render, renderCommand, shQuote } from '../../src/rules/engine.js';
import { fixtures, type KindFixture } from '../bundles/kinds.js';
import { writeBundle, type Files } from '../bundles/fixtures.js';
import { at, kl, lines, skipLines, syncLoopEvent } from '../helpers/scenario.js';
import { cli } from '../helpers/cli.js';

let dir: string;
let kinds: KindFixture[];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plegscope-gaps-'));
  kinds = await fixtures();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const minute = 60_000;
/** What the commands must ask for: the stalls with 10 min either side, on whole minutes, in UTC. */
function window(n: NodeReport): { since: string; until: string | null } {
  const from = Math.min(...n.stalls.map((s) => Date.parse(s.lastRelistAt))) - 10 * minute;
  const open = n.stalls.some((s) => s.endedAt === null);
  const to = open ? null : Math.max(...n.stalls.map((s) => Date.parse(s.endedAt as string))) + 10 * minute;
  const iso = (t: number) => new Date(t).toISOString().replace('.000Z', 'Z');
  return { since: iso(Math.floor(from / minute) * minute), until: to === null ? null : iso(Math.ceil(to / minute) * minute) };
}
const journal = (isoZ: string) => `'${isoZ.slice(0, 10)} ${isoZ.slice(11, 19)} UTC'`;

async function nodesOf(kind: string, drop: (path: string) => boolean = () => false): Promise<NodeReport[]> {
  const fx = kinds.find((k) => k.kind === kind) as KindFixture;
  const files: Files = Object.fromEntries(Object.entries(fx.files).filter(([p]) => !drop(p)));
  const p = await writeBundle(mkdtempSync(join(dir, `${kind}-`)), fx.name, files, 'dir');
  return (await analyze({ paths: [p], workers: 0 })).analysis.nodes;
}

const commands = (n: NodeReport, missing: string): string[] => n.gaps.find((g) => g.missing === missing)?.collect.split('\n').filter((l) => !l.startsWith('#')) ?? [];

describe('gap commands carry the stall\'s dates and the bundle\'s commands', () => {
  it('must-gather: oc adm node-logs NODE -u crio and oc debug node/NODE, from 10 min before the stall to 10 min after', async () => {
    const [n] = await nodesOf('must-gather');
    const w = window(n!);
    expect(w.until).not.toBeNull();
    expect(commands(n!, 'container runtime log')).toEqual([`oc adm node-logs master-0 -u crio --since=${w.since} --until=${w.until} > master-0-crio.log`]);
    expect(commands(n!, 'kernel log')).toEqual([`oc debug node/master-0 -- chroot /host journalctl _TRANSPORT=kernel --since ${journal(w.since)} --until ${journal(w.until!)} -o short-precise > master-0-kernel.log`]);
    expect(commands(n!, 'kubelet metrics')[0]).toMatch(/^oc get --raw \/api\/v1\/nodes\/master-0\/proxy\/metrics > /);
    // A stall from 09:09:59.8 to 09:16:02 → 08:59 to 09:27, not "the last day".
    expect(w).toEqual({ since: '2024-01-11T08:59:00Z', until: '2024-01-11T09:27:00Z' });
    expect(n!.gaps.every((g) => !g.collect.includes('-1d'))).toBe(true);
  });

  it('oc adm inspect (a NotReady node from its object): the same world; no end while the stall was still open', async () => {
    const [n] = await nodesOf('inspect');
    const w = window(n!);
    expect(w.until).toBeNull();
    expect(commands(n!, 'container runtime log')).toEqual([`oc adm node-logs worker-0 -u crio --since=${w.since} > worker-0-crio.log`]);
  });

  it('sosreport: the node\'s own journalctl (sos runs there), with the runtime\'s unit', async () => {
    const [n] = await nodesOf('sosreport', (p) => /containerd|dmesg|journalctl_--no-pager$|journalctl_--no-pager_--boot|var\/log\/messages/.test(p));
    const w = window(n!);
    const g = n!.gaps.find((x) => x.missing === 'container runtime log')!;
    expect(g.collect.split('\n')[0]).toBe('# on the node, as root:');
    expect(commands(n!, 'container runtime log')).toHaveLength(1);
    expect(commands(n!, 'container runtime log')[0]).toMatch(new RegExp(`^journalctl (-u \\w+ )+--since ${journal(w.since)} --until ${journal(w.until!)} -o short-precise > worker1-runtime\\.log$`));
    expect(commands(n!, 'kernel log')).toEqual([`journalctl _TRANSPORT=kernel --since ${journal(w.since)} --until ${journal(w.until!)} -o short-precise > worker1-kernel.log`]);
  });

  it('kind: the kernel is the Docker host\'s; the runtime is read with docker exec into the node container', async () => {
    const [cp] = await nodesOf('kind', (p) => /containerd\.log|journal\.log/.test(p));
    const w = window(cp!);
    expect(commands(cp!, 'container runtime log')).toEqual([`docker exec kind-control-plane journalctl -u containerd --since ${journal(w.since)} --until ${journal(w.until!)} -o short-precise > kind-control-plane-containerd.log`]);
    expect(cp!.gaps.find((g) => g.missing === 'kernel log')?.collect).toMatch(/^# on the machine that runs the kind cluster:\njournalctl _TRANSPORT=kernel /);
  });

  it('other clusters (EKS, AKS, Rancher, loose files): through the API server first (no pod), the node\'s journalctl, kubectl debug node/NODE last', async () => {
    const [n] = await nodesOf('aks');
    const w = window(n!);
    expect(commands(n!, 'kernel log')).toEqual([
      'kubectl get --raw "/api/v1/nodes/aks-nodepool1-12345678-vmss000000/proxy/logs/kern.log" > aks-nodepool1-12345678-vmss000000-kernel.log',
      `journalctl _TRANSPORT=kernel --since ${journal(w.since)} --until ${journal(w.until!)} -o short-precise > aks-nodepool1-12345678-vmss000000-kernel.log`,
      `kubectl debug node/aks-nodepool1-12345678-vmss000000 -q -i --image=busybox -- chroot /host journalctl _TRANSPORT=kernel --since ${journal(w.since)} --until ${journal(w.until!)} -o short-precise > aks-nodepool1-12345678-vmss000000-kernel.log`,
    ]);
    expect(n!.gaps.find((g) => g.missing === 'kernel log')?.collect.split('\n').at(-2)).toBe('# last resort — needs a pod on the node: hangs when it is NotReady:');
    const [e] = await nodesOf('eks-logs', (p) => /containerd/.test(p));
    // The runtime is not known from these logs: every runtime's unit; the log query from 10 min before the stall.
    const rt = commands(e!, 'container runtime log');
    expect(rt[0]).toBe(`kubectl get --raw "/api/v1/nodes/ip-10-0-1-23.ec2.internal/proxy/logs/?query=containerd&query=crio&query=docker&sinceTime=${window(e!).since}" > ip-10-0-1-23.ec2.internal-runtime.log`);
    expect(rt.at(-1)).toMatch(/^kubectl debug node\/ip-10-0-1-23\.ec2\.internal -q -i --image=busybox -- chroot \/host journalctl -u containerd -u crio -u docker --since /);
  });

  it('every view prints one command per line, unwrapped', async () => {
    const fx = kinds.find((k) => k.kind === 'must-gather')!;
    const p = await writeBundle(mkdtempSync(join(dir, 'views-')), fx.name, fx.files, 'dir');
    const want = `oc adm node-logs master-0 -u crio --since=2024-01-11T08:59:00Z --until=2024-01-11T09:27:00Z > master-0-crio.log`;
    const text = cli(['analyze', p]).stdout;
    expect(text.split('\n')).toContain(`      $ ${want}`);
    const md = cli(['analyze', p, '--format', 'markdown']).stdout;
    expect(md.split('\n')).toContain(`  ${want}`);
    const html = cli(['analyze', p, '--format', 'html']).stdout;
    expect(html).toContain(`<pre class="cmd"><code>${want.replace('>', '&gt;')}</code></pre>`);
    for (const out of [text, md, html]) expect(out).not.toContain('\\x0a');
  });
});

describe('commands are safe to paste (issue 16 point 1)', () => {
  it('quotes values for the shell, and knows which names a node can have', () => {
    expect(shQuote('worker-3.eu-west-1.compute.internal')).toBe('worker-3.eu-west-1.compute.internal');
    expect(shQuote("w1$(touch /tmp/x)'`;|&")).toBe(`'w1$(touch /tmp/x)'\\''\`;|&'`);
    expect(shQuote('=cmd')).toBe("'=cmd'");
    for (const ok of ['worker-3', 'ip-10-0-1-23.ec2.internal', 'a', '0', 'a'.repeat(63)]) expect(isNodeName(ok), ok).toBe(true);
    for (const bad of ['w1$(touch${IFS}/tmp/x)', 'Worker-3', '-x', 'x-', 'a..b', 'a b', '', 'a'.repeat(64), `${'a.'.repeat(127)}a`, 'a\nb']) expect(isNodeName(bad), bad).toBe(false);
    expect(renderCommand('kubectl get node {node.name|node}', { 'node.name': 'w1$(id)' })).toBe(NO_COMMAND);
    expect(renderCommand('kubectl get node {node.name|node}', { 'node.name': null })).toBe(NO_COMMAND);
    expect(render('x{collect.since|since}{collect.until|until}', { 'collect.since': Date.UTC(2024, 2, 11, 9, 57), 'collect.until': null })).toBe("x --since '2024-03-11 09:57:00 UTC'");
    // Whatever |sh quotes, bash reads back as the same single word.
    for (const v of ["a'b", 'a b', '$(id)', '`id`', '${IFS}', 'a;b|c&d', '"q"', '\\', '~root', '*', '!x', 'a\nb']) {
      const r = spawnSync('bash', ['-c', `printf '%s' ${render('{v|sh}', { v })}`], { encoding: 'utf8' });
      expect(r.stdout, v).toBe(v);
    }
  });

  it('a journal host like w1$(touch${IFS}…) gets no command; every suggested line pastes into bash without running it', () => {
    const work = mkdtempSync(join(dir, 'paste-'));
    const probe = join(work, 'pwned');
    const evil = `w1$(touch\${IFS}${probe})`;
    const L = at('10:00:00');
    const log = (host: string, pid: number) => [
      kl(at('09:00:00'), 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.28.3"', { host, pid }),
      ...skipLines(L, L + 600_000, 'structured', { host, pid }),
      syncLoopEvent(L + 602_000, 'structured', { host, pid }),
    ];
    const input = join(work, 'logs');
    mkdirSync(input);
    writeFileSync(join(input, 'kubelet.log'), lines([...log(evil, 2817), ...log('worker-2', 3300)]));
    const r = cli(['analyze', input, '--format', 'json', '--year', '2024']);
    expect(r.code, r.stderr).toBe(0);
    const a = JSON.parse(r.stdout) as { nodes: NodeReport[] };
    const bad = a.nodes.find((n) => n.name === evil)!;
    const good = a.nodes.find((n) => n.name === 'worker-2')!;
    expect(bad.gaps.length).toBeGreaterThan(0);
    for (const g of bad.gaps) expect(g.collect).toBe(NO_COMMAND);
    expect(good.gaps.some((g) => g.collect.includes('worker-2'))).toBe(true);
    // Stand-ins for the tools the commands call: they only print their arguments.
    const bin = join(work, 'bin');
    mkdirSync(bin);
    for (const tool of ['kubectl', 'oc', 'journalctl', 'docker', 'pkill', 'plegscope']) {
      writeFileSync(join(bin, tool), '#!/bin/sh\necho "$0 $*"\n');
      chmodSync(join(bin, tool), 0o755);
    }
    const all = [...bad.gaps, ...good.gaps].flatMap((g) => g.collect.split('\n'));
    // The name shows in prose, never in a command line of the text report or a shell block of the Markdown.
    const text = cli(['analyze', input, '--year', '2024']).stdout;
    expect(text).toContain(evil);
    expect(text.split('\n').filter((l) => /^\s+\$ /.test(l) && l.includes('$(touch'))).toEqual([]);
    const md = cli(['analyze', input, '--format', 'markdown', '--year', '2024']).stdout;
    const shBlocks = [...md.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
    expect(shBlocks.length).toBeGreaterThan(0);
    expect(shBlocks.filter((b) => b.includes('$(touch'))).toEqual([]);
    for (const line of all) {
      const n = spawnSync('bash', ['-n', '-c', line], { encoding: 'utf8' });
      expect(n.status, `${line}\n${n.stderr}`).toBe(0);
      const run = spawnSync('bash', ['-c', line], { encoding: 'utf8', cwd: work, env: { PATH: `${bin}:/usr/bin:/bin` } });
      expect(run.status, `${line}\n${run.stderr}`).toBe(0);
    }
    expect(existsSync(probe)).toBe(false);
    // The probe works: the same name pasted raw would have run it.
    spawnSync('bash', ['-c', `kubectl get node ${evil}`], { cwd: work, env: { PATH: `${bin}:/usr/bin:/bin` } });
    expect(existsSync(probe)).toBe(true);
  });
});
