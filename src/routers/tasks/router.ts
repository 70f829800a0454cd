import { router } from '../../procedures/trpc.ts';
import { addTaskProcedure } from './add-task.ts';
import { createTaskProcedure } from './create-task.ts';
import { deleteTaskProcedure } from './delete-task.ts';
import { getTaskProcedure } from './get-task.ts';
import { getTaskV2Procedure } from './get-task-v2.ts';
import { listTasksProcedure } from './list-tasks.ts';
import { listTasksV0Procedure } from './list-tasks-v0.ts';
import { listTasksV2Procedure } from './list-tasks-v2.ts';
import { newestTasksProcedure } from './newest-tasks.ts';
import { taskByIdProcedure } from './task-by-id.ts';
import { updateTaskProcedure } from './update-task.ts';

export const tasksRouter = router({
  // docs/spec/SPEC.md, "Procedure endpoints"
  newest: newestTasksProcedure,
  byId: taskByIdProcedure,
  create: createTaskProcedure,
  // The REST routes, reachable over /api/trpc as well
  list: listTasksProcedure,
  add: addTaskProcedure,
  get: getTaskProcedure,
  update: updateTaskProcedure,
  delete: deleteTaskProcedure,
  listV2: listTasksV2Procedure,
  getV2: getTaskV2Procedure,
  listV0: listTasksV0Procedure,
});
