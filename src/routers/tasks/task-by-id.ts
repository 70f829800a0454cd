import { getTask } from '../../services/tasks/get-task.ts';
import { toTaskV1 } from '../../services/tasks/task-representation.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { taskIdInputSchema, taskSchema } from '../../schemas/tasks.ts';

/** docs/spec/SPEC.md, "Procedure endpoints": one task in the version 1 shape; NOT_FOUND when missing. */
export const taskByIdProcedure = publicProcedure
  .input(taskIdInputSchema)
  .output(taskSchema)
  .query(async ({ ctx, input }) => toTaskV1(await getTask({ ctx: ctx.service, input })));
