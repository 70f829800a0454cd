import { z } from 'zod';
import { listSubscriptions } from '../../services/webhooks/subscriptions.ts';
import { requireCaller } from '../../procedures/context.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { subscriptionSchema } from '../../schemas/webhooks.ts';

export const listSubscriptionsProcedure = publicProcedure
  .meta({
    openapi: { method: 'GET', path: '/api/webhooks', tags: ['webhooks'], summary: "The caller's subscriptions, newest first" },
    access: { requires: 'credentials' },
  })
  .input(z.void())
  .output(z.object({ items: z.array(subscriptionSchema) }))
  .query(async ({ ctx }) => ({ items: await listSubscriptions({ ctx: ctx.service, input: { caller: requireCaller(ctx) } }) }));
