import { z } from 'zod';
import { listTasks } from '../../services/tasks/list-tasks.ts';
import { publicProcedure } from '../../trpc.ts';
import { uuidSchema } from '../common/schemas.ts';

/** SPEC "Versioning": the retired list keeps working and says so in its headers. */
export const VERSION_0_HEADERS = {
  // RFC 9745: @ + Unix seconds of 2026-10-01T00:00:00Z.
  Deprecation: `@${Date.UTC(2026, 9, 1) / 1000}`,
  // RFC 8594: the HTTP-date of 2027-06-30T00:00:00Z.
  Sunset: new Date(Date.UTC(2027, 5, 30)).toUTCString(),
  Link: '</api/tasks>; rel="successor-version", </versioning>; rel="deprecation"',
};

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
