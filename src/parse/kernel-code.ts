// The scan kernel's code (see kernel.ts for what it does and why), written with the encoder of wasm.ts. kernel.ts ships
// its encoding (KERNEL_WASM); after a change here, put the new one there: the kernel test prints it.
import { encodeModule, wat, type Code, type Func } from './wasm.js';
import {
  BITS, CANDIDATES, CANDS, CHECKPOINT, CP, CP_COUNT, LANE_MIN, LINE_NO, LINE_START, PAGES, SHIFT, SHIFT_BITS, STEPS,
} from './kernel.js';

const { get, set, tee, i32, load8, load, store, add, sub, and, or, xor, shl, shrU, eq, eqz, ltU, geU, gtU, leU } = wat;
const { clz, ctz, popcnt, mul, block, loop, br, brIf, call, ret, v128Load, i8x16Splat, i8x16Eq, i8x16Bitmask } = wat;
const when = wat.if;
const MASK = (1 << SHIFT_BITS) - 1;

/** `gram` of the three bytes from the address in local `p` on (so a window end e is hashed from p = e - 2). */
const gramFrom = (p: number): Code => [
  get(p), load8(0), i32(10), shl, get(p), load8(1), i32(5), shl, xor, get(p), load8(2), xor, i32(MASK), and,
];
/** memory[addr] += value (i32 cells). */
const bump = (addr: number, value: Code): Code => [i32(0), i32(0), load(addr), value, add, store(addr)];

// Function indexes: their order in the module.
const F_LANE = 0;
const F_FILTER = 1;

/**
 * lane(p, end, n) → n: one cursor, p = window end − 2, walked while p < end; each candidate's window end noted from
 * CANDS[n] on. Branch-free: a table entry holds the shift (≥ 1) and, in bit 7, whether the position is a candidate; the
 * position is always written and the count moves on when it is one.
 */
const lane: Func = {
  name: 'lane', params: 3, result: true, locals: 2,
  body: (() => {
    const [p, end, n, v, steps] = [0, 1, 2, 3, 4];
    return [
      block(loop(
        get(p), get(end), geU, brIf(1),
        gramFrom(p), load8(SHIFT), set(v),
        get(n), i32(2), shl, get(p), i32(2), add, store(CANDS),
        get(n), get(v), i32(7), shrU, add, set(n),
        get(p), get(v), i32(127), and, add, set(p),
        get(steps), i32(1), add, set(steps),
        br(0),
      )),
      bump(STEPS, get(steps)),
      get(n),
    ];
  })(),
};

/**
 * filter(base, m, c0, c1, out) → out: the candidates CANDS[c0, c1) (window-end addresses) whose window's start gram
 * pairs with its end gram in some needle (the BITS table), written from CANDS[out] on as positions from `base`.
 */
const filter: Func = {
  name: 'filter', params: 5, result: true, locals: 4,
  body: (() => {
    const [base, m, c, c1, out, e, s, key, c0] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
    return [
      get(c), set(c0),
      block(loop(
        get(c), get(c1), geU, brIf(1),
        get(c), i32(2), shl, load(CANDS), set(e),
        // The end gram starts at e − 2, the start gram at e − m + 1 (the window's first byte).
        get(e), i32(2), sub, set(s), gramFrom(s), i32(0x9e3779b1 | 0), mul,
        get(e), get(m), sub, i32(1), add, set(s), gramFrom(s), xor, i32(0xffff), and, set(key),
        get(key), i32(3), shrU, load8(BITS), i32(1), get(key), i32(7), and, shl, and,
        when(get(out), i32(2), shl, get(e), get(base), sub, store(CANDS), get(out), i32(1), add, set(out)),
        get(c), i32(1), add, set(c),
        br(0),
      )),
      bump(CANDIDATES, [get(c1), get(c0), sub]),
      get(out),
    ];
  })(),
};

/**
 * walk(base, a, b, m) → count: window ends [a, b) of the input at `base` (a ≥ m − 1, b − a ≤ SLICE), walked by four
 * cursors at once over the quarters, each then finishing its own alone; the candidates `filter` keeps, lane by lane (so
 * in order), left in CANDS[0, count) as positions from `base`.
 */
const walk: Func = {
  name: 'walk', params: 4, result: true, locals: 14,
  body: (() => {
    const [base, a, b, m, q, p0, p1, p2, p3, e0, e1, e2, n0, n1, n2, n3, v, rounds] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17];
    const cursors = [[p0, n0], [p1, n1], [p2, n2], [p3, n3]] as const;
    const ends = [e0, e1, e2, b];
    const step = ([p, n]: readonly [number, number]): Code => [
      gramFrom(p), load8(SHIFT), set(v),
      get(n), i32(2), shl, get(p), i32(2), add, store(CANDS),
      get(n), get(v), i32(7), shrU, add, set(n),
      get(p), get(v), i32(127), and, add, set(p),
    ];
    return [
      i32(0), i32(0), store(STEPS), i32(0), i32(0), store(CANDIDATES),
      // Cursors hold window end − 2 (the address gramFrom reads from).
      get(a), get(base), add, i32(2), sub, set(a),
      get(b), get(base), add, i32(2), sub, set(b),
      get(b), get(a), sub, i32(LANE_MIN), ltU,
      when(get(base), get(m), i32(0), get(a), get(b), i32(0), call(F_LANE), i32(0), call(F_FILTER), ret),
      get(b), get(a), sub, i32(2), shrU, set(q),
      get(a), tee(p0), get(q), add, tee(e0), set(p1), get(e0), get(q), add, tee(e1), set(p2), get(e1), get(q), add, tee(e2), set(p3),
      get(q), set(n1), get(q), i32(1), shl, set(n2), get(q), i32(3), mul, set(n3),
      block(loop(
        get(p0), get(e0), ltU, get(p1), get(e1), ltU, and, get(p2), get(e2), ltU, and, get(p3), get(b), ltU, and, eqz, brIf(1),
        cursors.map(step),
        get(rounds), i32(1), add, set(rounds),
        br(0),
      )),
      bump(STEPS, [get(rounds), i32(2), shl]),
      cursors.map(([p, n], k) => [get(p), get(ends[k]!), get(n), call(F_LANE), set(n)]),
      get(base), get(m), i32(0), get(n0), i32(0), call(F_FILTER), set(v),
      [1, 2, 3].map((k) => [get(base), get(m), get(q), i32(k), mul, get(cursors[k]![1]), get(v), call(F_FILTER), set(v)]),
      get(v),
    ];
  })(),
};

/**
 * advance(base, pos, to, ev, maxLine, lineNo) → the newline that ends the next line that matters, or −1: counts the
 * lines of the input at `base` from the line that starts at `pos` up to `to` (just past a newline), and stops at the
 * first line that holds position `ev`, starts with '-' (journal markers), or is longer than `maxLine`. Every
 * CHECKPOINT-th line start is noted in CP. LINE_NO is the number of the line it stopped at (or of the last one counted),
 * LINE_START where that line starts (or `to`).
 */
const advance: Func = {
  name: 'advance', params: 6, result: true, locals: 7,
  body: (() => {
    const [base, pos, to, ev, maxLine, lineNo, p, end, start, mask, nl, cp, fast] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
    const save: Code = [
      i32(0), get(lineNo), store(LINE_NO), i32(0), get(start), get(base), sub, store(LINE_START), i32(0), get(cp), store(CP_COUNT),
    ];
    /** The line [start, nl) ends: count it, note a checkpoint, stop if it matters, else move on. */
    const newline: Code = [
      get(lineNo), i32(1), add, tee(lineNo), i32(CHECKPOINT - 1), and, eqz,
      when(
        get(cp), i32(3), shl, get(lineNo), store(CP),
        get(cp), i32(3), shl, get(start), get(base), sub, store(CP + 4),
        get(cp), i32(1), add, set(cp),
      ),
      get(nl), get(ev), geU, get(nl), get(start), sub, get(maxLine), gtU, or,
      when(save, get(nl), get(base), sub, ret),
      // A line that starts with '-' matters: it becomes the event.
      get(nl), i32(1), add, get(end), ltU, get(nl), i32(1), add, get(ev), ltU, and,
      when(get(nl), load8(1), i32(45), eq, when(get(nl), i32(1), add, set(ev))),
      get(nl), i32(1), add, set(start),
    ];
    return [
      get(pos), get(base), add, tee(p), set(start),
      get(to), get(base), add, set(end),
      get(ev), get(base), add, set(ev),
      get(p), get(end), ltU, when(get(p), load8(0), i32(45), eq, when(get(p), set(ev))),
      block(loop(
        get(p), i32(16), add, get(end), gtU, brIf(1),
        get(p), v128Load(0), i32(10), i8x16Splat, i8x16Eq, i8x16Bitmask, tee(mask),
        when(
          // Fast: no newline in this block is followed by '-', none reaches ev, no checkpoint falls in it, and the line
          // its first newline ends is not over-long: count them all at once.
          get(p), v128Load(1), i32(45), i8x16Splat, i8x16Eq, i8x16Bitmask, get(mask), and, eqz,
          get(p), i32(15), add, get(ev), ltU, and,
          get(lineNo), i32(CHECKPOINT - 1), and, get(mask), popcnt, add, i32(CHECKPOINT), ltU, and,
          get(p), get(mask), ctz, add, get(start), sub, get(maxLine), leU, and, tee(fast),
          when(
            get(lineNo), get(mask), popcnt, add, set(lineNo),
            get(p), i32(32), get(mask), clz, sub, add, set(start),
          ),
          get(fast), eqz,
          when(block(loop(
            get(mask), eqz, brIf(1),
            get(p), get(mask), ctz, add, set(nl),
            newline,
            get(mask), get(mask), i32(1), sub, and, set(mask),
            br(0),
          ))),
        ),
        get(p), i32(16), add, set(p),
        br(0),
      )),
      // The last bytes, one at a time.
      block(loop(
        get(p), get(end), geU, brIf(1),
        get(p), load8(0), i32(10), eq,
        when(get(p), set(nl), newline),
        get(p), i32(1), add, set(p),
        br(0),
      )),
      save,
      i32(-1),
    ];
  })(),
};

/** The kernel module's bytes. */
export function kernelModule(): Uint8Array {
  return encodeModule(PAGES, [lane, filter, walk, advance]);
}
