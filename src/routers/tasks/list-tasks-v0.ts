import { z } from 'zod';
import { listTasks } from '../../services/tasks/list-tasks.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { VERSION_0_HEADERS } from '../../schemas/api-versions.ts';
import { uuidSchema } from '../../schemas/text.ts';

const taskV0Schema = z.object({ id: uuidSchema, title: z.string(), done: z.boolean() });

export const listTasksV0Procedure = publicProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/api/v0/tasks',
      tags: ['tasks'],
      summary: 'The newest 20 tasks (retired version 0)',
      description: 'Deprecated: use GET /api/tasks. Keeps working until the Sunset date.',
      deprecated: true,
    },
    http: { fixedHeaders: VERSION_0_HEADERS },
  })
  .input(z.void())
  .output(z.object({ tasks: z.array(taskV0Schema) }).meta({ id: 'TaskListV0' }))
  .query(async ({ ctx }) => {
    const page = await listTasks({ ctx: ctx.service, input: { limit: 20 } });
    return { tasks: page.rows.map((row) => ({ id: row.id, title: row.title, done: row.done })) };
  });
