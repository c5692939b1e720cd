// Every bundle kind in every form gives the same analysis as the same logs handed over as loose files.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze.js';
import type { Analysis } from '../../src/contract/analysis.js';
import { FORMS, formAvailable, writeBundle, writeDir } from './fixtures.js';
import { fixtures, type KindFixture } from './kinds.js';

let tmp: string;
let all: KindFixture[];
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'plegscope-kinds-'));
  all = await fixtures();
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** What must not depend on how the logs were packed. */
export function summary(a: Analysis) {
  return a.nodes.map((n) => ({
    name: n.name,
    kubeletVersion: n.kubeletVersion,
    plegUnhealthy: n.verdict.plegUnhealthy,
    primaryCause: n.verdict.primaryCause,
    window: n.window,
    stalls: n.stalls.map((s) => ({ ...s, evidence: s.evidence.length > 0 })),
    notReady: n.notReady.map((w) => [w.from, w.to]),
    findings: n.findings.map((f) => [f.ruleId, f.cause, f.severity]),
    operations: n.operations,
  }));
}

const KINDS = ['sosreport', 'sos-collect', 'must-gather', 'inspect', 'eks-logs', 'aks', 'rancher', 'kind'];

describe.each(KINDS)('%s', (kind) => {
  let fx: KindFixture;
  let loose: Analysis;
  beforeAll(async () => {
    fx = all.find((f) => f.kind === kind) as KindFixture;
    const dir = path.join(tmp, `${kind}-loose`);
    writeDir(dir, fx.loose);
    loose = (await analyze({ paths: [dir], tz: fx.tz, year: 2024, workers: 0 })).analysis;
  });

  it.each(FORMS)('as %s', async (form) => {
    if (!formAvailable(form)) return;
    const dir = fs.mkdtempSync(path.join(tmp, `${kind}-${form}-`));
    const p = await writeBundle(dir, fx.name, fx.files, form);
    const run = await analyze({ paths: [p], workers: 0 });
    const a = run.analysis;
    expect(a.inputs[0]?.kind).toBe(fx.inputKind);
    expect(a.nodes.map((n) => n.name)).toEqual(fx.nodes);
    expect(summary(a)).toEqual(summary(loose));
    // Nothing the layout knows to be a copy, a pod's log or another component's metrics ends up as a node log.
    for (const art of a.inputs[0]?.artifacts ?? []) {
      expect(art.path).not.toMatch(/var\/log\/(?:pods|containers)\/|podlogs|namespaces\/|\.metrics$|ipamd\/metrics|\/pods\/|journalctl_--no-pager_--boot$/);
    }
    if (kind === 'sosreport') {
      const ev = a.nodes[0]?.stalls[0]?.evidence[0];
      expect(ev?.file).toBe('sos_strings/kubernetes/journalctl_--no-pager_--unit_kubelet.tailed');
      expect(a.nodes[0]?.coverage.truncated).toBe(true);
      expect(a.nodes[0]?.gaps.map((g) => g.collect).join('\n')).toMatch(/kubectl get --raw \/api\/v1\/nodes\/worker1\/proxy\/metrics/);
      expect(a.nodes[0]?.pods).toEqual({ running: 2, containers: 2 });
    }
    if (kind === 'rancher') expect(a.nodes[0]?.pods).toEqual({ running: 2, containers: 2 });
    if (kind === 'inspect') {
      expect(a.nodes[0]?.kubeletVersion).toBe('v1.27.6+f67aeb3');
      expect(a.nodes[0]?.stalls).toHaveLength(1);
    }
  }, 60_000);
});
