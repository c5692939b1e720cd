// The scan kernel: the two loops that touch every byte of a log, in WebAssembly. V8 runs the same loops written in
// JavaScript about half as fast (a bounds check on every byte read and table look-up), and fast only once they are
// optimized, after the first 10–20 MB; WebAssembly is compiled before the first byte.
// - walk: the Wu–Manber walk of multisearch.ts (four cursors over four quarters, branch-free steps) and the first test
//   of each candidate (its window's start gram). The candidates left, a few hundred per MB, are checked byte by byte
//   in JavaScript.
// - advance: counts lines 16 bytes at a time (SIMD) up to the next line that matters to the scanner (lines.ts),
//   noting every CHECKPOINT-th line start on the way.
// The input is copied into the kernel's memory first (a memcpy: 3 ms per 100 MiB).
// The kernel's code is written in kernel-code.ts; what ships is its encoding, KERNEL_WASM below (encoding it at every
// start cost 4 ms). A test encodes the code again and compares.

/** Bytes of a needle window's q-gram; `gram` below is its hash. */
export const Q = 3;
export const SHIFT_BITS = 16;
/** A shift-table entry's flag: the q-gram ends some needle's window (a candidate; the walk moves on by 1). */
export const CAND = 0x80;
/** Window ends walked at a time: the candidates of a slice fit the candidate area. */
export const SLICE = 256 * 1024;
/** Lines between two checkpoints (lines.ts). */
export const CHECKPOINT = 1024;
/** Below this many window ends one cursor walks alone. */
export const LANE_MIN = 4096;

// Memory layout (bytes).
export const PAGE = 65536;
export const SHIFT = 0;
export const BITS = 1 << SHIFT_BITS;
/** i32 cells: steps and candidates of the last walk; line number, line start and checkpoints noted by an advance. */
export const STATE = BITS + 8192;
export const STEPS = STATE;
export const CANDIDATES = STATE + 4;
export const LINE_NO = STATE + 8;
export const LINE_START = STATE + 12;
export const CP_COUNT = STATE + 16;
/** [lineNo, line start] pairs noted by an advance: at most one per CHECKPOINT lines of one byte or more. */
export const CP = STATE + 64;
export const CANDS = 2 * PAGE;
/** The two input areas: MAIN for the chunk a scanner works through, SIDE for searches made meanwhile (a line's). */
export const WINDOW = 1 << 20;
export const SIDE_WINDOW = 256 * 1024;
export const MAIN = CANDS + 4 * SLICE + PAGE;
export const SIDE = MAIN + WINDOW + PAGE;
export const PAGES = (SIDE + SIDE_WINDOW + PAGE) / PAGE;

/** The q-gram hash of t[i - 2], t[i - 1], t[i]: collisions only shorten shifts or add candidates. */
export function gram(t: Uint8Array, i: number): number {
  return ((t[i - 2] as number) << 10 ^ (t[i - 1] as number) << 5 ^ (t[i] as number)) & ((1 << SHIFT_BITS) - 1);
}

/** The start-gram test's key: a candidate's end gram hash with its window's start gram hash. */
export function pairKey(end: number, start: number): number {
  return (Math.imul(end, 0x9e3779b1) ^ start) & 0xffff;
}

/** The kernel's module, as kernel-code.ts encodes it (base64). */
export const KERNEL_WASM =
  'AGFzbQEAAAABIwRgA39/fwF/YAV/f39/fwF/YAR/f39/AX9gBn9/f39/fwF/AwUEAAECAwUDAQApBysFBm1lbW9yeQIABGxhbmUAAAZmaWx0ZXIAAQR3YWxrAAIHYWR2YW5jZQADCrkLBHIBAn8CQANAIAAgAU8NASAALQAAQQp0IAAtAAFBBXRzIAAtAAJzQf//A3EtAAAhAyACQQJ0IABBAmo2AoCACCACIANBB3ZqIQIgACADQf8AcWohACAEQQFqIQQMAAsLQQBBACgCgMAEIARqNgKAwAQgAgvEAQEEfyACIQgCQANAIAIgA08NASACQQJ0KAKAgAghBSAFQQJrIQYgBi0AAEEKdCAGLQABQQV0cyAGLQACc0H//wNxQbHz3fF5bCAFIAFrQQFqIQYgBi0AAEEKdCAGLQABQQV0cyAGLQACc0H//wNxc0H//wNxIQcgB0EDdi0AgIAEQQEgB0EHcXRxBEAgBEECdCAFIABrNgKAgAggBEEBaiEECyACQQFqIQIMAAsLQQBBACgChMAEIAMgCGtqNgKEwAQgBAu+BAEOf0EAQQA2AoDABEEAQQA2AoTABCABIABqQQJrIQEgAiAAakECayECIAIgAWtBgCBJBEAgACADQQAgASACQQAQAEEAEAEPCyACIAFrQQJ2IQQgASIFIARqIgkhBiAJIARqIgohByAKIARqIgshCCAEIQ0gBEEBdCEOIARBA2whDwJAA0AgBSAJSSAGIApJcSAHIAtJcSAIIAJJcUUNASAFLQAAQQp0IAUtAAFBBXRzIAUtAAJzQf//A3EtAAAhECAMQQJ0IAVBAmo2AoCACCAMIBBBB3ZqIQwgBSAQQf8AcWohBSAGLQAAQQp0IAYtAAFBBXRzIAYtAAJzQf//A3EtAAAhECANQQJ0IAZBAmo2AoCACCANIBBBB3ZqIQ0gBiAQQf8AcWohBiAHLQAAQQp0IActAAFBBXRzIActAAJzQf//A3EtAAAhECAOQQJ0IAdBAmo2AoCACCAOIBBBB3ZqIQ4gByAQQf8AcWohByAILQAAQQp0IAgtAAFBBXRzIAgtAAJzQf//A3EtAAAhECAPQQJ0IAhBAmo2AoCACCAPIBBBB3ZqIQ8gCCAQQf8AcWohCCARQQFqIREMAAsLQQBBACgCgMAEIBFBAnRqNgKAwAQgBSAJIAwQACEMIAYgCiANEAAhDSAHIAsgDhAAIQ4gCCACIA8QACEPIAAgA0EAIAxBABABIRAgACADIARBAWwgDSAQEAEhECAAIAMgBEECbCAOIBAQASEQIAAgAyAEQQNsIA8gEBABIRAgEAu9BAEHfyABIABqIgYhCCACIABqIQcgAyAAaiEDIAYgB0kEQCAGLQAAQS1GBEAgBiEDCwsCQANAIAZBEGogB0sNASAG/QAAAEEK/Q/9I/1kIgkEQCAG/QAAAUEt/Q/9I/1kIAlxRSAGQQ9qIANJcSAFQf8HcSAJaWpBgAhJcSAGIAloaiAIayAETXEiDARAIAUgCWlqIQUgBkEgIAlna2ohCAsgDEUEQAJAA0AgCUUNASAGIAloaiEKIAVBAWoiBUH/B3FFBEAgC0EDdCAFNgLAwAQgC0EDdCAIIABrNgLEwAQgC0EBaiELCyAKIANPIAogCGsgBEtyBEBBACAFNgKIwARBACAIIABrNgKMwARBACALNgKQwAQgCiAAaw8LIApBAWogB0kgCkEBaiADSXEEQCAKLQABQS1GBEAgCkEBaiEDCwsgCkEBaiEIIAkgCUEBa3EhCQwACwsLCyAGQRBqIQYMAAsLAkADQCAGIAdPDQEgBi0AAEEKRgRAIAYhCiAFQQFqIgVB/wdxRQRAIAtBA3QgBTYCwMAEIAtBA3QgCCAAazYCxMAEIAtBAWohCwsgCiADTyAKIAhrIARLcgRAQQAgBTYCiMAEQQAgCCAAazYCjMAEQQAgCzYCkMAEIAogAGsPCyAKQQFqIAdJIApBAWogA0lxBEAgCi0AAUEtRgRAIApBAWohAwsLIApBAWohCAsgBkEBaiEGDAALC0EAIAU2AojABEEAIAggAGs2AozABEEAIAs2ApDABEF/Cw==';

/** The part of the WebAssembly API used here (the project has no DOM lib, and @types/node 20 declares none). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
};

let compiled: object | null = null;

/** One kernel instance: its memory, with a needle set's tables in it. */
export class Kernel {
  private readonly exports: {
    walk(base: number, a: number, b: number, m: number): number;
    advance(base: number, pos: number, to: number, ev: number, maxLine: number, lineNo: number): number;
  };
  private readonly bytes: Uint8Array;
  private readonly cells: Int32Array;
  /** The areas, as Buffers (for copies in). */
  readonly main: Buffer;
  readonly side: Buffer;

  /** `js`: the same loops in JavaScript (what runs where WebAssembly is not there: node --jitless). */
  constructor(shift: Uint8Array, bits: Uint8Array, engine: 'wasm' | 'js' = typeof WebAssembly === 'undefined' ? 'js' : 'wasm') {
    let buffer: ArrayBuffer;
    if (engine === 'wasm') {
      compiled ??= new WebAssembly.Module(Buffer.from(KERNEL_WASM, 'base64'));
      const inst = new WebAssembly.Instance(compiled, {});
      buffer = (inst.exports['memory'] as { buffer: ArrayBuffer }).buffer;
      this.exports = inst.exports as unknown as Kernel['exports'];
    } else {
      buffer = new ArrayBuffer(PAGES * PAGE);
      this.exports = jsKernel(new Uint8Array(buffer), new Int32Array(buffer));
    }
    const memory = { buffer };
    this.bytes = new Uint8Array(memory.buffer);
    this.cells = new Int32Array(memory.buffer);
    this.bytes.set(shift, SHIFT);
    this.bytes.set(bits, BITS);
    this.main = Buffer.from(memory.buffer, MAIN, WINDOW + 16);
    this.side = Buffer.from(memory.buffer, SIDE, SIDE_WINDOW + 16);
  }

  /** Walks window ends [a, b) of an area (`side`: the SIDE one): the filtered candidates' count; candidate(k) each. */
  walk(side: boolean, a: number, b: number, m: number): number {
    return this.exports.walk(side ? SIDE : MAIN, a, b, m);
  }

  /** The k-th candidate window end of the last walk (a position in the area). */
  candidate(k: number): number {
    return this.cells[(CANDS >> 2) + k] as number;
  }

  /** Steps and candidates (before the start-gram test) of the last walk. */
  get steps(): number {
    return this.cells[STEPS >> 2] as number;
  }

  get candidates(): number {
    return this.cells[CANDIDATES >> 2] as number;
  }

  /** advance over the MAIN area (positions in it); then lineNo, lineStart and the checkpoints (checkpoint(k)). */
  advance(pos: number, to: number, ev: number, maxLine: number, lineNo: number): number {
    return this.exports.advance(MAIN, pos, to, ev, maxLine, lineNo);
  }

  get lineNo(): number {
    return this.cells[LINE_NO >> 2] as number;
  }

  get lineStart(): number {
    return this.cells[LINE_START >> 2] as number;
  }

  get checkpointCount(): number {
    return this.cells[CP_COUNT >> 2] as number;
  }

  /** The k-th checkpoint of the last advance: [lineNo, line start in the area]. */
  checkpoint(k: number): [number, number] {
    return [this.cells[(CP >> 2) + 2 * k] as number, this.cells[(CP >> 2) + 2 * k + 1] as number];
  }
}

/**
 * The kernel's walk and advance in JavaScript, over the same memory layout, for where WebAssembly is missing (V8's
 * --jitless turns it off). One cursor instead of four and one line at a time instead of 16 bytes: the same matches
 * (Wu–Manber skips only what cannot end a needle, from wherever a cursor starts) and the same line numbers and stops;
 * only the walk's step counts differ. Arithmetic as the WebAssembly's: i32 arguments, unsigned addresses.
 */
function jsKernel(mem: Uint8Array, cells: Int32Array): Kernel['exports'] {
  const mask = (1 << SHIFT_BITS) - 1;
  const gramAt = (p: number): number => (((mem[p] as number) << 10) ^ ((mem[p + 1] as number) << 5) ^ (mem[p + 2] as number)) & mask;
  return {
    walk(base: number, a: number, b: number, m: number): number {
      let n = 0;
      let steps = 0;
      // The cursor holds window end − 2 (where gramAt reads from).
      for (let p = (a + base - 2) >>> 0, end = (b + base - 2) >>> 0; p < end; steps++) {
        const v = mem[SHIFT + gramAt(p)] as number;
        cells[(CANDS >> 2) + n] = p + 2;
        n += v >>> 7;
        p += v & 127;
      }
      cells[STEPS >> 2] = steps;
      cells[CANDIDATES >> 2] = n;
      let out = 0;
      for (let c = 0; c < n; c++) {
        const e = cells[(CANDS >> 2) + c] as number;
        const key = (Math.imul(gramAt(e - 2), 0x9e3779b1) ^ gramAt(e - m + 1)) & 0xffff;
        if (((mem[BITS + (key >>> 3)] as number) & (1 << (key & 7))) !== 0) cells[(CANDS >> 2) + out++] = e - base;
      }
      return out;
    },
    advance(base: number, pos: number, to: number, evIn: number, maxLineIn: number, lineNoIn: number): number {
      let p = (pos + base) >>> 0;
      let start = p;
      const end = (to + base) >>> 0;
      let ev = ((evIn | 0) + base) >>> 0;
      const maxLine = maxLineIn >>> 0;
      let lineNo = lineNoIn | 0;
      let cp = 0;
      const save = (): void => {
        cells[LINE_NO >> 2] = lineNo;
        cells[LINE_START >> 2] = start - base;
        cells[CP_COUNT >> 2] = cp;
      };
      if (p < end && mem[p] === 45) ev = p;
      for (; p < end; p++) {
        if (mem[p] !== 10) continue;
        lineNo = (lineNo + 1) | 0;
        if ((lineNo & (CHECKPOINT - 1)) === 0) {
          cells[(CP >> 2) + 2 * cp] = lineNo;
          cells[(CP >> 2) + 2 * cp + 1] = start - base;
          cp++;
        }
        if (p >= ev || ((p - start) >>> 0) > maxLine) {
          save();
          return p - base;
        }
        // A line that starts with '-' matters: it becomes the event.
        if (p + 1 < end && p + 1 < ev && mem[p + 1] === 45) ev = p + 1;
        start = p + 1;
      }
      save();
      return -1;
    },
  };
}
