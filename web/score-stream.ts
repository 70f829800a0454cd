import type { BoardUpdate } from './board-view.ts';
import type { GameId } from './game-tabs.ts';

export type StreamState = 'connecting' | 'live' | 'reconnecting';

/** After the service refused a stream (429, restart), a fresh one is opened after this long. */
const REOPEN_AFTER_MS = 5000;

/**
 * Follows one game's board over /api/scores/stream. EventSource itself
 * reconnects when the service ends a stream (every 25 s) and sends
 * Last-Event-ID, so only newer updates follow; when the service refuses a
 * reconnection, EventSource gives up, and a fresh stream (with a whole board
 * first) is opened a little later.
 */
export function followBoard(base: string, game: GameId, onBoard: (board: BoardUpdate) => void, onState: (state: StreamState) => void): () => void {
  let source: EventSource | undefined;
  let reopen: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  function open(): void {
    onState('connecting');
    source = new EventSource(`${base}/api/scores/stream?game=${game}&limit=10`);
    source.addEventListener('open', () => onState('live'));
    source.addEventListener('board', (event) => {
      onState('live');
      onBoard(JSON.parse((event as MessageEvent<string>).data) as BoardUpdate);
    });
    source.addEventListener('error', () => {
      if (stopped) return;
      onState('reconnecting');
      if (source?.readyState === EventSource.CLOSED) reopen = setTimeout(open, REOPEN_AFTER_MS);
    });
  }

  open();
  return () => {
    stopped = true;
    clearTimeout(reopen);
    source?.close();
  };
}
