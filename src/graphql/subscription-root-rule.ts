import { GraphQLError, Kind, validate, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode, type ValidationContext, type ValidationRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from './builder.ts';
import { markedAsValidation } from './rules-after-validation.ts';

const CONDITIONAL = new Set(['skip', 'include']);

/**
 * A subscription's root field may not be skipped or included conditionally:
 * the operation must have exactly one root field whatever the variables are
 * (the GraphQL specification's newer text; graphql-js 16 does not check it,
 * and its subscribe path fails on an operation left without one).
 */
function subscriptionRootNotConditional(): ValidationRule {
  return (context: ValidationContext) => ({
    OperationDefinition(operation) {
      if (operation.operation !== 'subscription') return;
      if (hasConditionalRoot(operation.selectionSet, context, new Set())) {
        context.reportError(new GraphQLError('The root field of a subscription cannot be skipped or included conditionally (@skip, @include).', { nodes: operation }));
      }
    },
  });
}

function hasConditionalRoot(selectionSet: SelectionSetNode, context: ValidationContext, seen: Set<string>): boolean {
  for (const selection of selectionSet.selections) {
    if (selection.directives?.some((directive) => CONDITIONAL.has(directive.name.value))) return true;
    if (selection.kind === Kind.INLINE_FRAGMENT && hasConditionalRoot(selection.selectionSet, context, seen)) return true;
    if (selection.kind === Kind.FRAGMENT_SPREAD && !seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment: FragmentDefinitionNode | null | undefined = context.getFragment(selection.name.value);
      if (fragment && hasConditionalRoot(fragment.selectionSet, context, seen)) return true;
    }
  }
  return false;
}

/**
 * The rule, in place of GraphQL's own validation for a document that breaks
 * it: graphql-js 16's one-root-field rule throws on a subscription whose root
 * field is conditional on a variable (Yoga would answer that as an execution
 * error, a 200). Listed after the GraphQL thread's plugin, whose verdict it
 * overrides.
 */
export const subscriptionRootFirst: Plugin<GraphQLContext> = {
  onValidate({ params, setResult }) {
    if (!hasSubscription(params.documentAST)) return;
    const errors = validate(params.schema, params.documentAST, [subscriptionRootNotConditional()]);
    if (errors.length > 0) setResult(markedAsValidation(errors));
  },
};

function hasSubscription(document: DocumentNode): boolean {
  return document.definitions.some((definition) => definition.kind === Kind.OPERATION_DEFINITION && definition.operation === 'subscription');
}
