import type { TaskRow } from '../../services/tasks/task-representation.ts';
import { listTasks } from '../../services/tasks/list-tasks.ts';
import type { Context } from '../../procedures/context.ts';
import type { ListTasksQuery } from '../../schemas/tasks.ts';

/**
 * One page of the list for either version: calls the service and sets the
 * Link header (docs/spec/SPEC.md listing rule 7) pointing at `listPath`.
 */
export async function taskListPage<T>(
  ctx: Context,
  query: ListTasksQuery,
  listPath: string,
  present: (row: TaskRow) => T,
): Promise<{ items: T[]; nextCursor: string | null; nextOffset?: number }> {
  const page = await listTasks({
    ctx: ctx.service,
    input: {
      done: query.done === undefined ? undefined : query.done === 'true',
      limit: query.limit,
      cursor: query.cursor,
      offset: query.offset,
    },
  });
  if (page.nextCursor !== null) {
    const next = new URLSearchParams();
    if (query.done !== undefined) next.set('done', query.done);
    next.set('limit', String(query.limit));
    next.set('cursor', page.nextCursor);
    ctx.response.headers.Link = `<${listPath}?${next.toString()}>; rel="next"`;
  }
  return {
    items: page.rows.map(present),
    nextCursor: page.nextCursor,
    ...(page.nextOffset !== undefined ? { nextOffset: page.nextOffset } : {}),
  };
}
