import { jsonBody, request } from './http.ts';

export interface Task {
  id: string;
  title: string;
  done: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface TaskPage<T = Task> {
  items: T[];
  nextCursor: string | null;
  nextOffset?: number;
}

export async function createTask(url: string, body: Record<string, unknown> = { title: 'A task' }): Promise<{ task: Task; etag: string }> {
  const response = await request<Task>(`${url}/api/tasks`, { method: 'POST', ...jsonBody(body) });
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${response.text}`);
  return { task: response.body, etag: response.headers.get('etag') ?? '' };
}

export function patchTask(url: string, id: string, body: unknown, headers: Record<string, string> = {}) {
  return request<Task>(`${url}/api/tasks/${id}`, { method: 'PATCH', ...jsonBody(body, headers) });
}

/** The list order of docs/spec/SPEC.md listing rule 1: createdAt descending, then id descending. */
export function newestFirst(a: Task, b: Task): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}
