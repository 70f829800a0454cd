import type { ReservedSql, Sql } from 'postgres';
import type { StatementMode } from './statement-mode.ts';

/** The failure of a transaction whose COMMIT the server answered as a rollback. */
const TRANSACTION_ROLLED_BACK = 'TRANSACTION_ROLLED_BACK';

/** SQLSTATE of a write on a server that accepts only reads: a standby, or a primary being demoted. */
const READ_ONLY_TRANSACTION = '25006';

/**
 * Runs `work` between BEGIN and COMMIT on a connection reserved for it, and
 * acknowledges only a COMMIT the server confirms as a commit.
 *
 * Statements of a write are pipelined (ADR 6): the COMMIT may reach the
 * server behind a statement that failed, and PostgreSQL answers a COMMIT of
 * an aborted transaction with the command tag ROLLBACK and no error. Most
 * such failures reach the work as errors of their own, but not all: the
 * driver re-runs a statement the server no longer knows by name (a pooler
 * that moved the session, a plan invalidated meanwhile) behind the COMMIT,
 * and reports the re-run's success. So the COMMIT's own answer is what says
 * whether the work is stored (docs/spec/DECISIONS.md, "Acknowledged means committed").
 *
 * postgres.js's `begin` reads nothing of its COMMIT's answer: the connection
 * is reserved (its public `reserve`) and the transaction written out here.
 * A connection that finds itself on a read-only server ends its server
 * session, so the driver connects again, to wherever the primary now is.
 */
export async function checkedTransaction<T>(client: Sql, mode: StatementMode, work: (connection: ReservedSql) => T | PromiseLike<T>): Promise<T> {
  const connection = await client.reserve();
  let open = true;
  try {
    // Sent now, ahead of the work's statements; its failure is theirs too, and is read with theirs.
    const begun = connection.unsafe(mode.beginText).execute();
    begun.catch(ignore);
    const result = await work(connection);
    // Sent behind the work's statements without waiting for BEGIN's answer: one round trip for a write that reads nothing back.
    const committing = connection.unsafe('commit').execute();
    committing.catch(ignore);
    open = false;
    await begun;
    const commit = await committing;
    if (commit.command !== 'COMMIT') {
      throw Object.assign(new Error(`The transaction's COMMIT was answered ${commit.command}: a statement before it failed`), { code: TRANSACTION_ROLLED_BACK });
    }
    return result;
  } catch (error) {
    if (codeOf(error) === READ_ONLY_TRANSACTION) {
      open = false;
      await connection.unsafe('select pg_terminate_backend(pg_backend_pid())').catch(ignore);
    }
    if (open) await connection.unsafe('rollback').catch(ignore);
    throw error;
  } finally {
    connection.release();
  }
}

function codeOf(error: unknown): unknown {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (code) return code;
  }
  return undefined;
}

function ignore(): void {}
