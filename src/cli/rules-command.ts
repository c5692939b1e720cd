// `plegscope rules list|show`: the catalog as a user reads it — what each rule looks at and what it advises.
import type { Condition, RuleSpec } from '../rules/spec.js';

function cond(c: Condition): string {
  return c.value === undefined ? `${c.fact} ${c.op}` : `${c.fact} ${c.op} ${JSON.stringify(c.value)}`;
}

export function rulesList(rules: RuleSpec[]): string {
  const w = rules.reduce((m, r) => Math.max(m, r.id.length), 0);
  return rules.map((r) => `${r.id.padEnd(w)}  ${r.cause.padEnd(18)} ${r.severity.padEnd(8)} ${r.title}`).join('\n') + '\n';
}

export function rulesShow(rules: RuleSpec[], id: string): string | null {
  const r = rules.find((x) => x.id === id);
  if (!r) return null;
  const out = [
    `${r.id} — ${r.title}`,
    `cause: ${r.cause}   severity: ${r.severity}   explains: ${r.explains}   base confidence: ${r.base}`,
    '',
    'Fires when:',
    ...r.when.map((c) => `  - ${cond(c)}`),
  ];
  if (r.anyOf?.length) {
    out.push('and any of:');
    for (const g of r.anyOf) out.push(`  - ${g.map(cond).join(' AND ')}`);
  }
  if (r.support?.length) {
    out.push('', 'Confidence grows with:');
    for (const s of r.support) out.push(`  +${s.weight}  ${s.label}   (${s.when.map(cond).join(' AND ')})`);
  }
  if (r.contra?.length) {
    out.push('', 'Confidence shrinks with:');
    for (const s of r.contra) out.push(`  -${s.weight}  ${s.label}   (${s.when.map(cond).join(' AND ')})`);
  }
  out.push('', `Evidence cited: ${r.evidence.join(', ')}`, '', `Remedy: ${r.remediation}`);
  if (r.references?.length) {
    out.push('', 'References:');
    for (const u of r.references) out.push(`  ${u}`);
  }
  return out.join('\n') + '\n';
}
