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
 * with the request id, before Yoga masks it in the answer.
 */
export function logResolverFailures(log: (ctx: Context, error: unknown, path: readonly (string | number)[] | undefined) => void): Plugin<GraphQLContext> {
  return {
    onExecute: () => ({
      onExecuteDone({ args, result }) {
        if (!('errors' in result) || !result.errors) return;
        for (const error of result.errors) {
          const cause = unexpectedCause(error);
          if (cause !== undefined) log(args.contextValue.ctx, cause, error.path);
        }
      },
    }),
  };
}
