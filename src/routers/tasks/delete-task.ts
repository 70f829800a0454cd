import { z } from 'zod';
import { parseEntityTagList } from '../../lib/entity-tag.ts';
import { deleteTask } from '../../services/tasks/delete-task.ts';
import { publicProcedure } from '../../trpc.ts';
import { ifMatchHeaderSchema } from '../common/schemas.ts';
import { taskIdInputSchema } from './task-schemas.ts';

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
    await deleteTask({ ctx: ctx.service, input: { id: input.id, ifMatch: parseEntityTagList(ctx.request.headers['if-match']) } });
  });
