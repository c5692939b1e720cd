// `plegscope rules list|show`: the catalog as a user reads it — what each rule looks at and what it advises.
import type { Condition, RuleSpec } from '../rules/spec.js';
import { wrapWords } from '../report/layout.js';
import { sanitize } from '../util/sanitize.js';

function cond(c: Condition): string {
  return c.value === undefined ? `${c.fact} ${c.op}` : `${c.fact} ${c.op} ${JSON.stringify(c.value)}`;
}

/** The catalog as a table with a header, columns as wide as their contents. The title ends the line when it fits
 *  in 40 columns or more of `width`; else it goes on a line of its own under its rule, wrapped. */
export function rulesList(rules: RuleSpec[], width = 80): string {
  const head = ['ID', 'CAUSE', 'SEVERITY', 'EXPLAINS'];
  const rows = rules.map((r) => [sanitize(r.id), r.cause, r.severity, r.explains]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((x) => (x[i] as string).length)));
  const lead = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i] as number)).join('  ');
  const leadW = lead(head).length + 2;
  const inline = width - leadW >= 40;
  const out = [inline ? `${lead(head)}  TITLE` : lead(head)];
  rules.forEach((r, i) => {
    if (inline) {
      const title = wrapWords(sanitize(r.title), width - leadW);
      out.push(`${lead(rows[i] as string[])}  ${title[0] ?? ''}`, ...title.slice(1).map((t) => ' '.repeat(leadW) + t));
    } else {
      out.push(lead(rows[i] as string[]), ...wrapWords(sanitize(r.title), width - 4).map((t) => `    ${t}`));
    }
  });
  return out.map((l) => l.trimEnd()).join('\n') + '\n';
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
  if (r.references?.length) out.push('', 'References:', ...r.references.map((u) => `  ${u}`));
  // Pack text is user input: nothing in it reaches the terminal raw.
  return out.map((l) => sanitize(l)).join('\n') + '\n';
}
