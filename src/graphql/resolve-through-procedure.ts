import type { AnyTRPCProcedure, inferProcedureOutput, TrackedEnvelope } from '@trpc/server';
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

/** What a subscription procedure yields: each message with its event id (tRPC's `tracked`). */
type TrackedMessages<P extends AnyTRPCProcedure> = inferProcedureOutput<P> extends AsyncIterable<TrackedEnvelope<infer T>> ? T : never;

export interface SubscriptionBinding<P extends AnyTRPCProcedure> {
  extensions: ProcedureExtension;
  /** Starts the procedure's subscription with the field's arguments as input; it ends when the request's signal aborts. */
  subscribe(args: unknown, context: GraphQLContext): AsyncIterable<TrackedMessages<P>>;
}

/**
 * A root Subscription field served by a tRPC subscription procedure, the one
 * /api/trpc serves: its input rules and its per-client stream cap are the
 * procedure's. GraphQL over SSE has no event ids, so each message's id is
 * dropped; a client that reconnects starts with the current board.
 */
export function throughSubscription<P extends AnyTRPCProcedure>(procedure: P, path: string): SubscriptionBinding<P> {
  if (procedure._def.type !== 'subscription') throw new Error(`${path}: not a subscription`);
  return {
    extensions: { procedure },
    async *subscribe(args, { ctx, request }) {
      let messages: AsyncIterable<TrackedEnvelope<TrackedMessages<P>>>;
      try {
        messages = (await callProcedure(procedure, { path, type: 'subscription', ctx, getRawInput: async () => args, signal: request.signal })) as never;
      } catch (thrown) {
        throw toGraphQLError(toAppError(thrown));
      }
      try {
        for await (const [, message] of messages) {
          // Every follower of a board gets its move at once, and graphql-js completes each one's selection
          // in one go (up to 2,500 fields): one follower per turn of the event loop, so I/O is polled between them.
          await heavyWorkTurns.take();
          yield message;
        }
      } catch (thrown) {
        throw toGraphQLError(toAppError(thrown));
      }
    },
  };
}

/** Whether a resolver's error is the domain's not-found (a field that answers null instead). */
export function isNotFound(error: unknown): boolean {
  return (error as { extensions?: { code?: unknown } }).extensions?.code === problemTypes['not-found'].graphql;
}
