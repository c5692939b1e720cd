// Runs rule specs over one node's facts: fires, scores, ranks; then the verdict, ruled-out causes and gaps.
// Confidence combines independent agreeing evidence as a noisy-OR over the base (each agreeing piece closes part of the
// remaining doubt), and each piece of contrary evidence removes its share. A finding's severity is its rule's lowered
// with its confidence and by contrary evidence (effectiveSeverity); weak alternatives come last (isConsidered).
import { plurals } from '../util/plural.js';
import type { Cause, Finding, Gap, RuledOut, Severity, Verdict } from '../contract/analysis.js';
import { ESTABLISHED_CONFIDENCE, SEVERITIES, WEAK_CONFIDENCE } from '../contract/analysis.js';
import type { Condition, GapSpec, RuleSpec } from './spec.js';
import { KUBELET_LOG_GAP } from './gaps.js';
import type { Cite, CountCheck, FactSheet, FactValue, Facts } from './facts.js';
import { LIST_SEP, LIST_START } from './facts.js';
import { isoTime } from '../util/instant.js';

export interface Fired {
  spec: RuleSpec;
  confidence: number;
  summary: string;
  /** The summary one fact per line (factLines). */
  lines: string[];
  evidence: Cite[];
  because: string[];
  against: string[];
  /** How to check the counts its summary states. */
  checks: CountCheck[];
  /** The verdict names it: the first stall-explaining finding of a node that stalled. */
  primary: boolean;
  /** The severity it is reported and judged at (effectiveSeverity): `spec.severity` is the rule's, when established. */
  severity: Severity;
  /** A weak alternative (isConsidered): reported under "also considered", never counted by --fail-on. */
  considered: boolean;
  /** The confidence before rounding: findings are ranked on it (two rounded alike are not a tie). */
  rawConfidence: number;
}

export interface NodeJudgement {
  fired: Fired[];
  verdict: Verdict;
  ruledOut: RuledOut[];
  /** Causes whose absence the input cannot show (it holds no lines around the stall): not ruled out. */
  notSeen: RuledOut[];
  gaps: Gap[];
  /** Every rule evaluated (for JUnit: one testcase per rule), with whether it fired. */
  evaluated: Array<{ id: string; fired: boolean }>;
}

export function holds(c: Condition, facts: Facts): boolean {
  const v = facts[c.fact];
  switch (c.op) {
    case 'exists': return v !== null && v !== undefined;
    case 'absent': return v === null || v === undefined;
    case 'truthy': return !!v;
    case 'falsy': return !v;
  }
  if (v === null || v === undefined) return false;
  const w = c.value;
  if (typeof v === 'number' && typeof w === 'number') {
    switch (c.op) {
      case '>': return v > w;
      case '>=': return v >= w;
      case '<': return v < w;
      case '<=': return v <= w;
      case '==': return v === w;
      case '!=': return v !== w;
    }
  }
  switch (c.op) {
    case '==': return v === w;
    case '!=': return v !== w;
    default: return false;
  }
}

const allHold = (cs: Condition[] | undefined, f: Facts): boolean => (cs ?? []).every((c) => holds(c, f));

/** A value a command cannot be built from (a name no node can have, an unknown value): no command is suggested. */
class Refused extends Error {}

/** `s` as one shell word: bare when it holds only characters no shell treats specially (sh, bash, zsh: no `=` first),
 *  else single-quoted. */
export function shQuote(s: string): string {
  return /^[A-Za-z0-9@%+:,./_-][A-Za-z0-9@%+=:,./_-]*$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A name a Kubernetes node can have: an RFC 1123 subdomain (lower-case letters, digits, '-' and '.', labels that
 *  start and end with a letter or digit, at most 253 characters). Such a name needs no quoting anywhere. */
export function isNodeName(s: string): boolean {
  return s.length <= 253 && /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$/.test(s);
}

/** Time options of collection commands: `{fact|since}` → ` --since '2024-03-11 09:57:00 UTC'` (journalctl),
 *  `{fact|ocsince}` → ` --since=2024-03-11T09:57:00Z` (oc adm node-logs); nothing when the time is unknown. */
const TIME_OPTIONS: Record<string, { option: string; style: 'journal' | 'rfc3339' }> = {
  since: { option: ' --since ', style: 'journal' },
  until: { option: ' --until ', style: 'journal' },
  ocsince: { option: ' --since=', style: 'rfc3339' },
  ocuntil: { option: ' --until=', style: 'rfc3339' },
  qsince: { option: '&sinceTime=', style: 'rfc3339' },
  pcsince: { option: ' --since ', style: 'rfc3339' },
};

function utcStamp(ms: number, style: 'journal' | 'rfc3339'): string {
  const iso = isoTime(Math.floor(ms / 1000) * 1000).replace('.000Z', 'Z');
  return style === 'rfc3339' ? iso : shQuote(`${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`);
}

/** What the node's container runtime logs as, for `journalctl -u`: every runtime's unit when it is not known. */
const RUNTIME_UNITS: Record<string, string> = { containerd: '-u containerd', 'cri-o': '-u crio', docker: '-u docker' };
/** The same as the node log query's `query=` parameters. */
const RUNTIME_QUERIES: Record<string, string> = { containerd: 'query=containerd', 'cri-o': 'query=crio', docker: 'query=docker' };

function fmt(v: FactValue | undefined, how: string | undefined): string {
  const time = how !== undefined ? TIME_OPTIONS[how] : undefined;
  if (time) return typeof v === 'number' && Number.isFinite(v) ? time.option + utcStamp(v, time.style) : '';
  // Shell words (collection commands): quoted, or no command at all when unknown or not a node name.
  if (how === 'units') return (typeof v === 'string' ? RUNTIME_UNITS[v] : undefined) ?? '-u containerd -u crio -u docker';
  if (how === 'queries') return (typeof v === 'string' ? RUNTIME_QUERIES[v] : undefined) ?? 'query=containerd&query=crio&query=docker';
  if (how === 'node' || how === 'sh') {
    if (v === null || v === undefined || (how === 'node' && !isNodeName(String(v)))) throw new Refused();
    return shQuote(String(v));
  }
  // An optional phrase: nothing when the fact is absent (or zero, false), else a space and the phrase.
  if (how === 'opt') return v === null || v === undefined || v === 0 || v === false || v === '' ? '' : ` ${String(v)}`;
  if (v === null || v === undefined) return 'unknown';
  if (typeof v === 'number') {
    switch (how) {
      case 'dur': return formatDuration(v);
      case 'pct': return `${Math.round(v * 100)} %`;
      case 'sec': return `${v < 10 ? v.toFixed(2) : Math.round(v)} s`;
      default: return Number.isInteger(v) ? String(v) : v.toFixed(2);
    }
  }
  return String(v);
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return 'unknown';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  return r ? `${m}m${String(r).padStart(2, '0')}s` : `${m}m`;
}

/** The `evidence.*` facts a template states (phrases of what was seen). */
function evidencePhrases(template: string): string[] {
  return [...template.matchAll(/\{(evidence\.[\w.-]+)(?:\|\w+)?\}/g)].map((m) => m[1] as string);
}

/** A template with its `{fact}` and `{fact|format}` placeholders filled. Formats: dur, pct, sec (prose); sh (a shell
 *  word), node (a node name, checked and quoted), units (`-u` options of the runtime), since/until/ocsince/ocuntil
 *  (time options), opt (an optional phrase: a space and the value, or nothing when the fact is absent or zero). */
export function render(template: string, facts: Facts, listSep = '; ', listStart = ''): string {
  return plurals(template.replace(/\{([A-Za-z][\w.-]*)(?:\|(\w+))?\}/g, (_, k: string, how: string | undefined) => fmt(facts[k], how)).split(LIST_SEP).join(listSep).split(LIST_START).join(listStart));
}

/** Where a summary's sentence ends: a full stop before a capital, a digit or a quote (not an abbreviation). */
const SENTENCE_END = /(?<!\b(?:e\.g|i\.e|vs|etc|approx))\.\s+(?=[A-Z0-9"(])/;

/**
 * A finding's summary one fact per line (the contract's `Finding.lines`): each sentence on a line; a list of what was
 * seen (`{evidence.…}`) one item a line, `- ` before it; then what supports it that the lines above have not said yet
 * (a support whose facts a phrase states is left out), and what speaks against it.
 */
export function factLines(spec: RuleSpec, facts: Facts, because: string[], against: string[], said: FactSheet['said']): string[] {
  const out: string[] = [];
  const text = render(spec.summary, facts, '\n- ', '\n- ');
  for (const para of text.split('\n')) {
    if (para.startsWith('- ')) {
      // A list item ends where the list does: a sentence after it starts a line of its own.
      const [item, ...rest] = para.split(SENTENCE_END);
      out.push(item as string);
      for (const r of rest) out.push(r);
    } else out.push(...para.split(SENTENCE_END));
  }
  const stated = new Set<string>();
  for (const m of spec.summary.matchAll(/\{([A-Za-z][\w.-]*)(?:\|\w+)?\}/g)) {
    stated.add(m[1] as string);
    for (const k of said?.[m[1] as string] ?? []) stated.add(k);
  }
  const support = (spec.support ?? []).filter((x) => because.includes(x.label) && !x.when.every((c) => stated.has(c.fact))).map((x) => x.label);
  if (support.length) out.push(`Supporting: ${support.join('; ')}.`);
  for (const a of against) out.push(`Against: ${a}.`);
  return out.map((l) => l.trim()).filter(Boolean);
}


/** Said instead of the commands when one of them would have to carry a value no node can have. */
export const NO_COMMAND = '# no command suggested: this node\'s name is not one a Kubernetes node can have (RFC 1123: lower-case letters, digits, \'-\' and \'.\')';

/** A command template filled for pasting: every value from the input is a quoted shell word; a template that would
 *  need a bad node name (or an unknown value) gives NO_COMMAND instead. One command per line. */
export function renderCommand(template: string, facts: Facts): string {
  try {
    return render(template, facts);
  } catch (err) {
    if (err instanceof Refused) return NO_COMMAND;
    throw err;
  }
}

function cite(pools: FactSheet['pools'], names: string[]): Cite[] {
  const out: Cite[] = [];
  const seen = new Set<string>();
  for (const n of names) {
    for (const r of pools[n] ?? []) {
      const k = `${'file' in r ? r.file : r.artifact}:${r.line}`;
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(r);
      if (out.length >= 12) return out;
    }
  }
  return out;
}

const SEVERITY_RANK: Record<Severity, number> = { critical: 5, high: 4, medium: 3, low: 2, info: 1 };

/** The lowest severity the finding the verdict names is reported at: the stall it stands for is established, only its
 *  cause is in doubt (the verdict's confidence says how much). */
const PRIMARY_FLOOR: Severity = 'medium';

/**
 * The severity a finding is reported and judged at, in every format, the exit code (`--fail-on`) and JUnit: the rule's
 * severity is what it is worth when established. One level lower below ESTABLISHED_CONFIDENCE, two below
 * WEAK_CONFIDENCE, one more when evidence contradicts it; never below info, and the verdict's own finding never below
 * medium (nor above its rule's severity).
 */
export function effectiveSeverity(rule: Severity, confidence: number, contradicted: boolean, primary: boolean): Severity {
  const steps = (confidence < ESTABLISHED_CONFIDENCE ? 1 : 0) + (confidence < WEAK_CONFIDENCE ? 1 : 0) + (contradicted ? 1 : 0);
  let rank = Math.max(SEVERITY_RANK.info, SEVERITY_RANK[rule] - steps);
  if (primary) rank = Math.max(rank, Math.min(SEVERITY_RANK[rule], SEVERITY_RANK[PRIMARY_FLOOR]));
  return SEVERITIES.find((s) => SEVERITY_RANK[s] === rank) as Severity;
}

/** A weak alternative: not the verdict's finding, and less likely than not or contradicted by the evidence. The reports
 *  list it under "also considered"; `--fail-on` and JUnit never count it. */
export function isConsidered(confidence: number, contradicted: boolean, primary: boolean): boolean {
  return !primary && (confidence < WEAK_CONFIDENCE || contradicted);
}

export function evaluate(specs: RuleSpec[], gaps: GapSpec[], sheet: FactSheet): NodeJudgement {
  const f = sheet.facts;
  const fired: Fired[] = [];
  const evaluated: NodeJudgement['evaluated'] = [];
  for (const spec of specs) {
    // A summary that would state what the input lacks (an evidence phrase with nothing in it) does not fire.
    const ok = allHold(spec.when, f) && (!spec.anyOf || spec.anyOf.length === 0 || spec.anyOf.some((g) => allHold(g, f)))
      && evidencePhrases(spec.summary).every((k) => f[k] !== null && f[k] !== undefined);
    evaluated.push({ id: spec.id, fired: ok });
    if (!ok) continue;
    let doubt = 1 - spec.base;
    const because: string[] = [];
    for (const s of spec.support ?? []) {
      if (allHold(s.when, f)) {
        doubt *= 1 - s.weight;
        because.push(s.label);
      }
    }
    let conf = 1 - doubt;
    const against: string[] = [];
    for (const c of spec.contra ?? []) {
      if (allHold(c.when, f)) {
        conf *= 1 - c.weight;
        against.push(c.label);
      }
    }
    conf = Math.min(0.99, Math.max(0.05, conf));
    const checks = (spec.counts ?? []).map((k) => sheet.counts?.[k]).filter((c): c is CountCheck => !!c);
    fired.push({
      spec, confidence: Math.round(conf * 100) / 100, summary: render(spec.summary, f), lines: factLines(spec, f, because, against, sheet.said), evidence: cite(sheet.pools, spec.evidence), because, against, checks,
      primary: false, severity: spec.severity, considered: false, rawConfidence: conf,
    });
  }
  // `unknown` is the fallback: it stands only when no named cause explains the stall.
  if (fired.some((x) => x.spec.explains === 'stall' && x.spec.cause !== 'unknown')) {
    for (let i = fired.length - 1; i >= 0; i--) if ((fired[i] as Fired).spec.cause === 'unknown' && (fired[i] as Fired).spec.explains === 'stall') fired.splice(i, 1);
  }
  fired.sort((a, b) =>
    rankClass(a) - rankClass(b) || b.rawConfidence - a.rawConfidence || SEVERITY_RANK[b.spec.severity] - SEVERITY_RANK[a.spec.severity] || a.spec.id.localeCompare(b.spec.id));

  const stalled = (f['stall.count'] as number) > 0;
  const primary = stalled ? fired.find((x) => x.spec.explains === 'stall') ?? null : null;
  for (const x of fired) {
    x.primary = x === primary;
    x.severity = effectiveSeverity(x.spec.severity, x.confidence, x.against.length > 0, x.primary);
    x.considered = isConsidered(x.confidence, x.against.length > 0, x.primary);
  }
  // Weak alternatives after the rest, in rank order: the reports list them last, under "also considered".
  fired.sort((a, b) => Number(a.considered) - Number(b.considered));
  const verdict: Verdict = {
    plegUnhealthy: stalled,
    primaryCause: primary ? primary.spec.cause : null,
    confidence: primary ? primary.confidence : stalled ? 0 : notReadyConfidence(fired),
  };
  const firedCauses = new Set<Cause>(fired.filter((x) => x.spec.explains === 'stall').map((x) => x.spec.cause));
  const ruledOut: RuledOut[] = [];
  // An absence rules a cause out only where the input covers the stall (facts.ts `stall.covered`: the kubelet's log
  // from before the stall turned unhealthy to its last line). Elsewhere the same absence is "not seen", with a gap.
  const notSeen: RuledOut[] = [];
  if (stalled) {
    const done = new Set<Cause>();
    for (const spec of specs) {
      if (firedCauses.has(spec.cause) || done.has(spec.cause) || !spec.ruledOut) continue;
      for (const r of spec.ruledOut) {
        if (allHold(r.when, f)) {
          (f['stall.covered'] === true ? ruledOut : notSeen).push({ cause: spec.cause, reason: render(r.reason, f) });
          done.add(spec.cause);
          break;
        }
      }
    }
  }
  const held = gaps.filter((g) => allHold(g.when, f));
  const toGap = (g: GapSpec): Gap => ({ missing: g.missing, why: render(g.why, f), collect: renderCommand(g.collect, f) });
  const outGaps: Gap[] = held.filter((g) => !g.closing).map(toGap);
  if (notSeen.length > 0) {
    // First, unless the kubelet's journal is missing altogether (gaps.ts): that gap stays first, this one follows it.
    outGaps.splice(outGaps[0]?.missing === KUBELET_LOG_GAP ? 1 : 0, 0, {
      missing: 'log lines around the stall',
      why: `${notSeen.map((x) => x.cause).join(', ')}: not seen, but not ruled out either — the input holds no lines around the stall (the kubelet's log from before its last good relist to the end of the stall would show or rule them out)`,
      collect: renderCommand(AROUND_STALL, f),
    });
  }
  // What a collection could not fetch, each with the command that fetches it once the cause is fixed.
  for (const r of sheet.refused ?? []) {
    outGaps.push({
      missing: r.what,
      why: `plegscope collect could not fetch it${r.status !== null && r.status !== 200 ? ` (HTTP ${r.status})` : ''}: ${r.reason}`,
      collect: r.command ?? '# nothing to run until what "why" names is fixed; then collect again (below)',
    });
  }
  // A closing gap (the one command that gets all the others) only after others.
  if (outGaps.length > 0) outGaps.push(...held.filter((g) => g.closing).map(toGap));
  return { fired, verdict, ruledOut, notSeen, gaps: outGaps, evaluated };
}

/** The kubelet's and the runtime's journals over the stall's window (10 min either side when the stall is dated). */
const AROUND_STALL = [
  'journalctl -u kubelet{collect.since|since}{collect.until|until} -o short-precise > {node.name|node}-kubelet.log',
  'journalctl -u containerd -u crio -u docker{collect.since|since}{collect.until|until} -o short-precise > {node.name|node}-runtime.log',
].join('\n');

/** Stall-explaining findings first, then NotReady reasons, then warnings. */
function rankClass(x: Fired): number {
  return x.spec.explains === 'stall' ? (x.spec.cause === 'unknown' ? 1 : 0) : x.spec.explains === 'notready' ? 2 : 3;
}

function notReadyConfidence(fired: Fired[]): number {
  return fired.find((x) => x.spec.explains === 'notready')?.confidence ?? 0;
}

export type { Finding };
