import { readFile } from 'node:fs/promises';
import { buildClientSchema, getIntrospectionQuery, lexicographicSortSchema, printSchema, type IntrospectionQuery } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_CONTENT_TYPE, graphql } from './support/graphql-client.ts';
import { createKey, bearer } from './support/keys-client.ts';
import { submitScore } from './support/scores-client.ts';
import { createTask } from './support/tasks-client.ts';
import { useTestServer } from './support/test-server.ts';

const server = useTestServer();
let auth: Record<string, string>;
beforeAll(async () => {
  // 240 requests a minute instead of 60: this file sends many.
  auth = bearer((await createKey(server.url, { name: 'graphql tests' })).key);
});

const ask = (query: string, variables?: Record<string, unknown>) => graphql(server.url, { query, ...(variables ? { variables } : {}) }, auth);

describe('queries and the mutation', () => {
  it('createTask trims the title and returns the Task; tasks lists the newest', async () => {
    const created = await ask('mutation { createTask(title: "  from graphql  ") { id title done createdAt updatedAt } }');
    expect(created.status).toBe(200);
    expect(created.headers.get('content-type')).toBe(GRAPHQL_CONTENT_TYPE);
    const task = created.body.data!.createTask as Record<string, unknown>;
    expect(task).toMatchObject({ title: 'from graphql', done: false });
    const rest = await fetch(`${server.url}/api/tasks/${task.id as string}`).then((response) => response.json());
    expect(rest).toEqual(task);
    const listed = await ask('{ tasks { id } }');
    expect((listed.body.data!.tasks as { id: string }[])[0]!.id).toBe(task.id);
  });

  it('tasks returns 5 by default and up to limit', async () => {
    for (let i = 0; i < 7; i++) await createTask(server.url, { title: `g${i}` });
    expect((await ask('{ tasks { id } }')).body.data!.tasks).toHaveLength(5);
    expect((await ask('{ tasks(limit: 7) { id } }')).body.data!.tasks).toHaveLength(7);
  });

  it('task returns one task, or null when there is none', async () => {
    const { task } = await createTask(server.url, { title: 'by id', done: true });
    const found = await ask('query One($id: ID!) { task(id: $id) { id title done } }', { id: task.id });
    expect(found.body.data!.task).toEqual({ id: task.id, title: 'by id', done: true });
    const missing = await ask('{ task(id: "00000000-0000-0000-0000-000000000000") { id } }');
    expect(missing.body).toEqual({ data: { task: null } });
  });

  it('leaderboard returns the board with its entries', async () => {
    const score = await submitScore(server.url, { game: 'stacker', initials: 'GQL', value: 321 });
    const response = await ask('{ leaderboard(game: stacker, limit: 3) { game name unit better entries { rank id initials value createdAt } } }');
    expect(response.body.data!.leaderboard).toEqual({
      game: 'stacker',
      name: 'Stacker',
      unit: 'slabs',
      better: 'higher',
      entries: [{ rank: 1, id: score.id, initials: 'GQL', value: 321, createdAt: score.createdAt }],
    });
  });

  it('accepts variables: null, and an operationName', async () => {
    const response = await graphql(server.url, { query: 'query A { tasks(limit: 1) { id } } query B { __typename }', variables: null, operationName: 'B' }, auth);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ __typename: 'Query' });
  });
});

describe('resolver input errors', () => {
  it.each([
    ['{ tasks(limit: 0) { id } }', 'tasks'],
    ['{ tasks(limit: 51) { id } }', 'tasks'],
    ['{ task(id: "not-a-uuid") { id } }', 'task'],
    ['{ leaderboard(game: demo, limit: 0) { name } }', 'leaderboard'],
    ['mutation { createTask(title: "   ") { id } }', 'createTask'],
  ])('%s → 200 with a BAD_USER_INPUT error at %s', async (query, path) => {
    const response = await ask(query);
    expect(response.status).toBe(200);
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors![0]).toMatchObject({ path: [path], extensions: { code: 'BAD_USER_INPUT' } });
  });

  it('names the rule that failed, with the same messages as REST', async () => {
    const empty = await ask('mutation { createTask(title: "") { id } }');
    expect(empty.body.errors![0]!.message).toBe('title: Give the task a title');
    const long = await ask(`mutation { createTask(title: "${'x'.repeat(201)}") { id } }`);
    expect(long.body.errors![0]!.message).toBe('title: Keep the title under 200 characters');
  });
});

describe('the schema', () => {
  it('can be introspected and matches the committed schema.graphql', async () => {
    const response = await ask(getIntrospectionQuery());
    expect(response.status).toBe(200);
    const served = printSchema(lexicographicSortSchema(buildClientSchema(response.body.data as unknown as IntrospectionQuery)));
    const committed = await readFile(new URL('./contracts/schema.graphql', import.meta.url), 'utf8');
    expect(`${served}\n`).toBe(committed);
  });

  it('lists the Game values in SPEC order', async () => {
    const response = await ask('{ __type(name: "Game") { enumValues { name } } }');
    const values = (response.body.data!.__type as { enumValues: { name: string }[] }).enumValues.map((value) => value.name);
    expect(values).toEqual(['toppler', 'marble', 'stacker', 'runner', 'demo']);
  });
});
