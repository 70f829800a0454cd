import { tracked } from '@trpc/server';
import { toAppError } from '../../errors/to-app-error.ts';
import { clientIdOf } from '../../procedures/context.ts';
import { toTRPCError } from '../../procedures/trpc-error.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { liveBoardInputSchema } from '../../schemas/scores.ts';

/**
 * scores.live (docs/spec/DECISIONS.md, "Live updates on every transport"): the board at once,
 * then after each matching score, each sent with its event id, so that tRPC's
 * subscription link resumes after the last board it saw, as Last-Event-ID
 * does on GET /api/scores/stream. No REST path: that is the stream itself.
 */
export const liveBoardProcedure = publicProcedure.input(liveBoardInputSchema).subscription(async function* ({ ctx, input, signal }) {
  const following = new AbortController();
  const stop = () => following.abort();
  signal?.addEventListener('abort', stop, { once: true });
  let release = () => {};
  try {
    release = ctx.liveBoards.reserveSlot(clientIdOf(ctx));
    const { first, moves } = await ctx.liveBoards.follow({ game: input.game, limit: input.limit, lastEventId: input.lastEventId }, following.signal);
    if (first) yield tracked(String(first.id), first.board);
    for await (const move of moves) yield tracked(String(move.id), move.board);
  } catch (error) {
    // In tRPC's envelope: too many streams is a 429 the client's link reports; the database out of
    // reach a 503 it retries (resuming), as a REST client comes back after the stream ended.
    throw toTRPCError(toAppError(error));
  } finally {
    signal?.removeEventListener('abort', stop);
    following.abort();
    release();
  }
});
