import { createTask } from '../../services/tasks/create-task.ts';
import { toTaskV1 } from '../../services/tasks/task-representation.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { newTaskSchema, taskSchema } from '../../schemas/tasks.ts';

/** REST's POST /api/tasks (NewTask: title and done); `tasks.create` is the docs/spec/SPEC.md's RPC form, title only. */
export const addTaskProcedure = publicProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/api/tasks',
      tags: ['tasks'],
      summary: 'Create a task',
      description: 'Only the newest 200 tasks are kept; older ones are deleted after each creation.',
      errorResponses: [400, 413, 422],
    },
    http: {
      successStatus: 201,
      entityTag: true,
      responseHeaders: { Location: { description: 'The new task: /api/tasks/{id}', required: true } },
    },
    access: { rateLimit: 'task-writes' },
  })
  .input(newTaskSchema)
  .output(taskSchema)
  .mutation(async ({ ctx, input }) => {
    const row = await createTask({ ctx: ctx.service, input });
    ctx.response.headers.Location = `/api/tasks/${row.id}`;
    return toTaskV1(row);
  });
