// Issue 25: `plegscope mcp` driven by the SDK's own client over stdio, spawning bin/plegscope as an MCP client does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { BIN, cli } from '../helpers/cli.js';

const REPO = join(__dirname, '..', '..');
const FIXTURES = join(REPO, 'fixtures');

type Content = Array<{ type: string; text?: string }>;
interface CallResult { content: Content; isError?: boolean }

let client: Client;
let transport: StdioClientTransport;
let stderr = '';
let outside: string;

beforeAll(async () => {
  // A folder outside the root, and a symlink inside a root that leads to it.
  outside = mkdtempSync(join(tmpdir(), 'plegscope-mcp-outside-'));
  writeFileSync(join(outside, 'kubelet.log'), 'Mar 11 10:00:00 node-x kubelet[1]: E0311 10:00:00.000000 1 kubelet.go:1] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3m1s ago; threshold is 3m0s"\n');
  mkdirSync(join(outside, 'root'));
  symlinkSync(outside, join(outside, 'root', 'escape'));
  transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--root', FIXTURES, '--root', join(outside, 'root')],
    cwd: REPO,
    stderr: 'pipe',
    env: { ...process.env, NO_COLOR: '1' } as Record<string, string>,
  });
  transport.stderr?.on('data', (b: Buffer) => { stderr += b.toString(); });
  client = new Client({ name: 'plegscope-test', version: '1.0.0' });
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
  if (outside) rmSync(outside, { recursive: true, force: true });
});

const call = async (name: string, args: Record<string, unknown>): Promise<CallResult> => (await client.callTool({ name, arguments: args })) as CallResult;
const texts = (r: CallResult): string[] => r.content.map((c) => c.text ?? '');

describe('plegscope mcp', () => {
  it('lists its tools, each with an input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['analyze', 'rules']);
    const analyze = tools.find((t) => t.name === 'analyze')!;
    expect(analyze.inputSchema.required).toEqual(['paths']);
    expect(Object.keys(analyze.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['paths', 'tz', 'year']));
  });

  it('analyze on fixtures/sample-incident gives the verdict the CLI gives, with a summary', async () => {
    const r = await call('analyze', { paths: ['sample-incident'] });
    expect(r.isError).toBeFalsy();
    const [summary, json] = texts(r);
    const mcp = JSON.parse(json!);
    const cliRun = cli(['analyze', join(FIXTURES, 'sample-incident'), '--format', 'json']);
    expect(cliRun.code).toBe(0);
    const direct = JSON.parse(cliRun.stdout);
    expect(mcp.nodes.map((n: { name: string }) => n.name)).toEqual(direct.nodes.map((n: { name: string }) => n.name));
    expect(mcp.nodes.map((n: { verdict: unknown }) => n.verdict)).toEqual(direct.nodes.map((n: { verdict: unknown }) => n.verdict));
    expect(mcp.nodes[0].findings.map((f: { ruleId: string }) => f.ruleId)).toEqual(direct.nodes[0].findings.map((f: { ruleId: string }) => f.ruleId));
    const node = direct.nodes[0];
    expect(summary).toContain(`${node.name}: PLEG unhealthy; cause ${node.verdict.primaryCause} (confidence ${node.verdict.confidence.toFixed(2)})`);
  }, 60_000);

  it('the same by absolute path', async () => {
    const r = await call('analyze', { paths: [join(FIXTURES, 'sample-incident', 'kubelet.log')], json: false });
    expect(r.isError).toBeFalsy();
    expect(r.content).toHaveLength(1);
    expect(texts(r)[0]).toContain('PLEG unhealthy');
  }, 60_000);

  it('refuses paths outside --root: absolute, with .., through a symlink; nothing there is read', async () => {
    for (const p of [join(outside, 'kubelet.log'), '../package.json', 'sample-incident/../../package.json', '/etc/passwd', join(outside, 'root', 'escape', 'kubelet.log'), join(outside, 'root', 'escape'), '-']) {
      const r = await call('analyze', { paths: [p] });
      expect(r.isError, p).toBe(true);
      expect(texts(r)[0], p).toMatch(/refused|give a file or folder under/);
      expect(texts(r).join(''), p).not.toContain('PLEG');
    }
    const r = await call('analyze', { paths: [join(outside, 'root', 'escape', 'kubelet.log')] });
    expect(texts(r)[0]).toContain('through a symlink');
    const missing = await call('analyze', { paths: ['no-such-thing'] });
    expect(missing.isError).toBe(true);
    expect(texts(missing)[0]).toContain('no such file or folder');
  }, 60_000);

  it('invalid arguments are an error result naming the problem; the server answers the next call', async () => {
    const r = await call('analyze', { paths: 'sample-incident' });
    expect(r.isError).toBe(true);
    expect(texts(r)[0]).toMatch(/Input validation error|Invalid arguments/);
    const ok = await call('rules', {});
    expect(ok.isError).toBeFalsy();
    expect(texts(ok)[0]).toContain('runtime-stuck-container');
  });

  it('a malformed request gets a JSON-RPC error, never a crash; the server answers the next call', async () => {
    // tools/call without a tool name, and a method that does not exist.
    await expect(client.request({ method: 'tools/call', params: { arguments: {} } } as never, z.object({}).passthrough())).rejects.toBeInstanceOf(McpError);
    await expect(client.request({ method: 'plegscope/nothing', params: {} } as never, z.object({}).passthrough())).rejects.toThrow(/Method not found/);
    const unknown = await call('collect', {});
    expect(unknown.isError).toBe(true);
    const ok = await call('rules', { id: 'runtime-stuck-container' });
    expect(texts(ok)[0]).toMatch(/^runtime-stuck-container — /);
    expect(stderr).toBe('');
  });

  it('rules: an unknown id is an error result', async () => {
    const r = await call('rules', { id: 'no-such-rule' });
    expect(r.isError).toBe(true);
    expect(texts(r)[0]).toContain('no rule "no-such-rule"');
  });
});

describe('plegscope mcp: usage', () => {
  it('needs --root, an existing folder (exit 2, one line, nothing on stdout)', () => {
    for (const args of [['mcp'], ['mcp', '--root', '/no/such/folder'], ['mcp', '--root', join(FIXTURES, 'README.md')], ['mcp', '--root', FIXTURES, '--prometheus-insecure']]) {
      const r = cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('plegscope mcp: bounded output', () => {
  it('cuts a text longer than --max-output and says so', async () => {
    const t = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--root', FIXTURES, '--max-output', '2000'], cwd: REPO, stderr: 'pipe' });
    const c = new Client({ name: 'plegscope-test', version: '1.0.0' });
    await c.connect(t);
    try {
      const r = (await c.callTool({ name: 'analyze', arguments: { paths: ['sample-incident'] } })) as CallResult;
      const json = r.content[1]!.text!;
      expect(json.length).toBeLessThan(2300);
      expect(json).toMatch(/… truncated: 2000 of \d+ characters shown; for all of it run "plegscope analyze sample-incident --format json -o report.json"\n$/);
      expect(r.content[0]!.text).toContain('PLEG unhealthy');
    } finally {
      await c.close();
    }
  }, 60_000);
});

describe('plegscope mcp --prometheus: the scan tool', () => {
  it('is offered, and a server it cannot reach is an error result naming it; the server goes on', async () => {
    const t = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--root', FIXTURES, '--prometheus', 'http://127.0.0.1:9'], cwd: REPO, stderr: 'pipe' });
    const c = new Client({ name: 'plegscope-test', version: '1.0.0' });
    await c.connect(t);
    try {
      const { tools } = await c.listTools();
      expect(tools.map((x) => x.name).sort()).toEqual(['analyze', 'rules', 'scan']);
      const r = (await c.callTool({ name: 'scan', arguments: { since: '1h' } })) as CallResult;
      expect(r.isError).toBe(true);
      expect(r.content[0]!.text).toContain('127.0.0.1:9');
      const bad = (await c.callTool({ name: 'scan', arguments: { since: 'last week' } })) as CallResult;
      expect(bad.isError).toBe(true);
      expect(bad.content[0]!.text).toContain('--since: "last week" is neither a duration');
      const ok = (await c.callTool({ name: 'rules', arguments: {} })) as CallResult;
      expect(ok.isError).toBeFalsy();
    } finally {
      await c.close();
    }
  }, 60_000);
});
