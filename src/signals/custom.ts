// Signals a user rule pack adds: a named RE2 pattern and the literal needles that let its lines through the
// prefilter. RE2 (re2js) runs in linear time, so no pattern can make a line take seconds; lines are cut first.
import type { RE2JS } from 're2js';
import { lazyRequire } from '../util/lazy-require.js';

/** Loaded with the first custom pattern: most runs have none. */
const re2js = lazyRequire<{ RE2JS: typeof RE2JS }>('re2js');

export interface CustomSignalSpec {
  id: string;
  pattern: string;
  /** Literal substrings, one of which every matching line holds (the prefilter's needles for this signal). */
  needles: string[];
}

export interface CustomPattern {
  id: string;
  needles: string[];
  test(line: string): boolean;
}

/** Lines are cut to this length before a user pattern sees them. */
export const USER_MATCH_MAX = 8192;

/** A pattern without any regex syntax matches where its text occurs: no regex is needed for it. */
const PLAIN = /^[^\\.^$|?*+()[\]{}]*$/;

/** Throws the RE2 parser's error for a pattern RE2 cannot run (backreferences, lookaround). */
export function checkPattern(pattern: string): void {
  if (!PLAIN.test(pattern)) re2js().RE2JS.compile(pattern);
}

/**
 * A spec ready to match (checked by checkPattern when its pack was loaded). A regex is compiled when a line first
 * reaches it (a needle of it occurs): a compiled RE2 program takes kilobytes, and most of a large pack's patterns
 * never see a line. A plain literal is a substring search.
 */
export function compileCustom(spec: CustomSignalSpec): CustomPattern {
  const cut = (line: string) => (line.length > USER_MATCH_MAX ? line.slice(0, USER_MATCH_MAX) : line);
  if (PLAIN.test(spec.pattern)) {
    const text = spec.pattern;
    return { id: spec.id, needles: spec.needles, test: (line: string) => cut(line).includes(text) };
  }
  let re: RE2JS | null = null;
  return {
    id: spec.id,
    needles: spec.needles,
    test: (line: string) => (re ??= re2js().RE2JS.compile(spec.pattern)).matcher(cut(line)).find(),
  };
}
