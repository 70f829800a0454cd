import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rowsOf } from './support/db-rows.ts';
import { createTask, patchTask } from './support/tasks-client.ts';
import { useTestServer } from './support/test-server.ts';

const server = useTestServer();

describe('stored timestamps', () => {
  it('are whole milliseconds and equal the JSON values (DECISIONS "Representations")', async () => {
    const { task } = await createTask(server.url, { title: 'precision' });
    const patched = await patchTask(server.url, task.id, { done: true });
    const rows = await rowsOf(
      server,
      sql`select extract(microseconds from created_at)::int % 1000 as created_micros,
                 extract(microseconds from updated_at)::int % 1000 as updated_micros,
                 (extract(epoch from created_at) * 1000)::bigint::text as created_ms,
                 (extract(epoch from updated_at) * 1000)::bigint::text as updated_ms
          from tasks where id = ${task.id}`,
    );
    expect(rows).toHaveLength(1);
    expect(Number(rows[0]!.created_micros)).toBe(0);
    expect(Number(rows[0]!.updated_micros)).toBe(0);
    expect(Number(rows[0]!.created_ms)).toBe(Date.parse(task.createdAt));
    expect(Number(rows[0]!.updated_ms)).toBe(Date.parse(patched.body.updatedAt));
  });
});
