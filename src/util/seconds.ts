// Seconds written short, for bucket bounds and latencies that are not measured to the millisecond: the figure a
// kubelet dashboard shows for the same bucket (`119s`, `12.5ms`), in the unit that reads best.

/** `x` seconds to 3 significant digits (whole seconds from 100 s), trailing zeros dropped, in s, ms or µs:
 *  119.209 → `119s`, 2.5 → `2.5s`, 0.0125 → `12.5ms`; `space` puts a space before the unit (prose: `119 s`). */
export function shortSeconds(x: number, space = false): string {
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '—';
  const [v, unit] = x === 0 ? [0, 's'] : x >= 0.9995 ? [x, 's'] : x >= 0.0009995 ? [x * 1e3, 'ms'] : [x * 1e6, 'µs'];
  const digits = v >= 100 ? String(Math.round(v)) : v.toPrecision(3).replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
  return `${digits}${space ? ' ' : ''}${unit}`;
}
