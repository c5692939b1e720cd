// The TUI driven with keys through ink-testing-library, on a three-node fixture: every view, the way down from the
// cluster to an evidence line and back, filters, the time kept between timeline and log, help, resize, and log lines
// carrying terminal escape sequences shown inert.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFixture, type Fixture } from './fixture.js';
import { drive, KEYS, loadModel, type Driven } from './harness.js';
import type { TuiModel } from '../../src/tui/model.js';

let fx: Fixture;
let model: TuiModel;
let colorModel: TuiModel;
const open: Driven[] = [];

beforeAll(async () => {
  fx = writeFixture();
  model = await loadModel([fx.dir]);
  colorModel = { ...model, color: true };
});

afterAll(() => {
  for (const d of open) d.unmount();
  fx.cleanup();
});

async function start(size = { columns: 80, rows: 24 }, m = model): Promise<Driven> {
  const d = drive(m, size);
  open.push(d);
  await d.settle();
  return d;
}

const lines = (f: string) => f.split('\n');
const statusLine = (f: string) => lines(f).at(-2) ?? '';

function fitsIn(f: string, cols: number, rows: number): void {
  const ls = lines(f);
  expect(ls.length).toBe(rows);
  for (const l of ls) expect([...l].length).toBeLessThanOrEqual(cols);
}

describe('from the cluster to an evidence line and back (80×24)', () => {
  it('overview → node → finding → log, then esc all the way back', async () => {
    const d = await start();
    let f = d.frame();
    fitsIn(f, 80, 24);
    expect(lines(f)[0]).toMatch(/^ plegscope {2}Overview +UTC ?$/);
    expect(f).toContain('3 nodes · 2 PLEG unhealthy');
    expect(f).toMatch(/^ {2}NODE +PLEG↓ +CAUSE +CONF +STALLS +LONGEST +FIRST STALL 03-11$/m);
    expect(f).toMatch(/▸ worker-3 +unhealthy +disk_io +79% +1 +14m00s 10:00:00/);
    expect(f).toMatch(/worker-5 +unhealthy +runtime_timeout/);
    expect(f).toMatch(/worker-1 +healthy/);
    expect(lines(f).at(-1)).toBe(' ↑↓ move  enter open  / filter  s/S sort  : cmd  q quit  ? help');

    await d.press(KEYS.enter);
    f = d.frame();
    fitsIn(f, 80, 24);
    expect(lines(f)[0]).toContain('Overview ▸ worker-3');
    expect(f).toMatch(/PLEG unhealthy disk_io 79% +v1\.28\.3 · containerd · 1 stall · 1 NotReady/);
    expect(f).toMatch(/PLEG +\|·+█+·+/);
    expect(f).toMatch(/list_podsandbox 6 +█ █/);
    expect(f).toContain('▲ 03-11 10:03:00');
    expect(f).toMatch(/1:Findings \(2\) +2:Stalls \(1\) +3:Ruled out \(\d\) +4:Gaps \(\d\) +5:Operations \(1\)/);
    expect(f).toMatch(/▸ HIGH +79% disk_io +Storage stalled the runtime/);
    // A critical rule at 63 % that the kernel's hung tasks speak against: a weak alternative, reported two levels lower
    // under its own heading row.
    expect(f).toMatch(/^ {2}also considered — weak: confidence below 0\.50 or evidence against\n {2}MEDIUM +63% runtime_timeout/m);

    await d.press(KEYS.enter);
    f = d.frame();
    fitsIn(f, 80, 24);
    expect(lines(f)[0]).toContain('worker-3 ▸ disk-io-stall');
    expect(f).toContain('Evidence (9 lines; rule disk-io-stall)');
    expect(f).toMatch(/▸ dmesg\.log:1 +10:05:00 INFO: task containerd:1021 blocked for more/);
    expect(f).toMatch(/kubelet\.log:1044 +10:04:00 remote_runtime\.go:294\] "ListPodSandbox/);
    expect(statusLine(f)).toBe(' worker-3/dmesg.log:1');

    await d.press('j', 'j');
    expect(statusLine(d.frame())).toBe(' worker-3/kubelet.log:1044');
    await d.press(KEYS.enter);
    f = d.frame();
    fitsIn(f, 80, 24);
    expect(lines(f)[0]).toContain('disk-io-stall ▸ Log');
    expect(lines(f)[2]).toMatch(/^3 logs · 2024-03-11 10:04:00 \+00:00/);
    // The evidence line is selected, with the lines before it as context, from all three files.
    expect(statusLine(f)).toBe('K worker-3/kubelet.log:1044');
    expect(f).toMatch(/10:04:00\.250 KE remote_runtime\.go:294\] "ListPodSandbox with filter from runtime/);
    expect(f).toMatch(/10:04:10\.000 RE level=error msg="ListPodSandbox failed"/);
    const before = lines(f).findIndex((l) => l.includes('10:04:00.250 KE remote_runtime'));
    expect(before).toBeGreaterThan(4);

    await d.press(KEYS.esc);
    expect(d.frame()).toContain('Evidence (9 lines');
    await d.press(KEYS.esc);
    expect(d.frame()).toContain('1:Findings (2)');
    await d.press(KEYS.esc);
    expect(lines(d.frame())[0]).toMatch(/^ plegscope {2}Overview /);
    expect(d.exited()).toBe(false);
    // What ink leaves as its last frame on exit is ink's business (and timing-dependent); that the app quit is ours.
    await d.press('q');
    await d.waitFor(() => d.exited(), 'the app to quit on q');
  });

  it('ctrl-c quits from a deeper view too', async () => {
    const d = await start();
    await d.press(KEYS.enter);
    expect(d.exited()).toBe(false);
    await d.press(KEYS.ctrlC);
    await d.waitFor(() => d.exited(), 'the app to quit on ctrl-c');
  });

  it('scrolls the log by line and page and to both ends', async () => {
    const d = await start();
    await d.press(':');
    await d.type('log worker-5');
    await d.press(KEYS.enter);
    let f = d.frame();
    expect(lines(f)[0]).toContain('Overview ▸ Log');
    const first = statusLine(f);
    await d.press('j');
    expect(statusLine(d.frame())).not.toBe(first);
    await d.press('k');
    expect(statusLine(d.frame())).toBe(first);
    await d.press(KEYS.pageDown);
    f = d.frame();
    const n0 = Number(/:(\d+)$/.exec(first)?.[1]);
    const n1 = Number(/:(\d+)$/.exec(statusLine(f))?.[1]);
    expect(n1 - n0).toBe(19);
    await d.press('G');
    expect(statusLine(d.frame())).toMatch(/kubelet\.log:1863$/);
    await d.press('g');
    expect(statusLine(d.frame())).toMatch(/kubelet\.log:1$/);
    await d.press('k');
    expect(statusLine(d.frame())).toMatch(/kubelet\.log:1$/);
  });
});

describe('weak alternatives in the findings list (issue 14.8)', () => {
  it('sit under an "also considered" row the cursor steps over, and their finding view says what they are', async () => {
    const d = await start();
    await d.press(KEYS.enter);
    let f = d.frame();
    expect(f).toMatch(/▸ HIGH +79% disk_io/);
    await d.press('j');
    f = d.frame();
    fitsIn(f, 80, 24);
    expect(f).toMatch(/^ {2}HIGH +79% disk_io/m);
    expect(f).toMatch(/^ {2}also considered — weak: confidence below 0\.50 or evidence against\n▸ MEDIUM +63% runtime_timeout/m);
    await d.press('j');
    expect(d.frame()).toMatch(/▸ MEDIUM +63% runtime_timeout/);
    await d.press('k');
    expect(d.frame()).toMatch(/▸ HIGH +79% disk_io/);
    await d.press('j', KEYS.enter);
    f = d.frame();
    fitsIn(f, 80, 24);
    expect(lines(f)[0]).toContain('worker-3 ▸ runtime-hung-lists');
    expect(f).toMatch(/^MEDIUM \(RULE: CRITICAL\) also considered 63% runtime_timeout {2}Container runtime/m);
  });
});

describe('filters', () => {
  it('overview: / filters by node name or cause as you type; s sorts; esc clears', async () => {
    const d = await start();
    await d.press('/');
    await d.type('worker-1');
    let f = d.frame();
    expect(f).toMatch(/worker-1 +healthy/);
    expect(f).not.toContain('worker-3');
    expect(lines(f).at(-1)).toContain('/worker-1');
    await d.press(KEYS.enter);
    expect(d.frame()).toContain('filter "worker-1": 1 of 3 nodes');
    await d.press(KEYS.esc);
    await d.press('/');
    await d.type('disk');
    f = d.frame();
    expect(f).toContain('worker-3');
    expect(f).not.toContain('worker-5');
    await d.press(KEYS.esc);
    expect(d.frame()).toContain('worker-5');
    await d.press('s');
    f = d.frame();
    expect(f).toContain('NODE↓');
    expect(lines(f).findIndex((l) => l.includes('worker-1'))).toBeLessThan(lines(f).findIndex((l) => l.includes('worker-3')));
    await d.press('/');
    await d.type('nothing-like-this');
    expect(d.frame()).toContain('no node matches "nothing-like-this"');
  });

  it('log: / keeps only matching lines (RE2), f shows all again, n/N and e/E jump, bad patterns say why', async () => {
    const d = await start({ columns: 140, rows: 24 });
    await d.press(':');
    await d.type('log worker-3');
    await d.press(KEYS.enter);
    await d.press('/');
    await d.type('event="Node(Not)?Ready"');
    await d.press(KEYS.enter);
    let f = d.frame();
    expect(lines(f)[2]).toContain('/event="Node(Not)?Ready"/ only matches');
    const shown = lines(f).filter((l) => /^\d\d:\d\d:\d\d\.\d{3} /.test(l));
    expect(shown).toHaveLength(2);
    expect(shown[0]).toMatch(/^10:03:01\.250 KI kubelet_node_status\.go:669\] "Recording event message for node" node="worker-3" event="NodeNotRe/);
    expect(shown[1]).toMatch(/^10:14:09\.000 KI .*event="NodeReady"/);
    await d.press('j');
    const readyLine = statusLine(d.frame());
    await d.press('f');
    f = d.frame();
    expect(lines(f)[2]).toContain('(f: only matches)');
    expect(statusLine(f)).toBe(readyLine);
    expect(lines(f).filter((l) => /^\d\d:\d\d:\d\d\.\d{3} /.test(l)).length).toBe(19);
    await d.press('N');
    expect(statusLine(d.frame())).toMatch(/kubelet\.log:1000$/);
    await d.press('N');
    expect(statusLine(d.frame())).toBe('no earlier line matches /event="Node(Not)?Ready"/');
    await d.press('n');
    expect(statusLine(d.frame())).toBe(readyLine);
    await d.press('g', 'e');
    expect(statusLine(d.frame())).toBe('R worker-3/containerd.log:2');
    await d.press('e');
    expect(statusLine(d.frame())).toBe('R worker-3/containerd.log:3');
    await d.press('E', 'E');
    expect(statusLine(d.frame())).toBe('no earlier error line');
    await d.press('/');
    await d.type('(a');
    await d.press(KEYS.enter);
    expect(statusLine(d.frame())).toMatch(/^\/\(a\/: error parsing regexp: missing closing \)/);
    await d.press('/');
    await d.type('(a)\\1');
    await d.press(KEYS.enter);
    expect(statusLine(d.frame())).toMatch(/invalid escape sequence|backreference|error parsing regexp/);
    // The earlier filter stays in place; esc clears it, the next esc goes back.
    expect(lines(d.frame())[2]).toContain('/event="Node(Not)?Ready"/');
    await d.press(KEYS.esc);
    expect(lines(d.frame())[2]).not.toContain('/event');
    await d.press(KEYS.esc);
    expect(lines(d.frame())[0]).toMatch(/Overview +UTC ?$/);
  });
});

describe('timeline and log share the focused time', () => {
  it('t jumps to a time, i shows it on the timeline, l opens the log there again', async () => {
    const d = await start();
    await d.press(KEYS.enter, 'l');
    let f = d.frame();
    expect(lines(f)[2]).toMatch(/^3 logs · 2024-03-11 10:03:00/);
    await d.press('t');
    await d.type('10:10');
    await d.press(KEYS.enter);
    f = d.frame();
    expect(lines(f)[2]).toMatch(/^3 logs · 2024-03-11 10:10:00 \+00:00/);
    await d.press('i');
    f = d.frame();
    expect(f).toContain('1:Findings (2)');
    expect(f).toContain('▲ 03-11 10:10:00');
    await d.press(KEYS.right, KEYS.right);
    f = d.frame();
    const cursor = /▲ 03-11 (\d\d:\d\d:\d\d)/.exec(f)?.[1];
    expect(cursor && cursor > '10:10:00').toBe(true);
    await d.press('l');
    f = d.frame();
    // The first line at or after the cursor (lines come every second or two).
    const shownAt = /^3 logs · 2024-03-11 (\d\d:\d\d:\d\d)/.exec(lines(f)[2] ?? '')?.[1] as string;
    expect(shownAt >= (cursor as string)).toBe(true);
    expect(Date.parse(`2024-03-11T${shownAt}Z`) - Date.parse(`2024-03-11T${cursor}Z`)).toBeLessThanOrEqual(2000);
    await d.press(KEYS.esc);
    expect(d.frame()).toContain(`▲ 03-11 ${shownAt}`);
    await d.press('t');
    expect(d.frame()).toContain('1:Findings (2)');
  });
});

describe('help, resize, colour, hostile text', () => {
  it('? shows the keys of the current view and the global ones; esc closes it', async () => {
    const d = await start();
    await d.press('?');
    let f = d.frame();
    fitsIn(f, 80, 24);
    expect(f).toContain('Overview (one row per node)');
    expect(f).toContain('s / S');
    expect(f).toContain('Everywhere');
    await d.press(KEYS.esc);
    expect(d.frame()).not.toContain('Everywhere');
    await d.press(KEYS.enter, 'l', '?');
    f = d.frame();
    expect(f).toContain("Log (the node's kubelet, runtime and kernel lines by time)");
    expect(f).toMatch(/e \/ E +next \/ previous error/);
    await d.press('?');
    expect(d.frame()).toContain('3 logs ·');
  });

  it('follows the terminal size, and says when it is too small', async () => {
    const d = await start();
    await d.press(KEYS.enter);
    await d.resize({ columns: 120, rows: 40 });
    let f = d.frame();
    fitsIn(f, 120, 40);
    expect(f).toContain('1:Findings (2)');
    await d.resize({ columns: 50, rows: 10 });
    expect(d.frame()).toContain('terminal too small (50×10)');
    await d.resize({ columns: 80, rows: 24 });
    await d.press('l');
    fitsIn(d.frame(), 80, 24);
    await d.resize({ columns: 100, rows: 30 });
    f = d.frame();
    fitsIn(f, 100, 30);
    expect(lines(f).filter((l) => /^\d\d:\d\d:\d\d\.\d{3} /.test(l))).toHaveLength(25);
  });

  it('uses no colour with NO_COLOR', async () => {
    const d = await start({ columns: 80, rows: 24 }, model);
    await d.press(KEYS.enter);
    // eslint-disable-next-line no-control-regex
    expect(d.raw()).not.toMatch(/\x1b\[(?:3[0-7]|9[0-7]|38;)/);
    const c = await start({ columns: 80, rows: 24 }, colorModel);
    await c.press(KEYS.enter);
    expect(c.frame()).toContain('1:Findings (2)');
  });

  it('shows a line with escape sequences, \\r and a bidi override inert', async () => {
    const d = await start({ columns: 220, rows: 30 });
    await d.press(':');
    await d.type('log worker-3');
    await d.press(KEYS.enter, 't');
    await d.type('09:40:00.250');
    await d.press(KEYS.enter);
    for (const mode of ['compact', 'whole lines'] as const) {
      const raw = d.raw();
      const row = raw.split('\n').find((l) => l.includes('evil-0')) as string;
      expect(row, mode).toBeDefined();
      expect(row).toContain('pwned\\x0doverwritten \\u202etxt.exe');
      expect(raw).not.toContain('\x1b[2J');
      expect(raw).not.toContain('\x1b]52');
      expect(raw).not.toContain('\x07');
      expect(raw).not.toContain('\r');
      expect(raw).not.toContain('\u202e');
      if (mode === 'whole lines') expect(d.frame()).toMatch(/09:40:00\.250 KW Mar 11 09:40:00 worker-3 kubelet\[2817\]: W0311 09:40:00\.250000 +2817 prober\.go:107\] "Probe failed"/);
      await d.press('v');
    }
  });
});
