// Dependencies that most runs never need (tar-stream for archives, re2js for custom patterns, yaml for rule packs) are
// loaded on first use: every module loaded at start is start-up time on every run.
import { createRequire } from 'node:module';

const requireHere = createRequire(import.meta.url);

/** A getter that loads the CommonJS build of `name` the first time it is called. */
export function lazyRequire<T>(name: string): () => T {
  let mod: T | undefined;
  return () => (mod ??= requireHere(name) as T);
}
