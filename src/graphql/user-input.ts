import { createGraphQLError } from 'graphql-yoga';
import type { z } from 'zod';
import { toFieldErrors } from '../errors/field-errors.ts';

/**
 * Checks a resolver's arguments with the same zod schema the procedures use;
 * a failure is a GraphQL error with extension code BAD_USER_INPUT.
 */
export function parseArguments<T extends z.ZodType>(schema: T, args: unknown): z.output<T> {
  const parsed = schema.safeParse(args);
  if (parsed.success) return parsed.data;
  const errors = toFieldErrors(parsed.error.issues);
  // Yoga's own constructor: an error of Yoga's graphql copy is passed through unmasked.
  throw createGraphQLError(errors.map((entry) => (entry.path ? `${entry.path}: ${entry.message}` : entry.message)).join('; '), {
    extensions: { code: 'BAD_USER_INPUT', errors },
  });
}
