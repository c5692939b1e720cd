/** Line numbers (from 1) as a bitmap: a document of 120 000 rows marks them in 15 KB where a Set of them takes megabytes. */
export class LineSet {
  private bits = new Uint8Array(64);

  add(line: number): void {
    const i = line >>> 3;
    if (i >= this.bits.length) {
      const grown = new Uint8Array(Math.max(i + 1, this.bits.length * 2));
      grown.set(this.bits);
      this.bits = grown;
    }
    this.bits[i] = (this.bits[i] as number) | (1 << (line & 7));
  }

  has(line: number): boolean {
    const i = line >>> 3;
    return i < this.bits.length && ((this.bits[i] as number) & (1 << (line & 7))) !== 0;
  }
}

/** What a reader asks of a document's lines: is this one the document's own? */
export interface LineTest {
  has(line: number): boolean;
}
