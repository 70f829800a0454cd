import { EventSource } from 'eventsource';
import { sql } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { rowsOf } from './support/db-rows.ts';
import { request } from './support/http.ts';
import { bearer } from './support/keys-client.ts';
import { expectProblem } from './support/problem.ts';
import { submitScore, type Leaderboard, type Score } from './support/scores-client.ts';
import { ManualClock } from './support/manual-clock.ts';
import { openSse, type SseReader } from './support/sse-reader.ts';
import { startTestServer, type TestServer, useTestServer } from './support/test-server.ts';

// 500 streams from this one address in one test: one client, as far as the per-client cap goes.
const server = useTestServer({ env: { SSE_POLL_MS: '50', SSE_KEEPALIVE_MS: '60000', SSE_STREAM_MS: '60000', SSE_MAX_STREAMS_PER_CLIENT: '1000' } });

const streamUrl = (target: TestServer, query: string) => `${target.url}/api/scores/stream?${query}`;

async function latestEventId(): Promise<number> {
  return (await rowsOf<{ id: number | null }>(server, sql`select max(id)::int as id from events`))[0]!.id ?? 0;
}

describe('a new client', () => {
  it('first gets event: board with the latest event id, retry: 3000 and the Leaderboard', async () => {
    await submitScore(server.url, { game: 'stacker', initials: 'ONE', value: 10 });
    const stream = await openSse(streamUrl(server, 'game=stacker&limit=3'));
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toBe('text/event-stream');
      expect(stream.headers.get('cache-control')).toBe('no-cache');
      const first = (await stream.next())!;
      expect(first.event).toBe('board');
      expect(first.id).toBe(String(await latestEventId()));
      expect(first.retry).toBe('3000');
      expect(first.raw.split('\n')).toEqual(expect.arrayContaining(['event: board', 'retry: 3000']));
      const board = JSON.parse(first.data!) as Leaderboard;
      const read = await request<Leaderboard>(`${server.url}/api/scores?game=stacker&limit=3`);
      expect(board).toEqual(read.body);
    } finally {
      stream.close();
    }
  });

  it('then gets one board message with latest after a score for its game, and none for other games', async () => {
    const stream = await openSse(streamUrl(server, 'game=toppler'));
    try {
      await stream.next();
      await submitScore(server.url, { game: 'marble', initials: 'OTH', value: 5000 });
      const score = await submitScore(server.url, { game: 'toppler', initials: 'NEW', value: 1234 });
      const message = await stream.nextMatching((frame) => frame.event === 'board');
      const data = JSON.parse(message.data!) as Leaderboard & { latest: Score };
      expect(data.latest).toEqual(score);
      expect(data.game).toBe('toppler');
      expect(data.entries.map((entry) => entry.id)).toContain(score.id);
      expect(Number(message.id)).toBe(await latestEventId());
    } finally {
      stream.close();
    }
  });
});

describe('a reconnecting client (Last-Event-ID)', () => {
  it('gets retry: 3000 and a blank line first, then only what came after its id', async () => {
    // With no event at all the latest id is 0, which is no valid Last-Event-ID: resume after one of its own.
    await submitScore(server.url, { game: 'runner', initials: 'SEN', value: 1 });
    const before = await latestEventId();
    const missed = await submitScore(server.url, { game: 'runner', initials: 'MIS', value: 777 });
    const stream = await openSse(streamUrl(server, 'game=runner'), { 'Last-Event-ID': String(before) });
    try {
      const first = (await stream.next())!;
      expect(first.raw).toBe('retry: 3000');
      const caughtUp = await stream.nextMatching((frame) => frame.event === 'board');
      expect((JSON.parse(caughtUp.data!) as { latest: Score }).latest).toEqual(missed);
      expect(Number(caughtUp.id)).toBeGreaterThanOrEqual(before + 1);
    } finally {
      stream.close();
    }
  });

  it('holding an id the log has never reached (a restored or reset log) starts over with the current board, as a new client', async () => {
    await submitScore(server.url, { game: 'marble', initials: 'OLD', value: 90_000 });
    const latest = await latestEventId();
    // At the newest stored event itself the client is up to date: it resumes.
    const upToDate = await openSse(streamUrl(server, 'game=marble'), { 'Last-Event-ID': String(latest) });
    try {
      expect((await upToDate.next())!.raw).toBe('retry: 3000');
    } finally {
      upToDate.close();
    }
    const stream = await openSse(streamUrl(server, 'game=marble&limit=5'), { 'Last-Event-ID': String(latest + 1000) });
    try {
      const first = (await stream.next())!;
      expect(first).toMatchObject({ event: 'board', id: String(latest), retry: '3000' });
      expect(JSON.parse(first.data!)).toEqual((await request<Leaderboard>(`${server.url}/api/scores?game=marble&limit=5`)).body);
      // And it follows the log from there, though the next ids are below the one it held.
      const score = await submitScore(server.url, { game: 'marble', initials: 'NXT', value: 80_000 });
      const next = await stream.nextMatching((frame) => frame.event === 'board');
      expect((JSON.parse(next.data!) as { latest: Score }).latest).toEqual(score);
      expect(Number(next.id)).toBeLessThan(latest + 1000);
    } finally {
      stream.close();
    }
  });

  it('treats an invalid Last-Event-ID as a new client', async () => {
    for (const lastEventId of ['0', '-3', 'abc', '9007199254740993']) {
      const stream = await openSse(streamUrl(server, 'game=demo'), { 'Last-Event-ID': lastEventId });
      try {
        expect((await stream.next())!.event).toBe('board');
      } finally {
        stream.close();
      }
    }
  });
});

describe('errors and credentials', () => {
  it('answers 422 for an unknown game and a bad limit', async () => {
    expectProblem(await request(streamUrl(server, 'game=pong')), server.baseUrl, 'validation', 422, '/api/scores/stream');
    expectProblem(await request(streamUrl(server, 'game=demo&limit=99')), server.baseUrl, 'validation', 422, '/api/scores/stream');
  });

  it('refuses an invalid credential with 401', async () => {
    const response = await request(streamUrl(server, 'game=demo'), { headers: bearer('lab_nope') });
    expectProblem(response, server.baseUrl, 'unauthorized', 401, '/api/scores/stream');
  });
});

describe('timing on the service\'s clock (the default 10 s and 25 s, no waiting)', () => {
  it('writes : keep-alive after 10 quiet seconds, again 10 seconds later, and ends the stream at 25 seconds', async () => {
    const clock = new ManualClock(Date.now(), { timers: 'manual' });
    const timed = await startTestServer({ clock });
    const waitingBefore = clock.pendingTimers;
    const stream = await openSse(streamUrl(timed, 'game=demo'));
    try {
      expect((await stream.next())!.event).toBe('board');
      // The stream's keep-alive and end, and the poller's first tick, all wait on the service's clock.
      expect(clock.pendingTimers - waitingBefore).toBe(3);
      clock.advance(10_000);
      expect((await stream.next())!.raw).toBe(': keep-alive');
      expect(timed.app.openStreams.count).toBe(1);
      clock.advance(15_000);
      expect((await stream.next())!.raw).toBe(': keep-alive');
      expect(await stream.next()).toBeUndefined();
      expect(stream.endedCleanly).toBe(true);
      expect(timed.app.openStreams.count).toBe(0);
    } finally {
      stream.close();
      await timed.stop();
    }
  });
});

describe('timing (short settings)', () => {
  it('writes : keep-alive after a quiet spell and ends the stream after SSE_STREAM_MS', async () => {
    const quick = await startTestServer({ env: { SSE_POLL_MS: '50', SSE_KEEPALIVE_MS: '200', SSE_STREAM_MS: '700' } });
    const stream = await openSse(streamUrl(quick, 'game=demo'));
    try {
      expect((await stream.next())!.event).toBe('board');
      const ping = (await stream.next())!;
      expect(ping.raw).toBe(': keep-alive');
      const rest: string[] = [];
      for (let frame = await stream.next(); frame; frame = await stream.next()) rest.push(frame.raw);
      expect(rest.every((raw) => raw === ': keep-alive')).toBe(true);
      expect(quick.app.openStreams.count).toBe(0);
    } finally {
      stream.close();
      await quick.stop();
    }
  });

  it('an EventSource reconnects by itself after the end, carrying Last-Event-ID, and gets what it missed', async () => {
    const quick = await startTestServer({ env: { SSE_POLL_MS: '50', SSE_STREAM_MS: '400' } });
    // With no event at all the first id is 0, which is no valid Last-Event-ID: start with one.
    await submitScore(quick.url, { game: 'demo', initials: 'FST', value: 1 });
    const sentLastEventIds: (string | null)[] = [];
    const source = new EventSource(streamUrl(quick, 'game=demo'), {
      fetch: (input, init) => {
        sentLastEventIds.push(new Headers(init?.headers).get('last-event-id'));
        return fetch(input, init);
      },
    });
    try {
      const boards: MessageEvent[] = [];
      const nextBoard = () => new Promise<MessageEvent>((resolve) => source.addEventListener('board', (event) => resolve(event), { once: true }));
      boards.push(await nextBoard());
      // The stream ends after 400 ms; a score arrives while the client waits retry: 3000 to come back.
      await new Promise((resolve) => source.addEventListener('error', resolve, { once: true }));
      const score = await submitScore(quick.url, { game: 'demo', initials: 'RCN', value: 42 });
      const after = await nextBoard();
      expect(boards[0]!.lastEventId).toBe('1');
      expect(sentLastEventIds).toEqual([null, '1']);
      expect((JSON.parse(after.data as string) as { latest: Score }).latest).toEqual(score);
    } finally {
      source.close();
      await quick.stop();
    }
  });
});

describe('one poller per process', () => {
  it('serves many streams with one query per poll, and stops with no listener left once they close', async () => {
    const poller = server.app.poller;
    await vi.waitFor(() => expect(poller.running).toBe(false), { timeout: 5000, interval: 20 });
    const streams: SseReader[] = [];
    for (let batch = 0; batch < 10; batch++) {
      streams.push(...(await Promise.all(Array.from({ length: 50 }, () => openSse(streamUrl(server, 'game=demo&limit=1'))))));
    }
    await Promise.all(streams.map((stream) => stream.next()));
    expect(server.app.openStreams.count).toBe(500);
    expect(poller.listenerCount).toBe(500);
    expect(poller.running).toBe(true);

    const before = poller.queries;
    await vi.waitFor(() => expect(poller.queries).toBeGreaterThanOrEqual(before + 3), { timeout: 5000, interval: 10 });
    // Three polls later: a handful of queries, not one per stream.
    expect(poller.queries - before).toBeLessThan(6);

    for (const stream of streams) stream.close();
    await vi.waitFor(() => expect(server.app.openStreams.count).toBe(0), { timeout: 10000, interval: 20 });
    expect(poller.listenerCount).toBe(0);
    await vi.waitFor(() => expect(poller.running).toBe(false), { timeout: 5000, interval: 20 });
  });
});

describe('shutdown', () => {
  it('ends every open stream cleanly and does not wait for them', async () => {
    const doomed = await startTestServer({ env: { SSE_STREAM_MS: '60000' } });
    const streams = await Promise.all([1, 2, 3].map(() => openSse(streamUrl(doomed, 'game=demo'))));
    await Promise.all(streams.map((stream) => stream.next()));
    const started = Date.now();
    await doomed.stop();
    expect(Date.now() - started).toBeLessThan(5000);
    for (const stream of streams) expect(await stream.next()).toBeUndefined();
  });
});
