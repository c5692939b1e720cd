// The declared fact and pool names (src/rules/fact-names.ts) are exactly what computeFacts sets: a rule pack is checked
// against them when it is loaded, so a fact added to facts.ts without being declared (or declared and never set) fails.
import { describe, expect, it } from 'vitest';
import { computeFacts } from '../../src/rules/facts.js';
import { FACTS, POOLS, isKnownFact, isKnownPool } from '../../src/rules/fact-names.js';
import { BUILTIN_RULES } from '../../src/rules/catalog.js';
import { BUILTIN_GAPS } from '../../src/rules/gaps.js';
import type { NodeModel } from '../../src/model/node.js';
import type { MetricsSummary } from '../../src/model/metrics.js';
import type { Condition } from '../../src/rules/spec.js';

function node(over: Partial<NodeModel> = {}): NodeModel {
  return {
    name: 'worker-1', aliases: [], artifacts: [], roles: [], kubeletVersion: null, runtime: null, runtimeVersion: null,
    windowStart: null, windowEnd: null, kubeletLast: null, events: [], timeline: { stalls: [], notReady: [], restarts: [], startupArtefacts: [], startupLines: 0, disagreements: [] },
    cri: [], metrics: null, goroutines: [], versions: {}, truncated: false,
    bundle: { kind: null, role: null, kubeletVersion: null, runtime: null, runtimeVersion: null, podsCapacity: null, ready: null, containers: null, skipped: false, collectedAt: null },
    ...over,
  };
}

const op = (operation: string) => ({ operation, source: 'histogram' as const, count: 10, errors: 1, p50: 0.1, p90: 0.2, p99: 12, max: 20, maxIsLowerBound: false, evidence: [] });
const metrics = {
  snapshots: 2, windowStartMs: 0, windowEndMs: 60_000, cumulative: false,
  relist: { duration: null, interval: null, count: 3, countFrozen: false, source: null, evidence: [] },
  lastSeen: null, discardEvents: null, discardEvidence: [], operations: [op('list_podsandbox'), op('remove_container')], extraOperations: [],
  runningPods: 3, runningContainers: 4, exitedContainers: 1, runningEvidence: [], frozenIntervals: [],
} satisfies MetricsSummary;

describe('declared fact names', () => {
  it('a node with nothing: computeFacts sets exactly the declared facts and pools', () => {
    const s = computeFacts(node());
    expect(Object.keys(s.facts).sort()).toEqual([...FACTS].sort());
    expect(Object.keys(s.pools).sort()).toEqual([...POOLS].sort());
  });

  it('names that carry input (roles, CRI operations, a pack\'s signals) are known by their shape', () => {
    const ref = { artifact: 0, line: 1, offset: 0, ts: 0, mono: NaN, text: 'x' };
    const s = computeFacts(node({
      roles: ['kubelet-log', 'runtime-log', 'kernel-log', 'metrics', 'goroutine-dump', 'node-object'],
      metrics,
      events: [{ type: 'custom', signal: 'csi_timeout', ts: 0, host: null, ref }],
    }));
    const signals = new Set(['csi_timeout']);
    const extra = Object.keys(s.facts).filter((k) => !FACTS.includes(k));
    expect(extra.sort()).toEqual([
      'custom.csi_timeout', 'has.goroutine-dump', 'has.kernel-log', 'has.kubelet-log', 'has.metrics', 'has.node-object', 'has.runtime-log',
      'op.list_podsandbox.count', 'op.list_podsandbox.errors', 'op.list_podsandbox.p99', 'op.remove_container.count', 'op.remove_container.errors', 'op.remove_container.p99',
    ]);
    for (const k of Object.keys(s.facts)) expect(isKnownFact(k, signals), k).toBe(true);
    for (const k of Object.keys(s.pools)) expect(isKnownPool(k, signals), k).toBe(true);
    expect(isKnownFact('custom.csi_timeout', new Set())).toBe(false);
  });

  it('every fact, placeholder and pool the built-in catalog names is declared', () => {
    const none = new Set<string>();
    const conds = (cs: Condition[] | undefined) => (cs ?? []).map((c) => c.fact);
    const placeholders = (t: string) => [...t.matchAll(/\{([A-Za-z][\w.-]*)(?:\|\w+)?\}/g)].map((m) => m[1] as string);
    const facts = [
      ...BUILTIN_RULES.flatMap((r) => [
        ...conds(r.when), ...(r.anyOf ?? []).flatMap(conds), ...(r.support ?? []).flatMap((w) => conds(w.when)), ...(r.contra ?? []).flatMap((w) => conds(w.when)),
        ...placeholders(r.summary), ...(r.ruledOut ?? []).flatMap((o) => [...conds(o.when), ...placeholders(o.reason)]),
      ]),
      ...BUILTIN_GAPS.flatMap((g) => [...conds(g.when), ...placeholders(g.why), ...placeholders(g.collect)]),
    ];
    expect(facts.filter((f) => !isKnownFact(f, none))).toEqual([]);
    expect(BUILTIN_RULES.flatMap((r) => r.evidence).filter((p) => !isKnownPool(p, none))).toEqual([]);
  });

  it('nothing of the object prototype is a fact or a pool', () => {
    for (const k of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect(isKnownFact(k, new Set()), k).toBe(false);
      expect(isKnownPool(k, new Set()), k).toBe(false);
    }
  });
});
