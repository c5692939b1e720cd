// A cited line's message: the line without what a report already shows beside it. An evidence line is shown with its
// file, line number and time; the node's name and the unit are the section's. So what the reader needs of the line is
// what follows its prefix elements (parse/record.ts): the journal's time, host and identifier, and a klog header.
//   Mar 11 10:09:14 worker-3 kubelet[2817]: E0311 10:09:14.423192    2817 remote_runtime.go:294] "ListPodSandbox with
//   filter from runtime service failed" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded"
// → "ListPodSandbox with filter from runtime service failed" err="rpc error: code = DeadlineExceeded desc = …"
//   time="2024-03-11T10:04:12.000150Z" level=error msg="get state for 9f2…" error="context deadline exceeded"
// → level=error msg="get state for 9f2…" error="context deadline exceeded"
// A JSON line (kubelet JSON logging) becomes its message and fields, as structured klog writes them.
import { linePrefixOf, skipLinePrefix } from '../util/line-prefix.js';
import { parseLine } from './record.js';
import { resolveZone, WallClock, YearClock } from './time.js';

const wall = new WallClock(resolveZone('UTC'));

/** `text`'s message (see above), or null when it is the whole line (nothing to take off) or the line does not parse. */
export function messageOf(text: string): string | null {
  // What `grep -n`, `grep -r` or `cat -n` put before the line (the file's own lines are cited as they are) goes too.
  const lead = text.length - text.trimStart().length;
  const prefix = linePrefixOf(text, lead);
  const line = prefix ? text.slice(skipLinePrefix(text, lead, prefix)) : text;
  // Only the line's start is looked at for prefixes; a huge line keeps its length (views cut what they show).
  const rec = parseLine(line, 1, 0, { wall, years: new YearClock(wall, { year: 2000 }) });
  if (!rec) return null;
  let m = rec.payload;
  if (rec.kind === 'klog') {
    // After the header's `] ` (its severity, time, thread and caller): `"msg" key=…` or printf text.
    const i = rec.caller ? m.indexOf(`${rec.caller}] `) : -1;
    if (i >= 0) m = m.slice(i + rec.caller!.length + 2);
  } else if (rec.kind === 'logrus' && m.startsWith('time="')) {
    const i = m.indexOf('" ', 6);
    if (i >= 0) m = m.slice(i + 2);
  } else if (rec.kind === 'json' && m.startsWith('{')) {
    const fields = Object.entries(rec.fields).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
    m = [JSON.stringify(rec.msg), ...fields].join(' ');
  }
  m = m.trim();
  return m && m !== text.trim() ? m : null;
}
