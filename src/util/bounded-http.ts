// One HTTP(S) exchange whose answer is input: bounded in time (connect, headers and body together, however slowly the
// server trickles) and in decoded bytes (gzip decoded as it comes, stopped at the bound: a gzip bomb costs what the
// bound allows), the body handed on chunk by chunk so that nothing is held whole unless the caller keeps it. The
// Prometheus client uses it; so can any client of a server plegscope reads (the API server's).
// Example:
//   const r = await boundedRequest({ url: new URL('http://127.0.0.1:9090/api/v1/query?query=up'), method: 'GET',
//     headers: { accept: 'application/json' }, timeoutMs: 30_000, maxBytes: 48 << 20 }, (chunk, status) => parse(chunk));
//   → { status: 200, bytes: 1234 }; BoundedHttpError('too-large' | 'timeout' | 'network' | 'read') otherwise.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createGunzip } from 'node:zlib';

export type BoundedHttpFailure = 'too-large' | 'timeout' | 'network' | 'read';

export class BoundedHttpError extends Error {
  /** `code`: the system's error code for a network failure (ECONNREFUSED, a TLS code…). */
  constructor(readonly kind: BoundedHttpFailure, message: string, readonly code?: string) {
    super(message);
  }
}

export interface BoundedRequest {
  url: URL;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | null;
  /** For https: the CA to trust, and whether to check the certificate. */
  tls?: { ca?: string; rejectUnauthorized: boolean };
  /** The whole exchange, ms. */
  timeoutMs: number;
  /** Decoded body bytes at most. */
  maxBytes: number;
}

/**
 * Sends the request and hands each decoded chunk of the answer to `onChunk` (an error it throws ends the exchange and
 * is the rejection). Resolves when the answer ended within its bounds.
 */
export function boundedRequest(req: BoundedRequest, onChunk: (chunk: Buffer, status: number) => void): Promise<{ status: number; bytes: number }> {
  const https = req.url.protocol === 'https:';
  const headers = { ...req.headers };
  if (req.body != null) headers['content-length'] = String(Buffer.byteLength(req.body));
  const options = { method: req.method, headers, ...(https ? { ca: req.tls?.ca, rejectUnauthorized: req.tls?.rejectUnauthorized ?? true } : {}) };
  return new Promise((resolve, reject) => {
    let done = false;
    let res: IncomingMessage | null = null;
    const finish = (e: Error | null, v?: { status: number; bytes: number }): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (e) {
        req2.destroy();
        res?.destroy();
      }
      if (e) reject(e);
      else resolve(v!);
    };
    const req2 = (https ? httpsRequest : httpRequest)(req.url, options, (r: IncomingMessage) => {
      res = r;
      const status = r.statusCode ?? 0;
      const gz = /\bgzip\b/.test(String(r.headers['content-encoding'] ?? ''));
      const stream = gz ? r.pipe(createGunzip({ chunkSize: 64 << 10 })) : r;
      let bytes = 0;
      stream.on('data', (c: Buffer) => {
        if (done) return;
        bytes += c.length;
        if (bytes > req.maxBytes) {
          finish(new BoundedHttpError('too-large', `an answer larger than ${mib(req.maxBytes)}`));
          if (gz) (stream as ReturnType<typeof createGunzip>).destroy();
          return;
        }
        try {
          onChunk(c, status);
        } catch (e) {
          finish(e as Error);
          if (gz) (stream as ReturnType<typeof createGunzip>).destroy();
        }
      });
      stream.on('error', (e: NodeJS.ErrnoException) => finish(e.message === 'aborted' || e.code === 'ECONNRESET'
        ? new BoundedHttpError('read', 'the answer was cut short (the connection closed)')
        : new BoundedHttpError('read', `the answer could not be read: ${e.message}`)));
      r.on('close', () => {
        if (!r.complete) finish(new BoundedHttpError('read', 'the answer was cut short (the connection closed)'));
      });
      stream.on('end', () => finish(null, { status, bytes }));
    });
    const timer = setTimeout(() => finish(new BoundedHttpError('timeout', `no whole answer within ${Math.round(req.timeoutMs / 100) / 10} s`)), req.timeoutMs);
    req2.on('error', (e: NodeJS.ErrnoException) => finish(new BoundedHttpError('network', e.message, e.code)));
    if (req.body != null) req2.end(req.body);
    else req2.end();
  });
}

function mib(n: number): string {
  return n >= 1 << 20 ? `${Math.round(n / (1 << 20))} MiB` : `${Math.round(n / 1024)} KiB`;
}
