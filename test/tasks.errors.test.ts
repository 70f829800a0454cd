import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { storedCount } from './support/db-rows.ts';
import { jsonBody, request } from './support/http.ts';
import { expectProblem } from './support/problem.ts';
import { createTask, patchTask } from './support/tasks-client.ts';
import { useTestServer } from './support/test-server.ts';

const server = useTestServer();

const post = (body: unknown) => request(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody(body) });

describe('POST /api/tasks validation', () => {
  it.each([
    [{ title: '' }, 'title', 'Give the task a title'],
    [{ title: '     ' }, 'title', 'Give the task a title'],
    [{}, 'title', 'Give the task a title'],
    [{ title: 'x'.repeat(201) }, 'title', 'Keep the title under 200 characters'],
    [{ title: `  ${'y'.repeat(201)}  ` }, 'title', 'Keep the title under 200 characters'],
    [{ title: '🚀'.repeat(201) }, 'title', 'Keep the title under 200 characters'],
  ])('%j → 422 at %s: %s', async (body, path, message) => {
    const before = await storedCount(server, 'tasks');
    const problem = expectProblem(await post(body), server.baseUrl, 'validation', 422, '/api/tasks');
    expect(problem.errors).toEqual([{ path, message }]);
    expect(await storedCount(server, 'tasks')).toBe(before);
  });

  it('accepts exactly 200 characters after trimming', async () => {
    expect((await post({ title: ` ${'z'.repeat(200)} ` })).status).toBe(201);
  });

  it('rejects unknown fields one entry each', async () => {
    const problem = expectProblem(await post({ title: 'ok', colour: 'red', size: 2 }), server.baseUrl, 'validation', 422, '/api/tasks');
    expect(problem.errors).toEqual([
      { path: 'colour', message: 'Unknown field' },
      { path: 'size', message: 'Unknown field' },
    ]);
  });

  it('rejects wrong types with the field path', async () => {
    const problem = expectProblem(await post({ title: 5, done: 'yes' }), server.baseUrl, 'validation', 422, '/api/tasks');
    expect(problem.errors?.map((entry) => entry.path)).toEqual(['title', 'done']);
  });

  it('rejects a body that is JSON but not an object', async () => {
    const problem = expectProblem(await post(['title']), server.baseUrl, 'validation', 422, '/api/tasks');
    expect(problem.errors).toEqual([{ path: '', message: 'Expected a JSON object' }]);
  });

  it('answers 400 bad-request for a body that is not JSON', async () => {
    const response = await request(`${server.url}/api/tasks`, {
      method: 'POST',
      body: '{"title": ',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(response, server.baseUrl, 'bad-request', 400, '/api/tasks');
  });

  it('answers 413 for a body over 64 KiB and stores nothing', async () => {
    const before = await storedCount(server, 'tasks');
    const response = await post({ title: 'big', padding: 'p'.repeat(70 * 1024) });
    expectProblem(response, server.baseUrl, 'payload-too-large', 413, '/api/tasks');
    expect(await storedCount(server, 'tasks')).toBe(before);
  });
});

describe('PATCH /api/tasks/{id} validation', () => {
  it('an empty patch → 422 at path "" with its message', async () => {
    const { task } = await createTask(server.url);
    const problem = expectProblem(await patchTask(server.url, task.id, {}), server.baseUrl, 'validation', 422, `/api/tasks/${task.id}`);
    expect(problem.errors).toEqual([{ path: '', message: 'Send at least one field to change' }]);
  });

  it('title rules apply, and nothing changes', async () => {
    const { task } = await createTask(server.url, { title: 'Keep me' });
    const empty = await patchTask(server.url, task.id, { title: ' ', done: true });
    expect(expectProblem(empty, server.baseUrl, 'validation', 422, `/api/tasks/${task.id}`).errors).toEqual([
      { path: 'title', message: 'Give the task a title' },
    ]);
    const long = await patchTask(server.url, task.id, { title: 'x'.repeat(201) });
    expect(expectProblem(long, server.baseUrl, 'validation', 422, `/api/tasks/${task.id}`).errors).toEqual([
      { path: 'title', message: 'Keep the title under 200 characters' },
    ]);
    const read = await request(`${server.url}/api/tasks/${task.id}`);
    expect(read.body).toEqual(task);
  });

  it('rejects unknown fields, including an id in the body', async () => {
    const { task } = await createTask(server.url);
    const problem = expectProblem(await patchTask(server.url, task.id, { done: true, id: randomUUID(), extra: 1 }), server.baseUrl, 'validation', 422, `/api/tasks/${task.id}`);
    expect(problem.errors).toEqual([{ path: 'id', message: 'Unknown field' }]);
    const extra = await patchTask(server.url, task.id, { done: true, extra: 1 });
    expect(expectProblem(extra, server.baseUrl, 'validation', 422, `/api/tasks/${task.id}`).errors).toEqual([
      { path: 'extra', message: 'Unknown field' },
    ]);
  });

  it('validation comes before existence: a bad body on a missing task is 422', async () => {
    const id = randomUUID();
    expectProblem(await patchTask(server.url, id, {}), server.baseUrl, 'validation', 422, `/api/tasks/${id}`);
  });
});

describe('ids and existence', () => {
  it.each(['GET', 'PATCH', 'DELETE'])('%s with a non-UUID id → 422 at path id', async (method) => {
    const response = await request(`${server.url}/api/tasks/not-a-uuid`, {
      method,
      ...(method === 'PATCH' ? jsonBody({ done: true }) : {}),
    });
    const problem = expectProblem(response, server.baseUrl, 'validation', 422, '/api/tasks/not-a-uuid');
    expect(problem.errors).toEqual([{ path: 'id', message: 'Must be a UUID' }]);
  });

  it.each(['GET', 'PATCH', 'DELETE'])('%s of a missing task → 404 naming the id', async (method) => {
    const id = randomUUID();
    const response = await request(`${server.url}/api/tasks/${id}`, {
      method,
      ...(method === 'PATCH' ? jsonBody({ done: true }) : {}),
    });
    const problem = expectProblem(response, server.baseUrl, 'not-found', 404, `/api/tasks/${id}`);
    expect(problem.detail).toBe(`No task with id ${id}.`);
  });

  it('GET /api/v2/tasks/{id}: 422 for a non-UUID, 404 for a missing task', async () => {
    expectProblem(await request(`${server.url}/api/v2/tasks/nope`), server.baseUrl, 'validation', 422, '/api/v2/tasks/nope');
    const id = randomUUID();
    expectProblem(await request(`${server.url}/api/v2/tasks/${id}`), server.baseUrl, 'not-found', 404, `/api/v2/tasks/${id}`);
  });
});

describe('API-Version on GET /api/tasks/{id}', () => {
  it.each(['3', '0', 'two', '1.0', ''])('API-Version: %j → 400 unsupported-version with Vary', async (version) => {
    const { task } = await createTask(server.url);
    const response = await request(`${server.url}/api/tasks/${task.id}`, { headers: { 'API-Version': version } });
    expectProblem(response, server.baseUrl, 'unsupported-version', 400, `/api/tasks/${task.id}`);
    expect(response.headers.get('vary')).toBe('API-Version');
  });

  it('path validation comes first: a bad id with a bad version is 422, still with Vary', async () => {
    const response = await request(`${server.url}/api/tasks/bad-id`, { headers: { 'API-Version': '9' } });
    expectProblem(response, server.baseUrl, 'validation', 422, '/api/tasks/bad-id');
    expect(response.headers.get('vary')).toBe('API-Version');
  });

  it('version comes before existence: a missing task with a bad version is 400', async () => {
    const id = randomUUID();
    const response = await request(`${server.url}/api/tasks/${id}`, { headers: { 'API-Version': '3' } });
    expectProblem(response, server.baseUrl, 'unsupported-version', 400, `/api/tasks/${id}`);
    const missing = await request(`${server.url}/api/tasks/${id}`);
    expectProblem(missing, server.baseUrl, 'not-found', 404, `/api/tasks/${id}`);
    expect(missing.headers.get('vary')).toBe('API-Version');
  });
});

describe('list query validation', () => {
  const list = (query: string) => request(`${server.url}/api/tasks?${query}`);

  it.each([
    ['limit=0', 'limit'],
    ['limit=51', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=2.5', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=1001', 'offset'],
    ['done=yes', 'done'],
    ['done=TRUE', 'done'],
    [`cursor=${'a'.repeat(201)}`, 'cursor'],
  ])('%s → 422 at %s', async (query, path) => {
    const problem = expectProblem(await list(query), server.baseUrl, 'validation', 422, '/api/tasks');
    expect(problem.errors?.map((entry) => entry.path)).toEqual([path]);
  });

  it('cursor with offset → 422 at offset with its message', async () => {
    const problem = expectProblem(await list('cursor=abc&offset=0'), server.baseUrl, 'validation', 422, '/api/tasks');
    expect(problem.errors).toEqual([{ path: 'offset', message: 'Use cursor or offset, not both' }]);
  });

  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  it.each([
    ['not base64', '!!!'],
    ['not JSON', Buffer.from('hello').toString('base64url')],
    ['no id', encode({ createdAt: '2026-01-01T00:00:00.000Z' })],
    ['no createdAt', encode({ id: randomUUID() })],
    ['unparsable time', encode({ createdAt: 'yesterday', id: randomUUID() })],
    ['id not a UUID', encode({ createdAt: '2026-01-01T00:00:00.000Z', id: 'x' })],
    ['a JSON array', encode([1, 2])],
  ])('an invalid cursor (%s) → 422 at query.cursor', async (_, cursor) => {
    const problem = expectProblem(await list(`cursor=${encodeURIComponent(cursor)}`), server.baseUrl, 'validation', 422, '/api/tasks');
    expect(problem.errors).toEqual([{ path: 'query.cursor', message: 'Invalid cursor' }]);
    expect(problem.detail).toMatch(/not one this API issued/);
  });

  it('the same rules hold on /api/v2/tasks', async () => {
    const problem = expectProblem(await request(`${server.url}/api/v2/tasks?cursor=x&offset=1`), server.baseUrl, 'validation', 422, '/api/v2/tasks');
    expect(problem.errors).toEqual([{ path: 'offset', message: 'Use cursor or offset, not both' }]);
  });
});

describe('routes', () => {
  it.each([
    ['GET', '/api/nothing-here'],
    ['PUT', '/api/tasks'],
    ['POST', '/api/health'],
    ['POST', '/'],
    ['GET', '/nowhere'],
  ])('%s %s → 404 with the route detail', async (method, path) => {
    const response = await request(`${server.url}${path}?q=1`, { method });
    const problem = expectProblem(response, server.baseUrl, 'not-found', 404, path);
    expect(problem.detail).toBe(`No route for ${method} ${path}.`);
  });
});
