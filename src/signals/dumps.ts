// A kubelet goroutine dump as timeline events: a relist goroutine parked for minutes is a relist that has not
// returned, i.e. a PLEG stall, even where no log line says so. Go prints a goroutine's wait in whole minutes once it
// has waited one; relist updates its time when its GetPods succeeds, so a relist parked N minutes means no relist
// has completed for at least N minutes. From 3 minutes (the health threshold) that is PLEG unhealthy:
//
//   goroutine 386 [chan send, 1140 minutes]:
//   k8s.io/kubernetes/pkg/kubelet/pleg.(*GenericPLEG).relist(0xc42069ea20)
//   	/workspace/…/pkg/kubelet/pleg/generic.go:261 +0x74e
//
// → a relist-unhealthy event, undated (a dump says how long, not since when), aged 1140 minutes.
import type { ParsedGoroutines } from '../parse/goroutines.js';
import type { SignalEvent } from './events.js';

const THRESHOLD_MINUTES = 3;

export function dumpEvents(dump: ParsedGoroutines, artifact: number, host: string | null): SignalEvent[] {
  if (dump.program !== 'kubelet' && dump.program !== 'unknown') return [];
  const out: SignalEvent[] = [];
  for (const g of dump.relist) {
    if (g.waitMinutes === null || g.waitMinutes < THRESHOLD_MINUTES || !g.state || /^(?:running|runnable)/.test(g.state)) continue;
    const ref = { artifact, line: g.line, offset: 0, ts: NaN, mono: NaN, text: g.headerText };
    out.push({ type: 'relist-unhealthy', ageSeconds: g.waitMinutes * 60, thresholdSeconds: 180, neverSucceeded: false, source: 'goroutine-dump', runtimeDown: false, uptimeSeconds: null, ts: NaN, host, ref });
    break;
  }
  return out;
}
