import { describe, expect, it } from 'vitest';
import { storedCount } from './support/db-rows.ts';
import { jsonBody, request } from './support/http.ts';
import { bearer, exchangeForToken, type CreatedKey } from './support/keys-client.ts';
import { clientAddresses, ONE_SECOND_INTO_A_MINUTE } from './support/client-addresses.ts';
import { ManualClock } from './support/manual-clock.ts';
import { expectProblem } from './support/problem.ts';
import { useTestServer } from './support/test-server.ts';

const START = ONE_SECOND_INTO_A_MINUTE;

const server = useTestServer({ clock: new ManualClock(START), env: { TRUST_PROXY: 'true' } });

const newClient = clientAddresses('192.0.2');

const postKey = (body: unknown, headers: Record<string, string>) =>
  request<CreatedKey>(`${server.url}/api/keys`, { method: 'POST', ...jsonBody(body, headers) });

describe('keys do not mint keys: key-create counts per address, whatever the credential', () => {
  it('a key and its token count against the address they come from, so 5 per hour is 5 per address', async () => {
    const client = newClient();
    const first = await postKey({ name: 'first' }, client);
    expect(first.status).toBe(201);
    expect(first.headers.get('ratelimit')).toMatch(/^"key-create";r=4;t=\d+$/);
    const token = await exchangeForToken(server.url, first.body.key);

    const credentials = [first.body.key, token, first.body.key, token];
    for (const [index, credential] of credentials.entries()) {
      const response = await postKey({ name: `minted ${index}` }, { ...client, ...bearer(credential) });
      expect(response.status).toBe(201);
      expect(response.headers.get('ratelimit')).toMatch(new RegExp(`^"key-create";r=${3 - index};t=\\d+$`));
    }
    const before = await storedCount(server, 'api_keys');
    for (const credential of [first.body.key, token, undefined]) {
      const refused = await postKey({ name: 'one too many' }, { ...client, ...(credential ? bearer(credential) : {}) });
      expectProblem(refused, server.baseUrl, 'rate-limited', 429, '/api/keys');
      expect(refused.headers.get('ratelimit-policy')).toBe('"key-create";q=5;w=3600');
    }
    expect(await storedCount(server, 'api_keys')).toBe(before);

    // The same key from another address is that address's business.
    const elsewhere = await postKey({ name: 'elsewhere' }, { ...newClient(), ...bearer(first.body.key) });
    expect(elsewhere.status).toBe(201);
  });

  it('over tRPC too (keys.create is key-create)', async () => {
    const client = newClient();
    const first = await postKey({ name: 'trpc first' }, client);
    for (let i = 0; i < 4; i++) {
      const response = await request(`${server.url}/api/trpc/keys.create`, { method: 'POST', ...jsonBody({ name: `trpc ${i}` }, { ...client, ...bearer(first.body.key) }) });
      expect(response.status).toBe(200);
    }
    const refused = await request<{ error: { data: { code: string } } }>(`${server.url}/api/trpc/keys.create`, {
      method: 'POST',
      ...jsonBody({ name: 'trpc over' }, { ...client, ...bearer(first.body.key) }),
    });
    expect(refused.status).toBe(429);
    expect(refused.body.error.data.code).toBe('TOO_MANY_REQUESTS');
  });
});

describe('NUL characters', () => {
  it('a name with U+0000 → 422 at name, nothing stored', async () => {
    const before = await storedCount(server, 'api_keys');
    const response = await postKey({ name: 'bad\u0000name' }, newClient());
    const problem = expectProblem(response, server.baseUrl, 'validation', 422, '/api/keys');
    expect(problem.errors).toEqual([{ path: 'name', message: 'Remove the NUL character' }]);
    expect(await storedCount(server, 'api_keys')).toBe(before);
  });

  it('a name of only a NUL and spaces gets the NUL message, not the empty one', async () => {
    const response = await postKey({ name: ' \u0000 ' }, newClient());
    expect(expectProblem(response, server.baseUrl, 'validation', 422, '/api/keys').errors).toEqual([{ path: 'name', message: 'Remove the NUL character' }]);
  });

  it('is a 400 with that issue over tRPC', async () => {
    const response = await request<{ error: { data: { code: string; issues: unknown } } }>(`${server.url}/api/trpc/keys.create`, {
      method: 'POST',
      ...jsonBody({ name: '\u0000' }, newClient()),
    });
    expect(response.status).toBe(400);
    expect(response.body.error.data.issues).toEqual([{ path: 'name', message: 'Remove the NUL character' }]);
  });
});

describe('413 on POST /api/keys', () => {
  it('counts, and carries the RateLimit headers the document promises', async () => {
    const response = await request(`${server.url}/api/keys`, { method: 'POST', body: `{"name":"${'x'.repeat(70_000)}"}`, headers: { 'content-type': 'application/json', ...newClient() } });
    expectProblem(response, server.baseUrl, 'payload-too-large', 413, '/api/keys');
    expect(response.headers.get('ratelimit-policy')).toBe('"key-create";q=5;w=3600');
    expect(response.headers.get('ratelimit')).toMatch(/^"key-create";r=4;t=\d+$/);
  });
});
