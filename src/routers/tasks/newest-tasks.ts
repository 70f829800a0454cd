import { z } from 'zod';
import { listTasks } from '../../services/tasks/list-tasks.ts';
import { toTaskV1 } from '../../services/tasks/task-representation.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { PAGE_SIZES } from '../../schemas/page-size.ts';
import { newestLimitSchema, taskSchema } from '../../schemas/tasks.ts';

/** docs/spec/SPEC.md, "Procedure endpoints": the newest tasks, version 1 shape, newest first. */
export const newestTasksProcedure = publicProcedure
  .input(z.strictObject({ limit: newestLimitSchema }).default({ limit: PAGE_SIZES.newestTasks.default }))
  .output(z.array(taskSchema))
  .query(async ({ ctx, input }) => {
    const page = await listTasks({ ctx: ctx.service, input: { limit: input.limit } });
    return page.rows.map(toTaskV1);
  });
