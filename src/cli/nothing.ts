// The one error both `analyze` and `tui` give when the input holds nothing plegscope reads (exit 2, one line).
import type { Analysis } from '../contract/analysis.js';
import { InputError } from '../sources/artifact.js';
import { count } from '../report/words.js';

/** Throws when the analysis found no node and read nothing it recognised in `paths`. A file it recognised that gave no
 *  node (points of an unnamed series, a dump with no goroutine) still gets a report: its warnings say what was read. */
export function requireNodes(paths: string[], analysis: Analysis): void {
  if (analysis.nodes.length > 0) return;
  if (analysis.inputs.some((i) => i.artifacts.some((a) => a.role !== 'other' && a.lines > 0))) return;
  const first = analysis.warnings[0];
  throw new InputError(paths.join(' '), `nothing to analyze: no kubelet, runtime or kernel log, metrics snapshot or goroutine dump recognised${first ? ` (${count(analysis.warnings.length, 'warning')}; first: ${first.file ? (first.path ?? first.file) + ': ' : ''}${first.message})` : ''}`);
}
