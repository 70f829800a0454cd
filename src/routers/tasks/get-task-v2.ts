import { getTask } from '../../services/tasks/get-task.ts';
import { toTaskV2 } from '../../services/tasks/task-representation.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { taskIdInputSchema, taskV2Schema } from '../../schemas/tasks.ts';

export const getTaskV2Procedure = publicProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/api/v2/tasks/{id}',
      tags: ['tasks'],
      summary: 'Read a task in the version 2 representation',
      errorResponses: [404, 422],
    },
  })
  .input(taskIdInputSchema)
  .output(taskV2Schema)
  .query(async ({ ctx, input }) => toTaskV2(await getTask({ ctx: ctx.service, input })));
