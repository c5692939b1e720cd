// Files as Windows saves them: UTF-8 with a byte-order mark and CRLF (Notepad, a browser download), and UTF-16LE with
// a mark (Windows PowerShell 5's `kubectl logs … > kubelet.log`). plegscope reads them as the same lines: the same
// answer, the same evidence (file, line number, text), and count checks that find the same numbers.
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

/** The sample with every file re-encoded by `enc`, in a folder of its own (same file names). */
function reencoded(name: string, enc: (text: string) => Buffer): string {
  const d = join(tmp, name);
  mkdirSync(d);
  for (const f of readdirSync(SAMPLE)) writeFileSync(join(d, f), enc(readFileSync(join(SAMPLE, f), 'utf8')));
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

describe('files saved on Windows', () => {
  const plain = analysisOf(SAMPLE);

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
