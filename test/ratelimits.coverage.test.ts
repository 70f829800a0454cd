import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import type { ProcedureExtension } from '../src/graphql/resolve-through-procedure.ts';
import { schema } from '../src/graphql/schema.ts';
import { appRouter } from '../src/routers/app-router.ts';
import { LIMITS, limitPolicy, type LimitName } from '../src/services/rate-limits/limit-policies.ts';
import type { Meta } from '../src/procedures/meta.ts';
import { clientAddresses, ONE_SECOND_INTO_A_MINUTE } from './support/client-addresses.ts';
import { graphql } from './support/graphql-client.ts';
import { jsonBody, request, type JsonResponse } from './support/http.ts';
import { bearer, createKey } from './support/keys-client.ts';
import { ManualClock } from './support/manual-clock.ts';
import { postScore } from './support/scores-client.ts';
import { useTestServer } from './support/test-server.ts';

/**
 * Which operation counts against which limit (docs/spec/DECISIONS.md, "Clients, limits and
 * idempotency", "Abuse resistance"). REST routes and /api/trpc call these
 * procedures, and GraphQL's root fields resolve through them, so this one
 * table covers every transport. A new procedure fails this test until it is
 * written here, limited or deliberately not.
 */
const EXPECTED: Record<string, string | null> = {
  'system.health': null,
  'system.ready': null,
  'tasks.newest': null,
  'tasks.byId': null,
  'tasks.create': 'task-writes',
  'tasks.list': null,
  'tasks.add': 'task-writes',
  'tasks.get': null,
  'tasks.update': 'task-writes',
  'tasks.delete': 'task-writes',
  'tasks.listV2': null,
  'tasks.getV2': null,
  'tasks.listV0': null,
  'keys.create': 'key-create',
  'keys.revoke': null,
  'auth.token': 'token',
  'auth.me': null,
  'stats.get': null,
  'export.tasks': null,
  'limits.demo': 'demo',
  'scores.top': null,
  'scores.submit': 'score-submit',
  // Like GET /api/scores/stream: no windowed limit, the per-client stream cap (live-boards.test.ts).
  'scores.live': null,
  'webhooks.create': 'webhook-writes',
  'webhooks.list': null,
  'webhooks.get': null,
  'webhooks.delete': 'webhook-writes',
  'webhooks.deliveries': null,
};

// Flat at run time ("tasks.create" → procedure), whatever the type says.
const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { meta?: Meta } }>;
const limitOf = (procedure: { _def: { meta?: Meta } }) => procedure._def.meta?.access?.rateLimit ?? null;

describe('every operation, on every transport, counts against the limit DECISIONS gives it', () => {
  it('each procedure (REST route, /api/trpc) names its limit, or none, as the table says', () => {
    const declared = Object.fromEntries(Object.entries(procedures).map(([path, procedure]) => [path, limitOf(procedure)]));
    expect(declared).toEqual(EXPECTED);
  });

  it('every limit a procedure names is declared once, with its window, quotas and whose counter it uses', () => {
    for (const name of Object.values(EXPECTED)) if (name) expect(LIMITS).toHaveProperty(name);
    expect(LIMITS['key-create'].countedPer).toBe('address');
  });

  it('every GraphQL root field resolves through one of those procedures, so it is counted as they are', () => {
    const byProcedure = new Map(Object.entries(procedures).map(([path, procedure]) => [procedure, path]));
    const fields = [schema.getQueryType()!, schema.getMutationType()!, schema.getSubscriptionType()!].flatMap((root) =>
      Object.values(root.getFields()).map((field) => {
        const procedure = (field.extensions as Partial<ProcedureExtension>).procedure;
        return [`${root.name}.${field.name}`, procedure ? byProcedure.get(procedure as never) : undefined];
      }),
    );
    expect(Object.fromEntries(fields)).toEqual({
      'Query.tasks': 'tasks.newest',
      'Query.task': 'tasks.byId',
      'Query.leaderboard': 'scores.top',
      'Mutation.createTask': 'tasks.create',
      'Subscription.leaderboard': 'scores.live',
    });
  });
});

/**
 * The variable that sets each quota of each limit, and its default (docs/spec/SPEC.md
 * "Limits", docs/spec/DECISIONS.md, "Webhook writes"). A limit with one quota for everyone
 * names one variable twice.
 */
const VARIABLES: Record<LimitName, { anonymous: [string, number]; authenticated: [string, number] }> = {
  'task-writes': { anonymous: ['RATE_LIMIT_TASK_WRITES_ANON', 30], authenticated: ['RATE_LIMIT_TASK_WRITES_AUTH', 120] },
  'key-create': { anonymous: ['RATE_LIMIT_KEYS_PER_HOUR', 5], authenticated: ['RATE_LIMIT_KEYS_PER_HOUR', 5] },
  token: { anonymous: ['RATE_LIMIT_TOKENS_PER_MINUTE', 20], authenticated: ['RATE_LIMIT_TOKENS_PER_MINUTE', 20] },
  'score-submit': { anonymous: ['RATE_LIMIT_SCORES_PER_MINUTE', 10], authenticated: ['RATE_LIMIT_SCORES_PER_MINUTE', 10] },
  graphql: { anonymous: ['RATE_LIMIT_GRAPHQL_ANON', 60], authenticated: ['RATE_LIMIT_GRAPHQL_AUTH', 240] },
  demo: { anonymous: ['RATE_LIMIT_DEMO_PER_10_SECONDS', 5], authenticated: ['RATE_LIMIT_DEMO_PER_10_SECONDS', 5] },
  'webhook-writes': { anonymous: ['RATE_LIMIT_WEBHOOK_WRITES_PER_MINUTE', 30], authenticated: ['RATE_LIMIT_WEBHOOK_WRITES_PER_MINUTE', 30] },
};
const everyVariable = [...new Set(Object.values(VARIABLES).flatMap(({ anonymous, authenticated }) => [anonymous[0], authenticated[0]]))];

describe('every limit can be set from the environment', () => {
  it('each quota of each limit has its RATE_LIMIT_* variable, with SPEC\'s value as the default, listed in the README', async () => {
    expect(Object.keys(VARIABLES).sort()).toEqual(Object.keys(LIMITS).sort());
    const defaults = loadConfig({});
    for (const [name, quotas] of Object.entries(VARIABLES) as [LimitName, (typeof VARIABLES)[LimitName]][]) {
      for (const [who, [variable, value]] of Object.entries(quotas)) {
        const requester = { keyId: who === 'authenticated' ? randomUUID() : undefined, address: '203.0.113.9' };
        expect({ name, who, limit: limitPolicy(defaults, name, requester).limit }).toEqual({ name, who, limit: value });
        expect({ name, who, limit: limitPolicy(loadConfig({ [variable]: '7' }), name, requester).limit }).toEqual({ name, who, limit: 7 });
      }
    }
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const configurationTable = readme.slice(readme.indexOf('\n## Configuration\n'), readme.indexOf('\n## ', readme.indexOf('\n## Configuration\n') + 1));
    for (const variable of everyVariable) expect(configurationTable).toContain(`| \`${variable}\` |`);
  });

  describe('a small value set takes effect: the 429 comes at that count, on every limit', () => {
    // A different value for each, so a variable read for the wrong limit shows.
    const SMALL: Record<string, number> = {
      RATE_LIMIT_TASK_WRITES_ANON: 2,
      RATE_LIMIT_TASK_WRITES_AUTH: 3,
      RATE_LIMIT_KEYS_PER_HOUR: 4,
      RATE_LIMIT_TOKENS_PER_MINUTE: 5,
      RATE_LIMIT_SCORES_PER_MINUTE: 6,
      RATE_LIMIT_GRAPHQL_ANON: 7,
      RATE_LIMIT_GRAPHQL_AUTH: 8,
      RATE_LIMIT_DEMO_PER_10_SECONDS: 9,
      RATE_LIMIT_WEBHOOK_WRITES_PER_MINUTE: 11,
    };
    // Windows are aligned to the clock: one second into a minute, every request falls in one window.
    const clock = new ManualClock(ONE_SECOND_INTO_A_MINUTE);
    const server = useTestServer({ clock, env: { TRUST_PROXY: 'true', ...Object.fromEntries(Object.entries(SMALL).map(([name, value]) => [name, String(value)])) } });
    const newClient = clientAddresses('198.51.100');
    /** A key of its own (made from an address of its own, so key creation counts nowhere else). */
    const freshKey = async () => (await createKey(server.url, { name: 'limits' }, newClient()['X-Forwarded-For'])).key;

    const tasks = () => `${server.url}/api/tasks`;
    /** Each variable's limit, reached anonymously (a fresh address) or with a fresh key, and what a request within it answers. */
    const CASES: { variable: string; limit: LimitName; caller: 'anonymous' | 'key'; answer: number; send: (headers: Record<string, string>) => Promise<JsonResponse> }[] = [
      { variable: 'RATE_LIMIT_TASK_WRITES_ANON', limit: 'task-writes', caller: 'anonymous', answer: 201, send: (headers) => request(tasks(), { method: 'POST', ...jsonBody({ title: 't' }, headers) }) },
      { variable: 'RATE_LIMIT_TASK_WRITES_AUTH', limit: 'task-writes', caller: 'key', answer: 201, send: (headers) => request(tasks(), { method: 'POST', ...jsonBody({ title: 't' }, headers) }) },
      { variable: 'RATE_LIMIT_KEYS_PER_HOUR', limit: 'key-create', caller: 'anonymous', answer: 201, send: (headers) => request(`${server.url}/api/keys`, { method: 'POST', ...jsonBody({ name: 'k' }, headers) }) },
      { variable: 'RATE_LIMIT_TOKENS_PER_MINUTE', limit: 'token', caller: 'key', answer: 200, send: (headers) => request(`${server.url}/api/token`, { method: 'POST', headers }) },
      { variable: 'RATE_LIMIT_SCORES_PER_MINUTE', limit: 'score-submit', caller: 'anonymous', answer: 201, send: (headers) => postScore(server.url, { game: 'demo', initials: 'LIM', value: 1 }, headers) },
      { variable: 'RATE_LIMIT_GRAPHQL_ANON', limit: 'graphql', caller: 'anonymous', answer: 200, send: (headers) => graphql(server.url, { query: '{ __typename }' }, headers) },
      { variable: 'RATE_LIMIT_GRAPHQL_AUTH', limit: 'graphql', caller: 'key', answer: 200, send: (headers) => graphql(server.url, { query: '{ __typename }' }, headers) },
      { variable: 'RATE_LIMIT_DEMO_PER_10_SECONDS', limit: 'demo', caller: 'anonymous', answer: 200, send: (headers) => request(`${server.url}/api/limits/demo`, { headers }) },
      // A subscription that is not there: the request reached the route and counts.
      { variable: 'RATE_LIMIT_WEBHOOK_WRITES_PER_MINUTE', limit: 'webhook-writes', caller: 'key', answer: 404, send: (headers) => request(`${server.url}/api/webhooks/${randomUUID()}`, { method: 'DELETE', headers }) },
    ];

    it('covers every variable', () => {
      expect(CASES.map((entry) => entry.variable).sort()).toEqual([...everyVariable].sort());
      expect(Object.keys(SMALL).sort()).toEqual([...everyVariable].sort());
    });

    it.each(CASES)('$variable ($limit)', async ({ variable, limit, caller, answer, send }) => {
      const headers = caller === 'anonymous' ? newClient() : bearer(await freshKey());
      const admitted: number[] = [];
      let refused: JsonResponse | undefined;
      while (!refused && admitted.length <= 20) {
        const response = await send(headers);
        if (response.status === 429) refused = response;
        else admitted.push(response.status);
      }
      expect(admitted).toEqual(Array.from({ length: SMALL[variable]! }, () => answer));
      expect(refused?.headers.get('ratelimit-policy')).toBe(`"${limit}";q=${SMALL[variable]};w=${LIMITS[limit].windowSeconds}`);
      expect(refused?.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    });
  });
});
