// A dense log is the same few lines over and over, apart from their times and the durations they print:
//
//   Mar  1 00:10:00 node-1 kubelet[2231]: E0301 00:10:00.002000    2231 kubelet.go:2040] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3m0.002s ago; threshold is 3m0s"
//   Mar  1 00:10:00 node-1 kubelet[2231]: E0301 00:10:00.004000    2231 kubelet.go:2040] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3m0.004s ago; threshold is 3m0s"
//
// A line read in full becomes a template. A later line of the same length that differs from it only in the digits of
// its time (the prefix's, the klog header's) and of the Go durations it prints (`3m0.004s`, `500ms`: a token of
// its own, under 1000 hours; the 2562047h… sentinel, which means "never", must match as written) wakes the same
// matchers, which give the same kinds of event for the same host: once each of those runs has its kept lines for the
// time bucket (thin.ts), the line is folded with no more than its time read. Lines whose kinds of event hold a digit
// (a kind that names a reason or a server) keep their durations as written too: only the header's time may differ.
// Every other character — IDs, codes, names, the klog caller and thread — must be the same. Lines are compared by
// their bytes, before they are decoded (ASCII lines only become templates: a place is both a character and a byte).
import type { Envelope, Origin, PayloadKind } from '../parse/record.js';
import type { SignalType } from './events.js';

/** What a template's line gave the thinner: one run per event. */
export interface Offer {
  key: string;
  type: SignalType;
}

/** Templates held at once: a dense run has a few (its kinds of line, and the lengths their durations print in), or one
 *  per container when its errors name them (a node runs up to 110 pods). */
const MAX_TEMPLATES = 512;

/** Needles with a digit checked against a template at most (a rule pack may bring thousands): past it, lines that fit
 *  are searched for needles. */
const MAX_DIGIT_NEEDLES = 256;

/** Go durations standing alone: `3m0.5s`, `500ms`, `1h2m3.000456789s`. */
const DURATION = /(?<![\w.])(?:\d+(?:\.\d+)?(?:h|ms|m|s|µs|us|ns))+(?![\w.])/g;
/** A Go duration of 1000 hours or more (the "never" sentinel is 2562047h…). */
const HOURS_1000 = /^\d{4,}h/;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Whether a full klog header (`E0301 00:10:00.002000 `) starts at `i`. */
function klogHeaderAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c !== 73 && c !== 87 && c !== 69 && c !== 70) return false;
  for (const k of [1, 2, 3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 17, 18, 19, 20]) if (!isDigit(s.charCodeAt(i + k))) return false;
  return s.charCodeAt(i + 5) === 32 && s.charCodeAt(i + 8) === 58 && s.charCodeAt(i + 11) === 58 && s.charCodeAt(i + 14) === 46 && s.charCodeAt(i + 21) === 32;
}

/** Whether `b[from, to)` is ASCII: a template's places are then both its characters' and its bytes'. */
export function isAscii(b: Uint8Array, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if ((b[k] as number) >= 128) return false;
  return true;
}

export class Template {
  /** The line's bytes (ASCII: one per character). */
  readonly bytes: Uint8Array;
  /** Per byte of the line: 1 where a digit may differ. */
  private readonly mask: Uint8Array;
  /** Where those are: what a line that fits differs in (capture, textOf). */
  private readonly places: Int32Array;
  /** The line's whole four-byte words (little-endian), and per word the bits of its bytes that may not differ. */
  private readonly words: Uint32Array;
  private readonly keep: Uint32Array;
  /** The payload starts with a full klog header, whose time the folded line's time is read from. */
  readonly klog: boolean;

  constructor(
    /** The line read in full (ASCII), and its prefix as read (the time's place and form, the payload's start). */
    text: string,
    readonly env: Pick<Envelope, 'timeAt' | 'timeForm' | 'start' | 'host' | 'ident'>,
    /** The line's time: a line earlier than this is read in full. */
    readonly ts: number,
    /** The record's PID (the journal's, else the klog header's thread) and payload kind: restarts are told by them. */
    readonly pid: number | null,
    readonly kind: PayloadKind,
    readonly origin: Origin,
    /** The matchers the line's base needles woke. */
    readonly woken: Uint8Array,
    readonly offers: readonly Offer[],
    /** The line holds a relist-proof needle: while proofs are looked for, a line that fits is read in full. */
    readonly proof: boolean,
    /** The needles that hold a digit: if a line that fits could hold one this one does not (couldHold), its needles
     *  are searched (`stable` false); else they are this one's, unsearched. */
    digitNeedles: readonly string[],
  ) {
    this.bytes = Buffer.from(text, 'latin1');
    const mask = (this.mask = new Uint8Array(text.length));
    const digits = (from: number, to: number): void => {
      for (let k = from; k < to && k < text.length; k++) if (isDigit(text.charCodeAt(k))) mask[k] = 1;
    };
    const fraction = (at: number): void => {
      if (text.charCodeAt(at) !== 46 && text.charCodeAt(at) !== 44) return;
      let k = at + 1;
      while (isDigit(text.charCodeAt(k))) k++;
      digits(at + 1, k);
    };
    const { timeAt, timeForm, start } = env;
    if (timeForm === 'short') {
      digits(timeAt + 4, timeAt + 15);
      fraction(timeAt + 15);
    } else if (timeForm === 'iso') {
      digits(timeAt, timeAt + 19);
      fraction(timeAt + 19);
    }
    this.klog = klogHeaderAt(text, start);
    if (this.klog) digits(start + 1, start + 21);
    // A run's key is its type, host and kind (thin.ts runKey): the kind is what must not hold a digit.
    if (!offers.some((o) => /\d/.test(o.key.slice(o.key.lastIndexOf('\u0000') + 1)))) {
      DURATION.lastIndex = start + (this.klog ? 21 : 0);
      for (let m = DURATION.exec(text); m !== null; m = DURATION.exec(text)) {
        if (!HOURS_1000.test(m[0])) digits(m.index, m.index + m[0].length);
      }
    }
    const places: number[] = [];
    for (let k = 0; k < mask.length; k++) if (mask[k] === 1) places.push(k);
    this.places = Int32Array.from(places);
    const nw = text.length >> 2;
    this.words = new Uint32Array(nw);
    this.keep = new Uint32Array(nw);
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
    for (let w = 0; w < nw; w++) {
      this.words[w] = view.getUint32(4 * w, true);
      let k = 0;
      for (let j = 0; j < 4; j++) if (mask[4 * w + j] === 0) k |= 0xff << (8 * j);
      this.keep[w] = k >>> 0;
    }
    this.stable = digitNeedles.length <= MAX_DIGIT_NEEDLES && !digitNeedles.some((n) => this.couldHold(n));
  }

  /** A line that fits holds this one's needles (see couldHold). */
  readonly stable: boolean;

  /** Bytes a line that fits holds at the places it may differ in. */
  get differing(): number {
    return this.places.length;
  }

  /**
   * Whether the line `b[from, to)` differs from this one only where the mask allows (a digit for a digit). Compared
   * from the end: a line's last bytes (its message) tell two templates apart sooner than its first (its prefix).
   */
  fits(b: Uint8Array, from: number, to: number, view: DataView = new DataView(b.buffer, b.byteOffset, b.byteLength)): boolean {
    const t = this.bytes;
    const n = t.length;
    if (to - from !== n) return false;
    // Four bytes at a time, the places that may differ left out (five times a byte loop's speed, measured); then the
    // bytes past the last whole word, and a digit at every place that may differ.
    const words = this.words;
    const keep = this.keep;
    for (let w = words.length - 1; w >= 0; w--) {
      if (((view.getUint32(from + 4 * w, true) ^ (words[w] as number)) & (keep[w] as number)) !== 0) return false;
    }
    const mask = this.mask;
    for (let k = 4 * words.length; k < n; k++) {
      const c = b[from + k] as number;
      if (c !== t[k] && (mask[k] === 0 || c < 48 || c > 57)) return false;
    }
    const places = this.places;
    for (let i = 0; i < places.length; i++) {
      const c = b[from + (places[i] as number)] as number;
      if (c < 48 || c > 57) return false;
    }
    return true;
  }

  /** Whether a line's needles woke the matchers this one's did. */
  sameWoken(woken: Uint8Array): boolean {
    const w = this.woken;
    for (let i = 0; i < w.length; i++) if (w[i] !== woken[i]) return false;
    return true;
  }

  /**
   * Whether a line that fits could hold `needle` where this one does not: over a place whose digit may differ. A needle
   * with no digit never can (a place that differs holds a digit in both lines), so a line that fits holds the very
   * needles this one holds, and wakes the same matchers, unless a needle with a digit (`code = 4 desc`) says otherwise.
   */
  couldHold(needle: string): boolean {
    const t = this.bytes;
    const mask = this.mask;
    const m = needle.length;
    for (let p = 0; p + m <= t.length; p++) {
      let over = false;
      let j = 0;
      for (; j < m; j++) {
        const c = needle.charCodeAt(j);
        if (mask[p + j] === 1) {
          if (!isDigit(c)) break;
          over = true;
        } else if (t[p + j] !== c) break;
      }
      if (j === m && over) return true;
    }
    return false;
  }

  /** The bytes a line that fits (at `b[from]`) holds at the places it may differ in, into `into` (of `differing` bytes
   *  at least): with textOf(), its text without decoding it now. */
  capture(b: Uint8Array, from: number, into: Uint8Array): void {
    const places = this.places;
    for (let i = 0; i < places.length; i++) into[i] = b[from + (places[i] as number)] as number;
  }

  /** The text of the line capture() took `held` from. */
  textOf(held: Uint8Array): string {
    const out = Buffer.from(this.bytes);
    const places = this.places;
    for (let i = 0; i < places.length; i++) out[places[i] as number] = held[i] as number;
    return out.toString('latin1');
  }
}

/** Characters at a line's end that key its templates (with any digit read as one). */
const KEY_CHARS = 16;

/** A line's length and last characters, digits alike: lines that fit one template share it (what differs between them
 *  is digits), and a dense run of errors naming many containers puts each container's template under its own key. */
export function templateKey(b: Uint8Array, from: number, to: number): number {
  let h = to - from;
  for (let k = Math.max(from, to - KEY_CHARS); k < to; k++) {
    const c = b[k] as number;
    h = (Math.imul(h, 31) + (isDigit(c) ? 48 : c)) | 0;
  }
  // 30 bits: a small integer for V8 (a key past them would be a heap number made for every line looked up).
  return h & 0x3fffffff;
}

/** The templates of one file (or range), by key; past MAX_TEMPLATES the oldest makes way. */
export class Templates {
  private readonly byKey = new Map<number, Template[]>();
  private readonly order: Array<{ key: number; t: Template }> = [];
  /** A view of the bytes lines were last looked up in (a chunk, reused while it lasts). */
  private viewOf: Uint8Array | null = null;
  private view: DataView = new DataView(new ArrayBuffer(0)) as DataView;
  private next = 0;

  add(t: Template): void {
    const key = templateKey(t.bytes, 0, t.bytes.length);
    if (this.order.length === MAX_TEMPLATES) {
      const old = this.order[this.next] as { key: number; t: Template };
      const list = this.byKey.get(old.key) as Template[];
      list.splice(list.indexOf(old.t), 1);
      if (list.length === 0) this.byKey.delete(old.key);
      this.order[this.next] = { key, t };
      this.next = (this.next + 1) % MAX_TEMPLATES;
    } else this.order.push({ key, t });
    const list = this.byKey.get(key);
    if (list) list.push(t);
    else this.byKey.set(key, [t]);
  }

  /** The template the line `b[from, to)` fits (and whose needles woke `woken`, if given), or null. */
  find(b: Uint8Array, from: number, to: number, woken: Uint8Array | null): Template | null {
    const list = this.byKey.get(templateKey(b, from, to));
    if (list === undefined) return null;
    if (b !== this.viewOf) {
      this.viewOf = b;
      this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    }
    for (let i = 0; i < list.length; i++) {
      const t = list[i] as Template;
      if (t.fits(b, from, to, this.view) && (woken === null || t.sameWoken(woken))) return t;
    }
    return null;
  }
}
