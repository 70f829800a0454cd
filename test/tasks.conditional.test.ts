import { describe, expect, it } from 'vitest';
import { request } from './support/http.ts';
import { expectProblem } from './support/problem.ts';
import { createTask, patchTask, type Task } from './support/tasks-client.ts';
import { useTestServer } from './support/test-server.ts';

const server = useTestServer();

describe('If-None-Match on GET /api/tasks/{id}', () => {
  it.each([
    ['the exact tag', (tag: string) => tag],
    ['a weak form of the tag', (tag: string) => `W/${tag}`],
    ['a list holding the tag', (tag: string) => `"other", ${tag}, "more"`],
    ['*', () => '*'],
  ])('%s → 304 with ETag and Cache-Control and no body', async (_, header) => {
    const { task, etag } = await createTask(server.url);
    const response = await request(`${server.url}/api/tasks/${task.id}`, { headers: { 'If-None-Match': header(etag) } });
    expect(response.status).toBe(304);
    expect(response.text).toBe('');
    expect(response.headers.get('etag')).toBe(etag);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('vary')).toBe('API-Version');
  });

  it('a tag that does not match → 200 with the body', async () => {
    const { task } = await createTask(server.url);
    const response = await request<Task>(`${server.url}/api/tasks/${task.id}`, { headers: { 'If-None-Match': '"stale", W/"older"' } });
    expect(response.status).toBe(200);
    expect(response.body.id).toBe(task.id);
  });

  it('the version 1 tag does not match the version 2 representation', async () => {
    const { task, etag } = await createTask(server.url);
    const response = await request(`${server.url}/api/tasks/${task.id}`, { headers: { 'If-None-Match': etag, 'API-Version': '2' } });
    expect(response.status).toBe(200);
    const v2Tag = response.headers.get('etag')!;
    const again = await request(`${server.url}/api/tasks/${task.id}`, { headers: { 'If-None-Match': v2Tag, 'API-Version': '2' } });
    expect(again.status).toBe(304);
  });

  it('the tag is stable for the same data and changes with any field', async () => {
    const { task, etag } = await createTask(server.url, { title: 'stable' });
    const first = await request(`${server.url}/api/tasks/${task.id}`);
    const second = await request(`${server.url}/api/tasks/${task.id}`);
    expect(first.headers.get('etag')).toBe(etag);
    expect(second.headers.get('etag')).toBe(etag);
    const patched = await patchTask(server.url, task.id, { title: 'stable' });
    expect(patched.headers.get('etag')).not.toBe(etag);
  });
});

describe('If-None-Match on GET /api/tasks', () => {
  it('304 while the page is unchanged, 200 once it changes', async () => {
    await createTask(server.url);
    const first = await request(`${server.url}/api/tasks?limit=5`);
    const tag = first.headers.get('etag')!;
    const unchanged = await request(`${server.url}/api/tasks?limit=5`, { headers: { 'If-None-Match': tag } });
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe('');
    expect(unchanged.headers.get('etag')).toBe(tag);
    expect(unchanged.headers.get('cache-control')).toBe('no-cache');
    await createTask(server.url);
    const changed = await request(`${server.url}/api/tasks?limit=5`, { headers: { 'If-None-Match': tag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(tag);
  });
});

describe('If-Match on PATCH and DELETE', () => {
  it('a matching tag (also weak, in a list, or *) lets the write through', async () => {
    for (const header of [(tag: string) => tag, (tag: string) => `W/${tag}`, (tag: string) => `"x", ${tag}`, () => '*']) {
      const { task, etag } = await createTask(server.url);
      const response = await patchTask(server.url, task.id, { done: true }, { 'If-Match': header(etag) });
      expect(response.status).toBe(200);
    }
  });

  it('a stale tag → 412 and nothing changes', async () => {
    const { task, etag } = await createTask(server.url, { title: 'original' });
    const first = await patchTask(server.url, task.id, { title: 'changed' }, { 'If-Match': etag });
    expect(first.status).toBe(200);
    const stale = await patchTask(server.url, task.id, { title: 'lost update' }, { 'If-Match': etag });
    expectProblem(stale, server.baseUrl, 'precondition-failed', 412, `/api/tasks/${task.id}`);
    const read = await request<Task>(`${server.url}/api/tasks/${task.id}`);
    expect(read.body.title).toBe('changed');
    // The service's tag for If-Match is the one GET sends.
    expect(stale.headers.get('etag')).toBe(read.headers.get('etag'));
  });

  it('the version 2 tag is not the version 1 tag: 412', async () => {
    const { task } = await createTask(server.url);
    const v2 = await request(`${server.url}/api/tasks/${task.id}`, { headers: { 'API-Version': '2' } });
    const response = await patchTask(server.url, task.id, { done: true }, { 'If-Match': v2.headers.get('etag')! });
    expect(response.status).toBe(412);
  });

  it('DELETE with a stale tag → 412 and the task stays; with the current tag → 204', async () => {
    const { task, etag } = await createTask(server.url);
    const patched = await patchTask(server.url, task.id, { done: true });
    const stale = await request(`${server.url}/api/tasks/${task.id}`, { method: 'DELETE', headers: { 'If-Match': etag } });
    expectProblem(stale, server.baseUrl, 'precondition-failed', 412, `/api/tasks/${task.id}`);
    expect((await request(`${server.url}/api/tasks/${task.id}`)).status).toBe(200);
    const current = await request(`${server.url}/api/tasks/${task.id}`, {
      method: 'DELETE',
      headers: { 'If-Match': patched.headers.get('etag')! },
    });
    expect(current.status).toBe(204);
  });

  it('existence comes before the precondition: a missing task is 404 whatever If-Match says', async () => {
    const { task, etag } = await createTask(server.url);
    await request(`${server.url}/api/tasks/${task.id}`, { method: 'DELETE' });
    const response = await patchTask(server.url, task.id, { done: true }, { 'If-Match': etag });
    expect(response.status).toBe(404);
  });

  it('two updates in the same millisecond still give two different tags', async () => {
    const { task } = await createTask(server.url);
    const first = await patchTask(server.url, task.id, { done: true });
    const second = await patchTask(server.url, task.id, { done: true });
    expect(second.body.updatedAt > first.body.updatedAt).toBe(true);
    expect(second.headers.get('etag')).not.toBe(first.headers.get('etag'));
  });
});
