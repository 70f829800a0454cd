import { z } from 'zod';
import { listSubscriptions } from '../../services/webhooks/subscriptions.ts';
import { publicProcedure, requireCaller } from '../../trpc.ts';
import { subscriptionSchema } from './webhook-schemas.ts';

export const listSubscriptionsProcedure = publicProcedure
  .meta({
    openapi: { method: 'GET', path: '/api/webhooks', tags: ['webhooks'], summary: "The caller's subscriptions, newest first" },
    access: { requires: 'credentials' },
  })
  .input(z.void())
  .output(z.object({ items: z.array(subscriptionSchema) }))
  .query(async ({ ctx }) => ({ items: await listSubscriptions({ ctx: ctx.service, input: { caller: requireCaller(ctx) } }) }));
