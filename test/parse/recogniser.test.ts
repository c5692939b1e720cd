// The one line recogniser (src/parse/record.ts) on lines shaped the way people paste them: whatever came before the
// message, a prefix contributes only what it has, and the message is the same.
import { describe, expect, it } from 'vitest';
import { parseLine, type ParseContext } from '../../src/parse/record.js';
import { resolveZone, WallClock, YearClock } from '../../src/parse/time.js';
import { eventsOf, signalsOf } from '../helpers/signals.js';

function ctx(year = 2023): ParseContext {
  const wall = new WallClock(resolveZone('UTC'));
  return { wall, years: new YearClock(wall, { year }) };
}
const iso = (ms: number): string => new Date(ms).toISOString();
const MSG = '"Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 4m2.5s ago; threshold is 3m0s"';

describe('the same message behind any prefix', () => {
  const shapes: Array<[string, string]> = [
    ['full journal line', `Feb 03 11:20:07 worker-9 kubelet[4321]: E0203 11:20:07.000150    4321 kubelet.go:2412] ${MSG}`],
    ['journal with an empty host', `Feb 03 11:20:07  kubelet[4321]: E0203 11:20:07.000150    4321 kubelet.go:2412] ${MSG}`],
    ['rsyslog without pid', `Feb  3 11:20:07 worker-9 kubelet: E0203 11:20:07.000150    4321 kubelet.go:2412] ${MSG}`],
    ['bare klog', `E0203 11:20:07.000150    4321 kubelet.go:2412] ${MSG}`],
    ['klog with --add_dir_header', `E0203 11:20:07.000150    4321 kubelet/kubelet.go:2412] ${MSG}`],
    ['header cut at the caller', `kubelet.go:2412] ${MSG}`],
    ['severity and date cut off', `11:20:07.000150    4321 kubelet.go:2412] ${MSG}`],
    ['the message alone', MSG],
    ['quoted in a ticket', `> E0203 11:20:07.000150    4321 kubelet.go:2412] ${MSG}`],
    ['indented in a paste', `      E0203 11:20:07.000150    4321 kubelet.go:2412] ${MSG}`],
    ['a stray backtick', '`' + `E0203 11:20:07.000150    4321 kubelet.go:2412] ${MSG}`],
    ['kubectl logs --prefix', `[pod/kubelet-x7k2p/kubelet] E0203 11:20:07.000150    4321 kubelet.go:2412] ${MSG}`],
    ['a CRI log', `2023-02-03T11:20:07.000150123Z stderr F E0203 11:20:07.000150    4321 kubelet.go:2412] ${MSG}`],
    ['docker logs -t', `2023-02-03T11:20:07.000150123Z E0203 11:20:07.000150    4321 kubelet.go:2412] ${MSG}`],
    ['journal short-full', `Fri 2023-02-03 11:20:07 UTC worker-9 kubelet[4321]: E0203 11:20:07.000150    4321 kubelet.go:2412] ${MSG}`],
    ['journal short-unix', `1675423207.000150 worker-9 kubelet[4321]: E0203 11:20:07.000150    4321 kubelet.go:2412] ${MSG}`],
    ['journalctl -o short-monotonic', `[ 5123.456789] worker-9 kubelet[4321]: E0203 11:20:07.000150    4321 kubelet.go:2412] ${MSG}`],
    ['aws logs tail', `2023-02-03T11:20:07.000000+00:00 i-0abc123/kubelet E0203 11:20:07.000150    4321 kubelet.go:2412] ${MSG}`],
    ['Loki logcli', `2023-02-03T11:20:07Z {host="worker-9", job="systemd-journal", unit="kubelet.service"} E0203 11:20:07.000150    4321 kubelet.go:2412] ${MSG}`],
  ];
  for (const [name, line] of shapes) {
    it(name, () => {
      const r = parseLine(line, 1, 0, ctx())!;
      expect(r.msg).toBe('Skipping pod synchronization');
      expect(r.fields['err']).toContain('4m2.5s');
      expect(r.kind).toBe('klog');
      expect(r.origin).toBe('kubelet');
      expect(r.text).toBe(line);
    });
  }

  it('each prefix gives what it has: host, identifier, PID, caller, time', () => {
    const full = parseLine(shapes[0]![1], 1, 0, ctx())!;
    expect([full.host, full.ident, full.pid, full.caller, iso(full.ts)]).toEqual(['worker-9', 'kubelet', 4321, 'kubelet.go:2412', '2023-02-03T11:20:07.000Z']);
    const empty = parseLine(shapes[1]![1], 1, 0, ctx())!;
    expect([empty.host, empty.ident]).toEqual([null, 'kubelet']);
    const cut = parseLine(shapes[5]![1], 1, 0, ctx())!;
    expect([cut.caller, cut.pid, cut.ts]).toEqual(['kubelet.go:2412', null, NaN]);
    const bare = parseLine(MSG, 1, 0, ctx())!;
    expect([bare.ts, bare.host, bare.caller]).toEqual([NaN, null, null]);
  });

  it('a tool prefix names the node (talosctl) and JSON logging keeps its epoch-millisecond time', () => {
    const r = parseLine('10.5.0.3: {"ts":1675423207000.15,"caller":"kubelet/kubelet.go:2412","msg":"Skipping pod synchronization","err":"PLEG is not healthy: pleg was last seen active 4m2.5s ago; threshold is 3m0s"}', 1, 0, ctx())!;
    expect(r.host).toBe('10.5.0.3');
    expect(r.kind).toBe('json');
    expect(iso(r.ts)).toBe('2023-02-03T11:20:07.000Z');
  });

  it('a time of day alone is placed on the day of the dated line before it', () => {
    const c = ctx();
    parseLine('Feb 03 23:59:58 worker-9 kubelet[1]: I0203 23:59:58.000000       1 x.go:1] "a"', 1, 0, c);
    const next = parseLine('00:00:03.250000    4321 kubelet.go:2412] "b"', 2, 0, c)!;
    expect(iso(next.ts)).toBe('2023-02-04T00:00:03.250Z');
    const alone = parseLine('00:00:03.250000    4321 kubelet.go:2412] "b"', 1, 0, ctx())!;
    expect(alone.ts).toBeNaN();
    expect(alone.timeOfDay).toBe(3250);
  });

  it('CRI-O stamps with a space, logrus continuation of a wrapped line, crictl\'s FATA', () => {
    const crio = parseLine('Jan 18 10:40:31 n1 crio[745]: time="2022-01-18 10:40:31.438668621Z" level=info msg="Starting CRI-O, version: 1.23.0, git: x(clean)"', 1, 0, ctx(2022))!;
    expect([crio.kind, crio.origin, iso(crio.ts)]).toEqual(['logrus', 'runtime', '2022-01-18T10:40:31.438Z']);
    const cont = parseLine('msg="failed to reload cni configuration" error="cni plugin not initialized"', 1, 0, ctx())!;
    expect([cont.kind, cont.msg, cont.fields['error']]).toEqual(['logrus', 'failed to reload cni configuration', 'cni plugin not initialized']);
    const fata = parseLine('FATA[0010] listing containers: rpc error: code = DeadlineExceeded desc = context deadline exceeded', 1, 0, ctx())!;
    expect([fata.kind, fata.level, fata.origin]).toEqual(['logrus', 'F', 'runtime']);
  });

  it('who wrote it, from content: kernel, runtime, the init system, the controller manager, nothing says', () => {
    expect(parseLine('Jan 26 21:58:09 h kernel: INFO: task containerd:812 blocked for more than 120 seconds.', 1, 0, ctx())!.origin).toBe('kernel');
    expect(parseLine('[ 4711.123456] INFO: task jbd2/sda1-8:361 blocked for more than 120 seconds.', 1, 0, ctx())!.origin).toBe('kernel');
    expect(parseLine('May 29 12:19:10 h containerd[9691]: panic: runtime error: invalid memory address or nil pointer dereference', 1, 0, ctx())!.origin).toBe('runtime');
    expect(parseLine('May 29 17:27:44 h systemd[1]: containerd.service: Found left-over process 4810 (containerd-shim) in control group while starting unit. Ignoring.', 1, 0, ctx())!.origin).toBe('system');
    expect(parseLine('I0912 01:00:08.920296    8135 node_lifecycle_controller.go:1020] "Node is NotReady" node="w1"', 1, 0, ctx())!.origin).toBe('controller');
    expect(parseLine('GenericPLEG: Unable to retrieve pods: cannot connect to Docker endpoint', 1, 0, ctx())!.origin).toBe('unknown');
  });

  it('what log tools put before the line names the host: Loki labels (host, node, instance without its port), an AWS stream, a journal line after a monotonic stamp', () => {
    const at = (labels: string) => parseLine(`2023-02-03T11:20:07Z ${labels} E0203 11:20:07.000150    4321 kubelet.go:2412] ${MSG}`, 1, 0, ctx())!;
    expect(at('{host="worker-9", unit="kubelet.service"}').host).toBe('worker-9');
    expect(at('{instance="10.0.3.7:9100", job="node"}').host).toBe('10.0.3.7');
    expect(at('{unit="kubelet.service"}').host).toBeNull();
    expect(at('{unit="kubelet.service"}').msg).toBe('Skipping pod synchronization');
    // The stream name `aws logs tail` prints, and the host of a short-monotonic journal line.
    expect(parseLine(`2023-02-03T11:20:07.000000+00:00 i-0abc123/kubelet E0203 11:20:07.000150    4321 kubelet.go:2412] ${MSG}`, 1, 0, ctx())!.host).toBe('i-0abc123');
    const mono = parseLine(`[ 5123.456789] worker-9 kubelet[4321]: E0203 11:20:07.000150    4321 kubelet.go:2412] ${MSG}`, 1, 0, ctx())!;
    expect([mono.host, mono.ident, mono.mono]).toEqual(['worker-9', 'kubelet', 5123.456789]);
    // A kernel line keeps its stamp and its origin.
    const k = parseLine('[ 5123.456789] INFO: task containerd:812 blocked for more than 120 seconds.', 1, 0, ctx())!;
    expect([k.host, k.origin]).toEqual([null, 'kernel']);
  });

  it('MicroK8s: kubelite is the kubelet, its daemon-containerd is containerd', async () => {
    expect(parseLine(`Mar 02 11:14:01 mk8s microk8s.daemon-kubelite[2201]: E0302 11:14:01.101000    2201 kubelet.go:2185] ${MSG}`, 1, 0, ctx())!.origin).toBe('kubelet');
    const evs = await eventsOf('Mar 02 11:14:09 mk8s microk8s.daemon-containerd[1990]: time="2023-03-02T11:14:09.000000000Z" level=error msg="ListContainers failed" error="context deadline exceeded"\n');
    expect(evs.map((e) => [e.type, 'runtime' in e ? e.runtime : null])).toEqual([['runtime-daemon-error', 'containerd']]);
  });

  it('elisions, code fences and continuation frames are not entries', () => {
    for (const l of ['...', '......', '…', '```', '```log', '\t/usr/local/go/src/os/stat.go:13 +0x4d']) {
      const r = parseLine(l, 1, 0, ctx());
      expect(r === null || r.msg === 'log', l).toBe(true);
    }
  });
});

describe('lines without a time, in the extractor', () => {
  it('a wrapped line\'s continuation takes its dated neighbour\'s time and host', async () => {
    const evs = await eventsOf([
      'Aug 28 08:25:13 node01 containerd[1324]: time="2024-08-28T08:25:13.924230251+08:00" level=error ',
      'msg="failed to reload cni configuration after receiving fs change event" error="cni config load failed: cni plugin not initialized: failed to load cni config"',
    ].join('\n') + '\n');
    const e = evs.find((x) => x.type === 'network-not-ready')!;
    expect(e.host).toBe('node01');
    // The journal's own stamp of the line before (its zone is the reader's: UTC here).
    expect(iso(e.ts)).toBe('2024-08-28T08:25:13.000Z');
  });

  it('a fragment with no time at all is used without one, said once per file', async () => {
    const s = await signalsOf(`${MSG}\n"GenericPLEG: Unable to retrieve pods" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded"\n`);
    expect(s.events.map((e) => e.type)).toEqual(['relist-unhealthy', 'relist-failed']);
    expect(s.events.every((e) => Number.isNaN(e.ts))).toBe(true);
    expect(s.warnings.filter((w) => w.code === 'undated')).toHaveLength(1);
  });

  it('an elision line ends nothing: the stall before it ends where the input cannot say', async () => {
    const evs = await eventsOf([
      'I0523 11:25:06.087934   20904 kubelet.go:1828] skipping pod synchronization - PLEG is not healthy: pleg was last seen active 3m41.3s ago; threshold is 3m0s.',
      '......',
      'I0524 10:01:42.180287   28586 kubelet.go:1828] skipping pod synchronization - PLEG is not healthy: pleg was last seen active 1h17m57.1s ago; threshold is 3m0s.',
    ].join('\n') + '\n', { year: 2019 });
    expect(evs.map((e) => e.type)).toEqual(['relist-unhealthy', 'gap', 'kubelet-line', 'relist-unhealthy']);
  });

  it('a paste TAB-indented as a whole is read as lines; a log\'s own TAB lines stay continuations', async () => {
    const lines = [
      `${MSG}`,
      '"GenericPLEG: Unable to retrieve pods" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded"',
    ];
    const both = ['relist-unhealthy', 'relist-failed'];
    for (const opts of [{}, { noPrefilter: true }]) {
      expect((await eventsOf(lines.map((l) => `\t${l}`).join('\n') + '\n', opts)).map((e) => e.type)).toEqual(both);
      expect((await eventsOf(lines.join('\n') + '\n', opts)).map((e) => e.type)).toEqual(both);
      // In a log whose first line is not indented, a TAB-indented line continues the entry above (as a stack frame does).
      expect((await eventsOf(`${lines[0]}\n\t${lines[1]}\n`, opts)).map((e) => e.type)).toEqual(['relist-unhealthy']);
      // In a TAB-indented paste, a line indented further is a continuation the same way.
      expect((await eventsOf(`\t${lines[0]}\n\t\t${lines[1]}\n`, opts)).map((e) => e.type)).toEqual(['relist-unhealthy']);
    }
  });

  it('grep and cat -n output is read as the lines it shows; lines that only look like it are left as they are', async () => {
    const log = [
      'Mar 11 10:04:12 worker-3 kubelet[2211]: E0311 10:04:12.000150    2211 kubelet.go:2412] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3m12s ago; threshold is 3m0s"',
      'Mar 11 10:04:13 worker-3 kubelet[2211]: E0311 10:04:13.000150    2211 generic.go:205] "GenericPLEG: Unable to retrieve pods" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded"',
    ];
    const shape = (evs: Awaited<ReturnType<typeof eventsOf>>) => evs.map((e) => [e.type, e.host, iso(e.ts)]);
    const plain = shape(await eventsOf(log.join('\n') + '\n'));
    expect(plain.map((e) => e[0])).toEqual(['relist-unhealthy', 'relist-failed']);
    const shapes = {
      'grep -n': log.map((l, i) => `${i + 40}:${l}`),
      'grep -n, a context line': [`40:${log[0]}`, `41-${log[1]}`],
      'grep over files': log.map((l) => `/var/log/messages-20240311:${l}`),
      'grep -rn': log.map((l, i) => `messages:${i + 7}:${l}`),
      'cat -n': log.map((l, i) => `${String(i + 1).padStart(6)}\t${l}`),
    };
    for (const [name, lines] of Object.entries(shapes)) {
      for (const opts of [{}, { noPrefilter: true }]) expect(shape(await eventsOf(lines.join('\n') + '\n', opts)), name).toEqual(plain);
    }
    // A time-only journal line and a header cut at its caller are not grep output.
    const timeOnly = await eventsOf(`${log[0]}\n10:04:14 kubelet[2211]: ${MSG}\n`);
    expect(timeOnly.map((e) => [e.type, iso(e.ts)])).toEqual([['relist-unhealthy', '2024-03-11T10:04:12.000Z'], ['relist-unhealthy', '2024-03-11T10:04:14.000Z']]);
    expect((await eventsOf(`kubelet.go:2412] ${MSG}\n`)).map((e) => e.type)).toEqual(['relist-unhealthy']);
  });

  it('paste damage inside a duration is read through', async () => {
    const evs = await eventsOf('E0203 11:20:07.000150    4321 kubelet.go:2412] skipping pod synchronization - PLEG is not healthy: pleg was last seen active 3m 12.5s ago; threshold is 3m0s\n');
    expect((evs[0] as { ageSeconds: number }).ageSeconds).toBeCloseTo(192.5, 6);
  });
});
