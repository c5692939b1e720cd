// Lines folded unread (src/signals/templates.ts) give what reading every line gives: the same events, counts, cited
// lines and windows. The dense logs here vary every way a template must tell apart: durations of every length, the
// "never" sentinel, gRPC codes by number, servers named with digits, errors naming 150 containers, a kubelet restart,
// a new day and a new year, a second host, and lines earlier than the ones before them.
import { describe, expect, it } from 'vitest';
import { Template } from '../../src/signals/templates.js';
import { readEnvelope, type Envelope } from '../../src/parse/record.js';
import { WallClock, YearClock, resolveZone } from '../../src/parse/time.js';
import { SignalExtractor } from '../../src/signals/extract.js';
import { signalsOf } from '../helpers/signals.js';
import { compileCustom } from '../../src/signals/custom.js';

const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n: number): string => String(n).padStart(2, '0');

function envOf(line: string): Envelope {
  const wall = new WallClock(resolveZone('UTC'));
  return readEnvelope(line, 1, 0, { years: new YearClock(wall, { year: 2024 }), wall }) as Envelope;
}

function template(line: string, kind = 'sync-loop|false|false', type: 'relist-unhealthy' | 'cri-error' = 'relist-unhealthy'): Template {
  return new Template(line, envOf(line), Date.UTC(2024, 2, 1), 2231, 'klog', 'kubelet', Uint8Array.of(1, 0), [{ key: `${type}\u0000n1\u0000${kind}`, type }], false, []);
}

const pleg = (t: string, hdr: string, age: string, host = 'n1', pid = 2231): string =>
  `Mar  1 ${t} ${host} kubelet[${pid}]: E0301 ${hdr}    ${pid} kubelet.go:2040] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active ${age} ago; threshold is 3m0s"`;

/** Whether `line` fits template `t`, as the scanner asks: by the line's bytes. */
function fits(t: Template, line: string, woken: Uint8Array): boolean {
  const b = Buffer.from(`xx${line}yy`);
  return t.fits(b, 2, b.length - 2) && t.sameWoken(woken);
}

describe('a template', () => {
  const t = template(pleg('00:10:00', '00:10:00.002000', '3m0.002345678s'));
  const woken = Uint8Array.of(1, 0);

  it('fits a line that differs in its times and its durations', () => {
    expect(fits(t, pleg('00:10:01', '00:10:01.512000', '3m1.512345678s'), woken)).toBe(true);
    expect(fits(t, pleg('01:59:59', '01:59:59.999999', '9m9.999999999s'), woken)).toBe(true);
  });

  it('not one of another length, host, PID, or that woke other matchers', () => {
    expect(fits(t, pleg('00:10:01', '00:10:01.512000', '3m1.5s'), woken)).toBe(false);
    expect(fits(t, pleg('00:10:01', '00:10:01.512000', '3m1.512345678s', 'n2'), woken)).toBe(false);
    expect(fits(t, pleg('00:10:01', '00:10:01.512000', '3m1.512345678s', 'n1', 2232), woken)).toBe(false);
    expect(fits(t, pleg('00:10:01', '00:10:01.512000', '3m1.512345678s'), Uint8Array.of(1, 1))).toBe(false);
  });

  it('not a digit where the line has another character, nor digits outside a time or a duration', () => {
    expect(fits(t, pleg('00:10:01', '00:10:01.512000', '3m1.512345678s').replace('kubelet.go:2040', 'kubelet.go:2041'), woken)).toBe(false);
    expect(fits(t, pleg('00:10:01', '00:10:01.512000', '3mx.512345678s'), woken)).toBe(false);
    const cri = (code: string): string => `Mar  1 00:10:00 n1 kubelet[2231]: E0301 00:10:00.002000    2231 remote_runtime.go:356] "ListPodSandbox with filter from runtime service failed" err="rpc error: code = ${code} desc = failed" filter="nil"`;
    const c = template(cri('4'), 'list_podsandbox|DeadlineExceeded|client', 'cri-error');
    expect(fits(c, cri('4'), woken)).toBe(true);
    expect(fits(c, cri('5'), woken)).toBe(false);
  });

  it('keeps the "never" sentinel as written', () => {
    const never = template(pleg('00:10:00', '00:10:00.002000', '2562047h47m16.854775807s'), 'sync-loop|false|true');
    expect(fits(never, pleg('00:10:01', '00:10:01.002000', '2562047h47m16.854775807s'), woken)).toBe(true);
    expect(fits(never, pleg('00:10:01', '00:10:01.002000', '2562048h47m16.854775807s'), woken)).toBe(false);
  });

  it('keeps durations as written when its kind of event holds a digit', () => {
    const reason = template(pleg('00:10:00', '00:10:00.002000', '3m0.002345678s'), 'runtime 3m0.002345678s');
    expect(fits(reason, pleg('00:10:01', '00:10:01.002000', '3m0.002345678s'), woken)).toBe(true);
    expect(fits(reason, pleg('00:10:01', '00:10:01.002000', '3m1.002345678s'), woken)).toBe(false);
  });
});

/** A dense log of `n` lines from `start` (ms), 5 ms apart, of every variation; `bare`: the kubelet's own klog lines,
 *  with no journal prefix. */
function denseLog(n: number, start: number, bare = false, iso = false): string {
  const out: string[] = [];
  let x = 7;
  const rand = (): number => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
  for (let i = 0; i < n; i++) {
    let t = start + i * 5;
    // Now and then a line from a few seconds back (merged files).
    if (i % 9973 === 0 && i > 0) t -= 4000;
    const d = new Date(t);
    const host = i % 7 === 0 ? 'worker-2' : 'worker-1';
    // The kubelet restarts two thirds of the way through.
    const pid = i < (2 * n) / 3 ? 2231 : 4410;
    const stamp = `${MON[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`;
    const hdr = `${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.${String(d.getUTCMilliseconds() * 1000 + (i % 1000)).padStart(6, '0')}`;
    const pre = bare ? '' : `${iso ? `${d.toISOString().slice(0, 23)}${String(i % 1000).padStart(3, '0')}+00:00` : stamp} ${host} kubelet[${pid}]: `;
    const r = rand();
    // Go prints durations without trailing zeros: every length.
    const ns = Math.floor(rand() * 1e9);
    const age = r < 0.01 ? '2562047h47m16.854775807s' : `${3 + Math.floor(i / 12000)}m${Math.floor(rand() * 60)}${ns % 10 === 0 ? '' : `.${String(ns).replace(/0+$/, '')}`}s`;
    if (r < 0.5) out.push(`${pre}E${hdr}    ${pid} kubelet.go:2040] "Skipping pod synchronization" err="${r < 0.1 ? '[container runtime is down, ' : ''}PLEG is not healthy: pleg was last seen active ${age} ago; threshold is 3m0s${r < 0.1 ? ']' : ''}"`);
    else if (r < 0.6) out.push(`${pre}E${hdr}    ${pid} remote_runtime.go:432] "ContainerStatus from runtime service failed" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded" containerID="${(i % 150).toString(16).padStart(4, '0').repeat(16)}"`);
    else if (r < 0.7) out.push(`${pre}E${hdr}    ${pid} remote_runtime.go:356] "ListPodSandbox with filter from runtime service failed" err="rpc error: code = ${[4, 14, 2, 8][i % 4]} desc = failed after ${age}" filter="nil"`);
    else if (r < 0.8) out.push(`${pre}E${hdr}    ${pid} kubelet.go:2040] "Skipping pod synchronization" err="network is not ready for ${1 + (i % 3)}m0s: cni config uninitialized"`);
    else if (r < 0.9 && !bare) out.push(`${stamp} ${host} kernel: nfs: server nfs-${Math.floor(rand() * 40)}.example.com not responding, timed out after ${age}`);
    else if (r < 0.95) out.push(`${pre}I${hdr}    ${pid} kubelet_node_status.go:${500 + (i % 3)}] "Error updating node status, will retry" err="error getting node \\"${host}\\": context deadline exceeded after ${age}"`);
    // Not ASCII: never a template, read in full.
    else out.push(`${pre}E${hdr}    ${pid} remote_runtime.go:432] "ContainerStatus from runtime service failed" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded" pod="café-${i % 3}" after="${age}"`);
  }
  return `${out.join('\n')}\n`;
}

describe('folding unread', () => {
  const cases: Array<[string, number, { bare?: boolean; iso?: boolean; zone?: string }]> = [
    ['one day', Date.UTC(2024, 2, 1, 23, 50), {}],
    ['across New Year', Date.UTC(2023, 11, 31, 23, 57), {}],
    ['klog lines alone', Date.UTC(2023, 11, 31, 23, 57), { bare: true }],
    // Wall times through the hour New York's clocks skip (2024-03-10 02:00 → 03:00).
    ['in a zone whose clocks go forward', Date.UTC(2024, 2, 10, 1, 58), { zone: 'America/New_York' }],
    ['RFC 3339 prefixes', Date.UTC(2024, 2, 1, 23, 58), { iso: true }],
  ];
  for (const [what, start, o] of cases) {
    it(`gives what reading every line gives (${what})`, async () => {
      const text = denseLog(60_000, start, o.bare, o.iso);
      const year = new Date(start).getUTCFullYear();
      const x = new SignalExtractor({ artifact: 0, zone: resolveZone(o.zone ?? 'UTC'), year, notAfterMs: null });
      const bytes = Buffer.from(text);
      for (let i = 0; i < bytes.length; i += 65536) x.push(bytes.subarray(i, i + 65536));
      const fast = x.finish();
      const slow = await signalsOf(text, { noPrefilter: true, chunk: 65536, year, ...(o.zone ? { tz: o.zone } : {}) });
      // Most lines were folded unread.
      expect(x.unread).toBeGreaterThan(10_000);
      expect(fast.events).toEqual(slow.events);
      expect(fast.hosts).toEqual(slow.hosts);
      expect(fast.origins).toEqual(slow.origins);
      expect(fast.warnings).toEqual(slow.warnings);
    });
  }
});

describe('a rule pack needle with a digit', () => {
  it('a line that fits a template but holds the needle where the template has other digits is read in full', async () => {
    // `active 5m0.`: what a duration's digits make of a PLEG line, now and then; the template learned from another
    // duration must not fold it unsearched.
    const custom = [compileCustom({ id: 'five-minutes', pattern: 'active 5m0.', needles: ['active 5m0.'] })];
    const text = denseLog(40_000, Date.UTC(2024, 2, 1, 23, 50));
    const run = (noPrefilter: boolean) => {
      const x = new SignalExtractor({ artifact: 0, zone: resolveZone('UTC'), year: 2024, notAfterMs: null, custom, noPrefilter });
      const bytes = Buffer.from(text);
      for (let i = 0; i < bytes.length; i += 65536) x.push(bytes.subarray(i, i + 65536));
      return { x, s: x.finish() };
    };
    const fast = run(false);
    const slow = run(true);
    expect(fast.x.unread).toBeGreaterThan(5_000);
    const customOf = (s: typeof fast.s) => s.events.filter((e) => e.type === 'custom');
    expect(customOf(fast.s).length).toBeGreaterThan(10);
    expect(fast.s.events).toEqual(slow.s.events);
  });
});
