import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeOnPostgres } from './support/postgres-only.ts';
import { postScore } from './support/scores-client.ts';
import { pgbouncerInstalled, startPgBouncer } from './support/pgbouncer.ts';
import { runServiceExpectingFailure, startServiceProcess } from './support/service-process.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';
import { TEST_BASE_URL, TEST_JWT_SECRET } from './support/test-server.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const DEPLOY = new URL('../docs/DEPLOY.md', import.meta.url);
const CONCURRENT_CLIENTS = 24;
const SUBMISSIONS = 600;

/** The runtime stage's `COPY --from=build /app/<source> ./<target>` lines of DEPLOY.md's Dockerfile. */
async function runtimeCopies(): Promise<{ source: string; target: string }[]> {
  const text = await readFile(DEPLOY, 'utf8');
  const dockerfile = /```dockerfile\n([\s\S]*?)```/.exec(text)?.[1] ?? '';
  return [...dockerfile.matchAll(/^COPY --from=build \/app\/(\S+) \.\/(\S+)$/gm)].map(([, source, target]) => ({ source: source!, target: target! }));
}

async function run(command: string, args: string[], cwd: string): Promise<void> {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${code}: ${stderr}`);
}

const npm = (args: string[], cwd: string) => run('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline'], cwd);

/**
 * The image docs/DEPLOY.md describes, laid out in a directory: this checkout
 * (installed by `npm ci`, as the build stage's first command) is copied and
 * pruned as the build stage does, and the runtime stage's COPY lines are
 * followed from the document itself.
 */
describeOnPostgres('the production image of docs/DEPLOY.md, directly and through PgBouncer', 'runs the documented image against a PostgreSQL server', () => {
  let workDir: string;
  let image: string;
  let database: TestDatabase;
  let sql: postgres.Sql;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'lab-api-image-'));
    const build = join(workDir, 'build');
    image = join(workDir, 'image');
    for (const path of ['package.json', 'package-lock.json', 'node_modules', 'dist']) await cp(join(root, path), join(build, path), { recursive: true, verbatimSymlinks: true });
    await npm(['prune', '--omit=dev'], build);
    const copies = await runtimeCopies();
    expect(copies.map((copy) => copy.source)).toEqual(expect.arrayContaining(['dist', 'node_modules', 'package.json']));
    for (const copy of copies) await cp(join(build, copy.source), join(image, copy.target), { recursive: true, verbatimSymlinks: true });
    database = await createTestDatabase();
    sql = postgres(database.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  }, 180_000);
  afterAll(async () => {
    await sql?.end();
    await database?.drop();
    await rm(workDir, { recursive: true, force: true });
  });

  /** The image's service under the load that answered 500 from an unpatched driver: every submission stored. */
  async function storesEverySubmission(databaseUrl: string, initials: string): Promise<void> {
    const service = await startServiceProcess(
      { DATABASE_URL: databaseUrl, BASE_URL: TEST_BASE_URL, JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_SCORES_PER_MINUTE: '100000' },
      { cwd: image },
    );
    try {
      const statuses = new Map<number, number>();
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENT_CLIENTS }, async () => {
          while (next < SUBMISSIONS) {
            const value = next++;
            const answer = await postScore(service.url, { game: 'demo', initials, value });
            statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          }
        }),
      );
      expect(Object.fromEntries(statuses)).toEqual({ 201: SUBMISSIONS });
      const [events] = await sql`select count(*)::int as n from events where data->>'initials' = ${initials}`;
      expect(events!.n).toBe(SUBMISSIONS);
    } finally {
      await service.stop();
    }
  }

  it(`stores every one of ${SUBMISSIONS} score submissions from ${CONCURRENT_CLIENTS} concurrent clients`, async () => {
    await storesEverySubmission(database.env.DATABASE_URL!, 'IMG');
  });

  it(`through PgBouncer (docs/deploy/pgbouncer.ini) too`, async (context) => {
    if (!pgbouncerInstalled) return context.skip("Debian's pgbouncer is not installed (/usr/sbin/pgbouncer); .ci/run installs it");
    const upstream = new URL(database.env.DATABASE_URL!);
    const pgbouncer = await startPgBouncer({ upstream: { host: upstream.hostname, port: Number(upstream.port || 5432) } });
    try {
      await storesEverySubmission(pgbouncer.urlFor(database.env.DATABASE_URL!), 'IMP');
    } finally {
      await pgbouncer.stop();
    }
  });

  it('refuses to start, in one line, when the driver was installed without its patch (npm ci --omit=dev --ignore-scripts)', async () => {
    const unpatched = join(workDir, 'unpatched');
    for (const path of ['package.json', 'package-lock.json', 'dist']) await cp(join(root, path), join(unpatched, path), { recursive: true });
    await npm(['ci', '--omit=dev', '--ignore-scripts'], unpatched);
    const outcome = await runServiceExpectingFailure({ ...database.env, JWT_SECRET: TEST_JWT_SECRET }, unpatched);
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toBe('');
    expect(outcome.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^The installed postgres driver lacks this service's patch \(index\.js: reserve-closes\)/)]);
  }, 180_000);
});
