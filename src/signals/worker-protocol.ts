// Messages between the reading thread and a signal worker. Options travel as plain data: the zone and the custom
// patterns are rebuilt on the worker side.
import type { CustomSignalSpec } from './custom.js';
import type { SegmentOptions } from './extract.js';
import type { SegmentResult } from './segments.js';

export interface ExtractJob {
  artifact: number;
  zone: string;
  year?: number;
  notAfterMs: number | null;
  noPrefilter?: boolean;
  custom: CustomSignalSpec[];
}

export type ToWorker = { type: 'segment'; id: number; job: ExtractJob; options: SegmentOptions; bytes: Uint8Array };

export type FromWorker =
  | { type: 'done'; id: number; result: SegmentResult }
  | { type: 'error'; id: number; message: string };
