import { z } from 'zod';
import { PAGE_SIZES, pageSizeSchema } from './page-size.ts';
import { timestampSchema, trimmedText, uuidSchema } from './text.ts';

const titleSchema = trimmedText({
  max: 200,
  empty: 'Give the task a title',
  tooLong: 'Keep the title under 200 characters',
});

export const taskSchema = z
  .object({
    id: uuidSchema,
    title: z.string(),
    done: z.boolean(),
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  })
  .meta({ id: 'Task', description: 'A task (version 1 representation)' });

export const taskV2Schema = z
  .object({
    id: uuidSchema,
    title: z.string(),
    status: z.enum(['open', 'done']),
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
    links: z.object({ self: z.string() }),
  })
  .meta({ id: 'TaskV2', description: 'A task (version 2 representation)' });

/**
 * GET /api/tasks/{id}: the representation its API-Version header chose. A body
 * matches exactly one of the two (Task has `done`, TaskV2 `status` and
 * `links`), so the document says oneOf; no field names the version, so there
 * is no discriminator to give, and OpenAPI cannot tie a response schema to a
 * request header: the description and the API-Version response header say which.
 */
export const taskOfVersionSchema = z.union([taskSchema, taskV2Schema]).meta({
  description: 'Task when API-Version is 1 or absent, TaskV2 when it is 2; the API-Version response header names the one sent',
  override: ({ jsonSchema }) => {
    jsonSchema.oneOf = jsonSchema.anyOf;
    delete jsonSchema.anyOf;
  },
});

export const newTaskSchema = z.strictObject({
  title: titleSchema,
  done: z.boolean().optional().meta({ description: 'Defaults to false' }),
});

/** docs/spec/SPEC.md, "Procedure endpoints" tasks.create: a title, nothing else. */
export const createTaskInputSchema = z.strictObject({ title: titleSchema });

/** How many of the newest tasks tasks.newest and GraphQL's `tasks` return: 1 to 50, default 5. */
export const newestLimitSchema = pageSizeSchema(PAGE_SIZES.newestTasks);

export const taskIdInputSchema = z.strictObject({ id: uuidSchema });

export const taskPatchSchema = z
  .strictObject({
    id: uuidSchema,
    title: titleSchema.optional(),
    done: z.boolean().optional(),
  })
  .refine((patch) => patch.title !== undefined || patch.done !== undefined, {
    message: 'Send at least one field to change',
    path: [],
  });

export const listTasksQuerySchema = z
  .object({
    done: z
      .enum(['true', 'false'])
      .meta({
        description: 'Only done (true) or only open (false) tasks; any other value is refused (422)',
        // A boolean in a query string is the text `true` or `false`, exactly what this accepts:
        // described as one, a generated client takes `done: false` and writes `done=false`.
        override: ({ jsonSchema }) => {
          delete jsonSchema.enum;
          jsonSchema.type = 'boolean';
        },
      })
      .optional(),
    limit: pageSizeSchema(PAGE_SIZES.taskPage),
    cursor: z.string().max(200).meta({ description: 'A nextCursor value from an earlier page' }).optional(),
    offset: z.number().int().min(0).max(1000).meta({ description: 'Rows to skip (offset mode)' }).optional(),
  })
  .refine((query) => query.cursor === undefined || query.offset === undefined, {
    message: 'Use cursor or offset, not both',
    path: ['offset'],
  });

export type ListTasksQuery = z.infer<typeof listTasksQuerySchema>;

const nextCursorSchema = z
  .string()
  .nullable()
  .meta({ description: 'Pass as cursor for the next page; null on the last page and in offset mode' });
const nextOffsetSchema = z
  .number()
  .int()
  .optional()
  .meta({ description: 'Offset mode only, when more rows exist: offset + limit' });

export const taskPageSchema = z
  .object({ items: z.array(taskSchema), nextCursor: nextCursorSchema, nextOffset: nextOffsetSchema })
  .meta({ id: 'TaskPage' });

export const taskPageV2Schema = z
  .object({ items: z.array(taskV2Schema), nextCursor: nextCursorSchema, nextOffset: nextOffsetSchema })
  .meta({ id: 'TaskPageV2' });
