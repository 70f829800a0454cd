import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';

export interface RawRequest {
  method: string;
  /** Sent as is on the request line: may be anything a client could put there. */
  target: string;
  /** A header given more than one value is sent on as many lines. */
  headers: [name: string, value: string | string[]][];
  body?: Buffer;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * One request through node:http with nothing smoothed over: duplicate
 * headers, bytes that are not UTF-8, targets fetch would normalise. A fresh
 * connection each time, so one bad request cannot spoil the next.
 */
export function sendRaw(base: string, request: RawRequest): Promise<RawResponse> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: hostname, port, method: request.method, path: request.target, agent: false, timeout: 10_000 }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: Buffer.concat(chunks) }));
      incoming.on('error', reject);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer to ${request.method} ${request.target} within 10 s`)));
    outgoing.on('error', reject);
    for (const [name, value] of request.headers) outgoing.setHeader(name, value);
    // node:http frames bodies of GET, DELETE, OPTIONS and the like with neither a length nor chunks
    // unless told: the server would read the body as the next request.
    const framed = request.headers.some(([name]) => /^(content-length|transfer-encoding)$/i.test(name));
    if (request.body && !framed) outgoing.setHeader('Content-Length', request.body.length);
    outgoing.end(request.body);
  });
}

/** Writes `request` as raw bytes on a connection of its own and waits for the server to close it: the head of its answer. */
export async function headBeforeClose(base: string, request: string): Promise<string> {
  const socket = connect(Number(new URL(base).port), '127.0.0.1');
  await once(socket, 'connect');
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
  const closed = once(socket, 'close');
  socket.write(request);
  await closed;
  return answer.split('\r\n\r\n')[0]!;
}
