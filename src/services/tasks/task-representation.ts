import type { TaskRow } from '../../db/schema/index.ts';
import { entityTagOf } from '../../lib/entity-tag.ts';
import { taskSchema } from '../../schemas/tasks.ts';
import { isoTimestampOf } from '../../lib/iso-timestamp.ts';

export type { TaskRow };

/** Version 1 of a task, with keys in the order the output schema emits them. */
export interface TaskV1 {
  id: string;
  title: string;
  done: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface TaskV2 {
  id: string;
  title: string;
  status: 'open' | 'done';
  createdAt: string;
  updatedAt: string;
  links: { self: string };
}

export function toTaskV1(row: TaskRow): TaskV1 {
  return {
    id: row.id,
    title: row.title,
    done: row.done,
    createdAt: isoTimestampOf(row.createdAt),
    updatedAt: isoTimestampOf(row.updatedAt),
  };
}

export function toTaskV2(row: TaskRow): TaskV2 {
  return {
    id: row.id,
    title: row.title,
    status: row.done ? 'done' : 'open',
    createdAt: isoTimestampOf(row.createdAt),
    updatedAt: isoTimestampOf(row.updatedAt),
    links: { self: `/api/v2/tasks/${row.id}` },
  };
}

/**
 * The ETag a client holds for the task: the tag of the exact JSON GET sends —
 * version 1 as the output schema emits it, as procedures/success-response.ts
 * tags every body — so If-Match compares against what GET returned.
 */
export function taskEntityTag(row: TaskRow): string {
  return entityTagOf(JSON.stringify(taskSchema.parse(toTaskV1(row))));
}
