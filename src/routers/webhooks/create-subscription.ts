import { createSubscription } from '../../services/webhooks/subscriptions.ts';
import { requireCaller } from '../../procedures/context.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { createdSubscriptionSchema, newSubscriptionSchema } from '../../schemas/webhooks.ts';

export const createSubscriptionProcedure = publicProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/api/webhooks',
      tags: ['webhooks'],
      summary: 'Subscribe a URL to events',
      description:
        'Deliveries are signed per Standard Webhooks with the returned secret, which is shown only here. A key holds at most 10 subscriptions, which end with it (revoked, expired or removed by retention); a token whose key is gone gets 403.',
      errorResponses: [400, 403, 413, 422],
    },
    http: { successStatus: 201, successHeaders: { 'Cache-Control': 'no-store' } },
    access: { requires: 'credentials' },
  })
  .input(newSubscriptionSchema)
  .output(createdSubscriptionSchema)
  .mutation(({ ctx, input }) => createSubscription({ ctx: ctx.service, input: { ...input, caller: requireCaller(ctx) } }));
