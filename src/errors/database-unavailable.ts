import { AppError } from './app-error.ts';

/** postgres.js's own codes when it cannot reach or keep the server. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
]);

/**
 * Whether a failure means the database is out of reach rather than our code
 * being wrong: a lost or refused connection, a server shutting down or not
 * accepting connections (SQLSTATE 08xxx, 57P01–57P03), or a statement that
 * ran into its timeout (57014). Drizzle wraps driver errors, so the causes
 * are followed.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    if (CONNECTION_CODES.has(code) || code.startsWith('08') || ['57P01', '57P02', '57P03', '57014'].includes(code)) return true;
  }
  return false;
}

export function databaseUnavailable(cause: unknown): AppError {
  return new AppError('unavailable', {
    detail: 'The database cannot be reached right now; retry in a moment.',
    headers: { 'Retry-After': '1' },
    cause,
  });
}
