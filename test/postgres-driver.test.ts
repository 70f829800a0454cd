import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect } from 'vitest';
import { itOnPostgres } from './support/postgres-only.ts';
import { postgresUrl } from './support/test-database.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * patches/postgres+3.4.9.patch turns postgres.js's static `Symbol.species`
 * getters (Result, Query) into data properties. With the getters, V8 on
 * Node 20 started optimizing those classes, and the code that allocates
 * them, over and over, each time throwing the work away ("dependency
 * change"): worker threads compiled without end, a quarter of a task read's
 * CPU. Run 20,000 queries and read V8's own account of its optimizations.
 */
describe('postgres.js under load', () => {
  itOnPostgres('is optimized once: no optimization of its result or query classes is thrown away', 'postgres.js talks to a PostgreSQL server', async () => {
    const script = `
      import postgres from 'postgres';
      const sql = postgres(process.env.LOAD_DATABASE_URL, { max: 4, onnotice: () => {} });
      let rows = 0;
      for (let round = 0; round < 40; round++) {
        const results = await Promise.all(Array.from({ length: 500 }, (_, index) => sql\`select \${index}::int as n\`));
        rows += results.length;
        if (results[0].map((row) => row.n).constructor !== Array) throw new Error('a mapped result should be a plain array');
      }
      await sql.end();
      console.log('rows ' + rows);
    `;
    const run = spawnSync(process.execPath, ['--trace-opt', '--input-type=module', '-e', script], {
      cwd: root,
      env: { ...process.env, LOAD_DATABASE_URL: postgresUrl },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('rows 20000');
    const thrownAway = run.stdout.split('\n').filter((line) => /aborted optimizing .*<JSFunction (Result|Query) /.test(line));
    expect(thrownAway).toEqual([]);
  }, 60_000);
});
