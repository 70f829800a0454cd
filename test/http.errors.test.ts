import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { jsonBody, request } from './support/http.ts';
import { headBeforeClose, sendRaw } from './support/raw-http.ts';
import { expectProblem } from './support/problem.ts';
import { startTestServer, useTestServer } from './support/test-server.ts';

const server = useTestServer();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;


describe('X-Request-Id', () => {
  it('is a new UUID on every response when the client sends none', async () => {
    const first = await request(`${server.url}/api/health`);
    const second = await request(`${server.url}/api/nowhere`);
    expect(first.headers.get('x-request-id')).toMatch(UUID);
    expect(second.headers.get('x-request-id')).toMatch(UUID);
    expect(first.headers.get('x-request-id')).not.toBe(second.headers.get('x-request-id'));
  });

  it("echoes the client's own valid value, on errors too", async () => {
    const response = await request(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({}, { 'X-Request-Id': 'client-trace 42' }) });
    expect(response.status).toBe(422);
    expect(response.headers.get('x-request-id')).toBe('client-trace 42');
  });

  it('replaces a value longer than 200 characters', async () => {
    const response = await request(`${server.url}/api/health`, { headers: { 'X-Request-Id': 'r'.repeat(201) } });
    expect(response.headers.get('x-request-id')).toMatch(UUID);
    const exact = await request(`${server.url}/api/health`, { headers: { 'X-Request-Id': 'r'.repeat(200) } });
    expect(exact.headers.get('x-request-id')).toBe('r'.repeat(200));
  });
});

describe('framework-level failures are problems too', () => {
  it('PATCH with invalid JSON → 400 bad-request', async () => {
    const response = await request(`${server.url}/api/tasks/00000000-0000-0000-0000-000000000000`, {
      method: 'PATCH',
      body: 'not json',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(response, server.baseUrl, 'bad-request', 400, '/api/tasks/00000000-0000-0000-0000-000000000000');
  });

  it('a declared Content-Length over 64 KiB → 413 before the body is read', async () => {
    const response = await request(`${server.url}/api/tasks`, {
      method: 'POST',
      body: JSON.stringify({ title: 'x'.repeat(65 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    const problem = expectProblem(response, server.baseUrl, 'payload-too-large', 413, '/api/tasks');
    expect(problem.detail).toBe('Send at most 65536 bytes.');
  });

  it('a chunked body that grows past 64 KiB → 413 on a closing connection, nothing stored', async () => {
    const title = `chunked ${Date.now()}`;
    const body = Buffer.from(JSON.stringify({ title, padding: 'p'.repeat(70 * 1024) }));
    const response = await sendRaw(server.url, { method: 'POST', target: '/api/tasks', headers: [['content-type', 'application/json'], ['transfer-encoding', 'chunked']], body });
    expect(response.status).toBe(413);
    expect(response.headers.connection).toBe('close');
    expect(JSON.parse(response.body.toString())).toMatchObject({ type: `${server.baseUrl}/problems/payload-too-large`, detail: 'Send at most 65536 bytes.' });
    const stored = await request<{ items: { title: string }[] }>(`${server.url}/api/tasks?limit=50`);
    expect(stored.body.items.map((task) => task.title)).not.toContain(title);
  });

  // A client that declares 100 KB and sends 1 KB: the answer must not wait for the rest, and the
  // connection must not stay open reading it (up to HTTP_REQUEST_TIMEOUT_MS, 30 s, the test's own bound).
  it.each(['/api/tasks', '/api/trpc/tasks.create', '/api/graphql'])('a declared body over 64 KiB on %s → 413 with Connection: close, and the server closes at once', async (path) => {
    const head = await headBeforeClose(server.url, `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"title":"${'x'.repeat(1000)}`);
    expect(head).toMatch(/^HTTP\/1\.1 413 /);
    expect(head.toLowerCase()).toContain('connection: close');
  });

  // Answers that never read the body (a 404, a 401, a 400 before the body) close too, instead of reading the rest to keep the connection.
  it.each([
    ['/api/nowhere', 404],
    ['/api/webhooks', 401],
    ['/api/scores', 400],
  ])('a declared body over 64 KiB on %s → its %i with Connection: close, and the server closes at once', async (path, status) => {
    const head = await headBeforeClose(server.url, `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n{"game":"${'x'.repeat(1000)}`);
    expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(head.toLowerCase()).toContain('connection: close');
  });

  it('a body of exactly 64 KiB is read', async () => {
    const title = 'x'.repeat(10);
    const padding = ' '.repeat(64 * 1024 - JSON.stringify({ title }).length);
    const response = await request(`${server.url}/api/tasks`, {
      method: 'POST',
      body: `${JSON.stringify({ title })}${padding}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(201);
  });
});

describe('an unexpected failure', () => {
  it('is a 500 internal problem that leaks no SQL, stack or message', async () => {
    const broken = await startTestServer();
    try {
      // A schema gone wrong under the service: a real failure, not one it can explain.
      await broken.app.database.db.execute(sql`drop table tasks`);
      const response = await request(`${broken.url}/api/tasks?limit=3`);
      const problem = expectProblem(response, broken.baseUrl, 'internal', 500, '/api/tasks');
      const requestId = response.headers.get('x-request-id')!;
      // Exactly these fields: no stack, no SQL, no driver message anywhere.
      expect(problem).toEqual({
        type: `${broken.baseUrl}/problems/internal`,
        title: 'Something went wrong on our side',
        status: 500,
        detail: `Quote request id ${requestId} when you report this.`,
        instance: '/api/tasks',
      });
    } finally {
      await broken.stop();
    }
  });
});
