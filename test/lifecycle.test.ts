import { request as httpRequest } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeOnPostgres } from './support/postgres-only.ts';
import { request } from './support/http.ts';
import { startServiceProcess } from './support/service-process.ts';
import { createTask, type Task } from './support/tasks-client.ts';
import { createTestDatabase, postgresUrl, type TestDatabase } from './support/test-database.ts';

let database: TestDatabase;
let dataDir: string;
let storage: Record<string, string>;

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = await mkdtemp(join(tmpdir(), 'lab-api-'));
  // The embedded mode is tested on disk here, not in memory: data must survive a restart.
  storage = postgresUrl ? database.env : { PGLITE_DATA_DIR: join(dataDir, 'pglite') };
});
afterAll(async () => {
  await database.drop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('restart', () => {
  it('keeps the data across a restart and exits 0 on SIGTERM', async () => {
    const first = await startServiceProcess(storage);
    const { task } = await createTask(first.url, { title: 'survives a restart' });
    expect(await first.stop('SIGTERM')).toBe(0);
    const second = await startServiceProcess(storage);
    const read = await request<Task>(`${second.url}/api/tasks/${task.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(task);
    expect(await second.stop('SIGINT')).toBe(0);
  });
});

describe('graceful shutdown', () => {
  it('lets an in-flight request finish, then exits 0 and accepts no more connections', async () => {
    const service = await startServiceProcess(storage);
    const body = JSON.stringify({ title: 'in flight during shutdown' });
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${service.url}/api/tasks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
      });
      req.on('error', reject);
      // 100 Continue means the server is handling this request: now stop it, then send the body.
      req.on('continue', () => {
        service.child.kill('SIGTERM');
        setImmediate(() => req.end(body));
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.flushHeaders();
    });
    const answered = await response;
    expect(answered.status).toBe(201);
    expect(JSON.parse(answered.body)).toMatchObject({ title: 'in flight during shutdown' });
    expect(await service.stop()).toBe(0);
    await expect(fetch(`${service.url}/api/health`)).rejects.toThrow();
    const messages = service.lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toEqual(expect.arrayContaining(['shutting down', 'stopped']));
  });
});

describeOnPostgres('several instances on one empty PostgreSQL database', 'several instances share one database only on a PostgreSQL server', () => {
  it('all come up at the same moment and share the data', async () => {
    const fresh = await createTestDatabase();
    try {
      const instances = await Promise.all([1, 2, 3, 4].map(() => startServiceProcess(fresh.env)));
      const { task } = await createTask(instances[0]!.url, { title: 'shared' });
      for (const instance of instances) {
        expect((await request(`${instance.url}/api/tasks/${task.id}`)).status).toBe(200);
      }
      expect(await Promise.all(instances.map((instance) => instance.stop()))).toEqual([0, 0, 0, 0]);
    } finally {
      await fresh.drop();
    }
  });
});

describeOnPostgres('one PostgreSQL connection', 'the pool size is a setting of a PostgreSQL server only', () => {
  it('starts on an empty database with DATABASE_POOL_MAX=1 (migrations and their lock do not wait for each other) and serves', async () => {
    const fresh = await createTestDatabase();
    try {
      const service = await startServiceProcess({ ...fresh.env, DATABASE_POOL_MAX: '1' });
      const { task } = await createTask(service.url, { title: 'through one connection' });
      expect((await request(`${service.url}/api/tasks/${task.id}`)).status).toBe(200);
      expect(await service.stop()).toBe(0);
    } finally {
      await fresh.drop();
    }
  });
});

describe('request log', () => {
  it('writes one JSON line per request with method, path, status, duration and request id', async () => {
    const service = await startServiceProcess(storage);
    await request(`${service.url}/api/health?probe=1`, { headers: { 'X-Request-Id': 'log-line-check' } });
    expect(await service.stop()).toBe(0);
    const entries = service.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const entry = entries.find((candidate) => candidate.reqId === 'log-line-check');
    expect(entry).toMatchObject({ msg: 'request', method: 'GET', path: '/api/health', status: 200, level: 30, service: 'lab-api' });
    expect(entry?.durationMs).toEqual(expect.any(Number));
    expect(new Date(entry?.time as string).toISOString()).toBe(entry?.time);
  });

  it('keeps answering while the reader of its stdout takes nothing, and loses no line once it reads again', async () => {
    const service = await startServiceProcess(storage);
    // Our end of the pipe stops reading: the kernel's buffer (64 KiB) fills after a few hundred lines.
    service.child.stdout!.pause();
    const requests = 3000;
    const statuses: number[] = [];
    for (let sent = 0; sent < requests; sent += 50) {
      const batch = Array.from({ length: 50 }, (_, index) => request(`${service.url}/api/health`, { headers: { 'X-Request-Id': `stalled-${sent + index}` } }));
      for (const response of await Promise.all(batch)) statuses.push(response.status);
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(requests);
    service.child.stdout!.resume();
    expect(await service.stop()).toBe(0);
    const logged = service.lines.filter((line) => line.includes('"reqId":"stalled-'));
    expect(logged).toHaveLength(requests);
  });
});
