import { z } from 'zod';
import { issueToken } from '../../services/auth/tokens.ts';
import { requireCaller } from '../../procedures/context.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { tokenSchema } from '../../schemas/auth.ts';

export const issueTokenProcedure = publicProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/api/token',
      tags: ['auth'],
      summary: 'Exchange an API key for a 15-minute JWT',
      description: 'Send the key as Bearer credential and no body. Tokens cannot mint tokens (403).',
      errorResponses: [503],
    },
    http: { successHeaders: { 'Cache-Control': 'no-store' } },
    access: { rateLimit: 'token', requires: 'api-key' },
  })
  .input(z.void())
  .output(tokenSchema)
  .mutation(async ({ ctx }) => {
    const token = await issueToken({ ctx: ctx.service, input: { caller: requireCaller(ctx) } });
    return { access_token: token.accessToken, token_type: 'Bearer' as const, expires_in: token.expiresIn, scope: token.scope };
  });
