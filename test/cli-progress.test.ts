// The progress line of `analyze` (src/cli/progress.ts): what it says at each phase, and that names from the input
// (archive members, file paths) reach the terminal sanitised and cut to its width.
import { describe, expect, it } from 'vitest';
import { CliProgress, inCi, progressWanted } from '../src/cli/progress.js';

const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const EVIL = 'b/var/log/kubelet-x\u001b]0;owned\u0007\u001b[2J\u009b31m\u202e.log';

function fake(columns = 80): NodeJS.WriteStream & { text: string } {
  const s = { text: '', columns, isTTY: true, write(c: string) { s.text += c; return true; } };
  return s as unknown as NodeJS.WriteStream & { text: string };
}

describe('analyze progress line', () => {
  it('names the inputs while indexing, then files done of total and MiB, with the member cut to the width', () => {
    const p = new CliProgress(fake(), ['bundle.tar.xz'], 1000);
    expect(p.line(80)).toMatch(/^plegscope: reading bundle\.tar\.xz · \d+\.\d s$/);
    p.member(EVIL);
    expect(p.line(80)).toMatch(/^plegscope: reading bundle\.tar\.xz · 1 log in archives · \d+\.\d s · /);
    p.read(0, EVIL, 3 * 1024 * 1024);
    p.finished(EVIL, 0, 4);
    const l = p.line(60);
    expect(l).toMatch(/^plegscope: 1 of 4 files · 3 MiB · \d+\.\d s/);
    expect(l.length).toBeLessThanOrEqual(60);
    expect(l).not.toMatch(RAW);
  });

  it('an input name with escapes is sanitised too', () => {
    expect(new CliProgress(fake(), [EVIL], 0).line(200)).not.toMatch(RAW);
  });

  it('drawn only on a terminal outside CI, and cleared at the end', () => {
    const out = fake();
    expect(progressWanted(out, {})).toBe(true);
    expect(progressWanted(out, { CI: 'true' })).toBe(false);
    expect(progressWanted(out, { CI: '0' })).toBe(true);
    expect(progressWanted(out, { TERM: 'dumb' })).toBe(false);
    expect(progressWanted({ ...out, isTTY: false } as NodeJS.WriteStream, {})).toBe(false);
    expect(inCi({ CONTINUOUS_INTEGRATION: 'false' })).toBe(false);
    const p = new CliProgress(out, ['x.log'], 0);
    p.begin();
    p.end();
    expect(out.text.startsWith('\r\u001b[2Kplegscope: reading x.log')).toBe(true);
    expect(out.text.endsWith('\r\u001b[2K')).toBe(true);
  });
});
