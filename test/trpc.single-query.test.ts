import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock } from './support/manual-clock.ts';
import { useTestServer } from './support/test-server.ts';

/**
 * One tRPC query by GET is answered without tRPC's Fetch adapter
 * (src/trpc/trpc-single-query.ts). It must answer exactly as tRPC's handler
 * does. The same call with one more query parameter (`batch=0`, which tRPC
 * ignores) is left to tRPC's handler: every answer is compared with that
 * one — status, body byte for byte, headers — and the first must show it
 * took the short way (a Content-Length where tRPC's handler sends chunks).
 */
const APP = 'http://app.example';
const server = useTestServer({ clock: new ManualClock(Date.now()), env: { CORS_ORIGINS: APP } });

/** Headers that differ between any two answers, and the framing that tells the two ways apart. */
const UNCOMPARED = new Set(['date', 'x-request-id', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string>;
  framing: 'length' | 'chunked';
}

async function call(pathAndQuery: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${server.url}/api/trpc/${pathAndQuery}`, { headers });
  const compared: Record<string, string> = {};
  for (const [name, value] of response.headers) {
    // A rate-limit count goes down by one between the two calls.
    if (!UNCOMPARED.has(name)) compared[name] = name === 'ratelimit' ? value.replace(/r=\d+/, 'r=N') : value;
  }
  return {
    status: response.status,
    body: (await response.text()).replace(/"remaining":\d+/, '"remaining":N'),
    headers: compared,
    framing: response.headers.get('transfer-encoding') === 'chunked' ? 'chunked' : 'length',
  };
}

async function bothWays(pathAndQuery: string, headers: Record<string, string> = {}): Promise<{ short: Answer; handler: Answer }> {
  const short = await call(pathAndQuery, headers);
  const handler = await call(`${pathAndQuery}${pathAndQuery.includes('?') ? '&' : '?'}batch=0`, headers);
  expect(handler.framing).toBe('chunked');
  expect(short.framing, 'answered without tRPC’s handler').toBe('length');
  expect(short.status).toBe(handler.status);
  expect(short.body).toBe(handler.body);
  expect(short.headers).toEqual(handler.headers);
  return { short, handler };
}

const input = (value: unknown) => `input=${encodeURIComponent(JSON.stringify(value))}`;

describe('a single tRPC query by GET', () => {
  it('answers a result as tRPC does, with and without input', async () => {
    await fetch(`${server.url}/api/tasks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'one' }) });
    const { short } = await bothWays('tasks.newest');
    expect(short.status).toBe(200);
    expect(JSON.parse(short.body)).toMatchObject({ result: { data: [{ title: 'one' }] } });
    expect(short.headers['content-type']).toBe('application/json');
    // Every /api answer varies by Origin here (CORS_ORIGINS is a list).
    expect(short.headers.vary).toBe('trpc-accept, accept, Origin');
    await bothWays(`tasks.newest?${input({ limit: 1 })}`);
    await bothWays(`scores.top?${input({ game: 'demo' })}`);
    await bothWays(`system.health?${input(null)}`);
  });

  it('answers input errors, unknown rows and missing credentials in tRPC’s error envelope', async () => {
    expect((await bothWays(`tasks.newest?${input({ limit: 0 })}`)).short.status).toBe(400);
    expect((await bothWays(`tasks.byId?${input({ id: 'nope' })}`)).short.status).toBe(400);
    expect((await bothWays(`tasks.byId?${input({ id: randomUUID() })}`)).short.status).toBe(404);
    const anonymous = await bothWays('auth.me');
    expect(anonymous.short.status).toBe(401);
    expect(anonymous.short.headers['www-authenticate']).toMatch(/^Bearer/);
    // A bad credential is refused before any procedure, the same way for both.
    const badToken = await call('auth.me', { authorization: 'Bearer not-a-token' });
    expect(badToken.status).toBe(401);
    expect(await call('auth.me?batch=0', { authorization: 'Bearer not-a-token' })).toEqual(badToken);
  });

  it('carries a procedure’s rate-limit headers and its 429 with Retry-After', async () => {
    const first = await bothWays('limits.demo');
    expect(first.short.headers.ratelimit).toMatch(/^"demo";r=N;t=\d+$/);
    await bothWays('limits.demo');
    // Five calls a window: four made, the fifth is the short one, then both are refused.
    await call('limits.demo');
    const refused = await bothWays('limits.demo');
    expect(refused.short.status).toBe(429);
    expect(refused.short.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('keeps CORS: the listed origin echoed', async () => {
    const { short } = await bothWays('tasks.newest', { origin: APP });
    expect(short.headers['access-control-allow-origin']).toBe(APP);
  });

  it('leaves to tRPC’s handler what it cannot decide before the procedure runs', async () => {
    const notJson = await call('tasks.newest?input=%7Bnot-json');
    expect(notJson.framing).toBe('chunked');
    expect(notJson.status).toBe(400);
    const batch = await call(`tasks.newest?batch=1&${encodeURIComponent('input')}=${encodeURIComponent('{"0":{"limit":1}}')}`);
    expect(batch.framing).toBe('chunked');
    expect(JSON.parse(batch.body)).toEqual([{ result: { data: expect.any(Array) } }]);
    const mutation = await call('tasks.create');
    expect(mutation.framing).toBe('chunked');
    expect(mutation.status).toBe(405);
    const unknown = await call('tasks.nothing');
    expect(unknown.framing).toBe('chunked');
    expect(unknown.status).toBe(404);
  });
});
