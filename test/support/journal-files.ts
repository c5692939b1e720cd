// Real binary journals for the tests, written by systemd's own tools: the sample incident's text logs
// (fixtures/sample-incident) turned into journal export format (systemd docs/JOURNAL_EXPORT_FORMATS.md) and written by
// systemd-journal-remote; read back with `journalctl --file … -o json` for comparison. LZ4 and XZ data objects, which
// Debian's systemd 252 does not write (its compression is ZSTD, chosen at build time), are made from an uncompressed
// journal by compressing DATA objects in place, in systemd's framing (src/basic/compress.c); journalctl reads the
// result, so the tests compare against it too.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const JOURNAL_REMOTE = '/usr/lib/systemd/systemd-journal-remote';
const SAMPLE = join(__dirname, '..', '..', 'fixtures', 'sample-incident');

/** Why the tests that need systemd's tools cannot run here, or null when they can. */
export function missingSystemdTools(): string | null {
  if (!existsSync(JOURNAL_REMOTE)) return `${JOURNAL_REMOTE} not installed (Debian package systemd-journal-remote; scripts/install-test-deps.sh)`;
  if (spawnSync('journalctl', ['--version']).status !== 0) return 'journalctl not installed (Debian package systemd)';
  return null;
}

export type Fields = Record<string, string>;
export interface ExportEntry { realtime: bigint; fields: Fields }

/** The fields the journal reader keeps, as journalctl prints them. */
export const COMPARED = ['__REALTIME_TIMESTAMP', 'MESSAGE', '_HOSTNAME', '_PID', 'SYSLOG_IDENTIFIER', '_SYSTEMD_UNIT'] as const;

const MONTHS: Record<string, number> = { Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11 };
// A long command line shared by every kubelet entry (one DATA object, over the compression threshold).
const KUBELET_CMDLINE = `/usr/bin/kubelet --bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf --config=/var/lib/kubelet/config.yaml --container-runtime-endpoint=unix:///run/containerd/containerd.sock --pod-infra-container-image=registry.k8s.io/pause:3.9 ${'--node-labels=node.kubernetes.io/pool=general '.repeat(12)}`;

/** The sample incident's kubelet, containerd and kernel lines as journal entries of host worker-3, in time order. */
export function incidentEntries(): ExportEntry[] {
  const out: ExportEntry[] = [];
  for (const file of ['kubelet.log', 'containerd.log']) {
    for (const line of readFileSync(join(SAMPLE, file), 'utf8').split('\n')) {
      const m = /^(\w{3}) +(\d+) (\d\d):(\d\d):(\d\d) (\S+) ([^\s[]+)\[(\d+)\]: (.*)$/.exec(line);
      if (!m) continue;
      const [, mon, day, hh, mm, ss, host, ident, pid, msg] = m as unknown as string[];
      const second = Date.UTC(2024, MONTHS[mon as string] as number, Number(day), Number(hh), Number(mm), Number(ss));
      // journald stamps a line when it reads it: within the second `short` prints, after the program's own stamp.
      const own = /^[IWEF]\d{4} (\d\d):(\d\d):(\d\d)\.(\d{6})/.exec(msg as string) ?? /time="\d{4}-\d\d-\d\dT(\d\d):(\d\d):(\d\d)\.(\d{6})/.exec(msg as string);
      const micros = own && own[1] === hh && own[2] === mm && own[3] === ss ? Number(own[4]) : 0;
      const unit = ident === 'systemd' ? 'init.scope' : `${ident}.service`;
      const fields: Fields = { _HOSTNAME: host as string, SYSLOG_IDENTIFIER: ident as string, _PID: pid as string, _SYSTEMD_UNIT: unit, _TRANSPORT: ident === 'systemd' ? 'journal' : 'stdout', MESSAGE: msg as string };
      if (ident === 'kubelet') fields['_CMDLINE'] = KUBELET_CMDLINE;
      out.push({ realtime: BigInt(second) * 1000n + BigInt(micros), fields });
    }
  }
  for (const line of readFileSync(join(SAMPLE, 'dmesg.txt'), 'utf8').split('\n')) {
    const m = /^\[\w{3} (\w{3}) +(\d+) (\d\d):(\d\d):(\d\d) (\d{4})\] (.*)$/.exec(line);
    if (!m) continue;
    const [, mon, day, hh, mm, ss, year, msg] = m as unknown as string[];
    const ms = Date.UTC(Number(year), MONTHS[mon as string] as number, Number(day), Number(hh), Number(mm), Number(ss));
    out.push({ realtime: BigInt(ms) * 1000n, fields: { _HOSTNAME: 'worker-3', SYSLOG_IDENTIFIER: 'kernel', _TRANSPORT: 'kernel', MESSAGE: msg as string } });
  }
  // Stable: lines of the same microsecond keep their file order.
  return out.map((e, i) => ({ e, i })).sort((a, b) => (a.e.realtime < b.e.realtime ? -1 : a.e.realtime > b.e.realtime ? 1 : a.i - b.i)).map((x) => x.e);
}

const BOOT_ID = '5b1f7c4ad2e94f3c9a0b6e7d8c9f0a1b';
const MACHINE_ID = '8f2d6c1e3b4a49d7a5c6b7e8f9012345';

/** Journal export format: `KEY=value` lines (a value with a newline in the binary form), a blank line per entry. */
export function exportStream(entries: ExportEntry[]): Buffer {
  const parts: Buffer[] = [];
  let mono = 1_000_000n;
  for (const e of entries) {
    mono += 1000n;
    const head = `__REALTIME_TIMESTAMP=${e.realtime}\n__MONOTONIC_TIMESTAMP=${mono}\n_BOOT_ID=${BOOT_ID}\n_MACHINE_ID=${MACHINE_ID}\n`;
    parts.push(Buffer.from(head));
    for (const [k, v] of Object.entries(e.fields)) {
      const value = Buffer.from(v, 'utf8');
      if (value.includes(0x0a)) {
        const size = Buffer.alloc(8);
        size.writeBigUInt64LE(BigInt(value.length));
        parts.push(Buffer.from(`${k}\n`), size, value, Buffer.from('\n'));
      } else {
        parts.push(Buffer.from(`${k}=`), value, Buffer.from('\n'));
      }
    }
    parts.push(Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}

/** A .journal file written by systemd-journal-remote from `entries`. compact: the 252+ layout (32-bit offsets). */
export function writeJournal(file: string, entries: ExportEntry[], opts: { compact?: boolean; compress?: boolean } = {}): void {
  execFileSync(JOURNAL_REMOTE, [`--compress=${opts.compress === false ? 'no' : 'yes'}`, `--output=${file}`, '-'], {
    input: exportStream(entries),
    env: { ...process.env, SYSTEMD_JOURNAL_COMPACT: opts.compact === false ? '0' : '1' },
    stdio: ['pipe', 'ignore', 'pipe'],
  });
}

/** What `journalctl --file F -o json` prints, restricted to the compared fields. */
export function journalctlEntries(file: string): Fields[] {
  const out = execFileSync('journalctl', ['--file', file, '-o', 'json', '--no-pager'], { maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'pipe'] }).toString('utf8');
  return out.split('\n').filter((l) => l.trim() !== '').map((l) => pick(JSON.parse(l) as Record<string, unknown>));
}

export function pick(o: Record<string, unknown>): Fields {
  const r: Fields = {};
  for (const k of COMPARED) if (typeof o[k] === 'string') r[k] = o[k] as string;
  return r;
}

export interface DataObject { offset: number; size: number; flags: number; payloadAt: number }

/** The DATA objects of a journal file, found by walking its objects in file order (tests only: no bounds). */
export function dataObjects(buf: Buffer): DataObject[] {
  const compact = (buf.readUInt32LE(12) & 16) !== 0;
  const end = Number(buf.readBigUInt64LE(88) + buf.readBigUInt64LE(96));
  const out: DataObject[] = [];
  for (let off = Number(buf.readBigUInt64LE(88)); off + 16 <= Math.min(end, buf.length);) {
    const size = Number(buf.readBigUInt64LE(off + 8));
    if (size === 0) break;
    if (buf[off] === 1) out.push({ offset: off, size, flags: buf[off + 1] as number, payloadAt: off + (compact ? 72 : 64) });
    off += Math.ceil(size / 8) * 8;
  }
  return out;
}

/**
 * Compresses, in place, the DATA objects of an uncompressed journal whose payload is at least `threshold` bytes, with
 * `compress` (which returns systemd's framing for XZ=1 / LZ4=2), and sets the object and header flags. The object
 * shrinks (its size says so); the bytes after it stay as padding. Returns how many objects were compressed.
 */
export function compressDataObjects(buf: Buffer, flag: 1 | 2, compress: (b: Buffer) => Buffer, threshold = 512): number {
  let n = 0;
  for (const d of dataObjects(buf)) {
    const payload = buf.subarray(d.payloadAt, d.offset + d.size);
    if (d.flags !== 0 || payload.length < threshold) continue;
    const c = compress(Buffer.from(payload));
    if (c.length >= payload.length) continue;
    c.copy(buf, d.payloadAt);
    buf.writeBigUInt64LE(BigInt(d.payloadAt - d.offset + c.length), d.offset + 8);
    buf[d.offset + 1] = flag;
    n++;
  }
  // HEADER_INCOMPATIBLE_COMPRESSED_XZ = 1, _LZ4 = 2.
  buf.writeUInt32LE(buf.readUInt32LE(12) | flag, 12);
  return n;
}

/** systemd's LZ4 framing: le64 size, then a raw LZ4 block (a small greedy compressor: matches of 4+ bytes). */
export function lz4Frame(src: Buffer): Buffer {
  const size = Buffer.alloc(8);
  size.writeBigUInt64LE(BigInt(src.length));
  return Buffer.concat([size, lz4Compress(src)]);
}

function lz4Compress(src: Buffer): Buffer {
  const out: number[] = [];
  const table = new Map<number, number>();
  let anchor = 0;
  let i = 0;
  const lenBytes = (n: number) => {
    while (n >= 255) { out.push(255); n -= 255; }
    out.push(n);
  };
  // The last 5 bytes are literals, and no match starts within the last 12 (the block format's end rules).
  const limit = src.length - 12;
  while (i < limit) {
    const key = src.readUInt32LE(i);
    const cand = table.get(key);
    table.set(key, i);
    if (cand === undefined || i - cand > 65535) { i++; continue; }
    let len = 4;
    while (i + len < src.length - 5 && src[cand + len] === src[i + len]) len++;
    const lit = i - anchor;
    out.push((Math.min(lit, 15) << 4) | Math.min(len - 4, 15));
    if (lit >= 15) lenBytes(lit - 15);
    for (let k = anchor; k < i; k++) out.push(src[k] as number);
    out.push((i - cand) & 255, (i - cand) >> 8);
    if (len - 4 >= 15) lenBytes(len - 4 - 15);
    i += len;
    anchor = i;
  }
  const lit = src.length - anchor;
  out.push(Math.min(lit, 15) << 4);
  if (lit >= 15) lenBytes(lit - 15);
  for (let k = anchor; k < src.length; k++) out.push(src[k] as number);
  return Buffer.from(out);
}

/** systemd's XZ framing: an .xz stream without check (xz-utils' CLI, as lzma_stream_buffer_encode writes it). */
export function xzFrame(src: Buffer): Buffer {
  return execFileSync('xz', ['--format=xz', '--check=none', '-c'], { input: src });
}
