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

const titles: Record<string, string> = {
  validation: "Your request isn't valid",
  'bad-request': "The request body isn't valid JSON",
  'not-found': 'Not found',
  'unsupported-version': 'Unsupported API version',
  'precondition-failed': 'The resource has changed',
  internal: 'Something went wrong on our side',
  'payload-too-large': 'Request body too large',
};

/** Asserts an RFC 9457 answer of DECISIONS "Problems" and returns its body. */
export function expectProblem(response: JsonResponse, baseUrl: string, slug: string, status: number, instance: string): Problem {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  const problem = response.body as Problem;
  expect(problem.type).toBe(`${baseUrl}/problems/${slug}`);
  expect(problem.title).toBe(titles[slug]);
  expect(problem.status).toBe(status);
  expect(problem.instance).toBe(instance);
  return problem;
}
