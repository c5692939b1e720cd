// Messages between the main thread (which reads and decompresses an artifact) and a signal worker (which scans it).
// Options travel as plain data: zones and custom patterns are rebuilt on the worker side.
import type { ArtifactSignals } from './extract.js';
import type { CustomSignalSpec } from './custom.js';

export interface ExtractJob {
  artifact: number;
  zone: string;
  year?: number;
  notAfterMs: number | null;
  noPrefilter?: boolean;
  custom: CustomSignalSpec[];
}

export type ToWorker =
  | { type: 'start'; job: ExtractJob }
  | { type: 'chunk'; data: Uint8Array }
  | { type: 'end' }
  | { type: 'fail'; message: string };

export type FromWorker =
  | { type: 'ack' }
  | { type: 'done'; result: ArtifactSignals }
  | { type: 'error'; message: string };
