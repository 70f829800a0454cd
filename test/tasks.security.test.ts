import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rowsOf } from './support/db-rows.ts';
import { graphql } from './support/graphql-client.ts';
import { jsonBody, request } from './support/http.ts';
import { expectProblem } from './support/problem.ts';
import { sendRaw } from './support/raw-http.ts';
import { createTask } from './support/tasks-client.ts';
import { useTestServer } from './support/test-server.ts';

const server = useTestServer();

/** Everything a task write can change. */
async function storedTasks(): Promise<string> {
  const rows = await rowsOf(server, sql`select id, title, done, updated_at from tasks order by id`);
  return JSON.stringify(rows);
}

const NUL_ERROR = { path: 'title', message: 'Remove the NUL character' };

describe('a NUL character (U+0000) in a title is a validation error at that field on every transport', () => {
  it.each(['\u0000', 'a\u0000b', ' \u0000 ', `${'x'.repeat(199)}\u0000`, `${'x'.repeat(300)}\u0000`])('POST /api/tasks %j → 422, nothing written', async (title) => {
    const before = await storedTasks();
    const response = await request(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title }) });
    expect(expectProblem(response, server.baseUrl, 'validation', 422, '/api/tasks').errors).toEqual([NUL_ERROR]);
    expect(await storedTasks()).toBe(before);
  });

  it('PATCH /api/tasks/{id} → 422, the task unchanged', async () => {
    const { task } = await createTask(server.url, { title: 'untouched' });
    const before = await storedTasks();
    const response = await request(`${server.url}/api/tasks/${task.id}`, { method: 'PATCH', ...jsonBody({ title: 'new\u0000title', done: true }) });
    expect(expectProblem(response, server.baseUrl, 'validation', 422, `/api/tasks/${task.id}`).errors).toEqual([NUL_ERROR]);
    expect(await storedTasks()).toBe(before);
  });

  it('tRPC tasks.create → 400 with the issue', async () => {
    const before = await storedTasks();
    const response = await request<{ error: { data: { code: string; httpStatus: number; issues: unknown } } }>(`${server.url}/api/trpc/tasks.create`, {
      method: 'POST',
      ...jsonBody({ title: 'a\u0000' }),
    });
    expect(response.status).toBe(400);
    expect(response.body.error.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400, issues: [NUL_ERROR] });
    expect(await storedTasks()).toBe(before);
  });

  it('GraphQL createTask → BAD_USER_INPUT, as a literal and as a variable', async () => {
    const before = await storedTasks();
    for (const body of [
      { query: 'mutation { createTask(title: "a\\u0000b") { id } }' },
      { query: 'mutation($t: String!) { createTask(title: $t) { id } }', variables: { t: '\u0000' } },
    ]) {
      const response = await graphql(server.url, body);
      expect(response.status).toBe(200);
      expect(response.body.data).toBeNull();
      expect(response.body.errors).toEqual([
        expect.objectContaining({ message: 'title: Remove the NUL character', extensions: { code: 'BAD_USER_INPUT', errors: [NUL_ERROR] } }),
      ]);
    }
    expect(await storedTasks()).toBe(before);
  });
});

describe('other odd characters: stored as sent when they are Unicode text, refused when not; never a 500', () => {
  it.each([
    ['control characters', '\u0001\u0007\u001b[31m\u007f'],
    ['a byte order mark and zero-width characters', '\uFEFF\u200B\u200D'],
    ['right-to-left override', 'abc\u202Edef'],
    ['emoji', '😀'.repeat(200)],
  ])('%s', async (_, title) => {
    const response = await request<{ title: string }>(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title }) });
    expect(response.status).toBe(201);
    expect(response.body.title).toBe(title.trim());
  });

  it.each(['a\\ud800b', '\\udfff\\udfff', '\\udc00\\ud800', 'x\\ud83d'])('an unpaired surrogate (%s) is not Unicode text: 422 at the field, nothing written', async (escaped) => {
    const before = await storedTasks();
    const response = await request(`${server.url}/api/tasks`, { method: 'POST', body: `{"title":"${escaped}"}`, headers: { 'content-type': 'application/json' } });
    expect(expectProblem(response, server.baseUrl, 'validation', 422, '/api/tasks').errors).toEqual([
      { path: 'title', message: 'Remove the unpaired surrogate (this is not valid Unicode text)' },
    ]);
    expect(await storedTasks()).toBe(before);
  });

  it('a surrogate pair is a character like any other', async () => {
    const response = await request<{ title: string }>(`${server.url}/api/tasks`, { method: 'POST', body: '{"title":"\\ud83d\\ude00"}', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(201);
    expect(response.body.title).toBe('😀');
  });
});

describe('deep JSON', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it.each([65, 5000, 30_000])('a body nested %i deep → 400 bad-request before it is used', async (depth) => {
    const before = await storedTasks();
    // The body object is one level; the title's arrays make up the rest.
    const response = await request(`${server.url}/api/tasks`, { method: 'POST', body: `{"title":${nested(depth - 1)}}`, headers: { 'content-type': 'application/json' } });
    const problem = expectProblem(response, server.baseUrl, 'bad-request', 400, '/api/tasks');
    expect(problem.detail).toContain('64');
    expect(await storedTasks()).toBe(before);
  });

  it('64 deep is read, and judged by the schema (422)', async () => {
    const response = await request(`${server.url}/api/tasks`, { method: 'POST', body: `{"title":${nested(63)}}`, headers: { 'content-type': 'application/json' } });
    expectProblem(response, server.baseUrl, 'validation', 422, '/api/tasks');
  });

  it('brackets inside strings are text, not nesting', async () => {
    const response = await request<{ title: string }>(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: `${'['.repeat(150)}"\\{` }) });
    expect(response.status).toBe(201);
  });
});

describe('413 on a rate-limited task write', () => {
  it.each(['POST', 'PATCH'])('%s counts, and carries the RateLimit headers the document promises', async (method) => {
    const { task } = await createTask(server.url);
    const path = method === 'POST' ? '/api/tasks' : `/api/tasks/${task.id}`;
    const body = `{"title":"${'x'.repeat(70_000)}"}`;
    const declared = await request(`${server.url}${path}`, { method, body, headers: { 'content-type': 'application/json' } });
    expectProblem(declared, server.baseUrl, 'payload-too-large', 413, path);
    expect(declared.headers.get('ratelimit-policy')).toMatch(/^"task-writes";q=\d+;w=60$/);
    expect(declared.headers.get('ratelimit')).toMatch(/^"task-writes";r=\d+;t=\d+$/);
    // Sent in chunks, with no length declared up front: found out while reading.
    const chunked = await sendRaw(server.url, { method, target: path, headers: [['Content-Type', 'application/json'], ['Transfer-Encoding', 'chunked']], body: Buffer.from(body) });
    expect(chunked.status).toBe(413);
    expect(chunked.headers['ratelimit']).toMatch(/^"task-writes";r=\d+;t=\d+$/);
  });
});
