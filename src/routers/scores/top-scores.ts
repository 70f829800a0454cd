import { getLeaderboard } from '../../services/scores/get-leaderboard.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { ifNoneMatchHeaderSchema } from '../../schemas/headers.ts';
import { leaderboardQuerySchema, leaderboardSchema } from '../../schemas/scores.ts';

/** GET /api/scores, and docs/spec/SPEC.md, "Procedure endpoints" scores.top. */
export const topScoresProcedure = publicProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/api/scores',
      tags: ['scores'],
      summary: "A game's leaderboard, best first",
      requestHeaders: ifNoneMatchHeaderSchema,
      errorResponses: [422],
    },
    http: { entityTag: true },
  })
  .input(leaderboardQuerySchema)
  .output(leaderboardSchema)
  .query(({ ctx, input }) => getLeaderboard({ ctx: ctx.service, input }));
