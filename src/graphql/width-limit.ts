import { GraphQLError, type ValidationRule } from 'graphql';
import { topLevelFields } from './top-level-fields.ts';

/** docs/spec/DECISIONS.md, "GraphQL width": an operation selects at most this many top-level fields. */
const MAX_TOP_LEVEL_FIELDS = 20;

/**
 * Each top-level field is a query of its own, and aliases repeat a field as
 * often as a client likes: at most 20 per operation (aliases included;
 * introspection fields, which read no data, not counted).
 */
export function widthLimit(max: number = MAX_TOP_LEVEL_FIELDS): ValidationRule {
  return (context) => ({
    OperationDefinition(operation) {
      const fields = [...topLevelFields(operation.selectionSet, (name) => context.getFragment(name)).values()];
      const width = fields.filter((field) => !field.startsWith('__')).length;
      if (width > max) {
        context.reportError(new GraphQLError(`The operation selects ${width} top-level fields, above the limit of ${max}.`, { nodes: [operation] }));
      }
      return false;
    },
  });
}
