import { Readable } from 'node:stream';
import { resolveZone } from '../../src/parse/time.js';
import { extractSignals, type ArtifactSignals } from '../../src/signals/extract.js';
import type { SignalEvent } from '../../src/signals/events.js';

/** Runs log text through the streaming extractor, in small chunks so chunk boundaries are exercised. */
export async function signalsOf(text: string, opts: { year?: number; tz?: string; noPrefilter?: boolean; chunk?: number } = {}): Promise<ArtifactSignals> {
  const buf = Buffer.from(text);
  const size = opts.chunk ?? 97;
  const chunks: Buffer[] = [];
  for (let i = 0; i < buf.length; i += size) chunks.push(buf.subarray(i, i + size));
  return extractSignals(Readable.from(chunks), {
    artifact: 0, zone: resolveZone(opts.tz ?? 'UTC'), year: opts.year ?? 2024, notAfterMs: null, noPrefilter: opts.noPrefilter,
  });
}

export async function eventsOf(text: string, opts: Parameters<typeof signalsOf>[1] = {}): Promise<SignalEvent[]> {
  return (await signalsOf(text, opts)).events;
}
