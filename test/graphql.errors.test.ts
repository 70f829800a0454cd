import { getIntrospectionQuery } from 'graphql';
import { serverAudits } from 'graphql-http';
import { beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_CONTENT_TYPE, graphql } from './support/graphql-client.ts';
import { request } from './support/http.ts';
import { bearer, createKey } from './support/keys-client.ts';
import { ManualClock } from './support/manual-clock.ts';
import { startTestServer, useTestServer } from './support/test-server.ts';

const server = useTestServer();
let auth: Record<string, string>;
beforeAll(async () => {
  auth = bearer((await createKey(server.url, { name: 'graphql errors' })).key);
});

const endpoint = () => `${server.url}/api/graphql`;

function expectOnlyErrors(body: unknown): { message: string }[] {
  const envelope = body as { errors: { message: string }[]; data?: unknown };
  expect(envelope.errors.length).toBeGreaterThan(0);
  for (const error of envelope.errors) expect(error.message).toEqual(expect.any(String));
  expect(envelope.data).toBeUndefined();
  return envelope.errors;
}

describe('methods other than POST', () => {
  it.each(['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])('%s → 405 with Allow: POST and {errors:[{message}]}', async (method) => {
    const response = await request(`${endpoint()}?query=%7B__typename%7D`, { method, headers: auth });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(response.headers.get('content-type')).toBe(GRAPHQL_CONTENT_TYPE);
    expect(expectOnlyErrors(response.body)).toHaveLength(1);
  });
});

describe('processing order 1–4: 400 before parsing', () => {
  it.each([
    ['a body that is not JSON', '{"query": '],
    ['a JSON array', '[{"query": "{ __typename }"}]'],
    ['no query', '{}'],
    ['a query that is not a string', '{"query": 42}'],
    ['a blank query', '{"query": "   "}'],
    ['variables as an array', '{"query": "{ __typename }", "variables": [1]}'],
    ['variables as a string', '{"query": "{ __typename }", "variables": "{}"}'],
    ['variables as a number', '{"query": "{ __typename }", "variables": 3}'],
    ['an operationName that is not a string', '{"query": "{ __typename }", "operationName": 1}'],
  ])('%s', async (_, body) => {
    const response = await graphql(server.url, body, auth);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe(GRAPHQL_CONTENT_TYPE);
    expect(expectOnlyErrors(response.body)).toHaveLength(1);
  });

  it('a query of more than 4000 characters; exactly 4000 is fine', async () => {
    const base = '{ __typename }';
    const exact = `${base}${' '.repeat(4000 - base.length)}`;
    expect((await graphql(server.url, { query: exact }, auth)).status).toBe(200);
    const over = await graphql(server.url, { query: `${exact} ` }, auth);
    expect(over.status).toBe(400);
    expect(expectOnlyErrors(over.body)[0]!.message).toContain('4000');
  });
});

describe('processing order 5–7', () => {
  it('a syntax error → 400 with the parser errors', async () => {
    const response = await graphql(server.url, { query: '{ tasks { id ' }, auth);
    expect(response.status).toBe(400);
    expect(expectOnlyErrors(response.body)[0]!.message).toMatch(/^Syntax Error/);
  });

  it.each([
    ['an unknown field', '{ nope }'],
    ['an unknown enum value', '{ leaderboard(game: pong) { name } }'],
    ['a missing required argument', '{ task { id } }'],
    ['a wrong variable type', 'query Q($n: String) { tasks(limit: $n) { id } }'],
  ])('%s → 400 with the validation errors', async (_, query) => {
    const response = await graphql(server.url, { query }, auth);
    expect(response.status).toBe(400);
    expectOnlyErrors(response.body);
  });

  // The schema's deepest valid query has depth 3 (leaderboard → entries → id), so over HTTP the depth
  // rule can only meet documents that already failed validation; graphql.rules.test.ts tests it on a
  // deeper schema.
  it('a document deeper than 5 with unknown fields → 400 with the validation errors alone (step 6 before 7)', async () => {
    const response = await graphql(server.url, { query: '{ leaderboard(game: demo) { entries { a { b { c { d } } } } } }' }, auth);
    expect(response.status).toBe(400);
    const messages = expectOnlyErrors(response.body).map((error) => error.message);
    expect(messages).toContain('Cannot query field "a" on type "ScoreEntry".');
    expect(messages.join(' ')).not.toMatch(/depth/);
  });

  it('a valid document within the depth passes, fragments and inline fragments followed', async () => {
    const query = `
      fragment Entry on ScoreEntry { ... on ScoreEntry { id } }
      { leaderboard(game: demo) { ... on Leaderboard { entries { ...Entry } } } }`;
    const response = await graphql(server.url, { query }, auth);
    expect(response.status).toBe(200);
  });

  it('survives fragment cycles and fragment fan-out: each is a 400, counted without expanding it', async () => {
    const cycle = await graphql(server.url, { query: 'fragment A on Task { id ...B } fragment B on Task { title ...A } { tasks { ...A } }' }, auth);
    expect(cycle.status).toBe(400);
    const fanOut = Array.from({ length: 30 }, (_, i) => `fragment F${i} on Task { ...F${i + 1} ...F${i + 1} }`).join('\n');
    const wide = await graphql(server.url, { query: `${fanOut}\nfragment F30 on Task { id }\n{ tasks { ...F0 } }` }, auth);
    expect(wide.status).toBe(400);
    // tasks, and 2^30 ids under it.
    expect(wide.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ message: `The operation selects ${2 ** 30 + 1} fields once its fragments are expanded, above the limit of 1000.` })]));
  });

  it('does not count introspection: the full introspection query passes', async () => {
    const response = await graphql(server.url, { query: getIntrospectionQuery() }, auth);
    expect(response.status).toBe(200);
    const deepTypename = await graphql(server.url, { query: '{ __schema { types { fields { type { ofType { ofType { name } } } } } } }' }, auth);
    expect(deepTypename.status).toBe(200);
  });
});

describe('credentials and limits', () => {
  it('an invalid credential → 401 in the GraphQL envelope with the challenge', async () => {
    const response = await graphql(server.url, { query: '{ __typename }' }, bearer('lab_invalid'));
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe(GRAPHQL_CONTENT_TYPE);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(response.body).toEqual({ errors: [{ message: 'Unknown, revoked or expired API key', extensions: { code: 'UNAUTHENTICATED' } }] });
  });

  it('counts every request, whatever its method or outcome: the 61st anonymous one → 429 RATE_LIMITED', async () => {
    // One second into a minute on a clock we hold still: all 61 requests fall in one window.
    const limited = await startTestServer({ env: { TRUST_PROXY: 'true' }, clock: new ManualClock(Date.UTC(2026, 10, 23, 12, 0, 1)) });
    try {
      const client = { 'X-Forwarded-For': '198.51.100.7' };
      const send = (i: number) =>
        i % 3 === 0
          ? request(`${limited.url}/api/graphql`, { headers: client })
          : graphql(limited.url, i % 3 === 1 ? { query: '{ __typename }' } : 'not json', client);
      const statuses: number[] = [];
      for (let i = 0; i < 60; i++) statuses.push((await send(i)).status);
      expect(statuses).not.toContain(429);
      const over = await graphql(limited.url, { query: '{ __typename }' }, client);
      expect(over.status).toBe(429);
      expect(over.headers.get('content-type')).toBe(GRAPHQL_CONTENT_TYPE);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(over.headers.get('ratelimit-policy')).toBe('"graphql";q=60;w=60');
      expect(over.headers.get('ratelimit')).toMatch(/^"graphql";r=0;t=\d+$/);
      expect(over.body.errors).toEqual([{ message: expect.any(String), extensions: { code: 'RATE_LIMITED' } }]);
      // An API key gets 240 of its own.
      const keyed = await graphql(limited.url, { query: '{ __typename }' }, { ...client, ...bearer((await createKey(limited.url, { name: 'k' })).key) });
      expect(keyed.status).toBe(200);
      expect(keyed.headers.get('ratelimit-policy')).toBe('"graphql";q=240;w=60');
    } finally {
      await limited.stop();
    }
  });
});

describe('graphql-http server audits', () => {
  /**
   * The audits that cannot pass by docs/spec/SPEC.md's design, by id:
   * - POST only (405 for every other method): GET queries.
   * - One content type on every answer (application/graphql-response+json)
   *   with its 400 statuses: the application/json expectations.
   */
  const impossible: Record<string, string> = {
    '4655': 'MUST match the content-type for Accept: application/json — SPEC fixes application/graphql-response+json',
    '47DE': 'SHOULD use application/json for Accept: */* — the content type is fixed',
    '80D8': 'SHOULD assume application/json when Accept is missing — the content type is fixed',
    '572B': 'SHOULD use 200 on parse failure for application/json — the fixed content type answers 400',
    'FDE2': 'SHOULD use 200 on validation failure for application/json — the fixed content type answers 400',
    '7B9B': 'SHOULD use 200 on variable coercion failure for application/json — the fixed content type answers 400',
    '5A70': 'MAY accept GET requests — POST only',
    'D6D5': 'MAY allow variables in GET — POST only',
    '6A70': 'MAY allow variables in GET — POST only',
  };

  it('every audit passes but the ones POST-only and the fixed content type make impossible', async () => {
    const audits = serverAudits({
      url: endpoint(),
      fetchFn: (input: RequestInfo | URL, init: RequestInit = {}) =>
        fetch(input, { ...init, headers: { ...(init.headers as Record<string, string>), ...auth } }),
    });
    const failed: string[] = [];
    for (const audit of audits) {
      const result = await audit.fn();
      if (result.status !== 'ok') failed.push(audit.id);
    }
    expect(audits.length).toBeGreaterThan(50);
    expect(failed.sort()).toEqual(Object.keys(impossible).sort());
  });
});
