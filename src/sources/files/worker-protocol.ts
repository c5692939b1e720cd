// Messages between the reading thread and a signal worker. Options travel as plain data: the zone and the custom
// patterns are rebuilt on the worker side.
import type { CustomSignalSpec } from '../../signals/custom.js';
import type { SegmentOptions } from '../../signals/extract.js';
import type { SegmentResult } from './segments.js';
import type { FileRange } from './ranges.js';

export interface ExtractJob {
  artifact: number;
  zone: string;
  year?: number;
  notAfterMs: number | null;
  noPrefilter?: boolean;
  custom: CustomSignalSpec[];
  nameOrigin?: 'kubelet' | 'runtime' | 'kernel';
}

/** A byte range of a plain file the worker reads itself; `progress`: report bytes and lines as they go. Every worker
 *  gets every range; `claim` (one Int32 in shared memory, 0 while unclaimed) says who runs it: the first thread to
 *  swap in its own number (CLAIMED_BY_MAIN for the reading thread, the worker's `workerData` number for a worker). */
export type ToWorker = { type: 'range'; id: number; claim: Int32Array; job: ExtractJob; options: SegmentOptions; range: FileRange; progress: boolean };

export const CLAIMED_BY_MAIN = -1;

/** Takes a range for the thread numbered `self` unless another thread has it already. */
export function claimRange(claim: Int32Array, self: number): boolean {
  return Atomics.compareExchange(claim, 0, 0, self) === 0;
}

export type FromWorker =
  | { type: 'done'; id: number; result: SegmentResult }
  | { type: 'progress'; id: number; bytes: number; lines: number }
  | { type: 'error'; id: number; message: string };
