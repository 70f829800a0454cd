import { initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { applyOutputChecks } from '../src/procedures/output-checks.ts';
import { appRouter } from '../src/routers/app-router.ts';

/**
 * OUTPUT_CHECKS (docs/adr/0005-output-checks-and-the-short-trpc-query.md, docs/adr/0009-speed-measures.md): production sends results
 * unchecked, the suites run with the checks on, and a check fails on any
 * result its schema would reject or change — so what the suites pass is what
 * production sends.
 */
const t = initTRPC.create();
const row = z.object({ id: z.string(), done: z.boolean() });
const router = t.router({
  exact: t.procedure.output(row).query(() => ({ id: 'a', done: false })),
  extraField: t.procedure.output(row).query(() => ({ id: 'a', done: false, secret: 'x' })),
  reordered: t.procedure.output(row).query(() => ({ done: false, id: 'a' })),
  rejected: t.procedure.output(row).query(() => ({ id: 1, done: false }) as unknown as { id: string; done: boolean }),
  unchecked: t.procedure.query(() => ({ anything: true })),
});
const caller = t.createCallerFactory(router)({});

describe('output checks', () => {
  it('on: a result its schema accepts unchanged passes as it is', async () => {
    applyOutputChecks(router, 'on');
    await expect(caller.exact()).resolves.toEqual({ id: 'a', done: false });
    await expect(caller.unchecked()).resolves.toEqual({ anything: true });
  });

  it('on: a field the schema would strip, a key order it would change, or a value it rejects is an internal error', async () => {
    applyOutputChecks(router, 'on');
    await expect(caller.extraField()).rejects.toMatchObject({ code: 'INTERNAL_SERVER_ERROR', message: expect.stringContaining('changes the result') });
    await expect(caller.reordered()).rejects.toMatchObject({ code: 'INTERNAL_SERVER_ERROR', message: expect.stringContaining('changes the result') });
    await expect(caller.rejected()).rejects.toMatchObject({ code: 'INTERNAL_SERVER_ERROR', message: expect.stringContaining('rejects the result') });
  });

  it('off: results pass unparsed, exactly as built', async () => {
    applyOutputChecks(router, 'off');
    await expect(caller.extraField()).resolves.toEqual({ id: 'a', done: false, secret: 'x' });
    await expect(caller.rejected()).resolves.toEqual({ id: 1, done: false });
    // Switching back works in place: the setting is the process's.
    applyOutputChecks(router, 'on');
    await expect(caller.rejected()).rejects.toMatchObject({ code: 'INTERNAL_SERVER_ERROR' });
  });

  it("reaches every procedure of the service that declares an output, replacing tRPC's own validator", () => {
    applyOutputChecks(appRouter, 'on');
    const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { output?: unknown; middlewares: Array<{ name: string; _type?: string }> } }>);
    const declaring = procedures.filter(([, procedure]) => procedure._def.output !== undefined);
    expect(declaring.length).toBeGreaterThan(20);
    for (const [path, procedure] of declaring) {
      const outputs = procedure._def.middlewares.filter((middleware) => middleware._type === 'output');
      expect(outputs, path).toHaveLength(1);
      expect(outputs[0]!.name, path).not.toBe('outputValidatorMiddleware');
      expect(procedure._def.middlewares.at(-2), path).toBe(outputs[0]);
    }
    // Off, the step is gone; on again, it is back in its place, once.
    applyOutputChecks(appRouter, 'off');
    for (const [path, procedure] of declaring) expect(procedure._def.middlewares.filter((middleware) => middleware._type === 'output'), path).toEqual([]);
    applyOutputChecks(appRouter, 'on');
    for (const [path, procedure] of declaring) expect(procedure._def.middlewares.at(-2)?._type, path).toBe('output');
  });

  it("finds tRPC's own output validator where it replaces it: one middleware of _type 'output', just before the resolver", () => {
    const changed = "tRPC changed where a procedure keeps its output validator: see docs/adr/0009-speed-measures.md";
    const fresh = t.procedure.output(row).query(() => ({ id: 'a', done: false }));
    const definition = (fresh as unknown as { _def: { output?: unknown; middlewares?: Array<{ _type?: string }> } })._def;
    expect(definition.output, changed).toBe(row);
    expect(definition.middlewares?.filter((middleware) => middleware._type === 'output'), changed).toHaveLength(1);
    expect(definition.middlewares?.at(-2)?._type, changed).toBe('output');
  });
});
