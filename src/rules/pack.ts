// User rule packs (`--rules FILE`, YAML or JSON): the same shape as the built-in catalog plus regex signals, checked
// field by field so a mistake fails with one line naming the rule and the field. User regexes are compiled with RE2
// (re2js: linear time, no backreferences or lookaround), so a pattern like `^(a+)+$` cannot hang the tool.
import type { parse } from 'yaml';
import { lazyRequire } from '../util/lazy-require.js';
import { CAUSES, SEVERITIES } from '../contract/analysis.js';
import { compileCustom } from '../signals/custom.js';
import type { Condition, CustomSignalSpec, RulePack, RuleSpec, Weighted } from './spec.js';

/** Loaded with the first YAML rule pack: most runs have none. */
const yaml = lazyRequire<{ parse: typeof parse }>('yaml');

export class RulePackError extends Error {}

const OPS = ['>', '>=', '<', '<=', '==', '!=', 'exists', 'absent', 'truthy', 'falsy'];
const EXPLAINS = ['stall', 'notready', 'warning'];
const ID = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

class Checker {
  constructor(private readonly where: string) {}
  fail(field: string, msg: string): never {
    throw new RulePackError(`${this.where}: field "${field}" ${msg}`);
  }
  str(o: Obj, k: string, opts: { optional?: boolean; oneOf?: readonly string[]; re?: RegExp } = {}): string {
    const v = o[k];
    if (v === undefined && opts.optional) return '';
    if (typeof v !== 'string' || v.length === 0) this.fail(k, 'must be a non-empty string');
    if (opts.oneOf && !opts.oneOf.includes(v)) this.fail(k, `must be one of ${opts.oneOf.join(', ')} (got "${v}")`);
    if (opts.re && !opts.re.test(v)) this.fail(k, `must match ${opts.re} (got "${v}")`);
    return v;
  }
  num(o: Obj, k: string, min: number, max: number): number {
    const v = o[k];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) this.fail(k, `must be a number from ${min} to ${max}`);
    return v;
  }
  strList(o: Obj, k: string, optional = false): string[] {
    const v = o[k];
    if (v === undefined && optional) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) this.fail(k, 'must be a list of strings');
    return v as string[];
  }
  conditions(v: unknown, field: string): Condition[] {
    if (!Array.isArray(v)) this.fail(field, 'must be a list of conditions {fact, op, value}');
    return v.map((c, i) => {
      const f = `${field}[${i}]`;
      if (!isObj(c)) this.fail(f, 'must be an object {fact, op, value}');
      if (typeof c['fact'] !== 'string' || !c['fact']) this.fail(`${f}.fact`, 'must be a fact name (see "plegscope rules show")');
      if (typeof c['op'] !== 'string' || !OPS.includes(c['op'])) this.fail(`${f}.op`, `must be one of ${OPS.join(' ')}`);
      const needsValue = !['exists', 'absent', 'truthy', 'falsy'].includes(c['op']);
      const val = c['value'];
      if (needsValue && !['number', 'string', 'boolean'].includes(typeof val)) this.fail(`${f}.value`, 'must be a number, string or boolean');
      return { fact: c['fact'], op: c['op'] as Condition['op'], ...(needsValue ? { value: val as number | string | boolean } : {}) };
    });
  }
  weighted(v: unknown, field: string): Weighted[] {
    if (v === undefined) return [];
    if (!Array.isArray(v)) this.fail(field, 'must be a list of {when, weight, label}');
    return v.map((w, i) => {
      const f = `${field}[${i}]`;
      if (!isObj(w)) this.fail(f, 'must be an object {when, weight, label}');
      return { when: this.conditions(w['when'], `${f}.when`), weight: this.num(w, 'weight', 0, 1), label: this.str(w, 'label') };
    });
  }
}

function checkRule(raw: unknown, index: number): RuleSpec {
  const where = isObj(raw) && typeof raw['id'] === 'string' ? `rule "${raw['id']}"` : `rules[${index}]`;
  const c: Checker = new Checker(where);
  if (!isObj(raw)) c.fail('', 'must be an object');
  const anyOfRaw = raw['anyOf'];
  let anyOf: Condition[][] | undefined;
  if (anyOfRaw !== undefined) {
    if (!Array.isArray(anyOfRaw)) c.fail('anyOf', 'must be a list of condition lists');
    anyOf = anyOfRaw.map((g, i) => c.conditions(g, `anyOf[${i}]`));
  }
  const rule: RuleSpec = {
    id: c.str(raw, 'id', { re: ID }),
    cause: c.str(raw, 'cause', { oneOf: CAUSES }) as RuleSpec['cause'],
    severity: c.str(raw, 'severity', { oneOf: SEVERITIES }) as RuleSpec['severity'],
    title: c.str(raw, 'title'),
    explains: (c.str(raw, 'explains', { optional: true, oneOf: EXPLAINS }) || 'stall') as RuleSpec['explains'],
    when: c.conditions(raw['when'] ?? [], 'when'),
    ...(anyOf ? { anyOf } : {}),
    base: c.num(raw, 'base', 0, 1),
    support: c.weighted(raw['support'], 'support'),
    contra: c.weighted(raw['contra'], 'contra'),
    evidence: c.strList(raw, 'evidence', true),
    summary: c.str(raw, 'summary'),
    remediation: c.str(raw, 'remediation'),
    references: c.strList(raw, 'references', true),
  };
  const known = new Set(['id', 'cause', 'severity', 'title', 'explains', 'when', 'anyOf', 'base', 'support', 'contra', 'evidence', 'summary', 'remediation', 'references', 'ruledOut']);
  for (const k of Object.keys(raw)) if (!known.has(k)) c.fail(k, 'is not a rule field');
  return rule;
}

/** The longest run of literal characters in a pattern: a prefilter needle. */
export function literalOf(pattern: string): string | null {
  let best = '';
  let cur = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch === '[') {
      // A character class matches one of many characters: skip it whole.
      if (cur.length > best.length) best = cur;
      cur = '';
      let j = i + 1;
      if (pattern[j] === '^') j++;
      if (pattern[j] === ']') j++;
      while (j < pattern.length && pattern[j] !== ']') j += pattern[j] === '\\' ? 2 : 1;
      i = j;
      continue;
    }
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/[.\\/[\](){}*+?|^$-]/.test(next)) {
        cur += next;
        i++;
        continue;
      }
      cur = '';
      i++;
      continue;
    }
    if (/[A-Za-z0-9 _:=,'"/<>@%!&;~`-]/.test(ch)) {
      // A quantifier after it makes this character optional: it cannot be part of a required literal.
      if (/[?*{]/.test(pattern[i + 1] ?? '')) {
        if (cur.length > best.length) best = cur;
        cur = '';
        continue;
      }
      cur += ch;
    } else {
      if (cur.length > best.length) best = cur;
      cur = '';
    }
  }
  if (cur.length > best.length) best = cur;
  // Alternation anywhere makes a single literal unsafe.
  return best.length >= 3 && !pattern.includes('|') ? best : null;
}

function checkSignal(raw: unknown, index: number): CustomSignalSpec {
  const where = isObj(raw) && typeof raw['id'] === 'string' ? `signal "${raw['id']}"` : `signals[${index}]`;
  const c: Checker = new Checker(where);
  if (!isObj(raw)) c.fail('', 'must be an object {id, pattern, needles}');
  const id = c.str(raw, 'id', { re: ID });
  const pattern = c.str(raw, 'pattern');
  if (pattern.length > 1000) c.fail('pattern', 'is longer than 1000 characters');
  let needles = c.strList(raw, 'needles', true);
  if (needles.length === 0) {
    const lit = /\(\?[a-z]*i/.test(pattern) ? null : literalOf(pattern);
    if (!lit) c.fail('needles', 'is required: the pattern has no literal text of 3+ characters to prefilter lines with');
    needles = [lit];
  }
  if (needles.some((n) => n.length < 3)) c.fail('needles', 'entries must be at least 3 characters');
  const spec: CustomSignalSpec = { id, pattern, needles };
  try {
    compileCustom(spec);
  } catch (err) {
    c.fail('pattern', `is not a linear-time (RE2) regular expression: ${(err as Error).message}`);
  }
  return spec;
}

export interface LoadedPack {
  pack: RulePack;
  signals: CustomSignalSpec[];
}

/** Parses and checks a pack. `name` is for messages only (the file as the user named it). */
export function loadRulePack(text: string, name: string): LoadedPack {
  let doc: unknown;
  try {
    doc = /\.json$/i.test(name) ? JSON.parse(text) : yaml().parse(text, { maxAliasCount: 100 });
  } catch (err) {
    throw new RulePackError(`not valid ${/\.json$/i.test(name) ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isObj(doc)) throw new RulePackError('must be a mapping with "rules" (and optionally "signals")');
  for (const k of Object.keys(doc)) if (k !== 'rules' && k !== 'signals') throw new RulePackError(`unknown top-level key "${k}" (expected "rules", "signals")`);
  const rulesRaw = doc['rules'] ?? [];
  const signalsRaw = doc['signals'] ?? [];
  if (!Array.isArray(rulesRaw)) throw new RulePackError('"rules" must be a list');
  if (!Array.isArray(signalsRaw)) throw new RulePackError('"signals" must be a list');
  const signals = signalsRaw.map(checkSignal);
  const rules = rulesRaw.map(checkRule);
  const ids = new Set<string>();
  for (const r of rules) {
    if (ids.has(r.id)) throw new RulePackError(`rule "${r.id}": field "id" is used twice`);
    ids.add(r.id);
  }
  return { pack: { rules, signals }, signals };
}

/** Built-in rules with a pack's rules added; a pack rule with a built-in id replaces it. */
export function mergeRules(builtin: RuleSpec[], pack: RulePack): RuleSpec[] {
  const byId = new Map(pack.rules.map((r) => [r.id, r]));
  return [...builtin.map((r) => byId.get(r.id) ?? r), ...pack.rules.filter((r) => !builtin.some((b) => b.id === r.id))];
}
