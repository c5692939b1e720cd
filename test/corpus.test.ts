// Incident excerpts shaped as people paste them in issue threads (fixtures/corpus/*): the primary cause must match
// the one the thread established, and every evidence ref must point at a line that holds exactly that text.
import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../src/analyze.js';

const ROOT = join(__dirname, '..', 'fixtures', 'corpus');
const expected = JSON.parse(readFileSync(join(ROOT, 'expected.json'), 'utf8')) as Record<string, {
  year?: number; plegUnhealthy: boolean; primaryCause: string | null; summaryContains?: string; findingRule?: string;
}>;

describe('incident corpus', () => {
  it('holds a case for every directory', () => {
    const dirs = readdirSync(ROOT, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
    expect(Object.keys(expected).sort()).toEqual(dirs);
  });

  for (const [name, want] of Object.entries(expected)) {
    it(`${name}: ${want.primaryCause ?? 'PLEG healthy'}`, async () => {
      const dir = join(ROOT, name);
      const { analysis } = await analyze({ paths: [dir], year: want.year, tz: 'UTC' });
      expect(analysis.nodes.length).toBeGreaterThanOrEqual(1);
      const n = analysis.nodes[0]!;
      expect(n.verdict.plegUnhealthy).toBe(want.plegUnhealthy);
      expect(n.verdict.primaryCause).toBe(want.primaryCause);
      if (want.summaryContains) expect(n.findings[0]!.summary).toContain(want.summaryContains);
      if (want.findingRule) expect(n.findings.map((f) => f.ruleId)).toContain(want.findingRule);
      for (const f of n.findings) {
        for (const e of f.evidence) {
          const lines = readFileSync(join(dir, e.file), 'utf8').split('\n');
          expect(lines[e.line - 1], `${f.ruleId} cites ${e.file}:${e.line}`).toBe(e.text);
        }
      }
    });
  }
});
