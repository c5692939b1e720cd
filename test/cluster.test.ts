// From a live cluster (issue 23): `plegscope collect` and `plegscope watch` spawned as users run them, against the
// loopback API server stand-in (test/support/kube-api.ts) serving the sample incident behind its node proxy.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeApiStandIn, CA_FILE, CLIENT_CERT, CLIENT_KEY } from './support/kube-api.js';
import { BIN } from './helpers/cli.js';
import { HAS_TMUX, Tmux, shq } from './tui/tmux.js';
import { incidentEntries, missingSystemdTools, writeJournal } from './support/journal-files.js';

interface Run { code: number | null; stdout: string; stderr: string }

/** The launcher, asynchronously (the stand-in answers from this process). */
function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1', KUBECONFIG: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => (stdout += b));
    child.stderr.on('data', (b) => (stderr += b));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'plegscope-cluster-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A kubeconfig for the stand-in: client certificate (files), a token file, or an exec plugin. */
function kubeconfig(name: string, server: string, user: Record<string, unknown>): string {
  const file = join(tmp, name);
  writeFileSync(file, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'standin',
    clusters: [{ name: 'standin', cluster: { server, 'certificate-authority': CA_FILE } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'standin', context: { cluster: 'standin', user: 'u' } }],
  }));
  return file;
}

function report(text: string): { nodes: Array<{ name: string; verdict: { plegUnhealthy: boolean; primaryCause: string | null }; findings: Array<{ ruleId: string }>; gaps: Array<{ missing: string; why: string; collect: string }> }>; warnings: Array<{ message: string }> } {
  return JSON.parse(text);
}

const sample = (() => {
  const r = spawnSync(process.execPath, [BIN, 'analyze', join(__dirname, '..', 'fixtures', 'sample-incident'), '--format', 'json'], { encoding: 'utf8' });
  return report(r.stdout);
})();

describe('plegscope collect', () => {
  it("gives the sample's verdict; the folder re-analyzes the same; nothing but GETs", async () => {
    const api = new KubeApiStandIn();
    const server = await api.start();
    try {
      const kc = kubeconfig('cert.yaml', server, { 'client-certificate': CLIENT_CERT, 'client-key': CLIENT_KEY });
      const dir = join(tmp, 'c1');
      const r = await run(['collect', 'worker-3', '--interval', '0', '--since', '3h', '-o', dir, '--format', 'json', '--report', join(tmp, 'c1.json')], { KUBECONFIG: kc });
      expect(r.stderr).not.toMatch(/not collected/);
      expect(r.code).toBe(0);
      const got = report(readFileSync(join(tmp, 'c1.json'), 'utf8'));
      const want = sample.nodes[0];
      expect(got.nodes.map((n) => n.name)).toEqual(['worker-3']);
      expect(got.nodes[0]?.verdict.primaryCause).toBe(want?.verdict.primaryCause);
      expect(got.nodes[0]?.findings.map((f) => f.ruleId)).toEqual(want?.findings.map((f) => f.ruleId));
      // The folder: one file per source, and the manifest.
      expect(readdirSync(join(dir, 'worker-3')).sort()).toEqual(expect.arrayContaining(['node.json', 'events.json', 'goroutines.txt', 'healthz.txt', 'configz.json', 'kubelet.log', 'containerd.log', 'var-log']));
      const manifest = JSON.parse(readFileSync(join(dir, 'collected.json'), 'utf8'));
      expect(manifest.clusterVersion).toBe('v1.28.3');
      expect(manifest.nodes[0].pods).toBe(3);
      expect(manifest.nodes[0].containers).toBe(4);
      expect(manifest.nodes[0].files.find((f: { file: string }) => f.file === 'kubelet.log')).toMatchObject({ status: 200, zone: 'UTC', url: expect.stringContaining('/proxy/logs/?query=kubelet&sinceTime=2024-03-11T08%3A00%3A') });
      // The sample's log query from 08:00 (3 h before the stand-in's 11:00): every kubelet line of the sample.
      expect(readFileSync(join(dir, 'worker-3', 'kubelet.log'), 'utf8').split('\n').filter(Boolean)).toHaveLength(2728);
      // Later, the folder alone: the same answer (years and node names from the manifest).
      const again = await run(['analyze', dir, '--format', 'json']);
      expect(again.code).toBe(0);
      const a2 = report(again.stdout);
      expect(a2.nodes.map((n) => [n.name, n.verdict.primaryCause, n.findings.map((f) => f.ruleId)])).toEqual(got.nodes.map((n) => [n.name, n.verdict.primaryCause, n.findings.map((f) => f.ruleId)]));
      expect(api.requests.length).toBeGreaterThan(8);
      expect(api.requests.filter((q) => q.method !== 'GET')).toEqual([]);
      expect(new Set(api.requests.map((q) => q.user))).toEqual(new Set(['cert:jane']));
    } finally {
      await api.stop();
    }
  }, 120_000);

  it('forbidden pprof, the log query off: still a report, naming what is missing; an exec plugin authenticates', async () => {
    const api = new KubeApiStandIn({ tokens: ['t0ken-from-plugin'], forbid: ['/proxy/debug/pprof'], logQuery: 'off' });
    const server = await api.start();
    try {
      const plugin = join(tmp, 'get-token.sh');
      writeFileSync(plugin, '#!/bin/sh\n# an exec credential plugin (client.authentication.k8s.io/v1)\ncase "$KUBERNETES_EXEC_INFO" in *ExecCredential*) ;; *) exit 3;; esac\nprintf \'{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"t0ken-from-plugin","expirationTimestamp":"2099-01-01T00:00:00Z"}}\'\n');
      chmodSync(plugin, 0o755);
      const kc = kubeconfig('exec.yaml', server, { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin, interactiveMode: 'Never' } });
      const r = await run(['collect', 'worker-3', '--kubeconfig', kc, '--interval', '0', '-o', join(tmp, 'c2'), '--format', 'json']);
      expect(r.code).toBe(0);
      const got = report(r.stdout);
      const warnings = got.warnings.map((w) => w.message).join('\n');
      expect(warnings).toMatch(/goroutine dump not collected \(HTTP 403\): forbidden: needs "get nodes\/proxy"; the ClusterRole rule that grants it: \{apiGroups: \[""\], resources: \["nodes\/proxy"\], verbs: \["get"\]\}.*; once fixed: kubectl get --raw "\/api\/v1\/nodes\/worker-3\/proxy\/debug\/pprof\/goroutine\?debug=2"$/m);
      expect(warnings).toMatch(/the node log query not collected \(HTTP 200\): the node log query is off on this kubelet \(it needs the NodeLogQuery feature gate/);
      // What could not be collected is also a gap, with the command that gets it once the cause is fixed.
      const gaps = got.nodes[0]?.gaps ?? [];
      expect(gaps).toContainEqual(expect.objectContaining({ missing: 'the kubelet goroutine dump', collect: 'kubectl get --raw "/api/v1/nodes/worker-3/proxy/debug/pprof/goroutine?debug=2"' }));
      const off = gaps.find((g) => g.missing === 'the node log query') as { why: string; collect: string };
      expect(off.why).toMatch(/could not fetch it: the node log query is off on this kubelet/);
      expect(off.collect).toMatch(/^# nothing to run/);
      // …before the one command that gets them all.
      expect(gaps.at(-1)?.collect).toMatch(/^plegscope collect worker-3/);
      // The kubelet's lines came from /var/log/messages instead: the verdict stands.
      expect(got.nodes[0]?.verdict.primaryCause).toBe(sample.nodes[0]?.verdict.primaryCause);
      expect(api.requests.some((q) => q.path.endsWith('/proxy/logs/messages'))).toBe(true);
      expect(api.requests.every((q) => q.method === 'GET' && q.user === 'token:t0ken-')).toBe(true);
    } finally {
      await api.stop();
    }
  }, 120_000);

  it.skipIf(missingSystemdTools() !== null)('the log query off and no syslog files: the binary journal from /logs/journal/, read natively', async () => {
    const journal = join(tmp, 'system.journal');
    writeJournal(journal, incidentEntries());
    const api = new KubeApiStandIn({ tokens: ['j'], logQuery: 'off', varLog: ['journal/', 'README'], journal });
    const server = await api.start();
    try {
      const kc = kubeconfig('journal.yaml', server, { token: 'j' });
      const dir = join(tmp, 'cj');
      const r = await run(['collect', 'worker-3', '--kubeconfig', kc, '--interval', '0', '-o', dir, '--format', 'json']);
      expect(r.code, r.stderr).toBe(0);
      const got = report(r.stdout);
      expect(got.nodes.map((n) => [n.name, n.verdict.primaryCause])).toEqual([['worker-3', sample.nodes[0]?.verdict.primaryCause]]);
      const manifest = JSON.parse(readFileSync(join(dir, 'collected.json'), 'utf8'));
      expect(manifest.nodes[0].files.map((f: { file: string }) => f.file)).toContain('var-log/journal/3f1c0a6e9b2d4c8e8f7a6b5c4d3e2f10/system.journal');
      expect(readFileSync(join(dir, 'worker-3', 'var-log', 'journal', '3f1c0a6e9b2d4c8e8f7a6b5c4d3e2f10', 'system.journal')).equals(readFileSync(journal))).toBe(true);
    } finally {
      await api.stop();
    }
  }, 120_000);

  it('a kubelet that does not answer (503) is evidence; an unknown node is one line, exit 2', async () => {
    const api = new KubeApiStandIn({ tokens: ['s3cret'], kubeletDown: true });
    const server = await api.start();
    try {
      const tokenFile = join(tmp, 'token');
      writeFileSync(tokenFile, 's3cret\n');
      const kc = kubeconfig('token.yaml', server, { tokenFile });
      const missing = await run(['collect', 'worker-9', '--kubeconfig', kc, '-o', join(tmp, 'c3')]);
      expect(missing.code).toBe(2);
      expect(missing.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^plegscope: node\/worker-9: no such node in context "standin" \(https:\/\/127\.0\.0\.1:\d+\): nodes "worker-9" not found$/)]);
      expect(existsSync(join(tmp, 'c3', 'collected.json'))).toBe(false);
      const r = await run(['collect', 'worker-3', '--kubeconfig', kc, '--interval', '0', '-o', join(tmp, 'c4'), '--format', 'json']);
      expect(r.code).toBe(0);
      const got = report(r.stdout);
      expect(got.warnings.map((w) => w.message).join('\n')).toMatch(/kubelet metrics not collected \(HTTP 503\): the API server could not reach the kubelet through the node proxy \(the server said: error trying to reach service: dial tcp 10\.0\.1\.23:10250: connect: connection refused\): the kubelet's HTTP server did not answer — itself evidence/);
      // Nothing of the kubelet: the gaps say what would get it, the no-pod form first, plegscope collect last.
      const gaps = got.nodes[0]?.gaps ?? [];
      expect(gaps[0]?.missing).toBe('kubelet log of this node');
      expect(gaps[0]?.collect.split('\n').find((l) => !l.startsWith('#'))).toMatch(/^kubectl get --raw "\/api\/v1\/nodes\/worker-3\/proxy\/logs\/\?query=kubelet/);
      expect(gaps.at(-1)?.collect).toMatch(/^plegscope collect worker-3/m);
      // Only the first proxy call was made: the rest are not asked of a kubelet that does not answer.
      expect(api.requests.filter((q) => q.path.includes('/proxy/')).length).toBe(1);
    } finally {
      await api.stop();
    }
  }, 120_000);
});

describe('plegscope watch', () => {
  it('catches a node that turns NotReady with a PLEG message and captures it; SIGTERM ends it (exit 0)', async () => {
    const api = new KubeApiStandIn({ tokens: ['w'] });
    const server = await api.start();
    try {
      const kc = kubeconfig('watch.yaml', server, { token: 'w' });
      const out = join(tmp, 'w');
      const child = spawn(process.execPath, [BIN, 'watch', '--kubeconfig', kc, '--interval', '0', '-o', out], { env: { ...process.env, KUBECONFIG: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (b) => (stdout += b));
      child.stderr.on('data', (b) => (stderr += b));
      const until = async (cond: () => boolean, what: string) => {
        for (let i = 0; i < 600 && !cond(); i++) await new Promise((r) => setTimeout(r, 50));
        if (!cond()) throw new Error(`${what} never happened; stderr: ${stderr}`);
      };
      await until(() => api.watching > 0, 'a watch');
      // A disconnect: the watch is resumed.
      api.dropWatches();
      await until(() => api.watching > 0, 'a resumed watch');
      api.setReady('worker-3', 'False', 'KubeletNotReady', 'PLEG is not healthy: pleg was last seen active 3m12s ago; threshold is 3m0s');
      await until(() => stdout.includes('\n'), 'a capture line');
      const [node, at, verdict, cause, path] = stdout.trim().split('\t');
      expect([node, verdict, cause]).toEqual(['worker-3', 'PLEG unhealthy', sample.nodes[0]?.verdict.primaryCause]);
      expect(at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(JSON.parse(readFileSync(join(path as string, 'report.json'), 'utf8')).nodes[0].name).toBe('worker-3');
      expect(readFileSync(join(path as string, 'report.md'), 'utf8')).toMatch(/worker-3/);
      child.kill('SIGTERM');
      const code = await new Promise((r) => child.on('close', r));
      expect(code).toBe(0);
      expect(api.requests.filter((q) => q.method !== 'GET')).toEqual([]);
      expect(api.requests.filter((q) => q.path.includes('watch=true')).length).toBeGreaterThanOrEqual(2);
    } finally {
      await api.stop();
    }
  }, 120_000);
});

describe('plegscope watch: a relist that stops advancing', () => {
  it('with --relist-every, a node whose kubelet_pleg_last_seen_seconds does not move is captured while still Ready', async () => {
    const api = new KubeApiStandIn({ tokens: ['r'], frozenRelist: true });
    const server = await api.start();
    try {
      const kc = kubeconfig('relist.yaml', server, { token: 'r' });
      const child = spawn(process.execPath, [BIN, 'watch', '--kubeconfig', kc, '--interval', '0', '--relist-every', '1', '-o', join(tmp, 'wr')], { env: { ...process.env, KUBECONFIG: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (b) => (stdout += b));
      child.stderr.on('data', (b) => (stderr += b));
      for (let i = 0; i < 600 && !stdout.includes('\n'); i++) await new Promise((r) => setTimeout(r, 50));
      expect(stdout.split('\t')[0], stderr).toBe('worker-3');
      expect(stderr).toMatch(/worker-3: relist not advanced in 1 s \(kubelet_pleg_last_seen_seconds 2024-03-11T10:07:12\.348Z\)/);
      child.kill('SIGTERM');
      expect(await new Promise((r) => child.on('close', r))).toBe(0);
      // One capture per stop, not one per poll.
      expect(stdout.trim().split('\n')).toHaveLength(1);
    } finally {
      await api.stop();
    }
  }, 120_000);
});

describe('the stand-in speaks real shapes', () => {
  const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
  it.skipIf(!kubectl)('kubectl get --raw reads the node proxy, the log query, and reports its Status objects', async () => {
    const api = new KubeApiStandIn({ tokens: ['k'], forbid: ['/proxy/configz'] });
    const server = await api.start();
    try {
      const kc = kubeconfig('kubectl.yaml', server, { token: 'k' });
      const k = (args: string[]) => new Promise<Run>((resolve) => {
        const c = spawn('kubectl', ['--kubeconfig', kc, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        c.stdout.on('data', (b) => (stdout += b));
        c.stderr.on('data', (b) => (stderr += b));
        c.on('close', (code) => resolve({ code, stdout, stderr }));
      });
      const logs = await k(['get', '--raw', '/api/v1/nodes/worker-3/proxy/logs/?query=kubelet&sinceTime=2024-03-11T10:59:00Z']);
      expect(logs.code).toBe(0);
      expect(logs.stdout.split('\n')[0]).toMatch(/^Mar 11 10:59:\d\d\.\d{6} worker-3 kubelet\[2817\]: /);
      const node = await k(['get', 'node', 'worker-3', '-o', 'jsonpath={.status.nodeInfo.containerRuntimeVersion}']);
      expect(node.stdout).toBe('containerd://1.7.13');
      const denied = await k(['get', '--raw', '/api/v1/nodes/worker-3/proxy/configz']);
      expect(denied.code).not.toBe(0);
      expect(denied.stderr).toMatch(/forbidden: User "jane" cannot get resource "nodes\/proxy"/);
      const gone = await k(['get', 'node', 'worker-9']);
      expect(gone.stderr).toMatch(/nodes "worker-9" not found/);
    } finally {
      await api.stop();
    }
  }, 120_000);
});

describe('a hostile API server cannot hang or bloat the client', () => {
  it('an endless answer is cut at its cap; one that never ends is given up at its time limit; a watch line past its cap ends the watch', async () => {
    const { createServer } = await import('node:http');
    const { KubeClient, ClusterError } = await import('../src/sources/cluster/client.js');
    const srv = createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      if (req.url === '/endless') {
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        const pump = () => {
          while (res.write(chunk)) { /* until the socket pushes back */ }
          res.once('drain', pump);
        };
        res.on('close', () => res.removeAllListeners('drain'));
        pump();
      } else if (req.url?.startsWith('/watch')) {
        res.write('{"type":"ADDED","object":{"metadata":{"name":"');
        const chunk = 'x'.repeat(64 * 1024);
        const pump = () => {
          while (res.write(chunk)) { /* idem */ }
          res.once('drain', pump);
        };
        res.on('close', () => res.removeAllListeners('drain'));
        pump();
      } else res.write('headers, then nothing');
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    const port = (srv.address() as import('node:net').AddressInfo).port;
    const client = new KubeClient({ server: `http://127.0.0.1:${port}`, context: 't', file: null, ca: null, insecure: false, tlsServerName: null, cert: null, key: null, token: async () => null, basic: null, proxyUrl: null }, {});
    try {
      const a = await client.get('/endless', { maxBytes: 1024 * 1024 });
      expect(a.truncated).toBe(true);
      expect(a.body.length).toBe(1024 * 1024);
      await expect(client.get('/silent', { timeoutMs: 300 })).rejects.toBeInstanceOf(ClusterError);
      await expect(client.watch('/watch', () => {}, new AbortController().signal)).rejects.toThrow(/a watch event longer than/);
    } finally {
      client.close();
      srv.closeAllConnections();
      srv.close();
    }
  }, 120_000);
});

describe('credentials as users have them', () => {
  it('KUBECONFIG with several files (the first to name a context wins), --context, relative paths; in a pod, the service account', async () => {
    const { resolveAccess } = await import('../src/sources/cluster/kubeconfig.js');
    const { KubeClient } = await import('../src/sources/cluster/client.js');
    const api = new KubeApiStandIn({ tokens: ['sa-token', 'second'] });
    const server = await api.start();
    try {
      const d = mkdtempSync(join(tmp, 'kc-'));
      writeFileSync(join(d, 'ca.crt'), readFileSync(CA_FILE));
      writeFileSync(join(d, 'a.yaml'), `apiVersion: v1\nkind: Config\ncurrent-context: first\nclusters:\n- name: c\n  cluster: {server: "${server}", certificate-authority: ca.crt}\nusers:\n- name: u1\n  user: {token: nope}\ncontexts:\n- name: first\n  context: {cluster: c, user: u1}\n`);
      writeFileSync(join(d, 'b.yaml'), `apiVersion: v1\nkind: Config\ncurrent-context: second\nusers:\n- name: u2\n  user: {token: second}\ncontexts:\n- name: second\n  context: {cluster: c, user: u2}\n- name: first\n  context: {cluster: nowhere, user: u2}\n`);
      const env = { KUBECONFIG: `${join(d, 'a.yaml')}:${join(d, 'b.yaml')}`, HOME: d };
      expect(resolveAccess({ env }).context).toBe('first');
      const second = resolveAccess({ env, context: 'second' });
      expect(await second.token()).toBe('second');
      const c = new KubeClient(second, {});
      expect((await c.get('/version')).status).toBe(200);
      c.close();
      expect(() => resolveAccess({ env, context: 'third' })).toThrow(/no context "third" \(there are: first, second\)/);
      // In a pod: no kubeconfig, the service account's token and CA.
      const sa = mkdtempSync(join(tmp, 'sa-'));
      writeFileSync(join(sa, 'token'), 'sa-token\n');
      writeFileSync(join(sa, 'ca.crt'), readFileSync(CA_FILE));
      const port = new URL(server).port;
      const pod = resolveAccess({ env: { HOME: sa, KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: port }, serviceAccountDir: sa });
      expect(pod.context).toBe('in-cluster');
      const pc = new KubeClient(pod, {});
      expect((await pc.get('/api/v1/nodes/worker-3')).status).toBe(200);
      pc.close();
      expect(api.requests.map((q) => q.user)).toEqual(['token:second', 'token:sa-tok']);
    } finally {
      await api.stop();
    }
  });

  it('HTTPS_PROXY is used through CONNECT unless NO_PROXY names the host', async () => {
    const { proxyFor } = await import('../src/sources/cluster/client.js');
    const u = new URL('https://api.prod.example.com:6443');
    expect(proxyFor(u, { HTTPS_PROXY: 'proxy:3128' })).toBe('http://proxy:3128');
    expect(proxyFor(u, { HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: 'localhost,.example.com' })).toBeNull();
    expect(proxyFor(u, { https_proxy: 'http://proxy:3128', no_proxy: 'example.com:443' })).toBe('http://proxy:3128');
    expect(proxyFor(new URL('https://10.0.0.1:6443'), { HTTPS_PROXY: 'http://p:1', NO_PROXY: '10.0.0.1' })).toBeNull();
  });

  it("deploy/watch.yaml's ClusterRole grants reading only, and every permission a refusal names", async () => {
    const { loadAll } = await import('js-yaml');
    const { permissionFor } = await import('../src/sources/cluster/collect.js');
    const docs = loadAll(readFileSync(join(__dirname, '..', 'deploy', 'watch.yaml'), 'utf8')) as Array<{ kind: string; rules?: Array<{ resources: string[]; verbs: string[] }> }>;
    const role = docs.find((x) => x.kind === 'ClusterRole');
    const granted = new Set(role!.rules!.flatMap((r) => r.resources.flatMap((res) => r.verbs.map((v) => `${v} ${res}`))));
    expect([...granted].every((g) => /^(get|list|watch) /.test(g))).toBe(true);
    for (const url of ['/api/v1/nodes/w/proxy/metrics', '/api/v1/nodes/w', '/api/v1/nodes?watch=true', '/api/v1/events?x', '/api/v1/pods?x']) expect(granted.has(permissionFor(url).permission), url).toBe(true);
    expect(docs.find((x) => x.kind === 'Deployment')).toBeDefined();
  });
});

describe('plegscope tui from a cluster', () => {
  it.skipIf(!HAS_TMUX)('collects, opens the analysis; c in the overview collects the selected node again (skipped without tmux)', async () => {
    const api = new KubeApiStandIn({ tokens: ['tui'] });
    const server = await api.start();
    const tm = new Tmux();
    try {
      const kc = kubeconfig('tui.yaml', server, { token: 'tui' });
      const dir = join(tmp, 'tui');
      const codeFile = join(tmp, 'tui-exit');
      tm.start('tui', 100, 30, `${shq(process.execPath)} ${shq(BIN)} tui --kubeconfig ${shq(kc)} --interval 0 -o ${shq(dir)} worker-3; echo "exit=$?" > ${shq(codeFile)}`);
      const s = await tm.waitFor('tui', (x) => x.includes('sorted by'), 'the overview', 40_000);
      expect(s).toMatch(/▸ worker-3 +unhealthy +runtime_timeout/);
      const first = api.requests.filter((q) => q.path.endsWith('/proxy/metrics')).length;
      expect(first).toBe(2);
      await tm.keys('tui', 'c');
      await tm.waitFor('tui', () => api.requests.filter((q) => q.path.endsWith('/proxy/metrics')).length === 4, 'the second collection', 40_000);
      await tm.waitFor('tui', (x) => /▸ worker-3 +unhealthy +runtime_timeout/.test(x), 'the overview again', 40_000);
      await tm.keys('tui', 'q');
      await tm.waitDead('tui', 10_000);
      expect(readFileSync(codeFile, 'utf8').trim()).toBe('exit=0');
      // The folder holds one collection of the node (the earlier one replaced), and its manifest names it once.
      expect(readdirSync(join(dir, 'worker-3')).filter((f) => f.startsWith('metrics-'))).toHaveLength(2);
      expect(JSON.parse(readFileSync(join(dir, 'collected.json'), 'utf8')).nodes.map((n: { name: string }) => n.name)).toEqual(['worker-3']);
      expect(api.requests.filter((q) => q.method !== 'GET')).toEqual([]);
    } finally {
      if (HAS_TMUX) tm.kill();
      await api.stop();
    }
  }, 120_000);
});
