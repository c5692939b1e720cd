// Years and zones per file (issue 14 point 3): each file's year-less stamps are anchored on its own evidence (its own
// dated lines, its node's dated logs and metrics), never on another node's log of another year; an assumed year is said
// in the report with how to set it; --tz says how to read zone-less times, --display-tz how to show them; logs and
// metrics of one node that put the same stall whole hours apart are told apart by a warning, not as two stalls.
import { mkdtempSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Analysis } from '../src/contract/analysis.js';
import { cli } from './helpers/cli.js';
import { writeFolder } from './helpers/scenario.js';

const FIX = join(__dirname, '..', 'fixtures', 'sample-incident');
const tmp = mkdtempSync(join(tmpdir(), 'plegscope-years-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const folder = (name: string, files: Record<string, string>): string => writeFolder(tmp, name, files);
const sample = (f: string) => readFileSync(join(FIX, f), 'utf8');
function json(args: string[]): Analysis {
  const r = cli(['analyze', ...args, '--format', 'json']);
  expect([0, 1], r.stderr).toContain(r.code);
  return JSON.parse(r.stdout) as Analysis;
}
/** Another node's journal, a year later, in short-iso (every line carries its year). */
const otherNode2025 = Array.from({ length: 20 }, (_, i) => `2025-01-0${1 + (i % 9)}T10:00:${String(i).padStart(2, '0')}+0000 node-b containerd[901]: time="2025-01-0${1 + (i % 9)}T10:00:${String(i).padStart(2, '0')}.000000000Z" level=info msg="ImageCreate event name:\\"x\\""`).join('\n') + '\n';
/** The same in journal short (no year in the prefix; the year only in containerd's own `time=`). */
const containerdShort = otherNode2025.replace(/^2025-01-0(\d)T(\S+)\+0000 /gm, 'Jan 0$1 $2 ');

describe('years per file', () => {
  it('an unrelated node\'s 2025 log does not move this node\'s year-less journal to 2025: its own metrics anchor it', () => {
    const d = folder('unrelated', {
      'worker-3/kubelet.log': sample('kubelet.log'),
      'worker-3/metrics-20240311T101000Z.txt': sample('metrics-20240311T101000Z.txt'),
      'worker-3/metrics-20240311T102000Z.txt': sample('metrics-20240311T102000Z.txt'),
      'node-b/containerd.log': otherNode2025,
    });
    // The files' own dates say nothing (copied today).
    const a = json([d]);
    const w3 = a.nodes.find((n) => n.name === 'worker-3')!;
    expect(w3.stalls).toHaveLength(1);
    expect(w3.stalls[0]!.lastRelistAt).toBe('2024-03-11T10:07:12.000Z'.replace('.000Z', w3.stalls[0]!.lastRelistAt!.slice(19)));
    expect(w3.stalls[0]!.lastRelistAt!.slice(0, 4)).toBe('2024');
    const kubelet = a.inputs[0]!.artifacts.find((x) => x.path === 'worker-3/kubelet.log')!;
    expect(kubelet.year).toEqual({ value: 2024, from: 'same-host' });
  });

  it('a year nothing states is said in the report, with how to set it; --year silences it', () => {
    // (Without the Ready condition's own dates, the one line that states the year: see below.)
    const d = folder('assumed', { 'kubelet.log': sample('kubelet.log').replace(/"last(?:Heartbeat|Transition)Time":"[^"]*",/g, '') });
    const old = new Date('2023-06-01T00:00:00Z');
    utimesSync(join(d, 'kubelet.log'), old, old);
    const text = cli(['analyze', d]).stdout.replace(/\s+/g, ' ');
    expect(text).toContain('Times without a year were read as 2023 (the file\'s modification date) in kubelet.log');
    expect(text).toContain('--year YYYY');
    expect(json([d]).inputs[0]!.artifacts[0]!.year).toEqual({ value: 2023, from: 'file-date' });
    const set = cli(['analyze', d, '--year', '2024']).stdout;
    expect(set).not.toMatch(/Times without a year/);
    expect(json([d, '--year', '2024']).nodes[0]!.stalls[0]!.lastRelistAt!.slice(0, 4)).toBe('2024');
    for (const format of ['markdown', 'html']) expect(cli(['analyze', d, '--format', format]).stdout.replace(/\s+/g, ' ')).toContain('Times without a year were read as 2023');
  });

  it('a year assumed from the file\'s date gives way to its own line that states another (the Ready condition\'s lastHeartbeatTime, deep in the log)', () => {
    const d = folder('stated', { 'kubelet.log': sample('kubelet.log') });
    const fresh = new Date('2026-11-01T00:00:00Z');
    utimesSync(join(d, 'kubelet.log'), fresh, fresh);
    const a = json([d]);
    expect(a.inputs[0]!.artifacts[0]!.year).toEqual({ value: 2024, from: 'content' });
    expect(a.nodes[0]!.stalls[0]!.lastRelistAt).toBe('2024-03-11T10:07:12.347Z');
    expect(cli(['analyze', d]).stdout).not.toMatch(/Times without a year/);
  });

  it('a full date in the file\'s own lines anchors it (a journal of containerd lines with time="…")', () => {
    const d = folder('own', { 'containerd.log': containerdShort });
    const a = json([d]);
    expect(a.inputs[0]!.artifacts[0]!.year).toEqual({ value: 2025, from: 'content' });
  });
});

describe('zones', () => {
  it('--tz reads zone-less times, --display-tz shows them; by default the report shows the zone the input was read in', () => {
    const d = folder('zones', { 'kubelet.log': sample('kubelet.log') });
    const berlin = json([d, '--year', '2024', '--tz', '+01:00']);
    // Read as +01:00: 10:07:12 on the node is 09:07:12 UTC.
    expect(berlin.nodes[0]!.stalls[0]!.lastRelistAt!.slice(0, 19)).toBe('2024-03-11T09:07:12');
    expect(cli(['analyze', d, '--year', '2024', '--tz', '+01:00']).stdout).toMatch(/last relist 2024-03-11 10:07:12 \+01:00/);
    expect(cli(['analyze', d, '--year', '2024', '--tz', '+01:00', '--display-tz', 'UTC']).stdout).toMatch(/last relist 2024-03-11 09:07:12 \+00:00/);
    expect(cli(['analyze', d, '--year', '2024', '--display-tz', 'Asia/Tokyo']).stdout).toMatch(/last relist 2024-03-11 19:07:12 \+09:00/);
    const bad = cli(['analyze', d, '--display-tz', 'Mars/Olympus']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('plegscope: --display-tz: unknown time zone "Mars/Olympus" (use an IANA name like Europe/Berlin, or +02:00, or UTC)');
  });

  it('logs read in the wrong zone put the stall hours away from the metrics: one stall and a warning naming --tz', () => {
    const d = folder('shifted', {
      'kubelet.log': sample('kubelet.log'),
      'metrics-20240311T101000Z.txt': sample('metrics-20240311T101000Z.txt'),
      'metrics-20240311T102000Z.txt': sample('metrics-20240311T102000Z.txt'),
    });
    // The node ran in UTC; the user says +02:00: the log's stall lands two hours before the metrics' one.
    const a = json([d, '--year', '2024', '--tz', '+02:00']);
    expect(a.nodes[0]!.stalls).toHaveLength(1);
    const w = a.warnings.find((x) => /2 h apart/.test(x.message));
    expect(w?.message).toMatch(/read them with --tz -02:00|--tz/);
    expect(json([d, '--year', '2024']).warnings.some((x) => /h apart/.test(x.message))).toBe(false);
  });
});
