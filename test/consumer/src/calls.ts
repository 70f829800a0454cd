// What a frontend writes against @lab-api/client: nothing here may need more
// than the package's declared entry points, strict mode and skipLibCheck.
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import {
  createLabApiClient,
  isLabApiError,
  newIdempotencyKey,
  retryAfterSeconds,
  withIdempotencyKey,
  type BoardUpdate,
  type IdempotentCall,
  type LabApiClient,
  type RouterInputs,
  type RouterOutputs,
} from '@lab-api/client';
import type { AppRouter } from '@lab-api/client/router';

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
  // A live board is the leaderboard scores.top answers, and after the first the score that moved it.
  Expect<Equal<Omit<BoardUpdate, 'latest'>, RouterOutputs['scores']['top']>>,
  Expect<Equal<BoardUpdate['latest'], RouterOutputs['scores']['submit'] | undefined>>,
  // A submission's call options are required, and carry the key.
  Expect<Equal<Parameters<LabApiClient['scores']['submit']['mutate']>[1], IdempotentCall>>,
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
  lostAnswer: { initials: string; keys: string[]; replayed: (string | null)[] };
}

/**
 * A network that loses the answer to the first submission it carries: the
 * request reaches the service, which stores the score, and the response
 * never comes back. What each submission attempt sent and got is recorded.
 */
function losingTheFirstAnswer(): { fetch: typeof fetch; keys: string[]; replayed: (string | null)[] } {
  const seen = { keys: [] as string[], replayed: [] as (string | null)[] };
  const lossy: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const key = new Headers(init?.headers).get('Idempotency-Key');
    if (key === null) return response;
    seen.keys.push(key);
    seen.replayed.push(response.headers.get('Idempotent-Replayed'));
    if (seen.keys.length > 1) return response;
    await response.body?.cancel();
    throw new TypeError('fetch failed: the answer was lost on the way');
  };
  return { fetch: lossy, ...seen };
}

export async function exercise(baseUrl: string): Promise<Summary> {
  const client = createLabApiClient({ baseUrl });

  const created = await client.tasks.create.mutate({ title: 'from a consumer package' });
  // Two queries in one tick: one batched request.
  const [fetched, newest] = await Promise.all([client.tasks.byId.query({ id: created.id }), client.tasks.newest.query({ limit: 5 })]);

  // The raw tRPC client with the exported router type works the same.
  const raw = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: `${baseUrl}/api/trpc` })] });
  const board = await raw.scores.top.query({ game: 'demo', limit: 3 });

  const key = newIdempotencyKey();
  const score = { game: 'demo', initials: 'TSC', value: 1234 } as const;
  const submitted = await client.scores.submit.mutate(score, withIdempotencyKey(key));
  const again = await client.scores.submit.mutate(score, withIdempotencyKey(key));
  // @ts-expect-error — a submission without an Idempotency-Key does not compile (the service would answer 400).
  void (() => client.scores.submit.mutate(score));
  // @ts-expect-error — call options without the key are not enough either.
  void (() => client.scores.submit.mutate(score, { signal: AbortSignal.timeout(1_000) }));
  // @ts-expect-error — nor is a context without it.
  void (() => client.scores.submit.mutate(score, { context: {} }));

  // The client sends a submission whose answer was lost again by itself, with the same key.
  const network = losingTheFirstAnswer();
  const lossyClient = createLabApiClient({ baseUrl, fetch: network.fetch });
  const recovered = await lossyClient.scores.submit.mutate({ game: 'demo', initials: 'NET', value: 7 }, withIdempotencyKey());

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
    lostAnswer: { initials: recovered.initials, keys: network.keys, replayed: network.replayed },
  };
}
