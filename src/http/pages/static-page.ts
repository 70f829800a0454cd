import type { ServerResponse } from 'node:http';

/** Sends a page or asset built once and kept in memory. */
export function sendStatic(res: ServerResponse, body: string | Buffer, contentType: string, maxAgeSeconds: number): void {
  res.statusCode = 200;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.setHeader('Cache-Control', `public, max-age=${maxAgeSeconds}`);
  res.end(body);
}

/** Builds a value on first use and keeps it. */
export function once<T>(build: () => T): () => T {
  let value: { built: T } | undefined;
  return () => (value ??= { built: build() }).built;
}
