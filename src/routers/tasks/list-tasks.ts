import { toTaskV1 } from '../../services/tasks/task-representation.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { taskListPage } from './task-list-page.ts';
import { ifNoneMatchHeaderSchema } from '../../schemas/headers.ts';
import { listTasksQuerySchema, taskPageSchema } from '../../schemas/tasks.ts';

export const listTasksProcedure = publicProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/api/tasks',
      tags: ['tasks'],
      summary: 'List tasks, newest first',
      description: 'Cursor paging by default; pass `offset` for offset paging. Conditional with If-None-Match.',
      requestHeaders: ifNoneMatchHeaderSchema,
      errorResponses: [422],
    },
    http: {
      entityTag: true,
      responseHeaders: { Link: { description: 'rel="next" link to the following page, when there is one' } },
    },
  })
  .input(listTasksQuerySchema)
  .output(taskPageSchema)
  .query(({ ctx, input }) => taskListPage(ctx, input, '/api/tasks', toTaskV1));
