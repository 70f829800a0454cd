import type { TaskRow } from '../../services/tasks/task-representation.ts';
import { isoTimestampOf } from '../../lib/iso-timestamp.ts';

/**
 * SPEC "CSV rules": a header line, then one line per task; lines separated by
 * a line feed; the title always quoted with embedded quotes doubled.
 */
export function tasksToCsv(rows: readonly TaskRow[]): string {
  const lines = ['id,title,done,created_at'];
  for (const row of rows) {
    lines.push(`${row.id},"${row.title.replaceAll('"', '""')}",${row.done},${isoTimestampOf(row.createdAt)}`);
  }
  return lines.join('\n');
}
