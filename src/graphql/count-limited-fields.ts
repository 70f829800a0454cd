import { getOperationAST, Kind, type DocumentNode, type GraphQLError, type FragmentDefinitionNode, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { toAppError } from '../errors/to-app-error.ts';
import { hitRateLimit } from '../services/rate-limits/hit-rate-limit.ts';
import type { LimitName } from '../services/rate-limits/limit-policies.ts';
import { requesterOf, type Context } from '../procedures/context.ts';
import type { Meta } from '../procedures/meta.ts';
import type { GraphQLContext } from './builder.ts';
import { toGraphQLError } from './graphql-error.ts';
import type { ProcedureExtension } from './resolve-through-procedure.ts';
import { runsWith, topLevelFields } from './top-level-fields.ts';

/**
 * docs/spec/DECISIONS.md, "GraphQL createTask": the limited fields of an operation are
 * counted before it runs, one per field (aliases count), all or nothing —
 * if they do not all fit, the operation is refused whole with a 429 and
 * nothing runs. Each field's procedure then takes one of the calls paid for
 * here (see middleware/access.ts), so nothing is counted twice.
 */
export function countLimitedFields(onUnexpected: (ctx: Context, error: unknown) => void): Plugin<GraphQLContext> {
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const { ctx } = args.contextValue;
      const costs = limitedFieldsOf(args.schema, args.document, args.operationName, args.variableValues);
      if (costs.size === 0) return;
      const prepaid: NonNullable<Context['prepaid']> = new Map();
      try {
        for (const [name, cost] of costs) {
          prepaid.set(name, { calls: cost, outcome: await hitRateLimit({ ctx: ctx.service, input: { name, requester: requesterOf(ctx), cost } }) });
        }
      } catch (thrown) {
        const failure = toAppError(thrown);
        if (failure.slug === 'internal') {
          onUnexpected(ctx, thrown);
          throw thrown;
        }
        setResultAndStopExecution({ errors: [toGraphQLError(failure) as GraphQLError] });
        return;
      }
      ctx.prepaid = prepaid;
    },
  };
}

/** How many calls the operation's top-level fields make against each limit, by the procedures behind them. */
function limitedFieldsOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Readonly<Record<string, unknown>> | null | undefined,
): Map<LimitName, number> {
  const costs = new Map<LimitName, number>();
  const operation = getOperationAST(document, operationName);
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root) return costs;
  const fragments = new Map(
    document.definitions.filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION).map((fragment) => [fragment.name.value, fragment]),
  );
  const fields = root.getFields();
  for (const fieldName of topLevelFields(operation.selectionSet, (name) => fragments.get(name), runsWith(variables)).values()) {
    const procedure = (fields[fieldName]?.extensions as Partial<ProcedureExtension> | undefined)?.procedure;
    const limit = (procedure?._def.meta as Meta | undefined)?.access?.rateLimit;
    if (limit) costs.set(limit, (costs.get(limit) ?? 0) + 1);
  }
  return costs;
}
