import { z } from 'zod';
import { listDeliveries } from '../../services/webhooks/deliveries.ts';
import { requireCaller } from '../../procedures/context.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { deliverySchema, subscriptionIdInputSchema } from '../../schemas/webhooks.ts';

export const listDeliveriesProcedure = publicProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/api/webhooks/{id}/deliveries',
      tags: ['webhooks'],
      summary: "A subscription's delivery log, newest first (the latest 100)",
      errorResponses: [404, 422],
    },
    access: { requires: 'credentials' },
  })
  .input(subscriptionIdInputSchema)
  .output(z.object({ items: z.array(deliverySchema) }))
  .query(async ({ ctx, input }) => ({ items: await listDeliveries({ ctx: ctx.service, input: { caller: requireCaller(ctx), id: input.id } }) }));
