import { eq } from 'drizzle-orm';
import { tasks } from '../../db/schema/index.ts';
import type { EntityTagList } from '../../lib/entity-tag.ts';
import { withTransaction, type ServiceContext } from '../service-context.ts';
import { lockTaskForWrite } from './lock-task-for-write.ts';

export async function deleteTask({ ctx, input }: { ctx: ServiceContext; input: { id: string; ifMatch: EntityTagList } }): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    await lockTaskForWrite(tx, input.id, input.ifMatch);
    await tx.db.delete(tasks).where(eq(tasks.id, input.id));
  });
}
