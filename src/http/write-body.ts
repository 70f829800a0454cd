import type { ServerResponse } from 'node:http';
import type { ResponseHeaders } from './response-headers.ts';

/**
 * The end of every answer written by hand: status, Content-Length and the
 * body ('' for none), with `headers` — gathered for this answer — written in
 * the same `writeHead` as the status, after those already set. One place, so
 * no answer forgets its length or ends twice.
 */
export function writeBody(res: ServerResponse, status: number, body: string | Buffer, headers: ResponseHeaders = {}): void {
  if (body.length > 0) headers['Content-Length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.length);
  res.writeHead(status, headers);
  res.end(body.length > 0 ? body : undefined);
}
