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

/** Compiles a spec; throws the RE2 parser's error for patterns RE2 cannot run (backreferences, lookaround). */
export function compileCustom(spec: CustomSignalSpec): CustomPattern {
  const re = re2js().RE2JS.compile(spec.pattern);
  return {
    id: spec.id,
    needles: spec.needles,
    test: (line: string) => re.matcher(line.length > USER_MATCH_MAX ? line.slice(0, USER_MATCH_MAX) : line).find(),
  };
}
