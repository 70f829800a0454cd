import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { rowsOf } from './support/db-rows.ts';
import { jsonBody, request } from './support/http.ts';
import { bearer, createKey, exchangeForToken, type CreatedKey } from './support/keys-client.ts';
import { createTask } from './support/tasks-client.ts';
import { useTestServer } from './support/test-server.ts';

// Every key here comes from one address; the hourly key limit is not under test in this file.
const server = useTestServer({ env: { RATE_LIMIT_KEYS_PER_HOUR: '1000' } });

const rows = (query: ReturnType<typeof sql>) => rowsOf(server, query);

describe('POST /api/keys', () => {
  it('returns 201 CreatedKey with the key, its prefix, expiry in 24 hours and Cache-Control: no-store', async () => {
    const before = Date.now();
    const response = await request<CreatedKey>(`${server.url}/api/keys`, {
      method: 'POST',
      ...jsonBody({ name: '  Reporting  ', scopes: ['stats:read'] }),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const key = response.body;
    expect(Object.keys(key).sort()).toEqual(['expiresAt', 'id', 'key', 'name', 'prefix', 'scopes']);
    expect(key.name).toBe('Reporting');
    expect(key.scopes).toEqual(['stats:read']);
    expect(key.key).toMatch(/^lab_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key.key.slice(4), 'base64url')).toHaveLength(32);
    expect(key.prefix).toBe(key.key.slice(0, 12));
    const expiresIn = Date.parse(key.expiresAt) - before;
    expect(expiresIn).toBeGreaterThanOrEqual(24 * 3600 * 1000 - 1000);
    expect(expiresIn).toBeLessThanOrEqual(24 * 3600 * 1000 + 5000);
  });

  it('defaults scopes to none and accepts both scopes', async () => {
    expect((await createKey(server.url, { name: 'plain' })).scopes).toEqual([]);
    expect((await createKey(server.url, { name: 'both', scopes: ['stats:read', 'tasks:export'] })).scopes).toEqual([
      'stats:read',
      'tasks:export',
    ]);
  });

  it('gives every key new random material', async () => {
    const keys = await Promise.all([1, 2, 3].map(() => createKey(server.url)));
    expect(new Set(keys.map((key) => key.key)).size).toBe(3);
  });

  it('stores only the SHA-256 hash: the key text is nowhere in the table', async () => {
    const key = await createKey(server.url, { name: 'hash only' });
    const stored = await rows(sql`select * from api_keys where id = ${key.id}`);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.key_hash).toBe(createHash('sha256').update(key.key).digest('hex'));
    const everything = JSON.stringify(await rows(sql`select * from api_keys`));
    expect(everything).not.toContain(key.key);
    expect(everything).not.toContain(key.key.slice(12));
  });
});

describe('GET /api/me', () => {
  it('describes an API key caller and records the key as used', async () => {
    const key = await createKey(server.url, { name: 'identity', scopes: ['tasks:export'] });
    const [unused] = await rows(sql`select last_used_at from api_keys where id = ${key.id}`);
    expect(unused!.last_used_at).toBeNull();
    const response = await request(`${server.url}/api/me`, { headers: bearer(key.key) });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ method: 'api-key', keyId: key.id, name: 'identity', scopes: ['tasks:export'], expiresAt: key.expiresAt });
    const [used] = await rows(sql`select last_used_at from api_keys where id = ${key.id}`);
    expect(used!.last_used_at).not.toBeNull();
  });

  it('describes a JWT caller with the token expiry', async () => {
    const key = await createKey(server.url, { name: 'jwt identity', scopes: ['stats:read', 'tasks:export'] });
    const token = await exchangeForToken(server.url, key.key);
    const response = await request<{ expiresAt: string }>(`${server.url}/api/me`, { headers: bearer(token) });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      method: 'jwt',
      keyId: key.id,
      name: 'jwt identity',
      scopes: ['stats:read', 'tasks:export'],
      expiresAt: new Date(decodeJwt(token).exp! * 1000).toISOString(),
    });
  });
});

describe('POST /api/token', () => {
  it('issues an HS256 JWT with exactly the claims SPEC lists, and no-store', async () => {
    const key = await createKey(server.url, { name: 'token maker', scopes: ['stats:read', 'tasks:export'] });
    const response = await request<Record<string, unknown>>(`${server.url}/api/token`, { method: 'POST', headers: bearer(key.key) });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 900,
      scope: 'stats:read tasks:export',
    });
    const token = response.body.access_token as string;
    expect(decodeProtectedHeader(token).alg).toBe('HS256');
    const claims = decodeJwt(token);
    expect(Object.keys(claims).sort()).toEqual(['aud', 'exp', 'iat', 'iss', 'name', 'scope', 'sub']);
    expect(claims).toMatchObject({ sub: key.id, name: 'token maker', scope: 'stats:read tasks:export', iss: server.baseUrl, aud: 'lab-api' });
    expect(claims.exp! - claims.iat!).toBe(900);
    expect(Math.abs(claims.iat! - Date.now() / 1000)).toBeLessThan(5);
  });

  it('gives an empty scope string for a key without scopes, and [] scopes for its token', async () => {
    const key = await createKey(server.url, { name: 'no scopes' });
    const response = await request<{ scope: string; access_token: string }>(`${server.url}/api/token`, { method: 'POST', headers: bearer(key.key) });
    expect(response.body.scope).toBe('');
    const me = await request<{ scopes: string[] }>(`${server.url}/api/me`, { headers: bearer(response.body.access_token) });
    expect(me.body.scopes).toEqual([]);
  });
});

describe('DELETE /api/keys/{id}', () => {
  it('revokes the calling key at once; its tokens stay valid until they expire', async () => {
    const key = await createKey(server.url, { name: 'short lived' });
    const token = await exchangeForToken(server.url, key.key);
    const response = await request(`${server.url}/api/keys/${key.id}`, { method: 'DELETE', headers: bearer(key.key) });
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    const after = await request<{ detail: string }>(`${server.url}/api/me`, { headers: bearer(key.key) });
    expect(after.status).toBe(401);
    expect(after.body.detail).toBe('Unknown, revoked or expired API key');
    const [stored] = await rows(sql`select revoked_at from api_keys where id = ${key.id}`);
    expect(stored!.revoked_at).not.toBeNull();
    const withToken = await request(`${server.url}/api/me`, { headers: bearer(token) });
    expect(withToken.status).toBe(200);
  });
});

describe('GET /api/stats', () => {
  it('counts tasks (total = open + done) and active keys', async () => {
    const key = await createKey(server.url, { name: 'stats', scopes: ['stats:read'] });
    const before = await request<{ tasks: { total: number; open: number; done: number }; activeKeys: number }>(`${server.url}/api/stats`, {
      headers: bearer(key.key),
    });
    expect(before.status).toBe(200);
    await createTask(server.url, { title: 'open one' });
    await createTask(server.url, { title: 'done one', done: true });
    const revoked = await createKey(server.url, { name: 'to revoke' });
    await request(`${server.url}/api/keys/${revoked.id}`, { method: 'DELETE', headers: bearer(revoked.key) });
    const after = await request<typeof before.body>(`${server.url}/api/stats`, { headers: bearer(key.key) });
    expect(after.body.tasks).toEqual({
      total: before.body.tasks.total + 2,
      open: before.body.tasks.open + 1,
      done: before.body.tasks.done + 1,
    });
    expect(after.body.tasks.total).toBe(after.body.tasks.open + after.body.tasks.done);
    expect(after.body.activeKeys).toBe(before.body.activeKeys);
    const [counted] = await rows(sql`select count(*)::int as n from api_keys where revoked_at is null and expires_at > now()`);
    expect(after.body.activeKeys).toBe(counted!.n);
  });
});

describe('GET /api/export/tasks', () => {
  it('answers CSV exactly as SPEC says, newest first', async () => {
    const key = await createKey(server.url, { name: 'export', scopes: ['tasks:export'] });
    const older = await createTask(server.url, { title: 'say "hi", then, go' });
    const newer = await createTask(server.url, { title: 'line\nbreak', done: true });
    const response = await fetch(`${server.url}/api/export/tasks`, { headers: bearer(key.key) });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="tasks.csv"');
    const text = await response.text();
    expect(text.startsWith('id,title,done,created_at\n')).toBe(true);
    expect(text).not.toContain('\r');
    expect(text).toContain(`${newer.task.id},"line\nbreak",true,${newer.task.createdAt}\n${older.task.id},"say ""hi"", then, go",false,${older.task.createdAt}`);
    const page = await request<{ items: { id: string }[] }>(`${server.url}/api/tasks?limit=50`);
    const ids = [...text.matchAll(/^([0-9a-f-]{36}),/gm)].map((match) => match[1]);
    expect(ids).toEqual(page.body.items.map((task) => task.id));
  });
});
