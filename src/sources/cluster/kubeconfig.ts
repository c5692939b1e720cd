// Credentials as users have them: kubeconfig files (KUBECONFIG with several files, --kubeconfig), a context, CA data
// or files, client certificates, bearer tokens and token files, exec credential plugins (client.authentication.k8s.io
// ExecCredential: aws eks get-token, gke-gcloud-auth-plugin, kubelogin), insecure-skip-tls-verify only when the
// kubeconfig says so; else the pod's service account (in-cluster). Proxies come from the environment (client.ts).
//
// A kubeconfig (clientcmd's merge rules: the first file that names a map key wins; current-context from the first file
// that sets one):
//   apiVersion: v1
//   kind: Config
//   clusters: [{ name: c, cluster: { server: https://…:6443, certificate-authority-data: <base64> } }]
//   users: [{ name: u, user: { exec: { apiVersion: client.authentication.k8s.io/v1, command: aws, args: [eks, get-token, …] } } }]
//   contexts: [{ name: ctx, context: { cluster: c, user: u } }]
//   current-context: ctx
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { spawn } from 'node:child_process';
import { load as loadYaml } from 'js-yaml';
import { InputError } from '../artifact.js';

/** What talking to one API server takes. */
export interface ClusterAccess {
  server: string;
  /** The context's name (kubeconfig), or `in-cluster`. */
  context: string;
  /** The kubeconfig file the context came from (null in-cluster). */
  file: string | null;
  ca: Buffer | null;
  insecure: boolean;
  tlsServerName: string | null;
  cert: Buffer | null;
  key: Buffer | null;
  /** The bearer token to send now (a static token, a token file read, or an exec plugin's answer). */
  token(): Promise<string | null>;
  basic: { user: string; password: string } | null;
  /** An explicit proxy-url from the kubeconfig (else the environment's HTTPS_PROXY/NO_PROXY apply). */
  proxyUrl: string | null;
}

const MAX_CONFIG_BYTES = 4 * 1024 * 1024;
const EXEC_TIMEOUT_MS = 60_000;
const EXEC_MAX_BYTES = 1024 * 1024;

interface Named<T> { name: string; value: T; file: string }
type Obj = Record<string, unknown>;

function readText(file: string, what: string): string {
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new InputError(file, `${what}: not a regular file`);
    size = st.size;
  } catch (err) {
    if (err instanceof InputError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(file, `${what}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message}`);
  }
  if (size > MAX_CONFIG_BYTES) throw new InputError(file, `${what}: larger than ${MAX_CONFIG_BYTES} bytes`);
  return readFileSync(file, 'utf8');
}

function obj(x: unknown): Obj {
  return x !== null && typeof x === 'object' && !Array.isArray(x) ? (x as Obj) : {};
}
const str = (x: unknown): string | null => (typeof x === 'string' && x !== '' ? x : null);

/** The kubeconfig files in force: --kubeconfig, else $KUBECONFIG (several, the OS path separator), else ~/.kube/config. */
export function kubeconfigFiles(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string[] {
  if (flag) return [flag];
  const list = (env['KUBECONFIG'] ?? '').split(delimiter).filter((s) => s !== '');
  if (list.length > 0) return [...new Set(list)];
  return [join(env['HOME'] ?? homedir(), '.kube', 'config')];
}

/**
 * Resolves the access to use: the kubeconfig's context (`--context`, else current-context), or, when no kubeconfig is
 * there and the process runs in a pod, the service account. Problems are one InputError naming the file.
 */
export function resolveAccess(opts: { kubeconfig?: string; context?: string; env?: NodeJS.ProcessEnv; serviceAccountDir?: string }): ClusterAccess {
  const env = opts.env ?? process.env;
  const files = kubeconfigFiles(opts.kubeconfig, env);
  const present = files.filter((f) => {
    try {
      return statSync(f).isFile();
    } catch {
      return false;
    }
  });
  if (present.length === 0) {
    if (opts.kubeconfig) throw new InputError(opts.kubeconfig, 'kubeconfig: no such file');
    const inCluster = inClusterAccess(env, opts.serviceAccountDir);
    if (inCluster) return inCluster;
    throw new InputError(files.join(delimiter), 'no kubeconfig (set KUBECONFIG or pass --kubeconfig), and not running in a pod');
  }
  const clusters = new Map<string, Named<Obj>>();
  const users = new Map<string, Named<Obj>>();
  const contexts = new Map<string, Named<Obj>>();
  let current: string | null = null;
  for (const file of present) {
    let doc: Obj;
    try {
      doc = obj(loadYaml(readText(file, 'kubeconfig')));
    } catch (err) {
      if (err instanceof InputError) throw err;
      throw new InputError(file, `kubeconfig: not YAML (${(err as Error).message.split('\n')[0]})`);
    }
    current ??= str(doc['current-context']);
    const take = (key: string, inner: string, into: Map<string, Named<Obj>>) => {
      const list = doc[key];
      if (!Array.isArray(list)) return;
      for (const e of list) {
        const name = str(obj(e)['name']);
        if (name !== null && !into.has(name)) into.set(name, { name, value: obj(obj(e)[inner]), file });
      }
    };
    take('clusters', 'cluster', clusters);
    take('users', 'user', users);
    take('contexts', 'context', contexts);
  }
  const where = present.join(delimiter);
  const ctxName = opts.context ?? current;
  if (ctxName === null) throw new InputError(where, 'kubeconfig: no current-context (pass --context NAME)');
  const ctx = contexts.get(ctxName);
  if (!ctx) throw new InputError(where, `kubeconfig: no context "${ctxName}"${contexts.size ? ` (there are: ${[...contexts.keys()].join(', ')})` : ''}`);
  const clusterName = str(ctx.value['cluster']);
  const cluster = clusterName !== null ? clusters.get(clusterName) : undefined;
  if (!cluster) throw new InputError(ctx.file, `kubeconfig: context "${ctxName}" names cluster "${clusterName ?? ''}", which is not defined`);
  const server = str(cluster.value['server']);
  if (server === null) throw new InputError(cluster.file, `kubeconfig: cluster "${cluster.name}" has no server`);
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new InputError(cluster.file, `kubeconfig: cluster "${cluster.name}": server "${server}" is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new InputError(cluster.file, `kubeconfig: cluster "${cluster.name}": server "${server}" is not http(s)`);
  const userName = str(ctx.value['user']);
  const user = userName !== null ? users.get(userName) : undefined;
  if (userName !== null && !user) throw new InputError(ctx.file, `kubeconfig: context "${ctxName}" names user "${userName}", which is not defined`);
  const u = user?.value ?? {};
  const rel = (file: string, p: string): string => (isAbsolute(p) ? p : join(dirname(file), p));
  const dataOrFile = (o: Obj, key: string, file: string, what: string): Buffer | null => {
    const data = str(o[`${key}-data`]);
    if (data !== null) return Buffer.from(data, 'base64');
    const path = str(o[key]);
    return path !== null ? Buffer.from(readText(rel(file, path), what)) : null;
  };
  const c = cluster.value;
  const uf = user?.file ?? cluster.file;
  const staticToken = str(u['token']);
  const tokenFile = str(u['tokenFile']);
  const exec = u['exec'] !== undefined ? obj(u['exec']) : null;
  if (u['auth-provider'] !== undefined && !staticToken && !exec) {
    throw new InputError(uf, `kubeconfig: user "${userName}" uses an auth-provider (removed from kubectl in 1.26); use its exec plugin (e.g. gke-gcloud-auth-plugin, kubelogin)`);
  }
  const execToken = exec ? execCredential(exec, uf, server) : null;
  return {
    server: server.replace(/\/+$/, ''),
    context: ctxName,
    file: ctx.file,
    ca: dataOrFile(c, 'certificate-authority', cluster.file, 'certificate-authority'),
    insecure: c['insecure-skip-tls-verify'] === true,
    tlsServerName: str(c['tls-server-name']),
    cert: dataOrFile(u, 'client-certificate', uf, 'client-certificate'),
    key: dataOrFile(u, 'client-key', uf, 'client-key'),
    token: async () => {
      if (staticToken) return staticToken;
      if (tokenFile) return readText(rel(uf, tokenFile), 'tokenFile').trim();
      return execToken ? (await execToken()).token : null;
    },
    basic: str(u['username']) !== null ? { user: str(u['username']) as string, password: str(u['password']) ?? '' } : null,
    proxyUrl: str(c['proxy-url']),
  };
}

/** The pod's service account: KUBERNETES_SERVICE_HOST/PORT, its token (re-read each time: it is rotated) and CA. */
function inClusterAccess(env: NodeJS.ProcessEnv, dir = '/var/run/secrets/kubernetes.io/serviceaccount'): ClusterAccess | null {
  const host = env['KUBERNETES_SERVICE_HOST'];
  const port = env['KUBERNETES_SERVICE_PORT'];
  if (!host || !port) return null;
  const tokenPath = join(dir, 'token');
  try {
    statSync(tokenPath);
  } catch {
    return null;
  }
  let ca: Buffer | null = null;
  try {
    ca = Buffer.from(readText(join(dir, 'ca.crt'), 'service account CA'));
  } catch {
    ca = null;
  }
  return {
    server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    context: 'in-cluster',
    file: null,
    ca,
    insecure: false,
    tlsServerName: null,
    cert: null,
    key: null,
    token: async () => readText(tokenPath, 'service account token').trim(),
    basic: null,
    proxyUrl: null,
  };
}

/**
 * An exec credential plugin (client.authentication.k8s.io v1/v1beta1): run with KUBERNETES_EXEC_INFO, its stdout is an
 * ExecCredential `{"kind":"ExecCredential","status":{"token":"…","expirationTimestamp":"…"}}`. Its answer is kept
 * until it expires. Bounded: a time limit and a cap on what it prints; its stderr goes to ours (plugins prompt there).
 */
function execCredential(exec: Obj, file: string, server: string): () => Promise<{ token: string | null }> {
  const command = str(exec['command']);
  if (command === null) throw new InputError(file, 'kubeconfig: exec plugin without a command');
  const args = Array.isArray(exec['args']) ? (exec['args'] as unknown[]).map(String) : [];
  const apiVersion = str(exec['apiVersion']) ?? 'client.authentication.k8s.io/v1';
  const extra: Record<string, string> = {};
  if (Array.isArray(exec['env'])) for (const e of exec['env'] as unknown[]) {
    const n = str(obj(e)['name']);
    if (n !== null) extra[n] = String(obj(e)['value'] ?? '');
  }
  const cmd = command.includes('/') && !isAbsolute(command) ? join(dirname(file), command) : command;
  let cached: { token: string | null; until: number } | null = null;
  return async () => {
    if (cached && Date.now() < cached.until) return cached;
    const info = JSON.stringify({ kind: 'ExecCredential', apiVersion, spec: { interactive: false, cluster: { server } } });
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(cmd, args, { env: { ...process.env, ...extra, KUBERNETES_EXEC_INFO: info }, stdio: ['ignore', 'pipe', 'inherit'] });
      const parts: Buffer[] = [];
      let n = 0;
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new InputError(file, `exec plugin "${command}" did not answer within ${EXEC_TIMEOUT_MS / 1000} s`));
      }, EXEC_TIMEOUT_MS);
      child.stdout.on('data', (b: Buffer) => {
        n += b.length;
        if (n > EXEC_MAX_BYTES) {
          child.kill('SIGKILL');
          return;
        }
        parts.push(b);
      });
      child.on('error', (err) => {
        clearTimeout(timer);
        reject(new InputError(file, `exec plugin "${command}": ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found on PATH' : err.message}`));
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        if (n > EXEC_MAX_BYTES) reject(new InputError(file, `exec plugin "${command}" printed more than ${EXEC_MAX_BYTES} bytes`));
        else if (code !== 0) reject(new InputError(file, `exec plugin "${command}" exited with ${code}`));
        else resolve(Buffer.concat(parts).toString('utf8'));
      });
    });
    let status: Obj;
    try {
      status = obj(obj(JSON.parse(out))['status']);
    } catch {
      throw new InputError(file, `exec plugin "${command}" did not print an ExecCredential (JSON)`);
    }
    const token = str(status['token']);
    if (token === null) throw new InputError(file, `exec plugin "${command}": its ExecCredential has no status.token (client certificates from plugins are not supported)`);
    const exp = Date.parse(str(status['expirationTimestamp']) ?? '');
    cached = { token, until: Number.isFinite(exp) ? exp - 10_000 : Date.now() + 5 * 60_000 };
    return cached;
  };
}
