import type { FragmentDefinitionNode } from 'graphql';

/**
 * A value worked out once per fragment, however often it is spread — so
 * fragments spreading each other under aliases cannot multiply the work of
 * measuring them. A fragment that is missing, or spread inside itself (a
 * cycle: NoFragmentCycles reports it, and our rules run only on documents
 * that passed), is `none`.
 */
export function perFragment<T>(
  fragmentNamed: (name: string) => FragmentDefinitionNode | null | undefined,
  compute: (fragment: FragmentDefinitionNode) => T,
  none: T,
): (name: string) => T {
  const known = new Map<string, T>();
  const inProgress = new Set<string>();
  return (name) => {
    if (known.has(name)) return known.get(name)!;
    const fragment = fragmentNamed(name);
    if (!fragment || inProgress.has(name)) return none;
    inProgress.add(name);
    const value = compute(fragment);
    inProgress.delete(name);
    known.set(name, value);
    return value;
  };
}
