import { createTask } from '../../services/tasks/create-task.ts';
import { toTaskV1 } from '../../services/tasks/task-representation.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { createTaskInputSchema, taskSchema } from '../../schemas/tasks.ts';

/** docs/spec/SPEC.md, "Procedure endpoints": tasks.create over /api/trpc; a task write like POST /api/tasks. */
export const createTaskProcedure = publicProcedure
  .meta({ access: { rateLimit: 'task-writes' } })
  .input(createTaskInputSchema)
  .output(taskSchema)
  .mutation(async ({ ctx, input }) => toTaskV1(await createTask({ ctx: ctx.service, input })));
