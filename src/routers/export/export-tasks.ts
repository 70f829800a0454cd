import { z } from 'zod';
import { listTasks } from '../../services/tasks/list-tasks.ts';
import { TASKS_RETAINED } from '../../services/tasks/create-task.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { tasksToCsv } from './tasks-csv.ts';

export const exportTasksProcedure = publicProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/api/export/tasks',
      tags: ['tasks'],
      summary: 'Every task as CSV, newest first',
    },
    http: {
      contentType: 'text/csv; charset=utf-8',
      successHeaders: { 'Content-Disposition': 'attachment; filename="tasks.csv"' },
    },
    access: { requires: 'tasks:export' },
  })
  .input(z.void())
  .output(z.string().meta({ description: 'CSV: id,title,done,created_at; LF line ends' }))
  .query(async ({ ctx }) => {
    const page = await listTasks({ ctx: ctx.service, input: { limit: TASKS_RETAINED } });
    return tasksToCsv(page.rows);
  });
