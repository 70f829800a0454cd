import { getSubscription } from '../../services/webhooks/subscriptions.ts';
import { publicProcedure, requireCaller } from '../../trpc.ts';
import { subscriptionIdInputSchema, subscriptionSchema } from './webhook-schemas.ts';

export const getSubscriptionProcedure = publicProcedure
  .meta({
    openapi: { method: 'GET', path: '/api/webhooks/{id}', tags: ['webhooks'], summary: 'One of your subscriptions', errorResponses: [404, 422] },
    access: { requires: 'credentials' },
  })
  .input(subscriptionIdInputSchema)
  .output(subscriptionSchema)
  .query(({ ctx, input }) => getSubscription({ ctx: ctx.service, input: { caller: requireCaller(ctx), id: input.id } }));
