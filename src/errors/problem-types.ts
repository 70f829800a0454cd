import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';

/** A problem type and how each transport names it: problem+json's status and title, tRPC's code, GraphQL's `extensions.code`. */
interface ProblemType {
  status: number;
  title: string;
  trpc: TRPC_ERROR_CODE_KEY;
  graphql: string;
  /** Seconds a client should wait before retrying, sent as Retry-After with every problem of the type. */
  retryAfter?: number;
}

/**
 * The closed set of problem types (docs/spec/SPEC.md, "Errors", docs/spec/DECISIONS.md, "Problems").
 * Every failure the service reports is one of these, on every transport.
 */
export const problemTypes = {
  validation: { status: 422, title: "Your request isn't valid", trpc: 'BAD_REQUEST', graphql: 'BAD_USER_INPUT' },
  'bad-request': { status: 400, title: "The request body isn't valid JSON", trpc: 'BAD_REQUEST', graphql: 'BAD_REQUEST' },
  'not-found': { status: 404, title: 'Not found', trpc: 'NOT_FOUND', graphql: 'NOT_FOUND' },
  unauthorized: { status: 401, title: 'Authentication required', trpc: 'UNAUTHORIZED', graphql: 'UNAUTHENTICATED' },
  forbidden: { status: 403, title: 'Not allowed', trpc: 'FORBIDDEN', graphql: 'FORBIDDEN' },
  'unsupported-version': { status: 400, title: 'Unsupported API version', trpc: 'BAD_REQUEST', graphql: 'BAD_REQUEST' },
  'precondition-failed': { status: 412, title: 'The resource has changed', trpc: 'PRECONDITION_FAILED', graphql: 'BAD_REQUEST' },
  'idempotency-key-missing': { status: 400, title: 'Idempotency-Key header required', trpc: 'BAD_REQUEST', graphql: 'BAD_REQUEST' },
  'request-in-progress': { status: 409, title: 'A request with this key is still in progress', trpc: 'CONFLICT', graphql: 'BAD_REQUEST', retryAfter: 1 },
  'idempotency-key-reused': { status: 422, title: 'Idempotency key reused with a different request', trpc: 'UNPROCESSABLE_CONTENT', graphql: 'BAD_REQUEST' },
  unavailable: { status: 503, title: 'Service unavailable', trpc: 'SERVICE_UNAVAILABLE', graphql: 'SERVICE_UNAVAILABLE' },
  internal: { status: 500, title: 'Something went wrong on our side', trpc: 'INTERNAL_SERVER_ERROR', graphql: 'INTERNAL_SERVER_ERROR' },
  'rate-limited': { status: 429, title: 'Too many requests', trpc: 'TOO_MANY_REQUESTS', graphql: 'RATE_LIMITED' },
  'payload-too-large': { status: 413, title: 'Request body too large', trpc: 'PAYLOAD_TOO_LARGE', graphql: 'BAD_REQUEST' },
} as const satisfies Record<string, ProblemType>;

export type ProblemSlug = keyof typeof problemTypes;
