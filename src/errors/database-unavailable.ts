import { AppError } from './app-error.ts';

/** The code of the failure when no database connection comes free in time (db/connection-gate.ts). */
export const POOL_TIMEOUT = 'POOL_TIMEOUT';
/** The code of the failure when admitted work did not settle in its time (db/connection-gate.ts). */
export const WORK_OVERRUN = 'WORK_OVERRUN';

/** postgres.js's own codes when it cannot reach or keep the server, and ours when no connection comes free. */
const CONNECTION_CODES = new Set([
  POOL_TIMEOUT,
  WORK_OVERRUN,
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  // A transaction's statement still queued when its connection was released: the transaction failed before it, as its connection did (patches/, reserve-releases).
  'RESERVED_RELEASED',
]);

/**
 * Whether a failure means the database is out of reach rather than our code
 * being wrong: a lost or refused connection, a server shutting down or not
 * accepting connections (SQLSTATE 08xxx, 57P01–57P03), a statement that ran
 * into its timeout (57014), a transaction left idle too long (25P03), a
 * write that reached a server no longer primary (25006: a failover under
 * way), or every connection busy for too long. Drizzle wraps driver errors, so the causes
 * are followed.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    if (CONNECTION_CODES.has(code) || code.startsWith('08') || ['57P01', '57P02', '57P03', '57014', '25P03', '25006'].includes(code)) return true;
  }
  return false;
}

const DATABASE_UNAVAILABLE_DETAIL = 'The database cannot be reached right now; retry in a moment.';

/** The Retry-After of the database out of reach: worth retrying in a second. */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

/** The database out of reach: a 503 worth retrying in a second. */
export function databaseUnavailable(cause: unknown, detail = DATABASE_UNAVAILABLE_DETAIL): AppError {
  return new AppError('unavailable', {
    detail,
    headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
    cause,
  });
}
