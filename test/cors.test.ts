import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EXPOSED_HEADERS, PREFLIGHT_HEADERS } from '../src/http/cors.ts';
import { graphql } from './support/graphql-client.ts';
import { jsonBody, request } from './support/http.ts';
import { clientAddresses } from './support/client-addresses.ts';
import { createKey } from './support/keys-client.ts';
import { postScore } from './support/scores-client.ts';
import { ManualClock } from './support/manual-clock.ts';
import { openSse } from './support/sse-reader.ts';
import { createTask } from './support/tasks-client.ts';
import { useTestServer } from './support/test-server.ts';

const APP = 'https://app.example.com';
const VITE = 'http://localhost:5173';
const STRANGER = 'https://evil.example';

/** The exact values docs/spec/DECISIONS.md, "Browser clients (CORS)" fixes, written out here rather than imported. */
const EXPOSED = 'ETag, Location, Link, Retry-After, RateLimit, RateLimit-Policy, X-Request-Id, Idempotent-Replayed, API-Version, Deprecation, Sunset, WWW-Authenticate';
const ALLOWED_METHODS = 'GET, HEAD, POST, PATCH, DELETE';
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, API-Version, Last-Event-ID, X-Request-Id';

function preflight(url: string, path: string, origin: string, method = 'POST', extra: Record<string, string> = {}) {
  return fetch(`${url}${path}`, {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': method, ...extra },
  });
}

/** Both CORS headers a browser needs to hand a response to the page, and nothing that would send cookies. */
function expectReadableBy(headers: Headers, allowOrigin: string): void {
  expect(headers.get('access-control-allow-origin')).toBe(allowOrigin);
  expect(headers.get('access-control-expose-headers')).toBe(EXPOSED);
  expect(headers.get('access-control-allow-credentials')).toBeNull();
}

function varyOf(headers: Headers): string[] {
  return (headers.get('vary') ?? '').split(',').map((field) => field.trim().toLowerCase());
}

it('the module states the decided values (the tests below use the written-out ones)', () => {
  expect(EXPOSED_HEADERS).toBe(EXPOSED);
  expect(PREFLIGHT_HEADERS).toEqual({ 'Access-Control-Allow-Methods': ALLOWED_METHODS, 'Access-Control-Allow-Headers': ALLOWED_HEADERS, 'Access-Control-Max-Age': '600' });
});

describe('CORS_ORIGINS=* (the default)', () => {
  // Time held still: a test's task-write limit of 2, once used up, stays used up whatever minute it is.
  // Each test that writes does so as a client of its own.
  const server = useTestServer({ clock: new ManualClock(Date.now()), env: { TRUST_PROXY: 'true', RATE_LIMIT_TASK_WRITES_ANON: '2', RATE_LIMIT_KEYS_PER_HOUR: '1000' } });
  const newClient = clientAddresses('192.0.2');

  it.each([
    ['/api/tasks', 'POST'],
    ['/api/tasks/00000000-0000-4000-8000-000000000000', 'PATCH'],
    ['/api/trpc/tasks.create', 'POST'],
    ['/api/trpc/tasks.newest,scores.top?batch=1', 'GET'],
    ['/api/graphql', 'POST'],
    ['/api/scores/stream', 'GET'],
    ['/api/no-such-thing', 'DELETE'],
    ['/api', 'GET'],
  ])('a preflight of %s answers 204 with the decided headers and no body', async (path, method) => {
    const response = await preflight(server.url, path, VITE, method, { 'Access-Control-Request-Headers': 'authorization, content-type, idempotency-key' });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toBe(ALLOWED_METHODS);
    expect(response.headers.get('access-control-allow-headers')).toBe(ALLOWED_HEADERS);
    expect(response.headers.get('access-control-max-age')).toBe('600');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(await response.text()).toBe('');
  });

  it('a preflight counts against no limit: the two allowed task writes stay after ten preflights', async () => {
    const client = newClient();
    for (let i = 0; i < 10; i++) expect((await preflight(server.url, '/api/tasks', APP, 'POST', client)).status).toBe(204);
    const first = await request(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: 'after preflights' }, { ...client, Origin: APP }) });
    expect(first.status).toBe(201);
    expect(first.headers.get('ratelimit')).toMatch(/r=1\b/);
  });

  it('an OPTIONS without Access-Control-Request-Method keeps its answer: REST 404, tRPC 405, GraphQL 405', async () => {
    const rest = await request(`${server.url}/api/tasks`, { method: 'OPTIONS', headers: { Origin: APP } });
    expect(rest.status).toBe(404);
    expect(rest.headers.get('content-type')).toBe('application/problem+json');
    const trpc = await request<{ error: { data: { code: string } } }>(`${server.url}/api/trpc/tasks.newest`, { method: 'OPTIONS', headers: { Origin: APP } });
    expect(trpc.status).toBe(405);
    expect(trpc.body.error.data.code).toBe('METHOD_NOT_SUPPORTED');
    const gql = await request(`${server.url}/api/graphql`, { method: 'OPTIONS' });
    expect(gql.status).toBe(405);
    expect(gql.headers.get('allow')).toBe('POST');
    // Without Origin either, OPTIONS is just a method.
    expect((await request(`${server.url}/api/tasks`, { method: 'OPTIONS', headers: { 'Access-Control-Request-Method': 'POST' } })).status).toBe(404);
  });

  it('REST successes, their ETag and Location, errors and 429s are readable from any origin', async () => {
    const client = newClient();
    const created = await request<{ id: string }>(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: 'cors' }, { ...client, Origin: VITE }) });
    expect(created.status).toBe(201);
    expectReadableBy(created.headers, '*');
    expect(created.headers.get('location')).toBeTruthy();
    expect(created.headers.get('etag')).toBeTruthy();

    const read = await request(`${server.url}/api/tasks/${created.body.id}`, { headers: { Origin: VITE } });
    expectReadableBy(read.headers, '*');
    expect(varyOf(read.headers)).toContain('api-version');

    const missing = await request(`${server.url}/api/tasks/${randomUUID()}`, { headers: { Origin: VITE } });
    expect(missing.status).toBe(404);
    expectReadableBy(missing.headers, '*');

    expect((await request(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: 'second write' }, client) })).status).toBe(201);
    const refused = await request(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: 'third write' }, { ...client, Origin: VITE }) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeTruthy();
    expectReadableBy(refused.headers, '*');

    const unauthorized = await request(`${server.url}/api/keys`, { headers: { Origin: VITE, Authorization: 'Bearer nonsense' } });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('www-authenticate')).toBeTruthy();
    expectReadableBy(unauthorized.headers, '*');
  });

  it('an idempotent replay shows Idempotent-Replayed to the page', async () => {
    const key = randomUUID();
    const body = { game: 'demo', initials: 'COR', value: 7 };
    expect((await postScore(server.url, body, { 'Idempotency-Key': key, Origin: APP })).status).toBe(201);
    const replay = await postScore(server.url, body, { 'Idempotency-Key': key, Origin: APP });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expectReadableBy(replay.headers, '*');
  });

  it('tRPC answers, its errors and 429s carry the headers', async () => {
    const input = (value: unknown) => encodeURIComponent(JSON.stringify(value));
    const ok = await request(`${server.url}/api/trpc/scores.top?input=${input({ game: 'demo' })}`, { headers: { Origin: APP } });
    expect(ok.status).toBe(200);
    expectReadableBy(ok.headers, '*');
    const batch = await request(`${server.url}/api/trpc/scores.top,tasks.newest?batch=1&input=${input({ 0: { game: 'demo' }, 1: {} })}`, { headers: { Origin: APP } });
    expect(batch.status).toBe(200);
    expectReadableBy(batch.headers, '*');
    const bad = await request(`${server.url}/api/trpc/scores.top?input=${input({ game: 'chess' })}`, { headers: { Origin: APP } });
    expect(bad.status).toBe(400);
    expectReadableBy(bad.headers, '*');
    const client = newClient();
    for (const title of ['first', 'second']) expect((await request(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title }, client) })).status).toBe(201);
    const limited = await request(`${server.url}/api/trpc/tasks.create`, { method: 'POST', ...jsonBody({ title: 'over the limit' }, { ...client, Origin: APP }) });
    expect(limited.status).toBe(429);
    expectReadableBy(limited.headers, '*');
    const unauthorized = await request(`${server.url}/api/trpc/tasks.newest`, { headers: { Origin: APP, Authorization: 'Bearer nonsense' } });
    expect(unauthorized.status).toBe(401);
    expectReadableBy(unauthorized.headers, '*');
  });

  it('GraphQL answers, its 405 and 401 carry the headers', async () => {
    const ok = await graphql(server.url, { query: '{ leaderboard(game: demo) { game } }' }, { Origin: APP });
    expect(ok.status).toBe(200);
    expectReadableBy(ok.headers, '*');
    const wrongMethod = await request(`${server.url}/api/graphql`, { headers: { Origin: APP } });
    expect(wrongMethod.status).toBe(405);
    expectReadableBy(wrongMethod.headers, '*');
    const unauthorized = await graphql(server.url, { query: '{ __typename }' }, { Origin: APP, Authorization: 'Bearer nonsense' });
    expect(unauthorized.status).toBe(401);
    expectReadableBy(unauthorized.headers, '*');
  });

  it('the score stream and its 422 carry the headers', async () => {
    const stream = await openSse(`${server.url}/api/scores/stream?game=demo`, { Origin: APP });
    try {
      expect(stream.status).toBe(200);
      expectReadableBy(stream.headers, '*');
      expect((await stream.next())?.event).toBe('board');
    } finally {
      stream.close();
    }
    const unknownGame = await request(`${server.url}/api/scores/stream?game=chess`, { headers: { Origin: APP } });
    expect(unknownGame.status).toBe(422);
    expectReadableBy(unknownGame.headers, '*');
  });

  it('the OpenAPI document is readable from another origin (a Swagger UI elsewhere)', async () => {
    const response = await fetch(`${server.url}/api/openapi.json`, { headers: { Origin: APP, 'Accept-Encoding': 'br' } });
    expect(response.status).toBe(200);
    expectReadableBy(response.headers, '*');
    expect(varyOf(response.headers)).toContain('accept-encoding');
  });

  it('says * to a request without Origin as well, so a cached answer serves every origin', async () => {
    const response = await request(`${server.url}/api/health`);
    expectReadableBy(response.headers, '*');
    expect(varyOf(response.headers)).not.toContain('origin');
  });

  it('pages outside /api are not CORS resources', async () => {
    const response = await fetch(`${server.url}/docs`, { headers: { Origin: APP } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS_ORIGINS as a list', () => {
  const server = useTestServer({ env: { CORS_ORIGINS: `${APP},${VITE}`, RATE_LIMIT_KEYS_PER_HOUR: '1000' } });

  it('echoes a listed origin in the preflight and the response, with Vary: Origin', async () => {
    const answer = await preflight(server.url, '/api/tasks', VITE);
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe(VITE);
    expect(varyOf(answer.headers)).toContain('origin');

    const created = await request(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: 'listed' }, { Origin: APP }) });
    expect(created.status).toBe(201);
    expectReadableBy(created.headers, APP);
    expect(varyOf(created.headers)).toContain('origin');
  });

  it('answers an origin not listed as if CORS did not exist, and still varies by Origin', async () => {
    const answer = await preflight(server.url, '/api/tasks', STRANGER);
    expect(answer.status).toBe(404);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    const read = await request(`${server.url}/api/health`, { headers: { Origin: STRANGER } });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
    expect(read.headers.get('access-control-expose-headers')).toBeNull();
    expect(varyOf(read.headers)).toContain('origin');
    const anonymous = await request(`${server.url}/api/health`);
    expect(anonymous.headers.get('access-control-allow-origin')).toBeNull();
    expect(varyOf(anonymous.headers)).toContain('origin');
  });

  it('keeps every other Vary field beside Origin: API-Version, Accept-Encoding, tRPC’s own', async () => {
    const { task } = await createTask(server.url, { title: 'vary' });
    const read = await request(`${server.url}/api/tasks/${task.id}`, { headers: { Origin: APP } });
    expect(varyOf(read.headers)).toEqual(expect.arrayContaining(['origin', 'api-version']));
    const document = await fetch(`${server.url}/api/openapi.json`, { headers: { Origin: APP, 'Accept-Encoding': 'gzip' } });
    expect(varyOf(document.headers)).toEqual(expect.arrayContaining(['origin', 'accept-encoding']));
    const trpc = await request(`${server.url}/api/trpc/tasks.newest`, { headers: { Origin: APP } });
    expect(trpc.status).toBe(200);
    expectReadableBy(trpc.headers, APP);
    expect(varyOf(trpc.headers)).toEqual(expect.arrayContaining(['origin', 'trpc-accept']));
  });

  it('a listed origin reads errors from every transport', async () => {
    const key = await createKey(server.url);
    expect(key.key).toBeTruthy();
    const problem = await request(`${server.url}/api/tasks/not-a-uuid`, { headers: { Origin: VITE } });
    expect(problem.status).toBe(422);
    expectReadableBy(problem.headers, VITE);
    const gql = await graphql(server.url, '{', { Origin: VITE });
    expect(gql.status).toBe(400);
    expectReadableBy(gql.headers, VITE);
  });
});

describe('CORS_ORIGINS=none', () => {
  const server = useTestServer({ env: { CORS_ORIGINS: 'none' } });

  it('sends no CORS header at all, and a preflight is an OPTIONS like any other', async () => {
    const answer = await preflight(server.url, '/api/tasks', APP);
    expect(answer.status).toBe(404);
    const read = await request(`${server.url}/api/health`, { headers: { Origin: APP } });
    expect(read.status).toBe(200);
    for (const [name] of read.headers) expect(name).not.toMatch(/^access-control-/);
    expect(varyOf(read.headers)).not.toContain('origin');
  });
});
