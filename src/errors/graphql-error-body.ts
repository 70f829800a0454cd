import type { AppError } from './app-error.ts';
import { problemTypes } from './problem-types.ts';

/** One entry of a GraphQL response's `errors`, as the endpoint writes it itself. */
export interface GraphQLErrorBody {
  message: string;
  extensions: { code: string; errors?: AppError['errors'] };
}

/**
 * A domain failure as a GraphQL error: its detail (or title) as the message,
 * `extensions.code` from the closed table of problem types, and the field
 * errors of an input failure.
 */
export function graphqlErrorBody(error: AppError): GraphQLErrorBody {
  return {
    message: error.detail ?? error.title,
    extensions: { code: problemTypes[error.slug].graphql, ...(error.errors ? { errors: error.errors } : {}) },
  };
}
