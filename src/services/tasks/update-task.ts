import { eq } from 'drizzle-orm';
import { tasks, type TaskRow } from '../../db/schema/index.ts';
import type { EntityTagList } from '../../lib/entity-tag.ts';
import { nowInMilliseconds, withTransaction, type ServiceContext } from '../service-context.ts';
import { lockTaskForWrite } from './lock-task-for-write.ts';

export interface UpdateTaskInput {
  id: string;
  title?: string | undefined;
  done?: boolean | undefined;
  ifMatch: EntityTagList;
}

/** Applies a partial update; every success moves updatedAt forward. */
export async function updateTask({ ctx, input }: { ctx: ServiceContext; input: UpdateTaskInput }): Promise<TaskRow> {
  const now = nowInMilliseconds(ctx);
  return withTransaction(ctx, async (tx) => {
    const current = await lockTaskForWrite(tx, input.id, input.ifMatch);
    // Strictly later than the previous value, so every update yields a new
    // ETag even when it lands in the same millisecond as the last one.
    const updatedAt = new Date(Math.max(now.getTime(), current.updatedAt.getTime() + 1));
    const [row] = await tx.db
      .update(tasks)
      .set({
        ...(input.title !== undefined ? { title: input.title } : {}),
        ...(input.done !== undefined ? { done: input.done } : {}),
        updatedAt,
      })
      .where(eq(tasks.id, input.id))
      .returning();
    return row!;
  });
}
