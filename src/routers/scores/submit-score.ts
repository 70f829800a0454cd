import { submitScore } from '../../services/scores/submit-score.ts';
import { idempotencyKeyHeaderSchema } from '../../schemas/headers.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { newScoreSchema, scoreSchema } from '../../schemas/scores.ts';

export const submitScoreProcedure = publicProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/api/scores',
      tags: ['scores'],
      summary: 'Submit a score (idempotent)',
      description:
        'Checks run in this order: rate limit, Idempotency-Key, body. A repeat with the same key and body replays the first answer with Idempotent-Replayed: true.',
      requestHeaders: idempotencyKeyHeaderSchema,
      errorResponses: [400, 409, 413, 422],
    },
    http: {
      successStatus: 201,
      responseHeaders: { 'Idempotent-Replayed': { description: '`true` when this is the stored answer to an earlier request' } },
    },
    access: { rateLimit: 'score-submit' },
    idempotent: true,
  })
  .input(newScoreSchema)
  .output(scoreSchema)
  .mutation(({ ctx, input }) => submitScore({ ctx: ctx.service, input }));
