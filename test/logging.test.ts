import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger, requestLineWriter } from '../src/observability/logger.ts';
import { graphql } from './support/graphql-client.ts';
import { jsonBody, request } from './support/http.ts';
import { bearer, createKey, exchangeForToken } from './support/keys-client.ts';
import { captureLog, ERROR_LEVEL, type CapturedLog } from './support/log-capture.ts';
import { startServiceProcess } from './support/service-process.ts';
import { createTask } from './support/tasks-client.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';
import { startTestServer, TEST_JWT_SECRET, type TestServer, useTestServer } from './support/test-server.ts';

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
  const server = useTestServer();

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

describe('the request line', () => {
  const written = () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    return { lines, destination };
  };

  // A client's own request id may hold quotes and backslashes, a path anything a URL can, and
  // a control character or a lone surrogate must come out escaped as pino escapes it; most
  // lines hold a UUID and a plain path.
  it.each([
    ['id "quoted" \\ back', 'DELETE', '/api/tasks/%22x%22\\', 404, 1.234567],
    ['2c8c3aeb-bf46-4595-9c2e-1f07974ed695', 'GET', '/api/health', 200, 0.1],
    ['tab\there \u0001 \ud800 é', 'GET', '/api/tasks/é\u007f', 200, 12],
  ] as const)('is the line pino writes for the same fields, key for key and in the same order (%j)', (requestId, method, path, status, durationMs) => {
    const fields = [requestId, method, path, status, durationMs] as const;
    const ours = written();
    const pinos = written();
    requestLineWriter(createLogger('info', ours.destination))(...fields);
    createLogger('info', pinos.destination).info({ reqId: fields[0], method: fields[1], path: fields[2], status: fields[3], durationMs: Math.round(fields[4] * 100) / 100 }, 'request');
    expect(ours.lines).toHaveLength(1);
    expect(ours.lines[0]!.endsWith('}\n')).toBe(true);
    const withoutTime = (line: string) => {
      const { time, ...rest } = JSON.parse(line) as Record<string, unknown>;
      expect(new Date(time as string).toISOString()).toBe(time);
      return rest;
    };
    // Byte for byte, but for the time: the escapes too.
    expect(ours.lines[0]!.replace(/"time":"[^"]*"/, ''), 'pino changed its request line: see docs/adr/0009-speed-measures.md').toBe(pinos.lines[0]!.replace(/"time":"[^"]*"/, ''));
    const mine = withoutTime(ours.lines[0]!);
    expect(Object.keys(mine)).toEqual(Object.keys(withoutTime(pinos.lines[0]!)));
    expect(mine).toEqual(withoutTime(pinos.lines[0]!));
    expect(mine).toMatchObject({ level: 30, service: 'lab-api', reqId: fields[0], path: fields[2], msg: 'request' });
  });

  it('is not written when info is off', () => {
    const ours = written();
    requestLineWriter(createLogger('warn', ours.destination))('quiet', 'GET', '/api/health', 200, 0.1);
    expect(ours.lines).toEqual([]);
  });
});

describe('every 500 is logged once, with its request id, on every transport', () => {
  let server: TestServer;
  let captured: CapturedLog;
  beforeAll(async () => {
    captured = captureLog();
    server = await startTestServer({ log: captured.log });
    await createTask(server.url, { title: 'before the table went away' });
    // A failure no input can cause: the table the reads need is gone.
    await server.app.database.db.execute(sql`alter table tasks rename to tasks_gone`);
  });
  afterAll(async () => {
    await server.app.database.db.execute(sql`alter table tasks_gone rename to tasks`);
    await server.stop();
  });

  const failuresOf = (requestId: string) => captured.entries().filter((entry) => entry.level >= ERROR_LEVEL && entry.reqId === requestId);

  it.each([
    ['REST', () => request(`${server.url}/api/tasks`, { headers: { 'X-Request-Id': 'rest-500' } }), 'rest-500'],
    ['tRPC', () => request(`${server.url}/api/trpc/tasks.newest`, { headers: { 'X-Request-Id': 'trpc-500' } }), 'trpc-500'],
    ['tRPC batch', () => request(`${server.url}/api/trpc/tasks.newest,tasks.newest?batch=1&input=%7B%7D`, { headers: { 'X-Request-Id': 'batch-500' } }), 'batch-500'],
    ['GraphQL', () => graphql(server.url, { query: '{ tasks { id } }' }, { 'X-Request-Id': 'graphql-500' }), 'graphql-500'],
  ])('%s', async (transport, send, requestId) => {
    const response = await send();
    expect(response.headers.get('x-request-id')).toBe(requestId);
    expect(response.text).not.toMatch(/relation|does not exist|select |stack|\.ts:/i);
    if (transport === 'GraphQL') {
      expect(response.status).toBe(200);
      expect((response.body as { errors: { message: string }[] }).errors[0]!.message).toBe('Unexpected error.');
    } else {
      expect(response.status).toBe(500);
    }
    // The request line is written when the response closes: wait for it, then count the failures.
    await vi.waitFor(() => expect(captured.entries().some((entry) => entry.msg === 'request' && entry.reqId === requestId)).toBe(true));
    const failures = failuresOf(requestId);
    expect(failures, JSON.stringify(failures)).toHaveLength(transport === 'tRPC batch' ? 2 : 1);
    expect(failures[0]!.err?.message).toMatch(/tasks/);
  });
});
