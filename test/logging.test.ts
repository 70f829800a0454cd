import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/http/logger.ts';
import { jsonBody, request } from './support/http.ts';
import { bearer, createKey, exchangeForToken } from './support/keys-client.ts';
import { startServiceProcess } from './support/service-process.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';
import { startTestServer, TEST_JWT_SECRET, type TestServer } from './support/test-server.ts';

describe('what the request log never holds', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('keys, tokens, webhook secrets, bodies and query strings stay out of every line', async () => {
    const service = await startServiceProcess({ ...database.env, JWT_SECRET: TEST_JWT_SECRET, WEBHOOK_ALLOW_PRIVATE: 'true' });
    const key = await createKey(service.url, { name: 'logged?' });
    const token = await exchangeForToken(service.url, key.key);
    expect((await request(`${service.url}/api/me`, { headers: bearer(token) })).status).toBe(200);
    expect((await request(`${service.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: 'SECRET-TITLE' }) })).status).toBe(201);
    expect((await request(`${service.url}/api/tasks?cursor=SECRET-QUERY`)).status).toBe(422);
    const subscription = await request<{ secret: string }>(`${service.url}/api/webhooks`, {
      method: 'POST',
      ...jsonBody({ url: 'http://127.0.0.1:9/hook' }, bearer(key.key)),
    });
    expect(subscription.status).toBe(201);
    expect(await service.stop()).toBe(0);

    const log = service.lines.join('\n');
    expect(service.lines.filter((line) => line.includes('"msg":"request"')).length).toBeGreaterThanOrEqual(6);
    for (const secret of [key.key, key.key.slice(4), token, token.split('.')[2]!, subscription.body.secret, 'SECRET-TITLE', 'SECRET-QUERY']) {
      expect(log).not.toContain(secret);
    }
  });
});

describe('errors in the log', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  it('carry the SQL text of a failed query but none of its values', async () => {
    const failure = await server.app.database.db.execute(sql`select ${'SECRET-VALUE'}::integer as n`).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(String((failure as Error).message)).toContain('SECRET-VALUE');

    let written = '';
    const capture = new Writable({
      write(chunk: Buffer, _encoding, done) {
        written += chunk.toString();
        done();
      },
    });
    createLogger('info', capture).error({ err: failure }, 'unexpected failure');
    const entry = JSON.parse(written) as { err: { message: string } };
    expect(entry.err.message).toContain('select $1::integer as n');
    expect(written).not.toContain('SECRET-VALUE');
  });
});
