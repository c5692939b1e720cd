// What a probed file is, and what (if anything) is wrong with it: shared by loose files, folders and archive members.
import type { Role } from '../../contract/analysis.js';
import { CORRUPT, TRUNCATED, type Probe } from './decode.js';
import { errorCode } from '../fserror.js';
import { PROBLEM_FORMATS, compressedKind, isContainerList, sniff as sniffHead, type Sniffed } from './sniff.js';
import { foldHead } from './fold.js';

const NOT_RECOGNISED = 'not recognised as a kubelet, runtime or kernel log, metrics, goroutine dump or node object';

const DECOMPRESS: Record<string, string> = { zstd: 'zstd -d', lz4: 'lz4 -d' };

export interface Assessment {
  role: Role;
  format: string;
  /** Warning text, or null when the file is fine. */
  problem: string | null;
  /** Whether the problem makes a file the user named directly unusable (→ InputError). */
  fatal: boolean;
}

/** What a head shows; a head nothing placed is sniffed once more with its hard-wrapped lines joined (fold.ts). */
function sniff(head: Buffer, name: string): Sniffed {
  const s = sniffHead(head, name);
  if (s.role !== 'other') return s;
  const folded = foldHead(head);
  return folded === head ? s : sniffHead(folded, name);
}

/** What a probed file is, and what (if anything) is wrong with it. */
export function assess(pr: Probe, displayPath: string, named: boolean): Assessment {
  const name = displayPath.split('/').pop() ?? displayPath;
  if (pr.error) {
    const code = errorCode(pr.error);
    // A binary journal's damage (cut, not closed cleanly, corrupt past some entry) ends its read after the sound entries:
    // the read says so where it stops ("read stopped after line N: …"), so the file is kept without a warning here.
    if (pr.compression === 'journal' && pr.head.length > 0 && (code === TRUNCATED || code === CORRUPT)) {
      const s = sniff(pr.head, name);
      if (!PROBLEM_FORMATS.has(s.format)) return { ...s, problem: null, fatal: false };
    }
    // A damaged compressed file often holds hours of good log before the damage: keep it, with the warning.
    if (pr.head.length > 0 && (code === TRUNCATED || code === CORRUPT)) {
      const s = sniff(pr.head, name);
      if (!PROBLEM_FORMATS.has(s.format)) return { ...s, problem: pr.error.message, fatal: true };
    }
    return { role: 'other', format: 'unreadable', problem: pr.error.message, fatal: true };
  }
  if (pr.head.length === 0) return { role: 'other', format: 'empty', problem: pr.compression === 'journal' ? 'journal file without entries' : 'empty file', fatal: true };
  const s = sniff(pr.head, name);
  const problem = problemOf(s.format, pr, displayPath);
  if (problem) return { ...s, problem, fatal: true };
  // Text nothing in its head placed ('other') is still read for the messages it may hold: whether it holds any is said
  // once it has been read.
  if (s.role === 'other') return { ...s, problem: named && !isContainerList(s.format) && s.format !== 'other' ? NOT_RECOGNISED : null, fatal: false };
  return { ...s, problem: null, fatal: false };
}

export function problemOf(format: string, pr: Probe, displayPath: string): string | null {
  switch (format) {
    case 'empty':
      return 'no content (only blank lines or journal notes)';
    case 'binary':
      return 'binary data (not a log or metrics file)';
    case 'journal-binary': {
      // A binary journal is read (journal.ts) unless it is itself compressed: one decoding per file.
      const name = displayPath.split('/').pop() ?? 'journal';
      const inner = name.replace(/\.(?:gz|xz|bz2)$/i, '');
      const tool = pr.compression === 'gzip' ? 'gzip' : pr.compression === 'xz' ? 'xz' : pr.compression === 'bzip2' ? 'bzip2' : null;
      return tool && inner !== name
        ? `binary journal inside a ${pr.compression} file: not read; decompress it first (\`${tool} -dk ${displayPath}\`, then analyze ${inner})`
        : `binary journal inside a ${pr.compression ?? 'compressed'} file: not read; decompress it first`;
    }
    case 'archive':
      return 'archive format not read (only tar, tar.gz, tar.xz, tar.bz2 and zip are): unpack it first';
    case 'encrypted':
      return `encrypted (OpenPGP) data: decrypt it first (\`gpg --output ${(displayPath.split('/').pop() ?? 'file').replace(/\.(?:gpg|pgp|asc)$/, '') || 'decrypted'} --decrypt ${displayPath}\`, with the passphrase or key given to \`sos report --encrypt-pass/--encrypt-key\`)`;
    case 'compressed': {
      const inner = compressedKind(pr.head) ?? 'compressed';
      return pr.compression
        ? `${inner} data inside a ${pr.compression} file: not read`
        : `${inner}-compressed: only gzip, xz, bzip2 and zstd are read; decompress it first${DECOMPRESS[inner] ? ` (\`${DECOMPRESS[inner]} ${displayPath}\`)` : ''}`;
    }
    default:
      return null;
  }
}

