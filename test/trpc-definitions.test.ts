import { describe, expect, it } from 'vitest';
import { appRouter } from '../src/routers/app-router.ts';

/**
 * The reads of tRPC's definitions that are not for speed (docs/adr/0009-speed-measures.md,
 * "Other reads"): tRPC marks `_def` internal, and offers no public way to ask
 * a router which procedure a path names, of which kind, with which meta. When
 * an upgrade changes these shapes, this fails first and names the readers.
 */
type Definition = { type?: unknown; meta?: unknown };
const procedures = appRouter._def.procedures as unknown as Record<string, { _def: Definition }>;

describe("tRPC's definitions, as the transports read them", () => {
  it('router._def.procedures: every procedure by its dotted path, flat (trpc-single-query.ts, trpc-subscription.ts, rest-routes.ts, openapi-document.ts); router._def.record: the same, nested by namespace (src/client/app-router.ts types the client from it)', () => {
    expect(Object.keys(procedures)).toEqual(expect.arrayContaining(['scores.top', 'scores.submit', 'scores.live', 'tasks.byId']));
    expect(procedures['scores.live']).toBe((appRouter._def.record as unknown as Record<string, Record<string, unknown>>)['scores']!['live']);
  });

  it('procedure._def.type: query, mutation or subscription (the single query, scores.live over SSE, GraphQL bindings)', () => {
    expect(procedures['scores.top']!._def.type).toBe('query');
    expect(procedures['scores.submit']!._def.type).toBe('mutation');
    expect(procedures['scores.live']!._def.type).toBe('subscription');
  });

  it("procedure._def.meta: the meta given, as declared (count-limited-fields.ts reads a GraphQL field's limit there)", () => {
    expect(procedures['scores.submit']!._def.meta).toMatchObject({ access: { rateLimit: 'score-submit' }, idempotent: true });
  });

  it("router._def._config: the errorFormatter and transformer tRPC's public getTRPCErrorShape and transformTRPCResponse take (trpc-endpoint.ts, write-trpc-envelope.ts)", () => {
    const config = appRouter._def._config as unknown as { errorFormatter?: unknown; transformer?: { output?: { serialize?: unknown } } };
    expect(typeof config.errorFormatter).toBe('function');
    expect(typeof config.transformer?.output?.serialize).toBe('function');
  });
});
