import { z } from 'zod';
import { listTasks } from '../../services/tasks/list-tasks.ts';
import { toTaskV1 } from '../../services/tasks/task-representation.ts';
import { publicProcedure } from '../../trpc.ts';
import { newestLimitSchema, taskSchema } from './task-schemas.ts';

/** SPEC "Procedure endpoints": the newest tasks, version 1 shape, newest first. */
export const newestTasksProcedure = publicProcedure
  .input(z.strictObject({ limit: newestLimitSchema }).default({ limit: 5 }))
  .output(z.array(taskSchema))
  .query(async ({ ctx, input }) => {
    const page = await listTasks({ ctx: ctx.service, input: { limit: input.limit } });
    return page.rows.map(toTaskV1);
  });
