import { getSubscription } from '../../services/webhooks/subscriptions.ts';
import { requireCaller } from '../../procedures/context.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { subscriptionIdInputSchema, subscriptionSchema } from '../../schemas/webhooks.ts';

export const getSubscriptionProcedure = publicProcedure
  .meta({
    openapi: { method: 'GET', path: '/api/webhooks/{id}', tags: ['webhooks'], summary: 'One of your subscriptions', errorResponses: [404, 422] },
    access: { requires: 'credentials' },
  })
  .input(subscriptionIdInputSchema)
  .output(subscriptionSchema)
  .query(({ ctx, input }) => getSubscription({ ctx: ctx.service, input: { caller: requireCaller(ctx), id: input.id } }));
