import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from './support/http.ts';
import { bearer, createKey, exchangeForToken } from './support/keys-client.ts';
import { describeOnPostgres } from './support/postgres-only.ts';
import { postScore, submitScore } from './support/scores-client.ts';
import { startServiceProcess, type ServiceProcess } from './support/service-process.ts';
import { createTask, patchTask } from './support/tasks-client.ts';
import { createTestDatabase, postgresUrl, type TestDatabase } from './support/test-database.ts';
import { TEST_JWT_SECRET } from './support/test-server.ts';

const BASE_URL = 'http://api.test';
const DEPLOY_MD = new URL('../docs/DEPLOY.md', import.meta.url);

/** The shell commands of docs/DEPLOY.md's "Backups" section, comments and blank lines left out. */
async function documentedBackupCommands(): Promise<string[]> {
  const text = await readFile(DEPLOY_MD, 'utf8');
  const from = text.indexOf('\n## Backups\n');
  const to = text.indexOf('\n## ', from + 1);
  const block = from === -1 ? null : /```sh\n([\s\S]*?)```/.exec(text.slice(from, to === -1 ? undefined : to));
  if (!block) throw new Error('docs/DEPLOY.md has no sh block under "## Backups"');
  return block[1]!
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/**
 * A documented command with only the names changed: the host, the roles and
 * the two databases of the document become this test's. The port comes from
 * PGPORT, which every PostgreSQL client reads.
 */
function asRunHere(command: string, names: { host: string; user: string; live: string; restored: string }): string {
  const tokens = command.split(' ');
  return tokens
    .map((token, at) => {
      const option = tokens[at - 1];
      if (option === '-h') return names.host;
      if (option === '-U' || option === '-O') return names.user;
      if (token === 'lab_api') return names.live;
      if (token === 'lab_api_restored') return names.restored;
      return token;
    })
    .join(' ');
}

/** Runs one command through the shell, as an operator pastes it; it must succeed without a word on stderr. */
async function runAsOperator(command: string, cwd: string): Promise<void> {
  const url = new URL(postgresUrl!);
  const child = spawn('bash', ['-c', command], {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PGPORT: url.port || '5432', ...(url.password ? { PGPASSWORD: decodeURIComponent(url.password) } : {}) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  expect({ command, code, stderr }).toEqual({ command, code: 0, stderr: '' });
}

/** Everything a client can read back of what was stored, as it reads it. */
async function snapshot(url: string, key: string, token: string) {
  const read = async (path: string, credential?: string) => {
    const response = await request(`${url}${path}`, credential ? { headers: bearer(credential) } : {});
    return { status: response.status, etag: response.headers.get('etag'), body: response.body };
  };
  return {
    tasks: await read('/api/tasks?limit=50'),
    toppler: await read('/api/scores?game=toppler&limit=50'),
    marble: await read('/api/scores?game=marble&limit=50'),
    meByKey: await read('/api/me', key),
    meByToken: await read('/api/me', token),
    stats: await read('/api/stats', key),
    csv: await read('/api/export/tasks', token),
  };
}

describeOnPostgres('backup and restore as docs/DEPLOY.md says', 'pg_dump and pg_restore work on a PostgreSQL server', () => {
  let workDir: string;
  let live: TestDatabase;
  let restoredName: string;
  const services: ServiceProcess[] = [];
  const start = async (databaseUrl: string) => {
    const service = await startServiceProcess({ DATABASE_URL: databaseUrl, JWT_SECRET: TEST_JWT_SECRET, BASE_URL });
    services.push(service);
    return service;
  };

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'lab-api-backup-'));
    live = await createTestDatabase();
    restoredName = `${new URL(live.env.DATABASE_URL!).pathname.slice(1)}_restored`;
  });
  afterAll(async () => {
    for (const service of services) await service.stop();
    const admin = postgres(postgresUrl!, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists ${restoredName} with (force)`);
    await admin.end();
    await live.drop();
    await rm(workDir, { recursive: true, force: true });
  });

  it('the document gives a backup, a restore into a new database, and one over the old, each with its host and role', async () => {
    const commands = await documentedBackupCommands();
    expect(commands).toEqual([
      expect.stringMatching(/^pg_dump -Fc -h \S+ -U \S+ lab_api > lab_api\.dump$/),
      expect.stringMatching(/^createdb -h \S+ -U \S+ -O \S+ lab_api_restored$/),
      expect.stringMatching(/^pg_restore --no-owner -h \S+ -U \S+ -d lab_api_restored lab_api\.dump$/),
      expect.stringMatching(/^pg_restore --clean --if-exists --no-owner -h \S+ -U \S+ -d lab_api lab_api\.dump$/),
    ]);
  });

  it('restores tasks, keys, tokens, scores and idempotency records, into a new database and over the old one', async () => {
    const [backup, createRestored, restoreNew, restoreOver] = await documentedBackupCommands();
    const url = new URL(postgresUrl!);
    const liveUrl = live.env.DATABASE_URL!;
    const restoredUrl = Object.assign(new URL(liveUrl), { pathname: `/${restoredName}` }).toString();
    const names = { host: url.hostname, user: decodeURIComponent(url.username), live: new URL(liveUrl).pathname.slice(1), restored: restoredName };

    const first = await start(liveUrl);
    const tasks = await Promise.all(['file the report', 'water the plants', 'book the room'].map((title) => createTask(first.url, { title })));
    expect((await patchTask(first.url, tasks[1]!.task.id, { done: true })).status).toBe(200);
    const key = await createKey(first.url, { name: 'kept across the restore', scopes: ['stats:read', 'tasks:export'] });
    const token = await exchangeForToken(first.url, key.key);
    for (const [game, value] of [['toppler', 12000], ['toppler', 9000], ['marble', 61000]] as const) {
      await submitScore(first.url, { game, initials: 'ACE', value });
    }
    const idempotentBody = { game: 'toppler', initials: 'BOB', value: 15000 };
    const idempotencyKey = { 'Idempotency-Key': 'kept-across-the-restore' };
    const submitted = await postScore(first.url, idempotentBody, idempotencyKey);
    expect(submitted.status).toBe(201);
    const before = await snapshot(first.url, key.key, token);
    expect(before.tasks.body).toMatchObject({ items: expect.arrayContaining([expect.objectContaining({ title: 'water the plants', done: true })]) });
    expect(before.meByKey.status).toBe(200);
    expect(before.meByToken.status).toBe(200);

    // Backed up while the service runs; then a write the backup does not hold.
    await runAsOperator(asRunHere(backup!, names), workDir);
    await createTask(first.url, { title: 'after the backup' });
    await submitScore(first.url, { game: 'toppler', initials: 'NEW', value: 19000 });

    await runAsOperator(asRunHere(createRestored!, names), workDir);
    await runAsOperator(asRunHere(restoreNew!, names), workDir);
    const restored = await start(restoredUrl);
    expect(await snapshot(restored.url, key.key, token)).toEqual(before);
    // Tokens are still issued with the same secret, and the stored answer of an idempotent submission is replayed.
    expect((await request(`${restored.url}/api/me`, { headers: bearer(await exchangeForToken(restored.url, key.key)) })).status).toBe(200);
    const replayed = await postScore(restored.url, idempotentBody, idempotencyKey);
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(submitted.body);
    // New writes go on from where the restored sequences stand.
    expect((await submitScore(restored.url, { game: 'marble', initials: 'CAT', value: 50000 })).rank).toBe(1);
    expect((await createTask(restored.url, { title: 'after the restore' })).task.title).toBe('after the restore');

    // Over the old database, its instance stopped: the write after the backup is gone.
    expect(await first.stop()).toBe(0);
    await runAsOperator(asRunHere(restoreOver!, names), workDir);
    const again = await start(liveUrl);
    expect(await snapshot(again.url, key.key, token)).toEqual(before);
  }, 120_000);
});
