/** The timeouts the service sets on PostgreSQL, in milliseconds. */
export interface SessionTimeouts {
  statementTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
}

/**
 * How the service talks to what DATABASE_URL names. Directly to PostgreSQL,
 * a connection is one server session: statements are prepared by name once
 * per connection, and the timeouts are the session's settings, sent when it
 * starts. Through a pooler that multiplexes transactions (PgBouncer in
 * transaction mode), each transaction may run on another server session:
 * nothing may live in a session, so statements are unnamed and the timeouts
 * come with each transaction (docs/spec/DECISIONS.md, "Transaction pooler").
 */
export interface StatementMode {
  readonly throughPooler: boolean;
  /** Whether statements are prepared by name, once per connection. */
  readonly prepare: boolean;
  /** Sent as one simple query to open a transaction. */
  readonly beginText: string;
  /** Settings sent when a connection starts (postgres.js's `connection` option). */
  readonly startupSettings: Record<string, number>;
}

export function directMode(timeouts: SessionTimeouts): StatementMode {
  return {
    throughPooler: false,
    prepare: true,
    beginText: 'begin',
    startupSettings: {
      // A query that hangs becomes an error instead of a request that never ends…
      statement_timeout: timeouts.statementTimeoutMs,
      // …and a transaction left open by a stalled client gives its locks back.
      idle_in_transaction_session_timeout: timeouts.idleInTransactionTimeoutMs,
    },
  };
}

export function pooledMode(timeouts: SessionTimeouts): StatementMode {
  return {
    throughPooler: true,
    prepare: false,
    // Two integers of our own configuration, never a client's input.
    beginText:
      `begin; set local statement_timeout = ${Math.trunc(timeouts.statementTimeoutMs)}; ` +
      `set local idle_in_transaction_session_timeout = ${Math.trunc(timeouts.idleInTransactionTimeoutMs)}`,
    startupSettings: {},
  };
}
