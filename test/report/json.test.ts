// `--format json` keeps log text as read, but nothing in it that a terminal would act on stays raw.
import { describe, expect, it } from 'vitest';
import { renderJson } from '../../src/report/json.js';
import { analyzeFiles, at, kl, lines, skipLines } from '../helpers/scenario.js';

describe('--format json', () => {
  it('DEL, C1, bidi controls and line separators are \\u escapes: same data, inert text', async () => {
    const evil = 'pod="a\u009b2J\u007f\u202eevil\u2066x\u2069\u0085\u2028b\u001b[31m"';
    const L = at('10:00:00');
    const a = await analyzeFiles({
      'kubelet.log': lines([...skipLines(L, L + 400_000), kl(L + 200_000, 'E', 'log.go:32', `"ContainerStatus from runtime service failed" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded" containerID="c0ffee0000000001" ${evil}`)]),
    });
    const out = renderJson(a);
    expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    expect(out).toContain('\\u009b2J\\u007f\\u202eevil\\u2066x\\u2069\\u0085\\u2028b\\u001b[31m');
    expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(a)));
    const parsed = JSON.parse(out) as typeof a;
    expect(parsed.nodes[0]?.findings[0]?.evidence.some((e) => e.text.includes(evil))).toBe(true);
  });
});
