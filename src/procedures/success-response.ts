import { entityTagOf } from '../lib/entity-tag.ts';
import type { StoredResponse } from '../services/idempotency/idempotency-records.ts';
import type { HttpMeta } from './http-meta.ts';

/**
 * A procedure's answer as REST sends it: status, the representation headers
 * (Content-Type, and Location and ETag when the route has them) and the body
 * text ('' for a 204). The REST adapter sends it and an idempotent procedure
 * stores it, so a replay is byte for byte the first answer. The ETag is the
 * tag of the body text; a task's If-Match compares against the same tag,
 * taken from the same object (services/tasks/task-representation.ts).
 */
export function successResponseOf(http: HttpMeta, data: unknown, procedureHeaders: Record<string, string>): StoredResponse {
  const status = http.successStatus ?? 200;
  if (status === 204) return { status, headers: {}, body: '' };
  const body = http.contentType ? String(data) : JSON.stringify(data);
  const headers: Record<string, string> = { 'Content-Type': http.contentType ?? 'application/json' };
  if (procedureHeaders.Location) headers.Location = procedureHeaders.Location;
  if (http.entityTag) headers.ETag = entityTagOf(body);
  return { status, headers, body };
}
