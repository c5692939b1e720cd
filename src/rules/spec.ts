// The shape of a rule. Rules are data (node-problem-detector style): conditions over named facts, independent pieces
// of supporting and contrary evidence with weights, the evidence pools to cite, and text templates. Built-in rules and
// user rule packs (--rules FILE) share this shape and the engine.
import type { Cause, FindingKind, Severity } from '../contract/analysis.js';

export type Op = '>' | '>=' | '<' | '<=' | '==' | '!=' | 'exists' | 'absent' | 'truthy' | 'falsy';

export interface Condition {
  fact: string;
  op: Op;
  value?: number | string | boolean;
}

export interface Weighted {
  when: Condition[];
  weight: number;
  /** Short phrase for the report: why confidence moved. */
  label: string;
}

export interface RuleSpec {
  id: string;
  cause: Cause;
  severity: Severity;
  title: string;
  /** `stall`: can be the primary cause of a PLEG stall; `notready`: names a non-PLEG NotReady reason; `warning`: a sign only. */
  explains: FindingKind;
  /** All must hold for the rule to fire. */
  when: Condition[];
  /** At least one group must hold entirely (when given): alternative signatures of the same cause. */
  anyOf?: Condition[][];
  base: number;
  support?: Weighted[];
  contra?: Weighted[];
  /** Evidence pools cited, in order (facts.ts names them). */
  evidence: string[];
  /** Counted kinds of line its summary states (facts.ts `COUNTED`): the finding carries the grep that checks each. */
  counts?: string[];
  /** Templates: `{fact}` or `{fact|fmt}` with fmt in dur, n, s, pct, sec. */
  summary: string;
  remediation: string;
  references?: string[];
  /** Why this cause is ruled out when the rule does not fire on a node that stalled: conditions + reason template. */
  ruledOut?: Array<{ when: Condition[]; reason: string }>;
}

export interface GapSpec {
  id: string;
  when: Condition[];
  missing: string;
  why: string;
  collect: string;
  /** Said only after other gaps, as the one command that gets them all. */
  closing?: boolean;
}

export type { CustomSignalSpec } from '../signals/custom.js';
import type { CustomSignalSpec } from '../signals/custom.js';

export interface RulePack {
  rules: RuleSpec[];
  signals?: CustomSignalSpec[];
}
