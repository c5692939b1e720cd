// Files as they reach a ticket. Saved on Windows: UTF-8 with a byte-order mark and CRLF (Notepad, a browser download),
// UTF-16LE with a mark (Windows PowerShell 5's `kubectl logs … > kubelet.log`); and the output of `grep -n` or `cat -n`
// over a log. plegscope reads them as the same lines: the same answer, the same evidence (file, line number, text),
// and count checks that find the same numbers.
import { execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Analysis } from '../src/contract/analysis.js';
import { cli } from './helpers/cli.js';

const SAMPLE = join(__dirname, '..', 'fixtures', 'sample-incident');
const tmp = mkdtempSync(join(tmpdir(), 'plegscope-encodings-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The sample with every file (or every log, `logsOnly`) re-encoded by `enc`, in a folder of its own (same names). */
function reencoded(name: string, enc: (text: string) => Buffer, logsOnly = false): string {
  const d = join(tmp, name);
  mkdirSync(d);
  for (const f of readdirSync(SAMPLE)) {
    const text = readFileSync(join(SAMPLE, f), 'utf8');
    writeFileSync(join(d, f), logsOnly && f.startsWith('metrics') ? text : enc(text));
  }
  return d;
}

function analysisOf(dir: string): Analysis {
  const r = cli(['analyze', dir, '--format', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Analysis;
}

/** What must not change with the encoding: the nodes, their stalls and findings with their evidence (the commands that
 *  check counts name a tool by encoding, so they are compared by what they find, below). */
function answer(a: Analysis): unknown {
  return a.nodes.map((n) => ({ ...n, findings: n.findings.map((f) => ({ ...f, checks: f.checks?.map((c) => ({ ...c, grep: '' })) })) }));
}

const crlf = (t: string): string => t.replace(/\r?\n/g, '\r\n');

const plain = analysisOf(SAMPLE);

describe('files saved on Windows', () => {
  it('UTF-8 with a byte-order mark and CRLF: the same answer and evidence', () => {
    const dir = reencoded('bom-crlf', (t) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(crlf(t), 'utf8')]));
    const a = analysisOf(dir);
    expect(a.nodes[0]!.verdict.plegUnhealthy).toBe(true);
    expect(answer(a)).toEqual(answer(plain));
  });

  it('UTF-16LE (PowerShell `>`): read, not refused as binary; the same answer; its count checks go through iconv and agree', () => {
    const dir = reencoded('utf16', (t) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(crlf(t), 'utf16le')]));
    const a = analysisOf(dir);
    expect(a.warnings.map((w) => w.message).join('\n')).not.toMatch(/binary/);
    expect(answer(a)).toEqual(answer(plain));
    const checks = a.nodes.flatMap((n) => n.findings.flatMap((f) => f.checks ?? []));
    expect(checks.length).toBeGreaterThan(0);
    for (const c of checks) {
      expect(c.grep).toMatch(/^iconv -f UTF-16LE -t UTF-8 /);
      const got = execSync(`${c.grep} || true`, { cwd: dir, encoding: 'utf8', shell: '/bin/sh' }).trim();
      expect(Number(got), c.grep).toBe(c.total);
    }
  });

  it('UTF-16 without a mark, and big-endian with one, read the same', () => {
    const le = reencoded('utf16-nomark', (t) => Buffer.from(t, 'utf16le'));
    const be = reencoded('utf16be', (t) => {
      const b = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(t, 'utf16le')]);
      return b.swap16();
    });
    expect(answer(analysisOf(le))).toEqual(answer(plain));
    expect(answer(analysisOf(be))).toEqual(answer(plain));
  });
});

describe('grep and cat -n output', () => {
  /** The answer, and where each piece of evidence is (its text differs by the prefix, and is checked apart). */
  const where = (a: Analysis): unknown => JSON.parse(JSON.stringify(a.nodes.map((n) => ({
    name: n.name, verdict: n.verdict, stalls: n.stalls, operations: n.operations,
    findings: n.findings.map((f) => ({ ruleId: f.ruleId, confidence: f.confidence, evidence: f.evidence })),
  })), (k, v: unknown) => (k === 'text' ? undefined : v)));

  it('every log of the sample through `grep -n \'\'` or `cat -n`: recognised, and the same answer from the same lines', () => {
    const grepN = reencoded('grep-n', (t) => Buffer.from(t.split('\n').map((l, i) => (i === t.split('\n').length - 1 && l === '' ? '' : `${i + 1}:${l}`)).join('\n')), true);
    const catN = reencoded('cat-n', (t) => Buffer.from(t.split('\n').map((l, i) => `${String(i + 1).padStart(6)}\t${l}`).join('\n')), true);
    for (const dir of [grepN, catN]) {
      const a = analysisOf(dir);
      const roles = (x: Analysis) => x.inputs.flatMap((i) => i.artifacts.map((f) => `${f.path} ${f.role}`)).sort();
      expect(roles(a)).toEqual(roles(plain));
      expect(where(a)).toEqual(where(plain));
      for (const f of a.nodes.flatMap((n) => n.findings)) for (const e of f.evidence) {
        if (e.line !== undefined) expect(readFileSync(join(dir, e.file!), 'utf8').split('\n')[e.line - 1]).toBe(e.text);
      }
    }
  });
});

describe('log tools', () => {
  it('Loki logcli output (labels before each line, newest first): recognised, the stall and its host found', () => {
    const lines = readFileSync(join(SAMPLE, 'kubelet.log'), 'utf8').trimEnd().split('\n')
      .map((l) => /^(\w{3} \d\d \d\d:\d\d:\d\d) (\S+) kubelet\[\d+\]: (.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => `2024-${String(['Jan', 'Feb', 'Mar'].indexOf(m[1]!.slice(0, 3)) + 1).padStart(2, '0')}-${m[1]!.slice(4, 6)}T${m[1]!.slice(7)}Z {host="${m[2]}", job="systemd-journal", unit="kubelet.service"} ${m[3]}`)
      .reverse();
    const dir = join(tmp, 'loki');
    mkdirSync(dir);
    writeFileSync(join(dir, 'logcli.txt'), lines.join('\n') + '\n');
    const a = analysisOf(dir);
    const n = a.nodes.find((x) => x.name === plain.nodes[0]!.name)!;
    expect(n.verdict.plegUnhealthy).toBe(true);
    expect(n.stalls.map((s) => [s.lastRelistAt, s.unhealthyFrom])).toEqual(plain.nodes[0]!.stalls.map((s) => [s.lastRelistAt, s.unhealthyFrom]));
  });

  it('`journalctl -o short-monotonic` and `aws logs tail`: kubelet logs, their stall found on the node they name', () => {
    const msg = (age: string) => `E0311 10:04:12.000150    2211 kubelet.go:2412] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active ${age} ago; threshold is 3m0s"`;
    const cases: Record<string, [string, string]> = {
      mono: [`[ 5123.456789] worker-7 kubelet[2211]: ${msg('3m12s')}\n[ 5128.456789] worker-7 kubelet[2211]: ${msg('3m17s')}\n`, 'worker-7'],
      aws: [`2024-03-11T10:04:12.000000+00:00 i-0abc123/kubelet ${msg('3m12s')}\n2024-03-11T10:04:17.000000+00:00 i-0abc123/kubelet ${msg('3m17s')}\n`, 'i-0abc123'],
    };
    for (const [name, [text, node]] of Object.entries(cases)) {
      const dir = join(tmp, name);
      mkdirSync(dir);
      writeFileSync(join(dir, 'kubelet.txt'), text);
      const a = analysisOf(dir);
      expect(a.inputs[0]!.artifacts.map((f) => f.role), name).toEqual(['kubelet-log']);
      expect(a.nodes.map((n) => [n.name, n.verdict.plegUnhealthy, n.stalls.length]), name).toEqual([[node, true, 1]]);
    }
  });
});
