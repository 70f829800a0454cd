import { createTaskProcedure } from '../../routers/tasks/create-task.ts';
import { newestTasksProcedure } from '../../routers/tasks/newest-tasks.ts';
import { taskByIdProcedure } from '../../routers/tasks/task-by-id.ts';
import type { TaskV1 } from '../../services/tasks/task-representation.ts';
import { PAGE_SIZES } from '../../schemas/page-size.ts';
import { builder } from '../builder.ts';
import { isNotFound, throughProcedure } from '../resolve-through-procedure.ts';

const TaskType = builder.objectRef<TaskV1>('Task').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    done: t.exposeBoolean('done'),
    createdAt: t.exposeString('createdAt', { description: 'ISO 8601, UTC, millisecond precision' }),
    updatedAt: t.exposeString('updatedAt'),
  }),
});

const newest = throughProcedure(newestTasksProcedure, 'tasks.newest');
const byId = throughProcedure(taskByIdProcedure, 'tasks.byId');
const create = throughProcedure(createTaskProcedure, 'tasks.create');

builder.queryFields((t) => ({
  tasks: t.field({
    type: [TaskType],
    description: 'The newest tasks, newest first',
    args: { limit: t.arg.int({ defaultValue: PAGE_SIZES.newestTasks.default, description: PAGE_SIZES.newestTasks.description }) },
    extensions: newest.extensions,
    resolve: (_root, args, context) => newest.resolve(args, context),
  }),
  task: t.field({
    type: TaskType,
    nullable: true,
    description: 'One task, or null when there is none with this id',
    args: { id: t.arg.id({ required: true, description: 'A UUID' }) },
    extensions: byId.extensions,
    resolve: async (_root, args, context) => {
      try {
        return await byId.resolve({ id: String(args.id) }, context);
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    },
  }),
}));

builder.mutationFields((t) => ({
  createTask: t.field({
    type: TaskType,
    description: 'Create an open task; the title is trimmed and must hold 1 to 200 characters. Counts against task-writes, like POST /api/tasks.',
    args: { title: t.arg.string({ required: true }) },
    extensions: create.extensions,
    resolve: (_root, args, context) => create.resolve(args, context),
  }),
}));
