import { initTRPC, TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callProcedure } from '../src/procedures/call-procedure.ts';

/**
 * The seam of docs/adr/0009-speed-measures.md (the direct call): REST, the
 * short tRPC query and GraphQL call a procedure through callProcedure instead
 * of tRPC's own caller. It must behave as tRPC's caller
 * does — same middlewares in the same order, same ctx and input handed on,
 * same validation, same failures — or the transports would disagree.
 */
interface Ctx {
  trail: string[];
  user?: string;
}
const t = initTRPC.context<Ctx>().create();
const withUser = t.middleware(async ({ ctx, next }) => {
  ctx.trail.push('outer');
  const result = await next({ ctx: { user: 'ada' } });
  ctx.trail.push(result.ok ? 'outer-ok' : 'outer-failed');
  return result;
});
const base = t.procedure.use(withUser).use(async ({ ctx, next, getRawInput }) => {
  ctx.trail.push(`inner:${JSON.stringify(await getRawInput())}`);
  return next();
});
const router = t.router({
  greet: base
    .input(z.strictObject({ name: z.string().min(1) }))
    .output(z.object({ greeting: z.string() }))
    .query(({ ctx, input }) => ({ greeting: `${ctx.user} greets ${input.name}`, dropped: true }) as { greeting: string }),
  fail: base.input(z.void()).mutation(() => {
    throw new TRPCError({ code: 'CONFLICT', message: 'taken' });
  }),
  badOutput: base.input(z.void()).output(z.object({ n: z.number() })).query(() => ({ n: 'one' }) as unknown as { n: number }),
});
const createCaller = t.createCallerFactory(router);

async function both<T>(path: 'greet' | 'fail' | 'badOutput', type: 'query' | 'mutation', input: unknown) {
  const viaTrpc = { trail: [] as string[] };
  const viaOurs = { trail: [] as string[] };
  const caller = createCaller(viaTrpc) as unknown as Record<string, (input: unknown) => Promise<T>>;
  const settle = (promise: Promise<unknown>) => promise.then((data) => ({ data }), (error: unknown) => ({ error }));
  const trpc = await settle(caller[path]!(input));
  const ours = await settle(callProcedure(router._def.procedures[path], { ctx: viaOurs, path, type, getRawInput: async () => input }));
  return { trpc, ours, trails: { trpc: viaTrpc.trail, ours: viaOurs.trail } };
}

describe('callProcedure, the direct call REST and GraphQL use', () => {
  it('runs the middlewares in order with the extended ctx and returns the validated output', async () => {
    const { trpc, ours, trails } = await both('greet', 'query', { name: 'Grace' });
    expect(ours).toEqual({ data: { greeting: 'ada greets Grace' } });
    expect(ours).toEqual(trpc);
    expect(trails.ours).toEqual(['outer', 'inner:{"name":"Grace"}', 'outer-ok']);
    expect(trails.ours).toEqual(trails.trpc);
  });

  it('fails input validation as tRPC does: BAD_REQUEST with the zod error as cause, seen by outer middlewares', async () => {
    const { trpc, ours, trails } = await both('greet', 'query', { name: '', extra: 1 });
    const error = (ours as { error: TRPCError }).error;
    expect(error).toBeInstanceOf(TRPCError);
    expect(error.code).toBe('BAD_REQUEST');
    expect((error.cause as Error).name).toBe((trpc as { error: TRPCError }).error.cause?.name);
    expect(trails.ours).toEqual(trails.trpc);
  });

  it('passes a thrown TRPCError through unchanged, as tRPC does', async () => {
    const { trpc, ours } = await both('fail', 'mutation', undefined);
    expect((ours as { error: TRPCError }).error.code).toBe('CONFLICT');
    expect((ours as { error: TRPCError }).error.message).toBe((trpc as { error: TRPCError }).error.message);
  });

  it('refuses an output that breaks its schema as tRPC does (INTERNAL_SERVER_ERROR)', async () => {
    const { trpc, ours } = await both('badOutput', 'query', undefined);
    expect((ours as { error: TRPCError }).error.code).toBe('INTERNAL_SERVER_ERROR');
    expect((trpc as { error: TRPCError }).error.code).toBe('INTERNAL_SERVER_ERROR');
  });

  it("finds tRPC's procedure definition where it reads it: the middlewares in order, the resolver last, the meta", () => {
    const changed = "tRPC changed the procedure definition callProcedure runs (_def.middlewares, _def.meta): see docs/adr/0009-speed-measures.md";
    const definition = (router._def.procedures.greet as unknown as { _def: { middlewares?: unknown; meta?: unknown } })._def;
    expect(Array.isArray(definition.middlewares), changed).toBe(true);
    const middlewares = definition.middlewares as unknown[];
    // withUser, the inner step, input, output, resolver.
    expect(middlewares.length, changed).toBe(5);
    expect(middlewares.every((middleware) => typeof middleware === 'function'), changed).toBe(true);
    const withMeta = t.procedure.meta({ tag: 'x' } as never).query(() => 1);
    expect((withMeta as unknown as { _def: { meta?: unknown } })._def.meta, changed).toEqual({ tag: 'x' });
  });
});
