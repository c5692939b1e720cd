// A real Prometheus for the tests: Debian's `prometheus` and `promtool` (scripts/install-test-deps.sh installs them).
// The data is backfilled with `promtool tsdb create-blocks-from openmetrics`, then the server runs on 127.0.0.1 on a
// free port with its own config (no scrape targets, no remote write, no alerting) and its own storage in a temp
// folder; Debian's defaults (0.0.0.0:9090, /etc/prometheus, /var/lib/prometheus) are never used. stop() ends it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export function haveBinaries(): boolean {
  return ['prometheus', 'promtool'].every((b) => spawnSync(b, ['--version'], { stdio: 'ignore' }).status === 0);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Backfills `openMetricsFile` into `dir/data` (blocks of up to `maxBlock`). */
export function backfill(openMetricsFile: string, dir: string, maxBlock = '2h'): void {
  const data = join(dir, 'data');
  mkdirSync(data, { recursive: true });
  const r = spawnSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', '--quiet', `--max-block-duration=${maxBlock}`, openMetricsFile, data], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`promtool backfill failed (${r.status}): ${r.stderr.slice(-2000)}`);
}

export interface RunningPrometheus {
  url: string;
  port: number;
  proc: ChildProcess;
  stop(): Promise<void>;
}

export async function startPrometheus(dir: string): Promise<RunningPrometheus> {
  const config = join(dir, 'prometheus.yml');
  writeFileSync(config, 'global:\n  scrape_interval: 30s\n  evaluation_interval: 30s\nscrape_configs: []\n');
  const port = await freePort();
  const proc = spawn('prometheus', [
    `--config.file=${config}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    // Backfilled hours must survive the retention check at start-up.
    '--storage.tsdb.retention.time=3650d',
    '--log.level=warn',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (b: Buffer) => { if (stderr.length < 20_000) stderr += b.toString(); });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  // Ready when /-/ready answers 200 (bounded: a minute on a busy 2-core machine).
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`prometheus exited (${proc.exitCode}): ${stderr.slice(-2000)}`);
    try {
      const r = await fetch(`${url}/-/ready`);
      if (r.status === 200) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus did not become ready: ${stderr.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, port, proc, stop };
}
