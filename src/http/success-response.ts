import { entityTagOf } from '../lib/entity-tag.ts';
import type { HttpMeta } from './http-meta.ts';

export interface SuccessResponse {
  status: number;
  /** The representation headers: Content-Type, and Location and ETag when the route has them. */
  headers: Record<string, string>;
  /** Undefined for a 204. */
  body: string | undefined;
}

/**
 * The exact answer a REST route gives for a procedure's output. The REST
 * adapter sends it and the idempotency middleware stores it, so a replay is
 * byte for byte the first answer.
 */
export function successResponseOf(http: HttpMeta, data: unknown, procedureHeaders: Record<string, string>): SuccessResponse {
  const status = http.successStatus ?? 200;
  if (status === 204) return { status, headers: {}, body: undefined };
  const body = http.contentType ? String(data) : JSON.stringify(data);
  const headers: Record<string, string> = { 'Content-Type': http.contentType ?? 'application/json' };
  if (procedureHeaders.Location) headers.Location = procedureHeaders.Location;
  if (http.entityTag) headers.ETag = entityTagOf(body);
  return { status, headers, body };
}
