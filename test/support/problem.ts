import { expect } from 'vitest';
import type { JsonResponse } from './http.ts';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  errors?: { path: string; message: string }[];
}

/** docs/spec/DECISIONS.md, "Problems", copied here on purpose: the tests check the service against the decision, not against itself. */
export const problemTitles: Record<string, string> = {
  validation: "Your request isn't valid",
  'bad-request': "The request body isn't valid JSON",
  'not-found': 'Not found',
  unauthorized: 'Authentication required',
  forbidden: 'Not allowed',
  'unsupported-version': 'Unsupported API version',
  'precondition-failed': 'The resource has changed',
  'idempotency-key-missing': 'Idempotency-Key header required',
  'request-in-progress': 'A request with this key is still in progress',
  'idempotency-key-reused': 'Idempotency key reused with a different request',
  unavailable: 'Service unavailable',
  internal: 'Something went wrong on our side',
  'rate-limited': 'Too many requests',
  'payload-too-large': 'Request body too large',
};

/** Asserts an RFC 9457 answer of docs/spec/DECISIONS.md, "Problems" and returns its body. */
export function expectProblem(response: JsonResponse, baseUrl: string, slug: string, status: number, instance: string): Problem {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  const problem = response.body as Problem;
  expect(problem.type).toBe(`${baseUrl}/problems/${slug}`);
  expect(problem.title).toBe(problemTitles[slug]);
  expect(problem.status).toBe(status);
  expect(problem.instance).toBe(instance);
  return problem;
}
