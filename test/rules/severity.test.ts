// Effective severity (issue 14.8): a rule's severity is what its finding is worth once established; below 0.7 it is
// reported a level lower, below 0.5 two, one more when evidence contradicts it; the verdict's own finding never below
// medium. Weak alternatives (not the verdict's, below 0.5 or contradicted) are "considered", and listed last.
import { describe, expect, it } from 'vitest';
import type { Severity } from '../../src/contract/analysis.js';
import { effectiveSeverity, evaluate, isConsidered } from '../../src/rules/engine.js';
import type { RuleSpec } from '../../src/rules/spec.js';

describe('effectiveSeverity', () => {
  const table: Array<[Severity, number, boolean, boolean, Severity]> = [
    // rule, confidence, contradicted, primary → reported
    ['critical', 0.95, false, true, 'critical'],
    ['critical', 0.7, false, false, 'critical'],
    ['critical', 0.69, false, false, 'high'],
    ['critical', 0.6, false, true, 'high'],
    ['critical', 0.5, false, false, 'high'],
    ['critical', 0.49, false, false, 'medium'],
    ['critical', 0.34, true, false, 'low'],
    ['critical', 0.8, true, true, 'high'],
    ['high', 0.35, true, false, 'info'],
    ['high', 0.51, true, false, 'low'],
    ['medium', 0.76, false, false, 'medium'],
    ['medium', 0.5, false, false, 'low'],
    ['low', 0.2, true, false, 'info'],
    ['info', 0.9, false, false, 'info'],
    // The verdict's finding: the stall it stands for is established, so not below medium (nor above its rule).
    ['medium', 0.2, false, true, 'medium'],
    ['high', 0.2, true, true, 'medium'],
    ['low', 0.2, false, true, 'low'],
  ];
  for (const [rule, conf, contra, primary, want] of table) {
    it(`${rule} at ${conf}${contra ? ', contradicted' : ''}${primary ? ', primary' : ''} → ${want}`, () => {
      expect(effectiveSeverity(rule, conf, contra, primary)).toBe(want);
    });
  }
});

describe('isConsidered', () => {
  it('is a weak alternative: not the primary, and below 0.5 or contradicted', () => {
    expect(isConsidered(0.49, false, false)).toBe(true);
    expect(isConsidered(0.5, false, false)).toBe(false);
    expect(isConsidered(0.9, true, false)).toBe(true);
    expect(isConsidered(0.2, true, true)).toBe(false);
  });
});

describe('evaluate', () => {
  const rule = (id: string, o: Partial<RuleSpec>): RuleSpec => ({
    id, cause: 'runtime_timeout', severity: 'critical', title: id, explains: 'stall', when: [{ fact: 'stall.count', op: '>=', value: 1 }],
    base: 0.6, evidence: [], summary: id, remediation: '', ...o,
  });
  const specs: RuleSpec[] = [
    rule('alt', { contra: [{ when: [{ fact: 'refused', op: 'truthy' }], weight: 0.5, label: 'refused' }] }),
    rule('primary', { cause: 'runtime_restart', severity: 'high', base: 0.9 }),
    rule('sign', { cause: 'other', severity: 'medium', explains: 'warning', base: 0.55 }),
  ];

  it('marks the primary, lowers what is not established, and lists the weak alternative last', () => {
    const j = evaluate(specs, [], { facts: { 'stall.count': 1, refused: true }, pools: {}, counts: {} });
    expect(j.fired.map((f) => [f.spec.id, f.confidence, f.severity, f.primary, f.considered])).toEqual([
      ['primary', 0.9, 'high', true, false],
      ['sign', 0.55, 'low', false, false],
      ['alt', 0.3, 'low', false, true],
    ]);
    expect(j.verdict).toEqual({ plegUnhealthy: true, primaryCause: 'runtime_restart', confidence: 0.9 });
  });

  it('without a stall there is no primary: a contradicted warning is considered', () => {
    // 0.6 × 0.9 = 0.54: not established (−1), contradicted (−1).
    const warn = rule('warn', { explains: 'warning', severity: 'medium', when: [], contra: [{ when: [], weight: 0.1, label: 'x' }] });
    const j = evaluate([warn], [], { facts: { 'stall.count': 0 }, pools: {}, counts: {} });
    expect(j.fired.map((f) => [f.severity, f.primary, f.considered])).toEqual([['info', false, true]]);
  });
});
