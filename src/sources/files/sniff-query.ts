// Saved Prometheus query answers, recognised by content (sniff.ts asks before anything else): what people attach to
// tickets. Examples:
//   {"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"kubelet_pleg_last_seen_seconds",…
//   kubelet_pleg_last_seen_seconds{instance="10.0.0.12:10250", node="worker-2"} =>
//   1710151632 @[1710151800]
//   kubelet_running_pods{node="worker-2"} => 30 @[1710151800]
// and the points of one series pasted without their `series =>` line (the expression browser's console, cut):
//   73240120 @1574745815.321
//   77793968 @1574745875.321
/** What sniff.ts makes of a saved query answer (structural, so this file needs nothing of sniff.ts). */
export type QuerySniffed = { role: 'metrics'; format: 'prometheus-query-json' | 'prometheus-query-text' };

const RE_JSON_ANSWER = /"resultType"\s*:\s*"(?:matrix|vector)"/;
const RE_TEXT_HEADER = /^(?:[a-zA-Z_:][a-zA-Z0-9_:]*)?(?:\{.*\})? =>(?: \S+ @\[?[0-9.eE+-]+\]?)?\s*$/;
const RE_TEXT_POINT = /^\S+ @\[?[0-9.eE+-]+\]?\s*$/;

/** `text` is the head as text, `content` its non-blank lines (without a common indentation). */
export function sniffQueryResult(text: string, content: string[]): QuerySniffed | null {
  const first = content[0] ?? '';
  if (first.startsWith('{')) {
    return RE_JSON_ANSWER.test(text) && /"result"\s*:\s*\[/.test(text) ? { role: 'metrics', format: 'prometheus-query-json' } : null;
  }
  const sample = content.slice(0, 50);
  let headers = 0;
  let points = 0;
  for (const l of sample) {
    if (RE_TEXT_HEADER.test(l)) headers++;
    else if (RE_TEXT_POINT.test(l)) points++;
  }
  const enough = headers > 0 ? headers + points >= 2 : points >= 3;
  return enough && headers + points >= sample.length * 0.8 ? { role: 'metrics', format: 'prometheus-query-text' } : null;
}
