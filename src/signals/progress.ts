// Progress of a range being read, as bytes and lines so far: the same count whether a worker or this thread reads it.

/** A chunk callback that counts bytes and lines and reports them at least every `everyBytes` (and at `flush`). */
export function chunkCounter(report: (bytes: number, lines: number) => void, everyBytes: number): { onChunk: (b: Buffer) => void; flush: () => void } {
  let bytes = 0;
  let lines = 0;
  let reported = 0;
  return {
    onChunk: (b) => {
      bytes += b.length;
      for (let p = b.indexOf(10); p >= 0; p = b.indexOf(10, p + 1)) lines++;
      if (bytes - reported >= everyBytes) {
        reported = bytes;
        report(bytes, lines);
      }
    },
    flush: () => report(bytes, lines),
  };
}
