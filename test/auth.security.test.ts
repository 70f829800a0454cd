import { sql } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { describeOnPostgres } from './support/postgres-only.ts';
import { request } from './support/http.ts';
import { bearer, createKey, exchangeForToken, type CreatedKey } from './support/keys-client.ts';
import { ManualClock } from './support/manual-clock.ts';
import { expectProblem } from './support/problem.ts';

import { startTestServer, TEST_BASE_URL, TEST_JWT_SECRET, useTestServer } from './support/test-server.ts';
import { rowsOf } from './support/db-rows.ts';

const INVALID_KEY = 'Unknown, revoked or expired API key';
const INVALID_TOKEN = 'Invalid or expired token';
const secret = new TextEncoder().encode(TEST_JWT_SECRET);

const clock = new ManualClock(Date.now());
const server = useTestServer({ clock, env: { RATE_LIMIT_KEYS_PER_HOUR: '1000' } });
// A key of each test's own: others move the clock past a key's 24 hours and
// create enough keys to push older ones out of the newest 500.
let key: CreatedKey;
beforeEach(async () => {
  key = await createKey(server.url, { name: 'attacked', scopes: ['stats:read'] });
});

const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);

function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const iat = nowSeconds();
  return { sub: key.id, name: key.name, scope: 'stats:read', iss: TEST_BASE_URL, aud: 'lab-api', iat, exp: iat + 900, ...overrides };
}

function sign(payload: Record<string, unknown>, alg = 'HS256', withSecret: Uint8Array = secret): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg, typ: 'JWT' }).sign(withSecret);
}

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

async function expectInvalidCredential(credential: string, detail: string, path = '/api/me'): Promise<void> {
  const response = await request(`${server.url}${path}`, { headers: bearer(credential) });
  const problem = expectProblem(response, server.baseUrl, 'unauthorized', 401, path);
  expect(problem.detail).toBe(detail);
  expect(response.headers.get('www-authenticate')).toBe(`Bearer realm="api.test", error="invalid_token", error_description="${detail}"`);
}

describe('a token we would issue', () => {
  it('is accepted (the control for every attack below)', async () => {
    const response = await request(`${server.url}/api/me`, { headers: bearer(await sign(claims())) });
    expect(response.status).toBe(200);
  });
});

describe('RFC 8725 attacks: each a 401 with the token detail', () => {
  it.each<[string, () => Promise<string>]>([
    ['alg none', async () => `${encode({ alg: 'none', typ: 'JWT' })}.${encode(claims())}.`],
    ['HS384 with the same secret', () => sign(claims(), 'HS384')],
    ['HS512 with the same secret', () => sign(claims(), 'HS512')],
    ['a stripped signature', async () => `${(await sign(claims())).split('.').slice(0, 2).join('.')}.`],
    ['no signature part at all', async () => (await sign(claims())).split('.').slice(0, 2).join('.')],
    [
      'a tampered payload',
      async () => {
        const [header, , signature] = (await sign(claims())).split('.');
        return `${header}.${encode(claims({ scope: 'stats:read tasks:export' }))}.${signature}`;
      },
    ],
    ['another secret', () => sign(claims(), 'HS256', new TextEncoder().encode('another-secret-that-is-long-enough-xx'))],
    ['expired', () => sign(claims({ iat: nowSeconds() - 1000, exp: nowSeconds() - 100 }))],
    ['nbf in the future', () => sign(claims({ nbf: nowSeconds() + 600 }))],
    ['a wrong issuer', () => sign(claims({ iss: 'http://evil.test' }))],
    ['a wrong audience', () => sign(claims({ aud: 'someone-else' }))],
    ['no exp', () => sign(claims({ exp: undefined }))],
    ['a sub that is not a key id', () => sign(claims({ sub: 'admin' }))],
    ['an unknown scope', () => sign(claims({ scope: 'stats:read admin' }))],
    ['an API key without its prefix', async () => key.key.slice(4)],
    ['garbage', async () => 'not.a.jwt'],
    // Correctly signed, but with dates JavaScript cannot represent (a 500 once).
    ['exp = 2^53 - 1', () => sign(claims({ exp: Number.MAX_SAFE_INTEGER }))],
    ['exp = 1e300', () => sign(claims({ exp: 1e300 }))],
    ['exp past year 275760', () => sign(claims({ exp: 8.64e12 + 1 }))],
    ['iat = 2^53 - 1', () => sign(claims({ iat: Number.MAX_SAFE_INTEGER }))],
    ['iat negative beyond the epoch range', () => sign(claims({ iat: -(8.64e12 + 1) }))],
    ['exp as a string', () => sign(claims({ exp: String(nowSeconds() + 900) }))],
  ])('%s', async (_, forge) => {
    await expectInvalidCredential(await forge(), INVALID_TOKEN);
  });

  it('a JWT with a lab_ prefix is judged as an API key', async () => {
    await expectInvalidCredential(`lab_${await sign(claims())}`, INVALID_KEY);
  });
});

describe('credentials on every request', () => {
  it('an invalid credential is refused even on public endpoints and unknown routes', async () => {
    await expectInvalidCredential('lab_unknown', INVALID_KEY, '/api/health');
    await expectInvalidCredential('eyJ.bad.token', INVALID_TOKEN, '/api/tasks');
    await expectInvalidCredential('lab_unknown', INVALID_KEY, '/api/no-such-route');
  });

  it.each(['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer    ', 'Token abc', 'lab_abc'])('Authorization: %j → 401 asking for Bearer', async (value) => {
    const response = await request(`${server.url}/api/health`, { headers: { Authorization: value } });
    const problem = expectProblem(response, server.baseUrl, 'unauthorized', 401, '/api/health');
    expect(problem.detail).toBe('Use Authorization: Bearer <key or token>');
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="api.test"');
  });

  it('an empty Authorization header → 401 asking for Bearer', async () => {
    const response = await request(`${server.url}/api/health`, { headers: { Authorization: '' } });
    expect((response.body as { detail: string }).detail).toBe('Use Authorization: Bearer <key or token>');
  });

  it('the scheme is case-insensitive', async () => {
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      expect((await request(`${server.url}/api/me`, { headers: { Authorization: `${scheme} ${key.key}` } })).status).toBe(200);
    }
  });

  it('anonymous requests to public endpoints proceed', async () => {
    expect((await request(`${server.url}/api/health`)).status).toBe(200);
  });

  it('an invalid credential on /api/trpc is a 401 in the tRPC envelope with the challenge', async () => {
    const response = await request<{ error: { message: string; data: { code: string; httpStatus: number } } }>(
      `${server.url}/api/trpc/system.health`,
      { headers: bearer('lab_unknown') },
    );
    expect(response.status).toBe(401);
    expect(response.body.error.message).toBe(INVALID_KEY);
    expect(response.body.error.data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401 });
    expect(response.headers.get('www-authenticate')).toBe(`Bearer realm="api.test", error="invalid_token", error_description="${INVALID_KEY}"`);
  });
});

describe('expiry (the clock moves, nobody sleeps)', () => {
  it('a token is refused after 900 seconds, and outlives a revoked key until then', async () => {
    const own = await createKey(server.url, { name: 'expiring' });
    const token = await exchangeForToken(server.url, own.key);
    await request(`${server.url}/api/keys/${own.id}`, { method: 'DELETE', headers: bearer(own.key) });
    clock.advance(899_000);
    expect((await request(`${server.url}/api/me`, { headers: bearer(token) })).status).toBe(200);
    clock.advance(2_000);
    await expectInvalidCredential(token, INVALID_TOKEN);
  });

  it('a key is refused once its 24 hours are over', async () => {
    const own = await createKey(server.url, { name: 'day fly' });
    clock.advance(24 * 3600 * 1000 - 1000);
    expect((await request(`${server.url}/api/me`, { headers: bearer(own.key) })).status).toBe(200);
    clock.advance(1000);
    await expectInvalidCredential(own.key, INVALID_KEY);
  });
});

describeOnPostgres('a deployment on PostgreSQL without JWT_SECRET', 'an embedded deployment generates its signing secret; only one on PostgreSQL can run without one', () => {
  it('answers POST /api/token with 503 and rejects every JWT', async () => {
    const noSecret = await startTestServer({ env: { JWT_SECRET: '' } });
    try {
      const own = await createKey(noSecret.url, { name: 'no secret' });
      const response = await request(`${noSecret.url}/api/token`, { method: 'POST', headers: bearer(own.key) });
      expectProblem(response, noSecret.baseUrl, 'unavailable', 503, '/api/token');
      const forged = await sign({ ...claims(), sub: own.id });
      const me = await request(`${noSecret.url}/api/me`, { headers: bearer(forged) });
      expect(me.status).toBe(401);
      expect((me.body as { detail: string }).detail).toBe(INVALID_TOKEN);
    } finally {
      await noSecret.stop();
    }
  });
});

describe('keys retained', () => {
  it('only the newest 500 keys are kept', async () => {
    const first = await createKey(server.url, { name: 'oldest' });
    for (let batch = 0; batch < 50; batch++) {
      clock.advance(1);
      await Promise.all(Array.from({ length: 10 }, (_, i) => createKey(server.url, { name: `bulk ${batch}-${i}` })));
    }
    await expectInvalidCredential(first.key, INVALID_KEY);
    clock.advance(1);
    const newest = await createKey(server.url, { name: 'newest' });
    expect((await request(`${server.url}/api/me`, { headers: bearer(newest.key) })).status).toBe(200);
    const [count] = await rowsOf<{ n: number }>(server, sql`select count(*)::int as n from api_keys`);
    expect(count!.n).toBe(500);
  });
});
