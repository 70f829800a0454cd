import { randomUUID } from 'node:crypto';
import { TRPCClientError } from '@trpc/client';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../src/client/app-router.ts';
import { request } from './support/http.ts';
import { useTestServer } from './support/test-server.ts';
import { trpcClient, type TrpcClient } from './support/trpc-client.ts';

const server = useTestServer();
let client: TrpcClient;
beforeAll(async () => {
  client = trpcClient(server.url);
});

describe('task procedures over /api/trpc', () => {
  it('creates, reads, updates, lists and deletes through the typed client', async () => {
    const created = await client.tasks.create.mutate({ title: '  via tRPC ' });
    expect(created.title).toBe('via tRPC');
    const read = await client.tasks.get.query({ id: created.id });
    expect(read).toEqual(created);
    const updated = await client.tasks.update.mutate({ id: created.id, done: true });
    expect(updated.done).toBe(true);
    const [page, rest] = await Promise.all([client.tasks.list.query({ limit: 1 }), client.tasks.listV2.query({ limit: 1 })]);
    expect(page.items[0]?.id).toBe(created.id);
    expect(rest.items[0]?.status).toBe('done');
    await client.tasks.delete.mutate({ id: created.id });
    const error = await client.tasks.get.query({ id: created.id }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<AppRouter>).data?.code).toBe('NOT_FOUND');
    expect((error as TRPCClientError<AppRouter>).data?.httpStatus).toBe(404);
  });

  it('answers invalid input with HTTP 400 in the tRPC envelope, issues listed as {path, message}', async () => {
    const response = await request<{ error: { message: string; code: number; data: Record<string, unknown> } }>(
      `${server.url}/api/trpc/tasks.create`,
      { method: 'POST', body: JSON.stringify({ title: '', extra: true }), headers: { 'content-type': 'application/json' } },
    );
    expect(response.status).toBe(400);
    expect(response.body.error.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400, path: 'tasks.create' });
    expect(response.body.error.data.issues).toEqual([
      { path: 'title', message: 'Give the task a title' },
      { path: 'extra', message: 'Unknown field' },
    ]);
  });

  it('maps domain errors to tRPC codes: a missing task is NOT_FOUND, a stale If-Match PRECONDITION_FAILED', async () => {
    const input = encodeURIComponent(JSON.stringify({ id: randomUUID() }));
    const missing = await request<{ error: { data: { code: string; httpStatus: number } } }>(`${server.url}/api/trpc/tasks.get?input=${input}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.data.code).toBe('NOT_FOUND');
    const created = await client.tasks.create.mutate({ title: 'stale' });
    const stale = await request<{ error: { data: { code: string } } }>(`${server.url}/api/trpc/tasks.update`, {
      method: 'POST',
      body: JSON.stringify({ id: created.id, done: true }),
      headers: { 'content-type': 'application/json', 'if-match': '"not-the-tag"' },
    });
    expect(stale.status).toBe(412);
    expect(stale.body.error.data.code).toBe('PRECONDITION_FAILED');
  });
});
