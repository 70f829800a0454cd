import { GraphQLError, Kind, type FragmentDefinitionNode, type SelectionSetNode, type ValidationRule } from 'graphql';
import { perFragment } from './per-fragment.ts';

/** docs/spec/DECISIONS.md, "GraphQL cost": an operation selects at most this many fields, its fragments expanded. */
const MAX_FIELD_SELECTIONS = 1000;

/**
 * Depth and top-level width do not bound an operation's work: fragments
 * spread under aliases multiply beneath any field, introspection included,
 * and graphql-js answers introspection in one turn of the event loop. So
 * every field selection is counted as execution would meet it — a fragment
 * again at every place it is spread; aliases, `__typename` and introspection
 * fields like any other — and more than 1,000 is refused before anything
 * runs. A fragment's own count is worked out once (so counting stays cheap
 * however far the spreads multiply), exactly, in BigInt: a 4,000-character
 * document can name counts far beyond 2^53. A cycle counts as nothing —
 * NoFragmentCycles reports it, and these rules run only on valid documents.
 */
export function costLimit(max: number = MAX_FIELD_SELECTIONS): ValidationRule {
  return (context) => ({
    OperationDefinition(operation) {
      const count = countFieldSelections(operation.selectionSet, (name) => context.getFragment(name));
      if (count > BigInt(max)) {
        context.reportError(
          new GraphQLError(`The operation selects ${count} fields once its fragments are expanded, above the limit of ${max}.`, { nodes: [operation] }),
        );
      }
      return false;
    },
  });
}

/** The field selections under `selectionSet`, every fragment expanded where it is spread. */
export function countFieldSelections(selectionSet: SelectionSetNode, fragmentNamed: (name: string) => FragmentDefinitionNode | null | undefined): bigint {
  const fragmentCount = perFragment(fragmentNamed, (fragment) => selectionCount(fragment.selectionSet), 0n);

  const selectionCount = (set: SelectionSetNode): bigint => {
    let count = 0n;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) count += 1n + (selection.selectionSet ? selectionCount(selection.selectionSet) : 0n);
      else if (selection.kind === Kind.INLINE_FRAGMENT) count += selectionCount(selection.selectionSet);
      else count += fragmentCount(selection.name.value);
    }
    return count;
  };

  return selectionCount(selectionSet);
}
