import type { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { toAppError } from '../errors/to-app-error.ts';
import type { Context } from '../procedures/context.ts';
import type { GraphQLContext } from './builder.ts';

/**
 * What a resolver threw, under graphql-js's wrapping: a GraphQL error of our
 * own (input, not found, rate limited) is an answer, anything else a failure.
 */
function unexpectedCause(error: GraphQLError): unknown {
  let current: unknown = error;
  while ((current as { name?: unknown }).name === 'GraphQLError') {
    const original = (current as GraphQLError).originalError;
    if (!original) return undefined;
    current = original;
  }
  return toAppError(current).slug === 'internal' ? current : undefined;
}

/**
 * docs/spec/DECISIONS.md, "Every 500": a resolver that failed unexpectedly is logged once,
 * with the request id, before Yoga masks it in the answer — a subscription's too.
 */
export function logResolverFailures(log: (ctx: Context, error: unknown, path: readonly (string | number)[] | undefined) => void): Plugin<GraphQLContext> {
  const logFailures = (ctx: Context, errors: readonly GraphQLError[] | undefined) => {
    for (const error of errors ?? []) {
      const cause = unexpectedCause(error);
      if (cause !== undefined) log(ctx, cause, error.path);
    }
  };
  return {
    onExecute: () => ({
      onExecuteDone({ args, result }) {
        if ('errors' in result) logFailures(args.contextValue.ctx, result.errors);
      },
    }),
    // A subscription's failures: in setting it up, and in each message it sends.
    onSubscribe: ({ args }) => ({
      onSubscribeResult: ({ result }) => {
        if ('errors' in result) logFailures(args.contextValue.ctx, result.errors);
        return { onNext: ({ result: message }) => logFailures(args.contextValue.ctx, message.errors) };
      },
      onSubscribeError: ({ error }) => log(args.contextValue.ctx, error, undefined),
    }),
  };
}
