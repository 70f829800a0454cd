import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { storedCount } from './support/db-rows.ts';
import { request } from './support/http.ts';
import { sendRaw } from './support/raw-http.ts';
import { useTestServer } from './support/test-server.ts';
import { trpcClient } from './support/trpc-client.ts';

const server = useTestServer();

interface TrpcError {
  error: { message: string; code: number; data: { code: string; httpStatus: number } };
}

/** A batch of `size` calls of one procedure, encoded as httpBatchLink sends it. */
function batchTarget(procedure: string, size: number, input: unknown): { path: string; body: string; query: string } {
  const inputs = Object.fromEntries(Array.from({ length: size }, (_, i) => [String(i), input]));
  const path = `/api/trpc/${Array.from({ length: size }, () => procedure).join(',')}?batch=1`;
  return { path, body: JSON.stringify(inputs), query: `&input=${encodeURIComponent(JSON.stringify(inputs))}` };
}

describe('batches: at most 10 calls', () => {
  it('a query batch of 11 → 400 BAD_REQUEST naming the limit, and no call runs', async () => {
    const { path, query } = batchTarget('tasks.newest', 11, { limit: 1 });
    const response = await request<TrpcError>(`${server.url}${path}${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
    expect(response.body.error.message).toMatch(/\b10\b/);
  });

  it('a mutation batch of 11 creates nothing; 10 create 10', async () => {
    const before = await storedCount(server, 'tasks');
    const eleven = batchTarget('tasks.create', 11, { title: 'batched' });
    const refused = await request<TrpcError>(`${server.url}${eleven.path}`, { method: 'POST', body: eleven.body, headers: { 'content-type': 'application/json' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.data.code).toBe('BAD_REQUEST');
    expect(await storedCount(server, 'tasks')).toBe(before);

    const ten = batchTarget('tasks.create', 10, { title: 'batched' });
    const accepted = await request<unknown[]>(`${server.url}${ten.path}`, { method: 'POST', body: ten.body, headers: { 'content-type': 'application/json' } });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toHaveLength(10);
    expect(await storedCount(server, 'tasks')).toBe(before + 10);
  });

  it('names hidden in percent-encoded commas count too', async () => {
    const path = `/api/trpc/${Array.from({ length: 12 }, () => 'tasks.newest').join('%2C')}?batch=1&input=%7B%7D`;
    const response = await request<TrpcError>(`${server.url}${path}`);
    expect(response.status).toBe(400);
  });

  it('the typed client with its default batching still works within the limit', async () => {
    const api = trpcClient(server.url);
    const results = await Promise.all(Array.from({ length: 10 }, () => api.tasks.newest.query({ limit: 1 })));
    expect(results).toHaveLength(10);
  });
});

describe('methods other than GET and POST', () => {
  it.each(['TRACE', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND'])('%s → 405 METHOD_NOT_SUPPORTED in the tRPC envelope, never a 500', async (method) => {
    const response = await sendRaw(server.url, { method, target: '/api/trpc/tasks.newest', headers: [['Content-Type', 'application/json']], body: method === 'TRACE' ? undefined : Buffer.from('{}') });
    expect(response.status).toBe(405);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.headers['allow']).toBe('GET, POST');
    const body = JSON.parse(response.body.toString()) as TrpcError;
    expect(body.error.data).toMatchObject({ code: 'METHOD_NOT_SUPPORTED', httpStatus: 405 });
    expect(response.headers['x-request-id']).toBeDefined();
  });
});

describe('deep JSON', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it('a scores.submit body nested 5000 deep → 400 PARSE_ERROR, never a 500', async () => {
    const response = await request<TrpcError>(`${server.url}/api/trpc/scores.submit`, {
      method: 'POST',
      body: `{"game":"demo","initials":"ABC","value":${nested(5000)}}`,
      headers: { 'content-type': 'application/json', 'Idempotency-Key': randomUUID() },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.data).toMatchObject({ code: 'PARSE_ERROR', httpStatus: 400 });
    expect(response.body.error.message).toContain('64');
  });

  it('a query input nested 65 deep → 400 PARSE_ERROR; 64 deep reaches validation', async () => {
    const over = await request<TrpcError>(`${server.url}/api/trpc/tasks.newest?input=${encodeURIComponent(`{"limit":${nested(64)}}`)}`);
    expect(over.status).toBe(400);
    expect(over.body.error.data.code).toBe('PARSE_ERROR');
    const within = await request<TrpcError>(`${server.url}/api/trpc/tasks.newest?input=${encodeURIComponent(`{"limit":${nested(63)}}`)}`);
    expect(within.status).toBe(400);
    expect(within.body.error.data.code).toBe('BAD_REQUEST');
  });

  it('a batch whose inputs are deep is refused whole', async () => {
    const body = JSON.stringify({ 0: { limit: 1 } }).replace('1}', `${nested(80)}}`);
    const response = await request<TrpcError>(`${server.url}/api/trpc/tasks.newest?batch=1&input=${encodeURIComponent(body)}`);
    expect(response.status).toBe(400);
    expect(response.body.error.data.code).toBe('PARSE_ERROR');
  });
});

describe('bodies', () => {
  it('a body over 64 KiB → 413 PAYLOAD_TOO_LARGE in the envelope', async () => {
    const response = await request<TrpcError>(`${server.url}/api/trpc/tasks.create`, {
      method: 'POST',
      body: JSON.stringify({ title: 'x'.repeat(70_000) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(413);
    expect(response.body.error.data.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it("a body that is not JSON → 400 in the envelope (tRPC's own BAD_REQUEST)", async () => {
    const response = await request<TrpcError>(`${server.url}/api/trpc/tasks.create`, { method: 'POST', body: '{"title":', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.body.error.data.code).toBe('BAD_REQUEST');
  });
});
