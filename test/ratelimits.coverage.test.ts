import { describe, expect, it } from 'vitest';
import type { ProcedureExtension } from '../src/graphql/resolve-through-procedure.ts';
import { schema } from '../src/graphql/schema.ts';
import { appRouter } from '../src/routers/app-router.ts';
import { LIMITS } from '../src/services/rate-limits/limit-policies.ts';
import type { Meta } from '../src/procedures/meta.ts';

/**
 * Which operation counts against which limit (DECISIONS "Clients, limits and
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
    const fields = [schema.getQueryType()!, schema.getMutationType()!].flatMap((root) =>
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
    });
  });
});
