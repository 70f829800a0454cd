import { getVariableValues, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from '../builder.ts';
import { runsWith, topLevelFields } from '../top-level-fields.ts';
import type { IntrospectionThread } from './introspection-thread.ts';
import { SCHEMA_FIELDS, splitIntrospection } from './split-introspection.ts';

/**
 * DECISIONS "GraphQL and the event loop": graphql-js answers introspection
 * synchronously, and within the limits (1,000 selections, 4,000 characters)
 * one document can still make it resolve some 60,000 fields — tens of
 * milliseconds of one turn, more than a health check may wait. So a query's
 * `__schema` and `__type` fields are answered by the introspection thread,
 * and only the rest, if any, here; the two results are put back together in
 * the order the query asked for them. The variables are checked here first:
 * if they are wrong, the ordinary execution answers with its usual errors.
 */
export function introspectionOffThread(thread: IntrospectionThread): Plugin<GraphQLContext> {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const split = splitIntrospection(args.document, args.operationName);
      if (!split) return;
      setExecuteFn(async (executionArgs) => {
        const variables = executionArgs.variableValues ?? undefined;
        const checked = getVariableValues(executionArgs.schema, split.operation.variableDefinitions ?? [], variables ?? {});
        if (checked.errors) return executeFn(executionArgs);
        const [schemaJson, rest] = await Promise.all([
          thread.run({ query: split.schemaPart, variables, operationName: executionArgs.operationName ?? undefined }),
          split.rest ? (executeFn({ ...executionArgs, document: split.rest }) as Promise<ExecutionResult>) : undefined,
        ]);
        const schemaResult = JSON.parse(schemaJson) as ExecutionResult;
        // Introspection with checked variables has nothing to fail on: an error here is ours.
        if (schemaResult.errors?.length) throw new Error(`introspection failed: ${schemaResult.errors[0]!.message}`);
        if (!rest) return schemaResult;
        if (!rest.data) return rest;
        const data: Record<string, unknown> = {};
        for (const [key, field] of topLevelFields(split.operation.selectionSet, split.fragmentNamed, runsWith(variables))) {
          data[key] = (SCHEMA_FIELDS.has(field) ? schemaResult.data : rest.data)?.[key];
        }
        return { ...rest, data };
      });
    },
  };
}
