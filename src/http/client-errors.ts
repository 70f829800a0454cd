import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** docs/spec/DECISIONS.md, "Security headers": every response, those node:http writes for requests that never reach us included. */
const NOSNIFF = 'X-Content-Type-Options: nosniff';

/** node:http's own answers, by the parser's error, as it writes them (lib/_http_server.js). */
const ANSWERS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

/**
 * Answers what node:http refuses before any handler runs — a request that is
 * not HTTP, a header block over 16 KiB, headers or a body too slow, an
 * `Expect` it cannot meet — as node:http itself would (the same status, no
 * body, the connection closed), with `X-Content-Type-Options: nosniff` added.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (socket.writable && (socket as Duplex & { bytesWritten?: number }).bytesWritten === 0) {
      const status = ANSWERS[error.code ?? ''] ?? '400 Bad Request';
      socket.write(`HTTP/1.1 ${status}\r\nConnection: close\r\n${NOSNIFF}\r\n\r\n`);
    }
    socket.destroy(error);
  });
  server.on('checkExpectation', (_req, res) => {
    res.writeHead(417, { Connection: 'close', 'X-Content-Type-Options': 'nosniff' });
    res.end();
  });
}

/**
 * node:http's answer to an HTTP/1.1 request without `Host` (400, no body, the
 * connection closed), given here with `X-Content-Type-Options: nosniff`: the
 * server is created with `requireHostHeader: false` so that the request
 * reaches us. Returns whether it answered.
 */
export function answeredMissingHost(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.headers.host !== undefined || req.httpVersionMajor !== 1 || req.httpVersionMinor !== 1) return false;
  res.writeHead(400, { Connection: 'close', 'X-Content-Type-Options': 'nosniff' });
  res.end();
  return true;
}
