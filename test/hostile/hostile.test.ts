// Hostile inputs (issue 16), each built in a temp dir by test/hostile/inputs.mjs and analyzed by bin/plegscope as a
// user runs it, under /usr/bin/time for its peak RSS. Every run must end within a minute, stay within the 200 MB
// plegscope promises, exit 0/1 with the rest of the input analyzed (or 2 with one line when nothing is left), and
// print no raw control byte and no stack trace. `npm run test:hostile` (and .ci/run) runs this; `npm test` does not.
import { execSync, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Analysis } from '../../src/contract/analysis.js';
import { BIN } from '../helpers/cli.js';
// @ts-expect-error -- plain .mjs generators, shared with people building an input by hand
import * as gen from './inputs.mjs';
// The bounds every hostile run keeps (`bounded`: a looser RSS bound only where noted why), shared with the async cases.
import { analyzed as analyzedNode, bounded, MAX_MS, RAW_CONTROL, warned, type Run } from './harness.js';

const g = gen as Record<string, (...args: unknown[]) => string | Promise<string>> & { GOOD_NODE: string; goodLog(host?: string): string; quietLines(n: number): Buffer; xz(b: Buffer): Buffer; xzBlocks(line: string, total: number, blockBytes: number): Buffer; write(dir: string, name: string, data: Buffer | string): string; kubeletLine(t: number, level: string, caller: string, payload: string, host?: string): string };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'plegscope-hostile-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** bin/plegscope with `args`, its peak RSS read by /usr/bin/time (the whole process, worker threads included). */
function run(args: string[], opts: { input?: Buffer; env?: Record<string, string>; tty?: boolean } = {}): Run {
  const rssFile = join(dir, `rss-${process.hrtime.bigint()}`);
  const t0 = Date.now();
  const cmd = ['/usr/bin/time', '-f', '%M', '-o', rssFile, process.execPath, BIN, ...args];
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '', ...opts.env };
  if (opts.tty) {
    // A user's terminal, whatever the suite runs under (a CI that sets CI or TERM=dumb turns progress off, rightly).
    delete env['CI'];
    delete env['CONTINUOUS_INTEGRATION'];
    env['TERM'] = 'xterm-256color';
  }
  const r = opts.tty
    // `script` gives the run a terminal (stderr is a TTY: the progress line is drawn) and writes what it shows to stdout.
    ? spawnSync('script', ['-qefc', cmd.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' '), '/dev/null'], { encoding: 'utf8', env, maxBuffer: 256 << 20, timeout: MAX_MS * 2 })
    : spawnSync(cmd[0] as string, cmd.slice(1), { input: opts.input, encoding: 'utf8', env, maxBuffer: 256 << 20, timeout: MAX_MS * 2 });
  const ms = Date.now() - t0;
  const rssKB = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop());
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, rssMB: rssKB / 1024, ms };
}

/** The JSON report of a run that exited 0/1, with the good node found and its stall read. */
const analyzed = (r: Run): Analysis => analyzedNode(r, g.GOOD_NODE);
const T = 120_000;

describe('2. loose compressed files and stdin: bounded like archive members', () => {
  let bomb: Buffer;
  beforeAll(() => {
    // 256 MiB of one kubelet line as .xz (~50 KB): a ~5000× ratio.
    const line = g.quietLines(1 << 20);
    bomb = g.xz(Buffer.concat(Array(256).fill(line)));
  }, T);

  it('a loose .xz stops at the ratio bound with a warning; the good log beside it is analyzed', () => {
    const p = g.write(dir, 'bomb/kubelet-big.log.xz', bomb);
    g.write(dir, 'bomb/kubelet.log', g.goodLog());
    const r = run(['analyze', join(dir, 'bomb'), '--format', 'json']);
    bounded(r, [0, 1]);
    const a = analyzed(r);
    expect(a.warnings.find((w) => w.file?.endsWith('kubelet-big.log.xz'))?.message).toMatch(/^read stopped after line \d+: decompression stopped after 64\.\d MiB from \d+ KiB of .*kubelet-big\.log\.xz: more than 100× expansion/);
    expect(p).toBeTruthy();
  }, T);

  it('an .xz of big blocks: xz decodes within its memory bound, not a block ahead per thread (3 × 256 MiB in ~120 KB)', () => {
    // Measured before the bound: three 1 GiB blocks (459 KB) made the `xz -d -T0` child take 3 GB.
    const big = g.xzBlocks(g.quietLines(1).toString('utf8'), 3 * 256 << 20, 256 << 20);
    g.write(dir, 'blocks/kubelet-blocks.log.xz', big);
    g.write(dir, 'blocks/kubelet.log', g.goodLog());
    const r = run(['analyze', join(dir, 'blocks'), '--format', 'json']);
    // /usr/bin/time reports the largest process it waited for, the xz child included.
    bounded(r, [0, 1]);
    const a = analyzed(r);
    expect(a.warnings.find((w) => w.file?.endsWith('kubelet-blocks.log.xz'))?.message).toMatch(/decompression stopped after 64\.\d MiB/);
  }, T);

  it('an .xz whose dictionary alone is past the bound is refused with a warning; the rest is analyzed', () => {
    const dict = execSync('xz -c --lzma2=dict=192MiB,mf=hc3', { input: g.quietLines(1000) });
    g.write(dir, 'dict/kubelet-dict.log.xz', dict);
    g.write(dir, 'dict/kubelet.log', g.goodLog());
    const r = run(['analyze', join(dir, 'dict'), '--format', 'json']);
    bounded(r, [0, 1]);
    const a = analyzed(r);
    expect(a.warnings.find((w) => w.file?.endsWith('kubelet-dict.log.xz'))?.message).toMatch(/xz stream refused: decoding it needs more than the 80 MiB of memory allowed/);
  }, T);

  it('stdin the same', () => {
    const r = run(['analyze', '-', '--format', 'json'], { input: bomb });
    bounded(r, [0, 1]);
    const a = JSON.parse(r.stdout) as Analysis;
    expect(a.warnings.some((w) => w.file === '-' && /decompression stopped after 64\.\d MiB from \d+ KiB of -/.test(w.message))).toBe(true);
  }, T);
});

describe('3. memory does not grow with matched lines', () => {
  /** ~100 MB of one kind of line, every 20 ms (50 a second): each line a match. */
  function dense(name: string, payload: (t: number, i: number) => string, caller: string): string {
    const p = g.write(dir, `${name}/kubelet.log`, '');
    const t0 = Date.UTC(2024, 2, 11, 10, 0, 0);
    const fd = openSync(p, 'w');
    let size = 0;
    let batch: string[] = [];
    for (let i = 0; size < 100 << 20; i++) {
      const t = t0 + 180_000 + i * 20;
      const l = `${g.kubeletLine(t, 'E', caller, payload(t - t0, i))}\n`;
      size += l.length;
      batch.push(l);
      if (batch.length === 10_000) {
        writeSync(fd, batch.join(''));
        batch = [];
      }
    }
    writeSync(fd, batch.join(''));
    closeSync(fd);
    return join(dir, name);
  }
  const grep = (d: string, re: string): number => Number(execSync(`grep -cE '${re}' kubelet.log || true`, { cwd: d, encoding: 'utf8' }).trim());

  it('100 MB of "PLEG is not healthy" lines: one stall, every line counted, within the bound', () => {
    const d = dense('dense-pleg', (ms) => `"Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active ${(ms / 1000).toFixed(2)}s ago; threshold is 3m0s"`, 'kubelet.go:2373');
    const r = run(['analyze', d, '--format', 'json']);
    bounded(r, [0, 1]);
    const n = analyzed(r).nodes[0]!;
    expect(n.stalls).toHaveLength(1);
    const c = n.findings.flatMap((f) => f.checks ?? []).find((x) => x.grep.includes('pleg was last seen active'));
    if (c) expect(c.total).toBe(grep(d, 'pleg was last seen active'));
  }, T);

  it('100 MB of one CRI error: counted exactly (the grep the report prints agrees), within the bound', () => {
    const d = dense('dense-cri', () => '"ListPodSandbox with filter from runtime service failed" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded" filter="&PodSandboxFilter{Id:,State:&PodSandboxStateValue{State:SANDBOX_READY,},LabelSelector:map[string]string{},}"', 'remote_runtime.go:294');
    const r = run(['analyze', d, '--format', 'json']);
    bounded(r, [0, 1]);
    const n = (JSON.parse(r.stdout) as Analysis).nodes[0]!;
    const want = grep(d, 'DeadlineExceeded');
    expect(n.operations.find((o) => o.operation === 'list_podsandbox')?.timeouts).toBe(want);
    const c = n.findings.flatMap((f) => f.checks ?? []).find((x) => x.grep.includes('from runtime service failed'));
    expect(c?.total).toBe(want);
  }, T);

  it('100 MB of "Node became not ready" lines, within the bound', () => {
    const d = dense('dense-notready', () => '"Node became not ready" node="good-node" condition={"type":"Ready","status":"False","lastHeartbeatTime":"2024-03-11T10:09:16Z","lastTransitionTime":"2024-03-11T10:09:16Z","reason":"KubeletNotReady","message":"PLEG is not healthy: pleg was last seen active 3m4.5s ago; threshold is 3m0s"}', 'setters.go:548');
    bounded(run(['analyze', d, '--format', 'json']), [0, 1]);
  }, T);
});

describe('2c. cloud exports read whole', () => {
  for (const form of ['json', 'csv']) {
    it(`a ${form === 'json' ? 'JSON array' : 'CSV'} export of 16 MiB, every entry a "PLEG is not healthy" line, newest first: one stall, every entry counted, within the bound`, async () => {
      const d = join(dir, `export-${form}`);
      mkdirSync(d);
      const f = (await g.plegExport(d, form)) as string;
      const r = run(['analyze', f, '--format', 'json']);
      bounded(r, [0, 1]);
      const a = JSON.parse(r.stdout) as Analysis;
      expect(a.warnings).toEqual([]);
      const n = a.nodes.find((x) => x.name === g.GOOD_NODE);
      expect(n?.stalls).toHaveLength(1);
      const c = n?.findings.flatMap((x) => x.checks ?? []).find((x) => x.grep.includes('pleg was last seen active'));
      if (c) expect(c.total).toBe(Number(execSync(`grep -c 'pleg was last seen active' ${f}`, { encoding: 'utf8' }).trim()));
      // The stall runs to the newest entry (the export turned round).
      expect(n?.stalls[0]?.maxLastSeenAgoSeconds).toBeGreaterThan(600);
    }, T);
  }
});

describe('3. metric series', () => {
  it('100 000 series of one family: the first 1000 read, the rest counted; a small report', () => {
    const lines = ['# TYPE kubelet_runtime_operations_duration_seconds histogram'];
    for (let i = 0; i < 100_000; i++) {
      for (const le of ['0.1', '1', '10', '+Inf']) lines.push(`kubelet_runtime_operations_duration_seconds_bucket{operation_type="op_${i}",le="${le}"} 5`);
      lines.push(`kubelet_runtime_operations_duration_seconds_count{operation_type="op_${i}"} 5`);
    }
    g.write(dir, 'series/metrics-20240311T101000Z.txt', `${lines.join('\n')}\n`);
    g.write(dir, 'series/kubelet.log', g.goodLog());
    const r = run(['analyze', join(dir, 'series'), '--format', 'json']);
    bounded(r, [0, 1]);
    const a = analyzed(r);
    expect(warned(a, /^metric family kubelet_runtime_operations_duration_seconds: only its first 1000 series are read; at least 10000 more series \(495000 samples/)).toBe(true);
    expect(r.stdout.length).toBeLessThan(1 << 20);
  }, T);
});

describe('4. archives', () => {
  it('(a) a symlink to `a/` × 400 000 in a .tar.xz: not followed, at once', async () => {
    const r = run(['analyze', await g.deepLinkTarXz(dir), '--format', 'json']);
    bounded(r, [0, 1]);
    expect(warned(analyzed(r), /^symlink to a path of 800000 characters .*: not followed$/)).toBe(true);
  }, T);

  it('(b) 42.zip-style nesting: the levels past the limit counted in one warning, the log beside read', () => {
    const r = run(['analyze', g.nestedZips(dir) as string, '--format', 'json']);
    bounded(r, [0, 1]);
    const a = analyzed(r);
    expect(warned(a, /^4086 more members like .*: archive nested 5 levels deep: not opened \(limit 4\)$/)).toBe(true);
    expect(a.warnings.length).toBeLessThanOrEqual(20);
  }, T);

  it('(c) 5000 entries sharing one deflate stream: not inflated 5000 times; the good log in the same zip analyzed', () => {
    const r = run(['analyze', g.overlappingZip(dir) as string, '--format', 'json']);
    bounded(r, [0, 1]);
    expect(warned(analyzed(r), /^4989 more members like x\/1\.bin: overlaps the stored bytes of x\/0\.bin \(a zip bomb\?\): not read$/)).toBe(true);
  }, T);

  it('(d) symlink entries that claim 100 bytes and inflate to 60 MiB: read up to 4 KiB each', () => {
    const r = run(['analyze', g.inflatedLinksZip(dir) as string, '--format', 'json']);
    bounded(r, [0, 1]);
    expect(warned(analyzed(r), /symlink target longer than 4096 bytes: not followed/)).toBe(true);
    expect(r.stdout.length).toBeLessThan(1 << 20);
  }, T);

  it('(e) 200 000 tiny members, then the log: members nothing reads counted past 10 000; the log analyzed', () => {
    const r = run(['analyze', g.manyMembersTarGz(dir) as string, '--format', 'json']);
    bounded(r, [0, 1]);
    expect(warned(analyzed(r), /^190000 more members that no reader uses .* only 10000 such members are listed per input$/)).toBe(true);
  }, T);

  it('(f) 1 GiB of zeros as the first member: skipped, the log behind it analyzed', async () => {
    const r = run(['analyze', await g.zerosFirstTarGz(dir), '--format', 'json']);
    bounded(r, [0, 1]);
    const a = analyzed(r);
    expect(warned(a, /decompression stopped|archive/)).toBe(false);
  }, T);

  it('(f) a 256 MiB one-line log member: cut at the ratio bound, the member after it read', async () => {
    const r = run(['analyze', await g.bombMemberTarGz(dir), '--format', 'json']);
    bounded(r, [0, 1]);
    const a = analyzed(r);
    expect(a.warnings.find((w) => w.file === 'bundle/var/log/quiet/kubelet.log')?.message).toMatch(/^read stopped after line \d+: decompression stopped after 64\.\d MiB/);
  }, T);

  describe('(g) truncated archives are read up to the cut, with a warning', () => {
    const entries = () => [{ name: 'b/var/log/kubelet.log', data: Buffer.from(g.goodLog()) }, { name: 'b/var/log/other.log', data: Buffer.from(g.goodLog('other-node')) }];
    for (const c of ['gz', 'xz', 'bz2']) {
      it(`.tar.${c} without its last 8 bytes`, async () => {
        const full = await g.writeTar(join(dir, `t8.tar.${c}`), entries(), c);
        const b = readFileSync(full);
        const p = g.write(dir, `t8-cut.tar.${c}`, b.subarray(0, b.length - 8));
        const r = run(['analyze', p, '--format', 'json']);
        bounded(r, [0, 1]);
        expect(analyzed(r).nodes.map((n) => n.name).sort()).toEqual([g.GOOD_NODE, 'other-node']);
      }, T);
    }
    it('a .tar.gz cut inside its second member: the first read, a warning names the cut', async () => {
      const full = await g.writeTar(join(dir, 'half.tar.gz'), [{ name: 'b/var/log/kubelet.log', data: Buffer.from(g.goodLog()) }, { name: 'b/var/log/big.log', data: g.quietLines(4 << 20) }], 'gz');
      const b = readFileSync(full);
      const r = run(['analyze', g.write(dir, 'half-cut.tar.gz', b.subarray(0, Math.floor(b.length * 0.6))), '--format', 'json']);
      bounded(r, [0, 1]);
      expect(warned(analyzed(r), /^archive is truncated after 2 members \(last: b\/var\/log\/big\.log\): truncated gzip stream/)).toBe(true);
    }, T);
    it('a .zip that lost its central directory: members read by their local headers', () => {
      const z = readFileSync(g.write(dir, 'whole.zip', g.zipOf([{ name: 'b/var/log/kubelet.log', data: Buffer.from(g.goodLog()) }, { name: 'b/var/log/big.log', data: g.quietLines(1 << 20) }]) as unknown as Buffer));
      const r = run(['analyze', g.write(dir, 'cut.zip', z.subarray(0, z.length - 100)), '--format', 'json']);
      bounded(r, [0, 1]);
      expect(warned(analyzed(r), /^archive is truncated after 2 members.*2 members found by their local headers/)).toBe(true);
    }, T);
    it('a .tar.bz2 cut inside its only block: nothing is decodable, one line', async () => {
      const full = await g.writeTar(join(dir, 'one-block.tar.bz2'), entries(), 'bz2');
      const b = readFileSync(full);
      const r = run(['analyze', g.write(dir, 'one-block-cut.tar.bz2', b.subarray(0, Math.floor(b.length / 2)))]);
      bounded(r, [2]);
      expect(r.stderr).toMatch(/one-block-cut\.tar\.bz2: truncated bzip2 stream\n$/);
    }, T);
  });
});

describe('5. rule packs', () => {
  const log = () => {
    const p = join(dir, 'pack-log', 'kubelet.log');
    if (!existsSync(p)) {
      mkdirSync(join(dir, 'pack-log'), { recursive: true });
      // 20 MB of a busy kubelet log around the stall.
      const busy = g.kubeletLine(Date.UTC(2024, 2, 11, 9, 30, 0), 'I', 'prober.go:107', '"Probe succeeded" probeType="Readiness" pod="default/web-0" DeadlineExceeded literalneedle1zz', g.GOOD_NODE);
      writeFileSync(p, `${`${busy}\n`.repeat(Math.ceil((20 << 20) / busy.length))}${g.goodLog()}`);
    }
    return join(dir, 'pack-log');
  };
  const pack = (n: number, extra = '') => {
    const out = ['signals:'];
    for (let i = 0; i < n; i++) out.push(`  - id: s${i}`, `    pattern: "literalneedle${i}zz"`);
    return g.write(dir, `pack-${n}-${extra.length}.yaml`, `${out.join('\n')}\n${extra}`);
  };

  it('10 000 literal signals over a 20 MB log', () => {
    const r = run(['analyze', log(), '--rules', pack(10_000), '--format', 'json']);
    bounded(r, [0, 1]);
    analyzed(r);
  }, T);

  it('more than 10 000 signals, or an evidence pool named constructor: one line, exit 2', () => {
    const many = run(['analyze', log(), '--rules', pack(65_000)]);
    bounded(many, [2]);
    expect(many.stderr).toMatch(/"signals" lists 65000 signals: at most 10000/);
    const proto = run(['analyze', log(), '--rules', pack(1, 'rules:\n  - {id: p, cause: disk_io, severity: low, title: t, base: 0.5, summary: "{constructor}", remediation: r, evidence: [constructor]}\n')]);
    bounded(proto, [2]);
    expect(proto.stderr).toMatch(/rule "p": field "evidence\[0\]" names "constructor", which is not an evidence pool/);
  }, T);
});

describe('6. nothing raw reaches a terminal', () => {
  const EVIL = 'x\u001b]0;owned\u0007\u001b[2J\u009b31m\u202e.log';

  it('member names in the one-line error, and in the TTY progress line', async () => {
    const onlyJunk = await g.writeTar(join(dir, 'evil-names.tar.gz'), [{ name: `b/${EVIL}`, data: Buffer.from([0, 1, 2, 3, 4, 5]) }], 'gz');
    const r = run(['analyze', onlyJunk]);
    bounded(r, [2]);
    // strip-ansi takes the OSC and CSI sequences out whole; the bidi override is shown as an escape.
    expect(r.stderr).toContain('b/x\\u202e.log: binary data');
    const withLog = await g.writeTar(join(dir, 'evil-log.tar.gz'), [{ name: `b/var/log/kubelet-${EVIL}`, data: Buffer.from(g.goodLog()) }], 'gz');
    const tty = run(['analyze', withLog, '-o', join(dir, 'evil-report.txt')], { tty: true, env: { PLEGSCOPE_PROGRESS_DELAY_MS: '0' } });
    // Under `script` the terminal's output arrives on stdout, progress line included (CR, erase-line: ours, not the name's).
    expect(tty.code).toBe(0);
    expect(tty.stdout).toContain('plegscope: reading');
    expect(tty.stdout.replace(/\r\u001b\[2K/g, '').replace(/\r?\n/g, '')).not.toMatch(RAW_CONTROL);
    expect(readFileSync(join(dir, 'evil-report.txt'), 'utf8')).not.toMatch(RAW_CONTROL);
  }, T);

  it('a log full of escapes, as text and as JSON on the terminal', () => {
    const line = g.kubeletLine(Date.UTC(2024, 2, 11, 10, 4, 0), 'E', 'log.go:32', `"ContainerStatus from runtime service failed" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded" containerID="c0ffee" pod="${EVIL}\u0085\u2066"`, g.GOOD_NODE);
    g.write(dir, 'escapes/kubelet.log', `${g.goodLog()}${line}\n`);
    for (const format of ['text', 'json', 'markdown']) bounded(run(['analyze', join(dir, 'escapes'), '--format', format]), [0, 1]);
  }, T);
});

describe('8. an event-dense log through the worker path', () => {
  it('a range of more than 125 000 events is merged, not dropped', () => {
    // 300 000 unhealthy lines (~60 MB) cut into 2 ranges of ~150 000 events each (one worker thread): the merge once
    // spread them into push() (stack overflow), and a worker that ran out of its heap on one cut the log there.
    const p = g.write(dir, 'dense/kubelet.log', '');
    const lines: string[] = [];
    const t0 = Date.UTC(2024, 2, 11, 10, 0, 0);
    for (let i = 0; i < 300_000; i++) {
      const t = t0 + 180_000 + i * 10;
      const age = (t - t0) / 1000;
      lines.push(g.kubeletLine(t, 'E', 'kubelet.go:2373', `"Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active ${Math.floor(age / 60)}m${(age % 60).toFixed(2)}s ago; threshold is 3m0s"`, g.GOOD_NODE));
    }
    writeFileSync(p, `${lines.join('\n')}\n`);
    const r = run(['analyze', join(dir, 'dense'), '--format', 'json'], { env: { PLEGSCOPE_WORKERS: '1', PLEGSCOPE_SPLIT_BYTES: String(40 << 20) } });
    // Dense runs of one kind of line fold into a few events per second (signals/thin.ts): memory stays bounded.
    bounded(r, [0, 1]);
    const a = JSON.parse(r.stdout) as Analysis;
    expect(a.warnings.filter((w) => /call stack|could not be read/.test(w.message))).toEqual([]);
    expect(a.nodes.find((n) => n.name === g.GOOD_NODE)?.verdict.plegUnhealthy).toBe(true);
    expect(a.inputs[0]?.artifacts[0]?.lines).toBe(300_000);
  }, T);
});

describe('issue 28 (5). paths', () => {
  it('a folder swapped for a symlink to outside during the run: nothing from outside is read', async () => {
    // in/sub flips between its own folder and a link to outside/sub every ~2 ms (renames by a child process): each file
    // is checked after it is opened (its path still resolves to itself and names the very file opened).
    const root = join(dir, 'swap');
    for (let i = 0; i < 200; i++) {
      g.write(root, `in/sub/k${i}.log`, g.goodLog('inside-node'));
      g.write(root, `outside/sub/k${i}.log`, g.goodLog('outside-secret'));
    }
    g.write(root, 'in/kubelet.log', g.goodLog());
    execSync(`ln -s ../outside/sub ${join(root, 'in/sub.lnk')}`);
    const swapper = `const fs=require('fs'),p=require('path'),d=process.argv[1],w=()=>Atomics.wait(new Int32Array(new SharedArrayBuffer(4)),0,0,2);
      for(;;){try{fs.renameSync(p.join(d,'sub'),p.join(d,'sub.real'));fs.renameSync(p.join(d,'sub.lnk'),p.join(d,'sub'))}catch{}w();
      try{fs.renameSync(p.join(d,'sub'),p.join(d,'sub.lnk'));fs.renameSync(p.join(d,'sub.real'),p.join(d,'sub'))}catch{}w()}`;
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, ['-e', swapper, join(root, 'in')], { stdio: 'ignore' });
    try {
      for (let k = 0; k < 2; k++) {
        const r = run(['analyze', join(root, 'in'), '--format', 'json']);
        bounded(r, [0, 1]);
        expect(r.stdout + r.stderr).not.toContain('outside-secret');
        analyzed(r);
      }
    } finally {
      child.kill();
    }
  }, T);

  it('-o or --redact-map naming an input file: one line, exit 2, the file untouched', () => {
    const log = g.write(dir, 'onto/kubelet.log', g.goodLog());
    const before = readFileSync(log, 'utf8');
    for (const args of [['-o', log], ['--redact', '--redact-map', log], ['-o', join(dir, 'onto-named.log')]]) {
      const input = args[1] === join(dir, 'onto-named.log') ? g.write(dir, 'onto-named.log', g.goodLog()) : join(dir, 'onto');
      const r = run(['analyze', input, ...args]);
      bounded(r, [2]);
      expect(r.stderr).toMatch(/^plegscope: (-o|--redact-map) .*: is an input of this run \(.*\): refusing to overwrite it\n$/);
    }
    expect(readFileSync(log, 'utf8')).toBe(before);
  }, T);

  it('COLUMNS=1000000000 (and 5): the text report at a clamped width', () => {
    g.write(dir, 'cols/kubelet.log', g.goodLog());
    for (const c of ['1000000000', '5']) {
      const r = run(['analyze', join(dir, 'cols')], { env: { COLUMNS: c } });
      bounded(r, [0, 1]);
      expect(r.stdout).toContain(g.GOOD_NODE);
    }
  }, T);
});

describe('issue 28 (4). --redact leaves no name behind', () => {
  it('names planted in paths, log lines, kernel lines and cgroup paths: in none of the five formats', () => {
    // The sample incident in a folder named by the node's FQDN, with a kernel NFS server, an OOM kill's cgroup paths
    // (systemd's underscore UID, cgroupfs' dashed one), an API endpoint, a registry and IPs in every spelling.
    const root = join(dir, 'plant', 'worker-3.corp.example.com');
    const sample = join(__dirname, '..', '..', 'fixtures', 'sample-incident');
    execSync(`mkdir -p '${root}' && cp '${sample}'/* '${root}'/`);
    const de = 'rpc error: code = DeadlineExceeded desc = context deadline exceeded';
    writeFileSync(join(root, 'dmesg.txt'), readFileSync(join(root, 'dmesg.txt'), 'utf8') + [
      '[Mon Mar 11 10:12:01 2024] nfs: server nfs01.corp.example.com not responding, still trying',
      '[Mon Mar 11 10:12:02 2024] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=x,mems_allowed=0,oom_memcg=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1a2b3c4d_5e6f_4a7b_8c9d_0e1f2a3b4c5d.slice,task_memcg=/kubepods/burstable/pod9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a/c0ffee,task=java,pid=4242,uid=1000',
      '',
    ].join('\n'));
    const kubelet = readFileSync(join(root, 'kubelet.log'), 'utf8').split('\n').filter(Boolean);
    kubelet.push(
      `Mar 11 10:14:06 worker-3 kubelet[2817]: E0311 10:14:06.000000    2817 kubelet_node_status.go:544] "Error updating node status, will retry" err="error getting node \\"worker-3\\": Get \\"https://api.prod.example.net:6443/api/v1/nodes/worker-3?timeout=10s\\": dial tcp [::ffff:10.0.77.6]:6443: i/o timeout"`,
      `Mar 11 10:14:07 worker-3 kubelet[2817]: E0311 10:14:07.000000    2817 remote_image.go:180] "PullImage from image service failed" err="${de}" image="registry.corp.example.com/team/app:1.2"`,
      `Mar 11 10:14:08 worker-3 kubelet[2817]: E0311 10:14:08.000000    2817 remote_runtime.go:432] "ContainerStatus from runtime service failed" err="${de}" probe="http://10.0.77.8:443/healthz" peer=10.0.77.8.443 q=%3D10.0.77.5 cg="/kubepods/burstable/pod9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a/"`,
    );
    writeFileSync(join(root, 'kubelet.log'), `${kubelet.sort((a, b) => a.slice(0, 15).localeCompare(b.slice(0, 15))).join('\n')}\n`);
    const secrets = ['worker-3', 'nfs01', 'corp.example', 'api.prod', 'registry.corp', '10.0.77', '1a2b3c4d', '5e6f', '0e1f2a3b4c5d', '9f8e7d6c', '5b4a', '6f5e4d3c2b1a'];
    const plain = run(['analyze', root, '--format', 'json', '--evidence', 'all']);
    bounded(plain, [0, 1]);
    // What reaches a plain report (the rest is planted where no report cites it, and must stay absent all the same).
    for (const s of ['worker-3', 'nfs01', 'corp.example', '10.0.77.8.443', '%3D10.0.77.5', '9f8e7d6c-5b4a']) expect(plain.stdout, s).toContain(s);
    for (const format of ['text', 'json', 'markdown', 'junit', 'html']) {
      const r = run(['analyze', root, '--format', format, '--evidence', 'all', '--redact']);
      bounded(r, [0, 1]);
      for (const s of secrets) expect(r.stdout.toLowerCase(), `${format}: ${s}`).not.toContain(s);
    }
  }, T);
});

describe('issue 28 (3). rule-pack cost checked at load', () => {
  const pack = (n: number): string => {
    const out = ['signals:'];
    for (let i = 0; i < n; i++) out.push(`  - id: s${i}`, `    pattern: "sharedneedle1zz.*x${i}y"`);
    return g.write(dir, `shared-${n}.yaml`, `${out.join('\n')}\n`);
  };
  it('10 000 signals sharing one needle: one line, exit 2; 100 of them over an 8 MB log of that needle: within the bounds', () => {
    const busy = g.kubeletLine(Date.UTC(2024, 2, 11, 9, 30, 0), 'I', 'prober.go:107', '"Probe succeeded" probeType="Readiness" pod="default/web-0" sharedneedle1zz', g.GOOD_NODE);
    g.write(dir, 'shared-log/kubelet.log', `${`${busy}\n`.repeat(Math.ceil((8 << 20) / busy.length))}${g.goodLog()}`);
    const many = run(['analyze', join(dir, 'shared-log'), '--rules', pack(10_000)]);
    bounded(many, [2]);
    expect(many.stderr).toMatch(/: 10000 signals wake on a line holding "sharedneedle1zz": at most 100 \(each such line is tested against every one of them\)/);
    const r = run(['analyze', join(dir, 'shared-log'), '--rules', pack(100), '--format', 'json']);
    bounded(r, [0, 1]);
    analyzed(r);
  }, T);
});

describe('issue 28 (3). memory bounded by the input\'s shape', () => {
  it('a goroutine dump of 300 000 goroutines (135 MB), each waiting at a lock site of its own, beside a good log', () => {
    const root = join(dir, 'goroutines');
    mkdirSync(root, { recursive: true });
    const fd = openSync(join(root, 'goroutines.txt'), 'w');
    let batch: string[] = [];
    for (let i = 0; i < 300_000; i++) {
      batch.push(`goroutine ${i + 100} [semacquire, ${i % 50} minutes]:\nsync.runtime_SemacquireMutex(0xc000${i}, 0x0, 0x1)\n\t/usr/local/go/src/runtime/sema.go:71 +0x25\nsync.(*Mutex).lockSlow(0xc0001)\n\t/usr/local/go/src/sync/mutex.go:138 +0x165\nk8s.io/kubernetes/pkg/kubelet/site${i}.(*Thing${i}).Method${i}(0xc0002)\n\t/workspace/pkg/kubelet/site${i}/f.go:${i} +0x8c5\ncreated by k8s.io/kubernetes/pkg/kubelet.(*Kubelet).Run\n\t/workspace/pkg/kubelet/kubelet.go:1500 +0x1a\n\n`);
      if (batch.length === 10_000) {
        writeSync(fd, batch.join(''));
        batch = [];
      }
    }
    writeSync(fd, batch.join(''));
    closeSync(fd);
    g.write(root, 'kubelet.log', g.goodLog());
    const r = run(['analyze', root, '--format', 'json']);
    bounded(r, [0, 1]);
    const a = analyzed(r);
    expect(a.inputs[0]?.artifacts.find((x) => x.path === 'goroutines.txt')?.role).toBe('goroutine-dump');
    rmSync(root, { recursive: true, force: true });
  }, T);

  // Many small files: what each leaves behind is small (a file that yields nothing, almost nothing), and the report
  // lists 1000 files of a node and role, counting the rest exactly (inputs[].unlisted).
  it('a folder of 100 000 tiny files nothing recognises, beside a good log: past 10 000 counted in one warning, within the bounds', () => {
    const root = g.tinyFiles(join(dir, 'tiny-unrec'), 100_000) as string;
    const r = run(['analyze', root, '--format', 'json']);
    bounded(r, [0, 1]);
    const a = analyzed(r);
    expect(warned(a, /^90000 more files like d\d+\/f\d+\.txt that neither name nor first bytes show to be a log, metrics or a dump were not read: only 10000 such files are read per input$/)).toBe(true);
    rmSync(root, { recursive: true, force: true });
  }, 2 * T);

  /** The report of 100 000 tiny kubelet logs of node-0…2 and the good log: every file and line counted, 1000 listed. */
  const tinyLogsRead = (a: Analysis, prefix: string): void => {
    const inp = a.inputs[0] as Analysis['inputs'][number];
    const listed = inp.artifacts.filter((x) => /^node-\d$/.test(x.node ?? ''));
    const more = inp.unlisted ?? [];
    expect(more.map((u) => u.node).sort()).toEqual(['node-0', 'node-1', 'node-2']);
    expect(listed).toHaveLength(3000);
    expect(listed.every((x) => x.path.startsWith(prefix) && x.role === 'kubelet-log' && x.lines === 2)).toBe(true);
    expect(listed.length + more.reduce((t, u) => t + u.files, 0)).toBe(100_000);
    expect(listed.length * 2 + more.reduce((t, u) => t + u.lines, 0)).toBe(200_000);
    for (const n of ['node-0', 'node-1', 'node-2']) expect(a.nodes.find((x) => x.name === n)?.stalls).toEqual([]);
  };

  it('a folder of 100 000 tiny kubelet logs of three nodes, beside a good log: every file and line counted, 1000 of a node listed, within the bounds', () => {
    const root = g.tinyFiles(join(dir, 'tiny-logs'), 100_000, true) as string;
    const r = run(['analyze', root, '--format', 'json']);
    bounded(r, [0, 1]);
    tinyLogsRead(analyzed(r), 'd');
    expect(r.stdout.length).toBeLessThan(2 << 20);
    rmSync(root, { recursive: true, force: true });
  }, 2 * T);

  it('the same 100 000 tiny kubelet logs as one .tar.gz: the same counts, within the bounds', () => {
    const r = run(['analyze', g.tinyLogsTarGz(dir) as string, '--format', 'json']);
    bounded(r, [0, 1]);
    tinyLogsRead(analyzed(r), 'logs/d');
    expect(r.stdout.length).toBeLessThan(2 << 20);
  }, T);
});

describe('issue 28 (3). many distinct names, many events: state summarised, counts exact', () => {
  /** Every count check the report prints, pasted into bash, prints the number printed beside it; how many there were. */
  const checksHold = (a: Analysis): number => {
    const checks = a.nodes.flatMap((n) => n.findings.flatMap((f) => f.checks ?? []));
    for (const c of checks) expect(execSync(c.grep, { encoding: 'utf8', shell: '/bin/bash' }).trim(), c.grep).toBe(String(c.prints ?? c.total));
    return checks.length;
  };
  const good = (a: Analysis) => a.nodes.find((n) => n.name === g.GOOD_NODE) as Analysis['nodes'][number];
  type Made = { nfs: number; hung: number; oomKill: number; killed: number; lines: Record<string, number> };

  it('20 MiB of kernel lines (journal, dmesg -T, raw dmesg) each naming a new NFS server, hung task or OOM victim, beside a good log', () => {
    // Measured before: 225-291 MB (every name its own run, OOM kills and hung tasks not folded at all).
    const root = join(dir, 'names-20');
    mkdirSync(root);
    const made = g.kernelNames(root, 20 << 20) as unknown as Made;
    g.write(root, 'kubelet.log', g.goodLog());
    const r = run(['analyze', root, '--format', 'json']);
    bounded(r, [0, 1]);
    const a = analyzed(r);
    const n = good(a);
    expect(n.verdict.primaryCause).toBe('disk_io');
    const f = n.findings.find((x) => x.cause === 'disk_io');
    // Every line counted (the finding's numbers are the greps'), the first names given and the rest said to be more.
    const undated = Number(execSync('grep -c "blocked for more than" dmesg-raw.txt', { cwd: root, encoding: 'utf8' }).trim());
    expect(f?.summary).toMatch(new RegExp(`: ${made.hung} hung-task reports \\(foo-\\d+, foo-\\d+, foo-\\d+, foo-\\d+, foo-\\d+ and at least \\d+ more tasks; ${undated} of them at an unknown time\\); ${made.nfs} "NFS server not responding" \\(nfs-\\d+\\.example\\.com and at least \\d+ more servers\\)`));
    expect(checksHold(a)).toBe(2);
    // OOM kills as grep counts them: one `Killed process` line a kill (one victim in a thousand is the runtime).
    const grep = (re: string): number => Number(execSync(`cat * | grep -cE '${re}'`, { cwd: root, encoding: 'utf8' }).trim());
    expect(n.findings.find((x) => x.cause === 'memory_pressure')?.summary).toMatch(new RegExp(`^The kernel OOM killer ran ${grep('Kill(ed)? process [0-9]+ \\(')} times \\(foo-\\d+, .* and at least \\d+ more processes\\), ${grep('Killed process [0-9]+ \\(containerd\\)')} of them against the runtime`));
    // The raw dmesg lines (nothing gives the boot time) are counted as lines, folded or not.
    expect(warned(a, new RegExp(`^${made.lines['dmesg-raw.txt']} kernel lines carry only seconds-since-boot stamps`))).toBe(true);
    rmSync(root, { recursive: true, force: true });
  }, T);

  it('a 100 MiB kernel journal of the same', () => {
    // Measured before: 767 MB and 29 s.
    const root = join(dir, 'names-100');
    mkdirSync(root);
    const made = g.kernelNames(root, 100 << 20, ['kernel.log']) as unknown as Made;
    g.write(root, 'kubelet.log', g.goodLog());
    const r = run(['analyze', root, '--format', 'json']);
    bounded(r, [0, 1]);
    const a = analyzed(r);
    const f = good(a).findings.find((x) => x.cause === 'disk_io');
    expect(f?.summary).toContain(`: ${made.hung} hung-task reports (`);
    expect(f?.summary).toContain(`; ${made.nfs} "NFS server not responding" (`);
    expect(checksHold(a)).toBe(2);
    rmSync(root, { recursive: true, force: true });
  }, T);

  it('`kubectl describe node` listing 120 000 events, beside a good log: every row read and counted', () => {
    // Measured before: 222-280 MB (a row object of its own shape each, the text held twice, each row read twice).
    const root = join(dir, 'describe-many');
    mkdirSync(root);
    const made = g.describeManyEvents(root, 120_000) as unknown as { path: string; counts: Record<string, number> };
    g.write(root, 'kubelet.log', g.goodLog());
    const r = run(['analyze', root, '--format', 'json']);
    bounded(r, [0, 1]);
    const a = analyzed(r);
    expect(a.warnings).toEqual([]);
    expect(a.inputs[0]?.artifacts.find((x) => x.path === 'node-describe.txt')?.role).toBe('node-describe');
    const n = good(a);
    expect(n.verdict.primaryCause).toBe('runtime_timeout');
    // 24 000 ContainerGCFailed rows, folded into a few hundred events: counted one by one.
    expect(n.findings.find((x) => x.cause === 'runtime_timeout')?.summary).toContain(`: ${made.counts['ContainerGCFailed']} kubelet lines where a call to the runtime timed out`);
    checksHold(a);
    rmSync(root, { recursive: true, force: true });
  }, T);
});
