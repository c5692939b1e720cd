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

  it('a fact, placeholder or custom signal that does not exist is a pack error', () => {
    expect(() => loadRulePack(GOOD.replace('fact: stall.count', 'fact: stall.cuont'), 'p.yaml')).toThrow('rule "csi-hang": field "when[0].fact" names "stall.cuont", which is not a fact');
    expect(() => loadRulePack(GOOD.replace('fact: custom.csi_timeout', 'fact: custom.csi_timout'), 'p.yaml')).toThrow('rule "csi-hang": field "when[1].fact" names "custom.csi_timout", but the pack declares no signal "csi_timout"');
    expect(() => loadRulePack(GOOD.replace('{custom.csi_timeout} times', '{custom.csi_timeout} times {stall.cuont|dur}'), 'p.yaml')).toThrow('rule "csi-hang": field "summary" names "stall.cuont"');
    expect(() => loadRulePack(GOOD.replace('{custom.csi_timeout} times', '{custom.csi_timeout|hex} times'), 'p.yaml')).toThrow('field "summary" uses the format "hex"');
    expect(() => loadRulePack(GOOD.replace('evidence: [custom.csi_timeout, stall]', 'evidence: [custom.csi_timeout, stalls]'), 'p.yaml')).toThrow('rule "csi-hang": field "evidence[1]" names "stalls", which is not an evidence pool');
    // What a node can have whatever its name: per-operation metrics, its roles.
    expect(() => loadRulePack(GOOD.replace('fact: stall.count', 'fact: op.list_podsandbox.p99').replace('evidence: [', 'evidence: [op.list_podsandbox, ').replace("op: '>=', value: 1}", "op: '>=', value: 1}, {fact: has.metrics, op: truthy}"), 'p.yaml')).not.toThrow();
  });

  it('names of the object prototype are neither facts nor pools: rejected before any rule runs', () => {
    for (const name of ['constructor', '__proto__', 'toString']) {
      expect(() => loadRulePack(GOOD.replace('evidence: [custom.csi_timeout, stall]', `evidence: [${name}]`), 'p.yaml'), name).toThrow(`field "evidence[0]" names "${name}"`);
      expect(() => loadRulePack(GOOD.replace('fact: stall.count', `fact: ${name}`), 'p.yaml'), name).toThrow(`field "when[0].fact" names "${name}"`);
      // `{__proto__}` is no placeholder at all (a name starts with a letter): the engine leaves it as written.
      if (name !== '__proto__') expect(() => loadRulePack(GOOD.replace('{custom.csi_timeout} times', `{${name}}`), 'p.yaml'), name).toThrow(`field "summary" names "${name}"`);
    }
  });

  it('signals: unknown fields, duplicate ids, too many or too short needles are pack errors', () => {
    expect(() => loadRulePack(GOOD.replace("    pattern: 'csi", "    patern: x\n    pattern: 'csi"), 'p.yaml')).toThrow('signal "csi_timeout": field "patern" is not a signal field (id, pattern, needles)');
    const twice = GOOD.replace('rules:', "  - id: csi_timeout\n    pattern: 'other DeadlineExceeded'\nrules:");
    expect(() => loadRulePack(twice, 'p.yaml')).toThrow('signal "csi_timeout": field "id" is used twice');
    const many = `signals:\n${Array.from({ length: 10_001 }, (_, i) => `  - {id: s${i}, pattern: needle${i}x}`).join('\n')}\n`;
    expect(() => loadRulePack(many, 'p.yaml')).toThrow('"signals" lists 10001 signals: at most 10000');
    const short = `signals:\n${Array.from({ length: 17 }, (_, i) => `  - {id: s${i}, pattern: 'a${i}.*b', needles: [a${i}b]}`).join('\n')}\n`;
    expect(() => loadRulePack(short, 'p.yaml')).toThrow('the signals list 17 needles of 3 or 4 characters (such as "a0b"): at most 16');
  });

  it('text a view prints carries no control or bidi character; line breaks become spaces', () => {
    expect(() => loadRulePack(GOOD.replace('title: CSI node plugin hung', 'title: "CSI \\e]0;owned\\a hung"'), 'p.yaml')).toThrow('rule "csi-hang": field "title" holds the control character U+001B');
    expect(() => loadRulePack(GOOD.replace('remediation: restart the CSI node plugin', 'remediation: "restart \\u202Eit"'), 'p.yaml')).toThrow('field "remediation" holds the control character U+202E');
    expect(() => loadRulePack(GOOD.replace('rules:', 'rules:').replace('    remediation: restart the CSI node plugin', '    remediation: restart the CSI node plugin\n    references: ["https://example.com/\\x9b2J"]'), 'p.yaml')).toThrow('field "references[0]" holds the control character U+009B');
    const { pack } = loadRulePack(GOOD.replace('remediation: restart the CSI node plugin', 'remediation: |\n      restart the CSI\n      node plugin'), 'p.yaml');
    expect(pack.rules[0]?.remediation).toBe('restart the CSI node plugin');
  });

  it('YAML aliases cannot multiply a small pack into a huge one', () => {
    const bomb = ['a: &a [{fact: stall.count, op: exists}, {fact: stall.count, op: exists}]'];
    for (let i = 1; i <= 20; i++) bomb.push(`${'b'.repeat(i)}: &${'b'.repeat(i)} [${Array(10).fill(i === 1 ? '*a' : `*${'b'.repeat(i - 1)}`).join(', ')}]`);
    bomb.push('rules: []');
    expect(() => loadRulePack(bomb.join('\n'), 'p.yaml')).toThrow('YAML aliases expand to more than 1000000 values');
    expect(() => loadRulePack('a: &a [1, *a]\nrules: []', 'p.yaml')).toThrow('a YAML alias refers to a value that contains it');
  });

  it('ruledOut is checked and kept', () => {
    const { pack } = loadRulePack(GOOD.replace('    remediation: restart', "    ruledOut: [{when: [{fact: custom.csi_timeout, op: absent}], reason: 'no CSI timeout in {stall.count} stalls'}]\n    remediation: restart"), 'p.yaml');
    expect(pack.rules[0]?.ruledOut).toEqual([{ when: [{ fact: 'custom.csi_timeout', op: 'absent' }], reason: 'no CSI timeout in {stall.count} stalls' }]);
    expect(() => loadRulePack(GOOD.replace('    remediation: restart', "    ruledOut: [{when: [], reason: '{nope}'}]\n    remediation: restart"), 'p.yaml')).toThrow('field "ruledOut[0].reason" names "nope"');
  });
});
