import { z } from 'zod';
import { revokeApiKey } from '../../services/keys/revoke-api-key.ts';
import { requireCaller } from '../../procedures/context.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { keyIdInputSchema } from '../../schemas/keys.ts';

export const revokeKeyProcedure = publicProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/api/keys/{id}',
      tags: ['keys'],
      summary: 'Revoke the key you authenticate with',
      description: 'Authenticate with the key itself; a token or another key gets 403. The key stops working at once.',
      errorResponses: [403, 422],
    },
    http: { successStatus: 204 },
    // Key-only and ownership are checked after the id is validated (docs/spec/DECISIONS.md order).
    access: { requires: 'credentials' },
  })
  .input(keyIdInputSchema)
  .output(z.void())
  .mutation(async ({ ctx, input }) => {
    await revokeApiKey({ ctx: ctx.service, input: { caller: requireCaller(ctx), id: input.id } });
  });
