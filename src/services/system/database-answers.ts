import { sql } from 'drizzle-orm';
import type { ServiceContext } from '../service-context.ts';

/**
 * Whether the database answers a trivial query within `withinMs`: readiness
 * (docs/spec/DECISIONS.md, "Operations"). A query that is still waiting when the time is up
 * (no connection free, the server gone quiet) counts as no answer.
 */
export async function databaseAnswers({ ctx, input }: { ctx: ServiceContext; input: { withinMs: number } }): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeUp = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), input.withinMs);
  });
  const answered = ctx.db.execute(sql`select 1`).then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([answered, timeUp]);
  } finally {
    clearTimeout(timer);
  }
}
