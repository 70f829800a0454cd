import { randomUUID } from 'node:crypto';
import { tasks, type TaskRow } from '../../db/schema/index.ts';
import { ADVISORY_LOCKS, keepNewest, retainFirst } from '../retention.ts';
import { nowInMilliseconds, withTransaction, type ServiceContext } from '../service-context.ts';

/** SPEC "Retention": only the newest 200 tasks are kept. */
export const TASKS_RETAINED = 200;

const TASK_RETENTION = keepNewest({ table: tasks, keep: TASKS_RETAINED, lockId: ADVISORY_LOCKS.tasks });

export interface CreateTaskInput {
  title: string;
  done?: boolean | undefined;
}

/** Stores a task and trims the collection to the newest 200 in the same transaction. */
export async function createTask({ ctx, input }: { ctx: ServiceContext; input: CreateTaskInput }): Promise<TaskRow> {
  const now = nowInMilliseconds(ctx);
  return withTransaction(ctx, async (tx) => {
    const [row] = await tx.db
      .insert(tasks)
      .values({ id: randomUUID(), title: input.title, done: input.done ?? false, createdAt: now, updatedAt: now })
      .returning();
    await retainFirst(tx, TASK_RETENTION);
    return row!;
  });
}
