import SchemaBuilder from '@pothos/core';
import type { Context } from '../procedures/context.ts';
import type { ValidationVerdict } from './thread/graphql-thread.ts';

/** What every resolver gets: the same request Context the procedures get. */
export interface GraphQLContext {
  ctx: Context;
  /** Set for a heavy operation: each root field completes in a turn of the event loop of its own (heavy-operations-take-turns.ts). */
  takesTurns?: boolean;
  /** A long document's validation by GraphQL's rules, done in the GraphQL thread (thread/validation-off-thread.ts). */
  validated?: ValidationVerdict;
  /** The request Yoga serves (its own context field): a subscription ends when its signal aborts. */
  request: Request;
}

/** The one Pothos builder; each file under types/ adds one type to it. */
export const builder = new SchemaBuilder<{ Context: GraphQLContext; DefaultFieldNullability: false }>({
  // docs/spec/SPEC.md's schema is non-null unless it says otherwise (only `task` may be null).
  defaultFieldNullability: false,
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
