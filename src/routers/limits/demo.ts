import { z } from 'zod';
import { publicProcedure } from '../../procedures/trpc.ts';

export const limitsDemoProcedure = publicProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/api/limits/demo',
      tags: ['system'],
      summary: 'A rate-limited endpoint to try the limit headers on (5 per 10 seconds)',
    },
    access: { rateLimit: 'demo' },
  })
  .input(z.void())
  .output(
    z
      .object({
        ok: z.literal(true),
        limit: z.number().int(),
        remaining: z.number().int(),
        resetSeconds: z.number().int(),
      })
      .meta({ id: 'LimitsDemo' }),
  )
  .query(({ ctx }) => {
    const outcome = ctx.rateLimit!;
    return { ok: true as const, limit: outcome.limit, remaining: outcome.remaining, resetSeconds: outcome.resetSeconds };
  });
