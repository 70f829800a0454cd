import { z } from 'zod';
import { getStats } from '../../services/stats/get-stats.ts';
import { publicProcedure } from '../../procedures/trpc.ts';

export const statsProcedure = publicProcedure
  .meta({
    openapi: { method: 'GET', path: '/api/stats', tags: ['stats'], summary: 'Task and key counts' },
    access: { requires: 'stats:read' },
  })
  .input(z.void())
  .output(
    z
      .object({
        tasks: z.object({ total: z.number().int(), open: z.number().int(), done: z.number().int() }),
        activeKeys: z.number().int().meta({ description: 'Keys neither revoked nor expired' }),
      })
      .meta({ id: 'Stats' }),
  )
  .query(({ ctx }) => getStats({ ctx: ctx.service }));
