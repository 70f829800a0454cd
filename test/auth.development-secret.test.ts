import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphql } from './support/graphql-client.ts';
import { request } from './support/http.ts';
import { bearer, createKey, exchangeForToken } from './support/keys-client.ts';
import { describeOnPostgres } from './support/postgres-only.ts';
import { startServiceProcess, type ServiceProcess } from './support/service-process.ts';
import { createTestDatabase } from './support/test-database.ts';

const BASE_URL = 'http://api.test';
/** The secret the source once held: anyone who read it could sign tokens for every default set-up. */
const SECRET_ONCE_IN_THE_SOURCE = 'lab-api-development-secret-not-for-production-use';

/** A token as the service would sign it, with any secret: any scope, a subject of the forger's choosing. */
function forge(secret: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ name: 'forged', scope: 'stats:read tasks:export' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(crypto.randomUUID())
    .setIssuer(BASE_URL)
    .setAudience('lab-api')
    .setIssuedAt(now)
    .setExpirationTime(now + 900)
    .sign(new TextEncoder().encode(secret));
}

/** What each transport answers a credential: REST, tRPC and GraphQL. */
async function statusesFor(url: string, token: string): Promise<number[]> {
  return [
    (await request(`${url}/api/me`, { headers: bearer(token) })).status,
    (await request(`${url}/api/trpc/tasks.newest`, { headers: bearer(token) })).status,
    (await graphql(url, { query: '{ __typename }' }, bearer(token))).status,
  ];
}

const warningsOf = (service: ServiceProcess) =>
  service.lines.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((line) => line.level === 40).map((line) => line.msg);

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'lab-api-secret-'));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe('the default set-up (no DATABASE_URL, no JWT_SECRET) signs with a secret of its own', () => {
  it('in memory://: a secret per process — a token forged with a known secret is refused on every transport, and one process refuses the other\'s tokens', async () => {
    const first = await startServiceProcess({ PGLITE_DATA_DIR: 'memory://', BASE_URL });
    const second = await startServiceProcess({ PGLITE_DATA_DIR: 'memory://', BASE_URL });
    try {
      const token = await exchangeForToken(first.url, (await createKey(first.url, { name: 'own' })).key);
      expect(await statusesFor(first.url, token)).toEqual([200, 200, 200]);
      expect(await statusesFor(first.url, await forge(SECRET_ONCE_IN_THE_SOURCE))).toEqual([401, 401, 401]);
      expect(await statusesFor(second.url, token)).toEqual([401, 401, 401]);
    } finally {
      await first.stop();
      await second.stop();
    }
    expect(warningsOf(first)).toEqual([expect.stringMatching(/JWT_SECRET is not set.*development secret.*generated.*this process/)]);
  });

  it('on disk: made at the first start, kept in PGLITE_DATA_DIR readable by its owner only, so tokens survive a restart', async () => {
    const dataDir = join(workDir, 'kept');
    const first = await startServiceProcess({ PGLITE_DATA_DIR: dataDir, BASE_URL });
    let token: string;
    try {
      token = await exchangeForToken(first.url, (await createKey(first.url, { name: 'lasting' })).key);
      expect(await statusesFor(first.url, await forge(SECRET_ONCE_IN_THE_SOURCE))).toEqual([401, 401, 401]);
    } finally {
      expect(await first.stop()).toBe(0);
    }
    const secretFiles = (await readdir(dataDir)).filter((name) => name.includes('secret'));
    expect(secretFiles).toHaveLength(1);
    const secretFile = join(dataDir, secretFiles[0]!);
    expect((await stat(secretFile)).mode & 0o777).toBe(0o600);
    // And the directory, whose other files PGlite writes readable by anyone (webhook secrets among them), is its owner's alone.
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    const secret = (await readFile(secretFile, 'utf8')).trim();
    // 32 random bytes, base64url.
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(warningsOf(first)).toEqual([expect.stringContaining(secretFile)]);

    const again = await startServiceProcess({ PGLITE_DATA_DIR: dataDir, BASE_URL });
    try {
      expect(await statusesFor(again.url, token)).toEqual([200, 200, 200]);
      // Whoever can read the file can sign: that is what keeping it to its owner is for.
      expect(await statusesFor(again.url, await forge(secret))).toEqual([200, 200, 200]);
    } finally {
      await again.stop();
    }
    expect((await readFile(secretFile, 'utf8')).trim()).toBe(secret);
  });
});

describeOnPostgres('PostgreSQL without JWT_SECRET', 'the development secret exists only without DATABASE_URL', () => {
  it('says at start, in one warn line, that token exchange answers 503 until JWT_SECRET is set — and it does', async () => {
    const database = await createTestDatabase();
    try {
      const service = await startServiceProcess({ ...database.env, BASE_URL });
      try {
        const key = await createKey(service.url, { name: 'no secret here' });
        const exchange = await request<{ status: number; detail: string }>(`${service.url}/api/token`, { method: 'POST', headers: bearer(key.key) });
        expect(exchange.status).toBe(503);
        expect(exchange.body.detail).toMatch(/no signing secret/);
        expect(await statusesFor(service.url, await forge(SECRET_ONCE_IN_THE_SOURCE))).toEqual([401, 401, 401]);
      } finally {
        expect(await service.stop()).toBe(0);
      }
      expect(warningsOf(service)).toEqual([expect.stringMatching(/^JWT_SECRET is not set: .*POST \/api\/token answers 503 .*until it is; set JWT_SECRET/)]);
      // A start-up line, right after the ready line: not something an operator finds out at the first 503.
      const messages = service.lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
      expect(messages.findIndex((msg) => msg.startsWith('JWT_SECRET is not set'))).toBe(messages.findIndex((msg) => msg.startsWith('ready on')) + 1);
    } finally {
      await database.drop();
    }
  });
});
