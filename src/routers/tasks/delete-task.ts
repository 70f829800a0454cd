import { z } from 'zod';
import { deleteTask } from '../../services/tasks/delete-task.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { ifMatchHeaderSchema, readHeader } from '../../schemas/headers.ts';
import { taskIdInputSchema } from '../../schemas/tasks.ts';

export const deleteTaskProcedure = publicProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/api/tasks/{id}',
      tags: ['tasks'],
      summary: 'Delete a task',
      requestHeaders: ifMatchHeaderSchema,
      errorResponses: [404, 412, 422],
    },
    http: { successStatus: 204 },
    access: { rateLimit: 'task-writes' },
  })
  .input(taskIdInputSchema)
  .output(z.void())
  .mutation(async ({ ctx, input }) => {
    await deleteTask({ ctx: ctx.service, input: { id: input.id, ifMatch: readHeader(ifMatchHeaderSchema, 'if-match', ctx.request.headers) } });
  });
