// Nouns that agree with their numbers in text built before the numbers are known.

/** A number, then up to three words with no punctuation between (`30 CRI call(s)`, `66 runtime "get state" timeout(s)`). */
const NOUN = /\b(\d+)((?:[ \t]+[^\s\d().,;:]+){0,3}?[ \t]+)([A-Za-z-]+?)(y\(ies\)|\(s\))/g;

/** `1 time(s)` → `1 time`, `30 CRI call(s)` → `30 CRI calls`, `2 list reply(ies)` → `2 list replies`: a noun written
 *  `word(s)` or `word(ies)` agrees with the number before it. Templates and evidence phrases are written this way because
 *  their counts are known only when filled. */
export function plurals(text: string): string {
  if (!text.includes('(s)') && !text.includes('(ies)')) return text;
  return text.replace(NOUN, (_, n: string, mid: string, word: string, end: string) =>
    `${n}${mid}${word}${end === '(s)' ? (n === '1' ? '' : 's') : n === '1' ? 'y' : 'ies'}`);
}
