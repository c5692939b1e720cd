// The Log view's engine: runs the commands the navigation queues (scroll, jump, filter, find), one at a time, over a
// MergedLog, and publishes what to draw. Long scans report progress, can be cancelled (esc) and never block input: the
// MergedLog yields to the event loop while it reads.
import { cmpKey, isError, keyOf, ScanAborted, type Anchor, type Key, type LogLine, type MergedLog, type Pred, type Window } from './logs.js';
import { compilePattern, type UserPattern } from './pattern.js';
import type { LogCmd, LogTarget } from './state.js';
import { parseWhen } from './when.js';

export interface LogViewState {
  /** Lines on screen (at most `rows`), from the anchor on. */
  lines: LogLine[];
  sel: number;
  pattern: UserPattern | null;
  /** Show only matching lines. */
  only: boolean;
  hscroll: number;
  /** A scan under way: bytes read so far. */
  searching: { what: string; bytes: number } | null;
  status: { text: string; error: boolean } | null;
  loaded: boolean;
  /** The filter's matches in the whole log: counted in the background once a filter is set. `index`: the selected
   *  line's place among them (1-based), when it is one and their places are known. */
  matches: { count: number; done: boolean; fraction: number; index: number | null } | null;
}

/** Match positions kept for "match k of N" (16 bytes each); past this only the count is shown. */
export const MATCH_KEYS_KEPT = 200_000;

export interface LogControllerOptions {
  rows: () => number;
  zone: string;
  bounds: { start: number | null; end: number | null };
  onChange: (s: LogViewState) => void;
  onFocus: (ts: number) => void;
  /** A command has been running for a while (esc then cancels it) / it ended. */
  onBusy: (busy: boolean, filter: string | null) => void;
  busyAfterMs?: number;
}

function rawPred(p: UserPattern): Pred {
  return p.block ? { raw: p.test, block: p.block } : { raw: p.test };
}

export class LogController {
  private anchor: Anchor = 'start';
  private win: Window = { before: [], after: [] };
  private s: LogViewState = { lines: [], sel: 0, pattern: null, only: false, hscroll: 0, searching: null, status: null, loaded: false, matches: null };
  /** The background count of the current filter's matches, and the positions it found. */
  private counting: AbortController | null = null;
  private matchKeys: Key[] | null = null;
  private queue: LogCmd[] = [];
  private running = false;
  private abort: AbortController | null = null;
  private busyTimer: NodeJS.Timeout | null = null;
  private busy = false;
  private closed = false;

  constructor(private readonly log: MergedLog, private readonly o: LogControllerOptions) {}

  get state(): LogViewState {
    return this.s;
  }

  private set(patch: Partial<LogViewState>): void {
    if (this.closed) return;
    this.s = { ...this.s, ...patch };
    // The selected line's place among the matches follows the selection.
    if (this.s.matches && this.matchKeys && ('lines' in patch || 'sel' in patch || 'matches' in patch)) {
      const index = this.matchIndex();
      if (index !== this.s.matches.index) this.s = { ...this.s, matches: { ...this.s.matches, index } };
    }
    this.o.onChange(this.s);
  }

  private matchIndex(): number | null {
    const keys = this.matchKeys;
    const sel = this.selected();
    if (!keys || !sel) return null;
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cmpKey(keys[mid] as Key, sel) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo < keys.length && cmpKey(keys[lo] as Key, sel) === 0 ? lo + 1 : null;
  }

  /** Counts the matches of the current pattern over the whole log, in the background, through a reader of its own. */
  private startCount(): void {
    this.stopCount();
    const p = this.s.pattern;
    if (!p) return;
    const abort = new AbortController();
    this.counting = abort;
    const log = this.log.fork();
    let last = 0;
    this.set({ matches: { count: 0, done: false, fraction: 0, index: null } });
    void log.count(rawPred(p), MATCH_KEYS_KEPT, {
      signal: abort.signal,
      onFraction: (fraction) => {
        const now = Date.now();
        if (now - last < 100 || this.counting !== abort) return;
        last = now;
        this.set({ matches: { count: 0, done: false, fraction, index: null } });
      },
    }).then((m) => {
      if (this.counting !== abort) return;
      this.matchKeys = m.keys;
      this.set({ matches: { count: m.count, done: true, fraction: 1, index: null } });
    }, () => {
      // Cancelled (a new filter, or the view closed) or the log could not be read: no count.
      if (this.counting === abort) this.set({ matches: null });
    }).finally(() => {
      log.close();
      if (this.counting === abort) this.counting = null;
    });
  }

  private stopCount(): void {
    this.counting?.abort();
    this.counting = null;
    this.matchKeys = null;
  }

  private get rows(): number {
    return Math.max(1, this.o.rows());
  }

  private get pred(): Pred | null {
    const p = this.s.pattern;
    return this.s.only && p ? rawPred(p) : null;
  }

  /** Queues a command; `cancel` acts at once (stops the running scan and drops what was queued behind it). */
  push(cmd: LogCmd): void {
    if (cmd.t === 'cancel') {
      this.queue = [];
      this.abort?.abort();
      return;
    }
    this.queue.push(cmd);
    void this.drain();
  }

  /** Resolves when every queued command has run (tests). */
  async idle(): Promise<void> {
    while (this.running || this.queue.length > 0) await new Promise((r) => setTimeout(r, 5));
  }

  close(): void {
    this.closed = true;
    this.queue = [];
    this.abort?.abort();
    this.stopCount();
    if (this.busyTimer) clearTimeout(this.busyTimer);
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length > 0 && !this.closed) {
        const cmd = this.queue.shift() as LogCmd;
        this.abort = new AbortController();
        this.busyTimer = setTimeout(() => {
          this.busy = true;
          this.o.onBusy(true, this.s.pattern?.source ?? null);
        }, this.o.busyAfterMs ?? 120);
        try {
          await this.run(cmd, this.abort.signal);
        } catch (err) {
          if (err instanceof ScanAborted) this.set({ status: { text: 'search cancelled', error: false } });
          else this.set({ status: { text: `cannot read the log: ${(err as Error).message}`, error: true } });
        } finally {
          if (this.busyTimer) clearTimeout(this.busyTimer);
          this.busyTimer = null;
          this.abort = null;
          this.set({ searching: null });
        }
        if (this.busy || this.queue.length === 0) {
          this.busy = false;
          this.o.onBusy(false, this.s.pattern?.source ?? null);
        }
      }
    } finally {
      this.running = false;
    }
  }

  private ctl(signal: AbortSignal, what: string) {
    let last = Date.now();
    return {
      signal,
      onProgress: (bytes: number) => {
        // A redraw ten times a second at most: drawing per block would cost more than the scan.
        const now = Date.now();
        if (bytes > 0 && now - last >= 100) {
          last = now;
          this.set({ searching: { what, bytes } });
        }
      },
    };
  }

  private selected(): LogLine | null {
    return this.s.lines[this.s.sel] ?? null;
  }

  /** Loads the window at `anchor`; keeps the screen full at the end of the log; selects `select` (or keeps the row). */
  private async load(anchor: Anchor, signal: AbortSignal, select?: Key | null, row?: number): Promise<void> {
    const rows = this.rows;
    const pred = this.pred;
    const ctl = this.ctl(signal, pred ? 'filtering' : 'reading');
    let w = await this.log.window(anchor, rows, rows + 1, pred, ctl);
    if (w.after.length < rows && w.before.length > 0) {
      const up = Math.min(rows - w.after.length, w.before.length);
      anchor = keyOf(w.before[up - 1] as LogLine);
      w = await this.log.window(anchor, rows, rows + 1, pred, ctl);
    }
    this.anchor = w.after[0] ? keyOf(w.after[0]) : anchor;
    this.win = w;
    const lines = w.after.slice(0, rows);
    let sel = row ?? this.s.sel;
    if (select) {
      const i = lines.findIndex((l) => cmpKey(l, select) === 0);
      if (i >= 0) sel = i;
    }
    sel = Math.max(0, Math.min(sel, lines.length - 1));
    this.set({ lines, sel, loaded: true });
    const f = lines[sel];
    if (f) this.o.onFocus(f.ts);
  }

  /** Shows `target` about a third of the way down the screen, with the lines before it as context. */
  private async reveal(target: LogLine, signal: AbortSignal, force = false): Promise<void> {
    const i = force ? -1 : this.s.lines.findIndex((l) => cmpKey(l, target) === 0);
    if (i >= 0) {
      this.set({ sel: i });
      this.o.onFocus(target.ts);
      return;
    }
    const ctx = Math.floor(this.rows / 3);
    const w = ctx > 0 ? await this.log.window(keyOf(target), ctx, 0, this.pred, this.ctl(signal, 'reading')) : { before: [], after: [] };
    const top = w.before.length > 0 ? keyOf(w.before[w.before.length - 1] as LogLine) : keyOf(target);
    await this.load(top, signal, keyOf(target));
  }

  private async run(cmd: LogCmd, signal: AbortSignal): Promise<void> {
    if (cmd.t !== 'hscroll') this.set({ status: null });
    switch (cmd.t) {
      case 'open': return this.open(cmd.at, signal);
      case 'move': return this.move(cmd.by, signal);
      case 'page': return this.page(cmd.by, signal);
      case 'home': return this.load('start', signal, null, 0);
      case 'end': {
        await this.load('end', signal, null, 0);
        const last = this.s.lines.length - 1;
        this.set({ sel: Math.max(0, last) });
        const f = this.s.lines[last];
        if (f) this.o.onFocus(f.ts);
        return;
      }
      case 'find': return this.find(cmd.dir, signal);
      case 'error': return this.findError(cmd.dir, signal);
      case 'time': return this.jumpTime(cmd.text, signal);
      case 'filter': return this.filter(cmd.text, signal);
      case 'toggleFilter': return this.toggle(signal);
      case 'clearFilter': return this.clearFilter(signal);
      case 'hscroll': return this.set({ hscroll: Math.max(0, this.s.hscroll + cmd.by) });
      case 'refresh': {
        const f = this.selected();
        return this.load(this.anchor, signal, f ? keyOf(f) : null);
      }
      case 'cancel': return;
    }
  }

  private async open(at: LogTarget, signal: AbortSignal): Promise<void> {
    let target: LogLine | null = null;
    if (at.kind === 'line') target = await this.log.line(at.src, at.line);
    if (!target) {
      const ts = at.kind === 'time' ? at.ts : at.ts;
      target = ts !== null ? await this.log.atTime(ts, this.ctl(signal, 'reading')) : null;
      if (at.kind === 'line') this.set({ status: { text: `line ${at.line} is not in the file as read now; showing the lines at its time`, error: true } });
    }
    if (!target) {
      this.set({ lines: [], sel: 0, loaded: true, status: { text: 'the log has no lines', error: false } });
      return;
    }
    await this.reveal(target, signal);
  }

  private async move(by: number, signal: AbortSignal): Promise<void> {
    const rows = this.rows;
    const { lines } = this.s;
    if (lines.length === 0) return;
    const t = this.s.sel + by;
    if (t >= 0 && t < lines.length) {
      this.set({ sel: t });
      this.o.onFocus((lines[t] as LogLine).ts);
      return;
    }
    if (t >= lines.length) {
      let after = this.win.after;
      if (t >= after.length) after = (await this.log.window(this.anchor, 0, t + 1, this.pred, this.ctl(signal, 'reading'))).after;
      const target = after[Math.min(t, after.length - 1)] as LogLine;
      const topIdx = Math.max(0, after.indexOf(target) - (rows - 1));
      await this.load(keyOf(after[topIdx] as LogLine), signal, keyOf(target));
      return;
    }
    // Above the screen.
    const need = -t;
    let before = this.win.before;
    if (need > before.length) before = (await this.log.window(this.anchor, need, 0, this.pred, this.ctl(signal, 'reading'))).before;
    if (before.length === 0) {
      this.set({ sel: 0 });
      return;
    }
    const target = before[Math.min(need, before.length) - 1] as LogLine;
    await this.load(keyOf(target), signal, keyOf(target), 0);
  }

  private async page(by: number, signal: AbortSignal): Promise<void> {
    const rows = this.rows;
    if (this.s.lines.length === 0) return;
    if (by > 0) {
      const next = this.win.after[Math.min(rows, this.win.after.length - 1)];
      if (!next || this.win.after.length <= rows) {
        // Last page already: go to the last line.
        const last = this.s.lines.length - 1;
        this.set({ sel: last });
        this.o.onFocus((this.s.lines[last] as LogLine).ts);
        return;
      }
      await this.load(keyOf(next), signal, null, this.s.sel);
    } else {
      const b = this.win.before;
      if (b.length === 0) {
        this.set({ sel: 0 });
        this.o.onFocus((this.s.lines[0] as LogLine).ts);
        return;
      }
      await this.load(keyOf(b[Math.min(rows, b.length) - 1] as LogLine), signal, null, this.s.sel);
    }
  }

  private async find(dir: 1 | -1, signal: AbortSignal): Promise<void> {
    const p = this.s.pattern;
    const from = this.selected();
    if (!p || !from) return;
    const hit = await this.log.find(keyOf(from), dir, rawPred(p), this.ctl(signal, `searching /${p.source}/`));
    if (!hit) {
      this.set({ status: { text: `no ${dir > 0 ? 'later' : 'earlier'} line matches /${p.source}/`, error: false } });
      return;
    }
    await this.reveal(hit, signal);
  }

  private async findError(dir: 1 | -1, signal: AbortSignal): Promise<void> {
    const from = this.selected();
    if (!from) return;
    const p = this.s.only ? this.s.pattern : null;
    const pred: Pred = { line: p ? (l) => isError(l) && p.test(l.text) : isError };
    const hit = await this.log.find(keyOf(from), dir, pred, this.ctl(signal, 'looking for errors'));
    if (!hit) {
      this.set({ status: { text: `no ${dir > 0 ? 'later' : 'earlier'} error line`, error: false } });
      return;
    }
    await this.reveal(hit, signal);
  }

  private async jumpTime(text: string, signal: AbortSignal): Promise<void> {
    const w = parseWhen(text, this.selected()?.ts ?? null, this.o.zone, this.o.bounds);
    if (!w.ok) {
      this.set({ status: { text: w.error, error: true } });
      return;
    }
    const pred = this.pred;
    const at = pred
      ? (await this.log.window({ ts: w.ms, src: -1, lineNo: -1 }, 1, 1, pred, this.ctl(signal, 'filtering')))
      : (await this.log.window({ ts: w.ms, src: -1, lineNo: -1 }, 1, 1));
    const target = at.after[0] ?? at.before[0];
    if (!target) {
      this.set({ status: { text: 'no line there', error: false } });
      return;
    }
    await this.reveal(target, signal);
  }

  private async filter(text: string, signal: AbortSignal): Promise<void> {
    const c = compilePattern(text);
    if (!c.ok) {
      this.set({ status: { text: `/${text}/: ${c.error}`, error: true } });
      return;
    }
    const prev = { pattern: this.s.pattern, only: this.s.only };
    const from = this.selected();
    this.set({ pattern: c.pattern, only: true });
    try {
      await this.load(from ? keyOf(from) : this.anchor, signal, null, 0);
    } catch (err) {
      this.set(prev);
      throw err;
    }
    if (this.s.lines.length === 0) {
      this.set({ ...prev, status: { text: `no line matches /${text}/ from here on`, error: false } });
      await this.load(from ? keyOf(from) : this.anchor, signal, from ? keyOf(from) : null);
      return;
    }
    this.startCount();
  }

  private async toggle(signal: AbortSignal): Promise<void> {
    if (!this.s.pattern) return;
    const from = this.selected();
    const row = this.s.sel;
    this.set({ only: !this.s.only });
    if (this.s.only) {
      await this.load(from ? keyOf(from) : this.anchor, signal, null, 0);
      if (this.s.lines.length === 0) {
        this.set({ only: false, status: { text: 'no line matches from here on', error: false } });
        await this.load(this.anchor, signal, from ? keyOf(from) : null, row);
      }
    } else if (from) {
      await this.reveal(from, signal, true);
    }
  }

  private async clearFilter(signal: AbortSignal): Promise<void> {
    const from = this.selected();
    const wasOnly = this.s.only;
    this.stopCount();
    this.set({ pattern: null, only: false, matches: null });
    if (from) await this.reveal(from, signal, wasOnly);
  }
}
