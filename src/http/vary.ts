import type { ServerResponse } from 'node:http';
import type { ResponseHeaders } from './response-headers.ts';

/**
 * Adds a field to a Vary value instead of replacing it: CORS varies by
 * Origin, compression by Accept-Encoding, a task by API-Version, at once.
 */
function withVaryField(current: string | undefined, field: string): string {
  if (current === undefined) return field;
  const fields = current.split(',').map((name) => name.trim().toLowerCase());
  return fields.includes(field.toLowerCase()) ? current : `${current}, ${field}`;
}

/** On a response whose headers are set one by one. */
export function appendVary(res: ServerResponse, field: string): void {
  const current = res.getHeader('Vary');
  res.setHeader('Vary', withVaryField(current === undefined ? undefined : String(current), field));
}

/** On headers gathered to be written at once. */
export function appendVaryTo(headers: ResponseHeaders, field: string): void {
  headers.Vary = withVaryField(headers.Vary, field);
}
