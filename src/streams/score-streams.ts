import type { IncomingMessage, ServerResponse } from 'node:http';
import { validationProblem } from '../errors/to-app-error.ts';
import { lastEventIdHeaderSchema, readHeader } from '../schemas/headers.ts';
import { leaderboardQuerySchema } from '../schemas/scores.ts';
import type { LiveBoards } from '../services/scores/live-boards.ts';
import type { ServiceContext } from '../services/service-context.ts';
import type { Logger } from '../observability/logger.ts';
import type { OpenStreams } from '../http/open-streams.ts';
import { numericFieldsOf, queryInput } from '../http/query-input.ts';
import { sseComment, sseMessage } from './sse-format.ts';

/** docs/spec/SPEC.md: clients reconnect after 3 seconds. */
const RETRY_MS = 3000;

const numericQuery = numericFieldsOf(leaderboardQuerySchema);

export interface ScoreStreamsOptions {
  service: ServiceContext;
  liveBoards: LiveBoards;
  openStreams: OpenStreams;
  streamMs: number;
  keepAliveMs: number;
  log: Logger;
}

export interface ScoreStreams {
  /**
   * Rejects, before anything is sent, when the stream cannot start: the
   * client holds too many already (429), a bad query, the database out of reach.
   */
  serve(req: IncomingMessage, res: ServerResponse, query: URLSearchParams, client: string): Promise<void>;
}

/** `X-Accel-Buffering: no` asks a proxy in front (nginx) to pass each event on at once. */
const STREAM_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/**
 * GET /api/scores/stream: a thin adapter over the live boards (the board and
 * its moves, the per-client cap) that writes them as the SPEC's `board`
 * events, with a keep-alive comment and an end after SSE_STREAM_MS.
 */
export function createScoreStreams({ service, liveBoards, openStreams, streamMs, keepAliveMs, log }: ScoreStreamsOptions): ScoreStreams {
  async function serve(req: IncomingMessage, res: ServerResponse, query: URLSearchParams, client: string): Promise<void> {
    // Like a rate limit, the cap answers before the query is judged.
    const release = liveBoards.reserveSlot(client);
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
    const lastEventId = readHeader(lastEventIdHeaderSchema, 'last-event-id', req.headers);

    // The starting point is read before answering, so that a database out of
    // reach is a 503 problem rather than a stream that ends at once.
    const following = new AbortController();
    let followed;
    try {
      followed = await liveBoards.follow({ game, limit, lastEventId }, following.signal);
    } catch (error) {
      following.abort();
      throw error;
    }
    if (res.destroyed) {
      following.abort();
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
      following.abort();
      forget();
      release();
      res.end();
    };
    const forget = openStreams.add(close);
    res.on('close', close);
    const { first } = followed;
    write(first ? sseMessage({ event: 'board', id: first.id, retry: RETRY_MS, data: JSON.stringify(first.board) }) : sseMessage({ retry: RETRY_MS }));

    // A failed poll ends the stream cleanly: the client comes back after `retry` with Last-Event-ID and misses nothing.
    try {
      for await (const move of followed.moves) write(sseMessage({ event: 'board', id: move.id, data: JSON.stringify(move.board) }));
    } catch (error) {
      log.error({ err: error }, 'score stream failed; ending it so the client resumes');
    }
    close();
  }

  return { serve };
}
