// What a frontend writes against lab-api: nothing here may need more than the
// package's declared entry points, strict mode and skipLibCheck.
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import { createLabApiClient, isLabApiError, retryAfterSeconds, withIdempotencyKey, type RouterInputs, type RouterOutputs } from 'lab-api/client';
import type { AppRouter } from 'lab-api/router';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;
type Game = 'toppler' | 'marble' | 'stacker' | 'runner' | 'demo';
type Task = { id: string; title: string; done: boolean; createdAt: string; updatedAt: string };

// Outputs and inputs are the precise types: were any of them `any`, Equal would be false.
type _Checks = [
  Expect<Equal<RouterOutputs['tasks']['byId'], Task>>,
  Expect<Equal<RouterOutputs['tasks']['newest'], Task[]>>,
  Expect<Equal<RouterOutputs['scores']['top']['better'], 'higher' | 'lower'>>,
  Expect<Equal<RouterOutputs['scores']['submit'], { id: string; game: Game; initials: string; value: number; rank: number; createdAt: string }>>,
  Expect<Equal<RouterInputs['scores']['submit'], { game: Game; initials: string; value: number }>>,
  Expect<Equal<RouterInputs['tasks']['create'], { title: string }>>,
];

/** What the calls returned, for the test that runs this package to compare. */
export interface Summary {
  created: Task;
  fetched: Task;
  newestIds: string[];
  board: { game: Game; entries: number };
  submitted: { initials: string; rank: number };
  replayedSameId: boolean;
  notFound: { code: string | undefined; httpStatus: number | undefined };
  badInput: { code: string | undefined; issuePaths: string[] };
  limited: { code: string | undefined; retryAfter: number | undefined };
}

export async function exercise(baseUrl: string): Promise<Summary> {
  const client = createLabApiClient({ baseUrl });

  const created = await client.tasks.create.mutate({ title: 'from a consumer package' });
  // Two queries in one tick: one batched request.
  const [fetched, newest] = await Promise.all([client.tasks.byId.query({ id: created.id }), client.tasks.newest.query({ limit: 5 })]);

  // The raw tRPC client with the exported router type works the same.
  const raw = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: `${baseUrl}/api/trpc` })] });
  const board = await raw.scores.top.query({ game: 'demo', limit: 3 });

  const key = crypto.randomUUID();
  const score = { game: 'demo', initials: 'TSC', value: 1234 } as const;
  const submitted = await client.scores.submit.mutate(score, withIdempotencyKey(key));
  const again = await client.scores.submit.mutate(score, withIdempotencyKey(key));

  const notFound = await client.tasks.byId.query({ id: '00000000-0000-4000-8000-000000000000' }).catch((error: unknown) => error);
  // @ts-expect-error — 'chess' is not a game: a type error here, and a 400 at run time.
  const badInput = await client.scores.top.query({ game: 'chess' }).catch((error: unknown) => error);
  // @ts-expect-error — unknown fields are refused by the type as by the service.
  void (() => client.tasks.create.mutate({ title: 'x', done: true }));
  // @ts-expect-error — initials are a string.
  void (() => client.scores.submit.mutate({ game: 'demo', initials: 123, value: 1 }));
  // @ts-expect-error — no such procedure.
  void (() => client.tasks.nope.query());

  // The demo limit allows 5 calls in a window of 10 s: 11 quick calls meet at most
  // two windows, so one of them sees a sixth call, a 429 with Retry-After.
  let limited: unknown;
  for (let i = 0; i < 11 && limited === undefined; i++) limited = await client.limits.demo.query().then(() => undefined, (error: unknown) => error);

  return {
    created,
    fetched,
    newestIds: newest.map((task) => task.id),
    board: { game: board.game, entries: board.entries.length },
    submitted: { initials: submitted.initials, rank: submitted.rank },
    replayedSameId: again.id === submitted.id,
    notFound: isLabApiError(notFound) ? { code: notFound.data?.code, httpStatus: notFound.data?.httpStatus } : { code: undefined, httpStatus: undefined },
    badInput: isLabApiError(badInput) ? { code: badInput.data?.code, issuePaths: (badInput.data?.issues ?? []).map((issue) => issue.path) } : { code: undefined, issuePaths: [] },
    limited: isLabApiError(limited) ? { code: limited.data?.code, retryAfter: retryAfterSeconds(limited) } : { code: undefined, retryAfter: undefined },
  };
}
