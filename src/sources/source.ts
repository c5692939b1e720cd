// What every source hands analyze(): the files and bundles (src/sources/files), a Prometheus history
// (src/sources/prometheus), and what a live cluster gave, saved as files (src/sources/cluster). analyze() merges
// them: their artifacts' data goes to the model as one list, their warnings to the report, and each names its own
// artifacts in the report's inputs and evidence. No source reads another's modules; a later source may read the data
// an earlier one gave (a Prometheus history asks for the nodes and stalls the files show).
import type { InputInfo, Warning } from '../contract/analysis.js';
import type { ArtifactData } from '../model/node.js';

export interface SourceRead {
  /** Per artifact the data the model reads; ids are unique across the sources of one run (each starts where the
   *  one before it ended). */
  data: ArtifactData[];
  warnings: Warning[];
  /** The report's inputs for what this source read, once the model has put its artifacts on nodes. */
  inputs(nodeOf: (id: number) => string | null): InputInfo[];
  /** How evidence from artifact `id` is cited (a path, or a query's label); undefined when `id` is not this source's. */
  cite(id: number): string | undefined;
  /** Cited labels of samples a server answered rather than a file held (`metricsFrom` kind `prometheus`). */
  served: Set<string>;
}
