import type { ServerResponse } from 'node:http';
import type { AppError } from '../errors/app-error.ts';

/** The RFC 9457 body of SPEC "Problem". */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance: string;
  errors?: { path: string; message: string }[];
}

export function toProblemBody(error: AppError, baseUrl: string, instance: string): ProblemBody {
  return {
    type: `${baseUrl}/problems/${error.slug}`,
    title: error.title,
    status: error.status,
    ...(error.detail !== undefined ? { detail: error.detail } : {}),
    instance,
    ...(error.errors !== undefined ? { errors: error.errors } : {}),
  };
}

/** Writes an AppError as application/problem+json with the headers it carries. */
export function writeProblem(res: ServerResponse, error: AppError, baseUrl: string, instance: string): void {
  const body = JSON.stringify(toProblemBody(error, baseUrl, instance));
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.statusCode = error.status;
  res.setHeader('Content-Type', 'application/problem+json');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
