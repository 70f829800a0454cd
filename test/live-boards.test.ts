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
