// Node's fs errors read `ENOENT: no such file or directory, open '/abs/real/path'`: the real path is noise in a
// report (and may differ from what the user typed), so messages are reduced to the short reason.
import type { Readable } from 'node:stream';

const BY_CODE: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ELOOP: 'symlink loop (too many levels of symbolic links)',
  ENOTDIR: 'not a directory',
  EISDIR: 'is a directory',
  EIO: 'input/output error',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
  ENAMETOOLONG: 'file name too long',
  EAGAIN: 'not a regular file',
  ENXIO: 'not a regular file',
  ENOTREG: 'not a regular file',
  ENODEV: 'not a regular file',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EFBIG: 'file too large',
  ECHANGED: 'changed while being read (a folder or file replaced, by a symlink?): not read',
};

export function errorCode(err: unknown): string | undefined {
  if (err && typeof err === 'object' && 'code' in err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

export function fsErrorMessage(err: unknown): string {
  const code = errorCode(err);
  if (code && BY_CODE[code]) return BY_CODE[code];
  if (err instanceof Error) return err.message;
  return String(err);
}

/** An Error with a short message that keeps the original code (consumers may branch on it). */
export function shortError(err: unknown, message = fsErrorMessage(err)): Error {
  const out = new Error(message);
  const code = errorCode(err);
  if (code) (out as Error & { code?: string }).code = code;
  return out;
}

/**
 * Rewrites the error a stream is destroyed with, in place: consumers see one normal 'error' event with our
 * message, and no extra stream sits in the data path.
 */
export function mapStreamErrors(stream: Readable, map: (err: Error) => Error): void {
  const original = stream._destroy.bind(stream);
  stream._destroy = (err: Error | null, callback: (error?: Error | null) => void) => {
    original(err, (e?: Error | null) => callback(e ? map(e) : e));
  };
}
