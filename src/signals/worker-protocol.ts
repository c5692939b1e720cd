// Messages between the reading thread and a signal worker. Options travel as plain data: the zone and the custom
// patterns are rebuilt on the worker side.
import type { CustomSignalSpec } from './custom.js';
import type { SegmentOptions } from './extract.js';
import type { SegmentResult } from './segments.js';
import type { FileRange } from '../input/ranges.js';

export interface ExtractJob {
  artifact: number;
  zone: string;
  year?: number;
  notAfterMs: number | null;
  noPrefilter?: boolean;
  custom: CustomSignalSpec[];
}

/** A byte range of a plain file the worker reads itself; `progress`: report bytes and lines as they go. */
export type ToWorker = { type: 'range'; id: number; job: ExtractJob; options: SegmentOptions; range: FileRange; progress: boolean };

export type FromWorker =
  | { type: 'done'; id: number; result: SegmentResult }
  | { type: 'progress'; id: number; bytes: number; lines: number }
  | { type: 'error'; id: number; message: string };
