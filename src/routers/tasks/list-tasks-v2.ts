import { toTaskV2 } from '../../services/tasks/task-representation.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { taskListPage } from './task-list-page.ts';
import { listTasksQuerySchema, taskPageV2Schema } from '../../schemas/tasks.ts';

export const listTasksV2Procedure = publicProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/api/v2/tasks',
      tags: ['tasks'],
      summary: 'List tasks in the version 2 representation',
      errorResponses: [422],
    },
    http: {
      responseHeaders: { Link: { description: 'rel="next" link to the following page, when there is one' } },
    },
  })
  .input(listTasksQuerySchema)
  .output(taskPageV2Schema)
  .query(({ ctx, input }) => taskListPage(ctx, input, '/api/v2/tasks', toTaskV2));
