import type { ServerResponse } from 'node:http';

/**
 * Adds a field to the response's Vary instead of replacing it: CORS varies by
 * Origin, compression by Accept-Encoding, a task by API-Version, at once.
 */
export function appendVary(res: ServerResponse, field: string): void {
  const current = res.getHeader('Vary');
  if (current === undefined) {
    res.setHeader('Vary', field);
    return;
  }
  const fields = String(current)
    .split(',')
    .map((name) => name.trim());
  if (fields.some((name) => name.toLowerCase() === field.toLowerCase())) return;
  res.setHeader('Vary', `${String(current)}, ${field}`);
}
