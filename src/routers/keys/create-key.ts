import { createApiKey } from '../../services/keys/create-api-key.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { createdKeySchema, newKeySchema } from '../../schemas/keys.ts';
import { isoTimestampOf } from '../../lib/iso-timestamp.ts';

export const createKeyProcedure = publicProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/api/keys',
      tags: ['keys'],
      summary: 'Create an API key',
      description: 'No credentials needed. The key is shown once; only its SHA-256 hash is stored. Expires after 24 hours.',
      errorResponses: [400, 413, 422],
    },
    http: { successStatus: 201, successHeaders: { 'Cache-Control': 'no-store' } },
    access: { rateLimit: 'key-create' },
  })
  .input(newKeySchema)
  .output(createdKeySchema)
  .mutation(async ({ ctx, input }) => {
    const key = await createApiKey({ ctx: ctx.service, input });
    return { ...key, expiresAt: isoTimestampOf(key.expiresAt) };
  });
