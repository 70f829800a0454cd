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
        'Deliveries are signed per Standard Webhooks with the returned secret, which is shown only here. The subscription starts pending: the URL at once receives a signed webhook.verification request, and only once the receiver answers it with 2xx and the challenge (data.challenge) as its whole body does it become active and get events. A key holds at most 10 subscriptions, which end with it (revoked, expired or removed by retention); a token whose key is gone gets 403. Creating and deleting count against webhook-writes (30 a minute).',
      errorResponses: [400, 403, 413, 422, 429],
    },
    http: { successStatus: 201, successHeaders: { 'Cache-Control': 'no-store' } },
    access: { requires: 'credentials', rateLimit: 'webhook-writes' },
  })
  .input(newSubscriptionSchema)
  .output(createdSubscriptionSchema)
  .mutation(({ ctx, input }) => createSubscription({ ctx: ctx.service, input: { ...input, caller: requireCaller(ctx) } }));
