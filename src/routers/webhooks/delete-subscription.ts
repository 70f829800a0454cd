import { z } from 'zod';
import { deleteSubscription } from '../../services/webhooks/subscriptions.ts';
import { requireCaller } from '../../procedures/context.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { subscriptionIdInputSchema } from '../../schemas/webhooks.ts';

export const deleteSubscriptionProcedure = publicProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/api/webhooks/{id}',
      tags: ['webhooks'],
      summary: 'Unsubscribe; pending deliveries go with it',
      errorResponses: [404, 422, 429],
    },
    http: { successStatus: 204 },
    access: { requires: 'credentials', rateLimit: 'webhook-writes' },
  })
  .input(subscriptionIdInputSchema)
  .output(z.void())
  .mutation(async ({ ctx, input }) => {
    await deleteSubscription({ ctx: ctx.service, input: { caller: requireCaller(ctx), id: input.id } });
  });
