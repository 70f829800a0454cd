import type { BoardUpdate } from '@lab-api/client';

const dayThisYear = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const dayOtherYear = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const clock = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });

/**
 * A value in its game's unit: Marble Maze's milliseconds as a time, points
 * and slabs as counts. The unit itself is named once, in the column's
 * heading, so that the numbers fit a phone's width.
 */
function formatValue(value: number, unit: string): string {
  if (unit === 'ms') {
    const minutes = Math.floor(value / 60_000);
    const seconds = ((value % 60_000) / 1000).toFixed(3).padStart(6, '0');
    return `${minutes}:${seconds}`;
  }
  return value.toLocaleString();
}

/** The value column's heading: what its numbers count. */
export function unitHeading(unit: string): string {
  if (unit === 'ms') return 'Time';
  return unit.charAt(0).toUpperCase() + unit.slice(1);
}

/**
 * When a score came: its date (the year only when it is not this one, which
 * a board's scores mostly are) and its time, each a whole, so that a narrow
 * board wraps between them (app.css). The `title` has it in full.
 */
function whenCell(createdAt: string): HTMLTableCellElement {
  const at = new Date(createdAt);
  const day = at.getFullYear() === new Date().getFullYear() ? dayThisYear : dayOtherYear;
  const time = document.createElement('time');
  time.dateTime = createdAt;
  time.title = `${dayOtherYear.format(at)}, ${clock.format(at)}`;
  const part = (text: string) => {
    const span = document.createElement('span');
    span.textContent = text;
    return span;
  };
  time.append(part(day.format(at)), ', ', part(clock.format(at)));
  const cell = document.createElement('td');
  cell.append(time);
  return cell;
}

/** Draws the board; the row of the score that just arrived is marked so it can be seen. */
export function renderBoard(
  elements: { title: HTMLElement; caption: HTMLElement; valueHeading: HTMLElement; entries: HTMLElement; empty: HTMLElement },
  board: BoardUpdate,
): void {
  elements.title.textContent = board.name;
  elements.valueHeading.textContent = unitHeading(board.unit);
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
    row.append(whenCell(entry.createdAt));
    return row;
  });
  elements.entries.replaceChildren(...rows);
  elements.empty.hidden = rows.length > 0;
}
