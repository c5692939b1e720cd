// Small text files the user names besides the inputs (rule packs): read whole, with a size cap and one-line errors.
import { readFileSync, statSync } from 'node:fs';
import { InputError } from './artifact.js';

export function readSmallTextFile(path: string, maxBytes = 4 * 1024 * 1024): string {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new InputError(path, 'not a regular file');
    size = st.size;
  } catch (err) {
    if (err instanceof InputError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(path, code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : (err as Error).message);
  }
  if (size > maxBytes) throw new InputError(path, `larger than ${maxBytes} bytes`);
  const buf = readFileSync(path);
  if (buf.includes(0)) throw new InputError(path, 'binary data, not a text file');
  return buf.toString('utf8');
}
