import { AppError } from '../../errors/app-error.ts';
import type { ServiceContext } from '../service-context.ts';

/** The realm of every challenge: the host of BASE_URL (docs/spec/DECISIONS.md). */
function realmOf(ctx: ServiceContext): string {
  return new URL(ctx.settings.baseUrl).host;
}

/** RFC 6750 §3: `Bearer realm="…"` followed by any auth-params given. */
function challenge(ctx: ServiceContext, params: Record<string, string> = {}): string {
  const quoted = [`realm="${realmOf(ctx)}"`, ...Object.entries(params).map(([name, value]) => `${name}="${value.replace(/["\\]/g, '\\$&')}"`)];
  return `Bearer ${quoted.join(', ')}`;
}

const MALFORMED_AUTHORIZATION = 'Use Authorization: Bearer <key or token>';
export const INVALID_API_KEY = 'Unknown, revoked or expired API key';
export const INVALID_TOKEN = 'Invalid or expired token';
const CREDENTIALS_REQUIRED = 'This endpoint needs an API key or token';

/** A header with another scheme or no credential: no error code (RFC 6750 §3.1). */
export function malformedAuthorization(ctx: ServiceContext): AppError {
  return new AppError('unauthorized', {
    detail: MALFORMED_AUTHORIZATION,
    headers: { 'WWW-Authenticate': challenge(ctx) },
  });
}

/** A credential that failed verification, even on a public endpoint. */
export function invalidCredential(ctx: ServiceContext, detail: typeof INVALID_API_KEY | typeof INVALID_TOKEN): AppError {
  return new AppError('unauthorized', {
    detail,
    headers: { 'WWW-Authenticate': challenge(ctx, { error: 'invalid_token', error_description: detail }) },
  });
}

/** No credentials on an endpoint that needs them. */
export function credentialsRequired(ctx: ServiceContext): AppError {
  return new AppError('unauthorized', {
    detail: CREDENTIALS_REQUIRED,
    headers: { 'WWW-Authenticate': challenge(ctx) },
  });
}

export function insufficientScope(ctx: ServiceContext, scope: string): AppError {
  return new AppError('forbidden', {
    detail: `This endpoint needs the scope ${scope}.`,
    headers: { 'WWW-Authenticate': challenge(ctx, { error: 'insufficient_scope', scope }) },
  });
}
