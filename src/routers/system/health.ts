import { z } from 'zod';
import { publicProcedure } from '../../procedures/trpc.ts';

export const healthProcedure = publicProcedure
  .meta({ openapi: { method: 'GET', path: '/api/health', tags: ['system'], summary: 'Liveness check' } })
  .input(z.void())
  .output(z.object({ ok: z.literal(true) }))
  .query(() => ({ ok: true as const }));
