import type { TaskRow } from '../../db/schema/index.ts';
import { entityTagOf } from '../../lib/entity-tag.ts';
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
 * The ETag a client holds for the task, for If-Match to compare against: the
 * tag procedures/success-response.ts gives the body GET, POST and PATCH send
 * — `entityTagOf` of the JSON text of `toTaskV1(row)`, which those procedures
 * return. The body is that object's JSON in production too, where no output
 * schema parses it (docs/adr/0005), so it is not parsed here either.
 */
export function taskEntityTag(row: TaskRow): string {
  return entityTagOf(JSON.stringify(toTaskV1(row)));
}
