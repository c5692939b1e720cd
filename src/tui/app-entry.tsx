// Mounts the App with ink (loaded only after the analysis: see progress.ts) and resolves when the user quits.
import { render } from 'ink';
import { App } from './App.js';
import type { TuiModel } from './model.js';

export async function startApp(model: TuiModel): Promise<void> {
  const ink = render(<App model={model} />, { exitOnCtrlC: false, patchConsole: true, maxFps: 30 });
  try {
    await ink.waitUntilExit();
  } finally {
    ink.cleanup();
  }
}
