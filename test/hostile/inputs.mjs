// Hostile inputs for test/hostile/hostile.test.ts (npm run test:hostile), built at test time in a temp dir: small
// generators, nothing large committed. Each is the reproduction of a point of issue 16; most hide a good kubelet log
// (GOOD_NODE, one stall) behind the attack, so a test can check that the rest of the input was still analyzed.
// Plain .mjs so that a person can build one by hand: node -e "import('./test/hostile/inputs.mjs').then(m => m.…)".
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import tar from 'tar-stream';

export const GOOD_NODE = 'good-node';
const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MTIME = new Date(Date.UTC(2024, 2, 11, 12, 0, 0));

function stamp(t) {
  const d = new Date(t);
  const p2 = (n) => String(n).padStart(2, '0');
  return { md: `${MON[d.getUTCMonth()]} ${p2(d.getUTCDate())}`, hms: `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`, klog: `${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())}` };
}

/** A kubelet journal line (journalctl short, klog header). */
export function kubeletLine(t, level, caller, payload, host = GOOD_NODE) {
  const s = stamp(t);
  return `${s.md} ${s.hms} ${host} kubelet[2817]: ${level}${s.klog} ${s.hms}.${String(new Date(t).getUTCMilliseconds() * 1000).padStart(6, '0')}    2817 ${caller}] ${payload}`;
}

/** A kubelet log of `host` with one 10-minute PLEG stall from 10:00 (relists resume at 10:10:05). */
export function goodLog(host = GOOD_NODE) {
  const L = Date.UTC(2024, 2, 11, 10, 0, 0);
  const out = [kubeletLine(L - 3600_000, 'I', 'server.go:487', '"Kubelet version" kubeletVersion="v1.28.3"', host)];
  out.push(kubeletLine(L - 1000, 'I', 'kubelet.go:2434', '"SyncLoop (PLEG): event for pod" pod="default/web-0" event={"ID":"0892e7d7","Type":"ContainerStarted","Data":"a13c"}', host));
  for (let t = L + 180_500; t <= L + 600_000; t += 5000) {
    const age = Math.round((t - L) / 1000);
    out.push(kubeletLine(t, 'E', 'kubelet.go:2373', `"Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active ${Math.floor(age / 60)}m${age % 60}s ago; threshold is 3m0s"`, host));
  }
  out.push(kubeletLine(L + 605_000, 'I', 'kubelet.go:2434', '"SyncLoop (PLEG): event for pod" pod="default/web-0" event={"ID":"0892e7d7","Type":"ContainerStarted","Data":"a13c"}', host));
  return `${out.join('\n')}\n`;
}

/** Housekeeping lines (no signal in them): `bytes` of them, as one Buffer. */
export function quietLines(bytes) {
  const line = Buffer.from(`${kubeletLine(Date.UTC(2024, 2, 11, 9, 0, 0), 'I', 'kubelet.go:2400', '"SyncLoop (housekeeping)"', 'quiet-node')}\n`);
  return Buffer.alloc(Math.ceil(bytes / line.length) * line.length, line);
}

// ---------------------------------------------------------------------------------------------------------------
// tar, written as a stream of entries (members may be given as a function that writes their bytes piecewise).

/** Writes a tar of `entries` to `file` through `compress` (null, 'gz', 'xz', 'bz2'). Entry: { name, data } |
 *  { name, size, fill(write) } | { name, symlink } | { name, hardlink }. */
export async function writeTar(file, entries, compress = null) {
  const pack = tar.pack();
  const out = fs.createWriteStream(file);
  let sink = out;
  let child = null;
  if (compress === 'gz') {
    sink = zlib.createGzip({ level: 1 });
    sink.pipe(out);
  } else if (compress === 'xz' || compress === 'bz2') {
    const { spawn } = await import('node:child_process');
    child = spawn(compress === 'xz' ? 'xz' : 'bzip2', compress === 'xz' ? ['-c', '-0', '-T2'] : ['-c', '-1'], { stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdout.pipe(out);
    sink = child.stdin;
  }
  pack.pipe(sink);
  const done = new Promise((resolve, reject) => {
    out.on('close', resolve);
    out.on('error', reject);
  });
  for (const e of entries) {
    await new Promise((resolve, reject) => {
      const cb = (err) => (err ? reject(err) : resolve());
      if (e.symlink !== undefined) pack.entry({ name: e.name, type: 'symlink', linkname: e.symlink, mtime: MTIME }, cb);
      else if (e.hardlink !== undefined) pack.entry({ name: e.name, type: 'link', linkname: e.hardlink, mtime: MTIME }, cb);
      else if (e.data !== undefined) pack.entry({ name: e.name, mtime: MTIME, mode: 0o644 }, e.data, cb);
      else {
        const w = pack.entry({ name: e.name, size: e.size, mtime: MTIME, mode: 0o644 }, cb);
        (async () => {
          await e.fill(async (chunk) => {
            if (!w.write(chunk)) await new Promise((r) => w.once('drain', r));
          });
          w.end();
        })().catch(reject);
      }
    });
  }
  pack.finalize();
  await done;
  return file;
}

/** `n` bytes of zeros, written 1 MiB at a time. */
export function zeros(n) {
  const mib = Buffer.alloc(1 << 20);
  return async (write) => {
    for (let left = n; left > 0; left -= mib.length) await write(left >= mib.length ? mib : mib.subarray(0, left));
  };
}

// ---------------------------------------------------------------------------------------------------------------
// zip, by hand: the attacks need central directories that lie.

/** A deflate stream of `n` zeros (n a multiple of 1 MiB) built from one flushed block repeated: no 1 GiB pass needed. */
export function deflatedZeros(n) {
  const block = zlib.deflateRawSync(Buffer.alloc(1 << 20), { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
  const parts = Array(n >> 20).fill(block);
  parts.push(Buffer.from([0x03, 0x00]));
  return Buffer.concat(parts);
}

/**
 * A zip. Member: { name, data (uncompressed Buffer) } or { name, deflated, size, crc } (bytes as stored), optional
 * `symlink: true`; `at` reuses the local header of an earlier member (overlapping entries), `claimSize` overrides the
 * uncompressed size the central directory states. `mtime`: every member's time (whole hours).
 */
export function zipOf(members, mtime = MTIME) {
  const locals = [];
  const central = [];
  const offsets = [];
  let offset = 0;
  const dosTime = mtime.getUTCHours() << 11;
  const dosDate = ((mtime.getUTCFullYear() - 1980) << 9) | ((mtime.getUTCMonth() + 1) << 5) | mtime.getUTCDate();
  for (const m of members) {
    const name = Buffer.from(m.name, 'utf8');
    let at = offset;
    let deflated;
    let size;
    let crc;
    if (m.at !== undefined) {
      ({ at, deflated, size, crc } = offsets[m.at]);
    } else {
      deflated = m.deflated ?? zlib.deflateRawSync(m.data);
      size = m.size ?? m.data.length;
      crc = m.crc ?? zlib.crc32(m.data ?? Buffer.alloc(0));
      const lh = Buffer.alloc(30);
      lh.writeUInt32LE(0x04034b50, 0);
      lh.writeUInt16LE(20, 4);
      lh.writeUInt16LE(0x800, 6);
      lh.writeUInt16LE(8, 8);
      lh.writeUInt16LE(dosTime, 10);
      lh.writeUInt16LE(dosDate, 12);
      lh.writeUInt32LE(crc, 14);
      lh.writeUInt32LE(deflated.length, 18);
      lh.writeUInt32LE(size >>> 0, 22);
      lh.writeUInt16LE(name.length, 26);
      locals.push(lh, name, deflated);
      offset += 30 + name.length + deflated.length;
    }
    offsets.push({ at, deflated, size, crc });
    const ch = Buffer.alloc(46);
    ch.writeUInt32LE(0x02014b50, 0);
    ch.writeUInt16LE((3 << 8) | 20, 4);
    ch.writeUInt16LE(20, 6);
    ch.writeUInt16LE(0x800, 8);
    ch.writeUInt16LE(8, 10);
    ch.writeUInt16LE(dosTime, 12);
    ch.writeUInt16LE(dosDate, 14);
    ch.writeUInt32LE(crc, 16);
    ch.writeUInt32LE(deflated.length, 20);
    ch.writeUInt32LE((m.claimSize ?? size) >>> 0, 24);
    ch.writeUInt16LE(name.length, 28);
    ch.writeUInt32LE(((m.symlink ? 0o120777 : 0o100644) << 16) >>> 0, 38);
    ch.writeUInt32LE(at, 42);
    central.push(ch, name);
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  const count = members.length;
  end.writeUInt16LE(Math.min(count, 0xffff), 8);
  end.writeUInt16LE(Math.min(count, 0xffff), 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

export function xz(buf) {
  return execFileSync('xz', ['-c', '-9'], { input: buf, maxBuffer: 1 << 30 });
}

/** `total` bytes of `line` repeated, as .xz in blocks of `blockBytes` (the sizes in the block headers, as xz -T writes
 *  them): a multi-threaded decoder buffers a whole block ahead of its reader. Piped through the shell, never held. */
export function xzBlocks(line, total, blockBytes) {
  return execFileSync('sh', ['-c', 'yes "$LINE" | head -c "$TOTAL" | xz -c -0 -T2 --block-size="$BLOCK"'], {
    env: { ...process.env, LINE: line.replace(/\n$/, ''), TOTAL: String(total), BLOCK: String(blockBytes) }, maxBuffer: 1 << 28,
  });
}

export function write(dir, name, data) {
  const p = path.join(dir, name);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, data);
  return p;
}

// ---------------------------------------------------------------------------------------------------------------
// The attacks of issue 16, point 4 (archives). Each writes into `dir` and returns the path to analyze.

/** (a) A symlink whose target is `a/` × 400 000, in a .tar.xz of a few KB, before a good log. */
export async function deepLinkTarXz(dir) {
  return writeTar(path.join(dir, 'deep-link.tar.xz'), [
    { name: 'bundle/deep', symlink: 'a/'.repeat(400_000) },
    { name: 'bundle/var/log/kubelet.log', data: Buffer.from(goodLog()) },
  ], 'xz');
}

/** (b) 42.zip-style: zips in zips, `levels` deep, `fan` at each level, 64 MiB of zeros at each leaf; a good log beside. */
export function nestedZips(dir, levels = 4, fan = 8) {
  let z = zipOf([{ name: 'zeros.bin', deflated: deflatedZeros(64 << 20), size: 64 << 20, crc: 0 }]);
  for (let l = 0; l < levels; l++) z = zipOf(Array.from({ length: fan }, (_, i) => ({ name: `l${l}-${i}.zip`, data: z })));
  const outer = zipOf([{ name: 'nest.zip', data: z }, { name: 'bundle/var/log/kubelet.log', data: Buffer.from(goodLog()) }]);
  return write(dir, '42.zip', outer);
}

/** (c) 5000 central-directory entries sharing one 16 MiB deflate stream, and a good log. */
export function overlappingZip(dir) {
  const shared = { name: 'x/0.bin', deflated: deflatedZeros(16 << 20), size: 16 << 20, crc: 0 };
  const members = [shared, ...Array.from({ length: 4999 }, (_, i) => ({ name: `x/${i + 1}.bin`, at: 0 })), { name: 'bundle/var/log/kubelet.log', data: Buffer.from(goodLog()) }];
  return write(dir, 'overlap.zip', zipOf(members));
}

/** (d) Symlink entries that claim 100 bytes and inflate to 60 MiB each, and a good log. */
export function inflatedLinksZip(dir, n = 20) {
  const target = { deflated: deflatedZeros(60 << 20), size: 60 << 20, crc: 0, claimSize: 100, symlink: true };
  const members = Array.from({ length: n }, (_, i) => ({ name: `bundle/link${i}`, ...target }));
  members.push({ name: 'bundle/var/log/kubelet.log', data: Buffer.from(goodLog()) });
  return write(dir, 'links.zip', zipOf(members));
}

/** A ustar header for a regular file (names up to 100 bytes). */
function tarHeader(name, size) {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100, 'utf8');
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  h.write(`${Math.floor(MTIME.getTime() / 1000).toString(8).padStart(11, '0')}\0`, 136);
  h.write('        ', 148);
  h.write('0', 156);
  h.write('ustar\0' + '00', 257);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return h;
}

/** (e) 200 000 tiny members, then a good log, as a .tar.gz (written by hand: tar-stream takes ~15 s for as many). */
export function manyMembersTarGz(dir, n = 200_000) {
  const parts = [];
  const member = (name, data) => {
    parts.push(tarHeader(name, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  };
  for (let i = 0; i < n; i++) member(`bundle/tiny/${i % 100}/m${i}.txt`, Buffer.from(`${i}\n`));
  member('bundle/var/log/kubelet.log', Buffer.from(goodLog()));
  parts.push(Buffer.alloc(1024));
  return write(dir, 'many.tar.gz', zlib.gzipSync(Buffer.concat(parts), { level: 1 }));
}

/** (f) 1 GiB of zeros as the first member of a .tar.gz, then a good log. */
export async function zerosFirstTarGz(dir) {
  return writeTar(path.join(dir, 'zeros-first.tar.gz'), [
    { name: 'bundle/core.dump', size: 1 << 30, fill: zeros(1 << 30) },
    { name: 'bundle/var/log/kubelet.log', data: Buffer.from(goodLog()) },
  ], 'gz');
}

/** A kubelet log of `bytes` of one repeated line (~1000× compressible) as the first member of a .tar.gz, then a good log:
 *  the big member is cut at the ratio bound, the archive read on. */
export async function bombMemberTarGz(dir, bytes = 256 << 20) {
  const chunk = quietLines(1 << 20);
  return writeTar(path.join(dir, 'bomb-member.tar.gz'), [
    { name: 'bundle/var/log/quiet/kubelet.log', size: chunk.length * Math.ceil(bytes / chunk.length), fill: async (w) => { for (let i = 0; i < Math.ceil(bytes / chunk.length); i++) await w(chunk); } },
    { name: 'bundle/var/log/kubelet.log', data: Buffer.from(goodLog()) },
  ], 'gz');
}

// ---------------------------------------------------------------------------------------------------------------
// Cloud exports read whole (src/input/exports.ts): a document up to the 16 MiB bound, every entry a matching line.

/** A `gcloud logging read --format=json` array (`form` 'json') or a Logs Explorer CSV (`form` 'csv') of `bytes` of
 *  "PLEG is not healthy" entries of GOOD_NODE, newest first (the export is turned round), 10 ms apart from 10:03:01. */
export function plegExport(dir, form, bytes = (16 << 20) - 4096) {
  const L = Date.UTC(2024, 2, 11, 10, 0, 0);
  const rows = [];
  let size = 64;
  for (let i = 0; size < bytes; i++) {
    const t = L + 181_000 + i * 10;
    const age = (t - L) / 1000;
    const hms = new Date(t).toISOString().slice(11, 23);
    const msg = `E0311 ${hms}000    2817 kubelet.go:2373] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active ${Math.floor(age / 60)}m${(age % 60).toFixed(2)}s ago; threshold is 3m0s"`;
    const row = form === 'json'
      ? JSON.stringify({ insertId: `i${i}`, logName: 'projects/p/logs/kubelet', resource: { type: 'k8s_node', labels: { node_name: GOOD_NODE } }, textPayload: msg, timestamp: new Date(t).toISOString() })
      : [`i${i}`, 'projects/p/logs/kubelet', GOOD_NODE, new Date(t).toISOString(), `"${msg.replace(/"/g, '""')}"`].join(',');
    rows.push(row);
    size += row.length + 2;
  }
  rows.reverse();
  const text = form === 'json' ? `[${rows.join(',\n')}]\n` : `insertId,logName,resource.labels.node_name,timestamp,textPayload\r\n${rows.join('\r\n')}\r\n`;
  return write(dir, `pleg-export.${form}`, text);
}

// ---------------------------------------------------------------------------------------------------------------
// Many small files (issue 28, point 3): a folder (or a .tar.gz) of `n` of them in 100 folders, and the good log.

/** Two real kubelet lines of one of three nodes (node-0, node-1, node-2), 10 ms after the file before. */
function tinyLog(i) {
  const t = Date.UTC(2024, 2, 11, 9, 0, 0) + i * 10;
  const host = `node-${i % 3}`;
  return `${kubeletLine(t, 'I', 'kubelet.go:2400', '"SyncLoop (housekeeping)"', host)}\n${kubeletLine(t + 5, 'I', 'kubelet.go:2434', '"SyncLoop (PLEG): event for pod" pod="default/web-0" event={"ID":"0892e7d7","Type":"ContainerStarted","Data":"a13c"}', host)}\n`;
}

/** A folder of `n` tiny files (`d<k>/f<i>.txt`, a few bytes each: what nothing recognises), or with `logs`, of `n` tiny
 *  kubelet logs (`d<k>/kubelet-<i>.log`, two lines each); and GOOD_NODE's log (`kubelet.log`). Written with a loop of
 *  writeFileSync (no process per file). */
export function tinyFiles(root, n = 100_000, logs = false) {
  for (let k = 0; k < 100; k++) fs.mkdirSync(path.join(root, `d${k}`), { recursive: true });
  for (let i = 0; i < n; i++) fs.writeFileSync(path.join(root, `d${i % 100}`, logs ? `kubelet-${i}.log` : `f${i}.txt`), logs ? tinyLog(i) : `${i}\n`);
  write(root, 'kubelet.log', goodLog());
  return root;
}

/** The same `n` tiny kubelet logs and the good log as one .tar.gz (a tar stream written by hand: a few seconds). */
export function tinyLogsTarGz(dir, n = 100_000) {
  const parts = [];
  const member = (name, data) => parts.push(tarHeader(name, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  for (let i = 0; i < n; i++) member(`logs/d${i % 100}/kubelet-${i}.log`, Buffer.from(tinyLog(i)));
  member('logs/kubelet.log', Buffer.from(goodLog()));
  parts.push(Buffer.alloc(1024));
  return write(dir, 'tiny-logs.tar.gz', zlib.gzipSync(Buffer.concat(parts), { level: 6 }));
}

// ---------------------------------------------------------------------------------------------------------------
// Many distinct names (issue 28, point 3): kernel lines each naming a new NFS server, hung task or OOM victim.

/**
 * `bytes` of kernel lines of GOOD_NODE from 09:58 to 10:11 (around the good log's stall), each naming a new NFS server
 * (`nfs-123.example.com`), a new hung task (`foo-123:4567`) or a new OOM victim (the kernel's `oom-kill:…task=foo-123,
 * pid=4567` summary, then its `Killed process 4567 (foo-123)`), one kind after the other. An equal share each as the
 * journal (`kernel.log`), `dmesg -T` (`dmesg.txt`) and raw dmesg (`dmesg-raw.txt`, seconds since boot) write them (or
 * those of `files`). Returns how many lines of each kind, and per file.
 */
export function kernelNames(dir, bytes, files = ['kernel.log', 'dmesg.txt', 'dmesg-raw.txt']) {
  const L = Date.UTC(2024, 2, 11, 9, 58, 0);
  const span = 13 * 60_000;
  const out = { nfs: 0, hung: 0, oomKill: 0, killed: 0, lines: {} };
  const DAY = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const shapes = [
    ['kernel.log', (t, s) => `${s.md} ${s.hms} ${GOOD_NODE} kernel: `],
    ['dmesg.txt', (t, s) => `[${DAY[new Date(t).getUTCDay()]} ${s.md.replace(/ 0/, ' ')} ${s.hms} ${new Date(t).getUTCFullYear()}] `],
    ['dmesg-raw.txt', (t) => `[${((t - L) / 1000 + 86_400).toFixed(6).padStart(13)}] `],
  ].filter(([f]) => files.includes(f));
  for (const [k, [file, prefixOf]] of shapes.entries()) {
    const fd = fs.openSync(path.join(dir, file), 'w');
    const per = Math.floor(bytes / shapes.length);
    let size = 0;
    let batch = [];
    // ~140 bytes a line on average: the line count decides the times (spread evenly over the span).
    const lines = Math.ceil(per / 140);
    let i = 0;
    for (; size < per; i++) {
      const t = L + Math.floor((i * span) / lines);
      const id = `${k}${i}`;
      const pid = (j) => 1000 + ((j * 7919 + k * 1_000_003) % 4_000_000);
      // One task and one victim in a thousand is the runtime's (what the rules tell apart).
      const name = (j, runtime) => ((j >> 2) % 1000 === 7 ? runtime : `foo-${k}${j}`);
      let l;
      switch (i % 4) {
        case 0: l = `nfs: server nfs-${id}.example.com not responding, still trying`; out.nfs++; break;
        case 1: l = `INFO: task ${name(i, 'dockerd')}:${pid(i)} blocked for more than 120 seconds.`; out.hung++; break;
        case 2: l = `oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=cri-containerd-${id}.scope,mems_allowed=0,task=${name(i, 'containerd')},pid=${pid(i)},uid=1000`; out.oomKill++; break;
        default: l = `Memory cgroup out of memory: Killed process ${pid(i - 1)} (${name(i - 1, 'containerd')}) total-vm:5234884kB, anon-rss:2084196kB, file-rss:18244kB, shmem-rss:0kB, UID:1000 pgtables:4512kB oom_score_adj:969`; out.killed++;
      }
      const line = `${prefixOf(t, stamp(t))}${l}\n`;
      size += line.length;
      batch.push(line);
      if (batch.length === 10_000) {
        fs.writeSync(fd, batch.join(''));
        batch = [];
      }
    }
    fs.writeSync(fd, batch.join(''));
    fs.closeSync(fd);
    out.lines[file] = i;
  }
  return out;
}

/**
 * `kubectl describe node GOOD_NODE` with `events` rows in its Events table (kubectl lists them all), of the kinds a node
 * under pressure records: hung tasks each naming a new task, NotReady/Ready flips, failed image and container GC,
 * PLEG-unhealthy kubelet messages, plain kubelet starts. Returns the path written and how many rows of each reason.
 */
export function describeManyEvents(dir, events) {
  const head = [
    `Name:               ${GOOD_NODE}`,
    'Roles:              <none>',
    'Conditions:',
    '  Type             Status  LastHeartbeatTime                 LastTransitionTime                Reason                       Message',
    '  ----             ------  -----------------                 ------------------                ------                       -------',
    '  MemoryPressure   False   Mon, 11 Mar 2024 10:09:56 +0000   Mon, 11 Mar 2024 08:00:00 +0000   KubeletHasSufficientMemory   kubelet has sufficient memory available',
    '  Ready            False   Mon, 11 Mar 2024 10:09:56 +0000   Mon, 11 Mar 2024 10:03:01 +0000   KubeletNotReady              PLEG is not healthy: pleg was last seen active 6m55.1s ago; threshold is 3m0s',
    'System Info:',
    '  Kernel Version:             5.15.0-1051-azure',
    '  OS Image:                   Ubuntu 22.04.3 LTS',
    '  Container Runtime Version:  containerd://1.7.5',
    '  Kubelet Version:            v1.28.3',
    'Non-terminated Pods:          (23 in total)',
    'Events:',
    '  Type     Reason             Age                    From            Message',
    '  ----     ------             ----                   ----            -------',
  ];
  const counts = {};
  const rows = [];
  for (let i = 0; i < events; i++) {
    const age = `${Math.floor((events - i) / 60)}m${(events - i) % 60}s`;
    let r;
    switch (i % 5) {
      case 0: r = ['Warning', 'TaskHung', age, 'kernel-monitor', `INFO: task foo-${i}:${1000 + i} blocked for more than 120 seconds.`]; break;
      case 1: r = ['Normal', 'NodeNotReady', age, 'kubelet', `Node ${GOOD_NODE} status is now: NodeNotReady`]; break;
      case 2: r = ['Warning', 'ContainerGCFailed', age, 'kubelet', 'rpc error: code = DeadlineExceeded desc = context deadline exceeded']; break;
      case 3: r = ['Normal', 'NodeReady', age, 'kubelet', `Node ${GOOD_NODE} status is now: NodeReady`]; break;
      default: r = ['Warning', 'ImageGCFailed', `${age} (x${1 + (i % 7)} over 2h)`, 'kubelet', `failed to garbage collect required amount of images. Wanted to free ${1000 + i} bytes, but freed 0 bytes`];
    }
    counts[r[1]] = (counts[r[1]] ?? 0) + 1;
    rows.push(`  ${r[0].padEnd(9)}${r[1].padEnd(19)}${r[2].padEnd(23)}${r[3].padEnd(16)}${r[4]}`);
  }
  const p = write(dir, 'node-describe.txt', `${head.join('\n')}\n${rows.join('\n')}\n`);
  return { path: p, counts };
}
