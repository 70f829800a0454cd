import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { openDatabase, type DatabaseHandle } from '../src/db/client.ts';
import { compiledStatement } from '../src/db/compiled-statement.ts';
import { tasks } from '../src/db/schema/index.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

/**
 * Hot statements are built once and run with their placeholders' values, on
 * the database or inside a transaction (src/db/compiled-statement.ts), on
 * whichever database the suite runs on.
 */
let testDatabase: TestDatabase;
let database: DatabaseHandle;
beforeAll(async () => {
  testDatabase = await createTestDatabase();
  database = await openDatabase(loadConfig(testDatabase.env).database);
  await database.migrate();
});
afterAll(async () => {
  await database.close();
  await testDatabase.drop();
});

let builds = 0;
const insertTask = compiledStatement<{ id: string; title: string }>(() => {
  builds++;
  return sql`insert into ${tasks} (id, title, done, created_at, updated_at)
    values (${sql.placeholder('id')}, ${sql.placeholder('title')}, false, ${sql.placeholder('at')}::timestamptz, ${sql.placeholder('at')}::timestamptz)
    returning id, title`;
});
const taskTitle = compiledStatement<{ title: string }>(() => sql`select title from ${tasks} where ${tasks.id} = ${sql.placeholder('id')}`);

describe("Drizzle's session, as compiled-statement.ts reaches it (ADR 0009)", () => {
  it('is the executor\'s typed `_.session`, whose prepareQuery takes (query, fields, name, arrayMode, rowMapper) in that order', () => {
    const session = (database.db as unknown as { _: { session?: { prepareQuery?: (...args: unknown[]) => unknown } } })._.session;
    expect(typeof session?.prepareQuery, 'Drizzle changed its session: measure ADR 0009 again before fixing compiled-statement.ts').toBe('function');
    expect(String(session!.prepareQuery).replace(/\s+/g, ''), 'Drizzle changed prepareQuery\'s parameters: measure ADR 0009 again before fixing compiled-statement.ts').toMatch(
      /^prepareQuery\(query,fields,name,isResponseInArrayMode,customResultMapper[,)]/,
    );
  });
});

describe('compiledStatement', () => {
  it('builds its text once and binds each run’s values', async () => {
    const first = randomUUID();
    const second = randomUUID();
    const at = new Date().toISOString();
    expect(await insertTask.run(database.db, { id: first, title: 'one', at })).toEqual([{ id: first, title: 'one' }]);
    expect(await insertTask.run(database.db, { id: second, title: "it's two", at })).toEqual([{ id: second, title: "it's two" }]);
    expect(builds).toBe(1);
    expect(await taskTitle.run(database.db, { id: second })).toEqual([{ title: "it's two" }]);
  });

  it('runs inside a transaction, on its connection: rolled back with it', async () => {
    const id = randomUUID();
    const rollback = new Error('roll back');
    await expect(
      database.db.transaction(async (tx) => {
        await insertTask.run(tx, { id, title: 'inside', at: new Date().toISOString() });
        // Seen inside the transaction…
        expect(await taskTitle.run(tx, { id })).toEqual([{ title: 'inside' }]);
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    // …and gone with it.
    expect(await taskTitle.run(database.db, { id })).toEqual([]);
  });
});
