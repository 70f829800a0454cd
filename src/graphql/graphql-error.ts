import { createGraphQLError } from 'graphql-yoga';
import type { AppError } from '../errors/app-error.ts';
import { problemTypes, type ProblemSlug } from '../errors/problem-types.ts';

/** One entry of a GraphQL response's `errors`, as the endpoint writes it itself. */
export interface GraphQLErrorBody {
  message: string;
  extensions: { code: string; errors?: AppError['errors'] };
}

/**
 * The renderer of GraphQL errors: a domain failure's detail (or title) as the
 * message, `extensions.code` from the closed table of problem types, and the
 * field errors of an input failure.
 */
export function graphqlErrorBody(error: AppError): GraphQLErrorBody {
  return {
    message: error.detail ?? error.title,
    extensions: { code: problemTypes[error.slug].graphql, ...(error.errors ? { errors: error.errors } : {}) },
  };
}

/** Failures of the service rather than of a field: they fail the whole request with their own status and headers. */
const WHOLE_REQUEST: ReadonlySet<ProblemSlug> = new Set(['rate-limited', 'unavailable']);

/**
 * The same failure thrown inside an operation. A field's failure (input, not
 * found, forbidden) is an entry of `errors` beside the other fields' data; a
 * 429 or 503 also sets the response's status and headers (Yoga reads
 * `extensions.http`). An unexpected failure is thrown on as it was, for Yoga
 * to mask and our plugin to log.
 */
export function toGraphQLError(error: AppError): unknown {
  if (error.slug === 'internal' && error.cause !== undefined) return error.cause;
  const { message, extensions } = graphqlErrorBody(error);
  const http = WHOLE_REQUEST.has(error.slug) ? { http: { status: error.status, headers: error.headers } } : {};
  // Yoga's own constructor: an error of Yoga's graphql copy is passed through unmasked.
  return createGraphQLError(message, { extensions: { ...extensions, ...http } });
}
