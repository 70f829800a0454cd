import { lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from './builder.ts';
import type { ProcedureExtension } from './resolve-through-procedure.ts';
import './types/game.ts';
import './types/leaderboard.ts';
import './types/score-entry.ts';
import './types/task.ts';

/** The GraphQL schema, built once from every type file. */
export const schema = builder.toSchema({ sortSchema: false });

// Every root field resolves through a procedure (resolve-through-procedure.ts): its rate limit,
// input rules and output shape are the procedure's, declared once. A field without one would
// skip them all, so the schema refuses to exist.
for (const root of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
  for (const field of Object.values(root?.getFields() ?? {})) {
    if (!(field.extensions as Partial<ProcedureExtension>).procedure) throw new Error(`${root!.name}.${field.name} does not resolve through a procedure`);
  }
}

/** The SDL committed under test/contracts/ and checked for drift. */
export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
