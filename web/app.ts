import { createLabApiClient } from '@lab-api/client';
import { apiBase, pointLinksAt } from './api-base.ts';
import { renderBoard, unitHeading } from './board-view.ts';
import { GAME_IDS, GAMES, isGameId, renderGameTabs, type GameId } from './game-tabs.ts';
import { wireScoreForm } from './score-form.ts';
import { followBoard, type StreamState } from './score-stream.ts';

const STATE_TEXT: Record<StreamState, string> = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…' };

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`The page has no #${id}`);
  return found as T;
}

const base = apiBase();
pointLinksAt(base);
const client = createLabApiClient({ baseUrl: base });

const board = {
  title: element('board-title'),
  caption: element('board-caption'),
  valueHeading: element('board-value-heading'),
  entries: element('board-entries'),
  empty: element('board-empty'),
};
const status = element('stream-status');
const showState = (state: StreamState) => {
  status.textContent = STATE_TEXT[state];
  status.dataset['state'] = state;
};

const form = wireScoreForm(
  {
    form: element<HTMLFormElement>('score-form'),
    game: element<HTMLSelectElement>('score-game'),
    initials: element<HTMLInputElement>('score-initials'),
    value: element<HTMLInputElement>('score-value'),
    submit: element<HTMLButtonElement>('score-submit'),
    message: element('form-message'),
  },
  client,
  // The board follows through the stream; showing the game the score went to is enough.
  (score) => selectGame(score.game),
);

let current: { game: GameId; stop: () => void } | undefined;
const fromHash = location.hash.slice(1);
const selectGame = renderGameTabs(element('game-tabs'), element('board-panel'), isGameId(fromHash) ? fromHash : GAME_IDS[0], (game) => {
  if (current?.game === game) return;
  current?.stop();
  // The new game's name and unit at once: the previous game's must not stand above the new board while it loads.
  board.title.textContent = GAMES[game].name;
  board.valueHeading.textContent = unitHeading(GAMES[game].unit);
  board.entries.replaceChildren();
  board.empty.hidden = true;
  current = { game, stop: followBoard(client, game, (update) => renderBoard(board, update), showState) };
  form.showGame(game);
  history.replaceState(null, '', `#${game}`);
});
