// What people paste of the commands they ran on the node: crictl/docker/ctr calls and their output (a failure, a
// table, `info`, `version`), version commands, `time` of a command, `uptime`. A transcript is cut into commands at
// prompt lines (`[root@node7 ~]# crictl ps`, `$ containerd -v`, `# docker info`) or bare `time docker ps` lines; each
// output line is read by its shape, whatever command the transcript says it came from.
//
//   [root@node7 ~]# crictl ps
//   FATA[0002] validate service connection: validate CRI v1 runtime API for endpoint "unix:///var/run/crio/crio.sock": rpc error: code = DeadlineExceeded desc = context deadline exceeded
//   time docker ps
//   real	0m0.040s
//   $ containerd -v
//   containerd github.com/containerd/containerd 1.6.6 10c12954828e7c7c9b6e0ea9b0c02b01407d3ae1
//   runc version 1.1.4
//   Docker version 20.10.17, build 100c701
//   # docker info
//   Containers: 105
//   Running: 101
//   Stopped: 4
//   Server Version: 18.03.1-ce
//   Kernel Version: 3.10.0-693.11.6.el7.x86_64
//    07:31:31 up 8 days, 15:01,  1 user,  load average: 0.76, 0.77, 0.73
import { countContainers, listKind, type ContainerCounts } from './container-list.js';
import { PROMPT_HEAD } from '../util/prompt.js';

export type CliComponent = 'kubelet' | 'docker' | 'containerd' | 'cri-o' | 'runc' | 'kernel' | 'os';
export type CliOutcome = 'ok' | 'timeout' | 'unavailable' | 'size-limit' | 'error' | 'hung';

export interface CliLine {
  line: number;
  text: string;
}

export interface CliResult extends CliLine {
  tool: string;
  command: string | null;
  outcome: CliOutcome;
  /** Wall time of the command when the transcript shows it (`time …` → `real 0m0.040s`). */
  seconds: number | null;
  detail: string;
}

export interface CliOutput {
  commands: Array<CliLine & { command: string }>;
  versions: Array<CliLine & { component: CliComponent; version: string }>;
  results: CliResult[];
  /** `docker info` container counts, or a container table in the transcript. */
  containers: (ContainerCounts & { ref: CliLine }) | null;
  /** crictl info: a runtime condition that is not true. */
  conditions: Array<CliLine & { type: string; reason: string | null; message: string | null }>;
  load: (CliLine & { one: number; five: number; fifteen: number }) | null;
  /** Lines read as the transcript's own (prompts, outputs): the others (log lines pasted with it) are left to the log
   *  reader. */
  consumed: Set<number>;
}

/** `docker info` prints the commit of the runc it bundles: the release commits (from `git describe` in
 *  opencontainers/runc) say which release it is. A commit between releases is named after the one before it. */
const RUNC_COMMITS: Record<string, string> = {
  '3f2f8b84': '1.0.0-rc4', b2567b37: '1.0.0-rc4', '9f9c9623': '1.0.0-rc5', '4fc53a81': '1.0.0-rc5', '69663f0b': '1.0.0-rc5',
  '96ec2177': '1.0.0-rc6', ff819c7e: '1.0.0-rc92', '12644e61': '1.0.0-rc93', '2c7861bc': '1.0.0-rc94', b9ee9c63: '1.0.0-rc95',
};

/** What starts a log line: a journal or ISO time, a klog header, a logrus time. */
const LOG_LINE = /^(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d|\d{4}-\d\d-\d\d[T ]\d\d:\d\d|[IWEF]\d{4} \d\d:\d\d:\d\d\.\d|time="|\d\d:\d\d:\d\d\.\d+ +\d+ )/;

const PROMPT = new RegExp(String.raw`^\s*${PROMPT_HEAD}\s+(\S.*)$`);
const BARE = /^\s*((?:time\s+|sudo\s+)+(?:docker|crictl|ctr|nerdctl|podman)\s+.*)$/;
const CLI_LOG = /^(FATA|ERRO|WARN|INFO|DEBU)\[\d{4}\] (.*)$/;
const TOOLS = /^(?:time\s+|sudo\s+|timeout\s+\S+\s+)*(\S+)/;

function toolOf(command: string | null): string {
  if (!command) return 'unknown';
  const t = TOOLS.exec(command)?.[1] ?? 'unknown';
  return t.replace(/^.*\//, '');
}

/** How a failed command went, from its message. */
export function outcomeOf(msg: string): CliOutcome {
  if (/DeadlineExceeded|deadline exceeded|code = 4\b|timed? ?out/i.test(msg)) return 'timeout';
  if (/larger than max|ResourceExhausted/.test(msg)) return 'size-limit';
  if (/connection refused|no such file or directory|Unavailable|Cannot connect to the Docker daemon|Is the docker daemon running/.test(msg)) return 'unavailable';
  return 'error';
}

function goDuration(s: string): number | null {
  const m = /^(\d+)m([\d.]+)s$/.exec(s.trim());
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

export function parseCliOutput(text: string): CliOutput {
  const out: CliOutput = { commands: [], versions: [], results: [], containers: null, conditions: [], load: null, consumed: new Set() };
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  let command: string | null = null;
  let commandLine = 0;
  let failed = false;
  let section = '';
  let table: { start: number; rows: string[] } | null = null;
  const info: Record<string, { value: string; ref: CliLine }> = {};
  const flushTable = (): void => {
    if (!table) return;
    const counts = countContainers(table.rows.join('\n'));
    if (counts && !out.containers) out.containers = { ...counts, ref: { line: table.start, text: lines[table.start - 1] ?? '' } };
    table = null;
  };
  const version = (line: number, text: string, component: CliComponent, v: string): void => {
    out.versions.push({ line, text, component, version: v.replace(/^v(?=\d)/, '') });
  };
  let json: { start: number; text: string[]; depth: number } | null = null;

  lines.forEach((raw, k) => {
    const lineNo = k + 1;
    const t = raw.trim();
    // A log line pasted into the transcript (`journalctl … | tail` output) is the log reader's.
    if (LOG_LINE.test(t)) return;
    out.consumed.add(lineNo);
    if (json) {
      json.text.push(raw);
      json.depth += (raw.match(/[{[]/g)?.length ?? 0) - (raw.match(/[}\]]/g)?.length ?? 0);
      if (json.depth <= 0) {
        readCrictlInfo(json.text.join('\n'), json.start, lines, out);
        json = null;
      }
      return;
    }
    const prompt = PROMPT.exec(raw) ?? BARE.exec(raw);
    if (prompt && !CLI_LOG.test(t)) {
      flushTable();
      command = (prompt[1] as string).trim();
      commandLine = lineNo;
      failed = false;
      section = '';
      out.commands.push({ line: lineNo, text: raw, command });
      return;
    }
    if (t === '') {
      flushTable();
      return;
    }
    if (table) {
      table.rows.push(raw);
      return;
    }
    if (listKind(raw)) {
      table = { start: lineNo, rows: [raw] };
      return;
    }
    if (t.startsWith('{') && /crictl\s+info|^\{$/.test(`${command ?? ''} ${t}`)) {
      json = { start: lineNo, text: [raw], depth: (raw.match(/[{[]/g)?.length ?? 0) - (raw.match(/[}\]]/g)?.length ?? 0) };
      if (json.depth <= 0) {
        readCrictlInfo(raw, lineNo, lines, out);
        json = null;
      }
      return;
    }
    const log = CLI_LOG.exec(t);
    if (log) {
      if (log[1] === 'FATA' || log[1] === 'ERRO') {
        failed = true;
        const msg = log[2] as string;
        out.results.push({ line: lineNo, text: raw, tool: command ? toolOf(command) : /CRI|crio|containerd\.sock|pod sandboxes/.test(msg) ? 'crictl' : 'unknown', command, outcome: outcomeOf(msg), seconds: null, detail: msg });
      }
      return;
    }
    const daemon = /^(?:Error response from daemon: (.*)|(Cannot connect to the Docker daemon.*)|(?:Error|error): (.*(?:deadline exceeded|connection refused|no such file or directory|larger than max).*))$/.exec(t);
    if (daemon) {
      failed = true;
      const msg = (daemon[1] ?? daemon[2] ?? daemon[3]) as string;
      out.results.push({ line: lineNo, text: raw, tool: toolOf(command) === 'unknown' ? 'docker' : toolOf(command), command, outcome: outcomeOf(msg), seconds: null, detail: msg });
      return;
    }
    if (t === '^C' || t === '^C^C') {
      failed = true;
      out.results.push({ line: lineNo, text: raw, tool: toolOf(command), command, outcome: 'hung', seconds: null, detail: 'interrupted by hand (^C): the command did not return' });
      return;
    }
    const real = /^real\s+(\d+m[\d.]+s)$/.exec(t);
    if (real) {
      const secs = goDuration(real[1] as string);
      const cmd = command;
      if (cmd && !failed) out.results.push({ line: lineNo, text: raw, tool: toolOf(cmd.replace(/^time\s+/, '')), command: cmd, outcome: 'ok', seconds: secs, detail: `returned in ${real[1]}` });
      return;
    }
    const load = /load average: ([\d.]+), ([\d.]+), ([\d.]+)/.exec(t);
    if (load) {
      out.load = { line: lineNo, text: raw, one: Number(load[1]), five: Number(load[2]), fifteen: Number(load[3]) };
      return;
    }
    let m: RegExpExecArray | null;
    if ((m = /^containerd (?:github\.com\/containerd\/containerd|containerd\.io) (v?\d+\.\d+\.\d+\S*)/.exec(t))) return version(lineNo, raw, 'containerd', m[1] as string);
    if ((m = /^runc version (\d+\.\d+\.\d+\S*)/.exec(t))) return version(lineNo, raw, 'runc', m[1] as string);
    if ((m = /^Docker version (\d+\.\d+\.\d+[^,\s]*)/.exec(t))) return version(lineNo, raw, 'docker', m[1] as string);
    if ((m = /^crio version (\d+\.\d+\.\d+\S*)/.exec(t))) return version(lineNo, raw, 'cri-o', m[1] as string);
    if ((m = /^Kubernetes (v\d+\.\d+\.\d+\S*)/.exec(t))) return version(lineNo, raw, 'kubelet', m[1] as string);
    if ((m = /^Linux \S+ (\d+\.\d+\.\d+\S*) #/.exec(t))) return version(lineNo, raw, 'kernel', m[1] as string);
    if (command && /^uname\s+-r\b/.test(command) && (m = /^(\d+\.\d+\.\d+\S*)$/.exec(t))) return version(lineNo, raw, 'kernel', m[1] as string);
    // `docker version` sections (`Server: Docker Engine`, ` containerd:`, ` runc:`) and `Key: value` lines.
    const kv = /^([A-Za-z][A-Za-z ./()-]*?):\s*(.*)$/.exec(t);
    if (!kv) {
      out.consumed.delete(lineNo);
      return;
    }
    const key = kv[1] as string;
    const value = (kv[2] as string).trim();
    if (value === '' || value.startsWith('Docker Engine')) {
      section = key.toLowerCase();
      return;
    }
    info[key] ??= { value, ref: { line: lineNo, text: raw } };
    if (key === 'Version') {
      const comp: CliComponent | null = section === 'containerd' ? 'containerd' : section === 'runc' ? 'runc' : section === 'server' || section.startsWith('server') ? 'docker'
        : command && /\bcrio\b/.test(command) ? 'cri-o' : null;
      if (comp && /^v?\d+\.\d+/.test(value)) version(lineNo, raw, comp, value);
      return;
    }
    if (key === 'Server Version' && /^\d+\.\d+/.test(value)) version(lineNo, raw, 'docker', value);
    else if (key === 'runc version' && RUNC_COMMITS[value.slice(0, 8)]) version(lineNo, raw, 'runc', RUNC_COMMITS[value.slice(0, 8)] as string);
    else if (key === 'Kernel Version' && /^\d+\.\d+/.test(value)) version(lineNo, raw, 'kernel', value);
    else if (key === 'Operating System' || key === 'OS Image') version(lineNo, raw, 'os', value);
    else if (key === 'RuntimeVersion' && /^v?\d+\.\d+/.test(value)) {
      const name = info['RuntimeName']?.value ?? '';
      const comp: CliComponent | null = /containerd/.test(name) ? 'containerd' : /cri-o|crio/.test(name) ? 'cri-o' : /docker/.test(name) ? 'docker' : null;
      if (comp) version(lineNo, raw, comp, value);
    }
  });
  flushTable();
  void commandLine;
  // `docker info` counts: Stopped are the exited containers that every list returns.
  const containers = info['Containers'];
  if (containers && /^\d+$/.test(containers.value) && !out.containers) {
    const num = (k: string): number | null => (info[k] && /^\d+$/.test(info[k].value) ? Number(info[k].value) : null);
    out.containers = {
      kind: 'docker-info', sandboxes: null, sandboxesReady: null, containers: Number(containers.value),
      running: num('Running'), exited: num('Stopped'), ref: info['Stopped']?.ref ?? containers.ref,
    };
  }
  return out;
}

/** `crictl info`: the runtime's own conditions (RuntimeReady, NetworkReady). */
function readCrictlInfo(text: string, start: number, lines: string[], out: CliOutput): void {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    return;
  }
  const conds = (o as { status?: { conditions?: unknown } })?.status?.conditions;
  if (!Array.isArray(conds)) return;
  for (const c of conds as Array<Record<string, unknown>>) {
    if (c['status'] === true || typeof c['type'] !== 'string') continue;
    // Cite the line that holds the condition's type.
    const idx = lines.findIndex((l, i) => i >= start - 1 && l.includes(`"${c['type'] as string}"`));
    const line = idx >= 0 ? idx + 1 : start;
    out.conditions.push({ line, text: lines[line - 1] ?? '', type: c['type'] as string, reason: typeof c['reason'] === 'string' ? c['reason'] : null, message: typeof c['message'] === 'string' ? c['message'] : null });
  }
}
