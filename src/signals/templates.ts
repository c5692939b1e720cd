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
// Every other character — IDs, codes, names, the klog caller and thread — must be the same.
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

export class Template {
  /** Per character of the line: 1 where a digit may differ. */
  private readonly mask: Uint8Array;
  /** The payload starts with a full klog header, whose time the folded line's time is read from. */
  readonly klog: boolean;

  constructor(
    /** The line read in full, and its prefix as read (the time's place and form, the payload's start). */
    readonly text: string,
    readonly env: Pick<Envelope, 'timeAt' | 'timeForm' | 'start' | 'host' | 'ident'>,
    /** The line's time: a line earlier than this is read in full. */
    readonly ts: number,
    /** The record's PID (the journal's, else the klog header's thread) and payload kind: restarts are told by them. */
    readonly pid: number | null,
    readonly kind: PayloadKind,
    readonly origin: Origin,
    /** The matchers the line's needles woke. */
    readonly woken: Uint8Array,
    readonly offers: readonly Offer[],
  ) {
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
    this.cut();
  }

  /**
   * The line cut into pieces: text compared whole (a substring against a flat string: one native comparison), and the
   * stretches around masked digits (`00:10:00.002`, `3m0.002s`), compared character by character, where a masked place
   * must hold a digit and any other the same character.
   */
  private cut(): void {
    const n = this.text.length;
    const mask = this.mask;
    let k = 0;
    while (k < n) {
      if (mask[k] === 0) {
        let e = k;
        while (e < n && mask[e] === 0) e++;
        // A short stretch between two masked digits (`:` in a time, `m` in a duration) joins them.
        if (k > 0 && e < n && e - k <= 3) {
          this.loose.push(k, e);
        } else {
          this.fixed.push(Buffer.from(this.text.slice(k, e)).toString());
          this.fixedAt.push(k);
        }
        k = e;
      } else {
        let e = k;
        while (e < n && mask[e] === 1) e++;
        this.loose.push(k, e);
        k = e;
      }
    }
  }

  private readonly fixed: string[] = [];
  private readonly fixedAt: number[] = [];
  /** [from, to) pairs compared character by character. */
  private readonly loose: number[] = [];

  /** Whether `line` differs from this one only where the mask allows, and woke the same matchers. */
  fits(line: string, woken: Uint8Array): boolean {
    const t = this.text;
    if (line.length !== t.length) return false;
    const fixed = this.fixed;
    const fixedAt = this.fixedAt;
    // From the end: a line's last characters (its message) tell two templates apart sooner than its first (its prefix).
    for (let i = fixed.length - 1; i >= 0; i--) {
      const f = fixed[i] as string;
      const at = fixedAt[i] as number;
      if (line.slice(at, at + f.length) !== f) return false;
    }
    const loose = this.loose;
    const mask = this.mask;
    for (let i = 0; i < loose.length; i += 2) {
      for (let k = loose[i] as number, e = loose[i + 1] as number; k < e; k++) {
        const a = line.charCodeAt(k);
        if (a !== t.charCodeAt(k) && (mask[k] === 0 || !isDigit(a))) return false;
      }
    }
    const w = this.woken;
    for (let i = 0; i < w.length; i++) if (w[i] !== woken[i]) return false;
    return true;
  }
}

/** Characters at a line's end that key its templates (with any digit read as one). */
const KEY_CHARS = 16;

/** A line's length and last characters, digits alike: lines that fit one template share it (what differs between them
 *  is digits), and a dense run of errors naming many containers puts each container's template under its own key. */
export function templateKey(line: string): number {
  const n = line.length;
  let h = n;
  for (let k = Math.max(0, n - KEY_CHARS); k < n; k++) {
    const c = line.charCodeAt(k);
    h = (Math.imul(h, 31) + (isDigit(c) ? 48 : c)) | 0;
  }
  return h;
}

/** The templates of one file (or range), by key; past MAX_TEMPLATES the oldest makes way. */
export class Templates {
  private readonly byKey = new Map<number, Template[]>();
  private readonly order: Array<{ key: number; t: Template }> = [];
  private next = 0;

  add(t: Template): void {
    const key = templateKey(t.text);
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

  /** The template `line` fits, or null. */
  find(line: string, woken: Uint8Array): Template | null {
    const list = this.byKey.get(templateKey(line));
    if (list === undefined) return null;
    for (let i = 0; i < list.length; i++) {
      const t = list[i] as Template;
      if (t.fits(line, woken)) return t;
    }
    return null;
  }
}
