// Issue 21: a real paste never ends in "nothing to analyze". Every line the analysis of a real incident cites as
// evidence is a recognisable kubelet, runtime, kernel, CLI or describe line; pasted alone, in a file named as the
// incident's was, it must still get a report (exit 0 or 1), never the exit-2 "nothing to analyze".
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze } from '../src/analyze.js';
import { requireNodes } from '../src/cli/nothing.js';

const ROOT = join(__dirname, '..', 'fixtures', 'incidents');
const cases = readdirSync(ROOT).filter((d) => statSync(join(ROOT, d)).isDirectory()).sort();
const tmp = mkdtempSync(join(tmpdir(), 'single-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('every cited line of a real incident, pasted alone', () => {
  for (const name of cases) {
    it(name, async () => {
      const dir = join(ROOT, name);
      const files = readdirSync(dir).filter((f) => f !== 'meta.json');
      const { analysis } = await analyze({ paths: files.map((f) => join(dir, f)), tz: 'UTC', year: 2024 });
      const cited = new Map<string, string>();
      for (const n of analysis.nodes) for (const f of n.findings) for (const e of f.evidence) {
        const file = e.file.split('/').pop() as string;
        const line = readFileSync(join(dir, file), 'utf8').split('\n')[e.line - 1];
        if (line !== undefined && line.trim() !== '') cited.set(`${file}\n${line}`, file);
      }
      let k = 0;
      for (const [key, file] of cited) {
        const sub = mkdtempSync(join(tmp, `${name}-${k++}-`));
        writeFileSync(join(sub, file), `${key.slice(file.length + 1)}\n`);
        const run = await analyze({ paths: [join(sub, file)], tz: 'UTC', year: 2024 });
        expect(() => requireNodes([file], run.analysis), `${file}: ${key.slice(file.length + 1).slice(0, 160)}`).not.toThrow();
      }
    }, 60_000);
  }
});
