// Reading lines back lazily: the line reader (blocks between the scanner's checkpoints, plain and compressed files)
// and the merged, time-ordered log the Log view walks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync, mkdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../src/analyze.js';
import { countingStream, LineReader, MAX_VIEW_LINE_BYTES } from '../../src/sources/files/line-reader.js';
import { Readable } from 'node:stream';
import { buildModel, type NodeData } from '../../src/tui/model.js';
import { cmpKey, keyOf, MergedLog, ScanAborted, type LogLine } from '../../src/tui/logs.js';
import { at, jl, kl } from '../helpers/scenario.js';

let dir: string;
const nodes = new Map<string, NodeData>();

/** kubelet: a line every 2 s from 09:00 for ~3.5 h (6000 lines), with odd lines in it; containerd: every 7 s. */
function kubelet(): string {
  const ls: string[] = [];
  for (let i = 0; i < 6000; i++) {
    const t = at('09:00:00') + i * 2000;
    if (i === 100) ls.push(kl(t, 'I', 'prober.go:107', `"Probe output" output="${'x'.repeat(10_000)}"`));
    else if (i === 200) ls.push(kl(t, 'I', 'prober.go:107', '"windows line"') + '\r');
    else if (i % 500 === 7) ls.push(kl(t, 'E', 'remote_runtime.go:294', `"ListPodSandbox with filter from runtime service failed" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded" n=${i}`));
    else ls.push(kl(t, 'I', 'kubelet_getters.go:187', `"Pod status updated" seq=${i}`));
  }
  return ls.join('\n');
}

function containerd(): string {
  const ls: string[] = [];
  for (let i = 0; i < 1800; i++) ls.push(jl(at('09:00:01') + i * 7000, 'containerd[1021]', `time="2024-03-11T09:00:00Z" level=${i % 300 === 5 ? 'error' : 'info'} msg="tick" seq=${i}`));
  return ls.join('\n') + '\n';
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plegscope-logs-'));
  mkdirSync(join(dir, 'plain'));
  mkdirSync(join(dir, 'gz'));
  writeFileSync(join(dir, 'plain', 'kubelet.log'), kubelet());
  writeFileSync(join(dir, 'plain', 'containerd.log'), containerd());
  writeFileSync(join(dir, 'gz', 'kubelet.log.gz'), gzipSync(kubelet().replaceAll('worker-3', 'worker-9')));
  for (const sub of ['plain', 'gz']) {
    const run = await analyze({ paths: [join(dir, sub)], year: 2024, tz: 'UTC', workers: 0 });
    const m = buildModel(run, { zone: 'UTC', color: false });
    for (const n of m.nodes) nodes.set(n.report.name, n);
  }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('LineReader', () => {
  it('grows by the whole lines appended to a plain file (follow): a line under way waits for its newline', async () => {
    const sub = join(dir, 'growing');
    mkdirSync(sub);
    const file = join(sub, 'kubelet.log');
    const line = (i: number) => kl(at('09:00:00') + i * 1000, 'I', 'kubelet.go:2400', `"tick" n=${i}`, { host: 'worker-7' });
    // No newline at the end: the appended bytes up to the next newline finish that line.
    writeFileSync(file, [0, 1, 2].map(line).join('\n'));
    const run = await analyze({ paths: [sub], year: 2024, tz: 'UTC', workers: 0 });
    const src = buildModel(run, { zone: 'UTC', color: false }).nodes[0]!.sources[0]!;
    const reader = new LineReader(src.artifact, src.index);
    expect(reader.lines).toBe(3);
    expect(await reader.grow()).toBe(0);
    appendFileSync(file, ` more\n${line(3)}\n${line(4)}\n${line(5).slice(0, 20)}`);
    expect(await reader.grow()).toBe(2);
    appendFileSync(file, `${line(5).slice(20)}\n`);
    expect(await reader.grow()).toBe(1);
    expect(reader.lines).toBe(6);
    const got: string[] = [];
    for (let k = 0; k < reader.blocks; k++) got.push(...(await reader.readBlock(k)).map((l) => l.text));
    expect(got).toEqual([line(0), line(1), `${line(2)} more`, line(3), line(4), line(5)]);
    const merged = new MergedLog([src]);
    expect(await merged.grow()).toBe(true);
    expect((await merged.window('end', 1, 0)).before[0]?.text).toBe(line(5));
    reader.close();
    merged.close();
  });

  it('reads every block of a plain file exactly as the file has it (long lines cut, \\r dropped)', async () => {
    const src = nodes.get('worker-3')!.sources.find((s) => s.role === 'kubelet-log')!;
    const reader = new LineReader(src.artifact, src.index);
    expect(reader.seekable).toBe(true);
    expect(reader.blocks).toBeGreaterThanOrEqual(5);
    const want = readFileSync(join(dir, 'plain', 'kubelet.log'), 'utf8').split('\n');
    const got: string[] = [];
    for (let k = reader.blocks - 1; k >= 0; k--) got.unshift(...(await reader.readBlock(k)).map((l) => l.text));
    expect(got).toHaveLength(6000);
    for (let i = 0; i < 6000; i++) {
      const w = (want[i] as string).replace(/\r$/, '');
      if (i === 100) {
        expect(got[i]).toBe(w.slice(0, MAX_VIEW_LINE_BYTES));
      } else expect(got[i]).toBe(w);
    }
    const block = await reader.readBlock(reader.blockOf(101));
    expect(block.find((l) => l.lineNo === 101)?.cut).toBe(true);
    expect(block.find((l) => l.lineNo === 102)?.cut).toBe(false);
    reader.close();
  });

  it('reads a compressed file forward, re-opening it to go back', async () => {
    const src = nodes.get('worker-9')!.sources[0]!;
    const reader = new LineReader(src.artifact, src.index);
    expect(reader.seekable).toBe(false);
    const last = await reader.readBlock(reader.blocks - 1);
    expect(last.at(-1)?.lineNo).toBe(6000);
    expect(last.at(-1)?.text).toContain('seq=5999');
    const first = await reader.readBlock(0);
    expect(first[0]?.lineNo).toBe(1);
    const two = await reader.readBlocks(1, 2);
    expect(two[0]?.[0]?.lineNo).toBe(reader.span(1).firstLine);
    expect(two[1]?.at(-1)?.lineNo).toBe(reader.span(2).firstLine + reader.span(2).count - 1);
    reader.close();
  });
});

describe('MergedLog', () => {
  it('merges the node\'s files by time, from the start and around any line', async () => {
    const n = nodes.get('worker-3')!;
    expect(n.sources.map((s) => s.tag)).toEqual(['K', 'R']);
    const log = new MergedLog(n.sources);
    const w = await log.window('start', 0, 50);
    expect(w.after).toHaveLength(50);
    for (let i = 1; i < w.after.length; i++) expect(cmpKey(w.after[i - 1]!, w.after[i]!)).toBeLessThan(0);
    expect(new Set(w.after.map((l) => l.src))).toEqual(new Set([0, 1]));
    // Around a line deep in the file (after several block boundaries), both directions.
    const target = (await log.line(0, 4321))!;
    expect(target.text).toContain('seq=4320');
    const around = await log.window(keyOf(target), 30, 30);
    expect(around.after[0]).toEqual(target);
    expect(around.before).toHaveLength(30);
    for (let i = 1; i < around.before.length; i++) expect(cmpKey(around.before[i]!, around.before[i - 1]!)).toBeLessThan(0);
    expect(around.before.some((l) => l.src === 1)).toBe(true);
    const end = await log.window('end', 3, 0);
    // The runtime log runs 10 minutes longer than the kubelet's.
    expect(end.before.map((l) => l.text.replace(/.*seq=/, ''))).toEqual(['1799', '1798', '1797']);
    const lastKubelet = (await log.find({ ts: Infinity, src: Infinity, lineNo: Infinity }, -1, { line: (l: LogLine) => l.src === 0 }))!;
    expect(lastKubelet.text).toMatch(/seq=5999"?$/);
    log.close();
  });

  it('finds the next and previous matching line across blocks and files, and jumps to a time', async () => {
    const log = new MergedLog(nodes.get('worker-3')!.sources);
    const start = (await log.line(0, 1))!;
    const hit = (await log.find(keyOf(start), 1, { raw: (t) => t.includes('DeadlineExceeded') }))!;
    expect(hit.lineNo).toBe(8);
    const next = (await log.find(keyOf(hit), 1, { raw: (t) => t.includes('DeadlineExceeded') }))!;
    expect(next.text).toContain('n=507');
    const back = (await log.find(keyOf(next), -1, { raw: (t) => t.includes('DeadlineExceeded') }))!;
    expect(back.lineNo).toBe(8);
    const err = (await log.find(keyOf(hit), 1, { line: (l: LogLine) => l.level === 'E' && l.src === 1 }))!;
    expect(err.text).toMatch(/level=error msg="tick" seq=5$/);
    expect(await log.find(keyOf(next), 1, { raw: (t) => t.includes('no such text') })).toBeNull();
    const t = (await log.atTime(at('10:00:00')))!;
    expect(t.ts).toBe(at('10:00:00'));
    log.close();
  });

  it('gives compressed files the same lines as plain ones', async () => {
    const gz = new MergedLog(nodes.get('worker-9')!.sources);
    const plain = new MergedLog(nodes.get('worker-3')!.sources.filter((s) => s.role === 'kubelet-log'));
    const a = await gz.window({ ts: at('11:00:00'), src: -1, lineNo: -1 }, 20, 20);
    const b = await plain.window({ ts: at('11:00:00'), src: -1, lineNo: -1 }, 20, 20);
    const strip = (l: LogLine) => [l.lineNo, l.ts, l.text.replace('worker-9', 'worker-3')];
    expect(a.after.map(strip)).toEqual(b.after.map(strip));
    expect(a.before.map(strip)).toEqual(b.before.map(strip));
    gz.close();
    plain.close();
  });

  it('stops a scan when its signal fires', async () => {
    const log = new MergedLog(nodes.get('worker-3')!.sources);
    const first = (await log.line(0, 1))!;
    const ac = new AbortController();
    let seen = 0;
    const p = log.find(keyOf(first), 1, { raw: () => false }, { signal: ac.signal, onProgress: (b) => { seen = b; if (b > 0) ac.abort(); } });
    await expect(p).rejects.toBeInstanceOf(ScanAborted);
    expect(seen).toBeGreaterThan(0);
    log.close();
  });
});

describe('what the analysis hands the TUI', () => {
  it('reports bytes and lines while reading, and a line index per log', async () => {
    const seen: Array<{ path: string; bytes: number; lines: number }> = [];
    const run = await analyze({ paths: [join(dir, 'plain')], year: 2024, tz: 'UTC', workers: 0, onRead: ({ artifact, bytes, lines }) => seen.push({ path: artifact.path, bytes, lines }) });
    const last = (p: string) => seen.filter((x) => x.path === p).at(-1);
    const size = readFileSync(join(dir, 'plain', 'kubelet.log')).length;
    expect(last('kubelet.log')).toEqual({ path: 'kubelet.log', bytes: size, lines: 5999 });
    const ix = [...run.views!.logs.values()].find((l) => run.artifacts[l.artifact]?.path === 'kubelet.log')!;
    expect(ix.lines).toBe(6000);
    expect(ix.bytes).toBe(size);
    expect(ix.checkpoints[0]).toEqual([1, 0]);
    expect(ix.checkpoints.length).toBeGreaterThanOrEqual(5);
    expect(ix.firstMs).toBe(at('09:00:00'));
    expect(ix.lastMs).toBe(at('09:00:00') + 5999 * 2000);
    expect(run.views!.nodes.get('worker-3')?.criErrors.filter((e) => e.op === 'list_podsandbox')).toHaveLength(12);
  });

  it('passes a read error on to the reader of the counted stream', async () => {
    const src = new Readable({ read() {} });
    const counted = countingStream(src, () => undefined);
    src.push(Buffer.from('a\nb\n'));
    setTimeout(() => src.destroy(new Error('truncated gzip stream')), 5);
    const got: Buffer[] = [];
    await expect((async () => {
      for await (const c of counted) got.push(c as Buffer);
    })()).rejects.toThrow('truncated gzip stream');
    expect(Buffer.concat(got).toString()).toBe('a\nb\n');
  });
});
