// Structured klog payloads: `"Skipping pod synchronization" err="PLEG is not healthy: …" pod="ns/name" exitCode=137`.
// The message is always strconv.Quote'd; values are Go-quoted strings, bare numbers/bools, or `{…}` structs (%+v up to
// 1.27, JSON from 1.28). Only lines that passed the prefilter get here, so clarity beats speed.

/** Reads a Go-quoted string starting at the opening quote `i`; returns the unescaped value and the index after it. */
export function readQuoted(s: string, i: number): { value: string; end: number } | null {
  if (s.charCodeAt(i) !== 34) return null;
  let out = '';
  let j = i + 1;
  let runStart = j;
  while (j < s.length) {
    const c = s.charCodeAt(j);
    if (c === 34) {
      out += s.slice(runStart, j);
      return { value: out, end: j + 1 };
    }
    if (c === 92 && j + 1 < s.length) {
      out += s.slice(runStart, j);
      const e = s[j + 1];
      switch (e) {
        case 'n': out += '\n'; j += 2; break;
        case 't': out += '\t'; j += 2; break;
        case 'r': out += '\r'; j += 2; break;
        case '"': out += '"'; j += 2; break;
        case '\\': out += '\\'; j += 2; break;
        case 'x': {
          const h = parseInt(s.slice(j + 2, j + 4), 16);
          out += Number.isNaN(h) ? '\\x' : String.fromCharCode(h);
          j += Number.isNaN(h) ? 2 : 4;
          break;
        }
        case 'u': {
          const h = parseInt(s.slice(j + 2, j + 6), 16);
          out += Number.isNaN(h) ? '\\u' : String.fromCharCode(h);
          j += Number.isNaN(h) ? 2 : 6;
          break;
        }
        default: out += e; j += 2;
      }
      runStart = j;
      continue;
    }
    j++;
  }
  // Unterminated (truncated line): keep what there is.
  return { value: out + s.slice(runStart), end: s.length };
}

function skipBalanced(s: string, i: number): number {
  let depth = 0;
  let j = i;
  while (j < s.length) {
    const c = s.charCodeAt(j);
    if (c === 34) {
      const q = readQuoted(s, j);
      j = q ? q.end : j + 1;
      continue;
    }
    if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      depth--;
      if (depth === 0) return j + 1;
    }
    j++;
  }
  return s.length;
}

/** Parses ` key=value` pairs from `i` to the end of `s`. Unknown shapes end the scan; never throws. */
export function parseKeyValues(s: string, i: number): Record<string, string> {
  const out: Record<string, string> = {};
  let j = i;
  const n = s.length;
  while (j < n) {
    while (j < n && s.charCodeAt(j) === 32) j++;
    const eq = s.indexOf('=', j);
    if (eq <= j) break;
    const key = s.slice(j, eq);
    if (!/^[A-Za-z_][\w.\-/]*$/.test(key)) break;
    let v = eq + 1;
    const c = s.charCodeAt(v);
    if (c === 34) {
      const q = readQuoted(s, v);
      if (!q) break;
      out[key] = q.value;
      j = q.end;
    } else if (c === 123 || c === 91 || (c === 38 && s.charCodeAt(v + 1) === 123)) {
      if (c === 38) v++;
      const end = skipBalanced(s, v);
      out[key] = s.slice(v, end);
      j = end;
    } else if (c === 60 && s.charCodeAt(v + 1) === 10) {
      // `key=<\n\tline\n >` multi-line value: the rest belongs to continuation lines.
      out[key] = s.slice(v + 2).replace(/\n\t/g, '\n').replace(/\n >$/, '');
      break;
    } else {
      let end = s.indexOf(' ', v);
      if (end < 0) end = n;
      out[key] = s.slice(v, end);
      j = end;
    }
  }
  return out;
}
