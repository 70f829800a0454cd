import { z } from 'zod';

/** docs/spec/SPEC.md, "Problem", as documented in the OpenAPI document. */
export const problemSchema = z
  .object({
    type: z.string().meta({ description: '{base_url}/problems/<slug>' }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    instance: z.string().optional().meta({ description: 'The request path' }),
    errors: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .meta({ description: 'Present on validation failures' }),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details' });
