// The options of `analyze` as commander hands them over (also what `collect` passes on to the analysis it prints).
import type { PrometheusFlags } from './scan-command.js';

export interface AnalyzeFlags extends PrometheusFlags {
  format: 'text' | 'json' | 'markdown' | 'md' | 'junit' | 'html';
  output?: string;
  year?: number;
  tz?: string;
  displayTz?: string;
  failOn?: string;
  color?: boolean;
  debug?: boolean;
  prefilter?: boolean;
  rules?: string;
  redact?: boolean;
  redactMap?: string;
  evidence?: number;
  width?: number;
}
