import { getVariableValues, type ExecutionResult, type GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { toAppError } from '../../errors/to-app-error.ts';
import { WRITTEN_FIELDS, type PartlyWrittenResult } from '../answer-in-pieces.ts';
import type { GraphQLContext } from '../builder.ts';
import { toGraphQLError } from '../graphql-error.ts';
import { runsWith, topLevelFields } from '../top-level-fields.ts';
import type { GraphQLThread } from './graphql-thread.ts';
import { splitIntrospection, THREAD_FIELDS } from './split-introspection.ts';

/**
 * docs/spec/DECISIONS.md, "GraphQL and the event loop": graphql-js answers introspection
 * synchronously, and within the limits (1,000 selections, 4,000 characters)
 * one document can still make it resolve some 60,000 fields — tens of
 * milliseconds of one turn, more than a health check may wait. So a query's
 * `__schema` and `__type` fields (and `__typename`) are answered by the
 * introspection thread, and only the rest, if any, here; the two are put back
 * together in the order the query asked for them. The thread's answers are
 * JSON text, written into the response as they are: parsing and writing out
 * again a megabyte of introspection would cost this event loop most of what
 * the thread saved it (answer-in-pieces.ts writes them in). The variables are
 * checked here first: if they are wrong, the ordinary execution answers with
 * its usual errors.
 */
export function introspectionOffThread(thread: GraphQLThread): Plugin<GraphQLContext> {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const split = splitIntrospection(args.document, args.operationName);
      if (!split) return;
      setExecuteFn(async (executionArgs) => {
        const variables = executionArgs.variableValues ?? undefined;
        const checked = getVariableValues(executionArgs.schema, split.operation.variableDefinitions ?? [], variables ?? {});
        if (checked.errors) return executeFn(executionArgs);
        let answered: Record<string, string>;
        let rest: ExecutionResult | undefined;
        try {
          [answered, rest] = await Promise.all([
            thread.introspect({ query: split.schemaPart, variables, operationName: executionArgs.operationName ?? undefined }),
            split.rest ? (executeFn({ ...executionArgs, document: split.rest }) as Promise<ExecutionResult>) : undefined,
          ]);
        } catch (thrown) {
          // A full queue (503) is an answer; anything else, a failure for Yoga to mask and our plugin to log.
          const failure = toAppError(thrown);
          if (failure.slug === 'internal') throw thrown;
          return { errors: [toGraphQLError(failure) as GraphQLError] };
        }
        if (rest && !rest.data) return rest;
        // What runs is decided with the variables' defaults (coerced), as execution decides it.
        const order = [...topLevelFields(split.operation.selectionSet, split.fragmentNamed, runsWith(checked.coerced))];
        const fromThread = ([, field]: [string, string]) => THREAD_FIELDS.has(field);
        // Seen by the other plugins as a result whose thread-answered fields are null; written with them as answered (answer-in-pieces.ts).
        const data = Object.fromEntries(order.map((entry) => [entry[0], fromThread(entry) ? null : rest!.data![entry[0]]]));
        const result: PartlyWrittenResult = { ...rest, data, [WRITTEN_FIELDS]: answered };
        return result;
      });
    },
  };
}
