import type { AnyTRPCProcedure, inferProcedureOutput } from '@trpc/server';
import { problemTypes } from '../errors/problem-types.ts';
import { toAppError } from '../errors/to-app-error.ts';
import { EventLoopTurns } from '../lib/event-loop-turns.ts';
import { callProcedure } from '../procedures/call-procedure.ts';
import type { GraphQLContext } from './builder.ts';
import { toGraphQLError } from './graphql-error.ts';

/** The one queue of heavy operations' work, for every request of the process: root fields here, answers in answer-in-pieces.ts. */
export const heavyWorkTurns = new EventLoopTurns();

/** The extension a root field carries: the procedure it resolves through. */
export type ProcedureExtension = { procedure: AnyTRPCProcedure };

export interface ProcedureBinding<P extends AnyTRPCProcedure> {
  /** For the field's `extensions`, so an operation's limits can be counted before it runs. */
  extensions: ProcedureExtension;
  /** Runs the procedure — its limit, input and output schemas, resolver — with the field's arguments as input. */
  resolve(args: unknown, context: GraphQLContext): Promise<inferProcedureOutput<P>>;
}

/**
 * A root field served by a tRPC procedure, the one /api/trpc and REST call:
 * the rules of the operation (rate limit, input rules, output shape) live in
 * the procedure once, and a GraphQL field cannot skip them. Domain failures
 * become GraphQL errors with an `extensions.code`; anything unexpected is
 * thrown on as it is, for Yoga to mask and our plugin to log.
 */
export function throughProcedure<P extends AnyTRPCProcedure>(procedure: P, path: string): ProcedureBinding<P> {
  const type = procedure._def.type;
  if (type === 'subscription') throw new Error(`${path}: a subscription cannot back a GraphQL field`);
  return {
    extensions: { procedure },
    async resolve(args, { ctx, takesTurns }) {
      // Each field gets its own response record; the request's prepaid limits are shared.
      const fieldContext = { ...ctx, response: { headers: {} } };
      let output: inferProcedureOutput<P>;
      // The procedure's own work (on the embedded database, its query too) in a turn of its own…
      if (takesTurns) await heavyWorkTurns.take();
      try {
        output = (await callProcedure(procedure, { path, type, ctx: fieldContext, getRawInput: async () => args })) as inferProcedureOutput<P>;
      } catch (thrown) {
        throw toGraphQLError(toAppError(thrown));
      }
      // …and so is what graphql-js completes beneath the field, in the microtasks after this returns.
      if (takesTurns) await heavyWorkTurns.take();
      return output;
    },
  };
}

/** Whether a resolver's error is the domain's not-found (a field that answers null instead). */
export function isNotFound(error: unknown): boolean {
  return (error as { extensions?: { code?: unknown } }).extensions?.code === problemTypes['not-found'].graphql;
}
