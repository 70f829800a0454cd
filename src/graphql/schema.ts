import { lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from './builder.ts';
import './types/game.ts';
import './types/leaderboard.ts';
import './types/score-entry.ts';
import './types/task.ts';

/** The GraphQL schema, built once from every type file. */
export const schema = builder.toSchema({ sortSchema: false });

/** The SDL committed under test/contracts/ and checked for drift. */
export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
