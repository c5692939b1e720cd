// While the analysis reads: progress per file (bytes and lines), drawn straight to the terminal. Deliberately not
// React: ink and React are loaded only once the analysis is done, so their memory never adds to the analysis' peak.
import { fit, fitLeft, fmtBytes, fmtCount } from './format.js';
import { sanitizeLine } from '../util/sanitize.js';

export interface FileProgress {
  path: string;
  size: number | null;
  bytes: number;
  lines: number;
  done: boolean;
}

export interface LoadingSnapshot {
  files: FileProgress[];
  done: number;
  total: number | null;
  elapsedMs: number;
}

/** Progress of the read, filled by the analysis' callbacks. */
export class ProgressStore {
  private readonly files = new Map<number | string, FileProgress>();
  private done = 0;
  private total: number | null = null;
  private readonly start = Date.now();

  read(id: number, path: string, size: number | null, bytes: number, lines: number): void {
    const f = this.files.get(id);
    if (f) {
      f.bytes = bytes;
      f.lines = lines;
    } else this.files.set(id, { path, size, bytes, lines, done: false });
  }

  finished(path: string, index: number, total: number): void {
    this.done = index + 1;
    this.total = total;
    let known = false;
    for (const f of this.files.values()) {
      if (f.path !== path) continue;
      f.done = true;
      known = true;
    }
    if (!known) this.files.set(`done:${path}`, { path, size: null, bytes: 0, lines: 0, done: true });
  }

  snapshot(): LoadingSnapshot {
    return { files: [...this.files.values()].map((f) => ({ ...f })), done: this.done, total: this.total, elapsedMs: Date.now() - this.start };
  }
}

/** The progress screen as lines of text (`rows` of them, each at most `cols` wide); files still being read first. */
export function loadingLines(snap: LoadingSnapshot, rows: number, cols: number): string[] {
  const active = snap.files.filter((f) => !f.done);
  const finished = snap.files.filter((f) => f.done).reverse();
  const room = Math.max(1, rows - 4);
  const list = [...active, ...finished].slice(0, room);
  const bytes = snap.files.reduce((a, f) => a + f.bytes, 0);
  const lines = snap.files.reduce((a, f) => a + f.lines, 0);
  const pathW = Math.max(12, cols - 48);
  const out: string[] = [];
  const files = snap.total !== null ? `${snap.done} of ${snap.total} files done` : `${snap.files.length} file${snap.files.length === 1 ? '' : 's'} so far`;
  out.push(` plegscope — reading the input · ${files} · ${fmtBytes(bytes)} · ${fmtCount(lines)} lines · ${(snap.elapsedMs / 1000).toFixed(1)} s`);
  out.push('');
  if (list.length === 0) out.push('   looking at the input…');
  for (const f of list) {
    const pct = f.size ? `${Math.min(100, Math.floor((f.bytes / f.size) * 100))}%` : '';
    const of = !f.done && f.size ? ` of ${fit(fmtBytes(f.size), 10)} ${fitLeft(pct, 4)}` : ' '.repeat(19);
    out.push(`  ${f.done ? '✓' : '▸'} ${fit(sanitizeLine(f.path, 300), pathW)} ${fitLeft(fmtBytes(f.bytes), 10)}${of} ${fitLeft(fmtCount(f.lines), 7)} lines`);
  }
  while (out.length < rows - 1) out.push('');
  out.push(' q or ctrl-c: stop');
  return out.slice(0, rows).map((l) => (l.length > cols ? l.slice(0, cols) : l));
}

/** Draws the progress screen ten times a second on an alternate screen the caller has entered. */
export class ProgressScreen {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly out: NodeJS.WriteStream, private readonly store: ProgressStore) {}

  start(): void {
    this.draw();
    this.timer = setInterval(() => this.draw(), 100);
  }

  draw(): void {
    const rows = this.out.rows || 24;
    const cols = this.out.columns || 80;
    const lines = loadingLines(this.store.snapshot(), rows, cols);
    this.out.write('\x1b[H' + lines.map((l) => l + '\x1b[K').join('\r\n'));
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
