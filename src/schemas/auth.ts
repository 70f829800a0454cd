import { z } from 'zod';
import { scopeSchema } from './keys.ts';
import { timestampSchema, uuidSchema } from './text.ts';

export const tokenSchema = z
  .object({
    access_token: z.string().meta({ description: 'A signed JWT (HS256)' }),
    token_type: z.enum(['Bearer']),
    expires_in: z.number().int().meta({ description: 'Seconds: 900' }),
    scope: z.string().meta({ description: "The key's scopes joined by single spaces; empty when none" }),
  })
  .meta({ id: 'Token' });

export const identitySchema = z
  .object({
    method: z.enum(['api-key', 'jwt']),
    keyId: uuidSchema,
    name: z.string(),
    scopes: z.array(scopeSchema),
    expiresAt: timestampSchema.meta({ description: "The key's expiry, or the token's for method jwt" }),
  })
  .meta({ id: 'Identity' });
