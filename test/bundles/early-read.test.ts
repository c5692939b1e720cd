// Logs inside archives are extracted while the index pass streams them by, with the zone and year anchor known at that
// point; the result is kept only when the options the bundle layout then gives agree, and is read again otherwise.
// Either way the report is the one a later pass over the archive gives (`earlyReads: false`).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze, type AnalysisRun } from '../../src/analyze.js';
import { resolveZone, WallClock, YearClock } from '../../src/parse/time.js';
import { sameYearWalk } from '../../src/sources/files/segments.js';
import { notANodeLog } from '../../src/sources/files/bundle.js';
import { formAvailable, writeBundle, type Files, type Form } from './fixtures.js';
import { fixtures, type KindFixture } from './kinds.js';

let tmp: string;
let all: KindFixture[];
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'plegscope-early-'));
  all = await fixtures();
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const json = (r: AnalysisRun) => JSON.stringify({ ...r.analysis, generatedAt: null });

/** The archive analyzed with early reads and without: reports and the early-read counts. */
async function both(p: string, opts: { tz?: string; year?: number } = {}) {
  const early = await analyze({ paths: [p], workers: 0, ...opts });
  const late = await analyze({ paths: [p], workers: 0, earlyReads: false, ...opts });
  return { early, late };
}

function reordered(files: Files, last: string[]): Files {
  const out: Files = {};
  for (const [k, v] of Object.entries(files)) if (!last.some((l) => k.endsWith(l))) out[k] = v;
  for (const [k, v] of Object.entries(files)) if (last.some((l) => k.endsWith(l))) out[k] = v;
  return out;
}

describe('logs read while an archive is indexed', () => {
  const FORMS: Form[] = ['tar.xz', 'tar.gz', 'zip'];
  for (const kind of ['sosreport', 'sos-collect', 'must-gather', 'inspect', 'eks-logs', 'aks', 'rancher', 'kind']) {
    it(`${kind}: the same report as a second pass gives`, async () => {
      const fx = all.find((f) => f.kind === kind) as KindFixture;
      for (const form of FORMS) {
        if (!formAvailable(form)) continue;
        const p = await writeBundle(fs.mkdtempSync(path.join(tmp, `${kind}-`)), fx.name, fx.files, form);
        const { early, late } = await both(p);
        expect(late.early).toEqual({ read: 0, kept: 0, reread: 0 });
        // Every log the report reads was read early, and nothing else was (pod logs, sos's since-boot journal …).
        const logs = late.analysis.inputs.flatMap((i) => i.artifacts).filter((a) => /^(kubelet|runtime|kernel)-log$/.test(a.role));
        expect(early.early.kept + early.early.reread).toBe(logs.length);
        expect(early.early.read).toBe(logs.length);
        expect(json(early)).toBe(json(late));
      }
    });
  }

  it("a sosreport whose zone is met before its journal (timedatectl): the early read is kept", async () => {
    const fx = all.find((f) => f.kind === 'sosreport') as KindFixture;
    const p = await writeBundle(fs.mkdtempSync(path.join(tmp, 'sos-zone-first-')), fx.name, fx.files, 'tar.gz');
    const { early, late } = await both(p);
    // dmesg -T too, whose stamps carry their year: the member's time and the collection time are on one day.
    expect(early.early).toEqual({ read: 6, kept: 6, reread: 0 });
    expect(json(early)).toBe(json(late));
  });

  it('the collection time met before the logs anchors their years, whatever the members\' own times', async () => {
    const fx = all.find((f) => f.kind === 'sosreport') as KindFixture;
    // Collected nine days after the members were written (a report packed again later has the same look).
    const files: Files = {};
    for (const [k, v] of Object.entries(fx.files)) files[k] = k.endsWith('sos_commands/systemd/timedatectl') && typeof v === 'string' ? v.replace(/Thu 2024-01-11/g, 'Sat 2024-01-20') : v;
    const p = await writeBundle(fs.mkdtempSync(path.join(tmp, 'sos-later-')), fx.name, files, 'tar.gz');
    const { early, late } = await both(p);
    // dmesg -T (stamps with their year: no year-less stamp shows the anchor does not matter) is kept too.
    expect(early.early).toEqual({ read: 6, kept: 6, reread: 0 });
    expect(json(early)).toBe(json(late));
  });

  it('a sosreport whose zone comes after its journal: read again in that zone', async () => {
    const fx = all.find((f) => f.kind === 'sosreport') as KindFixture;
    const files = reordered(fx.files, ['sos_commands/systemd/timedatectl', 'etc/localtime', '/date']);
    const p = await writeBundle(fs.mkdtempSync(path.join(tmp, 'sos-zone-last-')), fx.name, files, 'tar.gz');
    const { early, late } = await both(p);
    // Read as UTC while indexing, then the layout said Europe/Berlin.
    expect(early.early).toEqual({ read: 6, kept: 0, reread: 6 });
    expect(json(early)).toBe(json(late));
    const inOrder = await analyze({ paths: [await writeBundle(fs.mkdtempSync(path.join(tmp, 'sos-zone-first-')), fx.name, fx.files, 'tar.gz')], workers: 0 });
    expect(early.analysis.nodes[0]?.stalls).toEqual(inOrder.analysis.nodes[0]?.stalls);
  });

  it('--tz decides the zone before anything is met: kept', async () => {
    const fx = all.find((f) => f.kind === 'sosreport') as KindFixture;
    const files = reordered(fx.files, ['sos_commands/systemd/timedatectl', 'etc/localtime', '/date']);
    const p = await writeBundle(fs.mkdtempSync(path.join(tmp, 'sos-tz-')), fx.name, files, 'tar.gz');
    const { early, late } = await both(p, { tz: 'Europe/Berlin' });
    expect(early.early).toEqual({ read: 6, kept: 6, reread: 0 });
    expect(json(early)).toBe(json(late));
  });
});

describe('sameYearWalk', () => {
  const opts = { artifact: 0, zone: resolveZone('UTC'), notAfterMs: null };
  const head = Buffer.from('-- Journal begins --\nDec 31 23:59:00 node1 kubelet[1]: I1231 23:59:00.000000       1 a.go:1] "x"\nJan 01 00:00:01 node1 kubelet[1]: I0101 00:00:01.000000       1 a.go:1] "y"\n');
  it('anchors that give the first dated line the same year agree', () => {
    expect(sameYearWalk(head, opts, Date.UTC(2025, 0, 1, 12), Date.UTC(2025, 0, 3))).toBe(true);
    expect(sameYearWalk(head, opts, Date.UTC(2024, 11, 31, 23, 59, 30), Date.UTC(2025, 5, 1))).toBe(true);
  });
  it('anchors that give it different years do not', () => {
    expect(sameYearWalk(head, opts, Date.UTC(2024, 11, 31, 23, 59, 30), Date.UTC(2026, 0, 1))).toBe(false);
    expect(sameYearWalk(head, opts, null, Date.UTC(2025, 0, 1))).toBe(false);
  });
  it('a given year, equal anchors or anchors on the same UTC day always agree; else a dated line must show it', () => {
    const none = Buffer.from('no dates here\nnor here\n');
    expect(sameYearWalk(head, { ...opts, year: 2020 }, null, Date.UTC(2030, 0, 1))).toBe(true);
    expect(sameYearWalk(none, opts, 5, 5)).toBe(true);
    expect(sameYearWalk(none, opts, Date.UTC(2024, 11, 29, 0, 0, 1), Date.UTC(2024, 11, 29, 23, 59, 59))).toBe(true);
    expect(sameYearWalk(none, opts, Date.UTC(2025, 0, 1), Date.UTC(2025, 0, 2))).toBe(false);
    // The rule behind "same day": a first line on Dec 31 gets the anchor's year up to two days before it, the year
    // before after that; both anchors of one day fall on the same side of every midnight.
    const dec31 = Buffer.from('Dec 31 10:00:00 node1 kubelet[1]: I1231 10:00:00.000000       1 a.go:1] "x"\n');
    for (const [a, b] of [[Date.UTC(2024, 11, 29, 0, 0, 1), Date.UTC(2024, 11, 29, 23, 59)], [Date.UTC(2024, 11, 28, 23, 59), Date.UTC(2024, 11, 29, 0, 1)]] as const) {
      const walk = (x: number) => {
        const clock = new YearClock(new WallClock(opts.zone), { notAfterMs: x });
        return clock.yearFor(11, 31);
      };
      expect(walk(a) === walk(b)).toBe(sameYearWalk(dec31, opts, a, b));
    }
  });
});

describe('notANodeLog (what is never read early)', () => {
  it('pod logs, since-boot and other components\' journals, other units; not the node logs', () => {
    for (const p of [
      'must-gather.local.1/quay-io-x-sha256-ab/namespaces/openshift-etcd/pods/etcd-m1/etcd/etcd/logs/current.log',
      'must-gather.local.1/img/host_service_logs/masters/NetworkManager_service.log',
      'sosreport-w1-2024-01-11-abcdefg/sos_commands/logs/journalctl_--no-pager_--boot',
      'sosreport-w1-2024-01-11-abcdefg/sos_commands/openshift/journalctl_--no-pager_--unit_kube-apiserver',
      'sosreport-w1-2024-01-11-abcdefg/var/log/pods/ns_p_uid/c/0.log',
    ]) expect(notANodeLog(p), p).toBe(true);
    for (const p of [
      'must-gather.local.1/img/host_service_logs/workers/kubelet_service.log',
      'must-gather.local.1/img/host_service_logs/masters/crio_service.log',
      'sosreport-w1-2024-01-11-abcdefg/sos_commands/kubernetes/journalctl_--no-pager_--unit_kubelet',
      'sosreport-w1-2024-01-11-abcdefg/sos_commands/logs/journalctl_--no-pager',
      'sosreport-w1-2024-01-11-abcdefg/var/log/messages',
      'kubelet.log',
    ]) expect(notANodeLog(p), p).toBe(false);
  });
});
