import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { compiledQuery } from '../../db/compiled-statement.ts';
import { tasks, type TaskRow } from '../../db/schema/index.ts';
import { ADVISORY_LOCKS, keepNewest, retainFirstBeforeCommit } from '../retention.ts';
import { nowInMilliseconds, withTransaction, type ServiceContext } from '../service-context.ts';

/** docs/spec/SPEC.md, "Retention": only the newest 200 tasks are kept. */
export const TASKS_RETAINED = 200;

const TASK_RETENTION = keepNewest({ table: tasks, keep: TASKS_RETAINED, lockId: ADVISORY_LOCKS.tasks });

const INSERT_TASK = compiledQuery((db) =>
  db.insert(tasks).values({
    id: sql.placeholder('id'),
    title: sql.placeholder('title'),
    done: sql.placeholder('done'),
    createdAt: sql.placeholder('createdAt'),
    updatedAt: sql.placeholder('updatedAt'),
  }),
);

export interface CreateTaskInput {
  title: string;
  done?: boolean | undefined;
}

/**
 * Stores a task and trims the collection to the newest 200 in the same
 * transaction. The row stored is the row given (every column is ours and text
 * is stored as it is sent), so nothing is read back and the work waits for
 * neither statement: the COMMIT follows them without waiting for their
 * answers (see withTransaction).
 */
export async function createTask({ ctx, input }: { ctx: ServiceContext; input: CreateTaskInput }): Promise<TaskRow> {
  const now = nowInMilliseconds(ctx);
  const row: TaskRow = { id: randomUUID(), title: input.title, done: input.done ?? false, createdAt: now, updatedAt: now };
  return withTransaction(ctx, async (tx) => {
    tx.beforeCommit(INSERT_TASK.run(tx.db, row));
    retainFirstBeforeCommit(tx, TASK_RETENTION);
    return row;
  });
}
