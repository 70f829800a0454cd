import { TRPCError, type AnyTRPCMiddlewareFunction, type AnyTRPCRouter } from '@trpc/server';
import type { ZodType } from 'zod';

/**
 * Whether a procedure's result is checked against its output schema
 * (OUTPUT_CHECKS, docs/adr/0005-output-checks-and-the-short-trpc-query.md).
 *
 * `off` (production): results are sent as the services built them. They come
 * from our own code, not from a client, and checking each one cost a read
 * about a tenth of its CPU. The output step is then taken out of the
 * procedure altogether: even passing the result on was a step of the
 * middleware chain, most of a microsecond on every call.
 *
 * `on` (tests and development): each result is parsed by its output schema,
 * and a result the schema rejects — or would change (a field it strips, a
 * value it transforms, a key order it reorders) — is an internal error. So
 * what the suites pass is byte for byte what production sends unchecked.
 */
export type OutputChecks = 'on' | 'off';

interface ProcedureDefinition {
  output?: unknown;
  middlewares: AnyTRPCMiddlewareFunction[];
}

type OutputMiddleware = AnyTRPCMiddlewareFunction & { _type?: string };

/**
 * Sets the checks for every procedure of the router. tRPC puts an output
 * middleware where `.output()` was called, just before the resolver; `on`
 * puts the checking one there (or in its place), `off` takes it out. The
 * REST adapter, /api/trpc and GraphQL all get the same. Procedures are module
 * singletons: the setting holds for the whole process.
 */
export function applyOutputChecks(router: AnyTRPCRouter, mode: OutputChecks): void {
  for (const procedure of Object.values(router._def.procedures as Record<string, { _def: ProcedureDefinition }>)) {
    const definition = procedure._def;
    if (definition.output === undefined) continue;
    const middlewares = definition.middlewares;
    const index = middlewares.findIndex((middleware) => (middleware as OutputMiddleware)._type === 'output');
    if (index !== -1) middlewares.splice(index, 1);
    // The resolver is always last.
    // Every output schema of the service is a zod schema.
    if (mode === 'on') middlewares.splice(middlewares.length - 1, 0, checkingOutput(definition.output as ZodType));
  }
}

function checkingOutput(schema: ZodType): AnyTRPCMiddlewareFunction {
  const middleware: OutputMiddleware = async ({ next }) => {
    const result = await next();
    if (!result.ok) return result;
    let problem: string | undefined;
    let cause: unknown;
    try {
      const parsed = await schema.parseAsync(result.data);
      const sent = JSON.stringify(result.data);
      const checked = JSON.stringify(parsed);
      if (sent !== checked) problem = `the output schema changes the result: sent ${sent.slice(0, 500)}, schema gives ${checked.slice(0, 500)}`;
    } catch (error) {
      problem = 'the output schema rejects the result';
      cause = error;
    }
    if (problem !== undefined) throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: `Output validation failed: ${problem}`, cause });
    return result;
  };
  middleware._type = 'output';
  return middleware;
}
