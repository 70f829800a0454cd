import postgres from 'postgres';

/**
 * Statements a database has run, from pg_stat_statements (top-level statements
 * only, BEGIN and COMMIT included — each one a round trip). The extension must
 * be preloaded by the server (`shared_preload_libraries = 'pg_stat_statements'`);
 * where it is not, `count` answers undefined and the bench prints "–".
 * pg_stat_database is no substitute: backends flush it up to 10 s late.
 */
export interface StatementCounter {
  count(database: string): Promise<number | undefined>;
  close(): Promise<void>;
}

const STATS_DATABASE = 'lab_bench_stats';

export async function openStatementCounter(admin: postgres.Sql, databaseUrl: string): Promise<StatementCounter> {
  const [preloaded] = await admin`select current_setting('shared_preload_libraries') like '%pg_stat_statements%' as on`;
  if (!preloaded?.on) {
    process.stderr.write('pg_stat_statements is not preloaded: statements per request are not measured (see docs/performance.md)\n');
    return { count: async () => undefined, close: async () => {} };
  }
  // The view lives in a database of its own so that the bench's reads of it count against neither server.
  const [exists] = await admin`select 1 from pg_database where datname = ${STATS_DATABASE}`;
  if (!exists) await admin.unsafe(`create database ${STATS_DATABASE}`);
  const url = new URL(databaseUrl);
  url.pathname = `/${STATS_DATABASE}`;
  const stats = postgres(url.toString(), { max: 1, onnotice: () => {} });
  await stats`create extension if not exists pg_stat_statements`;
  return {
    async count(database) {
      const [row] = await stats`select coalesce(sum(s.calls), 0)::bigint as calls from pg_stat_statements s join pg_database d on d.oid = s.dbid where d.datname = ${database}`;
      return Number(row!.calls);
    },
    close: () => stats.end(),
  };
}
