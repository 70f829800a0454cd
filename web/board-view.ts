import type { RouterOutputs } from '@lab-api/client';

export type Leaderboard = RouterOutputs['scores']['top'];
/** A stream message: the board, and the score that changed it (absent in the first message). */
export type BoardUpdate = Leaderboard & { latest?: RouterOutputs['scores']['submit'] };

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A value in its game's unit: Marble Maze's milliseconds as a time, points and slabs as counts. */
function formatValue(value: number, unit: string): string {
  if (unit === 'ms') {
    const minutes = Math.floor(value / 60_000);
    const seconds = ((value % 60_000) / 1000).toFixed(3).padStart(6, '0');
    return `${minutes}:${seconds}`;
  }
  return `${value.toLocaleString()} ${unit}`;
}

/** Draws the board; the row of the score that just arrived is marked so it can be seen. */
export function renderBoard(elements: { title: HTMLElement; caption: HTMLElement; entries: HTMLElement; empty: HTMLElement }, board: BoardUpdate): void {
  elements.title.textContent = board.name;
  elements.caption.textContent = `Best ${board.name} scores, ${board.better === 'higher' ? 'highest' : 'lowest'} first`;
  const rows = board.entries.map((entry) => {
    const row = document.createElement('tr');
    row.dataset['scoreId'] = entry.id;
    if (entry.id === board.latest?.id) row.classList.add('latest');
    const cells = [String(entry.rank), entry.initials, formatValue(entry.value, board.unit)];
    for (const [index, text] of cells.entries()) {
      const cell = document.createElement('td');
      cell.textContent = text;
      if (index === 2) cell.className = 'number';
      row.append(cell);
    }
    const time = document.createElement('time');
    time.dateTime = entry.createdAt;
    time.textContent = when.format(new Date(entry.createdAt));
    const timeCell = document.createElement('td');
    timeCell.append(time);
    row.append(timeCell);
    return row;
  });
  elements.entries.replaceChildren(...rows);
  elements.empty.hidden = rows.length > 0;
}
