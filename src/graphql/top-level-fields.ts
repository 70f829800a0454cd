import { Kind, type FragmentDefinitionNode, type SelectionNode, type SelectionSetNode, type ValueNode } from 'graphql';

/**
 * The fields an operation selects at its top level, as response key → field
 * name: aliases count apart, and fields under one response key run once.
 * Fragment spreads (each followed once, so cycles end) and inline fragments
 * are followed; `runs` decides which selections @skip and @include keep.
 */
export function topLevelFields(
  selectionSet: SelectionSetNode,
  fragmentNamed: (name: string) => FragmentDefinitionNode | null | undefined,
  runs: (selection: SelectionNode) => boolean = () => true,
): Map<string, string> {
  const fields = new Map<string, string>();
  const followed = new Set<string>();
  const collect = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (!runs(selection)) continue;
      if (selection.kind === Kind.FIELD) {
        fields.set(selection.alias?.value ?? selection.name.value, selection.name.value);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        collect(selection.selectionSet);
      } else if (!followed.has(selection.name.value)) {
        followed.add(selection.name.value);
        const fragment = fragmentNamed(selection.name.value);
        if (fragment) collect(fragment.selectionSet);
      }
    }
  };
  collect(selectionSet);
  return fields;
}

/**
 * Whether @skip and @include let a selection run, given the request's
 * variables. A condition that is not a plain boolean is left for execution
 * to refuse, and the selection counts as running: counting too much is safe.
 */
export function runsWith(variables: Readonly<Record<string, unknown>> | null | undefined): (selection: SelectionNode) => boolean {
  const valueOf = (node: ValueNode): unknown => (node.kind === Kind.VARIABLE ? variables?.[node.name.value] : node.kind === Kind.BOOLEAN ? node.value : undefined);
  return (selection) => {
    for (const directive of selection.directives ?? []) {
      const condition = directive.arguments?.find((argument) => argument.name.value === 'if');
      const value = condition ? valueOf(condition.value) : undefined;
      if (directive.name.value === 'skip' && value === true) return false;
      if (directive.name.value === 'include' && value === false) return false;
    }
    return true;
  };
}
