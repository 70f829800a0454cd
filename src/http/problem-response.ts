import type { ServerResponse } from 'node:http';
import type { AppError } from '../errors/app-error.ts';
import { writeBody } from './write-body.ts';

/** The RFC 9457 body of docs/spec/SPEC.md, "Problem". */
interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance: string;
  errors?: { path: string; message: string }[];
}

export interface ProblemPlace {
  baseUrl: string;
  /** The request's path. */
  instance: string;
  /** Quoted in an unexpected failure's detail, so a report can be matched to the log. */
  requestId: string;
}

/** The renderer of problem+json: any AppError, an unexpected failure without its own words. */
function toProblemBody(error: AppError, place: ProblemPlace): ProblemBody {
  const detail = error.slug === 'internal' ? `Quote request id ${place.requestId} when you report this.` : error.detail;
  const { baseUrl, instance } = place;
  return {
    type: `${baseUrl}/problems/${error.slug}`,
    title: error.title,
    status: error.status,
    ...(detail !== undefined ? { detail } : {}),
    instance,
    ...(error.errors !== undefined ? { errors: error.errors } : {}),
  };
}

/** Writes an AppError as application/problem+json with the headers it carries. */
export function writeProblem(res: ServerResponse, error: AppError, place: ProblemPlace): void {
  const body = JSON.stringify(toProblemBody(error, place));
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/problem+json');
  writeBody(res, error.status, body);
}
