import { randomUUID } from 'node:crypto';
import { TRPCClientError } from '@trpc/client';
import type { inferRouterOutputs } from '@trpc/server';
import { beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { AppRouter } from '../src/client/app-router.ts';
import { request } from './support/http.ts';
import { submitScore } from './support/scores-client.ts';
import { createTask } from './support/tasks-client.ts';
import { useTestServer } from './support/test-server.ts';
import { trpcClient, type TrpcClient } from './support/trpc-client.ts';

/** docs/spec/SPEC.md's shapes, written out here: if the router's outputs drift, `npm run typecheck` fails. */
interface SpecTask {
  id: string;
  title: string;
  done: boolean;
  createdAt: string;
  updatedAt: string;
}
interface SpecLeaderboard {
  game: 'toppler' | 'marble' | 'stacker' | 'runner' | 'demo';
  name: string;
  unit: string;
  better: 'higher' | 'lower';
  entries: { rank: number; id: string; initials: string; value: number; createdAt: string }[];
}

const server = useTestServer();
let client: TrpcClient;
beforeAll(async () => {
  client = trpcClient(server.url);
});

describe('types a TypeScript frontend gets', () => {
  it('match SPEC exactly', () => {
    type Outputs = inferRouterOutputs<AppRouter>;
    expectTypeOf<Outputs['tasks']['newest']>().toEqualTypeOf<SpecTask[]>();
    expectTypeOf<Outputs['tasks']['byId']>().toEqualTypeOf<SpecTask>();
    expectTypeOf<Outputs['tasks']['create']>().toEqualTypeOf<SpecTask>();
    expectTypeOf<Outputs['scores']['top']>().toEqualTypeOf<SpecLeaderboard>();
    expectTypeOf(client.tasks.create.mutate).parameter(0).toEqualTypeOf<{ title: string }>();
    expectTypeOf(client.scores.top.query).parameter(0).toEqualTypeOf<{ game: SpecLeaderboard['game']; limit?: number | undefined }>();
  });
});

describe('tasks.newest', () => {
  it('returns 5 of the newest tasks by default, up to limit, newest first', async () => {
    for (let i = 0; i < 7; i++) await createTask(server.url, { title: `n${i}` });
    const five = await client.tasks.newest.query();
    expect(five).toHaveLength(5);
    expect(five[0]!.title).toBe('n6');
    expect(await client.tasks.newest.query({ limit: 7 })).toHaveLength(7);
    const rest = await request<{ items: SpecTask[] }>(`${server.url}/api/tasks?limit=5`);
    expect(five).toEqual(rest.body.items);
  });

  it.each([0, 51, 2.5])('limit %s → BAD_REQUEST (HTTP 400) with the issue', async (limit) => {
    const error = (await client.tasks.newest.query({ limit }).catch((caught: unknown) => caught)) as TRPCClientError<AppRouter>;
    expect(error).toBeInstanceOf(TRPCClientError);
    expect(error.data?.httpStatus).toBe(400);
    expect(error.data?.code).toBe('BAD_REQUEST');
    expect((error.data as { issues: { path: string }[] }).issues.map((issue) => issue.path)).toEqual(['limit']);
  });
});

describe('tasks.byId', () => {
  it('returns the version 1 task', async () => {
    const { task } = await createTask(server.url, { title: 'one', done: true });
    expect(await client.tasks.byId.query({ id: task.id })).toEqual(task);
  });

  it('answers NOT_FOUND for a missing task and BAD_REQUEST for a bad id', async () => {
    const missing = (await client.tasks.byId.query({ id: randomUUID() }).catch((caught: unknown) => caught)) as TRPCClientError<AppRouter>;
    expect(missing.data?.code).toBe('NOT_FOUND');
    expect(missing.data?.httpStatus).toBe(404);
    const bad = (await client.tasks.byId.query({ id: 'nope' }).catch((caught: unknown) => caught)) as TRPCClientError<AppRouter>;
    expect(bad.data?.httpStatus).toBe(400);
  });
});

describe('tasks.create', () => {
  it('creates an open task with a trimmed title', async () => {
    const task = await client.tasks.create.mutate({ title: '  rpc  ' });
    expect(task).toMatchObject({ title: 'rpc', done: false });
    expect((await request(`${server.url}/api/tasks/${task.id}`)).body).toEqual(task);
  });

  it('rejects unknown fields — done included, its input is the title alone', async () => {
    const response = await request<{ error: { data: { httpStatus: number; issues: unknown } } }>(`${server.url}/api/trpc/tasks.create`, {
      method: 'POST',
      body: JSON.stringify({ title: 'x', done: true, colour: 'red' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.data.issues).toEqual([
      { path: 'done', message: 'Unknown field' },
      { path: 'colour', message: 'Unknown field' },
    ]);
  });

  it('applies the title rules', async () => {
    const error = (await client.tasks.create.mutate({ title: ' ' }).catch((caught: unknown) => caught)) as TRPCClientError<AppRouter>;
    expect((error.data as { issues: unknown }).issues).toEqual([{ path: 'title', message: 'Give the task a title' }]);
  });
});

describe('scores.top', () => {
  it('returns the Leaderboard as GET /api/scores does, 10 entries by default', async () => {
    for (let i = 0; i < 12; i++) await submitScore(server.url, { game: 'toppler', initials: 'TOP', value: 100 + i });
    const board = await client.scores.top.query({ game: 'toppler' });
    expect(board.entries).toHaveLength(10);
    const rest = await request(`${server.url}/api/scores?game=toppler`);
    expect(board).toEqual(rest.body);
    expect((await client.scores.top.query({ game: 'toppler', limit: 2 })).entries).toHaveLength(2);
  });

  it('rejects an unknown game and a bad limit', async () => {
    for (const input of [{ game: 'pong' }, { game: 'demo', limit: 0 }, { game: 'demo', limit: 51 }]) {
      const error = (await client.scores.top.query(input as never).catch((caught: unknown) => caught)) as TRPCClientError<AppRouter>;
      expect(error.data?.httpStatus).toBe(400);
    }
  });
});

describe('the wire format', () => {
  it('queries by GET with input, mutations by POST, batches with ?batch=1', async () => {
    const { task } = await createTask(server.url, { title: 'wire' });
    const single = await request<{ result: { data: SpecTask } }>(
      `${server.url}/api/trpc/tasks.byId?input=${encodeURIComponent(JSON.stringify({ id: task.id }))}`,
    );
    expect(single.body.result.data).toEqual(task);
    const batch = await request<{ result?: { data: unknown }; error?: { data: { code: string } } }[]>(
      `${server.url}/api/trpc/tasks.byId,scores.top,tasks.byId?batch=1&input=${encodeURIComponent(
        JSON.stringify({ 0: { id: task.id }, 1: { game: 'demo', limit: 1 }, 2: { id: randomUUID() } }),
      )}`,
    );
    expect(batch.body).toHaveLength(3);
    expect(batch.body[0]!.result!.data).toEqual(task);
    expect(batch.body[1]!.result!.data).toMatchObject({ game: 'demo' });
    expect(batch.body[2]!.error!.data.code).toBe('NOT_FOUND');
    const byGet = await request(`${server.url}/api/trpc/tasks.create?input=${encodeURIComponent(JSON.stringify({ title: 'no' }))}`);
    expect(byGet.status).toBe(405);
  });
});
