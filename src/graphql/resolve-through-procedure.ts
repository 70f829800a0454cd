import type { AnyTRPCProcedure, inferProcedureOutput } from '@trpc/server';
import { TRPCError } from '@trpc/server';
import { createGraphQLError } from 'graphql-yoga';
import { AppError } from '../errors/app-error.ts';
import { appErrorOf } from '../errors/app-error-of.ts';
import { graphqlErrorBody } from '../errors/graphql-error-body.ts';
import { problemTypes } from '../errors/problem-types.ts';
import { callProcedure } from '../middleware/call-procedure.ts';
import type { GraphQLContext } from './builder.ts';

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
    async resolve(args, { ctx }) {
      // Each field gets its own response record; the request's prepaid limits are shared.
      const fieldContext = { ...ctx, response: { headers: {} } };
      try {
        return (await callProcedure(procedure, { path, type, ctx: fieldContext, getRawInput: async () => args })) as inferProcedureOutput<P>;
      } catch (thrown) {
        throw toGraphQLError(thrown);
      }
    },
  };
}

function toGraphQLError(thrown: unknown): unknown {
  const error = appErrorOf(thrown);
  if (!(error instanceof AppError)) return error instanceof TRPCError && error.cause ? error.cause : error;
  const { message, extensions } = graphqlErrorBody(error);
  // Yoga's own constructor: an error of Yoga's graphql copy is passed through unmasked.
  return createGraphQLError(message, { extensions: { ...extensions, ...(error.slug === 'unavailable' ? { http: { status: 503 } } : {}) } });
}

/** Whether a resolver's error is the domain's not-found (a field that answers null instead). */
export function isNotFound(error: unknown): boolean {
  return (error as { extensions?: { code?: unknown } }).extensions?.code === problemTypes['not-found'].graphql;
}
