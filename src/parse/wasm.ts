// A minimal WebAssembly encoder: enough of the binary format (MVP plus the SIMD loads and compares) to write the scan
// kernel (kernel.ts) as code here rather than ship a binary. Only what the kernel uses is here; every function takes
// and returns i32, and the module exports its one memory.
// Format: https://webassembly.github.io/spec/core/binary/ (sections 5.4 instructions, 5.5 modules).

/** One instruction (or several), as bytes; nested arrays are flattened when a body is encoded. */
export type Code = number | readonly Code[];

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

const EMPTY = 0x40;
const I32 = 0x7f;

/** i32 instructions; memory offsets are immediates (constant addresses added to the operand). */
export const wat = {
  get: (i: number): Code => [0x20, ...uleb(i)],
  set: (i: number): Code => [0x21, ...uleb(i)],
  tee: (i: number): Code => [0x22, ...uleb(i)],
  i32: (v: number): Code => [0x41, ...sleb(v | 0)],
  load8: (offset = 0): Code => [0x2d, 0, ...uleb(offset)],
  load: (offset = 0): Code => [0x28, 2, ...uleb(offset)],
  store: (offset = 0): Code => [0x36, 2, ...uleb(offset)],
  eqz: 0x45, eq: 0x46, ne: 0x47, ltU: 0x49, gtU: 0x4b, leU: 0x4d, geU: 0x4f,
  clz: 0x67, ctz: 0x68, popcnt: 0x69,
  add: 0x6a, sub: 0x6b, mul: 0x6c, and: 0x71, or: 0x72, xor: 0x73, shl: 0x74, shrU: 0x76,
  select: 0x1b,
  /** `block … end`: `br` to it jumps past its end. */
  block: (...body: Code[]): Code => [0x02, EMPTY, body, 0x0b],
  /** `loop … end`: `br` to it jumps back to its start. */
  loop: (...body: Code[]): Code => [0x03, EMPTY, body, 0x0b],
  /** `if … end` on the i32 on the stack. */
  if: (...body: Code[]): Code => [0x04, EMPTY, body, 0x0b],
  br: (depth: number): Code => [0x0c, ...uleb(depth)],
  /** Calls the module's function number `index` (their order in encodeModule). */
  call: (index: number): Code => [0x10, ...uleb(index)],
  brIf: (depth: number): Code => [0x0d, ...uleb(depth)],
  ret: 0x0f,
  /** SIMD: the 16 bytes at the address (+ offset). */
  v128Load: (offset = 0): Code => [0xfd, ...uleb(0), 0, ...uleb(offset)],
  /** SIMD: a vector of 16 copies of the low byte of the i32. */
  i8x16Splat: [0xfd, ...uleb(15)],
  /** SIMD: 0xff in each lane where the two vectors' bytes are equal. */
  i8x16Eq: [0xfd, ...uleb(35)],
  /** SIMD: bit k set when lane k's top bit is. */
  i8x16Bitmask: [0xfd, ...uleb(100)],
} as const;

export interface Func {
  name: string;
  /** Parameters and results are i32; `locals` more i32 locals follow the parameters. */
  params: number;
  result: boolean;
  locals: number;
  body: Code[];
}

function flat(code: Code, out: number[]): number[] {
  if (typeof code === 'number') out.push(code);
  else for (const c of code) flat(c, out);
  return out;
}

/** A module with one exported memory of `pages` × 64 KiB (named `memory`) and the functions, exported by name. */
export function encodeModule(pages: number, funcs: Func[]): Uint8Array {
  const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
  const name = (s: string): number[] => [...uleb(s.length), ...Buffer.from(s, 'latin1')];
  const section = (id: number, bytes: number[]): number[] => [id, ...uleb(bytes.length), ...bytes];
  const types = funcs.map((f) => [0x60, ...vec(Array.from({ length: f.params }, () => [I32])), ...vec(f.result ? [[I32]] : [])]);
  const codes = funcs.map((f) => {
    const body = [...vec(f.locals > 0 ? [[...uleb(f.locals), I32]] : []), ...flat(f.body, []), 0x0b];
    return [...uleb(body.length), ...body];
  });
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec(types)),
    ...section(3, vec(funcs.map((_, i) => uleb(i)))),
    ...section(5, vec([[0x00, ...uleb(pages)]])),
    ...section(7, vec([[...name('memory'), 0x02, 0x00], ...funcs.map((f, i) => [...name(f.name), 0x00, ...uleb(i)])])),
    ...section(10, vec(codes)),
  ]);
}
