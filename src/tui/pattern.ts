// User regexes (the Log view's `/`): RE2 semantics (re2js, linear time), so no pattern can hang the UI; lines are cut
// before matching. Smart case: a pattern without capitals matches either case.
//
// RE2 in JavaScript costs ~10 µs a line, minutes for a gigabyte. Most patterns contain words every match must
// contain: those are looked for first, over a whole block of bytes at once (native search), and RE2 runs only on the
// lines of blocks that hold them; a pattern that is nothing but a word never needs RE2 at all.
import { RE2JS } from 're2js';

/** Lines are cut to this many characters before a user pattern sees them. */
export const MATCH_MAX_CHARS = 4096;

export interface UserPattern {
  source: string;
  test(text: string): boolean;
  /** False when no line of these bytes can match (a quick look at a whole block); absent when it cannot tell. */
  block?: (bytes: Buffer) => boolean;
  /** [start, end) of every match in `text` (at most `limit`), for highlighting. */
  ranges(text: string, limit?: number): Array<[number, number]>;
}

export type Compiled = { ok: true; pattern: UserPattern } | { ok: false; error: string };

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * Substrings every match of `src` contains, for patterns simple enough to tell (no alternation, groups, classes or
 * counted repetition); [] when unsure. `ab*c` → ['a', 'c']; `foo.+bar` → ['foo', 'bar']; `x\.y` → ['x.y'].
 */
export function requiredLiterals(src: string): string[] {
  if (/[|()[\]{}]/.test(src)) return [];
  const out: string[] = [];
  let cur = '';
  const flush = () => {
    if (cur) out.push(cur);
    cur = '';
  };
  for (let i = 0; i < src.length; i++) {
    const c = src[i] as string;
    if (c === '\\') {
      const n = src[i + 1];
      i++;
      if (n !== undefined && /[^\w\s]/.test(n)) cur += n;
      else if (n === 't') cur += '\t';
      else flush();
      continue;
    }
    if (c === '*' || c === '?') {
      cur = cur.slice(0, -1);
      flush();
    } else if (c === '+' || c === '.' || c === '^' || c === '$') flush();
    else cur += c;
  }
  flush();
  return out;
}

function isPlainLiteral(src: string): boolean {
  return !/[\\.*+?^${}()|[\]]/.test(src);
}

const FOLD = Uint8Array.from({ length: 256 }, (_, i) => (i >= 65 && i <= 90 ? i + 32 : i));

/**
 * A search for an ASCII literal in any case over raw bytes (Boyer-Moore-Horspool on case-folded bytes): no string is
 * made of the block, so a scan over a gigabyte leaves no garbage behind.
 */
export function foldedSearch(lit: string): (b: Buffer) => boolean {
  const pat = Uint8Array.from(Buffer.from(lit, 'latin1'), (c) => FOLD[c] as number);
  const m = pat.length;
  const shift = new Uint32Array(256).fill(m);
  for (let i = 0; i < m - 1; i++) {
    const c = pat[i] as number;
    shift[c] = m - 1 - i;
    if (c >= 97 && c <= 122) shift[c - 32] = m - 1 - i;
  }
  return (b) => {
    if (m === 0) return true;
    const last = b.length - m;
    let i = 0;
    while (i <= last) {
      let j = m - 1;
      while (j >= 0 && FOLD[b[i + j] as number] === pat[j]) j--;
      if (j < 0) return true;
      i += shift[b[i + m - 1] as number] as number;
    }
    return false;
  };
}

export function compilePattern(source: string): Compiled {
  if (source.length === 0) return { ok: false, error: 'empty pattern' };
  if (source.length > 1000) return { ok: false, error: 'pattern longer than 1000 characters' };
  const ci = !/[A-Z]/.test(source);
  let re: RE2JS;
  try {
    re = RE2JS.compile(source, ci ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (err) {
    const msg = (err as Error).message ?? String(err);
    return { ok: false, error: msg.split('\n')[0]?.slice(0, 120) || 'invalid pattern' };
  }
  const cut = (t: string) => (t.length > MATCH_MAX_CHARS ? t.slice(0, MATCH_MAX_CHARS) : t);
  // Word filters: native searches for literals only (an escaped literal cannot backtrack).
  const lits = requiredLiterals(source);
  const ascii = lits.every((l) => /^[\x20-\x7e\t]*$/.test(l));
  const natives = lits.map((l) => new RegExp(escapeRe(l), ci ? 'i' : ''));
  const bufs = lits.map((l) => Buffer.from(l, 'utf8'));
  let block: UserPattern['block'];
  if (lits.some((l) => l.length >= 3) && (!ci || ascii)) {
    const folded = ci ? lits.map(foldedSearch) : [];
    block = ci ? (b) => folded.every((f) => f(b)) : (b) => bufs.every((x) => b.indexOf(x) >= 0);
  }
  const plain = isPlainLiteral(source) && (!ci || ascii);
  const lineHas = (t: string) => natives.every((n) => n.test(t));
  const test = plain
    ? (text: string) => lineHas(cut(text))
    : (text: string) => {
        const t = cut(text);
        return lineHas(t) && re.matcher(t).find();
      };
  return {
    ok: true,
    pattern: {
      source,
      test,
      ...(block ? { block } : {}),
      ranges: (text, limit = 32) => {
        const out: Array<[number, number]> = [];
        const t = cut(text);
        if (!lineHas(t)) return out;
        const m = re.matcher(t);
        let from = 0;
        while (out.length < limit && from <= t.length && m.find(from)) {
          const s = m.start();
          const e = m.end();
          if (e > s) out.push([s, e]);
          from = e > s ? e : e + 1;
        }
        return out;
      },
    },
  };
}
