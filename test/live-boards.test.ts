import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { request } from './support/http.ts';
import { bearer, createKey } from './support/keys-client.ts';
import { FOLLOW, type Follower, type ReceivedBoard, type Transport } from './support/live-followers.ts';
import { expectProblem } from './support/problem.ts';
import { submitScore, type Leaderboard, type Score } from './support/scores-client.ts';
import { startTestServer, type TestServer } from './support/test-server.ts';
import { TcpProxy } from './support/tcp-proxy.ts';

const TRANSPORTS: Transport[] = ['rest', 'trpc', 'graphql'];
const LIVE_ENV = { SSE_POLL_MS: '50', SSE_KEEPALIVE_MS: '60000', SSE_STREAM_MS: '60000', SSE_MAX_STREAMS_PER_CLIENT: '1000' };

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: LIVE_ENV });
});
afterAll(() => server.stop());

const followers: Follower[] = [];
afterEach(() => {
  for (const follower of followers.splice(0)) follower.close();
});

/** One follower per transport, each past its first board. */
async function followOnEveryTransport(url: string, game: string): Promise<Follower[]> {
  const opened = TRANSPORTS.map((transport) => FOLLOW[transport](url, { game }));
  followers.push(...opened);
  await Promise.all(opened.map((follower) => follower.waitFor(() => true)));
  return opened;
}

const holds = (score: Score) => (received: ReceivedBoard) => received.board.entries.some((entry) => entry.id === score.id);
/** The board without the score that moved it: what GraphQL's Leaderboard carries. */
const boardOf = ({ board }: ReceivedBoard): Leaderboard => ({ game: board.game, name: board.name, unit: board.unit, better: board.better, entries: board.entries });

/** Boards with an event id (REST, tRPC): ids only grow, and no score moves the board twice. */
function expectNoRepeats(follower: Follower): void {
  if (follower.transport === 'graphql') return;
  const ids = follower.boards.map((received) => Number(received.id));
  expect(ids, `${follower.transport} ids`).toEqual([...ids].sort((a, b) => a - b));
  expect(new Set(ids).size, `${follower.transport} ids`).toBe(ids.length);
  const latest = follower.boards.flatMap((received) => (received.board.latest ? [received.board.latest.id] : []));
  expect(new Set(latest).size, `${follower.transport} latest`).toBe(latest.length);
}

describe('the same boards on every transport', () => {
  it('each follower gets the board at once, then a score another client submits within 2 s, and all agree with GET /api/scores', async () => {
    const all = await followOnEveryTransport(server.url, 'toppler');
    const score = await submitScore(server.url, { game: 'toppler', initials: 'LIV', value: 4321 });
    const moved = await Promise.all(all.map((follower) => follower.waitFor(holds(score), { timeoutMs: 2000 })));
    const read = await request<Leaderboard>(`${server.url}/api/scores?game=toppler`);
    for (const received of moved) expect(boardOf(received)).toEqual(read.body);
    // REST and tRPC say which score moved it, with the event id it came with.
    expect(moved[0]!.board.latest).toEqual(score);
    expect(moved[1]!.board.latest).toEqual(score);
    expect(moved[1]!.id).toBe(moved[0]!.id);
    for (const follower of all) expectNoRepeats(follower);
  });

  it('a score for another game moves none of them', async () => {
    const all = await followOnEveryTransport(server.url, 'stacker');
    const counts = all.map((follower) => follower.boards.length);
    await submitScore(server.url, { game: 'runner', initials: 'OTH', value: 5 });
    const mine = await submitScore(server.url, { game: 'stacker', initials: 'MIN', value: 6 });
    await Promise.all(all.map((follower) => follower.waitFor(holds(mine), { timeoutMs: 2000 })));
    expect(all.map((follower) => follower.boards.length)).toEqual(counts.map((count) => count + 1));
  });
});

describe('losing the connection', () => {
  it('dropped by the network: each client reconnects and gets the score submitted meanwhile, once, and nothing repeats', async () => {
    // The boards start after an event of the test's own: 0 (an empty log) is no id to resume after.
    await submitScore(server.url, { game: 'marble', initials: 'PRE', value: 1 });
    const proxy = new TcpProxy({ host: '127.0.0.1', port: Number(new URL(server.url).port) });
    await proxy.start();
    try {
      const all = await followOnEveryTransport(`http://127.0.0.1:${proxy.port}`, 'marble');
      const before = all.map((follower) => follower.boards.length);
      await proxy.stop();
      await vi.waitFor(() => expect(server.app.openStreams.count).toBe(0), { timeout: 5000, interval: 20 });
      const missed = await submitScore(server.url, { game: 'marble', initials: 'GAP', value: 777 });
      await proxy.start();
      const resumed = await Promise.all(all.map((follower, i) => follower.waitFor(holds(missed), { from: before[i], timeoutMs: 10_000 })));
      // REST and tRPC resume after the last id they saw: the first board they get is the one the missed score moved.
      expect(resumed[0]!.board.latest).toEqual(missed);
      expect(resumed[1]!.board.latest).toEqual(missed);
      expect(all[0]!.boards.length).toBe(before[0]! + 1);
      expect(all[1]!.boards.length).toBe(before[1]! + 1);
      // GraphQL over SSE has no event ids: the subscription starts again with the current board, which holds it.
      expect(boardOf(resumed[2]!)).toEqual((await request<Leaderboard>(`${server.url}/api/scores?game=marble`)).body);

      const next = await submitScore(server.url, { game: 'marble', initials: 'NXT', value: 778 });
      await Promise.all(all.map((follower) => follower.waitFor(holds(next), { timeoutMs: 2000 })));
      for (const follower of all) expectNoRepeats(follower);
    } finally {
      await proxy.stop();
    }
  });

  it('ended by the server after SSE_STREAM_MS: each client comes back by itself and misses nothing', async () => {
    const brief = await startTestServer({ env: { ...LIVE_ENV, SSE_STREAM_MS: '1000' } });
    try {
      const all = await followOnEveryTransport(brief.url, 'demo');
      const first = await submitScore(brief.url, { game: 'demo', initials: 'ONE', value: 1 });
      await Promise.all(all.map((follower) => follower.waitFor(holds(first), { timeoutMs: 2000 })));
      // Each stream ends after 1 s and its client comes back by itself.
      await Promise.all(all.map((follower) => follower.reconnected(1)));
      const second = await submitScore(brief.url, { game: 'demo', initials: 'TWO', value: 2 });
      const moved = await Promise.all(all.map((follower) => follower.waitFor(holds(second), { timeoutMs: 6000 })));
      expect(moved[0]!.board.latest).toEqual(second);
      expect(moved[1]!.board.latest).toEqual(second);
      for (const follower of all) {
        expect(follower.errors.filter((error) => !(error instanceof Event) && !String(error).includes('connection')), follower.transport).toEqual([]);
        expectNoRepeats(follower);
      }
    } finally {
      for (const follower of followers.splice(0)) follower.close();
      await brief.stop();
    }
  });
});

describe('the per-client cap is one for every transport', () => {
  it('with SSE_MAX_STREAMS_PER_CLIENT=2, a REST and a tRPC stream leave no room for a third of any kind, and closing one makes room', async () => {
    const capped = await startTestServer({ env: { ...LIVE_ENV, SSE_MAX_STREAMS_PER_CLIENT: '2' } });
    try {
      const rest = FOLLOW.rest(capped.url, { game: 'demo' });
      const trpc = FOLLOW.trpc(capped.url, { game: 'demo' });
      followers.push(rest, trpc);
      await Promise.all([rest.waitFor(() => true), trpc.waitFor(() => true)]);
      expect(capped.app.openStreams.count).toBe(2);

      const graphql = FOLLOW.graphql(capped.url, { game: 'demo' });
      followers.push(graphql);
      expect(JSON.stringify(await graphql.nextError())).toContain('RATE_LIMITED');
      const another = FOLLOW.trpc(capped.url, { game: 'demo' });
      followers.push(another);
      expect(await another.nextError()).toMatchObject({ data: { code: 'TOO_MANY_REQUESTS', httpStatus: 429 } });
      const refused = await request(`${capped.url}/api/scores/stream?game=demo`);
      expectProblem(refused, capped.baseUrl, 'rate-limited', 429, '/api/scores/stream');
      expect(graphql.boards).toEqual([]);
      expect(another.boards).toEqual([]);

      trpc.close();
      await vi.waitFor(() => expect(capped.app.openStreams.count).toBe(1), { timeout: 5000, interval: 20 });
      const admitted = FOLLOW.graphql(capped.url, { game: 'demo' });
      followers.push(admitted);
      await admitted.waitFor(() => true);
    } finally {
      for (const follower of followers.splice(0)) follower.close();
      await capped.stop();
    }
  });
});

describe('credentials', () => {
  it('an unknown key is refused on every transport, before any board', async () => {
    const bad = { game: 'runner', credential: 'lab_live_0000000000000000000000000000000000000000', retryAttempts: 0 };
    const rest = await request(`${server.url}/api/scores/stream?game=runner`, { headers: bearer(bad.credential) });
    expectProblem(rest, server.baseUrl, 'unauthorized', 401, '/api/scores/stream');
    const trpc = await fetch(`${server.url}/api/trpc/scores.live?input=${encodeURIComponent(JSON.stringify({ game: 'runner' }))}`, { headers: { ...bearer(bad.credential), accept: 'text/event-stream' } });
    expect(trpc.status).toBe(401);
    expect(((await trpc.json()) as { error: { data: { code: string } } }).error.data.code).toBe('UNAUTHORIZED');
    const graphql = FOLLOW.graphql(server.url, bad);
    followers.push(graphql);
    expect(((await graphql.nextError()) as { response?: Response }).response?.status).toBe(401);
    expect(graphql.boards).toEqual([]);
  });

  it('a valid key follows on every transport', async () => {
    const { key } = await createKey(server.url, { name: 'live' });
    const all = TRANSPORTS.map((transport) => FOLLOW[transport](server.url, { game: 'runner', credential: key }));
    followers.push(...all);
    const score = await submitScore(server.url, { game: 'runner', initials: 'KEY', value: 9 });
    await Promise.all(all.map((follower) => follower.waitFor(holds(score), { timeoutMs: 3000 })));
  });
});

describe('shutdown', () => {
  it('ends the tRPC and GraphQL streams with the REST ones, without waiting for them', async () => {
    const doomed = await startTestServer({ env: LIVE_ENV });
    const all = await followOnEveryTransport(doomed.url, 'demo');
    expect(doomed.app.openStreams.count).toBe(3);
    const started = Date.now();
    await doomed.stop();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(doomed.app.openStreams.count).toBe(0);
    for (const follower of all) follower.close();
  });
});

describe('GraphQL: the subscription beside the rules for queries and mutations', () => {
  const post = (query: string, accept: string) =>
    fetch(`${server.url}/api/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept }, body: JSON.stringify({ query }) });

  it('a query asked for as an event stream is still answered as graphql-response JSON', async () => {
    const response = await post('{ leaderboard(game: demo, limit: 1) { game } }', 'text/event-stream');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/graphql-response+json; charset=utf-8');
    expect(await response.json()).toEqual({ data: { leaderboard: { game: 'demo' } } });
  });

  it('a subscription asked for as JSON is a 406 that says how to ask', async () => {
    const response = await post('subscription { leaderboard(game: demo) { game } }', 'application/graphql-response+json');
    expect(response.status).toBe(406);
    expect(response.headers.get('content-type')).toBe('application/graphql-response+json; charset=utf-8');
    expect(await response.json()).toEqual({ errors: [{ message: 'A subscription is served as GraphQL over SSE: send it with Accept: text/event-stream.' }] });
  });

  it('a limit out of range: one event with the error, then the stream completes, holding no slot', async () => {
    const [query, code] = ['subscription { leaderboard(game: demo, limit: 0) { game } }', 'BAD_USER_INPUT'];
    const response = await post(query, 'text/event-stream');
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('event: next');
    expect(text).toContain(`"code":"${code}"`);
    expect(text).toContain('event: complete');
    expect(text).not.toContain('"entries"');
    await vi.waitFor(() => expect(server.app.openStreams.count).toBe(0), { timeout: 5000, interval: 20 });
  });
});

describe('GraphQL: a subscription refused before it starts is answered as any operation is, a 400 in graphql-response JSON', () => {
  const ROOT_CONDITIONAL = 'The root field of a subscription cannot be skipped or included conditionally (@skip, @include).';
  // A document past 500 characters is validated in the GraphQL thread first: the same answer.
  const long = (query: string) => `${query}\n${'#'.repeat(600)}`;

  it.each([
    ['an unknown field', 'subscription { leaderboard(game: demo) { nope } }', undefined, 'Cannot query field "nope" on type "Leaderboard". Did you mean "name"?'],
    ['a root field skipped', 'subscription { leaderboard(game: demo) @skip(if: true) { game } }', undefined, ROOT_CONDITIONAL],
    ['a root field included by a variable', 'subscription($s: Boolean!) { leaderboard(game: demo) @include(if: $s) { game } }', { s: true }, ROOT_CONDITIONAL],
    ['the same, in a long document', long('subscription($s: Boolean!) { leaderboard(game: demo) @skip(if: $s) { game } }'), { s: false }, ROOT_CONDITIONAL],
    ['a root field skipped through a fragment', 'subscription { ...F } fragment F on Subscription { leaderboard(game: demo) @include(if: false) { game } }', undefined, ROOT_CONDITIONAL],
  ])('%s', async (_, query, variables, message) => {
    const response = await fetch(`${server.url}/api/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query, variables }),
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/graphql-response+json; charset=utf-8');
    const body = (await response.json()) as { errors: { message: string; extensions?: { code?: string } }[] };
    expect(body.errors.map((error) => [error.message, error.extensions?.code])).toEqual([[message, 'GRAPHQL_VALIDATION_FAILED']]);
    expect(server.app.openStreams.count).toBe(0);
  });
});

describe('CORS on the subscriptions', () => {
  it('with CORS_ORIGINS a list, scores.live and Subscription.leaderboard echo a listed Origin and vary by it', async () => {
    const listed = await startTestServer({ env: { ...LIVE_ENV, CORS_ORIGINS: 'https://app.example.com' } });
    try {
      const origin = { Origin: 'https://app.example.com', accept: 'text/event-stream' };
      const answers = await Promise.all([
        fetch(`${listed.url}/api/trpc/scores.live?input=${encodeURIComponent('{"game":"demo"}')}`, { headers: origin }),
        fetch(`${listed.url}/api/graphql`, { method: 'POST', headers: { ...origin, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'subscription { leaderboard(game: demo) { game } }' }) }),
      ]);
      for (const answer of answers) {
        expect(answer.headers.get('content-type')).toMatch(/^text\/event-stream/);
        expect(answer.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
        expect(answer.headers.get('vary')?.split(',').map((field) => field.trim().toLowerCase())).toContain('origin');
        await answer.body?.cancel();
      }
    } finally {
      await listed.stop();
    }
  });
});

describe('tRPC: scores.live input', () => {
  it('a limit out of range is BAD_REQUEST with its issue, and no board', async () => {
    const trpc = FOLLOW.trpc(server.url, { game: 'demo', limit: 0 });
    followers.push(trpc);
    expect(await trpc.nextError()).toMatchObject({ data: { code: 'BAD_REQUEST', httpStatus: 400, issues: [{ path: 'limit' }] } });
    expect(trpc.boards).toEqual([]);
  });

  it('an unusable lastEventId starts over with the current board, as Last-Event-ID does on the REST stream', async () => {
    await submitScore(server.url, { game: 'runner', initials: 'BAD', value: 3 });
    const response = await fetch(`${server.url}/api/trpc/scores.live?input=${encodeURIComponent(JSON.stringify({ game: 'runner', lastEventId: 'x1' }))}`, {
      headers: { accept: 'text/event-stream' },
      signal: AbortSignal.timeout(10_000),
    });
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('"entries"')) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(text).toContain('BAD');
  });
});

describe('tRPC: odd requests for scores.live', () => {
  const live = (query: string) => `${server.url}/api/trpc/scores.live${query}`;
  const input = (value: unknown) => `input=${encodeURIComponent(JSON.stringify(value))}`;

  it('by POST: 405 METHOD_NOT_SUPPORTED with Allow: GET, no stream', async () => {
    const response = await request<{ error: { data: { code: string } } }>(live(''), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"game":"demo"}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
    expect(response.body.error.data.code).toBe('METHOD_NOT_SUPPORTED');
  });

  it('by a percent-encoded name (scores%2Elive, as tRPC reads it): the same subscription, counted and ended as the others', async () => {
    const brief = await startTestServer({ env: { ...LIVE_ENV, SSE_STREAM_MS: '1000' } });
    try {
      const response = await fetch(`${brief.url}/api/trpc/scores%2Elive?${input({ game: 'demo' })}`, { headers: { accept: 'text/event-stream' }, signal: AbortSignal.timeout(10_000) });
      expect(response.status).toBe(200);
      expect(brief.app.openStreams.count).toBe(1);
      // Ended by the service after SSE_STREAM_MS (the body completes), not held open until the client goes.
      expect(await response.text()).toContain('"entries"');
      await vi.waitFor(() => expect(brief.app.openStreams.count).toBe(0), { timeout: 5000, interval: 20 });
    } finally {
      await brief.stop();
    }
  });

  it('in a batch: 400 BAD_REQUEST in JSON, no stream', async () => {
    const response = await request<{ error: { data: { code: string } } }[]>(live(`?batch=1&${input({ 0: { game: 'demo' } })}`));
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.body[0]!.error.data.code).toBe('BAD_REQUEST');
    expect(server.app.openStreams.count).toBe(0);
  });

  it.each([['no input', ''], ['input that is not JSON', '?input=notjson'], ['an unknown game', `?${input({ game: 'chess' })}`], ['extra nesting', `?${input({ game: { game: 'demo' } })}`]])(
    '%s: the stream carries one serialized-error of code BAD_REQUEST (400), then ends',
    async (_, query) => {
      const response = await fetch(live(query), { headers: { accept: 'text/event-stream' }, signal: AbortSignal.timeout(10_000) });
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).toContain('event: serialized-error');
      expect(text).toContain('"httpStatus":400');
      expect(text).not.toContain('"entries"');
    },
  );
});
