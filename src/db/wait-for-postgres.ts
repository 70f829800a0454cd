import type postgres from 'postgres';
import { StartupError } from '../errors/startup-error.ts';

/** SQLSTATEs that no retry will change. */
const DATABASE_MISSING = '3D000';
const AUTHENTICATION_FAILED = new Set(['28P01', '28000']);
const RETRY_PAUSE_MS = 250;
/** SQLSTATE of a connection refused for what it asked, not for where it went: a pooler refusing a startup parameter, say. */
const PROTOCOL_VIOLATION = '08P01';

/** A server (most often a pooler) that refused one of the settings sent at connection start. */
export class RefusedStartupParameter extends StartupError {
  constructor(
    message: string,
    readonly parameter: string,
  ) {
    super(message);
  }
}

/** Where the service connects, for messages: never the password. */
export function describePostgres(url: string): { host: string; port: string; database: string; user: string } {
  const parsed = new URL(url);
  return {
    host: parsed.hostname || 'localhost',
    port: parsed.port || '5432',
    database: decodeURIComponent(parsed.pathname.slice(1)) || decodeURIComponent(parsed.username) || 'postgres',
    user: decodeURIComponent(parsed.username) || 'postgres',
  };
}

/**
 * Start-up's first query, retried while the server is out of reach (it may be
 * starting beside us) for `timeoutMs`; then, or at once for a missing
 * database or refused credentials, a StartupError with one plain line.
 */
export async function waitForPostgres(client: postgres.Sql, url: string, timeoutMs: number): Promise<void> {
  const target = describePostgres(url);
  const where = `${target.host}:${target.port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await client`select 1`;
      return;
    } catch (error) {
      const code = String((error as { code?: unknown }).code ?? '');
      if (code === DATABASE_MISSING) {
        throw new StartupError(
          `PostgreSQL database "${target.database}" does not exist on ${where}: create it with \`createdb -h ${target.host} -p ${target.port} -U ${target.user} ${target.database}\``,
        );
      }
      if (AUTHENTICATION_FAILED.has(code)) {
        throw new StartupError(`PostgreSQL on ${where} refused user "${target.user}": authentication failed (check DATABASE_URL's user and password)`);
      }
      const message = (error as Error).message;
      if (code === PROTOCOL_VIOLATION) {
        const refused = /unsupported startup parameter: (\S+)/.exec(message)?.[1];
        // A pooler passes the server's missing database on in its own code.
        if (/^database ".*" does not exist/.test(message)) {
          throw new StartupError(
            `PostgreSQL on ${where} refused the connection: ${message} (${code}): create it on the PostgreSQL server behind the pooler (\`createdb -U ${target.user} ${target.database}\`), or name it in the pooler's [databases]`,
          );
        }
        const plainly = `PostgreSQL on ${where} refused the connection: ${message} (${code})`;
        throw refused ? new RefusedStartupParameter(plainly, refused) : new StartupError(plainly);
      }
      if (Date.now() + RETRY_PAUSE_MS >= deadline) {
        // The server's own words when it answered (a SQLSTATE); the system's code alone for a connection that never was.
        const reason = /^[0-9A-Z]{5}$/.test(code) ? `${code}: ${message}` : code || message;
        throw new StartupError(`PostgreSQL on ${where} is unreachable after retrying for ${timeoutMs / 1000} s (${reason})`);
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
    }
  }
}
