import { and, count, gt, isNull, sql } from 'drizzle-orm';
import { apiKeys, tasks } from '../../db/schema/index.ts';
import { nowInMilliseconds, type ServiceContext } from '../service-context.ts';

export interface Stats {
  tasks: { total: number; open: number; done: number };
  activeKeys: number;
}

export async function getStats({ ctx }: { ctx: ServiceContext }): Promise<Stats> {
  const now = nowInMilliseconds(ctx);
  const [[taskCounts], [keyCounts]] = await Promise.all([
    ctx.db
      .select({
        open: sql<number>`count(*) filter (where not ${tasks.done})`.mapWith(Number),
        done: sql<number>`count(*) filter (where ${tasks.done})`.mapWith(Number),
      })
      .from(tasks),
    ctx.db
      .select({ active: count() })
      .from(apiKeys)
      .where(and(isNull(apiKeys.revokedAt), gt(apiKeys.expiresAt, now))),
  ]);
  const open = taskCounts?.open ?? 0;
  const done = taskCounts?.done ?? 0;
  return { tasks: { total: open + done, open, done }, activeKeys: keyCounts?.active ?? 0 };
}
