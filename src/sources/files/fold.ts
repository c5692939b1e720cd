// Hard-wrapped pastes: a log copied out of a terminal or a ticket, each line cut at a fixed width (80, 100, 120, 132,
// 160 columns, or whatever the window was) and the rest put on the next line:
//
//   E0311 10:04:12.000150    2817 remote_runtime.go:294] "ListPodSandbox with filter fro      ← 80 bytes
//   m runtime service failed" err="rpc error: code = DeadlineExceeded desc = context dea      ← 80 bytes
//   dline exceeded" filter="nil"                                                             ← the rest
//   E0311 10:04:14.000163    2817 generic.go:205] "GenericPLEG: Unable to retrieve pods" …   ← a record of its own
//
// The width is found once per file, from its head (wrapWidth): the longest lines there all have one length, more lines
// have exactly it than any length just below it (a wrap cuts at one column; lines that merely end near it spread),
// what follows them cannot start a record (startsRecord), and, past two of them, some wrap ends in a shorter line (a
// table padded to one width has none; one record cut into exactly three pieces has none either); at a usual width one such line is enough (a single record
// pasted alone), else three. Only then is the file folded (foldLines); every other file is read
// as it is, at no cost. A physical line exactly that wide is joined with the next when the next cannot start a record
// (no time, klog header, journal marker, JSON object … at its start; not a TAB-indented frame; not blank).
//
// The fold keeps every byte offset and line number: `A\nB\n` becomes `AB\n\n` (the line terminators of the joined
// lines follow the joined line as blank lines), so the joined record is read at the first physical line's number and
// offset, and every later line keeps its own. Only a record joined at the very end of the file is padded with spaces
// instead (the last line dates the end of the log), so the file reads as that many lines fewer. Lengths are bytes (a
// terminal cuts at columns: the same for ASCII).
import { Transform, type Readable } from 'node:stream';

/**
 * What a record can start with, as a POSIX extended regular expression, so that `awk` (the count checks' command,
 * foldCommand) and this module fold the same lines. No `{n}` intervals (mawk), no `\d`.
 */
const START_ERE = [
  '\\t', // a TAB-indented frame or value: a continuation of its own kind, never a wrap's
  '(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ 0-9][0-9] ', // journal short, syslog
  '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][T ]', // ISO 8601, RFC 3339, CRI, short-iso
  '[0-9][0-9][0-9][0-9]/[0-9][0-9]/[0-9][0-9] ', // Go's log package
  '<[0-9]+>', // a syslog priority (RFC 3164/5424 as received)
  '(Mon|Tue|Wed|Thu|Fri|Sat|Sun) [0-9][0-9][0-9][0-9]-', // short-full
  '[IWEF][0-9][0-9][0-9][0-9] [0-9][0-9]:', // klog header
  '[0-9][0-9]:[0-9][0-9]:[0-9][0-9]', // a time of day (a klog header cut down)
  '\\[ *[0-9]+\\.[0-9]+\\]', // dmesg
  '\\[(Mon|Tue|Wed|Thu|Fri|Sat|Sun) ', // dmesg -T
  '[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]\\.[0-9]', // short-unix
  '-- ', // journalctl's markers
  '\\{', // JSON lines
  'time="', // logrus
  'level=',
  '[A-Z][A-Z][A-Z][A-Z]\\[[0-9]+\\]', // CLI logrus (crictl)
  '[0-9]+\\.[0-9]+\\.[0-9]+\\.[0-9]+: ', // talosctl's node prefix
  '\\[pod/', // kubectl logs --prefix
  'goroutine [0-9]+ \\[', // a goroutine dump
].join('|');
const START = new RegExp(`^(${START_ERE})`);

/** Whether a line could be a record of its own (then it is never joined to the line before it). */
export function startsRecord(line: string): boolean {
  return START.test(line);
}

/** A logical line grows no longer than this by joining (a hostile file of 80-byte lines with no record in them). */
export const MAX_JOINED = 64 * 1024;
/** Narrower than this, full lines are not taken for a wrap. */
const MIN_WIDTH = 40;

/**
 * The width `head` (a file's first bytes) is hard-wrapped at, or null when it is not. Its longest lines (no line is
 * longer than the width of a wrapped file) must be at least 1 (3 when the width is not a usual terminal's), more than
 * the lines just under that length (within 8 bytes), and nearly all (4 in 5) followed by a line that cannot start a
 * record. One pass over the head.
 */
export function wrapWidth(head: Buffer): number | null {
  const end = head.lastIndexOf(10);
  if (end < 0) return null;
  const lens: number[] = [];
  let max = 0;
  for (let from = 0; from <= end; ) {
    const nl = head.indexOf(10, from);
    let to = nl;
    if (to > from && head[to - 1] === 13) to--;
    lens.push(to - from);
    if (to - from > max) max = to - from;
    from = nl + 1;
  }
  if (max < MIN_WIDTH) return null;
  let full = 0;
  let near = 0;
  let joinable = 0;
  /** Wraps that end (a shorter line after a full one): a table padded to one width has none. */
  let tails = 0;
  let from = 0;
  for (let i = 0; i < lens.length; i++) {
    const n = lens[i] as number;
    const nl = head.indexOf(10, from);
    if (n === max && i + 1 < lens.length && (lens[i + 1] as number) > 0) {
      full++;
      const s = nl + 1;
      const line = head.toString('utf8', s, s + Math.min(64, lens[i + 1] as number));
      if (!startsRecord(line)) {
        joinable++;
        if ((lens[i + 1] as number) < max) tails++;
      }
    } else if (n < max && n >= max - 8) near++;
    from = nl + 1;
  }
  // One record pasted alone and wrapped at a usual width is two or three lines: one join is enough there.
  const usual = max === 80 || max === 100 || max === 120 || max === 132 || max === 160;
  return joinable >= (usual ? 1 : 3) && joinable * 5 >= full * 4 && full > near && (tails > 0 || full < 3) ? max : null;
}

/** `head` with its wrapped lines joined (for sniffing: offsets do not matter there), or `head` itself. */
export function foldHead(head: Buffer): Buffer {
  const width = wrapWidth(head);
  if (width === null) return head;
  const lines = head.toString('latin1').split('\n');
  const out: string[] = [];
  let lastLen = -1;
  for (const raw of lines) {
    const l = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (lastLen === width && l !== '' && !START.test(l) && out.length > 0) out[out.length - 1] += l;
    else out.push(l);
    lastLen = l.length;
  }
  return Buffer.from(out.join('\n'), 'latin1');
}

/**
 * The lines of `raw` with the lines wrapped at `width` joined (see the header): the same bytes in number, the same line
 * numbers and offsets for every line that starts a record. `joined()` tells how many physical lines were joined to the
 * one before them, once the stream has ended.
 */
export function foldLines(raw: Readable, width: number): { stream: Readable; joined: () => number } {
  let joined = 0;
  /** The logical line being built (without its terminator), the length of its last physical line, the terminators owed. */
  let hold: Buffer[] = [];
  let holdBytes = 0;
  let lastLen = -1;
  let owed = '';
  let rest: Buffer | null = null;
  const out = new Transform({
    transform(chunk: Buffer, _enc, done) {
      const b = rest ? Buffer.concat([rest, chunk]) : chunk;
      rest = null;
      const parts: Buffer[] = [];
      let from = 0;
      for (;;) {
        const nl = b.indexOf(10, from);
        if (nl < 0) break;
        const cr = nl > from && b[nl - 1] === 13;
        line(b.subarray(from, cr ? nl - 1 : nl), cr ? '\r\n' : '\n', parts);
        from = nl + 1;
      }
      if (from < b.length) rest = Buffer.from(b.subarray(from));
      done(null, parts.length ? Buffer.concat(parts) : undefined);
    },
    flush(done) {
      const parts: Buffer[] = [];
      if (rest) line(rest, '', parts);
      rest = null;
      // A joined record at the very end: its owed terminators become spaces before its own (bytes kept), so that the
      // file's last line is that record, which dates the end of the log, not a blank one.
      const own = owed.startsWith('\r\n') ? '\r\n' : owed.slice(0, 1);
      if (owed.length > own.length) owed = ' '.repeat(owed.length - own.length) + own;
      emit(parts);
      done(null, parts.length ? Buffer.concat(parts) : undefined);
    },
  });
  function emit(parts: Buffer[]): void {
    if (lastLen < 0) return;
    parts.push(...hold);
    if (owed) parts.push(Buffer.from(owed));
    hold = [];
    holdBytes = 0;
    owed = '';
    lastLen = -1;
  }
  function line(text: Buffer, term: string, parts: Buffer[]): void {
    const n = text.length;
    if (lastLen === width && n > 0 && holdBytes + n <= MAX_JOINED && !START.test(text.toString('latin1', 0, Math.min(256, n)))) {
      hold.push(Buffer.from(text));
      holdBytes += n;
      // The joined line's terminator stays in place; this one's follows as a blank line.
      owed += term;
      lastLen = n;
      joined++;
      return;
    }
    emit(parts);
    // A copy only when it may be joined to (a full line); otherwise the line goes out with its terminator at once.
    if (n === width) {
      hold = [Buffer.from(text)];
      holdBytes = n;
      owed = term;
      lastLen = n;
    } else parts.push(text, Buffer.from(term));
  }
  raw.on('error', (err) => out.destroy(err));
  out.on('close', () => raw.destroy());
  raw.pipe(out);
  return { stream: out, joined: () => joined };
}

/**
 * The shell command that writes the lines of `file` (a shell word) folded as foldLines folds them, for the count
 * checks: `LC_ALL=C awk` (lengths in bytes, as here) with the same record-start expression.
 */
export function foldCommand(width: number): string {
  const re = START_ERE.replace(/\//g, '\\/').replace(/'/g, `'\\''`);
  return `LC_ALL=C awk -v w=${width} '{ l = $0; sub(/\\r$/, "", l) } NR > 1 && k == w && l != "" && length(h) + length(l) <= ${MAX_JOINED} && l !~ /^(${re})/ { h = h l; k = length(l); next } { if (NR > 1) print h; h = l; k = length(l) } END { if (NR > 0) print h }'`;
}
