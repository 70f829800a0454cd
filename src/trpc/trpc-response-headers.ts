import type { ServerResponse } from 'node:http';
import { toAppError } from '../errors/to-app-error.ts';
import type { Context } from '../procedures/context.ts';

/**
 * The headers a tRPC answer carries besides tRPC's own: what the procedure
 * earned (RateLimit, Location…), the replay marker, and what its failures
 * carry (Retry-After, WWW-Authenticate). A Vary already set (CORS's Origin)
 * is kept as a value added to tRPC's own list.
 */
export function trpcResponseHeaders(ctx: Context, res: ServerResponse, errors: readonly unknown[]): Record<string, string | string[]> {
  const { response } = ctx;
  const headers: Record<string, string | string[]> = { ...response.headers };
  if (response.idempotent?.replayed) headers['Idempotent-Replayed'] = 'true';
  for (const error of errors) Object.assign(headers, toAppError(error).headers);
  const vary = res.getHeader('Vary');
  if (vary !== undefined) headers.Vary = [String(vary)];
  return headers;
}
