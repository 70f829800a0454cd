import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { jsonBody, request } from './support/http.ts';
import { bearer, createKey, exchangeForToken } from './support/keys-client.ts';
import { expectProblem } from './support/problem.ts';
import { useTestServer } from './support/test-server.ts';

const server = useTestServer({ env: { RATE_LIMIT_KEYS_PER_HOUR: '1000' } });

const postKey = (body: unknown) => request(`${server.url}/api/keys`, { method: 'POST', ...jsonBody(body) });

describe('POST /api/keys validation', () => {
  it.each([
    [{ name: '' }, [{ path: 'name', message: 'Give the key a name' }]],
    [{ name: '   ' }, [{ path: 'name', message: 'Give the key a name' }]],
    [{}, [{ path: 'name', message: 'Give the key a name' }]],
    [{ name: 'n'.repeat(61) }, [{ path: 'name', message: 'Keep the name under 60 characters' }]],
    [{ name: 'ok', scopes: ['stats:read', 'tasks:export', 'stats:read'] }, [{ path: 'scopes', message: 'At most 2 scopes' }]],
    [{ name: 'ok', colour: 'blue' }, [{ path: 'colour', message: 'Unknown field' }]],
  ])('%j → 422 with %j', async (body, errors) => {
    const problem = expectProblem(await postKey(body), server.baseUrl, 'validation', 422, '/api/keys');
    expect(problem.errors).toEqual(errors);
  });

  it('an unknown scope is reported at its index', async () => {
    const problem = expectProblem(await postKey({ name: 'ok', scopes: ['stats:read', 'admin'] }), server.baseUrl, 'validation', 422, '/api/keys');
    expect(problem.errors?.map((entry) => entry.path)).toEqual(['scopes.1']);
  });

  it('accepts a name of exactly 60 characters', async () => {
    expect((await postKey({ name: 'n'.repeat(60) })).status).toBe(201);
  });
});

describe('protected endpoints without credentials', () => {
  it.each([
    ['GET', '/api/me'],
    ['GET', '/api/stats'],
    ['GET', '/api/export/tasks'],
    ['POST', '/api/token'],
    ['DELETE', `/api/keys/${randomUUID()}`],
  ])('%s %s → 401 with the Bearer challenge and no error code', async (method, path) => {
    const response = await request(`${server.url}${path}`, { method });
    const problem = expectProblem(response, server.baseUrl, 'unauthorized', 401, path);
    expect(problem.detail).toBe('This endpoint needs an API key or token');
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="api.test"');
  });
});

describe('scopes', () => {
  it.each([
    ['/api/stats', 'stats:read', 'tasks:export'],
    ['/api/export/tasks', 'tasks:export', 'stats:read'],
  ])('%s without %s → 403 insufficient_scope, for a key and for its token', async (path, needed, other) => {
    const key = await createKey(server.url, { name: 'wrong scope', scopes: [other] });
    const token = await exchangeForToken(server.url, key.key);
    for (const credential of [key.key, token]) {
      const response = await request(`${server.url}${path}`, { headers: bearer(credential) });
      const problem = expectProblem(response, server.baseUrl, 'forbidden', 403, path);
      expect(problem.detail).toContain(needed);
      expect(response.headers.get('www-authenticate')).toBe(`Bearer realm="api.test", error="insufficient_scope", scope="${needed}"`);
    }
  });

  it('401 comes before 403: an invalid credential on a scoped endpoint is 401', async () => {
    const response = await request(`${server.url}/api/stats`, { headers: bearer('lab_doesnotexist') });
    expectProblem(response, server.baseUrl, 'unauthorized', 401, '/api/stats');
  });
});

describe('DELETE /api/keys/{id}', () => {
  it('a token, even of the same key, → 403 and the key keeps working', async () => {
    const key = await createKey(server.url);
    const token = await exchangeForToken(server.url, key.key);
    const response = await request(`${server.url}/api/keys/${key.id}`, { method: 'DELETE', headers: bearer(token) });
    expectProblem(response, server.baseUrl, 'forbidden', 403, `/api/keys/${key.id}`);
    expect((await request(`${server.url}/api/me`, { headers: bearer(key.key) })).status).toBe(200);
  });

  it("another key → 403 and the target keeps working; a key that doesn't exist → 403", async () => {
    const target = await createKey(server.url);
    const other = await createKey(server.url);
    const response = await request(`${server.url}/api/keys/${target.id}`, { method: 'DELETE', headers: bearer(other.key) });
    expectProblem(response, server.baseUrl, 'forbidden', 403, `/api/keys/${target.id}`);
    expect((await request(`${server.url}/api/me`, { headers: bearer(target.key) })).status).toBe(200);
    const missing = randomUUID();
    expectProblem(await request(`${server.url}/api/keys/${missing}`, { method: 'DELETE', headers: bearer(other.key) }), server.baseUrl, 'forbidden', 403, `/api/keys/${missing}`);
  });

  it('input validation comes before the ownership check: a bad id with a token is 422', async () => {
    const key = await createKey(server.url);
    const token = await exchangeForToken(server.url, key.key);
    const response = await request(`${server.url}/api/keys/not-a-uuid`, { method: 'DELETE', headers: bearer(token) });
    const problem = expectProblem(response, server.baseUrl, 'validation', 422, '/api/keys/not-a-uuid');
    expect(problem.errors).toEqual([{ path: 'id', message: 'Must be a UUID' }]);
  });

  it('credentials come before validation: a bad id without credentials is 401', async () => {
    expectProblem(await request(`${server.url}/api/keys/not-a-uuid`, { method: 'DELETE' }), server.baseUrl, 'unauthorized', 401, '/api/keys/not-a-uuid');
  });
});

describe('POST /api/token', () => {
  it('a JWT cannot mint tokens → 403', async () => {
    const key = await createKey(server.url);
    const token = await exchangeForToken(server.url, key.key);
    const response = await request(`${server.url}/api/token`, { method: 'POST', headers: bearer(token) });
    expectProblem(response, server.baseUrl, 'forbidden', 403, '/api/token');
  });
});
