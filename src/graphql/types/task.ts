import { z } from 'zod';
import { createTaskInputSchema, newestLimitSchema, taskIdInputSchema } from '../../routers/tasks/task-schemas.ts';
import { createTask } from '../../services/tasks/create-task.ts';
import { getTask } from '../../services/tasks/get-task.ts';
import { listTasks } from '../../services/tasks/list-tasks.ts';
import { toTaskV1, type TaskV1 } from '../../services/tasks/task-representation.ts';
import { AppError } from '../../errors/app-error.ts';
import { builder } from '../builder.ts';
import { parseArguments } from '../user-input.ts';

export const TaskType = builder.objectRef<TaskV1>('Task').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    done: t.exposeBoolean('done'),
    createdAt: t.exposeString('createdAt', { description: 'ISO 8601, UTC, millisecond precision' }),
    updatedAt: t.exposeString('updatedAt'),
  }),
});

const tasksArguments = z.object({ limit: newestLimitSchema });

builder.queryFields((t) => ({
  tasks: t.field({
    type: [TaskType],
    description: 'The newest tasks, newest first',
    args: { limit: t.arg.int({ defaultValue: 5, description: '1 to 50' }) },
    resolve: async (_root, args, { ctx }) => {
      const { limit } = parseArguments(tasksArguments, args);
      return (await listTasks({ ctx: ctx.service, input: { limit } })).rows.map(toTaskV1);
    },
  }),
  task: t.field({
    type: TaskType,
    nullable: true,
    description: 'One task, or null when there is none with this id',
    args: { id: t.arg.id({ required: true, description: 'A UUID' }) },
    resolve: async (_root, args, { ctx }) => {
      const input = parseArguments(taskIdInputSchema, { id: String(args.id) });
      try {
        return toTaskV1(await getTask({ ctx: ctx.service, input }));
      } catch (error) {
        if (error instanceof AppError && error.slug === 'not-found') return null;
        throw error;
      }
    },
  }),
}));

builder.mutationFields((t) => ({
  createTask: t.field({
    type: TaskType,
    description: 'Create an open task; the title is trimmed and must hold 1 to 200 characters',
    args: { title: t.arg.string({ required: true }) },
    resolve: async (_root, args, { ctx }) => {
      const input = parseArguments(createTaskInputSchema, args);
      return toTaskV1(await createTask({ ctx: ctx.service, input }));
    },
  }),
}));
