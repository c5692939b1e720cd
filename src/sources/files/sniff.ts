// Role and format from content. File names lie (`messages`, `0.log`, `current.log`, `metrics.json` holding
// Prometheus text), so the name is only consulted to break a tie the content leaves open.
import type { Role } from '../../contract/analysis.js';
import { sniffQueryResult } from './sniff-query.js';
import { LOKI_LABELS, linePrefixOf, skipLinePrefix } from '../../util/line-prefix.js';
import { NODE_COMMANDS, PROMPT_HEAD } from '../../util/prompt.js';
import { exportEntry } from '../../parse/export-entry.js';

export interface Sniffed {
  role: Role;
  format: string;
}

/** Formats that mark a file as unusable rather than as a kind of log. */
/** Formats of container listings (`crictl pods`, `crictl ps -a`, `docker ps -a`): role `other`, but read (parseAs). */
export function isContainerList(format: string): boolean {
  return /^(?:crictl-pods|crictl-ps|docker-ps)$/.test(format);
}

export const PROBLEM_FORMATS: ReadonlySet<string> = new Set([
  'empty', 'binary', 'journal-binary', 'archive', 'encrypted', 'compressed', 'unreadable',
]);

const SAMPLE_LINES = 50;
/** Bytes inspected for binary detection; enough to judge, cheap on a 64 KiB head. */
const BINARY_WINDOW = 16 * 1024;
/** Bytes the slow path of looksBinary has to judge: controls other than TAB LF VT FF CR BS ESC, DEL, and non-ASCII. */
// oxlint-disable-next-line no-control-regex -- control bytes are what it looks for
const SUSPECT = /[\x00-\x07\x0e-\x1a\x1c-\x1f\x7f-\xff]/;

const MONTHS = 'Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec';
const WEEKDAYS = 'Mon|Tue|Wed|Thu|Fri|Sat|Sun';
// host ident[pid]: payload — ident without pid covers rsyslog files and `kernel:` lines.
// The host field is optional: pasted or locally written syslog lines may lack it (`kubelet[1234]: …`).
const SYSLOG_TAIL = String.raw`(?:(\S+) )?([^\s\[\]:]+)(?:\[\d+\])?:(?: (.*))?$`;
const ZONE = String.raw`(?:Z|[+-]\d\d:?\d\d)`;

const RE_SHORT = new RegExp(String.raw`^(?:${MONTHS}) (?:\d\d| \d) \d\d:\d\d:\d\d ${SYSLOG_TAIL}`);
const RE_SHORT_PRECISE = new RegExp(String.raw`^(?:${MONTHS}) (?:\d\d| \d) \d\d:\d\d:\d\d\.\d{1,9} ${SYSLOG_TAIL}`);
const RE_SHORT_ISO = new RegExp(String.raw`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d${ZONE} ${SYSLOG_TAIL}`);
const RE_SHORT_ISO_PRECISE = new RegExp(String.raw`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{1,9}${ZONE} ${SYSLOG_TAIL}`);
// journalctl -o short-monotonic: `[ 5123.456789] host ident[pid]: payload` (a dmesg stamp, then a journal line's tail).
const RE_SHORT_MONO = /^\[ *\d+\.\d+\] (\S+) ([^\s[\]:]+)\[\d+\]:(?: (.*))?$/;
const RE_CRI = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d) (?:stdout|stderr) [FP](?: (.*))?$/;
// supervisord's log: `2016-02-29 18:36:57,354 INFO exited: kubelet (exit status 2; expected)`.
const RE_SUPERVISORD = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (?:INFO|WARN|CRIT|ERRO|DEBG|TRAC|BLAT) (.*)$/;
const RE_RFC3339 = new RegExp(String.raw`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?${ZONE} (.*)$`);
const RE_STREAM_NAME = /^[\w./@:-]{1,128} (?=[IWEF]\d{4} \d\d:|\{"|time="|level=)/;
const RE_KLOG = /^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ [^ \]]+:\d+\](?: |$)/;
const RE_LOGRUS = /^time="[^"]*" level=[a-zA-Z]+(?: |$)/;
const RE_DMESG = /^(?:<\d{1,3}>)?\[ *\d+\.\d+\](?: |$)/;
const RE_DMESG_T = new RegExp(String.raw`^\[(?:${WEEKDAYS}) (?:${MONTHS}) [ \d]\d \d\d:\d\d:\d\d \d{4}\](?: |$)`);
const RE_PROM_META = /^# (?:HELP|TYPE|UNIT) [a-zA-Z_:][a-zA-Z0-9_:]*(?: |$)|^# EOF\s*$/;
// The text format has no trailing comments; ` # {…}` is an OpenMetrics exemplar. Names need a `_` or labels:
// real series have them, while `name number` tables (/etc/rpc, /etc/ethertypes) mostly do not.
const RE_PROM_SAMPLE =
  /^(?:[a-zA-Z:][a-zA-Z0-9:]*_[a-zA-Z0-9_:]*|_[a-zA-Z0-9_:]*|[a-zA-Z_:][a-zA-Z0-9_:]*(?=\{))(?:\{.*\})?[ \t]+[-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|NaN|Inf|inf)(?:[ \t]+-?\d+(?:\.\d+)?)?(?:[ \t]+#[ \t]+\{.*)?$/;
// A dump's lines may carry a journal or time prefix (a dump written to the journal, pasted with `HH:MM:SS kubelet[pid]:`)
// and may have lost their indentation: the shapes are looked for after any such prefix.
const RE_GOROUTINE = /(?:^|[\s:])goroutine \d+ \[[^\]]*\]:\s*$/;
const RE_GOROUTINE_PROFILE = /^goroutine profile: total \d+\s*$/;
const RE_STACK_FRAME = /(?:^|\s)(?:\S+\.(?:go|s):\d+(?: \+0x[0-9a-f]+)?(?: fp=\S+ sp=\S+(?: pc=\S+)?)?\s*$|created by |[\w.\-/*()[\]{}]+\(.*\)\s*$|\.\.\.additional frames elided\.\.\.|#\s+0x[0-9a-f]+\s)/;
/** A Go call frame of a debug=2 trace (`k8s.io/kubernetes/pkg/kubelet/pleg.(*GenericPLEG).relist(0xc42069ea20)`,
 *  `syscall.Syscall(0x0, …)`): a package path or a standard package, a function, its arguments. */
const RE_GO_CALL = /^\s*(?:[\w.-]+\/[\w./-]*|(?:syscall|sync|os|runtime|internal\/\w+|net|io|bufio|time|context)\b)[\w/-]*\.(?:\(\*?[\w.]+\)\.)?[\w.-]+(?:\([^()]*\)[\w.-]*)*\((?:0x[0-9a-f]+|\.\.\.|\{[^}]*\}|[0-9a-fx]+)?(?:, ?(?:0x[0-9a-f]+|\.\.\.|\{[^}]*\}|[0-9a-fx]+))*\)\s*$/;
/** A frame's source position (`\t/usr/local/go/src/os/stat.go:13 +0x4d`, `GOROOT/src/runtime/panic.go:774 +0x72 fp=…`). */
const RE_GO_FILE = /^\s*\S+\.(?:go|s):\d+(?: \+0x[0-9a-f]+)?(?: fp=\S+ sp=\S+(?: pc=\S+)?)?\s*$/;
const RE_DEBUG1_FRAME = /^\s*#\s+0x[0-9a-f]+\s+\S+\+0x[0-9a-f]+\s/;
// journalctl's own lines: headers, boot separators, "no entries".
const RE_JOURNAL_NOTE = /^-- (?:Logs begin at|Journal begins at|Reboot|Boot |No entries|Journal started|Journal ends)|^-- .* --\s*$/;

// Kubelet-specific text (the brief's list): never a list of journal identifiers, which vary by distro.
const RE_KUBELET_TEXT = /kubelet|kuberuntime|pleg|generic\.go|remote_runtime\.go/i;
/** The kubelet's own journal identifiers (the binaries that run it: k3s, rke2, OpenShift 3's node, MicroK8s' kubelite). */
const RE_KUBELET_IDENT = /^(?:kubelet|kubenswrapper|hyperkube|k3s|k3s-agent|k3s-server|rke2|rke2-agent|rke2-server|atomic-openshift-node|origin-node|kubelite)$/;
const RE_KUBELET_UNIT = /\b(?:kubelet|k3s|k3s-agent|rke2-server|rke2-agent|atomic-openshift-node|origin-node)\.service\b|Lightweight Kubernetes|Kubernetes Kubelet|kubelet: The Kubernetes Node Agent/;
/** Who restarts runtimes when a check fails (GKE's health-monitor.sh units, node-problem-detector). */
const RE_RUNTIME_KEEPER = /^(?:health-monitor\.sh|kube-container-runtime-monitor|kubelet-monitor|node-problem-detector|health-checker)$/;
const RE_RUNTIME_UNIT = /\b(?:containerd|docker|crio|cri-o)(?:\.service)?\b/i;
const RE_RUNTIME_IDENT = /^(?:dockerd(?:-current)?|docker(?:-containerd(?:-current)?)?|containerd(?:-shim\S*)?|(?:snap\.)?microk8s\.daemon-containerd|crio|cri-o|conmon|runc)$/;

type Envelope =
  | 'journal-short' | 'journal-short-precise' | 'journal-short-iso' | 'journal-short-iso-precise' | 'journal-short-monotonic' | 'journal-json' | 'export-json'
  | 'klog' | 'json-log' | 'cri-log' | 'docker-json-log' | 'rfc3339-prefixed' | 'logrus' | 'dmesg' | 'dmesg-T' | 'prom' | 'supervisord';

type Family = 'journal' | 'wrapped' | 'klog' | 'json-log' | 'logrus' | 'kernel' | 'prom';

const FAMILY: Record<Envelope, Family> = {
  'journal-short': 'journal', 'journal-short-precise': 'journal', 'journal-short-iso': 'journal',
  'journal-short-iso-precise': 'journal', 'journal-short-monotonic': 'journal', 'journal-json': 'journal', 'export-json': 'journal', klog: 'klog', 'json-log': 'json-log',
  'cri-log': 'wrapped', 'docker-json-log': 'wrapped', 'rfc3339-prefixed': 'wrapped', logrus: 'logrus',
  dmesg: 'kernel', 'dmesg-T': 'kernel', prom: 'prom', supervisord: 'journal',
};

interface LineInfo {
  env: Envelope;
  /** The message inside the envelope, when there is one. */
  payload?: string;
  ident?: string;
  kernel?: boolean;
  promMeta?: boolean;
}

export function sniff(head: Buffer, name: string): Sniffed {
  if (head.length === 0) return other('empty');
  const magic = magicFormat(head);
  if (magic) return other(magic);
  if (looksBinary(head)) return other('binary');

  // A NUL block (crash padding) ends where writing resumed, so it stands for a line break.
  // oxlint-disable-next-line no-control-regex -- NUL runs are exactly what this replaces
  const text = head.toString('utf8').replace(/^\uFEFF/, '').replace(/\0+/g, '\n');
  if (text.startsWith('-----BEGIN PGP MESSAGE-----')) return other('encrypted');
  const lines = splitLines(text);
  // Logs pasted into an issue or a ticket often carry a common indentation: look at them without it.
  const raw = lines.filter((l) => l.trim() !== '');
  const indent = Math.min(...raw.map((l) => /^[ \t]*/.exec(l)?.[0].length ?? 0));
  const unindented = (indent > 0 ? raw.map((l) => l.slice(indent)) : raw).filter((l) => !RE_JOURNAL_NOTE.test(l));
  if (unindented.length === 0) return other('empty');
  // `grep` / `cat -n` output: the lines it shows, without the file names and numbers it put before them.
  const prefix = linePrefixOf((unindented[0] as string).replace(/^[>`\s]+/, ''));
  const content = prefix ? unindented.map((l) => l.slice(skipLinePrefix(l, l.length - l.replace(/^[>`\s]+/, '').length, prefix))) : unindented;
  const query = sniffQueryResult(text, content); if (query) return query;

  const table = containerTable(content[0] as string);
  if (table) return other(table);
  const markup = reportOrMarkup(content[0] as string);
  if (markup) return other(markup);
  const doc = k8sDocument(text, content);
  if (doc) return doc;
  const sample = content.slice(0, SAMPLE_LINES);
  if (isGoroutineDump(sample)) return { role: 'goroutine-dump', format: 'goroutine-dump' };
  const describe = describeDocument(content);
  if (describe) return describe;

  const env = pickEnvelope(sample);
  if (!env) return ticketDocument(content) ?? other('other');
  const family = FAMILY[env];
  if (family === 'prom') return { role: 'metrics', format: isOpenMetrics(text) ? 'openmetrics' : 'prometheus-text' };
  if (family === 'kernel') return { role: 'kernel-log', format: env };
  if (family === 'klog' || family === 'json-log') return { role: 'kubelet-log', format: env };
  if (family === 'logrus') return { role: 'runtime-log', format: env };
  // Role evidence comes from every line of the head, not only the sample: a kubelet line may sit behind
  // a screenful of systemd or kernel lines.
  const infos: LineInfo[] = [];
  for (const line of content) {
    const info = classify(line);
    if (info && FAMILY[info.env] === family) infos.push(info);
  }
  return { role: family === 'journal' ? journalRole(infos) : wrappedRole(infos, name), format: env };
}

/** plegscope's own reports (a run's `-o` output left in the folder analyzed next) and XML/HTML: never read as logs,
 *  though they quote log lines. */
function reportOrMarkup(first: string): string | null {
  if (/^plegscope \d+\.\d+\.\d+ [—·]|^# plegscope report\s*$/.test(first)) return 'plegscope-report';
  if (/^\s*<(?:\?xml|!DOCTYPE|html|testsuites?)\b/i.test(first)) return 'markup';
  return null;
}

// `crictl pods`, `crictl ps -a`, `docker ps -a`: no role of their own, but counted (parse/container-list.ts).
function containerTable(first: string): string | null {
  if (/^POD ID\s+CREATED\s+STATE\s+NAME\s+NAMESPACE\b/.test(first)) return 'crictl-pods';
  if (/^CONTAINER(?: ID)?\s+IMAGE\s+CREATED\s+STATE\s+NAME\s+ATTEMPT\b/.test(first)) return 'crictl-ps';
  if (/^CONTAINER ID\s+IMAGE\s+COMMAND\s+CREATED\s+STATUS\b/.test(first)) return 'docker-ps';
  return null;
}

function other(format: string): Sniffed {
  return { role: 'other', format };
}

/** Content that is a known container of something else, never text. */
function magicFormat(b: Buffer): string | null {
  if (startsWith(b, 'LPKSHHRH')) return 'journal-binary';
  if (compressedKind(b)) return 'compressed';
  if (b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && (b[2] === 3 || b[2] === 5 || b[2] === 7) && b[3] === b[2] + 1) {
    return 'archive';
  }
  if (b.length >= 262 && b.toString('latin1', 257, 262) === 'ustar') return 'archive';
  if (startsWithBytes(b, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]) || startsWith(b, 'Rar!\x1a\x07')) return 'archive';
  if (looksOpenPgp(b)) return 'encrypted';
  return null;
}

/** Compression found inside content (nested, or a method plegscope does not decode). */
export function compressedKind(b: Buffer): string | null {
  if (b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b) return 'gzip';
  if (startsWithBytes(b, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])) return 'xz';
  if (b.length >= 4 && startsWith(b, 'BZh') && (b[3] as number) >= 0x31 && (b[3] as number) <= 0x39) return 'bzip2';
  if (startsWithBytes(b, [0x28, 0xb5, 0x2f, 0xfd])) return 'zstd';
  if (startsWithBytes(b, [0x04, 0x22, 0x4d, 0x18])) return 'lz4';
  return null;
}

function startsWith(b: Buffer, s: string): boolean {
  return b.length >= s.length && b.toString('latin1', 0, s.length) === s;
}

function startsWithBytes(b: Buffer, bytes: number[]): boolean {
  return b.length >= bytes.length && bytes.every((v, i) => b[i] === v);
}

/** Binary OpenPGP: a public-key or symmetric session-key packet first (what `gpg -e` / `gpg -c` write). */
function looksOpenPgp(b: Buffer): boolean {
  // The packet header first (a text file never starts with a byte of 0x80 or more), the binary test only then.
  return b.length >= 4 && openPgpHeader(b) && looksBinary(b);
}

function openPgpHeader(b: Buffer): boolean {
  const tag = b[0] as number;
  if ((tag & 0xc0) === 0x80) {
    // Old format: tag in bits 5..2, length type in bits 1..0.
    const packet = (tag >> 2) & 0x0f;
    const lenBytes = [1, 2, 4, 0][tag & 3] as number;
    const version = b[1 + lenBytes];
    return (packet === 1 && version === 3) || (packet === 3 && (version === 4 || version === 5));
  }
  if ((tag & 0xc0) === 0xc0) {
    const packet = tag & 0x3f;
    const first = b[1] as number;
    const version = first < 192 ? b[2] : first < 224 ? b[3] : undefined;
    return (packet === 1 && (version === 3 || version === 6)) || (packet === 3 && (version === 4 || version === 5 || version === 6));
  }
  return false;
}

/**
 * NULs, C0 controls and invalid UTF-8 are counted; a long NUL run is not (a log after a crash often holds a
 * block of zeros and is still a log). Binary when more than a tenth of what is left is bad.
 */
export function looksBinary(head: Buffer): boolean {
  const n = Math.min(head.length, BINARY_WINDOW);
  // Plain ASCII text without stray controls (nearly every file of a bundle): one native regex pass decides.
  if (n > 0 && !SUSPECT.test(head.toString('latin1', 0, n))) return false;
  let bad = 0;
  let counted = 0;
  let i = 0;
  while (i < n) {
    const c = head[i] as number;
    if (c === 0) {
      let j = i;
      while (j < n && head[j] === 0) j++;
      if (j - i < 16) {
        bad += j - i;
        counted += j - i;
      }
      i = j;
      continue;
    }
    counted++;
    if (c < 0x80) {
      // TAB LF VT FF CR, BS and ESC (colour codes) occur in real logs.
      if ((c < 0x20 && c !== 9 && c !== 10 && c !== 11 && c !== 12 && c !== 13 && c !== 8 && c !== 27) || c === 0x7f) bad++;
      i++;
      continue;
    }
    const need = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    if (need < 0) {
      bad++;
      i++;
      continue;
    }
    if (i + need >= n) break; // cut at the window edge, not invalid
    let ok = true;
    for (let k = 1; k <= need; k++) {
      const cc = head[i + k] as number;
      if (cc < 0x80 || cc > 0xbf) ok = false;
    }
    if (ok) {
      counted += need;
      i += need + 1;
    } else {
      bad++;
      i++;
    }
  }
  return counted === 0 || bad / counted > 0.1;
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  // The head usually ends mid-line; that fragment would only add noise.
  if (lines.length > 1 && !text.endsWith('\n')) lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

function classify(line: string): LineInfo | null {
  const c0 = line.charCodeAt(0);
  if (c0 === 0x7b /* { */) return classifyJson(line);
  let m: RegExpExecArray | null;
  if (c0 >= 0x30 && c0 <= 0x39) {
    if ((m = RE_CRI.exec(line))) return { env: 'cri-log', payload: m[1] ?? '' };
    if ((m = RE_SHORT_ISO_PRECISE.exec(line))) return journal('journal-short-iso-precise', m);
    if ((m = RE_SHORT_ISO.exec(line))) return journal('journal-short-iso', m);
    // Loki's logcli puts the stream's labels before the line: `… {host="w3", unit="kubelet.service"} E0311 …`.
    // `aws logs tail` puts the log stream's name there: `… i-0abc/kubelet E0311 …`.
    if ((m = RE_SUPERVISORD.exec(line))) return { env: 'supervisord', payload: m[1] ?? '' };
    if ((m = RE_RFC3339.exec(line))) return { env: 'rfc3339-prefixed', payload: (m[1] ?? '').replace(LOKI_LABELS, '').replace(RE_STREAM_NAME, '') };
    return null;
  }
  if ((m = RE_SHORT.exec(line))) return journal('journal-short', m);
  if ((m = RE_SHORT_PRECISE.exec(line))) return journal('journal-short-precise', m);
  if (RE_KLOG.test(line)) return { env: 'klog', payload: line };
  if (RE_LOGRUS.test(line)) return { env: 'logrus', payload: line };
  if ((m = RE_SHORT_MONO.exec(line))) return journal('journal-short-monotonic', m);
  if (RE_DMESG.test(line)) return { env: 'dmesg' };
  if (RE_DMESG_T.test(line)) return { env: 'dmesg-T' };
  if (RE_PROM_META.test(line)) return { env: 'prom', promMeta: true };
  if (c0 !== 0x23 /* # */ && RE_PROM_SAMPLE.test(line)) return { env: 'prom' };
  return null;
}

function journal(env: Envelope, m: RegExpExecArray): LineInfo {
  const ident = m[2] ?? '';
  return { env, ident, payload: m[3] ?? '', kernel: ident === 'kernel' };
}

function classifyJson(line: string): LineInfo | null {
  const t = line.trimEnd();
  if (!t.endsWith('}')) return null;
  let o: unknown;
  try {
    o = JSON.parse(t);
  } catch {
    return null;
  }
  if (!o || typeof o !== 'object' || Array.isArray(o)) return null;
  const r = o as Record<string, unknown>;
  // A cloud or log-store export's entry (exports.ts): read as the journal JSON line it stands for.
  const x = exportEntry(r);
  if (x) return { env: 'export-json', ident: x.ident ?? '', payload: x.message, kernel: x.ident === 'kernel' };
  if (typeof r.log === 'string' && ('stream' in r || 'time' in r)) return { env: 'docker-json-log', payload: r.log };
  if ('__REALTIME_TIMESTAMP' in r || ('MESSAGE' in r && ('_HOSTNAME' in r || 'SYSLOG_IDENTIFIER' in r || '__CURSOR' in r))) {
    const ident = typeof r.SYSLOG_IDENTIFIER === 'string' ? r.SYSLOG_IDENTIFIER : typeof r._COMM === 'string' ? r._COMM : '';
    return { env: 'journal-json', ident, payload: journalMessage(r.MESSAGE), kernel: r._TRANSPORT === 'kernel' || ident === 'kernel' };
  }
  if ((typeof r.ts === 'number' || typeof r.ts === 'string') && typeof r.msg === 'string') return { env: 'json-log', payload: t };
  return null;
}

/** journald writes MESSAGE as a byte array when it is not valid UTF-8. */
function journalMessage(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'number')) return Buffer.from(v as number[]).toString('utf8');
  return '';
}

function isKubeletJson(payload: string): boolean {
  return payload.startsWith('{') && /"ts":\s*[\d"]/.test(payload) && /"msg":/.test(payload);
}

function pickEnvelope(sample: string[]): Envelope | null {
  const counts = new Map<Envelope, number>();
  let counted = 0;
  let promMeta = 0;
  for (const line of sample) {
    // Continuation lines of multi-line entries (journal, klog `key=<`, stack traces) start with blanks.
    if (line.startsWith(' ') || line.startsWith('\t')) continue;
    counted++;
    const info = classify(line);
    if (!info) continue;
    counts.set(info.env, (counts.get(info.env) ?? 0) + 1);
    if (info.promMeta) promMeta++;
  }
  let best: Envelope | null = null;
  let bestCount = 0;
  for (const [env, n] of counts) {
    if (n > bestCount) {
      best = env;
      bestCount = n;
    }
  }
  // Tolerate a partial first line, deprecation notices printed before the first klog line, and the like.
  if (!best || bestCount < Math.max(1, Math.ceil(counted * 0.3))) return null;
  // A few `name value` lines are too weak alone to call a file metrics, unless they are a kubelet's own series.
  if (best === 'prom' && promMeta === 0 && bestCount < 3 && !sample.some((l) => /^kubelet_[a-z_]+(?:\{[^}]*\})?[ \t]+[-+]?[\d.]/.test(l))) return null;
  return best;
}

function journalRole(infos: LineInfo[]): Role {
  let kubelet = 0;
  let runtime = 0;
  let kernel = 0;
  for (const info of infos) {
    const payload = info.payload ?? '';
    const ident = info.ident ?? '';
    if (info.kernel) {
      // Kernel lines name the kubelet too (OOM kills, /var/lib/kubelet mounts): they are not kubelet lines.
      kernel++;
    } else if (RE_RUNTIME_IDENT.test(ident) || RE_LOGRUS.test(payload)) {
      // Runtimes log kubelet paths and pod names; only a kubelet-shaped line under such an identifier counts.
      if ((RE_KLOG.test(payload) || isKubeletJson(payload)) && RE_KUBELET_TEXT.test(payload)) kubelet++;
      else runtime++;
    } else if (RE_KLOG.test(payload) || isKubeletJson(payload) || RE_KUBELET_TEXT.test(payload) || RE_KUBELET_IDENT.test(ident)
      || (/^(?:systemd|init\.scope)$/.test(ident) && RE_KUBELET_UNIT.test(payload))) {
      // Whatever a kubelet's own journal identifier writes (a Go `fatal error:`, a CNI config it dumps) is the kubelet's;
      // so is systemd starting or stopping its unit.
      kubelet++;
    } else if (RE_RUNTIME_KEEPER.test(ident) || (/^(?:systemd|init\.scope)$/.test(ident) && RE_RUNTIME_UNIT.test(payload))) {
      // systemd starting or killing a runtime unit, a health monitor restarting it: the runtime's story.
      runtime++;
    }
  }
  if (kubelet > 0) return 'kubelet-log';
  if (runtime > 0) return 'runtime-log';
  if (kernel > 0) return 'kernel-log';
  return 'other';
}

/** Container log envelopes wrap any component's output: demand kubelet text, not just a klog header. */
function wrappedRole(infos: LineInfo[], name: string): Role {
  let kubelet = 0;
  let kubeletShaped = 0;
  let runtime = 0;
  for (const info of infos) {
    const payload = info.payload ?? '';
    const shaped = RE_KLOG.test(payload) || isKubeletJson(payload);
    if (shaped && RE_KUBELET_TEXT.test(payload)) kubelet++;
    else if (shaped) kubeletShaped++;
    else if (RE_LOGRUS.test(payload)) runtime++;
  }
  if (kubelet > 0) return 'kubelet-log';
  if (runtime > 0) return 'runtime-log';
  if (kubeletShaped > 0 && /kubelet/i.test(name)) return 'kubelet-log';
  return 'other';
}

// `kubectl describe node` (any kubectl since 1.5: aligned or tab-separated columns, with or without the header rows),
// and `kubectl get events`: the conditions and events tables are what matter.
const RE_CONDITION_ROW = /^\s*[A-Z][A-Za-z0-9]+[ \t]+(?:True|False|Unknown)[ \t]+(?:[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d|<unknown>|\d{4}-\d\d-\d\dT)/;
const RE_CONDITIONS_HEAD = /^\s*Type\s+Status\s+LastHeartbeatTime\s+LastTransitionTime\s+Reason\s+Message\s*$/;
const RE_EVENTS_HEAD = /^\s*(?:Type\s+Reason\s+Age\s+From\s+Message|FirstSeen\s+LastSeen\s+Count\s+From\s+(?:SubObjectPath\s+)?Type\s+Reason\s+Message|LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+(?:SUBOBJECT\s+SOURCE\s+)?MESSAGE)\s*$/;
/** An Events row pasted without its table's header: `Warning  ContainerGCFailed  3m (x5 over 20m)  kubelet  rpc error: …`. */
const RE_EVENT_ROW = /^\s*(?:Normal|Warning)(?: {2,}|\t+)[A-Z][A-Za-z]+(?: {2,}|\t+)(?:<unknown>|\d+[smhd]|\d+m\d+s|\d+h\d+m)/;
const RE_DESCRIBE_KEY = /^(?:Name|Roles|Labels|Taints|Unschedulable|CreationTimestamp):\s/;

function describeDocument(content: string[]): Sniffed | null {
  if (content.some((l) => /^\s*NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\b/.test(l))) return { role: 'node-describe', format: 'kubectl-get-nodes' };
  if (conditionFragment(content)) return { role: 'node-describe', format: 'node-conditions' };
  let rows = 0;
  let heads = 0;
  let keys = 0;
  for (const line of content) {
    if (line.length > 2000) continue;
    if (RE_CONDITION_ROW.test(line) || RE_EVENT_ROW.test(line)) rows++;
    else if (RE_CONDITIONS_HEAD.test(line) || RE_EVENTS_HEAD.test(line) || /^\s*(?:Conditions|Events|System Info):\s*$/.test(line)) heads++;
    else if (RE_DESCRIBE_KEY.test(line)) keys++;
  }
  // A few of its top-level keys alone (`Name:  etkhub`, `Roles:  master`) are still a node's describe output.
  const lines = content.filter((l) => l.trim() !== '').length;
  if (rows + heads === 0 && keys > 0 && keys === lines && content.some((l) => /^Name:\s+\S/.test(l))) return { role: 'node-describe', format: 'kubectl-describe' };
  if (rows + heads === 0 || (heads === 0 && keys === 0 && rows < 1)) return null;
  return { role: 'node-describe', format: /^\s*LAST SEEN\s+TYPE/.test(content.find((l) => RE_EVENTS_HEAD.test(l)) ?? '') ? 'kubectl-events' : 'kubectl-describe' };
}

/** Node conditions pasted without their Node: a condition's type, status and one of its times or reason. */
function conditionFragment(content: string[]): boolean {
  const text = content.slice(0, 200).join('\n');
  // Keys that start their line (YAML, pretty-printed JSON) or a one-line JSON object: not a condition quoted in a log line.
  const key = (k: string) => new RegExp(`^\\s*(?:-\\s+|\\{\\s*)?"?${k}"?:|^\\s*\\{.*"${k}":`, 'm');
  return key('type').test(text) && /"?type"?:\s*"?Ready"?/.test(text) && key('status').test(text)
    && (key('lastHeartbeatTime').test(text) || key('lastTransitionTime').test(text) || key('reason').test(text))
    && !/^\s*"?kind"?:\s*"?Node"?/m.test(text) && !content.some((l) => RE_SHORT.test(l) || RE_KLOG.test(l) || /^\s*\{.*"(?:ts|msg|MESSAGE|log)":/.test(l));
}

// What a ticket carries besides logs: `/healthz?verbose` output, and transcripts of runtime and host commands
// (`crictl ps` failing, `docker info`, `containerd -v`, `time docker ps`, `uptime`).
const RE_HEALTHZ = /^\s*\[[+-]\][\w.-]+ (?:ok|failed)|^\s*healthz check (?:passed|failed)\s*$/;
const RE_PROMPT = new RegExp(String.raw`^\s*${PROMPT_HEAD}\s*(?:time\s+|sudo\s+)*${NODE_COMMANDS}\b`);
const RE_BARE_COMMAND = /^\s*(?:time\s+|sudo\s+)+(?:docker|crictl|ctr|nerdctl|podman)\s+\w/;
const RE_CLI_OUTPUT = /^\s*(?:(?:FATA|ERRO|WARN|INFO|DEBU)\[\d{4}\] |Server Version: \S|Containers: \d+\s*$|Storage Driver: \S|Cgroup Driver: \S|RuntimeName:\s+\S|RuntimeVersion:\s+\S|runc version \d|containerd (?:github\.com\/containerd\/containerd|containerd\.io) v?\d|Docker version \d|crio version \d|Kubernetes v\d|real\s+\d+m[\d.]+s\s*$|.*\bload average: [\d.]+)/;

function ticketDocument(content: string[]): Sniffed | null {
  let healthz = 0;
  let cli = 0;
  for (const line of content) {
    if (line.length > 2000) continue;
    if (RE_HEALTHZ.test(line)) healthz++;
    else if (RE_PROMPT.test(line) || RE_BARE_COMMAND.test(line) || RE_CLI_OUTPUT.test(line)) cli++;
  }
  if (healthz > 0 && healthz >= cli) return { role: 'healthz', format: 'healthz' };
  if (cli > 0) return { role: 'cli-output', format: 'cli-transcript' };
  return null;
}

function isGoroutineDump(sample: string[]): boolean {
  if (sample[0] !== undefined && RE_GOROUTINE_PROFILE.test(sample[0])) return true;
  let headers = 0;
  let frames = 0;
  let debug1 = 0;
  let goFrames = 0;
  let lines = 0;
  for (const line of sample) {
    if (line.trim() !== '') lines++;
    if (line.length <= 2000 && (RE_GO_CALL.test(line) || RE_GO_FILE.test(line))) goFrames++;
    // Frames are short; a long line is not one (and would make the frame pattern slow).
    if (line.length > 2000) continue;
    if (RE_GOROUTINE.test(line)) headers++;
    else if (RE_STACK_FRAME.test(line)) {
      frames++;
      if (RE_DEBUG1_FRAME.test(line)) debug1++;
    }
  }
  // A pprof debug=1 dump cut by `grep -C` has no header: its `#\t0x…` frames say what it is.
  // A few frames pasted without their goroutine's header (a stack quoted in a ticket): every line a Go frame.
  if (headers === 0 && lines > 0 && goFrames + debug1 === lines) return true;
  return (headers > 0 || debug1 >= 3) && headers + frames >= sample.length * 0.6;
}

function isOpenMetrics(text: string): boolean {
  return (
    /^# EOF\s*$/m.test(text) ||
    /^# UNIT /m.test(text) ||
    /^# TYPE \S+ (?:gaugehistogram|stateset|info|unknown)\s*$/m.test(text) ||
    /^[a-zA-Z_:][^#\n]* # \{/m.test(text)
  );
}

/**
 * A Kubernetes object document (kubectl -o yaml/json, must-gather). Only Node objects have a role; other
 * objects are named yaml/json so a later stage can still find them.
 */
function k8sDocument(text: string, content: string[]): Sniffed | null {
  const first = content[0] ?? '';
  if (first.startsWith('{') || first.startsWith('[')) return jsonDocument(text);
  const firstKey = content.find((l) => !l.startsWith('#') && l.trim() !== '---');
  if (!firstKey || !/^[A-Za-z_][\w.-]*:(?: |$)/.test(firstKey)) return null;
  if (/^kind: ?['"]?Node(?:List)?['"]?\s*$/m.test(text)) return { role: 'node-object', format: 'yaml' };
  // `kubectl get nodes -o yaml`: the list's own `kind: List` comes after the items, past a short head.
  if (/^items:\s*$/m.test(text) && /^(?:- | {2})kind: ?['"]?Node['"]?\s*$/m.test(text)) return { role: 'node-object', format: 'yaml' };
  if (/^apiVersion: \S/m.test(text) && /^kind: \S/m.test(text)) return other('yaml');
  if (/^items:\s*$/m.test(text) && /^- apiVersion: \S/m.test(text)) return other('yaml');
  return null;
}

function jsonDocument(text: string): Sniffed | null {
  let parsed: unknown;
  let ok = false;
  try {
    parsed = JSON.parse(text);
    ok = true;
  } catch {
    ok = false;
  }
  if (ok) {
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
    const o = parsed as Record<string, unknown>;
    if (o.kind === 'Node') return { role: 'node-object', format: 'json' };
    if ((o.kind === 'NodeList' || o.kind === 'List') && Array.isArray(o.items) &&
        o.items.some((i) => !!i && typeof i === 'object' && (i as Record<string, unknown>).kind === 'Node')) {
      return { role: 'node-object', format: 'json' };
    }
    if (typeof o.kind === 'string' && typeof o.apiVersion === 'string') return other('json');
    // A JSON log of one line (kubelet JSON logging, a journal export, docker's json-file) is a log; any other JSON
    // document (a report, a map, a config) is data, though it may quote log lines.
    if (/\n\s*\S/.test(text.trim()) || !('msg' in o || 'MESSAGE' in o || 'log' in o || exportEntry(o) !== null)) return other('json');
    return null;
  }
  // A head cut inside a pretty-printed object: judge by the indentation kubectl uses (4 spaces per level).
  if (!/^\{\s*$/.test(text.split('\n', 1)[0] ?? '')) return null;
  if (/^ {0,4}"kind": ?"Node(?:List)?",?\s*$/m.test(text)) return { role: 'node-object', format: 'json' };
  if (/^ {4}"items": \[/m.test(text) && /^ {12}"kind": ?"Node",?\s*$/m.test(text)) return { role: 'node-object', format: 'json' };
  if (/^ {0,4}"apiVersion": ?"/m.test(text)) return other('json');
  return null;
}
