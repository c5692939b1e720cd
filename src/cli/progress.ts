// Progress of `analyze` on stderr: one line, redrawn in place, for runs that take more than a second (a big .tar.xz
// bundle is indexed for tens of seconds before the first file is done). Only when stderr is a terminal and not in CI
// (a CI log would keep every redraw); never on stdout. File and member names are sanitised and cut to the width.
import { cutMiddle } from '../report/layout.js';
import { sanitize } from '../util/sanitize.js';

/** What is-in-ci (ink's test) calls CI: CI or CONTINUOUS_INTEGRATION set to anything but 0/false. */
export function inCi(env: NodeJS.ProcessEnv): boolean {
  const on = (k: string): boolean => k in env && env[k] !== '0' && env[k] !== 'false';
  return on('CI') || on('CONTINUOUS_INTEGRATION');
}

/** The second of quiet before progress shows (PLEGSCOPE_PROGRESS_DELAY_MS sets it, for tests). */
export function progressDelay(env: NodeJS.ProcessEnv): number {
  const v = Number(env['PLEGSCOPE_PROGRESS_DELAY_MS']);
  return env['PLEGSCOPE_PROGRESS_DELAY_MS'] !== undefined && Number.isInteger(v) && v >= 0 ? v : 1000;
}

/** Whether progress goes to this stream at all. */
export function progressWanted(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && !inCi(env) && env['TERM'] !== 'dumb';
}

const MIB = 1024 * 1024;

export class CliProgress {
  private readonly start = Date.now();
  private timer: NodeJS.Timeout | null = null;
  private drawn = false;
  private done = 0;
  private total: number | null = null;
  private current = '';
  private indexed = 0;
  private readonly bytes = new Map<number, number>();

  constructor(private readonly out: NodeJS.WriteStream, private readonly inputs: string[], private readonly delayMs = 1000, private readonly everyMs = 200) {}

  begin(): void {
    const go = (): void => {
      this.draw();
      this.timer = setInterval(() => this.draw(), this.everyMs);
      this.timer.unref();
    };
    if (this.delayMs <= 0) go();
    else {
      this.timer = setTimeout(go, this.delayMs);
      this.timer.unref();
    }
  }

  /** An archive member read while the archive is indexed. */
  member(path: string): void {
    this.indexed++;
    this.current = path;
  }

  /** Bytes of one log read so far. */
  read(id: number, path: string, bytes: number): void {
    this.bytes.set(id, bytes);
    this.current = path;
  }

  /** A file done (`index` of `total`). */
  finished(path: string, index: number, total: number): void {
    this.done = index + 1;
    this.total = total;
    this.current = path;
  }

  line(width: number): string {
    const secs = `${((Date.now() - this.start) / 1000).toFixed(1)} s`;
    let read = 0;
    for (const b of this.bytes.values()) read += b;
    const parts = this.total !== null
      ? [`${this.done} of ${this.total} files`, `${(read / MIB).toFixed(0)} MiB`]
      : [`reading ${this.inputs.map((p) => sanitize(p)).join(' ')}`, ...(this.indexed ? [`${this.indexed} log${this.indexed === 1 ? '' : 's'} in archives`] : [])];
    const head = `plegscope: ${parts.join(' · ')} · ${secs}`;
    const room = width - head.length - 4;
    return room >= 12 && this.current ? `${head} · ${cutMiddle(sanitize(this.current), room)}` : head.slice(0, width - 1);
  }

  private draw(): void {
    this.drawn = true;
    this.out.write(`\r\x1b[2K${this.line(this.out.columns || 80)}`);
  }

  /** Stops drawing and clears the line (before the report is written). */
  end(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.drawn) this.out.write('\r\x1b[2K');
  }
}
