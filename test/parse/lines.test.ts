import { describe, expect, it } from 'vitest';
import { CHECKPOINT_EVERY, LineScanner } from '../../src/parse/lines.js';
import { MatchList, MultiSearch } from '../../src/parse/multisearch.js';

function scan(text: string, needles: string[] | null, chunk: number, maxLineBytes?: number) {
  const seen: Array<[number, number, string]> = [];
  const sc = new LineScanner({ line: (t, n, off) => seen.push([n, off, t]) }, { prefilter: needles ? new MultiSearch(needles) : null, headLines: 2, maxLineBytes });
  const buf = Buffer.from(text);
  for (let i = 0; i < buf.length; i += chunk) sc.push(buf.subarray(i, i + chunk));
  return { seen, res: sc.finish() };
}

describe('LineScanner', () => {
  const lines = Array.from({ length: 3000 }, (_, i) => (i % 700 === 5 ? `line ${i} PLEG is not healthy` : i === 2500 ? `-- Reboot --` : `line ${i} ordinary kubelet chatter ünïcode`));
  const text = lines.join('\n') + '\n';

  for (const chunk of [7, 100, 4096, 1 << 20]) {
    it(`visits head lines, needle lines and markers with right numbers and byte offsets (chunk ${chunk})`, () => {
      const { seen, res } = scan(text, ['PLEG is not healthy'], chunk);
      expect(res.lines).toBe(3000);
      const want = lines.map((l, i) => [i + 1, l] as const).filter(([n, l]) => n <= 2 || l.includes('PLEG') || l.startsWith('-- '));
      expect(seen.map(([n, , t]) => [n, t])).toEqual(want.map(([n, l]) => [n, l]));
      for (const [n, off] of seen) expect(Buffer.from(text).subarray(off).toString('utf8').startsWith(lines[n - 1]!)).toBe(true);
      expect(res.lastLine?.text).toBe(lines[2999]);
      expect(res.checkpoints.length).toBe(1 + Math.floor(3000 / CHECKPOINT_EVERY));
      for (const [n, off] of res.checkpoints) expect(Buffer.from(text).subarray(off).toString('utf8').startsWith(lines[n - 1]!)).toBe(true);
    });
  }

  it('without a prefilter every line is visited; CRLF and a missing final newline are handled', () => {
    const { seen, res } = scan('a\r\nb\r\nc', null, 3);
    expect(seen.map((x) => x[2])).toEqual(['a', 'b', 'c']);
    expect(res.lines).toBe(3);
  });

  it('an over-long line is cut, counted and does not break the lines after it', () => {
    const big = 'x'.repeat(5000) + ' PLEG is not healthy';
    const { seen, res } = scan(`one\ntwo\n${big}\nfour PLEG is not healthy\n`, ['PLEG is not healthy'], 512, 1000);
    expect(res.longLineCount).toBe(1);
    expect(res.longLines).toEqual([3]);
    expect(seen.map((x) => x[0])).toEqual([1, 2, 4]);
    expect(res.lines).toBe(4);
  });
});

describe('LineScanner: the kernel\'s line count agrees with a plain one', () => {
  // Random text: empty lines (many newlines per 16 bytes: checkpoints inside a block), journal markers, over-long lines,
  // needles, CRLF. With the prefilter (the kernel's line count) and without (every line visited), whatever the chunks
  // (one larger than the kernel's window, pieces of 7 bytes): the same line count, checkpoints, long lines, last line,
  // and the lines that matter visited with the same number, offset and text.
  let seed = 11;
  const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
  const parts: string[] = [];
  let size = 0;
  while (size < 2_600_000) {
    const r = rnd(100);
    const line = r < 20 ? '' : r < 23 ? '-- Reboot --' : r < 24 ? 'y'.repeat(3000 + rnd(3000)) + (rnd(2) ? ' PLEG is not healthy' : '') : r < 27 ? `x ${rnd(1e6)} PLEG is not healthy ünï` : `line ${rnd(1e9)} chatter`.repeat(1 + rnd(4)) + (rnd(10) === 0 ? '\r' : '');
    parts.push(line);
    size += line.length + 1;
  }
  const buf = Buffer.from(parts.join('\n') + '\nlast line without newline');
  const run = (needles: string[] | null, chunks: number[]) => {
    const seen: string[] = [];
    const sc = new LineScanner({ line: (t, n, off, _b, _f, _t, sampled) => seen.push(`${n}:${off}:${sampled}:${t}`) }, { prefilter: needles ? new MultiSearch(needles) : null, headLines: 5, sampleBytes: 50_000, maxLineBytes: 4096 });
    for (let i = 0, k = 0; i < buf.length; i += chunks[k++ % chunks.length]!) sc.push(buf.subarray(i, i + chunks[k % chunks.length]!));
    return { seen, res: sc.finish() };
  };
  const plain = run(null, [1 << 20]);
  const matters = (v: string) => {
    const [n, , sampled, ...rest] = v.split(':');
    const t = rest.join(':');
    return Number(n) <= 5 || sampled === 'true' || t.startsWith('-- ') || t.slice(0, 4096).includes('PLEG is not healthy');
  };
  for (const chunks of [[3 << 20], [65_536, 7, 1 << 20], [1_000_003]]) {
    it(`chunks of ${chunks.join(', ')} bytes`, () => {
      const fast = run(['PLEG is not healthy'], chunks);
      expect(fast.res.lines).toBe(plain.res.lines);
      expect(fast.res.checkpoints).toEqual(plain.res.checkpoints);
      expect(fast.res.longLineCount).toBe(plain.res.longLineCount);
      expect(fast.res.longLines).toEqual(plain.res.longLines);
      expect(fast.res.lastLine).toEqual(plain.res.lastLine);
      expect(fast.seen.filter(matters)).toEqual(plain.seen.filter(matters));
    });
  }
});

describe('LineScanner: samples by file position, head hook, kept tail', () => {
  const lines = Array.from({ length: 5000 }, (_, i) => `line ${String(i).padStart(5, '0')} ordinary chatter`);
  const text = lines.join('\n') + '\n';
  const buf = Buffer.from(text);

  function run(chunk: number) {
    const sampled: number[] = [];
    const tail: Array<[string, number]> = [];
    let headAt = -1;
    const sc: LineScanner = new LineScanner({
      line: (_t, _n, off, _b, _f, _to, s) => {
        if (s) sampled.push(off);
      },
      headDone: () => {
        headAt = sampled.length;
        sc.setSampleBytes(4096);
        sc.keepTail(10_000);
      },
    }, { prefilter: new MultiSearch(['NEVER-IN-THIS-TEXT']), headLines: 3, sampleBytes: 20_000 });
    for (let i = 0; i < buf.length; i += chunk) sc.push(buf.subarray(i, i + chunk));
    sc.finish();
    sc.tailLines((t, off) => tail.push([t, off]));
    return { sampled, tail, headAt };
  }

  it('the sampled lines are the ones holding each multiple of the sample size, whatever the chunks', () => {
    const a = run(7);
    const b = run(65_536);
    expect(b.sampled).toEqual(a.sampled);
    // Before the head ended, the line holding byte 0; after it, exactly the lines holding each multiple of 4096.
    expect(a.sampled.slice(0, a.headAt)).toEqual([0]);
    const headEnd = lines.slice(0, 3).join('\n').length + 1;
    const want: number[] = [];
    for (let m = Math.ceil(headEnd / 4096) * 4096; m < buf.length; m += 4096) want.push(buf.lastIndexOf(10, m - 1) + 1);
    expect(a.sampled.slice(a.headAt)).toEqual(want);
  });

  it('the tail gives every whole line of the last bytes kept, with their offsets', () => {
    const { tail } = run(1000);
    expect(run(65_536).tail).toEqual(tail);
    expect(tail.at(-1)).toEqual([lines[4999], buf.length - lines[4999]!.length - 1]);
    for (const [t, off] of tail) expect(buf.toString('utf8', off, off + t.length)).toBe(t);
    const n = tail.length;
    expect(tail.map(([t]) => t)).toEqual(lines.slice(5000 - n));
    expect(n * 28).toBeGreaterThanOrEqual(10_000 - 28);
  });
});

describe('MultiSearch', () => {
  const all = (ms: MultiSearch, t: Uint8Array, from = 0, end = t.length) => {
    const out = new MatchList();
    ms.findAll(t, from, end, out);
    return Array.from({ length: out.length }, (_, k) => [out.starts[k], ms.needles[out.needles[k]!]] as const);
  };

  it('finds every needle of many, short ones and overlapping ones too, in order, and says which', () => {
    const ms = new MultiSearch(['from runtime service failed', 'SyncLoop (PLEG)', 'oom', 'Kubelet version', 'network plugin', 'network plugin is not ready']);
    const t = Buffer.from('xx Kubelet version yy SyncLoop (PLEG) zz oom from runtime service failed; network plugin is not ready');
    expect(all(ms, t)).toEqual([
      [3, 'Kubelet version'], [22, 'SyncLoop (PLEG)'], [41, 'oom'], [45, 'from runtime service failed'], [74, 'network plugin'], [74, 'network plugin is not ready'],
    ]);
    expect(all(ms, t, 0, 10)).toEqual([]);
    // Only occurrences wholly inside [from, end).
    expect(all(ms, t, 4, 100)).toEqual([[22, 'SyncLoop (PLEG)'], [41, 'oom'], [45, 'from runtime service failed'], [74, 'network plugin']]);
  });

  it('thousands of needles sharing their first bytes (a rule pack): the same matches as a naive search, in linear time', () => {
    const needles = ['Kubelet version', ...Array.from({ length: 3000 }, (_, i) => `literalneedle${i}zz`), 'literalneedle7', 'literal'];
    const ms = new MultiSearch(needles);
    const line = 'a literalneedle7zz b literalneedle2999zz c literalneedle77 literalneedl d literal Kubelet version literalneedle12zz\n';
    const t = Buffer.from(line.repeat(20_000));
    const want: Array<readonly [number, string]> = [];
    const one = Buffer.from(line);
    for (const n of ms.needles) for (let at = one.indexOf(n); at >= 0; at = one.indexOf(n, at + 1)) want.push([at, n]);
    want.sort((a, b) => a[0] - b[0] || ms.needles.indexOf(a[1]) - ms.needles.indexOf(b[1]));
    const got = all(ms, t);
    expect(got.filter(([at]) => at < line.length)).toEqual(want);
    expect(got).toHaveLength(want.length * 20_000);
  });

  it('agrees with a plain search on random text, whatever the size (one cursor or four, several slices)', () => {
    let seed = 7;
    const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
    const needles = ['PLEG is not healthy', 'Kubelet version', 'abcabcab', 'bcabcabcab', 'xyz', 'cabcabcabcabcab', 'ünïcode needle'];
    const ms = new MultiSearch(needles);
    for (const size of [50, 5000, 70_000, 600_000]) {
      const parts: string[] = [];
      let len = 0;
      while (len < size) {
        const p = rnd(10) === 0 ? needles[rnd(needles.length)]! : 'abcxyz \n'.slice(rnd(4), 4 + rnd(5));
        parts.push(p);
        len += p.length;
      }
      const t = Buffer.from(parts.join(''));
      const want: Array<readonly [number, string]> = [];
      for (let i = 0; i < t.length; i++) {
        needles.forEach((n) => {
          const b = Buffer.from(n);
          if (t.subarray(i, i + b.length).equals(b)) want.push([i, n]);
        });
      }
      want.sort((a, b) => a[0] - b[0] || needles.indexOf(a[1]) - needles.indexOf(b[1]));
      expect(all(ms, t)).toEqual(want);
      const from = rnd(t.length >> 1);
      const end = from + rnd(t.length - from);
      expect(all(ms, t, from, end)).toEqual(want.filter(([at, n]) => at >= from && at + Buffer.byteLength(n) <= end));
    }
  });
});
