import { createHash } from 'node:crypto';
import { successResponseOf } from '../http/success-response.ts';
import { parseIdempotencyKey } from '../services/idempotency/idempotency-key.ts';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
} from '../services/idempotency/idempotency-records.ts';
import { withTransaction, type ServiceContext } from '../services/service-context.ts';
import { clientIdOf, type Context, type Meta } from '../trpc.ts';

/** What the rest of the chain answered: tRPC's middleware result, seen from here. */
export type ChainResult = { ok: true; data: unknown } | { ok: false };

/** Carries a failed result out of the transaction so that the transaction rolls back. */
class RolledBack {
  constructor(readonly result: ChainResult) {}
}

/**
 * SPEC "Idempotency-Key header rules" for a procedure whose meta says
 * `idempotent`, between the rate limit and input validation:
 * 1. claim the key in a statement of its own (409 / 422 / replay otherwise);
 * 2. run the procedure inside ONE transaction that also stores the answer,
 *    so the work and its record commit together or not at all;
 * 3. on any failure, release the key so it can be used again.
 * A replay answers without running the procedure: `replayed` is returned and
 * the stored response waits in ctx.response.replay for the transport.
 */
export async function runIdempotent<R extends ChainResult>(
  ctx: Context,
  meta: Meta,
  rest: (service: ServiceContext) => Promise<R>,
  rawInput: () => Promise<unknown>,
): Promise<R | { replayed: unknown }> {
  const key = parseIdempotencyKey(ctx.request.headers['idempotency-key']);
  const client = clientIdOf(ctx);
  const body = ctx.request.readBody ? await ctx.request.readBody() : JSON.stringify((await rawInput()) ?? null);
  const fingerprint = createHash('sha256').update(`${ctx.request.method} ${ctx.request.path}\n${body}`).digest('hex');

  const outcome = await claimIdempotencyKey({ ctx: ctx.service, input: { client, key, fingerprint } });
  if (outcome.kind === 'replay') {
    ctx.response.replay = outcome.response;
    return { replayed: JSON.parse(outcome.response.body) as unknown };
  }

  const claim = { client, key, claim: outcome.claim };
  try {
    return await withTransaction(ctx.service, async (tx) => {
      const result = await rest(tx);
      if (!result.ok) throw new RolledBack(result);
      const response = successResponseOf(meta.http ?? {}, result.data, ctx.response.headers);
      ctx.response.stored = response;
      await completeIdempotencyKey({
        ctx: tx,
        input: { ...claim, response: { status: response.status, headers: response.headers, body: response.body ?? '' } },
      });
      return result;
    });
  } catch (error) {
    await releaseIdempotencyKey({ ctx: ctx.service, input: claim });
    if (error instanceof RolledBack) return error.result as R;
    throw error;
  }
}
