import type { ServerResponse } from 'node:http';

/**
 * The end of every answer written by hand: status, Content-Length and the
 * body ('' for none), headers already set. One place, so no answer forgets its
 * length or ends twice.
 */
export function writeBody(res: ServerResponse, status: number, body: string | Buffer): void {
  res.statusCode = status;
  if (body.length === 0) {
    res.end();
    return;
  }
  res.setHeader('Content-Length', typeof body === 'string' ? Buffer.byteLength(body) : body.length);
  res.end(body);
}
