import postgres from 'postgres';
import { startServiceProcess, type ServiceProcess } from './service-process.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';
import { TEST_BASE_URL, TEST_JWT_SECRET } from './test-server.ts';

export interface Cluster {
  instances: ServiceProcess[];
  /** The BASE_URL every instance shares, as behind one load balancer. */
  baseUrl: string;
  /** The next instance's URL, round-robin, as a load balancer would spread requests. */
  next(): string;
  /** Plain SQL on the shared database, to check what was stored. */
  sql: postgres.Sql;
  database: TestDatabase;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /**
   * The instances' database settings for the fresh database's URL; by
   * default DATABASE_URL is that URL. A pooler in front gives its own URL
   * (and DATABASE_DIRECT_URL the direct one, or not).
   */
  databaseEnv?: (databaseUrl: string) => Record<string, string>;
}

/**
 * `size` instances of the real service (`npm start`'s command, each its own
 * process) started at the same moment on one fresh PostgreSQL database.
 * PostgreSQL only: PGlite is one process's database. `sql` always connects
 * directly, whatever the instances connect through.
 */
export async function startCluster(size: number, env: Record<string, string> = {}, options: ClusterOptions = {}): Promise<Cluster> {
  const database = await createTestDatabase();
  const databaseEnv = options.databaseEnv?.(database.env.DATABASE_URL!) ?? database.env;
  const shared = { BASE_URL: TEST_BASE_URL, JWT_SECRET: TEST_JWT_SECRET, ...databaseEnv, ...env };
  const started = await Promise.allSettled(Array.from({ length: size }, () => startServiceProcess(shared)));
  const instances = started.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const sql = postgres(database.env.DATABASE_URL!, { max: 2, onnotice: () => {} });
  const stop = async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await sql.end();
    await database.drop();
  };
  const failed = started.find((outcome) => outcome.status === 'rejected');
  if (failed) {
    await stop();
    throw (failed as PromiseRejectedResult).reason;
  }
  let turn = 0;
  return {
    instances,
    baseUrl: TEST_BASE_URL,
    next: () => instances[turn++ % instances.length]!.url,
    sql,
    database,
    stop,
  };
}
