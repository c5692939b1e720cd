// Drives `plegscope tui` in a real terminal: tmux runs it, keys go in with send-keys, the screen comes out with
// capture-pane — as text, or with its attributes (-e) parsed into cells, so a test checks what a person sees:
// which cells are inverse, bold, underlined, in which colour.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, expect } from 'vitest';
import { writeFixture, type Fixture, type FixtureOptions } from './fixture.js';

export const HAS_TMUX = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;

export interface Cell {
  ch: string;
  bold: boolean;
  dim: boolean;
  underline: boolean;
  inverse: boolean;
  /** SGR colour code as written (`31`, `93`, `38;5;208`), null for the default. */
  fg: string | null;
  bg: string | null;
}

const PLAIN: Omit<Cell, 'ch'> = { bold: false, dim: false, underline: false, inverse: false, fg: null, bg: null };

/** One captured line (with SGR sequences) as cells. */
export function cellsOf(line: string): Cell[] {
  const out: Cell[] = [];
  let st = { ...PLAIN };
  for (let i = 0; i < line.length;) {
    if (line.startsWith('\x1b[', i)) {
      const end = line.indexOf('m', i);
      const codes = line.slice(i + 2, end).split(';').map((c) => (c === '' ? 0 : Number(c)));
      for (let k = 0; k < codes.length; k++) {
        const c = codes[k] as number;
        if (c === 0) st = { ...PLAIN };
        else if (c === 1) st.bold = true;
        else if (c === 2) st.dim = true;
        else if (c === 4) st.underline = true;
        else if (c === 7) st.inverse = true;
        else if (c === 22) st.bold = st.dim = false;
        else if (c === 24) st.underline = false;
        else if (c === 27) st.inverse = false;
        else if ((c >= 30 && c <= 37) || (c >= 90 && c <= 97)) st.fg = String(c);
        else if (c === 39) st.fg = null;
        else if ((c >= 40 && c <= 47) || (c >= 100 && c <= 107)) st.bg = String(c);
        else if (c === 49) st.bg = null;
        else if (c === 38 || c === 48) {
          const n = codes[k + 1] === 5 ? 2 : 4;
          const v = codes.slice(k, k + n + 1).join(';');
          if (c === 38) st.fg = v;
          else st.bg = v;
          k += n;
        }
      }
      i = end + 1;
      continue;
    }
    const cp = line.codePointAt(i) as number;
    const ch = String.fromCodePoint(cp);
    out.push({ ch, ...st });
    i += ch.length;
  }
  return out;
}

export const text = (cells: Cell[]): string => cells.map((c) => c.ch).join('');

/** The first captured row whose text matches `re`. */
export const row = (cells: Cell[][], re: RegExp): Cell[] => cells.find((r) => re.test(text(r))) as Cell[];

/** The cells of the first occurrence of `s` in a row (from `from`). */
export function cellsAt(r: Cell[], s: string, from = 0): Cell[] {
  const i = text(r ?? []).indexOf(s, from);
  expect(i, `"${s}" in "${text(r ?? [])}"`).toBeGreaterThanOrEqual(0);
  return r.slice(i, i + [...s].length);
}

export class Tmux {
  private readonly socket = `plegscope-e2e-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;

  run(...args: string[]): { status: number | null; out: string } {
    const r = spawnSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
    return { status: r.status, out: (r.stdout ?? '') + (r.stderr ?? '') };
  }

  /** Starts `cmd` (a shell command line) in a session `name` of `cols`×`rows`; the pane stays when it exits. */
  start(name: string, cols: number, rows: number, cmd: string): void {
    const r = this.run('new-session', '-d', '-s', name, '-x', String(cols), '-y', String(rows), cmd, ';', 'set-option', '-t', name, 'remain-on-exit', 'on');
    if (r.status !== 0) throw new Error(`tmux: ${r.out}`);
  }

  screen(name: string): string {
    return this.run('capture-pane', '-p', '-t', name).out;
  }

  /** The screen with attributes: one array of cells per row. */
  styled(name: string): Cell[][] {
    return this.run('capture-pane', '-p', '-e', '-t', name).out.replace(/\n$/, '').split('\n').map(cellsOf);
  }

  async keys(name: string, ...ks: string[]): Promise<void> {
    for (const k of ks) {
      this.run('send-keys', '-t', name, k);
      await sleep(60);
    }
  }

  /** Types text literally (no key names). */
  async type(name: string, s: string): Promise<void> {
    this.run('send-keys', '-t', name, '-l', s);
    await sleep(60);
  }

  /** The screen once `test` holds and it has stopped changing: the same capture twice, 50 ms apart (a capture can
   *  fall in the middle of a frame being written). */
  async waitFor(name: string, test: (screen: string) => boolean, what: string, ms = 20_000): Promise<string> {
    const end = Date.now() + ms;
    let last = '';
    for (;;) {
      const s = this.screen(name);
      if (test(s) && s === last) return s;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; screen:\n${s}`);
      last = s;
      await sleep(50);
    }
  }

  async waitDead(name: string, ms = 15_000): Promise<void> {
    const end = Date.now() + ms;
    while (this.run('display-message', '-p', '-t', name, '#{pane_dead}').out.trim() !== '1') {
      if (Date.now() > end) throw new Error(`${name} did not exit; screen:\n${this.screen(name)}`);
      await sleep(50);
    }
  }

  kill(): void {
    this.run('kill-server');
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The fixture and the tmux server of one test file: the fixture written before its tests; after them, the server killed
 *  and the fixture removed. `fx` is set once the tests run. */
export function tuiSession(opts: FixtureOptions = {}): { readonly tm: Tmux; readonly fx: Fixture } {
  const tm = new Tmux();
  let fx: Fixture | null = null;
  beforeAll(() => {
    fx = writeFixture(opts);
  });
  afterAll(() => {
    if (HAS_TMUX) tm.kill();
    fx?.cleanup();
  });
  return {
    tm,
    get fx(): Fixture {
      if (!fx) throw new Error('the TUI fixture is written in beforeAll: use it inside a test');
      return fx;
    },
  };
}
