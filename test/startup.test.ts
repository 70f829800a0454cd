import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { itOnPostgres } from './support/postgres-only.ts';
import { freePort } from './support/free-port.ts';
import { request } from './support/http.ts';
import { runServiceExpectingFailure, startServiceProcess } from './support/service-process.ts';
import { createTask, type Task } from './support/tasks-client.ts';
import { postgresUrl } from './support/test-database.ts';
import { TEST_JWT_SECRET } from './support/test-server.ts';

type LogLine = { level: number; msg: string; url?: string; docs?: string; database?: string };
const parsed = (lines: string[]) => lines.map((line) => JSON.parse(line) as LogLine);

/** A failure to start is exactly one line on stderr, nothing on stdout, exit status 1. */
function expectOneLineFailure(outcome: { code: number | null; stderr: string; stdout: string }, pattern: RegExp): void {
  expect(outcome.code).toBe(1);
  expect(outcome.stdout).toBe('');
  const lines = outcome.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(outcome.stderr).not.toMatch(/\n\s+at /);
}

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'lab-api-startup-'));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe('the ready line', () => {
  it('names the URL, the /docs page and the embedded database, and warns once about the development secret', async () => {
    const service = await startServiceProcess({ PGLITE_DATA_DIR: 'memory://' });
    expect(await service.stop()).toBe(0);
    const lines = parsed(service.lines);
    const ready = lines.find((line) => line.docs);
    expect(ready).toMatchObject({ level: 30, url: service.url, docs: `${service.url}/docs`, database: 'embedded PostgreSQL (PGlite) in memory://' });
    expect(ready?.msg).toContain(service.url);
    expect(ready?.msg).toContain('/docs');
    const warnings = lines.filter((line) => line.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toMatch(/JWT_SECRET is not set.*development secret/);
  });

  it('names an on-disk directory and warns about nothing when JWT_SECRET is set', async () => {
    const dataDir = join(workDir, 'ready-line');
    const service = await startServiceProcess({ PGLITE_DATA_DIR: dataDir, JWT_SECRET: TEST_JWT_SECRET });
    expect(await service.stop()).toBe(0);
    const lines = parsed(service.lines);
    expect(lines.find((line) => line.docs)?.database).toBe(`embedded PostgreSQL (PGlite) in ${dataDir}`);
    expect(lines.filter((line) => line.level >= 40)).toEqual([]);
  });

  itOnPostgres('names the PostgreSQL host and database, never the password', 'connection failures of a PostgreSQL server', async () => {
    const url = new URL(postgresUrl!);
    url.password = 'not-to-be-logged';
    const service = await startServiceProcess({ DATABASE_URL: url.toString(), JWT_SECRET: TEST_JWT_SECRET });
    expect(await service.stop()).toBe(0);
    expect(service.lines.join('\n')).not.toContain('not-to-be-logged');
    const ready = parsed(service.lines).find((line) => line.docs);
    expect(ready?.database).toBe(`PostgreSQL database "${url.pathname.slice(1)}" on ${url.hostname}:${url.port || '5432'}`);
    // With JWT_SECRET set there is nothing to warn about (without it: test/auth.development-secret.test.ts).
    expect(parsed(service.lines).filter((line) => line.level >= 40)).toEqual([]);
  });
});

describe('failures to start are one plain line and exit status 1', () => {
  it('a port in use, found before the database is opened', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    const inUse = new RegExp(`^Cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use`);
    try {
      const dataDir = join(workDir, 'port-in-use');
      expectOneLineFailure(await runServiceExpectingFailure({ PORT: String(port), PGLITE_DATA_DIR: dataDir }), inUse);
      // The embedded database was never opened: its directory was not even made, let alone locked.
      await expect(stat(dataDir)).rejects.toThrow(/ENOENT/);
      // Nor was a PostgreSQL server tried: this unreachable one would have been retried for 20 s, then blamed.
      const unreachable = `postgres://postgres@127.0.0.1:${await freePort()}/test`;
      expectOneLineFailure(await runServiceExpectingFailure({ PORT: String(port), DATABASE_URL: unreachable, DATABASE_CONNECT_TIMEOUT_MS: '20000' }), inUse);
    } finally {
      holder.close();
    }
  });

  it('a database server that stays unreachable, after retrying for DATABASE_CONNECT_TIMEOUT_MS', async () => {
    const port = await freePort();
    const started = Date.now();
    const outcome = await runServiceExpectingFailure({ DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/test`, DATABASE_CONNECT_TIMEOUT_MS: '1500' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expectOneLineFailure(outcome, new RegExp(`^PostgreSQL on 127\\.0\\.0\\.1:${port} is unreachable after retrying for 1\\.5 s \\(ECONNREFUSED\\)$`));
  });

  itOnPostgres('a database that does not exist, with a createdb hint', 'connection failures of a PostgreSQL server', async () => {
    const url = new URL(postgresUrl!);
    url.pathname = '/lab_api_no_such_database';
    expectOneLineFailure(
      await runServiceExpectingFailure({ DATABASE_URL: url.toString() }),
      new RegExp(`^PostgreSQL database "lab_api_no_such_database" does not exist on ${url.hostname}:${url.port || 5432}: create it with \`createdb .*lab_api_no_such_database\`$`),
    );
  });

  itOnPostgres('credentials the server refuses', 'connection failures of a PostgreSQL server', async () => {
    const url = new URL(postgresUrl!);
    url.username = 'lab_api_no_such_role';
    url.password = 'secret-password';
    const outcome = await runServiceExpectingFailure({ DATABASE_URL: url.toString() });
    expectOneLineFailure(outcome, /^PostgreSQL on .* refused user "lab_api_no_such_role": authentication failed/);
    expect(outcome.stderr).not.toContain('secret-password');
  });
});

describe('one process per embedded database', () => {
  it('refuses a second process, takes over the lock of a killed one, and loses no acknowledged write', async () => {
    const dataDir = join(workDir, 'locked');
    const first = await startServiceProcess({ PGLITE_DATA_DIR: dataDir });
    const { task } = await createTask(first.url, { title: 'acknowledged before the crash' });

    const second = await runServiceExpectingFailure({ PGLITE_DATA_DIR: dataDir });
    expectOneLineFailure(second, new RegExp(`^PGLITE_DATA_DIR ${dataDir} is in use by process ${first.child.pid}: only one process at a time`));
    // The refused process touched nothing: the first still serves.
    expect((await request(`${first.url}/api/tasks/${task.id}`)).status).toBe(200);

    expect(await first.stop('SIGKILL')).toBe(null);
    expect(await readFile(join(dataDir, 'lab-api.lock'), 'utf8')).toBe(`${first.child.pid}\n`);
    const third = await startServiceProcess({ PGLITE_DATA_DIR: dataDir });
    const read = await request<Task>(`${third.url}/api/tasks/${task.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(task);
    expect(await third.stop()).toBe(0);
    // A clean stop gives the directory back.
    await expect(readFile(join(dataDir, 'lab-api.lock'))).rejects.toThrow(/ENOENT/);
  });
});

/** The process's state letter in /proc/<pid>/stat (after the command name in parentheses): R, S, Z… */
async function processState(pid: number): Promise<string | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return stat?.slice(stat.lastIndexOf(')') + 1).trimStart()[0];
}

describe('a restart right after kill -9', () => {
  it('takes over the lock of a killed process its parent has not reaped yet (a zombie), and loses no acknowledged write', async () => {
    const dataDir = join(workDir, 'zombie');
    // The service as the child of a parent that never reaps: sh starts it, prints its id, then becomes `sleep`.
    const parent = spawn('sh', ['-c', '"$0" dist/main.js & echo "$!"; exec sleep 600', process.execPath], {
      cwd: new URL('..', import.meta.url),
      env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', PGLITE_DATA_DIR: dataDir, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const parentExited = once(parent, 'close');
    try {
      const { pid, url } = await new Promise<{ pid: number; url: string }>((resolve, reject) => {
        let text = '';
        parent.stdout!.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          const [first, ...rest] = text.split('\n');
          const ready = rest.map((line) => (line.startsWith('{') ? (JSON.parse(line) as LogLine) : undefined)).find((line) => line?.docs);
          if (ready) resolve({ pid: Number(first), url: ready.url! });
        });
        void parentExited.then(() => reject(new Error('the service\'s parent ended before the service was ready')));
      });
      const { task } = await createTask(url, { title: 'acknowledged before the kill' });
      process.kill(pid, 'SIGKILL');
      // Dead, and not reaped: its id still answers signals.
      await vi.waitFor(async () => expect(await processState(pid)).toBe('Z'), { timeout: 10_000, interval: 20 });
      expect(() => process.kill(pid, 0)).not.toThrow();
      expect(await readFile(join(dataDir, 'lab-api.lock'), 'utf8')).toBe(`${pid}\n`);

      const restarted = await startServiceProcess({ PGLITE_DATA_DIR: dataDir });
      const read = await request<Task>(`${restarted.url}/api/tasks/${task.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(task);
      expect(await restarted.stop()).toBe(0);
      // The zombie is still there: it was taken over, not waited for.
      expect(await processState(pid)).toBe('Z');
    } finally {
      // Its parent gone, the zombie is reaped by whoever adopts it.
      parent.kill('SIGKILL');
      await parentExited;
    }
  });
});

describe('shutdown', () => {
  it('npm start serves the compiled service, and SIGTERM to npm stops it cleanly', async () => {
    const dataDir = join(workDir, 'npm-start');
    const service = await startServiceProcess({ PGLITE_DATA_DIR: dataDir }, { viaNpm: true });
    const { task } = await createTask(service.url, { title: 'through npm start' });
    // With `exec`, npm's child is the service itself, running the compiled entry.
    const children = await readFile(`/proc/${service.child.pid}/task/${service.child.pid}/children`, 'utf8').catch(() => '');
    const servicePid = Number(children.trim().split(' ')[0]);
    expect((await readFile(`/proc/${servicePid}/cmdline`, 'utf8')).split('\0')).toEqual(expect.arrayContaining(['dist/main.js']));
    expect(await service.stop('SIGTERM')).toBe(0);
    expect(parsed(service.lines).map((line) => line.msg)).toEqual(expect.arrayContaining(['shutting down', 'stopped']));
    await expect(fetch(`${service.url}/api/health`)).rejects.toThrow();
    // The service ended, and gave its database back: a new start on the directory serves the task.
    const again = await startServiceProcess({ PGLITE_DATA_DIR: dataDir });
    expect((await request(`${again.url}/api/tasks/${task.id}`)).status).toBe(200);
    expect(await again.stop()).toBe(0);
  });

  it('ends within its grace period when the reader of its stdout has gone away', async () => {
    const service = await startServiceProcess({ PGLITE_DATA_DIR: 'memory://', JWT_SECRET: TEST_JWT_SECRET });
    // Up to the ready line has been read; now close our end of the pipe: its peer is gone.
    service.child.stdout!.destroy();
    const started = Date.now();
    expect(await service.stop('SIGTERM')).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('log format', () => {
  it('is readable on a terminal (pino-pretty) and JSON lines otherwise', async () => {
    // `script` gives the service a pseudo-terminal as stdout.
    const child = spawn('script', ['-qfec', `exec ${process.execPath} dist/main.js`, '/dev/null'], {
      cwd: new URL('..', import.meta.url),
      env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', PGLITE_DATA_DIR: 'memory://', JWT_SECRET: TEST_JWT_SECRET },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const closed = once(child, 'close');
    let text = '';
    await new Promise<void>((resolve) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('ready on')) resolve();
      });
    });
    child.kill('SIGTERM');
    await closed;
    const ready = text.split('\n').find((line) => line.includes('ready on'))!;
    expect(ready).toMatch(/INFO/);
    expect(ready).not.toContain('{"level"');
    // Through a pipe, as every other test here reads it: one JSON object per line.
    const service = await startServiceProcess({ PGLITE_DATA_DIR: 'memory://', JWT_SECRET: TEST_JWT_SECRET });
    expect(await service.stop()).toBe(0);
    expect(service.lines.length).toBeGreaterThan(0);
    for (const line of service.lines) expect(() => JSON.parse(line)).not.toThrow();
  });
});
