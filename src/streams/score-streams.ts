import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../errors/app-error.ts';
import { validationProblem } from '../errors/to-app-error.ts';
import { SCORE_SUBMITTED } from '../schemas/event-types.ts';
import { lastEventIdHeaderSchema, readHeader } from '../schemas/headers.ts';
import { leaderboardQuerySchema } from '../schemas/scores.ts';
import type { StoredEvent } from '../services/events/event-dispatcher.ts';
import type { EventBatch, EventPoller } from '../services/events/event-poller.ts';
import { lastScoreEventInRange } from '../services/events/last-matching-event.ts';
import { streamStart } from '../services/events/stream-start.ts';
import { getLeaderboard, type Leaderboard } from '../services/scores/get-leaderboard.ts';
import type { GameId } from '../schemas/games.ts';
import type { ServiceContext } from '../services/service-context.ts';
import type { Logger } from '../observability/logger.ts';
import { numericFieldsOf, queryInput } from '../http/query-input.ts';
import { sseComment, sseMessage } from './sse-format.ts';

/** docs/spec/SPEC.md: clients reconnect after 3 seconds. */
const RETRY_MS = 3000;

const numericQuery = numericFieldsOf(leaderboardQuerySchema);

/** docs/spec/DECISIONS.md, "Score streams": how long a client refused for too many open streams should wait. */
const STREAMS_RETRY_AFTER_SECONDS = 5;

export interface ScoreStreamsOptions {
  service: ServiceContext;
  poller: EventPoller;
  streamMs: number;
  keepAliveMs: number;
  /** Open streams one client (`key:<id>` or `ip:<address>`) may hold on this instance. */
  maxStreamsPerClient: number;
  log: Logger;
}

export interface ScoreStreams {
  /**
   * Rejects, before anything is sent, when the stream cannot start: the
   * client holds too many already (429), a bad query, the database out of reach.
   */
  serve(req: IncomingMessage, res: ServerResponse, query: URLSearchParams, client: string): Promise<void>;
  /** Ends every open stream (shutdown). */
  closeAll(): void;
  readonly openCount: number;
}

/** `X-Accel-Buffering: no` asks a proxy in front (nginx) to pass each event on at once. */
const STREAM_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/**
 * GET /api/scores/stream: a thin adapter over the leaderboard and event-log
 * services. Every stream listens to the process's one EventPoller; the
 * per-stream work is only filtering its batches and, when its game moved,
 * one leaderboard read shared by all streams of that board.
 */
export function createScoreStreams({ service, poller, streamMs, keepAliveMs, maxStreamsPerClient, log }: ScoreStreamsOptions): ScoreStreams {
  const open = new Set<() => void>();
  /** Open (or opening) streams per client. */
  const heldBy = new Map<string, number>();

  /** Takes one of the client's stream slots, or refuses; returns how to give it back (once). */
  function reserveSlot(client: string): () => void {
    const held = heldBy.get(client) ?? 0;
    if (held >= maxStreamsPerClient) {
      throw new AppError('rate-limited', {
        detail: `At most ${maxStreamsPerClient} score streams may be open at once per client (SSE_MAX_STREAMS_PER_CLIENT); close one, or retry in ${STREAMS_RETRY_AFTER_SECONDS} seconds.`,
        headers: { 'Retry-After': String(STREAMS_RETRY_AFTER_SECONDS) },
      });
    }
    heldBy.set(client, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (heldBy.get(client) ?? 1) - 1;
      if (left === 0) heldBy.delete(client);
      else heldBy.set(client, left);
    };
  }
  const boards = new Map<string, { upTo: number; board: Promise<Leaderboard> }>();

  /** One read per board and poll, however many streams watch it. */
  function boardAt(game: GameId, limit: number, upTo: number): Promise<Leaderboard> {
    const key = `${game}:${limit}`;
    const cached = boards.get(key);
    if (cached && cached.upTo === upTo) return cached.board;
    const board = getLeaderboard({ ctx: service, input: { game, limit } });
    boards.set(key, { upTo, board });
    board.catch(() => boards.delete(key));
    return board;
  }

  async function serve(req: IncomingMessage, res: ServerResponse, query: URLSearchParams, client: string): Promise<void> {
    // Like a rate limit, the cap answers before the query is judged.
    const release = reserveSlot(client);
    try {
      await start(req, res, query, release);
    } catch (error) {
      release();
      throw error;
    }
  }

  async function start(req: IncomingMessage, res: ServerResponse, query: URLSearchParams, release: () => void): Promise<void> {
    const parsed = leaderboardQuerySchema.safeParse(queryInput(query, numericQuery));
    if (!parsed.success) throw validationProblem(parsed.error.issues);
    const { game, limit } = parsed.data;
    if (req.method === 'HEAD') {
      // What a GET would start with, without the stream.
      res.writeHead(200, STREAM_HEADERS);
      res.end();
      release();
      return;
    }
    const resumeAfter = readHeader(lastEventIdHeaderSchema, 'last-event-id', req.headers);

    // Read the starting point before answering, so that a database out of
    // reach is a 503 problem rather than a stream that ends at once. Batches
    // the poller reports from here on may start after this point: onBatch
    // closes such a gap with one query.
    const begin = await streamStart({ ctx: service, input: { lastEventId: resumeAfter } });
    let lastSeen: number;
    let first: string;
    if (begin.resume) {
      lastSeen = begin.after;
      first = sseMessage({ retry: RETRY_MS });
    } else {
      lastSeen = begin.latest;
      const board = await getLeaderboard({ ctx: service, input: { game, limit } });
      first = sseMessage({ event: 'board', id: lastSeen, retry: RETRY_MS, data: JSON.stringify(board) });
    }
    if (res.destroyed) {
      release();
      return;
    }

    res.writeHead(200, STREAM_HEADERS);
    res.flushHeaders();

    let closed = false;
    const write = (text: string) => {
      if (closed) return;
      res.write(text);
      keepAlive.refresh();
    };
    const keepAlive = service.clock.after(keepAliveMs, () => write(sseComment('keep-alive')));
    const endOfStream = service.clock.after(streamMs, () => close());

    const close = () => {
      if (closed) return;
      closed = true;
      keepAlive.cancel();
      endOfStream.cancel();
      unsubscribe();
      open.delete(close);
      release();
      res.end();
    };

    let queue: Promise<void> = Promise.resolve();
    const enqueue = (work: () => Promise<void>) => {
      queue = queue.then(() => (closed ? undefined : work())).catch((error: unknown) => {
        log.error({ err: error }, 'score stream failed; ending it so the client resumes');
        close();
      });
    };
    // A failed poll ends the stream cleanly: the client comes back after
    // `retry` with Last-Event-ID and misses nothing.
    const unsubscribe = poller.subscribe(
      (batch) => enqueue(() => onBatch(batch)),
      () => close(),
    );
    open.add(close);
    res.on('close', close);
    write(first);

    async function onBatch(batch: EventBatch): Promise<void> {
      if (batch.upTo <= lastSeen) return;
      let latest: StoredEvent | undefined;
      // Behind the poller (a resumed stream, or one that started before it): one query covers the gap.
      if (batch.after > lastSeen) {
        latest = await lastScoreEventInRange({ ctx: service, input: { game, after: lastSeen, upTo: batch.after } });
      }
      for (const event of batch.events) {
        if (event.id > lastSeen && event.type === SCORE_SUBMITTED && event.data.game === game) latest = event;
      }
      if (latest) {
        const board = await boardAt(game, limit, batch.upTo);
        write(sseMessage({ event: 'board', id: batch.upTo, data: JSON.stringify({ ...board, latest: latest.data }) }));
      }
      lastSeen = batch.upTo;
    }
  }

  return {
    serve,
    closeAll: () => {
      for (const close of [...open]) close();
    },
    get openCount() {
      return open.size;
    },
  };
}
