// Hard-wrapped pastes (src/sources/files/fold.ts): the sample incident's kubelet log wrapped at 80, 132 and its own width gives
// the sample's analysis, each record cited at its first physical line; a file that is not wrapped is never joined.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Analysis } from '../../src/contract/analysis.js';
import { collect } from '../../src/sources/files/entry-stream.js';
import { foldHead, foldLines, startsRecord, wrapWidth } from '../../src/sources/files/fold.js';
import { sniff } from '../../src/sources/files/sniff.js';
import { BIN } from '../helpers/cli.js';
import { wrap } from '../helpers/wrap.js';

const SAMPLE = join(__dirname, '..', '..', 'fixtures', 'sample-incident');
const KUBELET = readFileSync(join(SAMPLE, 'kubelet.log'), 'utf8');

async function folded(text: string, width: number, chunk = 7): Promise<{ out: string; joined: number }> {
  const b = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let i = 0; i < b.length; i += chunk) chunks.push(b.subarray(i, i + chunk));
  const f = foldLines(Readable.from(chunks), width);
  const out = (await collect(f.stream, 1 << 30)).data.toString('utf8');
  return { out, joined: f.joined() };
}

const KLOG = 'E0311 10:04:12.000150    2817 remote_runtime.go:294] "ListPodSandbox with filter from runtime service failed" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded" filter="nil"';

describe('fold: the width and the joins', () => {
  it('finds the width of a paste wrapped at 80, 120, 132 or its own longest lines; none in a file that is not wrapped', () => {
    for (const w of [80, 120, 132, 97]) expect(wrapWidth(Buffer.from(wrap(KUBELET, w).slice(0, 64 * 1024))), String(w)).toBe(w);
    expect(wrapWidth(Buffer.from(KUBELET.slice(0, 64 * 1024)))).toBeNull();
    // One record pasted alone, wrapped at a usual width.
    expect(wrapWidth(Buffer.from(`${wrap(KLOG, 80)}\n`))).toBe(80);
    expect(wrapWidth(Buffer.from(`${wrap(KLOG, 97)}\n`))).toBeNull();
    // Lines cut short (not wrapped) at 80: each full one is followed by a record of its own.
    const cut = KUBELET.split('\n').map((l) => l.slice(0, 80)).join('\n');
    expect(wrapWidth(Buffer.from(cut.slice(0, 64 * 1024)))).toBeNull();
    // Bare messages of every length up to 80 (none starts a record): no spike at the longest length.
    const bare = KUBELET.split('\n').map((l, i) => l.replace(/^.*?\]: /, '').slice(0, 20 + (i * 37) % 61)).join('\n');
    expect(wrapWidth(Buffer.from(bare.slice(0, 64 * 1024)))).toBeNull();
    // A table whose rows are padded to one width (`kubectl get pods -o wide` pasted): no wrap ends in a shorter line.
    const table = Array.from({ length: 40 }, (_, i) => `web-${String(i).padEnd(10)} 1/1     Running   ${String(i % 4).padEnd(3)} 5d    10.0.0.${String(i).padEnd(3)} worker-3`.padEnd(80, ' ')).join('\n');
    expect(wrapWidth(Buffer.from(`${table}\n`))).toBeNull();
  });

  it('a wrapped head is sniffed folded when nothing placed it as it is', () => {
    const head = Buffer.from(wrap(KUBELET.split('\n').filter((l) => l.includes('remote_runtime.go')).slice(0, 12).join('\n'), 80));
    expect(sniff(foldHead(head), 'paste.txt').role).toBe('kubelet-log');
  });

  it('what can start a record', () => {
    for (const s of ['Mar 11 10:04:12 worker-3 kubelet[2817]: x', KLOG, '2024-03-11T10:04:12.000150Z stderr F x', '[ 4711.123456] x', '-- Boot 1 --', '{"MESSAGE":"x"}', '\tgoroutine frame', 'time="2024-03-11T10:04:12Z" level=error']) expect(startsRecord(s), s).toBe(true);
    for (const s of ['m runtime service failed" err="rpc', 'Exceeded desc = context deadline exceeded"', '9e-134daf5547f9"', ' filter="nil"']) expect(startsRecord(s), s).toBe(false);
  });

  it('joins a klog line wrapped mid-err="…", keeps every byte offset and the line numbers after it', async () => {
    const text = `${wrap(KLOG, 80)}\nE0311 10:04:14.000163    2817 generic.go:205] "GenericPLEG: Unable to retrieve pods" err="x"\n`;
    // The wrap fell inside the err value.
    expect(text.split('\n')[1]).toBe(' from runtime service failed" err="rpc error: code = DeadlineExceeded desc = con');
    const { out, joined } = await folded(text, 80);
    expect(joined).toBe(2);
    expect(Buffer.byteLength(out)).toBe(Buffer.byteLength(text));
    const lines = out.split('\n');
    expect(lines.slice(0, 4)).toEqual([KLOG, '', '', 'E0311 10:04:14.000163    2817 generic.go:205] "GenericPLEG: Unable to retrieve pods" err="x"']);
    // CRLF, and a record joined at the very end: its terminators become padding, so the last line is the record.
    const crlf = `${wrap(KLOG, 80).replace(/\n/g, '\r\n')}\r\n`;
    const end = await folded(crlf, 80, 3);
    expect(end.out).toBe(`${KLOG}    \r\n`);
  });

  it('a file that is not wrapped passes through unchanged, as does a run of full lines past the join bound', async () => {
    const cut = KUBELET.split('\n').map((l) => l.slice(0, 80)).join('\n');
    expect((await folded(cut, 80, 4096)).out).toBe(cut);
    const hostile = `${'x'.repeat(80)}\n`.repeat(2000);
    const f = await folded(hostile, 80, 65536);
    expect(Buffer.byteLength(f.out)).toBe(hostile.length);
    expect(Math.max(...f.out.split('\n').map((l) => l.length))).toBeLessThanOrEqual(64 * 1024);
  });
});

describe('fold: the sample incident pasted hard-wrapped', () => {
  let dir: string;
  let sample: Analysis;
  const run = (p: string): Analysis => {
    const r = spawnSync(process.execPath, [BIN, 'analyze', p, '--format', 'json'], { encoding: 'utf8', maxBuffer: 64 << 20 });
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as Analysis;
  };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'plegscope-fold-'));
    sample = run(SAMPLE);
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const width of [80, 132, 97]) {
    it(`wrapped at ${width}: the sample's verdict, stalls, findings and counts; refs at each record's first line`, () => {
      const folder = join(dir, `w${width}`);
      mkdirSync(folder);
      const text = wrap(KUBELET, width);
      writeFileSync(join(folder, 'kubelet.log'), text);
      for (const f of ['containerd.log', 'dmesg.txt', 'metrics-20240311T101000Z.txt', 'metrics-20240311T102000Z.txt']) copyFileSync(join(SAMPLE, f), join(folder, f));
      const a = run(folder);
      const [want, got] = [sample.nodes[0], a.nodes[0]];
      expect(got?.verdict).toEqual(want?.verdict);
      expect(got?.stalls.map((s) => [s.unhealthyFrom, s.endedAt])).toEqual(want?.stalls.map((s) => [s.unhealthyFrom, s.endedAt]));
      expect(got?.window).toEqual(want?.window);
      expect(got?.findings.map((f) => [f.ruleId, f.confidence, (f.checks ?? []).map((c) => c.total)])).toEqual(want?.findings.map((f) => [f.ruleId, f.confidence, (f.checks ?? []).map((c) => c.total)]));
      // Every piece after a record's first is joined, but one that could start a record itself (an embedded `{…}`).
      const pieces = (l: string) => Array.from({ length: Math.ceil(l.length / width) - 1 }, (_, i) => l.slice((i + 1) * width, (i + 2) * width));
      const physical = KUBELET.split('\n').flatMap(pieces).filter((p) => !startsRecord(p)).length;
      expect(a.warnings).toEqual([{ file: 'kubelet.log', path: expect.stringMatching(/kubelet\.log$/), line: null, message: `hard-wrapped at ${width} columns: ${physical} lines joined to the line they continue (evidence cites each record's first line)` }]);
      // Each ref is the record's first physical line, and its text the whole record (the sample's own line).
      const lines = text.split('\n');
      const original = new Set(KUBELET.split('\n'));
      const refs = (got?.findings ?? []).flatMap((f) => f.evidence).filter((e) => e.file === 'kubelet.log');
      expect(refs.length).toBeGreaterThan(3);
      for (const e of refs) {
        expect(e.text.startsWith(lines[(e.line ?? 0) - 1] as string), `line ${e.line}`).toBe(true);
        expect(original.has(e.text.trimEnd()), e.text).toBe(true);
      }
    }, 60_000);
  }
});
