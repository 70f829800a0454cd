import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useTestServer } from './support/test-server.ts';

const server = useTestServer({ env: { HTTP_HEADERS_TIMEOUT_MS: '500', HTTP_REQUEST_TIMEOUT_MS: '1500' } });

interface RawExchange {
  socket: Socket;
  /** Everything the server sent, once it closed the connection. */
  closed: Promise<string>;
}

function openRaw(): Promise<RawExchange> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString('latin1')));
      const closed = new Promise<string>((done) => socket.on('close', () => done(received)));
      resolve({ socket, closed });
    });
    socket.once('error', reject);
  });
}

/** Writes one piece every `everyMs` until the server closes the connection; how a slow client behaves. */
function dribble(socket: Socket, piece: () => string, everyMs: number): () => number {
  let sent = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || socket.writableEnded) return clearInterval(timer);
    socket.write(piece());
    sent++;
  }, everyMs);
  socket.on('close', () => clearInterval(timer));
  return () => sent;
}

describe('slow and stalled clients', () => {
  it('a client that dribbles its headers and never ends them gets 408 and a closed connection', async () => {
    const { socket, closed } = await openRaw();
    socket.write('GET /api/health HTTP/1.1\r\nHost: api.test\r\n');
    const sent = dribble(socket, () => `X-Slow-${Date.now()}: a\r\n`, 100);
    const answer = await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    // It kept sending right up to the end: the timeout is on the whole header block, not per line.
    expect(sent()).toBeGreaterThan(2);
  });

  it('a client that sends headers and then dribbles its body past the request timeout gets 408', async () => {
    const { socket, closed } = await openRaw();
    socket.write('POST /api/tasks HTTP/1.1\r\nHost: api.test\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"title":"');
    dribble(socket, () => 'a', 100);
    expect(await closed).toMatch(/^HTTP\/1\.1 408 /);
    expect(await fetch(`${server.url}/api/tasks?limit=1`).then((response) => response.json())).toMatchObject({ items: [] });
  });

  it('a client that opens a connection and says nothing is disconnected', async () => {
    const { closed } = await openRaw();
    expect(await closed).toMatch(/^(HTTP\/1\.1 408 [^]*)?$/);
  });

  it('a header block over 16 KiB is refused with 431 before the service sees it', async () => {
    const { socket, closed } = await openRaw();
    socket.write(`GET /api/health HTTP/1.1\r\nHost: api.test\r\nX-Large: ${'a'.repeat(17 * 1024)}\r\n\r\n`);
    expect(await closed).toMatch(/^HTTP\/1\.1 431 /);
  });

  it('other connections are served meanwhile', async () => {
    const { socket, closed } = await openRaw();
    socket.write('GET /api/health HTTP/1.1\r\nHost: api.test\r\n');
    const response = await fetch(`${server.url}/api/health`);
    expect(response.status).toBe(200);
    socket.destroy();
    await closed;
  });
});
