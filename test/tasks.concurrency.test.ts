import { describe, expect, it } from 'vitest';
import { describeOnPostgres } from './support/postgres-only.ts';
import { jsonBody, request } from './support/http.ts';
import { createTask, newestFirst, patchTask, type Task, type TaskPage } from './support/tasks-client.ts';
import { useTestServer } from './support/test-server.ts';

const server = useTestServer();

describeOnPostgres('atomic If-Match (write rule 3)', 'PGlite runs one transaction at a time, so concurrent writers there never race and a missing row lock would pass', () => {
  it('20 concurrent PATCHes with the same If-Match: exactly one 200, the rest 412', async () => {
    const { task, etag } = await createTask(server.url);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => patchTask(server.url, task.id, { title: `writer ${i}` }, { 'If-Match': etag })),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 412)).toHaveLength(19);
    const winner = responses.find((response) => response.status === 200)!;
    const read = await request<Task>(`${server.url}/api/tasks/${task.id}`);
    expect(read.body.title).toBe(winner.body.title);
  });

  it('concurrent DELETE and PATCH with the same If-Match: exactly one wins', async () => {
    const { task, etag } = await createTask(server.url);
    const [removed, patched] = await Promise.all([
      request(`${server.url}/api/tasks/${task.id}`, { method: 'DELETE', headers: { 'If-Match': etag } }),
      patchTask(server.url, task.id, { done: true }, { 'If-Match': etag }),
    ]);
    const outcomes = [removed.status, patched.status].sort();
    expect([[204, 404], [204, 412], [200, 412]]).toContainEqual(outcomes);
  });
});

describe('retention (newest 200)', () => {
  it('keeps only the newest 200 tasks, also with concurrent creators', async () => {
    const created: Task[] = [];
    // 215 creations, 8 at a time.
    for (let batch = 0; batch < 27; batch++) {
      const size = Math.min(8, 215 - batch * 8);
      const responses = await Promise.all(
        Array.from({ length: size }, (_, i) => request<Task>(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: `r${batch}-${i}` }) })),
      );
      for (const response of responses) {
        expect(response.status).toBe(201);
        created.push(response.body);
      }
    }
    const remaining: Task[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: TaskPage } = await request<TaskPage>(`${server.url}/api/tasks?limit=50${cursor ? `&cursor=${cursor}` : ''}`);
      remaining.push(...page.body.items);
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(remaining).toHaveLength(200);
    const newest = [...created]
      .sort(newestFirst)
      .slice(0, 200)
      .map((task) => task.id);
    expect(new Set(remaining.map((task) => task.id))).toEqual(new Set(newest));
  });
});
