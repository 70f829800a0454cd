import type { TaskRow } from '../../services/tasks/task-representation.ts';

/**
 * SPEC "CSV rules": a header line, then one line per task; lines separated by
 * a line feed; the title always quoted with embedded quotes doubled.
 */
export function tasksToCsv(rows: readonly TaskRow[]): string {
  const lines = ['id,title,done,created_at'];
  for (const row of rows) {
    lines.push(`${row.id},"${row.title.replaceAll('"', '""')}",${row.done},${row.createdAt.toISOString()}`);
  }
  return lines.join('\n');
}
