import { createTRPCClient, httpLink, httpSubscriptionLink, splitLink } from '@trpc/client';
import { EventSource } from 'eventsource';
import { createClient as createSseClient } from 'graphql-sse';
import type { AppRouter } from '../../src/client/app-router.ts';
import type { Leaderboard, Score } from './scores-client.ts';

/** A board as a follower received it: with its event id where the transport has one (not GraphQL). */
export interface ReceivedBoard {
  id?: string;
  board: Leaderboard & { latest?: Score };
}

export type Transport = 'rest' | 'trpc' | 'graphql';

/** A client following one board over one transport, with that transport's real client library. */
export interface Follower {
  readonly transport: Transport;
  /** Every board received, in order, across reconnections. */
  readonly boards: ReceivedBoard[];
  /** Errors the client library reported (a refusal, a failed connection it gave up on). */
  readonly errors: unknown[];
  /** Resolves once the library has connected `count` times after its first connection. */
  reconnected(count: number, timeoutMs?: number): Promise<void>;
  /** The first board from the `from`-th on that matches; fails after `timeoutMs`. */
  waitFor(predicate: (received: ReceivedBoard) => boolean, options?: { from?: number; timeoutMs?: number }): Promise<ReceivedBoard>;
  /** Resolves once the library has reported an error. */
  nextError(timeoutMs?: number): Promise<unknown>;
  close(): void;
}

/** Options a follow takes: which board, and a credential sent as `Authorization: Bearer`. */
export interface FollowOptions {
  game: string;
  limit?: number;
  credential?: string;
  /** GraphQL only: how often graphql-sse's client tries again after a failed connection (it retries a 401 too). */
  retryAttempts?: number;
}

/** The `eventsource` package with an Authorization header: a browser's EventSource cannot send one. */
function eventSourceFetch(credential: string | undefined): typeof fetch {
  return (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...(credential ? { Authorization: `Bearer ${credential}` } : {}) } });
}

/** The collecting half every follower shares. */
function collector(transport: Transport, close: () => void) {
  const boards: ReceivedBoard[] = [];
  const errors: unknown[] = [];
  let connections = 0;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  const until = <T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const attempt = () => {
        const found = check();
        if (found === undefined) return;
        clearTimeout(timer);
        listeners.delete(attempt);
        resolve(found);
      };
      const timer = setTimeout(() => {
        listeners.delete(attempt);
        reject(new Error(`${transport}: ${what} did not come within ${timeoutMs} ms; boards so far: ${JSON.stringify(boards.map(summary))}; errors: ${errors.map(String).join('; ')}`));
      }, timeoutMs);
      listeners.add(attempt);
      attempt();
    });
  const follower: Follower = {
    transport,
    boards,
    errors,
    waitFor: (predicate, { from = 0, timeoutMs = 5000 } = {}) => until(() => boards.slice(from).find(predicate), timeoutMs, 'a matching board'),
    nextError: (timeoutMs = 5000) => {
      const seen = errors.length;
      return until(() => (errors.length > seen ? errors[seen] : undefined), timeoutMs, 'an error');
    },
    reconnected: async (count, timeoutMs = 10_000) => void (await until(() => (connections - 1 >= count ? true : undefined), timeoutMs, `reconnection ${count}`)),
    close,
  };
  return {
    follower,
    connected: () => {
      connections++;
      notify();
    },
    received: (board: ReceivedBoard) => {
      boards.push(board);
      notify();
    },
    failed: (error: unknown) => {
      errors.push(error);
      notify();
    },
  };
}

function summary(received: ReceivedBoard): string {
  return `${received.id ?? '-'}:${received.board.entries.map((entry) => `${entry.initials}=${entry.value}`).join(',')}${received.board.latest ? ` latest ${received.board.latest.initials}` : ''}`;
}

/** GET /api/scores/stream with the `eventsource` package: it reconnects after `retry` with Last-Event-ID. */
function followOverRest(url: string, options: FollowOptions): Follower {
  const query = new URLSearchParams({ game: options.game, ...(options.limit ? { limit: String(options.limit) } : {}) });
  const source = new EventSource(`${url}/api/scores/stream?${query}`, { fetch: eventSourceFetch(options.credential) });
  const { follower, received, failed, connected } = collector('rest', () => source.close());
  source.addEventListener('open', connected);
  source.addEventListener('board', (event) => received({ id: event.lastEventId, board: JSON.parse(event.data as string) as ReceivedBoard['board'] }));
  source.addEventListener('error', (event) => failed(event));
  return follower;
}

/** scores.live with `@trpc/client`'s httpSubscriptionLink, as the typed client sets it up: it resumes after the last tracked id. */
function followOverTrpc(url: string, options: FollowOptions): Follower {
  const endpoint = `${url}/api/trpc`;
  const client = createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: httpSubscriptionLink({ url: endpoint, EventSource, eventSourceOptions: () => ({ fetch: eventSourceFetch(options.credential) }) }),
        false: httpLink({ url: endpoint }),
      }),
    ],
  });
  const { follower, received, failed, connected } = collector('trpc', () => subscription.unsubscribe());
  const subscription = client.scores.live.subscribe(
    { game: options.game as never, ...(options.limit ? { limit: options.limit } : {}) },
    {
      onData: (message) => received({ id: message.id, board: message.data as ReceivedBoard['board'] }),
      onError: (error) => failed(error),
      // `pending` follows the server's `connected` message: once per (re)connection.
      onConnectionStateChange: (state) => {
        if (state.state === 'pending') connected();
      },
    },
  );
  return follower;
}

const LEADERBOARD_SUBSCRIPTION = `subscription Follow($game: Game!, $limit: Int) {
  leaderboard(game: $game, limit: $limit) { game name unit better entries { rank id initials value createdAt } }
}`;

/** Subscription.leaderboard with `graphql-sse`'s client (distinct connections): it subscribes again when the stream ends. */
function followOverGraphql(url: string, options: FollowOptions): Follower {
  const client = createSseClient({
    url: `${url}/api/graphql`,
    on: { connected: () => connected() },
    headers: (): Record<string, string> => (options.credential ? { Authorization: `Bearer ${options.credential}` } : {}),
    retryAttempts: options.retryAttempts ?? 50,
    retry: () => new Promise((resolve) => setTimeout(resolve, 100)),
  });
  const { follower, received, failed, connected } = collector('graphql', () => {
    unsubscribe();
    client.dispose();
  });
  const unsubscribe = client.subscribe<{ leaderboard: ReceivedBoard['board'] }>(
    { query: LEADERBOARD_SUBSCRIPTION, variables: { game: options.game, ...(options.limit ? { limit: options.limit } : {}) } },
    {
      next: (result) => {
        if (result.errors) failed(result.errors);
        if (result.data) received({ board: result.data.leaderboard });
      },
      error: (error) => failed(error),
      complete: () => {},
    },
  );
  return follower;
}

export const FOLLOW: Record<Transport, (url: string, options: FollowOptions) => Follower> = {
  rest: followOverRest,
  trpc: followOverTrpc,
  graphql: followOverGraphql,
};
