import SchemaBuilder from '@pothos/core';
import type { Context } from '../procedures/context.ts';

/** What every resolver gets: the same request Context the procedures get. */
export interface GraphQLContext {
  ctx: Context;
  /** Set for a heavy operation: each root field completes in a turn of the event loop of its own (heavy-operations-take-turns.ts). */
  takesTurns?: boolean;
}

/** The one Pothos builder; each file under types/ adds one type to it. */
export const builder = new SchemaBuilder<{ Context: GraphQLContext; DefaultFieldNullability: false }>({
  // SPEC's schema is non-null unless it says otherwise (only `task` may be null).
  defaultFieldNullability: false,
});

builder.queryType({});
builder.mutationType({});
