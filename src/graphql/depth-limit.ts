import { GraphQLError, Kind, type SelectionSetNode, type ValidationRule } from 'graphql';
import { perFragment } from './per-fragment.ts';

/** docs/spec/SPEC.md: nesting deeper than 5 levels is refused. */
const MAX_DEPTH = 5;

/**
 * The depth rule of docs/spec/DECISIONS.md: every field is one level (a top-level field
 * is level 1); fragment spreads and inline fragments add none and are
 * followed; an introspection field (`__schema`, `__type`, `__typename`) adds
 * nothing and neither does anything beneath it. A fragment's depth is worked
 * out once (so fan-out cannot blow up) and a cycle counts as no depth —
 * NoFragmentCycles reports cycles, and validation rules run side by side.
 */
export function depthLimit(maxDepth: number = MAX_DEPTH): ValidationRule {
  return (context) => {
    const fragmentDepth = perFragment((name) => context.getFragment(name), (fragment) => selectionDepth(fragment.selectionSet), 0);

    const selectionDepth = (selectionSet: SelectionSetNode): number => {
      let deepest = 0;
      for (const selection of selectionSet.selections) {
        if (selection.kind === Kind.FIELD) {
          if (selection.name.value.startsWith('__')) continue;
          deepest = Math.max(deepest, 1 + (selection.selectionSet ? selectionDepth(selection.selectionSet) : 0));
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          deepest = Math.max(deepest, selectionDepth(selection.selectionSet));
        } else {
          deepest = Math.max(deepest, fragmentDepth(selection.name.value));
        }
      }
      return deepest;
    };

    return {
      OperationDefinition(operation) {
        const depth = selectionDepth(operation.selectionSet);
        if (depth > maxDepth) {
          context.reportError(
            new GraphQLError(`The query has a nesting depth of ${depth}, above the limit of ${maxDepth}.`, { nodes: [operation] }),
          );
        }
        return false;
      },
    };
  };
}
