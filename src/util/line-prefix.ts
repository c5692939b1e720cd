// What `grep` and `cat -n` put before every line they print, so that a paste of their output (the most common way lines
// reach a ticket: `grep PLEG /var/log/messages*`) is read as the lines it shows:
//   grep -n:        1234:Mar 11 10:04:12 worker-3 kubelet[2211]: E0311 …      (context lines: `1234-…`)
//   grep, files:    /var/log/messages-20240311:Mar 11 10:04:12 worker-3 …
//   grep -rn:       kubelet.log:1234:E0311 10:04:12.000150 …
//   cat -n:             12	E0311 10:04:12.000150 …
// The kind is learned once per file from its first line (the sniffer and the line recogniser both ask here), and only
// when that line does not start a log line itself but does once the prefix is taken off: a journal line, a time-only
// line (`01:38:02 kubelet[…]`) or a klog header is never read as one.
export type LinePrefix = 'cat-n' | 'grep-file-n' | 'grep-file' | 'grep-n';

// In this order: a line number alone is grep -n's (whose context lines have `-`), not a file named `1234`.
const KINDS: ReadonlyArray<readonly [LinePrefix, RegExp]> = [
  ['cat-n', /^\d+\t/],
  ['grep-file-n', /^[^\s:]+:\d+[:-]/],
  ['grep-n', /^\d+[:-]/],
  ['grep-file', /^[^\s:]+:/],
];
const BY_KIND = new Map(KINDS);

/** What a log line starts with: a date or time, a syslog month and day, a klog header or its caller (`kubelet.go:12]`),
 *  a JSON object, a dmesg stamp, logrus' `time=`/`level=`, a journal identifier (`kubelet[12]:`), a goroutine's header. */
const LOG_START = /^(?:goroutine \d+ \[|\d{4}-\d\d-\d\d[T ]\d\d:|\d\d:\d\d:\d\d|\d{10}(?:\.\d+)? |(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d\d:|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{4}-|[IWEF]\d{4} \d\d:|[\w./-]+\.go:\d+\] |\{"|\[\s*\d+\.\d+\]|time="|level=|[\w.@-]+\[\d+\]: )/;

/** Loki's `logcli query` puts the stream's labels between a line's time and the line:
 *  `2024-03-11T10:04:17Z {host="worker-3", unit="kubelet.service"} E0311 …` (the sniffer and the recogniser skip them). */
export const LOKI_LABELS = /^\{(?:[A-Za-z_]\w*=~?"(?:[^"\\]|\\.)*"(?:, ?)?)+\} ?/;

/** The kind of prefix `first` (a file's first non-blank line, from `from` on) carries, or null. */
export function linePrefixOf(first: string, from = 0): LinePrefix | null {
  const s = from > 0 ? first.slice(from) : first;
  if (LOG_START.test(s)) return null;
  for (const [kind, re] of KINDS) {
    const m = re.exec(s);
    if (m && LOG_START.test(s.slice(m[0].length))) return kind;
  }
  return null;
}

/** The index after `kind`'s prefix at `i` in `s` (`i` when this line has none: a grep `--` separator). */
export function skipLinePrefix(s: string, i: number, kind: LinePrefix): number {
  const m = (BY_KIND.get(kind) as RegExp).exec(i > 0 ? s.slice(i, i + 512) : s.slice(0, 512));
  return m ? i + m[0].length : i;
}
