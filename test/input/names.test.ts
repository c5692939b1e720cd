import { describe, expect, it } from 'vitest';
import { nameTime, nodeHint } from '../../src/sources/files/names.js';

const T = Date.UTC(2024, 2, 11, 10, 0, 0);

describe('nameTime', () => {
  it('reads compact, extended and unix-second stamps as UTC', () => {
    expect(nameTime('metrics-20240311T100000Z.txt')).toBe(T);
    expect(nameTime('m-2024-03-11T10:00:00Z.prom')).toBe(T);
    expect(nameTime('node1_20240311-100000.metrics')).toBe(T);
    expect(nameTime('1710151200.prom')).toBe(T);
    expect(nameTime('metrics-1710151200000.txt')).toBe(T);
    expect(nameTime('0.log.20240311-100000.gz')).toBe(T);
    expect(nameTime('snap-2024-03-11_10-00-00.txt')).toBe(T);
    expect(nameTime('dir/metrics-20240311T100000Z.txt')).toBe(T);
  });

  it('applies an explicit zone', () => {
    expect(nameTime('m-2024-03-11T11:00:00+01:00.prom')).toBe(T);
    expect(nameTime('m-20240311T050000-0500.prom')).toBe(T);
  });

  it('reads a bare date as midnight UTC', () => {
    expect(nameTime('messages-20240311')).toBe(Date.UTC(2024, 2, 11));
    expect(nameTime('sosreport-node3-2024-03-01-abcd.tar.xz')).toBe(Date.UTC(2024, 2, 1));
  });

  it('returns null when the name has no plausible time', () => {
    expect(nameTime('kubelet.log')).toBeNull();
    expect(nameTime('metrics.txt')).toBeNull();
    expect(nameTime('20241399T250000Z.txt')).toBeNull();
    expect(nameTime('12345.prom')).toBeNull();
    expect(nameTime('9999999999.prom')).toBeNull();
    expect(nameTime('a13cf8c0911435346.log')).toBeNull();
    expect(nameTime('syslog.2.gz')).toBeNull();
  });
});

describe('nodeHint', () => {
  it('names the node only for nodes/<name>/…', () => {
    expect(nodeHint('must-gather/nodes/worker-1/dmesg')).toBe('worker-1');
    expect(nodeHint('nodes/ip-10-0-1-2.ec2.internal/kubelet.log')).toBe('ip-10-0-1-2.ec2.internal');
    expect(nodeHint('nodes/kubelet.log')).toBeNull();
    expect(nodeHint('logs/kubelet.log')).toBeNull();
    expect(nodeHint('nodes/Not_A_Node/x')).toBeNull();
  });
});
