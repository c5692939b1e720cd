// A streaming JSON tokenizer: bytes in, in chunks of any size; events out (open/close of objects and arrays, keys,
// scalar values). Its state is bounded whatever the document: a nesting depth limit, a cap on a string's bytes (the
// rest is counted, not kept), a cap on a number's characters. No recursion, nothing kept of what was said. For answers
// that must not be parsed whole (a Prometheus answer of 45 MiB of points becomes gigabytes as JSON.parse objects).
// Example: `{"data":{"result":[{"metric":{"node":"w1"},"values":[[1710151800,"1"]]}]}}` gives
//   open(object) key(data) open(object) key(result) open(array) open(object) key(metric) open(object) key(node)
//   value("w1") close … open(array) open(array) value(1710151800) value("1") close close close close close close.

export interface JsonHandler {
  open(kind: 'object' | 'array'): void;
  close(): void;
  key(k: string): void;
  /** A scalar. `cut`: a string longer than the tokenizer keeps, cut there. */
  value(v: string | number | boolean | null, cut?: boolean): void;
}

export class JsonSyntaxError extends Error {}

export interface JsonStreamOptions {
  /** Deeper nesting is an error. Default 64. */
  maxDepth?: number;
  /** Bytes of a string kept; the rest is skipped. Default 64 KiB. */
  maxString?: number;
}

const enum Expect { Value, ValueOrEnd, Key, KeyOrEnd, Colon, CommaOrEnd, Done }
const enum Tok { None, String, Number, Literal }

export class JsonStream {
  private readonly maxDepth: number;
  private readonly maxString: number;
  /** 1 = object, 2 = array, per level. */
  private readonly stack: Uint8Array;
  private depth = 0;
  private expect = Expect.Value;
  private tok = Tok.None;
  private isKey = false;
  private sbuf: Buffer;
  private slen = 0;
  private scut = false;
  /** Inside a string: 0 normal, 1 after a backslash, 2..5 reading \u hex digits. */
  private esc = 0;
  private hex = 0;
  private highSurrogate = -1;
  private lit = '';
  /** Bytes read so far (for error messages). */
  bytes = 0;

  constructor(private readonly h: JsonHandler, opts: JsonStreamOptions = {}) {
    this.maxDepth = opts.maxDepth ?? 64;
    this.maxString = opts.maxString ?? 64 << 10;
    this.stack = new Uint8Array(this.maxDepth + 1);
    this.sbuf = Buffer.allocUnsafe(Math.min(256, this.maxString));
  }

  /** Whether the document is complete (its top value closed). */
  get done(): boolean {
    return this.expect === Expect.Done;
  }

  push(b: Buffer): void {
    const n = b.length;
    let i = 0;
    while (i < n) {
      if (this.tok === Tok.String) {
        i = this.stringBytes(b, i);
        continue;
      }
      const c = b[i]!;
      if (this.tok === Tok.Number) {
        if ((c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69) {
          if (this.lit.length > 64) this.fail('a number longer than 64 characters');
          this.lit += String.fromCharCode(c);
          i++;
          continue;
        }
        this.endNumber();
      } else if (this.tok === Tok.Literal) {
        if (c >= 97 && c <= 122) {
          if (this.lit.length > 5) this.fail(`unexpected "${this.lit.slice(0, 8)}"`);
          this.lit += String.fromCharCode(c);
          i++;
          continue;
        }
        this.endLiteral();
      }
      i++;
      if (c === 32 || c === 10 || c === 13 || c === 9) continue;
      switch (this.expect) {
        case Expect.Value:
        case Expect.ValueOrEnd:
          if (c === 93 /* ] */ && this.expect === Expect.ValueOrEnd) {
            this.closeLevel(2);
            break;
          }
          this.startValue(c);
          break;
        case Expect.Key:
        case Expect.KeyOrEnd:
          if (c === 34) {
            this.startString(true);
          } else if (c === 125 /* } */ && this.expect === Expect.KeyOrEnd) {
            this.closeLevel(1);
          } else this.fail('expected a key');
          break;
        case Expect.Colon:
          if (c !== 58) this.fail('expected ":"');
          this.expect = Expect.Value;
          break;
        case Expect.CommaOrEnd: {
          const top = this.stack[this.depth];
          if (c === 44 /* , */) this.expect = top === 1 ? Expect.Key : Expect.Value;
          else if (c === 125 && top === 1) this.closeLevel(1);
          else if (c === 93 && top === 2) this.closeLevel(2);
          else this.fail('expected "," or the end of a list or object');
          break;
        }
        case Expect.Done:
          this.fail('text after the end of the document');
      }
    }
    this.bytes += n;
  }

  /** The document ends here: a number at the very end is complete; anything open is an error. */
  end(): void {
    if (this.tok === Tok.Number) this.endNumber();
    else if (this.tok === Tok.Literal) this.endLiteral();
    if (this.expect !== Expect.Done) this.fail(this.bytes === 0 ? 'empty' : 'cut short');
  }

  private fail(why: string): never {
    throw new JsonSyntaxError(`not valid JSON (${why}, near byte ${this.bytes})`);
  }

  private startValue(c: number): void {
    if (c === 123 || c === 91) {
      if (this.depth >= this.maxDepth) this.fail(`nested more than ${this.maxDepth} levels deep`);
      this.stack[++this.depth] = c === 123 ? 1 : 2;
      this.expect = c === 123 ? Expect.KeyOrEnd : Expect.ValueOrEnd;
      this.h.open(c === 123 ? 'object' : 'array');
    } else if (c === 34) {
      this.startString(false);
    } else if ((c >= 48 && c <= 57) || c === 45) {
      this.tok = Tok.Number;
      this.lit = String.fromCharCode(c);
    } else if (c === 116 || c === 102 || c === 110) {
      this.tok = Tok.Literal;
      this.lit = String.fromCharCode(c);
    } else this.fail(`unexpected byte 0x${c.toString(16)}`);
  }

  private closeLevel(kind: number): void {
    if (this.stack[this.depth] !== kind) this.fail('mismatched bracket');
    this.depth--;
    this.h.close();
    this.afterValue();
  }

  private afterValue(): void {
    this.expect = this.depth === 0 ? Expect.Done : Expect.CommaOrEnd;
  }

  private endNumber(): void {
    this.tok = Tok.None;
    const v = Number(this.lit);
    if (!/^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(this.lit) || Number.isNaN(v)) this.fail(`invalid number "${this.lit.slice(0, 20)}"`);
    this.h.value(v);
    this.afterValue();
  }

  private endLiteral(): void {
    this.tok = Tok.None;
    const l = this.lit;
    if (l === 'true') this.h.value(true);
    else if (l === 'false') this.h.value(false);
    else if (l === 'null') this.h.value(null);
    else this.fail(`unexpected "${l.slice(0, 8)}"`);
    this.afterValue();
  }

  private startString(isKey: boolean): void {
    this.tok = Tok.String;
    this.isKey = isKey;
    this.slen = 0;
    this.scut = false;
    this.esc = 0;
    this.highSurrogate = -1;
  }

  /** Bytes of a string from `i`; returns where reading stopped (past the closing quote, or the chunk's end). */
  private stringBytes(b: Buffer, i: number): number {
    const n = b.length;
    while (i < n) {
      if (this.esc === 0) {
        let j = i;
        while (j < n) {
          const c = b[j]!;
          if (c === 34 || c === 92) break;
          if (c < 32) this.fail('a control character in a string');
          j++;
        }
        if (j > i) {
          this.flushSurrogate(); // a \u high surrogate not followed by its low half
          this.append(b, i, j);
        }
        if (j >= n) return n;
        if (b[j] === 34) {
          this.endString();
          return j + 1;
        }
        this.esc = 1;
        i = j + 1;
        continue;
      }
      const c = b[i++]!;
      if (this.esc === 1) {
        const simple = c === 34 ? 34 : c === 92 ? 92 : c === 47 ? 47 : c === 98 ? 8 : c === 102 ? 12 : c === 110 ? 10 : c === 114 ? 13 : c === 116 ? 9 : -1;
        if (simple >= 0) {
          this.flushSurrogate();
          this.appendByte(simple);
          this.esc = 0;
        } else if (c === 117 /* u */) {
          this.esc = 2;
          this.hex = 0;
        } else this.fail('invalid escape in a string');
        continue;
      }
      const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
      if (d < 0) this.fail('invalid \\u escape in a string');
      this.hex = this.hex * 16 + d;
      if (++this.esc === 6) {
        this.esc = 0;
        this.codeUnit(this.hex);
      }
    }
    return n;
  }

  private codeUnit(u: number): void {
    if (u >= 0xd800 && u <= 0xdbff) {
      this.flushSurrogate();
      this.highSurrogate = u;
      return;
    }
    if (u >= 0xdc00 && u <= 0xdfff && this.highSurrogate >= 0) {
      const cp = 0x10000 + ((this.highSurrogate - 0xd800) << 10) + (u - 0xdc00);
      this.highSurrogate = -1;
      this.appendText(String.fromCodePoint(cp));
      return;
    }
    this.flushSurrogate();
    this.appendText(u >= 0xd800 && u <= 0xdfff ? '\ufffd' : String.fromCharCode(u));
  }

  private flushSurrogate(): void {
    if (this.highSurrogate >= 0) {
      this.highSurrogate = -1;
      this.appendText('\ufffd');
    }
  }

  private appendText(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.append(b, 0, b.length);
  }

  private appendByte(c: number): void {
    if (this.slen >= this.maxString) {
      this.scut = true;
      return;
    }
    this.grow(1);
    this.sbuf[this.slen++] = c;
  }

  private append(b: Buffer, from: number, to: number): void {
    let len = to - from;
    if (this.slen + len > this.maxString) {
      this.scut = true;
      len = this.maxString - this.slen;
      if (len <= 0) return;
    }
    this.grow(len);
    b.copy(this.sbuf, this.slen, from, from + len);
    this.slen += len;
  }

  private grow(more: number): void {
    if (this.slen + more <= this.sbuf.length) return;
    const next = Buffer.allocUnsafe(Math.min(this.maxString, Math.max(this.sbuf.length * 2, this.slen + more)));
    this.sbuf.copy(next, 0, 0, this.slen);
    this.sbuf = next;
  }

  private endString(): void {
    this.flushSurrogate();
    this.tok = Tok.None;
    const s = this.sbuf.toString('utf8', 0, this.slen);
    if (this.isKey) {
      this.h.key(s);
      this.expect = Expect.Colon;
    } else {
      this.h.value(s, this.scut || undefined);
      this.afterValue();
    }
  }
}
