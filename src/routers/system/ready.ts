import { z } from 'zod';
import { databaseUnavailable } from '../../errors/database-unavailable.ts';
import { databaseAnswers } from '../../services/system/database-answers.ts';
import { publicProcedure } from '../../procedures/trpc.ts';

/** docs/spec/DECISIONS.md, "Operations": ready when the database answers within 1 s. */
const READY_WITHIN_MS = 1000;

export const readyProcedure = publicProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/api/ready',
      tags: ['system'],
      summary: 'Readiness check',
      description: 'Ready to serve: the database answered within 1 s. 503 otherwise. Not rate-limited; /api/health is liveness only.',
    },
  })
  .input(z.void())
  .output(z.object({ ok: z.literal(true) }))
  .query(async ({ ctx }) => {
    if (!(await databaseAnswers({ ctx: ctx.service, input: { withinMs: READY_WITHIN_MS } }))) {
      throw databaseUnavailable(undefined, 'The database did not answer within 1 s.');
    }
    return { ok: true as const };
  });
