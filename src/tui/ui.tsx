// Shared bits of the views: a theme that drops colours under NO_COLOR (inverse and bold stay: they are not colour),
// and one-line text that never wraps (every view lays out whole lines itself).
import { createContext, useContext, type ReactNode } from 'react';
import { Text } from 'ink';
import type { Severity } from '../contract/analysis.js';
import type { Level } from '../parse/record.js';

export const ThemeContext = createContext<{ color: boolean }>({ color: true });

export interface LineProps {
  color?: string;
  /** Background colour (dropped, like colours, when they are off). */
  bg?: string;
  bold?: boolean;
  dim?: boolean;
  inverse?: boolean;
  underline?: boolean;
  children?: ReactNode;
}

/** Text styled when colours are on; only bold/inverse/underline/dim when they are off. */
export function T({ color, bg, bold, dim, inverse, underline, children }: LineProps) {
  const theme = useContext(ThemeContext);
  return (
    <Text color={theme.color ? color : undefined} backgroundColor={theme.color ? bg : undefined} bold={bold} dimColor={dim} inverse={inverse} underline={underline}>
      {children}
    </Text>
  );
}

/** One terminal line: cut at the edge, never wrapped. */
export function Line({ children, ...style }: LineProps) {
  const theme = useContext(ThemeContext);
  return (
    <Text wrap="truncate-end" color={theme.color ? style.color : undefined} bold={style.bold} dimColor={style.dim} inverse={style.inverse} underline={style.underline}>
      {children === '' || children === undefined ? ' ' : children}
    </Text>
  );
}

export const SEVERITY_COLOR: Record<Severity, string> = { critical: 'redBright', high: 'red', medium: 'yellow', low: 'cyan', info: 'gray' };

export function levelColor(l: Level | null): string | undefined {
  if (l === 'E' || l === 'F') return 'red';
  if (l === 'W') return 'yellow';
  return undefined;
}

/** Pads a list of lines to exactly `n` (blank lines keep frames the same height). */
export function Blank({ n }: { n: number }) {
  if (n <= 0) return null;
  return (
    <>
      {Array.from({ length: n }, (_, i) => (
        <Text key={`blank-${i}`}> </Text>
      ))}
    </>
  );
}
