import { z } from 'zod';
import { requireCaller } from '../../procedures/context.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { identitySchema } from '../../schemas/auth.ts';
import { isoTimestampOf } from '../../lib/iso-timestamp.ts';

export const meProcedure = publicProcedure
  .meta({
    openapi: { method: 'GET', path: '/api/me', tags: ['auth'], summary: 'Who the credential belongs to' },
    access: { requires: 'credentials' },
  })
  .input(z.void())
  .output(identitySchema)
  .query(({ ctx }) => {
    const caller = requireCaller(ctx);
    return {
      method: caller.method,
      keyId: caller.keyId,
      name: caller.name,
      scopes: caller.scopes,
      expiresAt: isoTimestampOf(caller.expiresAt),
    };
  });
