import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { tasks, type TaskRow } from '../../db/schema/index.ts';
import { nowInMilliseconds, withTransaction, type ServiceContext } from '../service-context.ts';

/** SPEC "Retention": only the newest 200 tasks are kept. */
export const TASKS_RETAINED = 200;

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
    await retainNewestTasks(tx);
    return row!;
  });
}

/**
 * Deletes every task beyond the newest 200. Rows another writer holds are
 * skipped rather than waited for: concurrent creators locking overlapping
 * victims in different orders deadlocked (PITFALLS); a skipped row goes with
 * the next creation.
 */
async function retainNewestTasks(ctx: ServiceContext): Promise<void> {
  await ctx.db.execute(sql`
    delete from ${tasks} where ${tasks.id} in (
      select ${tasks.id} from ${tasks}
      order by ${tasks.createdAt} desc, ${tasks.id} desc
      offset ${TASKS_RETAINED}
      for update skip locked
    )`);
}
