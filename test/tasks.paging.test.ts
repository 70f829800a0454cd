import { beforeAll, describe, expect, it } from 'vitest';
import { request } from './support/http.ts';
import { createTask, newestFirst, type Task, type TaskPage } from './support/tasks-client.ts';
import { useTestServer } from './support/test-server.ts';

const server = useTestServer();

// What every test pages through: more than one page of the largest limit
// used below (50), a third of them done. Tests may add tasks, never remove
// any, and each reads the list as it finds it.
beforeAll(async () => {
  for (let i = 0; i < 55; i++) await createTask(server.url, { title: `seed ${i}`, done: i % 3 === 0 });
});

async function allTasks(): Promise<Task[]> {
  const tasks: Task[] = [];
  let offset = 0;
  for (;;) {
    const page = await request<TaskPage>(`${server.url}/api/tasks?limit=50&offset=${offset}`);
    tasks.push(...page.body.items);
    if (page.body.nextOffset === undefined) return tasks;
    offset = page.body.nextOffset;
  }
}

function linkTarget(link: string | null): string | undefined {
  return link?.match(/^<([^>]+)>; rel="next"$/)?.[1];
}

describe('cursor paging', () => {
  it('walks every page by Link while tasks are being created: no duplicate, no gap', async () => {
    const before = await allTasks();
    const seen: Task[] = [];
    let next: string | undefined = '/api/tasks?limit=7';
    let pages = 0;
    while (next) {
      const page: { body: TaskPage; headers: Headers } = await request<TaskPage>(`${server.url}${next}`);
      seen.push(...page.body.items);
      // Writers keep adding tasks at the head of the list while we walk it.
      await createTask(server.url, { title: `during page ${pages}` });
      next = linkTarget(page.headers.get('link'));
      if (page.body.nextCursor === null) expect(next).toBeUndefined();
      else expect(next).toBe(`/api/tasks?limit=7&cursor=${page.body.nextCursor}`);
      pages++;
    }
    const ids = seen.map((task) => task.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(before.map((task) => task.id));
    expect(pages).toBe(Math.ceil(before.length / 7));
  });

  it('lists in createdAt desc, id desc order', async () => {
    const tasks = await allTasks();
    expect(tasks).toEqual([...tasks].sort(newestFirst));
  });

  it('keeps the done filter in the Link header and in every page', async () => {
    let next: string | undefined = '/api/tasks?done=true&limit=4';
    const seen: Task[] = [];
    while (next) {
      const page: { body: TaskPage; headers: Headers } = await request<TaskPage>(`${server.url}${next}`);
      seen.push(...page.body.items);
      next = linkTarget(page.headers.get('link'));
      if (next) expect(next).toMatch(/^\/api\/tasks\?done=true&limit=4&cursor=[A-Za-z0-9_-]+$/);
    }
    expect(seen.length).toBeGreaterThan(4);
    expect(seen.every((task) => task.done)).toBe(true);
    const expected = (await allTasks()).filter((task) => task.done).map((task) => task.id);
    expect(seen.map((task) => task.id)).toEqual(expected);
  });

  it('has no Link and a null nextCursor on the last page', async () => {
    const page = await request<TaskPage>(`${server.url}/api/tasks?limit=50&offset=0`);
    const last = await request<TaskPage>(`${server.url}/api/tasks?limit=50&cursor=${encodeCursorOf(page.body.items.at(-1)!)}`);
    expect(last.status).toBe(200);
    expect(last.body.items.length).toBeGreaterThan(0);
    expect(last.body.nextCursor).toBeNull();
    expect(last.headers.get('link')).toBeNull();
  });

  it('uses the default limit of 20 and names it in the Link', async () => {
    const page = await request<TaskPage>(`${server.url}/api/tasks`);
    expect(page.body.items).toHaveLength(20);
    expect(linkTarget(page.headers.get('link'))).toBe(`/api/tasks?limit=20&cursor=${page.body.nextCursor}`);
    expect(page.body).not.toHaveProperty('nextOffset');
  });

  it('pages /api/v2/tasks the same way, linking to /api/v2/tasks', async () => {
    const v1 = await request<TaskPage>(`${server.url}/api/tasks?limit=3`);
    const v2 = await request<TaskPage<{ id: string }>>(`${server.url}/api/v2/tasks?limit=3`);
    expect(v2.body.items.map((task) => task.id)).toEqual(v1.body.items.map((task) => task.id));
    expect(v2.body.nextCursor).toBe(v1.body.nextCursor);
    expect(linkTarget(v2.headers.get('link'))).toBe(`/api/v2/tasks?limit=3&cursor=${v2.body.nextCursor}`);
  });
});

describe('offset paging', () => {
  it('skips offset rows, reports nextOffset = offset + limit, and never a cursor or Link', async () => {
    const tasks = await allTasks();
    const page = await request<TaskPage>(`${server.url}/api/tasks?offset=5&limit=10`);
    expect(page.body.items.map((task) => task.id)).toEqual(tasks.slice(5, 15).map((task) => task.id));
    expect(page.body.nextOffset).toBe(15);
    expect(page.body.nextCursor).toBeNull();
    expect(page.headers.get('link')).toBeNull();
  });

  it('omits nextOffset on the last page', async () => {
    const tasks = await allTasks();
    const page = await request<TaskPage>(`${server.url}/api/tasks?offset=${tasks.length - 3}&limit=10`);
    expect(page.body.items).toHaveLength(3);
    expect(page.body).not.toHaveProperty('nextOffset');
    expect(page.body.nextCursor).toBeNull();
  });

  it('offset=0 is offset mode', async () => {
    const page = await request<TaskPage>(`${server.url}/api/tasks?offset=0&limit=2`);
    expect(page.body.nextOffset).toBe(2);
    expect(page.body.nextCursor).toBeNull();
  });
});

function encodeCursorOf(task: Task): string {
  return Buffer.from(JSON.stringify({ createdAt: task.createdAt, id: task.id })).toString('base64url');
}
