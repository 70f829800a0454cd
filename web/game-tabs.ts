import { GAME_IDS, GAMES, type GameId } from '../src/schemas/games.ts';

export { GAME_IDS, GAMES, type GameId };

export function isGameId(value: string): value is GameId {
  return (GAME_IDS as readonly string[]).includes(value);
}

/**
 * One tab per game, as the WAI-ARIA tabs pattern has it: arrow keys, Home
 * and End move between tabs and show the board at once; only the selected
 * tab is in the Tab order.
 */
export function renderGameTabs(container: HTMLElement, panel: HTMLElement, selected: GameId, onSelect: (game: GameId) => void): (game: GameId) => void {
  const tabs = GAME_IDS.map((game) => {
    const tab = document.createElement('button');
    tab.type = 'button';
    // The attribute, not the `role` property: Firefox before 119 does not reflect ARIA properties.
    tab.setAttribute('role', 'tab');
    tab.id = `tab-${game}`;
    tab.dataset['game'] = game;
    tab.textContent = GAMES[game].name;
    tab.setAttribute('aria-controls', panel.id);
    tab.addEventListener('click', () => select(game));
    container.append(tab);
    return tab;
  });

  container.addEventListener('keydown', (event) => {
    const current = tabs.findIndex((tab) => tab === document.activeElement);
    if (current === -1) return;
    const last = tabs.length - 1;
    const next = { ArrowRight: current === last ? 0 : current + 1, ArrowLeft: current === 0 ? last : current - 1, Home: 0, End: last }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const game = GAME_IDS[next];
    if (game === undefined) return;
    select(game);
    tabs[next]?.focus();
  });

  function select(game: GameId): void {
    for (const tab of tabs) {
      const isSelected = tab.dataset['game'] === game;
      tab.setAttribute('aria-selected', String(isSelected));
      tab.tabIndex = isSelected ? 0 : -1;
      if (isSelected) panel.setAttribute('aria-labelledby', tab.id);
    }
    onSelect(game);
  }

  select(selected);
  return select;
}
