import { describe, expect, it } from 'vitest';
import { looksBinary, sniff } from '../../src/sources/files/sniff.js';

const s = (text: string, name = 'x') => sniff(Buffer.from(text), name);
const lines = (...l: string[]) => l.join('\n') + '\n';

const PLEG_ERR =
  'E1121 10:00:03.123456    1234 generic.go:238] "GenericPLEG: Unable to retrieve pods" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded"';
const SKIP =
  'E1121 10:00:04.631719    1234 kubelet.go:2373] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3m0.416753742s ago; threshold is 3m0s"';

describe('sniff: journal text', () => {
  it('short, kubelet identifier', () => {
    expect(s(lines(
      `Nov 21 10:00:03 node-1 kubelet[1234]: ${PLEG_ERR}`,
      `Nov 21 10:00:04 node-1 kubelet[1234]: ${SKIP}`,
    ))).toEqual({ role: 'kubelet-log', format: 'journal-short' });
  });

  it('short-precise, kubenswrapper (must-gather service log)', () => {
    expect(s(lines(
      'Mar 09 16:58:52.133046 master01 kubenswrapper[3195]: I0309 16:58:52.132866    3195 kubelet_getters.go:182] "Pod status updated" pod="openshift-etcd/etcd-master01" status="Running"',
      'Mar 09 16:58:53.000102 master01 kubenswrapper[3195]: I0309 16:58:53.000001    3195 kubelet.go:2373] "SyncLoop (housekeeping)"',
    ))).toEqual({ role: 'kubelet-log', format: 'journal-short-precise' });
  });

  it('short-iso with +0000 and +00:00, identifiers not on any list', () => {
    expect(s(lines(
      `2024-11-21T10:00:03+0000 node-1 hyperkube[1234]: ${PLEG_ERR}`,
      `2024-11-21T10:00:04+0000 node-1 hyperkube[1234]: ${SKIP}`,
    ))).toEqual({ role: 'kubelet-log', format: 'journal-short-iso' });
    expect(s(lines(
      `2024-11-21T10:00:03+00:00 node-1 env[77]: ${PLEG_ERR}`,
    ))).toEqual({ role: 'kubelet-log', format: 'journal-short-iso' });
  });

  it('short-iso-precise, k3s', () => {
    expect(s(lines(
      `2024-11-21T10:00:03.123456+0000 node-1 k3s[1636]: ${PLEG_ERR}`,
      `2024-11-21T10:00:04.000001+0000 node-1 k3s[1636]: ${SKIP}`,
    ))).toEqual({ role: 'kubelet-log', format: 'journal-short-iso-precise' });
  });

  it('skips journal headers and reboot markers', () => {
    expect(s(lines(
      '-- Logs begin at Thu 2024-11-21 09:00:00 UTC, end at Thu 2024-11-21 11:00:00 UTC. --',
      `Nov 21 10:00:03 node-1 kubelet[1234]: ${PLEG_ERR}`,
      '-- Reboot --',
      `Nov 21 10:05:03 node-1 kubelet[999]: I1121 10:05:03.000001     999 server.go:440] "Kubelet version" kubeletVersion="v1.28.1"`,
    ))).toEqual({ role: 'kubelet-log', format: 'journal-short' });
    expect(s('-- Journal begins at Mon 2024-01-01 00:00:00 UTC, ends at Mon 2024-01-01 01:00:00 UTC. --\n-- No entries --\n'))
      .toEqual({ role: 'other', format: 'empty' });
  });

  it('a full journal is kubelet-log when any kubelet line is in the head', () => {
    const kernel = Array.from({ length: 60 }, (_, i) =>
      `Nov 21 10:00:${String(i % 60).padStart(2, '0')} node-1 kernel: pci 0000:00:${i}.0: [8086:1237] type 00 class 0x060000`);
    const text = lines(
      ...kernel,
      'Nov 21 10:01:00 node-1 systemd[1]: Started containerd container runtime.',
      'Nov 21 10:01:01 node-1 containerd[800]: time="2024-11-21T10:01:01.000000000Z" level=info msg="starting containerd" version=1.7.2',
      `Nov 21 10:01:03 node-1 kubelet[1234]: ${PLEG_ERR}`,
    );
    expect(s(text)).toEqual({ role: 'kubelet-log', format: 'journal-short' });
  });

  it('runtime journals: logrus payloads, runtime identifiers; kubelet paths in them do not count', () => {
    expect(s(lines(
      'Nov 21 10:00:03 node-1 dockerd[900]: time="2024-11-21T10:00:03.123456789Z" level=error msg="Handler for GET /v1.41/containers/json returned error: write unix /var/run/docker.sock->@: write: broken pipe"',
      'Nov 21 10:00:04 node-1 dockerd[900]: time="2024-11-21T10:00:04.000000000Z" level=info msg="ignoring event" container=abc module=libcontainerd namespace=moby topic=/tasks/delete type="*events.TaskDelete"',
    ))).toEqual({ role: 'runtime-log', format: 'journal-short' });
    expect(s(lines(
      'Nov 21 10:00:03 node-1 crio[700]: time="2024-11-21 10:00:03.123456789Z" level=info msg="Removed container abc: default/web-0/web" id=1 name=/runtime.v1.RuntimeService/RemoveContainer',
      'Nov 21 10:00:04 node-1 crio[700]: time="2024-11-21 10:00:04.000000001Z" level=info msg="Unmounting /var/lib/kubelet/pods/0892e7d7/volumes/kubernetes.io~secret/token"',
    ))).toEqual({ role: 'runtime-log', format: 'journal-short' });
  });

  it('kernel journals', () => {
    expect(s(lines(
      'Nov 21 10:00:03 node-1 kernel: INFO: task dockerd:1234 blocked for more than 120 seconds.',
      'Nov 21 10:00:03 node-1 kernel: Memory cgroup out of memory: Killed process 2345 (kubelet)',
    ))).toEqual({ role: 'kernel-log', format: 'journal-short' });
  });

  it('rsyslog lines without pid', () => {
    expect(s(lines(
      `Nov  1 10:00:03 node-1 kubelet: ${PLEG_ERR}`,
      `Nov  1 10:00:04 node-1 kubelet: ${SKIP}`,
    ))).toEqual({ role: 'kubelet-log', format: 'journal-short' });
  });

  it('printf-era kubelet under a wrapper identifier', () => {
    expect(s(lines(
      'Mar 02 16:06:10 node1 kubelet-wrapper[6871]: E0302 16:06:10.112233    6871 generic.go:197] GenericPLEG: Unable to retrieve pods: rpc error: code = DeadlineExceeded desc = context deadline exceeded',
      'Mar 02 16:06:11 node1 kubelet-wrapper[6871]: I0302 16:06:11.000001    6871 kubelet.go:1775] skipping pod synchronization - [PLEG is not healthy: pleg was last seen active 3m46.75s ago; threshold is 3m0s]',
    ))).toEqual({ role: 'kubelet-log', format: 'journal-short' });
  });

  it('journal json, MESSAGE as string or byte array', () => {
    const entry = (msg: unknown, ident = 'kubelet') =>
      JSON.stringify({ __CURSOR: 's=1', __REALTIME_TIMESTAMP: '1732183203123456', _HOSTNAME: 'node-1', SYSLOG_IDENTIFIER: ident, _PID: '1234', MESSAGE: msg });
    expect(s(lines(entry(PLEG_ERR), entry(SKIP)))).toEqual({ role: 'kubelet-log', format: 'journal-json' });
    expect(s(lines(entry([...Buffer.from(PLEG_ERR)])))).toEqual({ role: 'kubelet-log', format: 'journal-json' });
    expect(s(lines(entry('time="2024-01-11T10:00:00Z" level=info msg="x"', 'containerd')))).toEqual({ role: 'runtime-log', format: 'journal-json' });
  });
});

describe('sniff: bare kubelet formats', () => {
  it('klog', () => {
    expect(s(lines(PLEG_ERR, SKIP))).toEqual({ role: 'kubelet-log', format: 'klog' });
  });

  it('klog with a partial first line and deprecation notices first', () => {
    expect(s(lines(
      'ut of pods" err="context deadline exceeded"',
      'Flag --cgroup-driver has been deprecated, This parameter should be set via the config file.',
      PLEG_ERR,
      SKIP,
      PLEG_ERR,
    ))).toEqual({ role: 'kubelet-log', format: 'klog' });
  });

  it('klog with multi-line values (continuations start with a tab)', () => {
    expect(s(lines(
      'I1121 10:00:03.123456    1234 kubelet.go:100] "Message" text=<',
      '\tline one',
      '\tline two',
      ' >',
      SKIP,
    ))).toEqual({ role: 'kubelet-log', format: 'klog' });
  });

  it('json-log (--logging-format=json)', () => {
    expect(s(lines(
      '{"ts":1753121331919.7622,"caller":"app/server.go:520","msg":"Kubelet version","v":0,"kubeletVersion":"v1.32.4"}',
      '{"ts":1757010283211.4668,"caller":"kubelet/kubelet.go:2460","msg":"Skipping pod synchronization","err":"PLEG is not healthy: pleg was last seen active 16h14m34.439643899s ago; threshold is 3m0s","errCauses":[{"error":"PLEG is not healthy: pleg was last seen active 16h14m34.439643899s ago; threshold is 3m0s"}]}',
      '{"ts":1753121294157.29,"caller":"internal/log.go:32","msg":"RunPodSandbox from runtime service failed","err":"rpc error: code = DeadlineExceeded desc = context deadline exceeded"}',
    ))).toEqual({ role: 'kubelet-log', format: 'json-log' });
  });
});

describe('sniff: container log envelopes', () => {
  it('cri-log holding kubelet lines', () => {
    expect(s(lines(
      `2023-12-18T06:13:36.831359143+00:00 stderr F ${SKIP}`,
      `2023-12-18T06:13:37.000000001+00:00 stderr F ${PLEG_ERR}`,
    ))).toEqual({ role: 'kubelet-log', format: 'cri-log' });
  });

  it('cri-log of some other component is other', () => {
    expect(s(lines(
      '2023-12-18T06:13:36.831359143+00:00 stdout F I1218 06:13:36.831000       1 proxier.go:800] "SyncProxyRules complete"',
      '2023-12-18T06:13:36.831359143+00:00 stdout P partial line',
    ))).toEqual({ role: 'other', format: 'cri-log' });
  });

  it('docker json-file log', () => {
    expect(s(lines(
      JSON.stringify({ log: `${SKIP}\n`, stream: 'stderr', time: '2024-01-11T10:00:00.123456789Z' }),
      JSON.stringify({ log: `${PLEG_ERR}\n`, stream: 'stderr', time: '2024-01-11T10:00:01.123456789Z' }),
    ))).toEqual({ role: 'kubelet-log', format: 'docker-json-log' });
  });

  it('rfc3339-prefixed (docker logs -t)', () => {
    expect(s(lines(`2024-01-11T10:00:00.123456789Z ${SKIP}`, `2024-01-11T10:00:01.123456789Z ${PLEG_ERR}`)))
      .toEqual({ role: 'kubelet-log', format: 'rfc3339-prefixed' });
  });

  it('the name breaks a tie: klog payloads without kubelet text in a file named kubelet', () => {
    const text = lines('2024-01-11T10:00:00.123456789Z I0111 10:00:00.123456    1234 server.go:440] "Golang settings" GOGC=""');
    expect(s(text, 'other.log').role).toBe('other');
    expect(s(text, 'kubelet.log').role).toBe('kubelet-log');
  });
});

describe('sniff: runtime, kernel, metrics, dumps, objects', () => {
  it('dockerd logrus lines', () => {
    expect(s(lines(
      'time="2024-01-11T10:00:00.123456789Z" level=error msg="Handler for GET /v1.41/containers/json returned error: write unix /var/run/docker.sock->@: write: broken pipe"',
      'time="2024-01-11T10:00:01.000000000Z" level=warning msg="Health check for container abc error: context deadline exceeded"',
    ))).toEqual({ role: 'runtime-log', format: 'logrus' });
  });

  it('dmesg and dmesg -T', () => {
    expect(s(lines(
      '[    0.000000] Linux version 5.14.0-284.el9.x86_64',
      '[12345.678901] INFO: task dockerd:1234 blocked for more than 120 seconds.',
      '[12345.678950]       Not tainted 5.14.0-284.el9.x86_64 #1',
    ))).toEqual({ role: 'kernel-log', format: 'dmesg' });
    expect(s(lines(
      '[Thu Jan 11 10:00:00 2024] nfs: server 10.0.0.5 not responding, still trying',
      '[Thu Jan 11 10:00:05 2024] unregister_netdevice: waiting for eth0 to become free. Usage count = 1',
    ))).toEqual({ role: 'kernel-log', format: 'dmesg-T' });
  });

  it('kubelet prometheus text', () => {
    expect(s(lines(
      '# HELP kubelet_pleg_relist_duration_seconds [ALPHA] Duration in seconds for relisting pods in PLEG.',
      '# TYPE kubelet_pleg_relist_duration_seconds histogram',
      'kubelet_pleg_relist_duration_seconds_bucket{le="0.005"} 0',
      'kubelet_pleg_relist_duration_seconds_bucket{le="+Inf"} 12345',
      'kubelet_pleg_relist_duration_seconds_sum 1234.5',
      'kubelet_pleg_relist_duration_seconds_count 12345',
      'kubelet_runtime_operations_total{operation_type="list_podsandbox"} 4.2e+06',
      'kubelet_running_pods 43',
    ))).toEqual({ role: 'metrics', format: 'prometheus-text' });
  });

  it('prometheus text without kubelet series is still metrics', () => {
    expect(s(lines(
      '# HELP node_load1 1m load average.',
      '# TYPE node_load1 gauge',
      'node_load1 0.42',
      'node_cpu_seconds_total{cpu="0",mode="idle"} 1.2345e+06 1710151200000',
    ))).toEqual({ role: 'metrics', format: 'prometheus-text' });
  });

  it('openmetrics', () => {
    expect(s(lines(
      '# TYPE kubelet_pleg_relist_duration_seconds histogram',
      'kubelet_pleg_relist_duration_seconds_bucket{le="1.0"} 3 1710151200.000',
      '# EOF',
    ))).toEqual({ role: 'metrics', format: 'openmetrics' });
  });

  it('a few `name value` lines alone are not metrics, nor are name/number tables', () => {
    expect(s('enabled 1\n')).toEqual({ role: 'other', format: 'other' });
    expect(s(lines('portmapper\t100000\tportmap sunrpc rpcbind', 'ypbind\t\t100007', 'rje_mapper\t100014', 'alis\t\t100018', 'sched\t\t100019')).role)
      .toBe('other');
    expect(s(lines('IPv4\t\t0800\tip ip4\t# IP (IPv4)', 'X25\t\t0805', 'FR_ARP\t\t0808\t\t# Frame Relay ARP [RFC1701]', 'IPX\t\t8137\t\t# Novell IPX')).role)
      .toBe('other');
  });

  it('grepped kubelet series without HELP/TYPE lines are metrics', () => {
    expect(s(lines(
      'kubelet_pleg_relist_duration_seconds_bucket{le="0.005"} 0',
      'kubelet_pleg_relist_duration_seconds_bucket{le="+Inf"} 12345',
      'kubelet_pleg_relist_duration_seconds_count 12345',
    ))).toEqual({ role: 'metrics', format: 'prometheus-text' });
  });

  it('goroutine dumps', () => {
    expect(s(lines(
      'goroutine 412 [chan send, 5 minutes]:',
      'k8s.io/kubernetes/pkg/kubelet/pleg.(*GenericPLEG).relist(0xc000a1e000)',
      '\t/workspace/src/k8s.io/kubernetes/pkg/kubelet/pleg/generic.go:260 +0x7a5',
      'k8s.io/apimachinery/pkg/util/wait.JitterUntil.func1()',
      '\t/workspace/src/k8s.io/apimachinery/pkg/util/wait/wait.go:152 +0x5e',
      'created by k8s.io/kubernetes/pkg/kubelet/pleg.(*GenericPLEG).Start',
      '\t/workspace/src/k8s.io/kubernetes/pkg/kubelet/pleg/generic.go:130 +0x88',
      '',
      'goroutine 1 [select, 120 minutes]:',
      'main.main()',
      '\t/workspace/cmd/kubelet/kubelet.go:41 +0x1a',
    ))).toEqual({ role: 'goroutine-dump', format: 'goroutine-dump' });
    expect(s('goroutine profile: total 250\n50 @ 0x43a0c5 0x44b6a3\n#\t0x44b6a2\tsync.runtime_notifyListWait+0x122\t/usr/local/go/src/runtime/sema.go:513\n'))
      .toEqual({ role: 'goroutine-dump', format: 'goroutine-dump' });
  });

  it('Node objects in yaml and json; other objects are not node-object', () => {
    expect(s(lines('apiVersion: v1', 'kind: Node', 'metadata:', '  name: worker-1', 'status:', '  conditions:', '  - type: Ready', '    status: "False"')))
      .toEqual({ role: 'node-object', format: 'yaml' });
    expect(s(lines('apiVersion: v1', 'items:', '- apiVersion: v1', '  kind: Node', '  metadata:', '    name: worker-1')))
      .toEqual({ role: 'node-object', format: 'yaml' });
    expect(s(JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'w1' } }, null, 4)))
      .toEqual({ role: 'node-object', format: 'json' });
    expect(s(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'Node' }] }, null, 4)))
      .toEqual({ role: 'node-object', format: 'json' });
    // A cut-off pretty-printed Node.
    const cut = JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'w1', labels: { a: 'b'.repeat(200) } } }, null, 4).slice(0, 120);
    expect(s(cut)).toEqual({ role: 'node-object', format: 'json' });
    // Events about a node are not the node.
    expect(s(lines('apiVersion: v1', 'items:', '- apiVersion: v1', '  involvedObject:', '    kind: Node', '    name: w1', '  kind: Event')).role)
      .toBe('other');
  });
});

describe('sniff: damage and non-text', () => {
  it('empty, binary, journal files, archives, nested compression, encryption', () => {
    expect(sniff(Buffer.alloc(0), 'x')).toEqual({ role: 'other', format: 'empty' });
    expect(sniff(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0x3e, 0, 1, 0, 0, 0]), 'x').format).toBe('binary');
    expect(sniff(Buffer.concat([Buffer.from('LPKSHHRH'), Buffer.alloc(200)]), 'system.journal').format).toBe('journal-binary');
    expect(sniff(Buffer.from('PK\x03\x04\x14\x00\x00\x00', 'latin1'), 'x.zip').format).toBe('archive');
    const tar = Buffer.alloc(512);
    tar.write('kubelet.log', 0);
    tar.write('ustar\x0000', 257, 'latin1');
    expect(sniff(tar, 'x').format).toBe('archive');
    expect(sniff(Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0]), 'x').format).toBe('compressed');
    expect(sniff(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0x58]), 'x').format).toBe('compressed');
    expect(s('-----BEGIN PGP MESSAGE-----\n\nhQEMA...\n').format).toBe('encrypted');
    // gpg -c: symmetric-key session packet, version 4, then binary.
    const gpg = Buffer.from([0x8c, 0x0d, 0x04, 0x09, 0x03, 0x02, 0xa1, 0x00, 0x83, 0x91, 0x01, 0xff, 0x00, 0x02, 0x10, 0x04, 0x05]);
    expect(sniff(gpg, 'x.gpg').format).toBe('encrypted');
  });

  it('a NUL block in a log (crash padding) does not make it binary; stray NULs and controls do', () => {
    const log = Buffer.concat([Buffer.from(`${PLEG_ERR}\n`), Buffer.alloc(4096), Buffer.from(`${SKIP}\n${SKIP}\n`)]);
    expect(looksBinary(log)).toBe(false);
    expect(sniff(log, 'x')).toEqual({ role: 'kubelet-log', format: 'klog' });
    const junk = Buffer.alloc(2048);
    for (let i = 0; i < junk.length; i++) junk[i] = (i * 7919) % 256;
    expect(looksBinary(junk)).toBe(true);
  });

  it('a journal with crash padding before the next boot', () => {
    const log = Buffer.concat([
      Buffer.from(`Nov 21 10:00:03 node-1 kubelet[1234]: ${PLEG_ERR}\nNov 21 10:00:04 node-1 kub`),
      Buffer.alloc(3000),
      Buffer.from(`Nov 21 10:09:00 node-1 kubelet[999]: ${SKIP}\n`),
    ]);
    expect(sniff(log, 'messages')).toEqual({ role: 'kubelet-log', format: 'journal-short' });
  });

  it('pathological lines are judged quickly', () => {
    const started = Date.now();
    for (const line of ['('.repeat(65536), 'a{' + '} 1 '.repeat(16000), `goroutine 1 [x]:\n${'a('.repeat(30000)}`, '{'.repeat(65536), '['.repeat(65536)]) {
      sniff(Buffer.from(line), 'x');
    }
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('text that is none of the known formats', () => {
    expect(s('hello\nthis is a README\n')).toEqual({ role: 'other', format: 'other' });
  });
});
