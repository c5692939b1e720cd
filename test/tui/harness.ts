// Drives the App through ink-testing-library: keys in, frames (without styling) out.
import { createElement, useEffect, type ReactNode } from 'react';
import { render } from 'ink-testing-library';
import stripAnsi from 'strip-ansi';
import { analyze } from '../../src/analyze.js';
import { App, type Size } from '../../src/tui/App.js';
import { buildModel, type TuiModel } from '../../src/tui/model.js';
import type { LogController } from '../../src/tui/log-controller.js';

export const KEYS = {
  up: '\x1b[A', down: '\x1b[B', right: '\x1b[C', left: '\x1b[D', enter: '\r', esc: '\x1b', tab: '\t', backspace: '\x7f',
  pageDown: '\x1b[6~', pageUp: '\x1b[5~', ctrlC: '\x03', ctrlU: '\x15',
};

export async function loadModel(paths: string[], color = false): Promise<TuiModel> {
  const run = await analyze({ paths, year: 2024, tz: 'UTC', workers: 0 });
  return buildModel(run, { zone: 'UTC', color });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Driven {
  /** Renders again at another terminal size (a resize). */
  resize(size: Size): Promise<void>;
  frame(): string;
  /** The raw last frame, styling included. */
  raw(): string;
  press(...keys: string[]): Promise<void>;
  type(text: string): Promise<void>;
  waitFor(test: (frame: string) => boolean, what?: string, ms?: number): Promise<string>;
  settle(): Promise<void>;
  unmount(): void;
  /** True once the app has been torn down: it quit, or the test unmounted it. */
  exited(): boolean;
}

/** Wraps the App to learn when ink has torn the tree down (the app quit), whatever ink's last frame shows. */
function ExitProbe({ onExit, children }: { onExit: () => void; children: ReactNode }) {
  useEffect(() => onExit, []);
  return children;
}

export function drive(model: TuiModel, size: Size = { columns: 80, rows: 24 }): Driven {
  const controllers: LogController[] = [];
  let exited = false;
  const tree = (s: Size) => createElement(ExitProbe, {
    onExit: () => { exited = true; },
    children: createElement(App, { model, size: s, onLogController: (c: LogController) => controllers.push(c) }),
  });
  const inst = render(tree(size));
  const origUnmount = inst.unmount;
  const d: Driven = {
    async resize(next: Size) {
      inst.rerender(tree(next));
      await d.settle();
    },
    frame: () => stripAnsi(inst.lastFrame() ?? ''),
    raw: () => inst.lastFrame() ?? '',
    async settle() {
      // Input is parsed on the next tick, effects run after the render, the Log view reads asynchronously: wait until
      // nothing is running and the frame has stopped changing.
      const end = Date.now() + 3000;
      let last = '';
      let stable = 0;
      while (Date.now() < end) {
        await sleep(10);
        for (const c of controllers) await c.idle();
        const f = inst.lastFrame() ?? '';
        stable = f === last ? stable + 1 : 0;
        last = f;
        if (stable >= 3) return;
      }
    },
    async press(...keys: string[]) {
      for (const k of keys) {
        inst.stdin.write(k);
        await d.settle();
      }
    },
    async type(text: string) {
      for (const ch of text) {
        inst.stdin.write(ch);
        await sleep(2);
      }
      await d.settle();
    },
    async waitFor(test, what = 'frame', ms = 3000) {
      const end = Date.now() + ms;
      for (;;) {
        const f = d.frame();
        if (test(f)) return f;
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last frame:\n${f}`);
        await sleep(10);
      }
    },
    unmount() {
      origUnmount();
      exited = true;
    },
    exited: () => exited,
  };
  return d;
}
