// Mounts the App with ink (loaded only after the analysis: see progress.ts) and resolves when the user quits.
import chalk from 'chalk';
import { render } from 'ink';
import { App } from './App.js';
import type { TuiModel } from './model.js';

/** Resolves when the user quits: with the node to collect again (`c` in the overview), else null. */
export async function startApp(model: TuiModel): Promise<string | null> {
  // ink styles text through chalk, whose own detection says 0 (no style at all) for `--no-color` in argv, TERM
  // values it does not know, or a CI marker. A terminal that runs ink understands SGR codes: bold, dim and inverse
  // always show (they are not colour); colours are dropped by the theme when they are off (ui.tsx).
  if (chalk.level < 1) chalk.level = 1;
  let recollect: string | null = null;
  const ink = render(<App model={model} onQuit={(node) => (recollect = node)} />, { exitOnCtrlC: false, patchConsole: true, maxFps: 30 });
  try {
    await ink.waitUntilExit();
  } finally {
    ink.cleanup();
  }
  return recollect;
}
