import { describe, expect, it } from 'vitest';
import { literalOf, loadRulePack, mergeRules, RulePackError } from '../../src/rules/pack.js';
import { BUILTIN_RULES } from '../../src/rules/catalog.js';
import { compileCustom } from '../../src/signals/custom.js';
import { analyze } from '../../src/analyze.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { at, kl, lines, skipLines } from '../helpers/scenario.js';

const GOOD = `
signals:
  - id: csi_timeout
    pattern: 'csi-[a-z]+\\.sock.*DeadlineExceeded'
rules:
  - id: csi-hang
    cause: disk_io
    severity: high
    title: CSI node plugin hung
    when: [{fact: stall.count, op: '>=', value: 1}, {fact: custom.csi_timeout, op: '>=', value: 2}]
    base: 0.8
    evidence: [custom.csi_timeout, stall]
    summary: 'the CSI socket timed out {custom.csi_timeout} times'
    remediation: restart the CSI node plugin
`;

describe('rule packs', () => {
  it('a schema error fails with one line naming the rule and the field', () => {
    const bad = GOOD.replace('severity: high', 'severity: urgent');
    expect(() => loadRulePack(bad, 'pack.yaml')).toThrowError(RulePackError);
    try {
      loadRulePack(bad, 'pack.yaml');
    } catch (e) {
      expect((e as Error).message).toBe('rule "csi-hang": field "severity" must be one of critical, high, medium, low, info (got "urgent")');
      expect((e as Error).message).not.toContain('\n');
    }
    expect(() => loadRulePack(GOOD.replace('base: 0.8', 'base: 3'), 'p.yaml')).toThrow(/rule "csi-hang": field "base" must be a number from 0 to 1/);
    expect(() => loadRulePack(GOOD.replace("op: '>='", "op: '=~'"), 'p.yaml')).toThrow(/rule "csi-hang": field "when\[0\]\.op"/);
    expect(() => loadRulePack('{"rules": [{"id": "x"}]}', 'p.json')).toThrow(/rule "x": field "cause"/);
    expect(() => loadRulePack('rules: [', 'p.yaml')).toThrow(/not valid YAML/);
  });

  it('backreferences and lookaround are rejected; a catastrophic pattern runs in linear time', () => {
    expect(() => loadRulePack("signals:\n  - id: br\n    pattern: '(a+)\\1 kubelet'\n", 'p.yaml')).toThrow(/signal "br": field "pattern" is not a linear-time/);
    expect(() => loadRulePack("signals:\n  - id: la\n    pattern: 'kubelet(?=x)'\n", 'p.yaml')).toThrow(/signal "la": field "pattern"/);
    const { signals } = loadRulePack("signals:\n  - id: evil\n    pattern: '^(a+)+$'\n    needles: ['aaa']\n", 'p.yaml');
    const patterns = signals.map(compileCustom);
    const line = 'a'.repeat(30) + '!';
    const t0 = performance.now();
    expect(patterns[0]!.test(line)).toBe(false);
    expect(patterns[0]!.test('a'.repeat(5000) + '!')).toBe(false);
    // Backtracking engines take seconds (2^30 steps) on the first line alone.
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it('needles come from the literal part of a pattern, or must be given', () => {
    expect(literalOf('csi-[a-z]+\\.sock.*DeadlineExceeded')).toBe('DeadlineExceeded');
    expect(literalOf('foo|bar')).toBeNull();
    expect(literalOf('[0-9a-f]{64}')).toBeNull();
    expect(() => loadRulePack("signals:\n  - id: x\n    pattern: '[0-9]+'\n", 'p.yaml')).toThrow(/field "needles" is required/);
  });

  it('a pack rule fires on its own signal end to end, next to the built-in catalog', async () => {
    const { pack, signals } = loadRulePack(GOOD, 'pack.yaml');
    const L = at('10:00:00');
    const csi = [1, 2, 3].map((i) => kl(L + i * 60_000, 'E', 'csi_attacher.go:1', `"NodeStageVolume failed" err="dial unix /var/lib/kubelet/plugins/ebs/csi-ebs.sock: rpc error: code = DeadlineExceeded desc = context deadline exceeded"`));
    const dir = mkdtempSync(join(tmpdir(), 'plegscope-pack-'));
    try {
      writeFileSync(join(dir, 'kubelet.log'), lines([kl(at('09:00:00'), 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.28.3"'), ...skipLines(L, L + 600_000), ...csi]));
      const run = await analyze({ paths: [dir], year: 2024, rules: mergeRules(BUILTIN_RULES, pack), customSignals: signals });
      const n = run.analysis.nodes[0]!;
      expect(n.verdict.primaryCause).toBe('disk_io');
      expect(n.findings[0]!.ruleId).toBe('csi-hang');
      expect(n.findings[0]!.summary).toContain('timed out 3 times');
      expect(n.findings[0]!.evidence[0]!.text).toContain('csi-ebs.sock');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
