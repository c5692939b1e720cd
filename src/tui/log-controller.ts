// The Log view's engine: runs the commands the navigation queues (scroll, search, filter, marks, follow), one at a
// time, over a MergedLog, and publishes what to draw. As in less and lnav: a search (`/`) jumps to the next match and
// keeps every line around it; a filter (`&`, `&!` to hide) shows only the lines that match (or do not) and is toggled
// with `f`; marks (`m` a, `'` a) remember lines; follow (`F`) polls the files for appended lines and stays at the end. Long scans report progress, can be cancelled (esc) and never block input: the
// MergedLog yields to the event loop while it reads.
import { cmpKey, isError, keyOf, ScanAborted, type Anchor, type Key, type LogLine, type MergedLog, type Pred, type Window } from './logs.js';
import { compilePattern, type UserPattern } from './pattern.js';
import type { LogCmd, LogTarget } from './state.js';
import { parseWhen } from './when.js';

export interface LogViewState {
  /** Lines on screen (at most `rows`), from the anchor on. */
  lines: LogLine[];
  sel: number;
  /** The search: highlighted, counted, reached with n/N; every line stays in view. */
  pattern: UserPattern | null;
  /** The filter: only the lines that match it (`out`: that do not) are shown while `only` is on (f toggles it). */
  filter: { pattern: UserPattern; out: boolean } | null;
  only: boolean;
  /** What is highlighted and counted: the search, else a filter that keeps its matches. */
  highlight: UserPattern | null;
  /** Marked lines by letter (m a), in letter order. */
  marks: Array<[string, Key]>;
  /** Following the end of the log as lines are appended (F). */
  follow: boolean;
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
  /** How often follow looks for appended lines (ms). */
  followEveryMs?: number;
  /** A command has been running for a while (esc then cancels it) / it ended. */
  onBusy: (busy: boolean, filter: string | null, follow: boolean) => void;
  busyAfterMs?: number;
}

function rawPred(p: UserPattern): Pred {
  return p.block ? { raw: p.test, block: p.block } : { raw: p.test };
}

/** Commands that leave follow on: they keep the end in view or change only how lines are shown. */
const KEEPS_FOLLOW = new Set<LogCmd['t']>(['tail', 'end', 'follow', 'hscroll', 'refresh', 'filter', 'toggleFilter', 'clearFilter', 'mark', 'cancel']);

export class LogController {
  private anchor: Anchor = 'start';
  private win: Window = { before: [], after: [] };
  private s: LogViewState = { lines: [], sel: 0, pattern: null, filter: null, only: false, highlight: null, marks: [], follow: false, hscroll: 0, searching: null, status: null, loaded: false, matches: null };
  private followTimer: NodeJS.Timeout | null = null;
  private polling = false;
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
    if ('pattern' in patch || 'filter' in patch) {
      const f = this.s.filter;
      this.s = { ...this.s, highlight: this.s.pattern ?? (f && !f.out ? f.pattern : null) };
    }
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
    const p = this.s.highlight;
    if (!p) {
      this.set({ matches: null });
      return;
    }
    const abort = new AbortController();
    this.counting = abort;
    const log = this.log.fork();
    let last = 0;
    this.set({ matches: { count: 0, done: false, fraction: 0, index: null } });
    // Its own readers start from the files as analysed: lines appended since (follow) are taken in first.
    void log.grow().then(() => log.count(rawPred(p), MATCH_KEYS_KEPT, {
      signal: abort.signal,
      onFraction: (fraction) => {
        const now = Date.now();
        if (now - last < 100 || this.counting !== abort) return;
        last = now;
        this.set({ matches: { count: 0, done: false, fraction, index: null } });
      },
    })).then((m) => {
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

  /** What the screen shows: every line, or those the filter lets through. */
  private get pred(): Pred | null {
    const f = this.s.filter;
    if (!f || !this.s.only) return null;
    return f.out ? { raw: (t) => !f.pattern.test(t) } : rawPred(f.pattern);
  }

  /** Lines that match `p` among those shown. */
  private shownMatching(p: UserPattern): Pred {
    const shown = this.pred;
    if (!shown || !('raw' in shown)) return rawPred(p);
    return p.block ? { raw: (t) => p.test(t) && shown.raw(t), block: p.block } : { raw: (t) => p.test(t) && shown.raw(t) };
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
    this.stopFollow();
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
          this.o.onBusy(true, this.clearable(), this.s.follow);
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
          this.o.onBusy(false, this.clearable(), this.s.follow);
        }
      }
    } finally {
      this.running = false;
    }
  }

  /** The search or filter esc clears, if any. */
  private clearable(): string | null {
    return this.s.pattern?.source ?? this.s.filter?.pattern.source ?? null;
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
    if (cmd.t !== 'hscroll' && cmd.t !== 'tail') this.set({ status: null });
    // Moving away from the end (or jumping) stops following, as a key stops less's F.
    if (this.s.follow && !KEEPS_FOLLOW.has(cmd.t) && !(cmd.t === 'move' && cmd.by > 0)) this.stopFollow();
    switch (cmd.t) {
      case 'open': return this.open(cmd.at, signal);
      case 'move': return this.move(cmd.by, signal);
      case 'page': return this.page(cmd.by, signal);
      case 'home': return this.load('start', signal, null, 0);
      case 'end': case 'tail': {
        await this.load('end', signal, null, 0);
        const last = this.s.lines.length - 1;
        this.set({ sel: Math.max(0, last) });
        const f = this.s.lines[last];
        if (f) this.o.onFocus(f.ts);
        return;
      }
      case 'search': return this.search(cmd.text, signal);
      case 'mark': return this.mark(cmd.name);
      case 'toMark': return this.toMark(cmd.name, signal);
      case 'follow': return this.toggleFollow(signal);
      case 'find': return this.find(cmd.dir, signal);
      case 'error': return this.findError(cmd.dir, signal);
      case 'time': return this.jumpTime(cmd.text, signal);
      case 'filter': return this.filter(cmd.text, cmd.out === true, signal);
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
    const p = this.s.highlight;
    const from = this.selected();
    if (!p) {
      this.set({ status: { text: 'no search yet: press / and type a pattern', error: false } });
      return;
    }
    if (!from) return;
    const hit = await this.log.find(keyOf(from), dir, this.shownMatching(p), this.ctl(signal, `searching /${p.source}/`));
    if (!hit) {
      this.set({ status: { text: `no ${dir > 0 ? 'later' : 'earlier'} line matches /${p.source}/`, error: false } });
      return;
    }
    await this.reveal(hit, signal);
  }

  private async findError(dir: 1 | -1, signal: AbortSignal): Promise<void> {
    const from = this.selected();
    if (!from) return;
    const shown = this.pred;
    const pred: Pred = { line: shown && 'raw' in shown ? (l) => isError(l) && shown.raw(l.text) : isError };
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

  /** `/`: the next line that matches, with the lines around it; the matches are counted and highlighted. */
  private async search(text: string, signal: AbortSignal): Promise<void> {
    const c = compilePattern(text);
    if (!c.ok) {
      this.set({ status: { text: `/${text}/: ${c.error}`, error: true } });
      return;
    }
    this.set({ pattern: c.pattern });
    this.startCount();
    const from = this.selected();
    if (!from) return;
    const p = c.pattern;
    const hit = (await this.log.window(keyOf(from), 0, 2, this.shownMatching(p), this.ctl(signal, `searching /${p.source}/`))).after.find((l) => cmpKey(l, from) > 0);
    if (!hit) {
      this.set({ status: { text: `no later line matches /${text}/ (N: earlier)`, error: false } });
      return;
    }
    await this.reveal(hit, signal);
  }

  /** `&` (`out`: `&!`): only the lines that match (that do not match) are shown. */
  private async filter(text: string, out: boolean, signal: AbortSignal): Promise<void> {
    const c = compilePattern(text);
    const shown = `&${out ? '!' : ''}${text}`;
    if (!c.ok) {
      this.set({ status: { text: `${shown}: ${c.error}`, error: true } });
      return;
    }
    const prev = { filter: this.s.filter, only: this.s.only };
    const from = this.selected();
    this.set({ filter: { pattern: c.pattern, out }, only: true });
    try {
      await this.load(from ? keyOf(from) : this.anchor, signal, null, 0);
    } catch (err) {
      this.set(prev);
      throw err;
    }
    if (this.s.lines.length === 0) {
      this.set({ ...prev, status: { text: `no line ${out ? 'is left by' : 'matches'} ${shown} from here on`, error: false } });
      await this.load(from ? keyOf(from) : this.anchor, signal, from ? keyOf(from) : null);
      return;
    }
    this.startCount();
  }

  private async toggle(signal: AbortSignal): Promise<void> {
    if (!this.s.filter) {
      this.set({ status: { text: 'no filter yet: & and a pattern shows only the lines that match it (&!: hides them)', error: false } });
      return;
    }
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
    this.set({ pattern: null, filter: null, only: false, matches: null });
    if (from) await this.reveal(from, signal, wasOnly);
  }

  /** `m` + letter: remembers the selected line. */
  private mark(name: string): void {
    const sel = this.selected();
    if (!sel) return;
    const marks = this.s.marks.filter(([n]) => n !== name);
    marks.push([name, keyOf(sel)]);
    marks.sort((a, b) => a[0].localeCompare(b[0]));
    this.set({ marks, status: { text: `mark ${name} set (' ${name} comes back here)`, error: false } });
  }

  /** `'` + letter: back to the marked line (all lines shown when the filter hides it). */
  private async toMark(name: string, signal: AbortSignal): Promise<void> {
    const m = this.s.marks.find(([n]) => n === name);
    if (!m) {
      const set = this.s.marks.map(([n]) => n).join(' ');
      this.set({ status: { text: `no mark ${name}${set ? ` (marks: ${set})` : ' (m and a letter sets one)'}`, error: false } });
      return;
    }
    const line = await this.log.line(m[1].src, m[1].lineNo);
    if (!line) return;
    const shown = this.pred;
    if (shown && 'raw' in shown && !shown.raw(line.text)) {
      this.set({ only: false, status: { text: `mark ${name} is a line the filter hides: all lines shown (f filters again)`, error: false } });
      await this.reveal(line, signal, true);
      return;
    }
    await this.reveal(line, signal);
  }

  /** `F`: the end of the log, kept in view as lines are appended to the files; F again (or moving up) stops. */
  private async toggleFollow(signal: AbortSignal): Promise<void> {
    if (this.s.follow) {
      this.stopFollow();
      return;
    }
    await this.log.grow();
    await this.run({ t: 'tail' }, signal);
    this.set({ follow: true });
    this.followTimer = setInterval(() => void this.poll(), this.o.followEveryMs ?? 250);
  }

  private async poll(): Promise<void> {
    if (this.polling || this.running || this.queue.length > 0 || this.closed) return;
    this.polling = true;
    try {
      if (await this.log.grow()) {
        if (this.s.follow) this.push({ t: 'tail' });
        if (this.s.highlight) this.startCount();
      }
    } catch {
      // The file went away or cannot be read now: try again at the next tick.
    } finally {
      this.polling = false;
    }
  }

  private stopFollow(): void {
    if (this.followTimer) clearInterval(this.followTimer);
    this.followTimer = null;
    if (this.s.follow) this.set({ follow: false });
  }
}
