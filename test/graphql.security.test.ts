import { describe, expect, it } from 'vitest';
import { storedCount } from './support/db-rows.ts';
import { GRAPHQL_CONTENT_TYPE, graphql } from './support/graphql-client.ts';
import { jsonBody, request } from './support/http.ts';
import { bearer, createKey } from './support/keys-client.ts';
import { clientAddresses, ONE_SECOND_INTO_A_MINUTE } from './support/client-addresses.ts';
import { ManualClock } from './support/manual-clock.ts';
import { startTestServer, useTestServer } from './support/test-server.ts';

const START = ONE_SECOND_INTO_A_MINUTE;

const clock = new ManualClock(START);
const server = useTestServer({ clock, env: { TRUST_PROXY: 'true', RATE_LIMIT_TASK_WRITES_ANON: '30', RATE_LIMIT_KEYS_PER_HOUR: '1000' } });

const newClient = clientAddresses('198.51.100');

/** A mutation with `count` aliased createTask fields. */
function createTasks(count: number, prefix: string): string {
  const fields = Array.from({ length: count }, (_, i) => `t${i}: createTask(title: "${prefix} ${i}") { id }`);
  return `mutation { ${fields.join(' ')} }`;
}

describe('createTask counts against task-writes, one per field', () => {
  it('counts every aliased field before the operation runs, and refuses the whole operation when they do not all fit', async () => {
    clock.set(START);
    const client = newClient();
    const before = await storedCount(server, 'tasks');

    const twenty = await graphql(server.url, { query: createTasks(20, 'first') }, client);
    expect(twenty.status).toBe(200);
    expect(Object.keys(twenty.body.data ?? {})).toHaveLength(20);
    expect(await storedCount(server, 'tasks')).toBe(before + 20);

    // The REST twin sees the same allowance: 30 - 20 - 1 left.
    const rest = await request(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: 'rest' }, client) });
    expect(rest.status).toBe(201);
    expect(rest.headers.get('ratelimit')).toBe('"task-writes";r=9;t=59');

    // Ten do not fit in nine: refused whole, in GraphQL's envelope, with the task-writes headers.
    const refused = await graphql(server.url, { query: createTasks(10, 'refused') }, client);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toBe(GRAPHQL_CONTENT_TYPE);
    expect(refused.headers.get('retry-after')).toBe('59');
    expect(refused.headers.get('ratelimit-policy')).toBe('"task-writes";q=30;w=60');
    expect(refused.headers.get('ratelimit')).toBe('"task-writes";r=9;t=59');
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.errors).toEqual([{ message: expect.stringContaining('task-writes'), extensions: { code: 'RATE_LIMITED' } }]);
    expect(await storedCount(server, 'tasks')).toBe(before + 21);

    // Nine fit exactly; after them REST is refused too.
    const nine = await graphql(server.url, { query: createTasks(9, 'last') }, client);
    expect(nine.status).toBe(200);
    expect(await storedCount(server, 'tasks')).toBe(before + 30);
    const over = await request(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: 'over' }, client) });
    expect(over.status).toBe(429);
  });

  it('counts a caller with a key against the key (120), and queries not at all', async () => {
    clock.set(START);
    const client = newClient();
    const key = await createKey(server.url, { name: 'graphql writer' }, client['X-Forwarded-For']);
    const headers = { ...client, ...bearer(key.key) };
    const read = await graphql(server.url, { query: '{ tasks(limit: 1) { id } leaderboard(game: demo) { name } }' }, headers);
    expect(read.status).toBe(200);
    const written = await graphql(server.url, { query: createTasks(3, 'keyed') }, headers);
    expect(written.status).toBe(200);
    const rest = await request(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: 'keyed rest' }, headers) });
    expect(rest.headers.get('ratelimit')).toBe('"task-writes";r=116;t=59');
  });

  it('a field skipped by @skip does not run and does not count', async () => {
    clock.set(START);
    const client = newClient();
    const response = await graphql(
      server.url,
      { query: 'mutation($no: Boolean!) { a: createTask(title: "kept") { id } b: createTask(title: "skipped") @skip(if: $no) { id } }', variables: { no: true } },
      client,
    );
    expect(response.status).toBe(200);
    expect(Object.keys(response.body.data ?? {})).toEqual(['a']);
    const rest = await request(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: 'after skip' }, client) });
    expect(rest.headers.get('ratelimit')).toBe('"task-writes";r=28;t=59');
  });
});

describe('width: at most 20 top-level fields', () => {
  const fields = (count: number) => Array.from({ length: count }, (_, i) => `f${i}: tasks(limit: 1) { id }`).join(' ');

  it('21 top-level fields (aliases included) → 400 naming the count and the limit; nothing runs', async () => {
    const response = await graphql(server.url, { query: `{ ${fields(21)} }` }, newClient());
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe(GRAPHQL_CONTENT_TYPE);
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors![0]!.message).toMatch(/\b21\b.*\b20\b/);
  });

  it('fields reached through fragments count too', async () => {
    const query = `query { ...Many ${fields(11)} } fragment Many on Query { ${Array.from({ length: 10 }, (_, i) => `g${i}: tasks(limit: 1) { id }`).join(' ')} }`;
    const response = await graphql(server.url, { query }, newClient());
    expect(response.status).toBe(400);
    expect(response.body.errors![0]!.message).toMatch(/\b21\b.*\b20\b/);
  });

  it('20 fields pass, and introspection fields are not counted', async () => {
    const response = await graphql(server.url, { query: `{ __typename ${fields(20)} __schema { queryType { name } } }` }, newClient());
    expect(response.status).toBe(200);
    expect(Object.keys(response.body.data ?? {})).toHaveLength(22);
  });
});

describe('processing order', () => {
  it('a document with an unknown field that is also too deep gets the validation errors alone (6 before 7)', async () => {
    const response = await graphql(server.url, { query: '{ tasks { nope { a { b { c { d { e } } } } } } }' }, newClient());
    expect(response.status).toBe(400);
    const messages = response.body.errors!.map((error) => error.message);
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.some((message) => message.includes('nope'))).toBe(true);
    expect(messages.some((message) => /depth/i.test(message))).toBe(false);
  });
});

describe('hostile bodies', () => {
  it('variables nested 5000 deep → 400 before anything uses them', async () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const response = await graphql(server.url, `{"query":"query($v: String) { __typename }","variables":{"v":${deep}}}`, newClient());
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe(GRAPHQL_CONTENT_TYPE);
    expect(response.body.errors).toEqual([{ message: expect.stringContaining('64') }]);
  });

  it('variables nested exactly 64 deep are judged by the schema, not refused for depth', async () => {
    const deep = `${'['.repeat(62)}${']'.repeat(62)}`;
    const response = await graphql(server.url, `{"query":"query($v: String) { __typename }","variables":{"v":${deep}}}`, newClient());
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors![0]!.message).toContain('"$v"');
    expect(response.body.errors![0]!.message).not.toContain('64');
  });
});

describe('credentials after the graphql limit is used up', () => {
  it('answers 429 whatever the credential (never a 500), and a bad credential is 401 while the limit lasts', async () => {
    const held = await startTestServer({ env: { TRUST_PROXY: 'true' }, clock: new ManualClock(START) });
    try {
      const client = { 'X-Forwarded-For': '203.0.113.77' };
      const badKey = await graphql(held.url, { query: '{ __typename }' }, { ...client, ...bearer('lab_not-a-key') });
      expect(badKey.status).toBe(401);
      for (let i = 1; i < 60; i++) expect((await graphql(held.url, { query: '{ __typename }' }, client)).status).toBe(200);
      for (const credential of ['lab_not-a-key', 'not.a.token', '']) {
        const response = await graphql(held.url, { query: '{ __typename }' }, { ...client, Authorization: `Bearer ${credential}` });
        expect(response.status, credential).toBe(429);
        expect(response.body.errors).toEqual([{ message: expect.any(String), extensions: { code: 'RATE_LIMITED' } }]);
        expect(response.headers.get('ratelimit-policy')).toBe('"graphql";q=60;w=60');
      }
    } finally {
      await held.stop();
    }
  });
});
