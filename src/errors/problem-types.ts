/**
 * The closed set of problem types (SPEC "Errors", DECISIONS "Problems").
 * Every failure the service reports is one of these, on every transport.
 */
export const problemTypes = {
  validation: { status: 422, title: "Your request isn't valid" },
  'bad-request': { status: 400, title: "The request body isn't valid JSON" },
  'not-found': { status: 404, title: 'Not found' },
  unauthorized: { status: 401, title: 'Authentication required' },
  forbidden: { status: 403, title: 'Not allowed' },
  'unsupported-version': { status: 400, title: 'Unsupported API version' },
  'precondition-failed': { status: 412, title: 'The resource has changed' },
  'idempotency-key-missing': { status: 400, title: 'Idempotency-Key header required' },
  'request-in-progress': { status: 409, title: 'A request with this key is still in progress' },
  'idempotency-key-reused': { status: 422, title: 'Idempotency key reused with a different request' },
  unavailable: { status: 503, title: 'Service unavailable' },
  internal: { status: 500, title: 'Something went wrong on our side' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  'payload-too-large': { status: 413, title: 'Request body too large' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemSlug = keyof typeof problemTypes;
