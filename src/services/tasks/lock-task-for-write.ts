import { eq } from 'drizzle-orm';
import { tasks, type TaskRow } from '../../db/schema/index.ts';
import { AppError } from '../../errors/app-error.ts';
import { isEmptyList, listMatches, type EntityTagList } from '../../lib/entity-tag.ts';
import type { ServiceContext } from '../service-context.ts';
import { taskNotFound } from './get-task.ts';
import { taskEntityTag } from './task-representation.ts';

/**
 * Locks the task's row for the rest of the transaction and checks If-Match
 * against the version the lock sees (docs/spec/SPEC.md write rules 1–3): a writer that
 * waited for the lock compares against the row as the first writer left it,
 * so of concurrent writers holding one ETag exactly one succeeds.
 */
export async function lockTaskForWrite(ctx: ServiceContext, id: string, ifMatch: EntityTagList): Promise<TaskRow> {
  const [row] = await ctx.db.select().from(tasks).where(eq(tasks.id, id)).for('update');
  if (!row) throw taskNotFound(id);
  if (!isEmptyList(ifMatch) && !listMatches(ifMatch, taskEntityTag(row))) {
    throw new AppError('precondition-failed', {
      detail: `Task ${id} has changed since the version in If-Match; fetch it again and retry.`,
      headers: { ETag: taskEntityTag(row) },
    });
  }
  return row;
}
