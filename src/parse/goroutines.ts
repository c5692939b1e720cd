// Goroutine dumps (kubelet SIGQUIT / `debug/pprof/goroutine?debug=2`, and pprof `debug=1`) → the relist goroutine.
// debug=2 / SIGQUIT:
//   goroutine 417 [chan send, 12 minutes]:
//   k8s.io/kubernetes/pkg/kubelet/pleg.(*GenericPLEG).relist(0xc0004a2000)
//   	/workspace/…/pkg/kubelet/pleg/generic.go:259 +0x8c5
// debug=1:
//   1 @ 0x43a1c5 0x4069f7 0x1c2a4b5
//   #	0x1c2a4b4	k8s.io/kubernetes/pkg/kubelet/pleg.(*GenericPLEG).relist+0x8c4	/workspace/…/generic.go:259
// Only the goroutines that run relist are kept; a dump of 20 000 goroutines is streamed line by line.

export interface Goroutine {
  id: number | null;
  /** `chan send`, `select`, `IO wait`, `semacquire`, … (null in debug=1 dumps, which do not say). */
  state: string | null;
  waitMinutes: number | null;
  /** Function names, innermost first. */
  frames: string[];
  /** Innermost frame inside the kubelet (or its CRI client / dockershim). */
  deepestKubeletFrame: string | null;
  line: number;
  headerText: string;
}

export interface ParsedGoroutines {
  /** Artifact id of the dump (set by the caller), for evidence refs. */
  artifact?: number;
  format: 'debug2' | 'debug1';
  total: number;
  relist: Goroutine[];
}

const KUBELET_FRAME = /k8s\.io\/(kubernetes\/pkg\/kubelet|cri-client|kubernetes\/pkg\/kubelet\/dockershim)|\/pkg\/kubelet\//;
const HEADER2 = /^goroutine (\d+) \[([^\],]+)(?:, (\d+) minutes)?(?:, [^\]]*)?\]:/;
const HEADER1 = /^(\d+) @ 0x[0-9a-f]/;

export class GoroutineParser {
  private cur: Goroutine | null = null;
  private format: 'debug2' | 'debug1' = 'debug2';
  private total = 0;
  private readonly relist: Goroutine[] = [];

  push(line: string, lineNo: number): void {
    const h2 = HEADER2.exec(line);
    if (h2) {
      this.close();
      this.total++;
      this.cur = { id: Number(h2[1]), state: h2[2] as string, waitMinutes: h2[3] ? Number(h2[3]) : null, frames: [], deepestKubeletFrame: null, line: lineNo, headerText: line };
      return;
    }
    const h1 = HEADER1.exec(line);
    if (h1) {
      this.close();
      this.format = 'debug1';
      this.total += Number(h1[1]);
      this.cur = { id: null, state: null, waitMinutes: null, frames: [], deepestKubeletFrame: null, line: lineNo, headerText: line };
      return;
    }
    if (!this.cur) return;
    if (line.startsWith('#\t')) {
      const f = line.split('\t')[2];
      if (f) this.addFrame(f.replace(/\+0x[0-9a-f]+$/, ''));
    } else if (line.length > 0 && line.charCodeAt(0) !== 9 && line.charCodeAt(0) !== 32 && !line.startsWith('created by ')) {
      this.addFrame(line.replace(/\([^()]*\)$/, ''));
    } else if (line.length === 0) {
      this.close();
    }
  }

  private addFrame(f: string): void {
    const g = this.cur as Goroutine;
    if (g.frames.length >= 64) return;
    g.frames.push(f);
    if (!g.deepestKubeletFrame && KUBELET_FRAME.test(f)) g.deepestKubeletFrame = f;
  }

  private close(): void {
    const g = this.cur;
    this.cur = null;
    if (g && g.frames.some((f) => f.includes('GenericPLEG).relist') || f.includes('GenericPLEG).Relist'))) this.relist.push(g);
  }

  finish(): ParsedGoroutines {
    this.close();
    return { format: this.format, total: this.total, relist: this.relist };
  }
}
