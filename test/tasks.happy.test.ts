import { describe, expect, it } from 'vitest';
import { jsonBody, request } from './support/http.ts';
import { createTask, patchTask, type Task, type TaskPage } from './support/tasks-client.ts';
import { useTestServer } from './support/test-server.ts';

const server = useTestServer();

const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('GET /api/health', () => {
  it('answers ok', async () => {
    const response = await request(`${server.url}/api/health`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.body).toEqual({ ok: true });
  });
});

describe('POST /api/tasks', () => {
  it('creates an open task with a trimmed title, Location and ETag', async () => {
    const response = await request<Task>(`${server.url}/api/tasks`, { method: 'POST', ...jsonBody({ title: '  Water the plants  ' }) });
    expect(response.status).toBe(201);
    const task = response.body;
    expect(Object.keys(task)).toEqual(['id', 'title', 'done', 'createdAt', 'updatedAt']);
    expect(task.id).toMatch(UUID);
    expect(task.title).toBe('Water the plants');
    expect(task.done).toBe(false);
    expect(task.createdAt).toMatch(ISO_MILLIS);
    expect(task.updatedAt).toBe(task.createdAt);
    expect(response.headers.get('location')).toBe(`/api/tasks/${task.id}`);
    expect(response.headers.get('etag')).toMatch(/^"[^"]+"$/);
  });

  it('creates a done task when done is true', async () => {
    const { task } = await createTask(server.url, { title: 'Already done', done: true });
    expect(task.done).toBe(true);
  });

  it('accepts 200 emoji: lengths count code points', async () => {
    const { task } = await createTask(server.url, { title: '🚀'.repeat(200) });
    expect([...task.title]).toHaveLength(200);
  });

  it('reads a JSON body sent with a charset parameter', async () => {
    const response = await request<Task>(`${server.url}/api/tasks`, {
      method: 'POST',
      body: JSON.stringify({ title: 'charset' }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(response.status).toBe(201);
    expect(response.body.title).toBe('charset');
  });
});

describe('GET /api/tasks/{id}', () => {
  it('returns version 1 by default with ETag, Cache-Control, API-Version and Vary', async () => {
    const { task, etag } = await createTask(server.url, { title: 'Read me' });
    const response = await request<Task>(`${server.url}/api/tasks/${task.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(task);
    expect(response.headers.get('etag')).toBe(etag);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('api-version')).toBe('1');
    expect(response.headers.get('vary')).toBe('API-Version');
  });

  it('returns version 2 for API-Version: 2, with its own ETag', async () => {
    const { task, etag } = await createTask(server.url, { title: 'Version two', done: true });
    const response = await request(`${server.url}/api/tasks/${task.id}`, { headers: { 'API-Version': '2' } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: task.id,
      title: 'Version two',
      status: 'done',
      createdAt: task.createdAt,
      updatedAt: task.updatedAt,
      links: { self: `/api/v2/tasks/${task.id}` },
    });
    expect(response.headers.get('api-version')).toBe('2');
    expect(response.headers.get('vary')).toBe('API-Version');
    expect(response.headers.get('etag')).not.toBe(etag);
  });

  it('accepts API-Version: 1 explicitly', async () => {
    const { task } = await createTask(server.url);
    const response = await request<Task>(`${server.url}/api/tasks/${task.id}`, { headers: { 'API-Version': '1' } });
    expect(response.body.done).toBe(false);
    expect(response.headers.get('api-version')).toBe('1');
  });

  it('answers HEAD like GET without a body', async () => {
    const { task, etag } = await createTask(server.url);
    const response = await fetch(`${server.url}/api/tasks/${task.id}`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBe(etag);
    expect(await response.text()).toBe('');
  });
});

describe('PATCH /api/tasks/{id}', () => {
  it('changes the given fields, moves updatedAt and returns the new ETag', async () => {
    const { task, etag } = await createTask(server.url, { title: 'Before' });
    const response = await patchTask(server.url, task.id, { done: true });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: task.id, title: 'Before', done: true, createdAt: task.createdAt });
    expect(response.body.updatedAt > task.updatedAt).toBe(true);
    const newTag = response.headers.get('etag');
    expect(newTag).not.toBe(etag);
    const read = await request(`${server.url}/api/tasks/${task.id}`);
    expect(read.headers.get('etag')).toBe(newTag);
  });

  it('trims a new title and can reopen a done task', async () => {
    const { task } = await createTask(server.url, { title: 'x', done: true });
    const response = await patchTask(server.url, task.id, { title: '  Renamed ', done: false });
    expect(response.body).toMatchObject({ title: 'Renamed', done: false });
  });
});

describe('DELETE /api/tasks/{id}', () => {
  it('deletes with 204 and no body; the task is gone', async () => {
    const { task } = await createTask(server.url);
    const response = await request(`${server.url}/api/tasks/${task.id}`, { method: 'DELETE' });
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect((await request(`${server.url}/api/tasks/${task.id}`)).status).toBe(404);
  });
});

describe('GET /api/tasks', () => {
  it('lists newest first with the TaskPage shape', async () => {
    const first = await createTask(server.url, { title: 'older' });
    const second = await createTask(server.url, { title: 'newer' });
    const response = await request<TaskPage>(`${server.url}/api/tasks?limit=50`);
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const ids = response.body.items.map((task) => task.id);
    expect(ids.indexOf(second.task.id)).toBeLessThan(ids.indexOf(first.task.id));
    expect(response.body).toHaveProperty('nextCursor');
  });

  it('filters by done=true and done=false, and treats done= as absent', async () => {
    const done = await createTask(server.url, { title: 'filter done', done: true });
    const open = await createTask(server.url, { title: 'filter open' });
    const onlyDone = await request<TaskPage>(`${server.url}/api/tasks?done=true&limit=50`);
    expect(onlyDone.body.items.every((task) => task.done)).toBe(true);
    expect(onlyDone.body.items.map((task) => task.id)).toContain(done.task.id);
    const onlyOpen = await request<TaskPage>(`${server.url}/api/tasks?done=false&limit=50`);
    expect(onlyOpen.body.items.every((task) => !task.done)).toBe(true);
    expect(onlyOpen.body.items.map((task) => task.id)).toContain(open.task.id);
    const both = await request<TaskPage>(`${server.url}/api/tasks?done=&limit=50`);
    expect(both.status).toBe(200);
    expect(both.body.items.map((task) => task.id)).toEqual(expect.arrayContaining([done.task.id, open.task.id]));
  });
});

describe('version 2 paths', () => {
  it('GET /api/v2/tasks/{id} returns TaskV2', async () => {
    const { task } = await createTask(server.url, { title: 'v2 path' });
    const response = await request(`${server.url}/api/v2/tasks/${task.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: task.id,
      title: 'v2 path',
      status: 'open',
      createdAt: task.createdAt,
      updatedAt: task.updatedAt,
      links: { self: `/api/v2/tasks/${task.id}` },
    });
  });

  it('GET /api/v2/tasks returns TaskPageV2 without ETag handling', async () => {
    await createTask(server.url, { title: 'v2 list' });
    const response = await request<TaskPage<{ status: string; links: { self: string } }>>(`${server.url}/api/v2/tasks?limit=2`);
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBeNull();
    for (const item of response.body.items) {
      expect(item).not.toHaveProperty('done');
      expect(['open', 'done']).toContain(item.status);
      expect(item.links.self).toMatch(/^\/api\/v2\/tasks\//);
    }
  });
});

describe('GET /api/v0/tasks', () => {
  it('returns the newest 20 as {tasks:[{id,title,done}]} with every deprecation header', async () => {
    for (let i = 0; i < 21; i++) await createTask(server.url, { title: `v0 ${i}` });
    const response = await request<{ tasks: { id: string; title: string; done: boolean }[] }>(`${server.url}/api/v0/tasks`);
    expect(response.status).toBe(200);
    expect(response.headers.get('deprecation')).toBe('@1790812800');
    expect(response.headers.get('sunset')).toBe('Wed, 30 Jun 2027 00:00:00 GMT');
    expect(response.headers.get('link')).toBe('</api/tasks>; rel="successor-version", </versioning>; rel="deprecation"');
    expect(response.body.tasks).toHaveLength(20);
    expect(Object.keys(response.body.tasks[0]!)).toEqual(['id', 'title', 'done']);
    const newest = await request<TaskPage>(`${server.url}/api/tasks?limit=20`);
    expect(response.body.tasks.map((task) => task.id)).toEqual(newest.body.items.map((task) => task.id));
  });
});
