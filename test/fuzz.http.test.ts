import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from './support/db-rows.ts';
import { fuzzCase, operationsOf, type Credentials, type Operation } from './support/fuzz-requests.ts';
import { createKey, exchangeForToken } from './support/keys-client.ts';
import { problemTitles } from './support/problem.ts';
import { sendRaw, type RawResponse } from './support/raw-http.ts';
import { startTestServer, type TestServer } from './support/test-server.ts';

/** The issue asks for at least 5000 hostile requests per run; these three properties send 5200. */
const REST_RUNS = 4000;
const GRAPHQL_RUNS = 600;
const TRPC_RUNS = 600;
/** Reproducible by default; FUZZ_SEED explores further. */
const seed = Number(process.env.FUZZ_SEED ?? 20261122);

let server: TestServer;
let operations: Operation[];
let credentials: Credentials;
beforeAll(async () => {
  server = await startTestServer({
    env: {
      RATE_LIMIT_KEYS_PER_HOUR: '1000000',
      // Streams end at once, so that the fuzzer reads every answer to its end.
      SSE_STREAM_MS: '20',
      // Clients spread over addresses (X-Forwarded-For is fuzzed too), so GraphQL's fixed limit rarely bites.
      TRUST_PROXY: 'true',
    },
  });
  const document = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as Parameters<typeof operationsOf>[0];
  operations = operationsOf(document);
  const key = await createKey(server.url, { name: 'fuzzer', scopes: ['stats:read', 'tasks:export'] });
  credentials = { key: key.key, token: await exchangeForToken(server.url, key.key) };
});
afterAll(() => server.stop());

/** What a rejected write must leave as it was: every stored row the API can change (rate-limit counters aside). */
async function storedState(): Promise<string> {
  const [state] = await rowsOf(
    server,
    sql`select
      (select count(*) || '/' || coalesce(max(updated_at)::text, '') from tasks) as tasks,
      (select count(*) || '/' || count(revoked_at) from api_keys) as keys,
      (select count(*) from scores) as scores,
      (select coalesce(max(id), 0) from events) as events,
      (select count(*) || '/' || string_agg(status, ',' order by id) from webhook_subscriptions) as subscriptions,
      (select count(*) from webhook_deliveries) as deliveries,
      (select count(*) || '/' || count(*) filter (where state = 'completed') from idempotency_records) as idempotency`,
  );
  return JSON.stringify(state);
}

function jsonOf(response: RawResponse): unknown {
  return JSON.parse(response.body.toString('utf8'));
}

function expectWellFormedProblem(response: RawResponse, instance: string): void {
  expect(response.headers['content-type']).toBe('application/problem+json');
  const problem = jsonOf(response) as { type: string; title: string; status: number; instance: string };
  const slug = problem.type.replace(`${server.baseUrl}/problems/`, '');
  expect(problemTitles[slug], `problem type ${problem.type}`).toBeDefined();
  expect(problem.title).toBe(problemTitles[slug]);
  expect(problem.status).toBe(response.status);
  expect(problem.instance).toBe(instance);
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

describe('hostile input, driven by the OpenAPI document', () => {
  it(`${REST_RUNS} random and adversarial REST requests: documented statuses, exact problems, never a 500, rejected writes change nothing`, async () => {
    expect(operations.length).toBeGreaterThan(20);
    await fc.assert(
      fc.asyncProperty(fuzzCase(operations, credentials), async ({ operation, request, rawPath }) => {
        const write = WRITES.has(operation.method);
        const before = write ? await storedState() : undefined;
        const response = await sendRaw(server.url, request);

        expect(response.status, `${request.method} ${request.target}`).toBeLessThan(500);
        // node:http refuses what is not HTTP before the service sees it: a header block over 16 KiB
        // (431), bytes outside ASCII in the request target (400). Such an answer carries none of our headers.
        const refusedByHttpLayer = [400, 431].includes(response.status) && response.headers['x-request-id'] === undefined;
        if (refusedByHttpLayer) {
          expect(response.headers['content-type']).toBeUndefined();
          return;
        }
        // A path that no longer matches its template (an id with a slash in it) is simply another path: 404.
        const allowed = new Set([...operation.documented, ...(operation.pathParameters.length > 0 ? [404] : [])]);
        expect(allowed.has(response.status), `${request.method} ${request.target} answered ${response.status}`).toBe(true);
        if (response.status >= 400) expectWellFormedProblem(response, rawPath);
        if (response.status === 304) expect(response.body.length).toBe(0);
        if (write && response.status >= 400) expect(await storedState()).toBe(before);
      }),
      { numRuns: REST_RUNS, seed, endOnFailure: true },
    );
  }, 300_000);

  it(`${GRAPHQL_RUNS} random GraphQL requests answer in GraphQL's envelope, never a 500`, async () => {
    const fields = ['tasks', 'task', 'createTask', 'leaderboard', 'id', 'title', 'done', 'entries', '__schema', '__typename'];
    const query = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.array(fc.constantFrom(...fields, '{', '}', '(', ')', ':', '$x', 'limit: 5', 'id: "x"', '...', 'mutation', 'query', '@skip(if: true)'), { maxLength: 40 }).map((tokens) => tokens.join(' ')),
      fc.integer({ min: 1, max: 60 }).map((depth) => `{ ${'tasks { '.repeat(depth)}id${' }'.repeat(depth)} }`),
      fc.constant('x'.repeat(4001)),
    );
    const body = fc.oneof(
      fc.record({ query, variables: fc.option(fc.jsonValue({ maxDepth: 3 }), { nil: undefined }), operationName: fc.option(fc.string(), { nil: undefined }) }).map((value) => Buffer.from(JSON.stringify(value))),
      fc.jsonValue({ maxDepth: 3 }).map((value) => Buffer.from(JSON.stringify(value))),
      fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
    );
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom('POST', 'GET'), fc.ipV4(), async (payload, method, client) => {
        const before = await storedState();
        const response = await sendRaw(server.url, {
          method,
          target: '/api/graphql',
          headers: [
            ['Content-Type', 'application/json'],
            ['X-Forwarded-For', client],
          ],
          body: method === 'POST' ? payload : undefined,
        });
        expect([200, 400, 401, 405, 413, 429]).toContain(response.status);
        expect(response.headers['content-type']).toBe('application/graphql-response+json; charset=utf-8');
        const answer = jsonOf(response) as { data?: unknown; errors?: { message: string }[] };
        expect(answer.data !== undefined || Array.isArray(answer.errors)).toBe(true);
        for (const error of answer.errors ?? []) expect(typeof error.message).toBe('string');
        if (response.status !== 200 || answer.data === undefined || answer.data === null) expect(await storedState()).toBe(before);
      }),
      { numRuns: GRAPHQL_RUNS, seed, endOnFailure: true },
    );
  }, 300_000);

  it(`${TRPC_RUNS} random tRPC calls answer in tRPC's envelope, never a 500`, async () => {
    const procedure = fc.oneof(fc.constantFrom('tasks.newest', 'tasks.byId', 'tasks.create', 'scores.top', 'nope', 'tasks', '__proto__'), fc.string({ maxLength: 10 }).map(encodeURIComponent));
    const input = fc.oneof(fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)), fc.string({ maxLength: 40 }));
    await fc.assert(
      fc.asyncProperty(procedure, input, fc.constantFrom('GET', 'POST'), fc.boolean(), async (name, payload, method, batch) => {
        const before = await storedState();
        const path = `/api/trpc/${name}${batch ? '?batch=1' : ''}`;
        const target = method === 'GET' ? `${path}${batch ? '&' : '?'}input=${encodeURIComponent(payload)}` : path;
        const response = await sendRaw(server.url, {
          method,
          target,
          headers: [['Content-Type', 'application/json']],
          body: method === 'POST' ? Buffer.from(payload) : undefined,
        });
        expect(response.status, `${method} ${target}`).toBeLessThan(500);
        if (name === '') {
          // /api/trpc/ names no procedure: the REST side's not-found problem.
          expectWellFormedProblem(response, '/api/trpc/');
          return;
        }
        const answers = [jsonOf(response)].flat() as { result?: unknown; error?: { message: string; code: number; data: { code: string; httpStatus: number } } }[];
        for (const answer of answers) {
          expect(answer.result !== undefined || answer.error !== undefined).toBe(true);
          if (answer.error) {
            expect(typeof answer.error.message).toBe('string');
            expect(answer.error.data.httpStatus).toBeLessThan(500);
          }
        }
        if (response.status >= 400) expect(await storedState()).toBe(before);
      }),
      { numRuns: TRPC_RUNS, seed, endOnFailure: true },
    );
  }, 300_000);
});
