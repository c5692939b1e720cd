// The navigation reducer and the small parsers behind the TUI's prompts: pure functions, driven with keys.
import { describe, expect, it } from 'vitest';
import type { Finding, NodeReport } from '../../src/contract/analysis.js';
import type { TuiModel } from '../../src/tui/model.js';
import { criTimes } from '../../src/tui/model.js';
import { current, initialState, overviewRows, reduce, splitInput, type Env, type Keys, type NavState } from '../../src/tui/state.js';
import { parseWhen } from '../../src/tui/when.js';
import { compilePattern, foldedSearch, requiredLiterals } from '../../src/tui/pattern.js';
import { loadingLines, ProgressStore } from '../../src/tui/progress.js';

function report(name: string, o: Partial<NodeReport> = {}): NodeReport {
  return {
    name, kubeletVersion: 'v1.28.3', runtime: 'containerd', window: { start: '2024-03-11T09:00:00Z', end: '2024-03-11T11:00:00Z' },
    verdict: { plegUnhealthy: false, primaryCause: null, confidence: 0 }, stalls: [], notReady: [], restarts: [],
    relist: { source: 'none', durationSeconds: null, intervalSeconds: null }, operations: [], pods: { running: null, containers: null },
    findings: [], ruledOut: [], coverage: { from: '2024-03-11T09:00:00Z', to: '2024-03-11T11:00:00Z', truncated: false, roles: ['kubelet-log'] }, gaps: [],
    ...o,
  };
}

function finding(cause: Finding['cause'], evidence: Finding['evidence'] = []): Finding {
  return { ruleId: `r-${cause}`, cause, severity: 'high', confidence: 0.8, title: cause, summary: 's', evidence, remediation: 'r', references: [] };
}

const stall = (from: string, to: string, seconds: number) => ({
  lastRelistAt: from, unhealthyFrom: from, endedAt: to, endedBy: 'recovered' as const, durationSeconds: seconds, maxLastSeenAgoSeconds: seconds, nodeNotReady: true, evidence: [],
});

const fakeSource = (path: string) => ({ artifact: { id: 0, path, aliases: [] } as never, index: {} as never, role: 'kubelet-log' as const, path, tag: 'K' });

function model(): TuiModel {
  const nodes = [
    report('worker-1'),
    report('worker-3', {
      verdict: { plegUnhealthy: true, primaryCause: 'runtime_timeout', confidence: 0.9 },
      stalls: [stall('2024-03-11T10:03:00Z', '2024-03-11T10:17:00Z', 840)],
      findings: [finding('runtime_timeout', [{ file: 'w3/kubelet.log', line: 42, ts: '2024-03-11T10:04:00Z', text: 'x' }, { file: 'w3/m.txt', line: 3, ts: null, text: 'metric' }]), finding('disk_io')],
    }),
    report('worker-5', {
      verdict: { plegUnhealthy: true, primaryCause: 'cni_hang', confidence: 0.7 },
      stalls: [stall('2024-03-11T09:30:00Z', '2024-03-11T09:35:00Z', 300), stall('2024-03-11T10:30:00Z', '2024-03-11T10:33:00Z', 180)],
      findings: [finding('cni_hang')],
    }),
  ];
  return {
    analysis: { nodes, inputs: [], warnings: [] } as never,
    nodes: nodes.map((r) => ({ report: r, sources: r.name === 'worker-1' ? [] : [fakeSource(`${r.name === 'worker-3' ? 'w3' : 'w5'}/kubelet.log`)], criErrors: new Map() })),
    zone: 'UTC',
    color: false,
  };
}

const env: Env = { model: model(), rows: 24, cols: 80 };
const K = (input: string, key: Keys = {}) => ({ type: 'key' as const, input, key });
const run = (s: NavState, ...as: Array<ReturnType<typeof K>>) => as.reduce((x, a) => reduce(env, x, a), s);
const names = (s: NavState) => overviewRows(env.model, s.overview).map((i) => env.model.nodes[i]!.report.name);

describe('overview', () => {
  it('puts stalled nodes first, longest stall first; s cycles the sort, S reverses it', () => {
    let s = initialState();
    expect(names(s)).toEqual(['worker-3', 'worker-5', 'worker-1']);
    s = run(s, K('s'));
    expect(s.overview.sort).toBe('name');
    expect(names(s)).toEqual(['worker-1', 'worker-3', 'worker-5']);
    s = run(s, K('S'));
    expect(names(s)).toEqual(['worker-5', 'worker-3', 'worker-1']);
    s = run(s, K(':'), K('s'), K('o'), K('r'), K('t'), K(' '), K('s'), K('t'), K('a'), K('l'), K('l'), K('', { return: true }));
    expect(s.overview.sort).toBe('stalls');
    expect(names(s)[0]).toBe('worker-5');
  });

  it('filters by name or cause as you type; esc drops it', () => {
    let s = run(initialState(), K('/'), K('c'), K('n'), K('i'));
    expect(s.prompt?.text).toBe('cni');
    expect(names(s)).toEqual(['worker-5']);
    s = run(s, K('', { return: true }));
    expect(s.prompt).toBeNull();
    expect(names(s)).toEqual(['worker-5']);
    s = run(s, K('', { escape: true }));
    expect(names(s)).toHaveLength(3);
    s = run(s, K('/'), K('w'), K('o'), K('r'), K('k'), K('e'), K('r'), K('-'), K('1'), K('', { escape: true }));
    expect(names(s)).toHaveLength(3);
  });

  it('moves with j/k and arrows, clamps at the ends, opens with enter', () => {
    let s = run(initialState(), K('j'), K('', { downArrow: true }), K('j'), K('j'));
    expect(s.overview.cursor).toBe(2);
    s = run(s, K('k'), K('', { upArrow: true }), K('k'));
    expect(s.overview.cursor).toBe(0);
    s = run(s, K('j'), K('', { return: true }));
    expect(current(s)).toEqual({ kind: 'node', node: 2 });
    expect(s.focus).toBe(Date.parse('2024-03-11T09:30:00Z'));
  });
});

describe('node, finding, log', () => {
  const atNode3 = () => run(initialState(), K('', { return: true }));

  it('drills down to a finding and an evidence line, and esc walks back', () => {
    let s = atNode3();
    expect(current(s)).toEqual({ kind: 'node', node: 1 });
    s = run(s, K('', { return: true }));
    expect(current(s)).toEqual({ kind: 'finding', node: 1, finding: 0 });
    s = run(s, K('', { return: true }));
    expect(current(s)).toEqual({ kind: 'log', node: 1 });
    expect(s.log.cmds.map((c) => c.cmd)).toEqual([{ t: 'open', at: { kind: 'line', src: 0, line: 42, ts: Date.parse('2024-03-11T10:04:00Z') } }]);
    expect(s.focus).toBe(Date.parse('2024-03-11T10:04:00Z'));
    s = reduce(env, s, { type: 'logStatus', busy: false, filter: null });
    s = run(s, K('', { escape: true }));
    expect(current(s).kind).toBe('finding');
    s = run(s, K('j'), K('', { return: true }));
    expect(current(s).kind).toBe('finding');
    expect(s.message).toMatch(/not a log of this node/);
    s = run(s, K('', { escape: true }), K('', { escape: true }));
    expect(current(s).kind).toBe('overview');
    s = run(s, K('', { escape: true }));
    expect(current(s).kind).toBe('overview');
  });

  it('switches sections with tab and digits; moves the time cursor; [ ] jump between events', () => {
    let s = run(atNode3(), K('', { tab: true }));
    expect(s.node.section).toBe('stalls');
    s = run(s, K('5'));
    expect(s.node.section).toBe('ops');
    s = run(s, K('', { tab: true, shift: true }));
    expect(s.node.section).toBe('gaps');
    const t0 = s.focus as number;
    s = run(s, K('', { rightArrow: true }));
    expect(s.focus).toBeGreaterThan(t0);
    s = run(s, K(']'));
    expect(s.focus).toBe(Date.parse('2024-03-11T10:17:00Z'));
    s = run(s, K('['), K('['));
    expect(s.message).toBe('no earlier event');
  });

  it('keeps the focused time between the timeline and the log (l and i)', () => {
    let s = run(atNode3(), K(']'), K('l'));
    expect(current(s).kind).toBe('log');
    expect(s.log.cmds.at(-1)?.cmd).toEqual({ t: 'open', at: { kind: 'time', ts: Date.parse('2024-03-11T10:17:00Z') } });
    s = reduce(env, s, { type: 'focus', ts: Date.parse('2024-03-11T10:20:00Z') });
    s = run(s, K('i'));
    expect(current(s).kind).toBe('node');
    expect(s.focus).toBe(Date.parse('2024-03-11T10:20:00Z'));
  });

  it('queues log commands; esc cancels a running search, then clears the filter, then goes back', () => {
    let s = run(atNode3(), K('l'));
    s = reduce(env, s, { type: 'logStatus', busy: false, filter: null });
    s = run(s, K('j'), K('G'), K('e'), K('N'));
    s = run(s, K('/'), K('e'), K('r'), K('r'), K('', { return: true }));
    s = run(s, K('&'), K('!'), K('x'), K('', { return: true }), K('m'), K('a'), K("'"), K('a'), K('F'));
    expect(s.log.cmds.map((c) => c.cmd)).toEqual([expect.objectContaining({ t: 'open' }), { t: 'move', by: 1 }, { t: 'end' }, { t: 'error', dir: 1 }, { t: 'find', dir: -1 },
      { t: 'search', text: 'err' }, { t: 'filter', text: 'x', out: true }, { t: 'mark', name: 'a' }, { t: 'toMark', name: 'a' }, { t: 'follow' }]);
    s = reduce(env, s, { type: 'logStatus', busy: false, filter: null, follow: true });
    s = run(s, K('', { escape: true }));
    expect(s.log.cmds.at(-1)?.cmd).toEqual({ t: 'follow' });
    s = reduce(env, s, { type: 'logAck', id: s.log.cmds.at(-1)!.id });
    expect(s.log.cmds).toEqual([]);
    s = reduce(env, s, { type: 'logStatus', busy: true, filter: 'err' });
    s = run(s, K('', { escape: true }));
    expect(s.log.cmds.at(-1)?.cmd).toEqual({ t: 'cancel' });
    s = reduce(env, s, { type: 'logStatus', busy: false, filter: 'err' });
    s = run(s, K('', { escape: true }));
    expect(s.log.cmds.at(-1)?.cmd).toEqual({ t: 'clearFilter' });
    s = reduce(env, s, { type: 'logStatus', busy: false, filter: null });
    s = run(s, K('', { escape: true }));
    expect(current(s).kind).toBe('node');
  });

  it('has no log to open for a node without logs', () => {
    let s = run(initialState(), K('j'), K('j'), K('', { return: true }), K('l'));
    expect(current(s).kind).toBe('node');
    expect(s.message).toMatch(/no log lines/);
  });
});

describe(':time and t wherever there is a time cursor', () => {
  const open = () => run(initialState(), K('', { return: true }));
  const type = (s: NavState, text: string) => run(s, ...[...text].map((c) => K(c)), K('', { return: true }));
  it('moves the Node view\'s timeline cursor; says so when the time is outside the logs or there is no cursor', () => {
    let s = open();
    expect(current(s)).toEqual({ kind: 'node', node: 1 });
    s = type(run(s, K(':')), 'time 10:30');
    expect(s.focus).toBe(Date.parse('2024-03-11T10:30:00Z'));
    s = type(run(s, K('t')), '-5m');
    expect(s.focus).toBe(Date.parse('2024-03-11T10:25:00Z'));
    s = type(run(s, K('t')), '25:00');
    expect(s.message).toBe('"25:00" is not a time of day (00:00 to 23:59:59)');
    expect(s.focus).toBe(Date.parse('2024-03-11T10:25:00Z'));
    s = type(run(s, K(':')), 'time 12:00');
    expect(s.message).toMatch(/^03-11 12:00:00 is outside this node's logs \(03-11 09:00:00 → 03-11 11:00:00\)$/);
    expect(type(run(initialState(), K(':')), 'time 10:00').message).toMatch(/^:time moves a time cursor/);
  });
});

describe('the Log view\'s line detail', () => {
  it('enter opens it, esc or enter closes it, and a log opened again starts with the list', () => {
    let s = run(initialState(), K('', { return: true }), K('l'));
    expect(current(s).kind).toBe('log');
    s = run(s, K('', { return: true }));
    expect(s.log.detail).toBe(true);
    expect(run(s, K('', { escape: true })).log.detail).toBe(false);
    expect(current(run(s, K('', { escape: true }))).kind).toBe('log');
    expect(run(s, K('', { return: true })).log.detail).toBe(false);
    s = run(s, K('i'), K('l'));
    expect(current(s).kind).toBe('log');
    expect(s.log.detail).toBe(false);
  });
});

describe('global keys', () => {
  it('? toggles help, q and ctrl-c quit, : runs commands and reports unknown ones', () => {
    let s = run(initialState(), K('?'));
    expect(s.help).toBe(true);
    s = run(s, K('j'));
    expect(s.help).toBe(true);
    s = run(s, K('', { escape: true }));
    expect(s.help).toBe(false);
    expect(run(initialState(), K('q')).quit).toBe(true);
    expect(run(initialState(), K('c', { ctrl: true })).quit).toBe(true);
    s = run(initialState(), K(':'), K('x'), K('y'), K('', { return: true }));
    expect(s.message).toMatch(/unknown command ":xy"/);
    s = run(s, K('j'));
    expect(s.message).toBeNull();
    s = run(initialState(), K(':'), K('n'), K('o'), K('d'), K('e'), K(' '), K('w'), K('o'), K('r'), K('k'), K('e'), K('r'), K('-'), K('5'), K('', { return: true }));
    expect(current(s)).toEqual({ kind: 'node', node: 2 });
    s = run(s, K(':'), K('q'), K('', { return: true }));
    expect(s.quit).toBe(true);
  });

  it('q typed into a prompt is text, not quit; backspace and ctrl-u edit', () => {
    const s = run(initialState(), K('/'), K('q'), K('x'), K('', { backspace: true }));
    expect(s.quit).toBe(false);
    expect(s.prompt?.text).toBe('q');
    expect(run(s, K('u', { ctrl: true })).prompt?.text).toBe('');
  });

  it('splits keys that arrive together', () => {
    expect(splitInput('j\r', {})).toEqual([{ input: 'j', key: {} }, { input: '', key: { return: true } }]);
    expect(splitInput('q', {})).toEqual([{ input: 'q', key: {} }]);
    expect(splitInput('a\x15', {})).toEqual([{ input: 'a', key: {} }, { input: 'u', key: { ctrl: true } }]);
  });
});

describe('prompt parsers', () => {
  const ref = Date.parse('2024-03-11T10:00:00Z');
  it('reads times of day, dates, ISO stamps and offsets', () => {
    expect(parseWhen('10:03', ref, 'UTC')).toEqual({ ok: true, ms: Date.parse('2024-03-11T10:03:00Z') });
    expect(parseWhen('10:03:30.5', ref, 'UTC')).toEqual({ ok: true, ms: Date.parse('2024-03-11T10:03:30.500Z') });
    expect(parseWhen('03-12 01:00', ref, 'UTC')).toEqual({ ok: true, ms: Date.parse('2024-03-12T01:00:00Z') });
    expect(parseWhen('2024-03-11T11:00:00+01:00', ref, 'UTC')).toEqual({ ok: true, ms: Date.parse('2024-03-11T10:00:00Z') });
    expect(parseWhen('+1h30m', ref, 'UTC')).toEqual({ ok: true, ms: ref + 90 * 60_000 });
    expect(parseWhen('-90s', ref, 'UTC')).toEqual({ ok: true, ms: ref - 90_000 });
    expect(parseWhen('10:03', ref, 'Europe/Berlin')).toEqual({ ok: true, ms: Date.parse('2024-03-11T09:03:00Z') });
    expect(parseWhen('end', ref, 'UTC', { start: 1, end: 2 })).toEqual({ ok: true, ms: 2 });
    expect(parseWhen('soon', ref, 'UTC').ok).toBe(false);
    // Out of range is an error like a typo (luxon would roll 25:00 into the next day).
    expect(parseWhen('25:00', ref, 'UTC')).toEqual({ ok: false, error: '"25:00" is not a time of day (00:00 to 23:59:59)' });
    expect(parseWhen('10:60', ref, 'UTC').ok).toBe(false);
    expect(parseWhen('10:00:61', ref, 'UTC').ok).toBe(false);
    expect(parseWhen('02-30 10:00', ref, 'UTC').ok).toBe(false);
    expect(parseWhen('13-01 10:00', ref, 'UTC').ok).toBe(false);
    expect(parseWhen('02-29 10:00', ref, 'UTC')).toEqual({ ok: true, ms: Date.parse('2024-02-29T10:00:00Z') });
  });

  it('compiles user regexes with RE2 (smart case); rejects what RE2 cannot run', () => {
    const c = compilePattern('deadline');
    expect(c.ok && c.pattern.test('context DEADLINE exceeded')).toBe(true);
    const cs = compilePattern('Deadline');
    expect(cs.ok && cs.pattern.test('context deadline exceeded')).toBe(false);
    expect(compilePattern('(a').ok).toBe(false);
    const back = compilePattern('(a)\\1');
    expect(back.ok).toBe(false);
    expect(compilePattern('(?=x)').ok).toBe(false);
    const evil = compilePattern('(a+)+$');
    expect(evil.ok).toBe(true);
    const t0 = Date.now();
    if (evil.ok) evil.pattern.test('a'.repeat(100_000) + 'b');
    expect(Date.now() - t0).toBeLessThan(2000);
    const r = compilePattern('o');
    expect(r.ok && r.pattern.ranges('foo boo')).toEqual([[1, 2], [2, 3], [5, 6], [6, 7]]);
  });

  it('finds the words every match must contain, and looks for them in whole blocks first', () => {
    expect(requiredLiterals('deadline')).toEqual(['deadline']);
    expect(requiredLiterals('ab*c')).toEqual(['a', 'c']);
    expect(requiredLiterals('foo.+bar$')).toEqual(['foo', 'bar']);
    expect(requiredLiterals('x\\.y\\d+z')).toEqual(['x.y', 'z']);
    expect(requiredLiterals('a|b')).toEqual([]);
    expect(requiredLiterals('Node(Not)?Ready')).toEqual([]);
    const ci = compilePattern('context deadline');
    expect(ci.ok && ci.pattern.block?.(Buffer.from('x\nCONTEXT DEADLINE exceeded\n'))).toBe(true);
    expect(ci.ok && ci.pattern.block?.(Buffer.from('x\nnothing here\n'))).toBe(false);
    const cs = compilePattern('PodSandboxStatus.*timeout');
    expect(cs.ok && cs.pattern.block?.(Buffer.from('PodSandboxStatus timeout'))).toBe(true);
    expect(cs.ok && cs.pattern.block?.(Buffer.from('podsandboxstatus timeout'))).toBe(false);
    expect(cs.ok && cs.pattern.test('PodSandboxStatus of sandbox … timeout')).toBe(true);
    expect(cs.ok && cs.pattern.test('timeout then PodSandboxStatus')).toBe(false);
    // A literal spanning the 48 KiB pieces of the case-folded block search is still found.
    const big = Buffer.alloc(48 * 1024 + 100, 0x61);
    big.write('Context Deadline', 48 * 1024 - 5, 'latin1');
    expect(ci.ok && ci.pattern.block?.(big)).toBe(true);
    // The case-folded byte search agrees with a case-insensitive regex, on random text.
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 300; n++) {
      const text = Array.from({ length: 1 + Math.floor(rnd() * 60) }, () => 'aAbB-. \n'[Math.floor(rnd() * 8)]).join('');
      const lit = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => 'abAB-'[Math.floor(rnd() * 5)]).join('');
      const re = new RegExp(lit.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&'), 'i');
      expect(foldedSearch(lit)(Buffer.from(text, 'latin1')), `${lit} in ${JSON.stringify(text)}`).toBe(re.test(text));
    }
    const one = compilePattern('x');
    expect(one.ok && one.pattern.test('abc')).toBe(false);
    expect(one.ok && one.pattern.test('axc')).toBe(true);
  });

  it('counts a CRI failure once when both the client and its caller logged it', () => {
    const m = criTimes([
      { op: 'list_podsandbox', ts: 3, layer: 'client' }, { op: 'list_podsandbox', ts: 3, layer: 'caller' },
      { op: 'podsandbox_status', ts: 2, layer: 'caller' }, { op: 'list_podsandbox', ts: 1, layer: 'client' },
    ]);
    expect([...m.entries()]).toEqual([['list_podsandbox', [1, 3]], ['podsandbox_status', [2]]]);
  });
});

describe('loading screen', () => {
  it('shows each file with bytes and lines, files still being read first, within the terminal', () => {
    const store = new ProgressStore();
    store.read(0, 'worker-3/kubelet.log', 1024 ** 3, 256 * 1024 ** 2, 1_000_000);
    store.read(1, 'worker-3/containerd.log', 4096, 0, 0);
    store.read(1, 'worker-3/containerd.log', 4096, 4096, 42);
    store.finished('worker-3/containerd.log', 0, 3);
    const ls = loadingLines(store.snapshot(), 10, 100);
    expect(ls).toHaveLength(10);
    expect(ls[0]).toMatch(/^ plegscope — reading the input · 1 of 3 files done · 256\.0 MiB · 1000k lines · \d+\.\d s$/);
    expect(ls[2]).toMatch(/^ {2}▸ worker-3\/kubelet\.log +256\.0 MiB of 1\.00 GiB +25% +1000k lines$/);
    expect(ls[3]).toMatch(/^ {2}✓ worker-3\/containerd\.log +4 KiB +42 lines$/);
    expect(ls[9]).toBe(' q or ctrl-c: stop');
    for (const l of loadingLines(store.snapshot(), 6, 40)) expect(l.length).toBeLessThanOrEqual(40);
    const evil = new ProgressStore();
    evil.read(0, 'a\x1b[2Jb.log', null, 1, 1);
    expect(loadingLines(evil.snapshot(), 6, 80).join('\n')).not.toContain('\x1b');
  });
});
