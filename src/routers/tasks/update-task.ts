import { toTaskV1 } from '../../services/tasks/task-representation.ts';
import { updateTask } from '../../services/tasks/update-task.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { ifMatchHeaderSchema, readHeader } from '../../schemas/headers.ts';
import { taskPatchSchema, taskSchema } from '../../schemas/tasks.ts';

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
    const ifMatch = readHeader(ifMatchHeaderSchema, 'if-match', ctx.request.headers);
    return toTaskV1(await updateTask({ ctx: ctx.service, input: { ...input, ifMatch } }));
  });
