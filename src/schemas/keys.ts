import { z } from 'zod';
import { SCOPES } from './scopes.ts';
import { timestampSchema, trimmedText, uuidSchema } from './text.ts';

export const scopeSchema = z.enum(SCOPES).meta({ description: 'stats:read (GET /api/stats) or tasks:export (GET /api/export/tasks)' });

export const newKeySchema = z.strictObject({
  name: trimmedText({ max: 60, empty: 'Give the key a name', tooLong: 'Keep the name under 60 characters' }),
  scopes: z.array(scopeSchema).max(2, 'At most 2 scopes').default([]).meta({ description: 'Default none; at most 2' }),
});

export const createdKeySchema = z
  .object({
    id: uuidSchema,
    name: z.string(),
    prefix: z.string().meta({ description: 'The first 12 characters of the key' }),
    scopes: z.array(scopeSchema),
    expiresAt: timestampSchema,
    key: z.string().meta({ description: 'The key itself (lab_ + 43 characters); shown only in this response' }),
  })
  .meta({ id: 'CreatedKey' });

export const keyIdInputSchema = z.strictObject({ id: uuidSchema });
