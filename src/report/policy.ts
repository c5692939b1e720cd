// What fails a CI run: the one policy the exit code (`--fail-on`) and the JUnit testcases share, so they cannot
// disagree. It reads a finding's effective severity (engine.ts effectiveSeverity: the rule's severity lowered when the
// finding is not established or is contradicted), the same severity every report prints.
//   the verdict    a node that stalled (PLEG unhealthy) fails JUnit's `pleg-healthy` under every policy, and the exit
//                  code under `--fail-on stall`;
//   --fail-on SEV  findings at or above SEV, weak alternatives ("also considered") never;
//   no --fail-on   exit 0 (no policy was asked for); JUnit fails the verdict and the findings that explain a stall at
//                  a confidence of 0.5 or more, so an `info` finding on a healthy node leaves the run green.
import type { Analysis, Finding, NodeReport, Severity } from '../contract/analysis.js';
import { SEVERITIES, WEAK_CONFIDENCE } from '../contract/analysis.js';

/** `--fail-on` levels: a severity, `stall`, or none. */
export type FailOn = Severity | 'stall' | undefined;

/** The node's PLEG verdict: the stalls, the header, `pleg-healthy` and `--fail-on stall` all say the same. */
export function stalled(n: NodeReport): boolean {
  return n.verdict.plegUnhealthy;
}

/** Whether a finding fails under the policy: its JUnit testcase fails, and (with `--fail-on SEV`) the exit code is 1. */
export function findingFails(f: Finding, failOn: FailOn): boolean {
  if (f.considered || failOn === 'stall') return false;
  if (failOn === undefined) return f.explains === 'stall' && f.confidence >= WEAK_CONFIDENCE;
  return SEVERITIES.indexOf(f.severity) <= SEVERITIES.indexOf(failOn);
}

/** The exit code's question: 1 when `--fail-on` matched (a stall for `stall`, a finding that fails for a severity). */
export function failOnTriggered(analysis: Analysis, failOn: string | undefined): boolean {
  if (!failOn) return false;
  if (failOn === 'stall') return analysis.nodes.some(stalled);
  return analysis.nodes.some((n) => n.findings.some((f) => findingFails(f, failOn as Severity)));
}
