import { runIdempotent } from '../services/idempotency/run-idempotent.ts';
import { clientIdOf, type Context } from './context.ts';
import type { Meta } from './meta.ts';
import { successResponseOf } from './success-response.ts';

type Next = (options: { ctx: Pick<Context, 'service'> }) => Promise<{ ok: true; data: unknown } | { ok: false; error: unknown }>;

/**
 * The procedure's work under its Idempotency-Key (services/idempotency/run-idempotent.ts):
 * the rest of the chain runs inside the verb's transaction; the answer — replayed or
 * new — is stored on the context for the transport to send byte for byte.
 */
export async function idempotently(ctx: Context, meta: Meta, next: Next, rawInput: () => Promise<unknown>) {
  const { readBody } = ctx.request;
  const outcome = await runIdempotent({
    ctx: ctx.service,
    input: {
      client: clientIdOf(ctx),
      headers: ctx.request.headers,
      method: ctx.request.method,
      path: ctx.request.path,
      // tRPC hands its input parsed: the fingerprint then covers its JSON text.
      body: readBody ?? (async () => JSON.stringify((await rawInput()) ?? null)),
    },
    work: async (service) => {
      const result = await next({ ctx: { service } });
      if (!result.ok) throw result.error;
      return result.data;
    },
    represent: (data) => successResponseOf(meta.http ?? {}, data, ctx.response.headers),
  });
  ctx.response.idempotent = { stored: outcome.stored, replayed: outcome.replayed };
  return { ok: true as const, data: outcome.replayed ? JSON.parse(outcome.stored.body) : (outcome.value as unknown) };
}
