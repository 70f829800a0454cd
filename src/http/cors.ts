import type { IncomingMessage } from 'node:http';
import type { CorsOrigins } from '../config.ts';
import type { ResponseHeaders } from './response-headers.ts';
import { appendVaryTo } from './vary.ts';

/** What a page on another origin may read of our answers (docs/spec/DECISIONS.md, "Browser clients (CORS)"). */
export const EXPOSED_HEADERS =
  'ETag, Location, Link, Retry-After, RateLimit, RateLimit-Policy, X-Request-Id, Idempotent-Replayed, API-Version, Deprecation, Sunset, WWW-Authenticate';

/** A preflight's answer besides Access-Control-Allow-Origin: the same for every path. */
export const PREFLIGHT_HEADERS = {
  'Access-Control-Allow-Methods': 'GET, HEAD, POST, PATCH, DELETE',
  'Access-Control-Allow-Headers':
    'Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, API-Version, Last-Event-ID, X-Request-Id',
  'Access-Control-Max-Age': '600',
} as const;

/**
 * Adds the CORS headers to the headers of a response under /api. Returns true
 * when the request is a preflight: its answer is 204 with those headers and
 * PREFLIGHT_HEADERS.
 */
export type ApplyCors = (req: IncomingMessage, headers: ResponseHeaders) => boolean;

/**
 * Bearer tokens, never cookies, so no Allow-Credentials: with `*`, every
 * response says `*` (as GitHub's API does), so caches need no Vary; a list
 * echoes the request's Origin when listed, and every response varies by it.
 * `none`, or an origin not listed, leaves the answer as it would be without
 * CORS: an OPTIONS is then routed like any other method.
 */
export function createCors(setting: CorsOrigins): ApplyCors {
  if (setting.allow === 'none') return () => false;
  const allowedOrigin =
    setting.allow === 'any'
      ? () => '*'
      : (origin: string | undefined) => (origin !== undefined && setting.origins.has(origin) ? origin : undefined);

  return (req, headers) => {
    const origin = req.headers.origin;
    if (setting.allow === 'listed') appendVaryTo(headers, 'Origin');
    const allowed = allowedOrigin(origin);
    if (allowed === undefined) return false;
    headers['Access-Control-Allow-Origin'] = allowed;
    if (req.method === 'OPTIONS' && origin !== undefined && req.headers['access-control-request-method'] !== undefined) {
      Object.assign(headers, PREFLIGHT_HEADERS);
      return true;
    }
    headers['Access-Control-Expose-Headers'] = EXPOSED_HEADERS;
    return false;
  };
}
