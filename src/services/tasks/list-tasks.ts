import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import { compiledQuery } from '../../db/compiled-statement.ts';
import { tasks, type TaskRow } from '../../db/schema/index.ts';
import type { ServiceContext } from '../service-context.ts';
import { decodeTaskCursor, encodeTaskCursor } from './task-cursor.ts';
import { isoTimestampOf } from '../../lib/iso-timestamp.ts';

export interface ListTasksInput {
  done?: boolean | undefined;
  limit: number;
  cursor?: string | undefined;
  offset?: number | undefined;
}

export interface TaskListPage {
  rows: TaskRow[];
  /** Set only in cursor mode when more rows follow. */
  nextCursor: string | null;
  /** Set only in offset mode when more rows follow. */
  nextOffset: number | undefined;
}

/** SPEC's list order: newest first, ties by id; the cursor compares the same pair. */
const NEWEST_FIRST = [desc(tasks.createdAt), desc(tasks.id)] as const;

/** The first page of the whole list: the hot path. */
const NEWEST_TASKS = compiledQuery((db) => db.select().from(tasks).orderBy(...NEWEST_FIRST).limit(sql.placeholder('limit')));

/** Newest first, by cursor or by offset (SPEC listing rules 1–8). */
export async function listTasks({ ctx, input }: { ctx: ServiceContext; input: ListTasksInput }): Promise<TaskListPage> {
  const conditions: SQL[] = [];
  if (input.done !== undefined) conditions.push(eq(tasks.done, input.done));
  if (input.cursor !== undefined) {
    const after = decodeTaskCursor(input.cursor);
    conditions.push(sql`(${tasks.createdAt}, ${tasks.id}) < (${isoTimestampOf(after.createdAt)}::timestamptz, ${after.id}::uuid)`);
  }
  const offsetMode = input.offset !== undefined;
  const fetched = conditions.length === 0 && !offsetMode
    ? await NEWEST_TASKS.run(ctx.db, { limit: input.limit + 1 })
    : await ctx.db
    .select()
    .from(tasks)
    .where(and(...conditions))
    .orderBy(...NEWEST_FIRST)
    .limit(input.limit + 1)
    .offset(input.offset ?? 0);
  const hasMore = fetched.length > input.limit;
  const rows = hasMore ? fetched.slice(0, input.limit) : fetched;
  const last = rows.at(-1);
  return {
    rows,
    nextCursor: hasMore && !offsetMode && last ? encodeTaskCursor(last) : null,
    nextOffset: hasMore && offsetMode ? (input.offset ?? 0) + input.limit : undefined,
  };
}
