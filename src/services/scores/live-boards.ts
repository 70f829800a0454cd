import { AppError } from '../../errors/app-error.ts';
import { SCORE_SUBMITTED } from '../../schemas/event-types.ts';
import type { GameId } from '../../schemas/games.ts';
import type { StoredEvent } from '../events/event-dispatcher.ts';
import type { EventBatch, EventPoller } from '../events/event-poller.ts';
import { lastScoreEventInRange } from '../events/last-matching-event.ts';
import { streamStart } from '../events/stream-start.ts';
import type { ServiceContext } from '../service-context.ts';
import { getLeaderboard, type Leaderboard } from './get-leaderboard.ts';

/** docs/spec/DECISIONS.md, "Score streams": how long a client refused for too many open streams should wait. */
const STREAMS_RETRY_AFTER_SECONDS = 5;

/** A board as a live follower sees it: after the first, with the score that moved it. */
export type LiveBoard = Leaderboard & { latest?: Record<string, unknown> };

/** One message of a followed board: the board, as of event `id` (the latest stored event seen). */
export interface BoardMessage {
  id: number;
  board: LiveBoard;
}

/** A board being followed: the board to start with, if any, and the moves after it. */
export interface FollowedBoard {
  /** The current board, for a new follower; absent when it resumes after an event id it saw. */
  first: BoardMessage | undefined;
  /**
   * Each move of the board, until the follow's signal aborts (then it ends);
   * a failed poll (the database out of reach) is thrown, so the follower
   * ends its stream and its client resumes.
   */
  moves: AsyncIterable<BoardMessage>;
}

export interface LiveBoards {
  /**
   * Takes one of the client's stream slots (`key:<id>` or `ip:<address>`),
   * shared by the REST stream, the tRPC subscription and the GraphQL one;
   * throws the 429 when it holds them all. Returns how to give it back (once).
   */
  reserveSlot(client: string): () => void;
  /**
   * Starts following a board: reads where to start before it returns, so a
   * database out of reach fails here, before a transport answers.
   */
  follow(input: { game: GameId; limit: number; lastEventId: number | undefined }, signal: AbortSignal): Promise<FollowedBoard>;
}

/**
 * Live leaderboards for every transport. Every follower listens to the
 * process's one EventPoller; the work per follower is only filtering its
 * batches and, when its game moved, one leaderboard read shared by every
 * follower of that board in that poll.
 */
export function createLiveBoards({ service, poller, maxStreamsPerClient }: { service: ServiceContext; poller: EventPoller; maxStreamsPerClient: number }): LiveBoards {
  /** Open (or opening) streams per client. */
  const heldBy = new Map<string, number>();
  const boards = new Map<string, { upTo: number; board: Promise<Leaderboard> }>();

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

  /** One read per board and poll, however many followers watch it. */
  function boardAt(game: GameId, limit: number, upTo: number): Promise<Leaderboard> {
    const key = `${game}:${limit}`;
    const cached = boards.get(key);
    if (cached && cached.upTo === upTo) return cached.board;
    const board = getLeaderboard({ ctx: service, input: { game, limit } });
    boards.set(key, { upTo, board });
    board.catch(() => boards.delete(key));
    return board;
  }

  async function follow(input: { game: GameId; limit: number; lastEventId: number | undefined }, signal: AbortSignal): Promise<FollowedBoard> {
    const { game, limit } = input;
    // Batches the poller reports from here on may start after this point: onBatch closes such a gap with one query.
    const begin = await streamStart({ ctx: service, input: { lastEventId: input.lastEventId } });
    let lastSeen: number;
    let first: BoardMessage | undefined;
    if (begin.resume) {
      lastSeen = begin.after;
    } else {
      lastSeen = begin.latest;
      first = { id: lastSeen, board: await getLeaderboard({ ctx: service, input: { game, limit } }) };
    }

    const moves = new MoveQueue(signal);
    if (signal.aborted) return { first, moves };
    let work: Promise<void> = Promise.resolve();
    const unsubscribe = poller.subscribe(
      (batch) => {
        work = work.then(() => (moves.ended ? undefined : onBatch(batch))).catch((error: unknown) => moves.fail(error));
      },
      (error) => moves.fail(error),
    );
    moves.onEnd(unsubscribe);

    async function onBatch(batch: EventBatch): Promise<void> {
      if (batch.upTo <= lastSeen) return;
      let latest: StoredEvent | undefined;
      // Behind the poller (a resumed follower, or one that started before it): one query covers the gap.
      if (batch.after > lastSeen) {
        latest = await lastScoreEventInRange({ ctx: service, input: { game, after: lastSeen, upTo: batch.after } });
      }
      for (const event of batch.events) {
        if (event.id > lastSeen && event.type === SCORE_SUBMITTED && event.data.game === game) latest = event;
      }
      if (latest) {
        const board = await boardAt(game, limit, batch.upTo);
        moves.push({ id: batch.upTo, board: { ...board, latest: latest.data } });
      }
      lastSeen = batch.upTo;
    }

    return { first, moves };
  }

  return { reserveSlot, follow };
}

/**
 * The moves of one follow, handed out as an async iterable. A board is a
 * whole state, so a follower that reads slower than the board moves gets the
 * newest board rather than a backlog: at most one move waits.
 */
class MoveQueue implements AsyncIterable<BoardMessage> {
  private waiting: BoardMessage | undefined;
  private failure: { error: unknown } | undefined;
  private wake: (() => void) | undefined;
  private readonly endListeners: (() => void)[] = [];
  ended = false;

  constructor(private readonly signal: AbortSignal) {
    signal.addEventListener('abort', () => this.end(), { once: true });
  }

  push(message: BoardMessage): void {
    if (this.ended) return;
    this.waiting = message;
    this.wake?.();
  }

  fail(error: unknown): void {
    if (this.ended) return;
    this.failure = { error };
    this.end();
  }

  onEnd(listener: () => void): void {
    if (this.ended) listener();
    else this.endListeners.push(listener);
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const listener of this.endListeners.splice(0)) listener();
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<BoardMessage> {
    try {
      for (;;) {
        if (this.signal.aborted) return;
        if (this.waiting) {
          const message = this.waiting;
          this.waiting = undefined;
          yield message;
          continue;
        }
        if (this.failure) throw this.failure.error;
        if (this.ended) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
      }
    } finally {
      this.end();
    }
  }
}
