// User rule packs (`--rules FILE`, YAML or JSON): the same shape as the built-in catalog plus regex signals, checked
// field by field so a mistake fails with one line naming the rule and the field. User regexes are compiled with RE2
// (re2js: linear time, no backreferences or lookaround), so a pattern like `^(a+)+$` cannot hang the tool. Every fact,
// template placeholder and evidence pool a rule names must exist (fact-names.ts): a misspelt name is a pack error, not
// a rule that silently never fires. Text that views print (titles, summaries, remedies, references, labels) holds no
// control or bidi character: a pack is as untrusted as a log, and every view then gets clean text.
import jsyaml from 'js-yaml';
import { CAUSES, SEVERITIES } from '../contract/analysis.js';
import { checkPattern } from '../signals/custom.js';
import { isKnownFact, isKnownPool } from './fact-names.js';
import type { Condition, CustomSignalSpec, RulePack, RuleSpec, Weighted } from './spec.js';

export class RulePackError extends Error {}

const OPS = ['>', '>=', '<', '<=', '==', '!=', 'exists', 'absent', 'truthy', 'falsy'];
const EXPLAINS = ['stall', 'notready', 'warning'];
const ID = /^[a-z0-9][a-z0-9_.-]{0,63}$/;
/** Values a pack may hold once its YAML aliases are expanded: `&a` used by `*a` a thousand times is read a thousand
 *  times (a "billion laughs" pack would otherwise make the checks below run for hours). */
export const MAX_PACK_VALUES = 1_000_000;
/** Signals a pack may declare, and needles in all: each needle is looked for in every line of every log. A needle of
 *  fewer than 5 characters is too short for the shared search table and costs a pass of its own over every log. */
export const MAX_SIGNALS = 10_000;
export const MAX_NEEDLES = 20_000;
export const MAX_SHORT_NEEDLES = 16;
/** Signals one line may wake: a line holding a needle is tested against every signal with that needle (or with a
 *  needle inside it). Past this a pack's cost grows with signals × lines rather than with the bytes read. */
export const MAX_WOKEN = 100;
/** Formats a template placeholder may ask for (`{fact|fmt}`, engine.ts). */
const FORMATS = ['dur', 'n', 's', 'pct', 'sec'];
/** Placeholders as the engine renders them. */
const PLACEHOLDER = /\{([A-Za-z][\w.-]*)(?:\|(\w+))?\}/g;
// C0 but TAB/LF/CR, DEL, C1, and the bidi controls sanitize.ts makes visible: none may reach a terminal from a pack.
// oxlint-disable-next-line no-control-regex -- control characters are exactly what this finds
const UNSAFE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `s` as a message quotes it: printable, short. */
function shown(s: string): string {
  const t = s.slice(0, 80).replace(new RegExp(`${UNSAFE.source}|[\\t\\n\\r]`, 'g'), (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return s.length > 80 ? `${t}…` : t;
}

class Checker {
  constructor(private readonly where: string, private readonly signals: ReadonlySet<string> = new Set()) {}
  fail(field: string, msg: string): never {
    throw new RulePackError(`${this.where}: field "${field}" ${msg}`);
  }
  str(o: Obj, k: string, opts: { optional?: boolean; oneOf?: readonly string[]; re?: RegExp } = {}): string {
    const v = o[k];
    if (v === undefined && opts.optional) return '';
    if (typeof v !== 'string' || v.length === 0) this.fail(k, 'must be a non-empty string');
    if (opts.oneOf && !opts.oneOf.includes(v)) this.fail(k, `must be one of ${opts.oneOf.join(', ')} (got "${shown(v)}")`);
    if (opts.re && !opts.re.test(v)) this.fail(k, `must match ${opts.re} (got "${shown(v)}")`);
    return v;
  }
  /** Text a view prints: no control or bidi character; line breaks and tabs become spaces (reports print it on a line). */
  text(o: Obj, k: string, field = k): string {
    return this.clean(this.str(o, k), field);
  }
  clean(v: string, field: string): string {
    const bad = UNSAFE.exec(v);
    if (bad) this.fail(field, `holds the control character U+${bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}: text a terminal shows cannot carry control or bidi characters`);
    return v.replace(/\s*[\r\n\t]+\s*/g, ' ').trim();
  }
  /** A template: clean text whose `{fact}` placeholders name known facts and formats. */
  template(o: Obj, k: string, field = k): string {
    const v = this.text(o, k, field);
    for (const m of v.matchAll(PLACEHOLDER)) {
      this.fact(m[1] as string, field);
      if (m[2] !== undefined && !FORMATS.includes(m[2])) this.fail(field, `uses the format "${m[2]}" in {${m[1]}|${m[2]}}: formats are ${FORMATS.join(', ')}`);
    }
    return v;
  }
  fact(name: string, field: string): string {
    if (isKnownFact(name, this.signals)) return name;
    if (name.startsWith('custom.')) this.fail(field, `names "${shown(name)}", but the pack declares no signal "${shown(name.slice(7))}"`);
    this.fail(field, `names "${shown(name)}", which is not a fact ("plegscope rules facts" lists them)`);
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
      this.fact(c['fact'], `${f}.fact`);
      if (typeof c['op'] !== 'string' || !OPS.includes(c['op'])) this.fail(`${f}.op`, `must be one of ${OPS.join(' ')}`);
      const needsValue = !['exists', 'absent', 'truthy', 'falsy'].includes(c['op']);
      const val = c['value'];
      if (needsValue && !['number', 'string', 'boolean'].includes(typeof val)) this.fail(`${f}.value`, 'must be a number, string or boolean');
      if (typeof val === 'string') this.clean(val, `${f}.value`);
      return { fact: c['fact'], op: c['op'] as Condition['op'], ...(needsValue ? { value: val as number | string | boolean } : {}) };
    });
  }
  weighted(v: unknown, field: string): Weighted[] {
    if (v === undefined) return [];
    if (!Array.isArray(v)) this.fail(field, 'must be a list of {when, weight, label}');
    return v.map((w, i) => {
      const f = `${field}[${i}]`;
      if (!isObj(w)) this.fail(f, 'must be an object {when, weight, label}');
      return { when: this.conditions(w['when'], `${f}.when`), weight: this.num(w, 'weight', 0, 1), label: this.text(w, 'label', `${f}.label`) };
    });
  }
  ruledOut(v: unknown): NonNullable<RuleSpec['ruledOut']> | undefined {
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) this.fail('ruledOut', 'must be a list of {when, reason}');
    return v.map((r, i) => {
      const f = `ruledOut[${i}]`;
      if (!isObj(r)) this.fail(f, 'must be an object {when, reason}');
      for (const k of Object.keys(r)) if (k !== 'when' && k !== 'reason') this.fail(`${f}.${k}`, 'is not a field of ruledOut (when, reason)');
      return { when: this.conditions(r['when'], `${f}.when`), reason: this.template(r, 'reason', `${f}.reason`) };
    });
  }
}

/** A rule id as a message names it: its own text when it is a valid id, else its place in the list. */
function whereOf(kind: 'rule' | 'signal', raw: unknown, index: number): string {
  const id = isObj(raw) ? raw['id'] : undefined;
  return typeof id === 'string' && ID.test(id) ? `${kind} "${id}"` : `${kind}s[${index}]`;
}

function checkRule(raw: unknown, index: number, signals: ReadonlySet<string>): RuleSpec {
  const c: Checker = new Checker(whereOf('rule', raw, index), signals);
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
    title: c.text(raw, 'title'),
    explains: (c.str(raw, 'explains', { optional: true, oneOf: EXPLAINS }) || 'stall') as RuleSpec['explains'],
    when: c.conditions(raw['when'] ?? [], 'when'),
    ...(anyOf ? { anyOf } : {}),
    base: c.num(raw, 'base', 0, 1),
    support: c.weighted(raw['support'], 'support'),
    contra: c.weighted(raw['contra'], 'contra'),
    evidence: c.strList(raw, 'evidence', true).map((e, i) => (isKnownPool(e, signals) ? e : c.fail(`evidence[${i}]`, `names "${shown(e)}", which is not an evidence pool ("plegscope rules facts" lists them)`))),
    summary: c.template(raw, 'summary'),
    remediation: c.text(raw, 'remediation'),
    references: c.strList(raw, 'references', true).map((r, i) => c.clean(r, `references[${i}]`)),
  };
  const ruledOut = c.ruledOut(raw['ruledOut']);
  if (ruledOut) rule.ruledOut = ruledOut;
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
  const c: Checker = new Checker(whereOf('signal', raw, index));
  if (!isObj(raw)) c.fail('', 'must be an object {id, pattern, needles}');
  for (const k of Object.keys(raw)) if (k !== 'id' && k !== 'pattern' && k !== 'needles') c.fail(k, 'is not a signal field (id, pattern, needles)');
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
    checkPattern(pattern);
  } catch (err) {
    c.fail('pattern', `is not a linear-time (RE2) regular expression: ${(err as Error).message}`);
  }
  return spec;
}

export interface LoadedPack {
  pack: RulePack;
  signals: CustomSignalSpec[];
}

/**
 * The number of values in `doc` once aliases are expanded (each shared object counted where it is used), or Infinity
 * for a value that contains itself. Linear in the distinct objects: each one's count is kept.
 */
function expandedSize(doc: unknown): number {
  const sizes = new Map<object, number>();
  const open = new Set<object>();
  const size = (v: unknown): number => {
    if (typeof v !== 'object' || v === null) return 1;
    const known = sizes.get(v);
    if (known !== undefined) return known;
    if (open.has(v)) return Infinity;
    open.add(v);
    let n = 1;
    for (const x of Array.isArray(v) ? v : Object.values(v)) {
      n += size(x);
      if (n > MAX_PACK_VALUES) break;
    }
    open.delete(v);
    sizes.set(v, n);
    return n;
  };
  return size(doc);
}

/** Parses and checks a pack. `name` is for messages only (the file as the user named it). */
export function loadRulePack(text: string, name: string): LoadedPack {
  let doc: unknown;
  const json = /\.json$/i.test(name);
  try {
    // js-yaml, not a document-model parser: a 4 MB pack takes ~100 MB to read instead of ~500 MB. The YAML 1.2 core
    // schema, as before: `yes` and `2024-01-01` stay strings, no `<<` merge keys.
    doc = json ? JSON.parse(text) : jsyaml.load(text, { filename: name, schema: jsyaml.CORE_SCHEMA });
  } catch (err) {
    throw new RulePackError(`not valid ${json ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}`);
  }
  const values = json ? 0 : expandedSize(doc);
  if (values > MAX_PACK_VALUES) {
    throw new RulePackError(values === Infinity ? 'a YAML alias refers to a value that contains it' : `YAML aliases expand to more than ${MAX_PACK_VALUES} values`);
  }
  if (!isObj(doc)) throw new RulePackError('must be a mapping with "rules" (and optionally "signals")');
  for (const k of Object.keys(doc)) if (k !== 'rules' && k !== 'signals') throw new RulePackError(`unknown top-level key "${k}" (expected "rules", "signals")`);
  const rulesRaw = doc['rules'] ?? [];
  const signalsRaw = doc['signals'] ?? [];
  if (!Array.isArray(rulesRaw)) throw new RulePackError('"rules" must be a list');
  if (!Array.isArray(signalsRaw)) throw new RulePackError('"signals" must be a list');
  if (signalsRaw.length > MAX_SIGNALS) throw new RulePackError(`"signals" lists ${signalsRaw.length} signals: at most ${MAX_SIGNALS} (each is searched for in every line of every log)`);
  const signals = signalsRaw.map(checkSignal);
  const signalIds = new Set<string>();
  for (const sg of signals) {
    if (signalIds.has(sg.id)) throw new RulePackError(`signal "${sg.id}": field "id" is used twice`);
    signalIds.add(sg.id);
  }
  const needles = new Set(signals.flatMap((sg) => sg.needles));
  if (needles.size > MAX_NEEDLES) throw new RulePackError(`the signals list ${needles.size} distinct needles: at most ${MAX_NEEDLES}`);
  const short = [...needles].filter((n) => n.length < 5);
  if (short.length > MAX_SHORT_NEEDLES) {
    throw new RulePackError(`the signals list ${short.length} needles of 3 or 4 characters (such as "${shown(short[0] as string)}"): at most ${MAX_SHORT_NEEDLES}, as each costs a pass over every log; use longer ones`);
  }
  const woken = mostWoken(signals);
  if (woken && woken.signals > MAX_WOKEN) {
    throw new RulePackError(`${woken.signals} signals wake on a line holding "${shown(woken.needle)}": at most ${MAX_WOKEN} (each such line is tested against every one of them); give them needles of their own`);
  }
  const rules = rulesRaw.map((r, i) => checkRule(r, i, signalIds));
  const ids = new Set<string>();
  for (const r of rules) {
    if (ids.has(r.id)) throw new RulePackError(`rule "${r.id}": field "id" is used twice`);
    ids.add(r.id);
  }
  return { pack: { rules, signals }, signals };
}

/**
 * The pack's expected cost per line, checked at load: the needle whose lines wake the most signals (those with that
 * needle, or with a needle inside it: a line holding `abcdef` holds `bcd` too), and how many. A window over each needle
 * per needle length the pack uses: linear in the needles' total length times their distinct lengths.
 */
function mostWoken(signals: ReadonlyArray<{ needles: string[] }>): { needle: string; signals: number } | null {
  const byNeedle = new Map<string, Set<number>>();
  signals.forEach((sg, i) => {
    for (const n of sg.needles) {
      const set = byNeedle.get(n);
      if (set) set.add(i);
      else byNeedle.set(n, new Set([i]));
    }
  });
  const lengths = [...new Set([...byNeedle.keys()].map((n) => n.length))];
  let best: { needle: string; signals: number } | null = null;
  for (const n of byNeedle.keys()) {
    const hit = new Set<number>();
    for (const len of lengths) {
      if (len > n.length) continue;
      for (let at = 0; at + len <= n.length; at++) for (const i of byNeedle.get(n.slice(at, at + len)) ?? []) hit.add(i);
    }
    if (best === null || hit.size > best.signals) best = { needle: n, signals: hit.size };
  }
  return best;
}

/** Built-in rules with a pack's rules added; a pack rule with a built-in id replaces it. */
export function mergeRules(builtin: RuleSpec[], pack: RulePack): RuleSpec[] {
  const byId = new Map(pack.rules.map((r) => [r.id, r]));
  return [...builtin.map((r) => byId.get(r.id) ?? r), ...pack.rules.filter((r) => !builtin.some((b) => b.id === r.id))];
}
