import { eq, sql } from 'drizzle-orm';
import { tasks, type TaskRow } from '../../db/schema/index.ts';
import { AppError } from '../../errors/app-error.ts';
import { compiledQuery } from '../../db/compiled-statement.ts';
import type { ServiceContext } from '../service-context.ts';

const TASK_BY_ID = compiledQuery((db) => db.select().from(tasks).where(eq(tasks.id, sql.placeholder('id'))));

export async function getTask({ ctx, input }: { ctx: ServiceContext; input: { id: string } }): Promise<TaskRow> {
  const [row] = await TASK_BY_ID.run(ctx.db, { id: input.id });
  if (!row) throw taskNotFound(input.id);
  return row;
}

export function taskNotFound(id: string): AppError {
  return new AppError('not-found', { detail: `No task with id ${id}.` });
}
