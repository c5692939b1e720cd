// `plegscope tui`: reads the input with a progress screen, then hands the analysis to the App. Owns the terminal for
// the session: alternate screen on entry, restored on every way out (quit, ctrl-c, error, exit).
import { writeSync } from 'node:fs';
import { analyze, type AnalysisRun, type AnalyzeOptions } from '../analyze.js';
import { setShowText } from './display.js';
import type { Analysis } from '../contract/analysis.js';
import { buildModel } from './model.js';
import { ProgressScreen, ProgressStore } from './progress.js';
import { sanitizeLine } from '../util/sanitize.js';

export interface TuiOptions extends Omit<AnalyzeOptions, 'onRead' | 'onProgress' | 'stdin'> {
  zone: string;
  color: boolean;
  /** Throws when the analysis is nothing to browse (the caller's one-line error, after the screen is restored). */
  accept?: (analysis: Analysis) => void;
  /** Started from a cluster: collects one node again into the input (`c` in the overview), then the view reopens. */
  collect?: (node: string) => Promise<void>;
  /** Pseudonyms for names, as analyze --redact (the log lines shown too; no path shown while reading). */
  redact?: boolean;
}

const ENTER = '\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J';
const LEAVE = '\x1b[?25h\x1b[?1049l';

/** Commands copied in a gap (`y`): printed where the terminal keeps them, whether or not its clipboard took OSC 52 — as
 *  the process ends, after the last of ink's own writes (its final frame and line erasing can come after it unmounts). */
async function printCopied(): Promise<void> {
  const { copied } = await import('./App.js');
  const text = copied.text;
  if (text) process.once('exit', () => writeSync(1, `# commands copied in plegscope tui:\n${text}\n`));
}

/** The run with its analysis redacted (src/report/redact.ts), its per-node views keyed by the pseudonyms, its paths
 *  rewritten the same way (evidence refs name them), and the log lines shown through the same rewrite. */
async function redacted(run: AnalysisRun, on: boolean | undefined): Promise<AnalysisRun> {
  if (!on) return run;
  const { redactor, rekeyByNode } = await import('../report/redact.js');
  const r = redactor(run.analysis);
  setShowText(r.text);
  const views = run.views && { logs: run.views.logs, nodes: rekeyByNode(run.analysis, r.analysis, run.views.nodes) };
  return { ...run, analysis: r.analysis, artifacts: run.artifacts.map((a) => ({ ...a, path: r.text(a.path), ...(a.aliases ? { aliases: a.aliases.map(r.text) } : {}) })), ...(views ? { views } : {}) };
}

/** Runs the TUI until the user quits. Returns the exit code; throws what analyze() throws (bad input). */
export async function runTui(opts: TuiOptions): Promise<number> {
  const out = process.stdout;
  const stdin = process.stdin;
  let restored = false;
  const restore = (): void => {
    if (restored) return;
    restored = true;
    if (stdin.isTTY) stdin.setRawMode(false);
    out.write(LEAVE);
  };
  process.once('exit', restore);
  // Killed or the terminal went away: give the screen back before going.
  const onSignal = (sig: NodeJS.Signals) => {
    restore();
    process.exit(sig === 'SIGINT' ? 130 : sig === 'SIGHUP' ? 129 : 143);
  };
  for (const sig of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) process.once(sig, onSignal);
  out.write(ENTER);
  const store = new ProgressStore();
  const screen = new ProgressScreen(out, store);
  // Keys while reading: q or ctrl-c stops.
  let onKey: ((b: Buffer) => void) | null = null;
  const stopped = new Promise<'stop'>((resolve) => {
    onKey = (b: Buffer) => {
      if (b.includes(0x71) || b.includes(0x03)) resolve('stop');
    };
  });
  if (stdin.isTTY) stdin.setRawMode(true);
  stdin.on('data', onKey as unknown as (b: Buffer) => void);
  stdin.resume();
  const onResize = () => screen.draw();
  out.on('resize', onResize);
  screen.start();
  const stopReading = (): void => {
    screen.stop();
    out.off('resize', onResize);
    stdin.off('data', onKey as unknown as (b: Buffer) => void);
    stdin.pause();
  };
  try {
    const analysis = analyze({
      ...opts,
      onRead: ({ artifact, bytes, lines }) => store.read(artifact.id, opts.redact ? `file ${artifact.id + 1}` : artifact.path, artifact.compression === null ? artifact.size : null, bytes, lines),
      onProgress: ({ file, index, total }) => store.finished(opts.redact ? `file ${index + 1}` : file, index, total),
    });
    const first = await Promise.race([analysis.then((run) => ({ run })), stopped]);
    stopReading();
    if (first === 'stop') {
      // Stopped while reading: leave now; the reads still running would only delay the exit.
      restore();
      process.exit(130);
    }
    opts.accept?.(first.run.analysis);
    let model = { ...buildModel(await redacted(first.run, opts.redact), { zone: opts.zone, color: opts.color }), collect: opts.collect !== undefined };
    out.write('\x1b[H\x1b[2J');
    // A person at a terminal asked for an interactive screen: ink must draw frames even when CI-style variables are
    // set (ink draws only the last frame when it thinks it runs in CI, and chalk, told CI=0, would drop every style:
    // the cursor line and search matches would be invisible). Nothing is spawned from here on, so the markers go.
    delete process.env['CI'];
    delete process.env['CONTINUOUS_INTEGRATION'];
    const { startApp } = await import('./app-entry.js');
    for (;;) {
      const node = await startApp(model);
      if (node === null || !opts.collect) {
        await printCopied();
        return 0;
      }
      // `c`: collect the node again, read the input anew, reopen the view.
      out.write(`\x1b[H\x1b[2Jcollecting ${sanitizeLine(node, 300)} through the API server…\n`);
      try {
        await opts.collect(node);
      } catch (err) {
        out.write(`collecting ${sanitizeLine(node, 300)} failed: ${sanitizeLine((err as Error).message, 300)}\n`);
      }
      const run = await analyze({ ...opts });
      model = { ...buildModel(await redacted(run, opts.redact), { zone: opts.zone, color: opts.color }), collect: true };
      out.write('\x1b[H\x1b[2J');
    }
  } finally {
    stopReading();
    restore();
    process.off('exit', restore);
    for (const sig of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) process.off(sig, onSignal);
  }
}
