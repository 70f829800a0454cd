import { parseEntityTagList } from '../../lib/entity-tag.ts';
import { toTaskV1 } from '../../services/tasks/task-representation.ts';
import { updateTask } from '../../services/tasks/update-task.ts';
import { publicProcedure } from '../../trpc.ts';
import { ifMatchHeaderSchema } from '../common/schemas.ts';
import { taskPatchSchema, taskSchema } from './task-schemas.ts';

export const updateTaskProcedure = publicProcedure
  .meta({
    openapi: {
      method: 'PATCH',
      path: '/api/tasks/{id}',
      tags: ['tasks'],
      summary: 'Change some fields of a task',
      description: 'With If-Match, the change applies only if the task still has one of those ETags.',
      requestHeaders: ifMatchHeaderSchema,
      errorResponses: [400, 404, 412, 413, 422],
    },
    http: { entityTag: true },
    access: { rateLimit: 'task-writes' },
  })
  .input(taskPatchSchema)
  .output(taskSchema)
  .mutation(async ({ ctx, input }) => {
    const ifMatch = parseEntityTagList(ctx.request.headers['if-match']);
    return toTaskV1(await updateTask({ ctx: ctx.service, input: { ...input, ifMatch } }));
  });
