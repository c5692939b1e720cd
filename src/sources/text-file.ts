// Small text files the user names besides the inputs: rule packs read whole (with a size cap), reports written whole;
// one-line errors either way.
import { chmodSync, closeSync, fsyncSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { InputError } from './artifact.js';
import { fsErrorMessage } from './fserror.js';

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

/**
 * Writes a report (or a redaction map) the user named with `-o`: to a temporary file in the same folder, then renamed
 * over `file`, so a full disk or a failed write leaves no truncated report (and an older one intact). What is not a
 * regular file (`/dev/stdout`, a FIFO, `/dev/null`) is written directly. Failures are one InputError naming `file`.
 */
export function writeOutputFile(file: string, data: string): void {
  let target = file;
  try {
    target = realpathSync(file);
  } catch {
    // Not there yet (or a dangling link): created under the name given.
  }
  let mode: number | null = null;
  try {
    const st = statSync(target);
    if (!st.isFile()) {
      writeOrFail(file, () => writeFileSync(target, data));
      return;
    }
    mode = st.mode & 0o7777;
  } catch (err) {
    if (err instanceof InputError) throw err;
  }
  const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.tmp`);
  writeOrFail(file, () => {
    try {
      const fd = openSync(tmp, 'wx', mode ?? 0o666);
      try {
        writeFileSync(fd, data);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      if (mode !== null) chmodSync(tmp, mode);
      renameSync(tmp, target);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  });
}

function writeOrFail(file: string, write: () => void): void {
  try {
    write();
  } catch (err) {
    throw new InputError(file, `cannot be written: ${fsErrorMessage(err)}`);
  }
}
