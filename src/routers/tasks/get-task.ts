import { AppError } from '../../errors/app-error.ts';
import { getTask } from '../../services/tasks/get-task.ts';
import { toTaskV1, toTaskV2 } from '../../services/tasks/task-representation.ts';
import { publicProcedure } from '../../procedures/trpc.ts';
import { apiVersionHeaderSchema, ifNoneMatchHeaderSchema } from '../../schemas/headers.ts';
import { TASK_VERSIONS } from '../../schemas/api-versions.ts';
import { taskIdInputSchema, taskOfVersionSchema } from '../../schemas/tasks.ts';

export const getTaskProcedure = publicProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/api/tasks/{id}',
      tags: ['tasks'],
      summary: 'Read a task in the version the API-Version header selects',
      requestHeaders: apiVersionHeaderSchema.extend(ifNoneMatchHeaderSchema.shape),
      errorResponses: [400, 404, 422],
    },
    http: {
      entityTag: true,
      fixedHeaders: { Vary: 'API-Version' },
      responseHeaders: { 'API-Version': { description: 'The version used: 1 or 2', required: true, values: TASK_VERSIONS } },
    },
  })
  .input(taskIdInputSchema)
  .output(taskOfVersionSchema)
  .query(async ({ ctx, input }) => {
    const version = apiVersionHeaderSchema.safeParse({ 'api-version': ctx.request.headers['api-version'] });
    if (!version.success) {
      throw new AppError('unsupported-version', { detail: 'API-Version must be 1 or 2.' });
    }
    const apiVersion = version.data['api-version'];
    const row = await getTask({ ctx: ctx.service, input });
    ctx.response.headers['API-Version'] = apiVersion;
    return apiVersion === '2' ? toTaskV2(row) : toTaskV1(row);
  });
