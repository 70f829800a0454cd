import { z } from 'zod';
import { submitScore } from '../../services/scores/submit-score.ts';
import { publicProcedure } from '../../trpc.ts';
import { newScoreSchema, scoreSchema } from './score-schemas.ts';

export const submitScoreProcedure = publicProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/api/scores',
      tags: ['scores'],
      summary: 'Submit a score (idempotent)',
      description:
        'Checks run in this order: rate limit, Idempotency-Key, body. A repeat with the same key and body replays the first answer with Idempotent-Replayed: true.',
      requestHeaders: z.object({
        'idempotency-key': z
          .string()
          .meta({ description: '1 to 255 printable ASCII characters, optionally in double quotes; kept 24 hours per client' }),
      }),
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
