import type { BoardUpdate, LabApiClient } from '@lab-api/client';
import type { GameId } from './game-tabs.ts';

export type StreamState = 'connecting' | 'live' | 'reconnecting';

/** After the service refused a subscription (429 at the stream cap, a restart), a fresh one is opened after this long. */
const REOPEN_AFTER_MS = 5000;
/** The board's length, as the page has always shown it. */
const BOARD_LIMIT = 10;

/**
 * Follows one game's board through the `scores.live` subscription. Each
 * board comes with its event id (tRPC's `tracked`): when the service ends a
 * stream (every SSE_STREAM_MS) or the network drops, EventSource reconnects
 * by itself and sends the last id as Last-Event-ID, so only newer boards
 * follow. When the service refuses a reconnection the subscription fails,
 * and a fresh one (with a whole board first) is opened a little later.
 */
export function followBoard(client: LabApiClient, game: GameId, onBoard: (board: BoardUpdate) => void, onState: (state: StreamState) => void): () => void {
  let subscription: { unsubscribe(): void } | undefined;
  let reopen: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  function open(): void {
    onState('connecting');
    subscription = client.scores.live.subscribe(
      { game, limit: BOARD_LIMIT },
      {
        onStarted: () => onState('live'),
        onData: ({ data }) => {
          onState('live');
          onBoard(data);
        },
        onConnectionStateChange: (state) => {
          if (state.state === 'connecting' && state.error) onState('reconnecting');
        },
        onError: () => {
          if (stopped) return;
          onState('reconnecting');
          reopen = setTimeout(open, REOPEN_AFTER_MS);
        },
      },
    );
  }

  open();
  return () => {
    stopped = true;
    clearTimeout(reopen);
    subscription?.unsubscribe();
  };
}
