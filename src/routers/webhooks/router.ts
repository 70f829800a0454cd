import { router } from '../../procedures/trpc.ts';
import { createSubscriptionProcedure } from './create-subscription.ts';
import { deleteSubscriptionProcedure } from './delete-subscription.ts';
import { getSubscriptionProcedure } from './get-subscription.ts';
import { listDeliveriesProcedure } from './list-deliveries.ts';
import { listSubscriptionsProcedure } from './list-subscriptions.ts';

export const webhooksRouter = router({
  create: createSubscriptionProcedure,
  list: listSubscriptionsProcedure,
  get: getSubscriptionProcedure,
  delete: deleteSubscriptionProcedure,
  deliveries: listDeliveriesProcedure,
});
