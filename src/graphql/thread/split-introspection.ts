import {
  Kind,
  OperationTypeNode,
  print,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';
import { topLevelFields } from '../top-level-fields.ts';

/** The root fields that open the schema's lists. */
const SCHEMA_FIELDS: ReadonlySet<string> = new Set(['__schema', '__type']);

/** What the introspection thread answers: the schema fields, and `__typename` with them (it needs nothing else). */
export const THREAD_FIELDS: ReadonlySet<string> = new Set([...SCHEMA_FIELDS, '__typename']);

/** A query's schema fields apart from the rest: each half an operation of its own, with the same name and variables. */
export interface SplitQuery {
  operation: OperationDefinitionNode;
  fragmentNamed: (name: string) => FragmentDefinitionNode | undefined;
  /** The document with only the thread's fields, printed for the introspection thread. */
  schemaPart: string;
  /** The document without them, for the ordinary execution; undefined when nothing is left. */
  rest: DocumentNode | undefined;
}

const splits = new WeakMap<DocumentNode, Map<string | null | undefined, SplitQuery | null>>();

/**
 * Splits the query that `operationName` picks into its `__schema`/`__type`
 * fields (and `__typename`) and the rest, or gives null when it has no schema
 * field (or is no query: only Query has them). Fragment spreads at the top are inlined, each
 * half keeping the selections of its kind with their directives, so @skip and
 * @include decide as before. Worked out once per document.
 */
export function splitIntrospection(document: DocumentNode, operationName: string | null | undefined): SplitQuery | null {
  let byOperation = splits.get(document);
  if (byOperation?.has(operationName)) return byOperation.get(operationName)!;
  const split = splitOnce(document, operationName);
  if (!byOperation) splits.set(document, (byOperation = new Map()));
  byOperation.set(operationName, split);
  return split;
}

function splitOnce(document: DocumentNode, operationName: string | null | undefined): SplitQuery | null {
  const operations = document.definitions.filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName ? operations.find((candidate) => candidate.name?.value === operationName) : operations.length === 1 ? operations[0] : undefined;
  if (!operation || operation.operation !== OperationTypeNode.QUERY) return null;
  const fragments = new Map(
    document.definitions.filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION).map((fragment) => [fragment.name.value, fragment]),
  );
  const fragmentNamed = (name: string) => fragments.get(name);

  const keep = (selectionSet: SelectionSetNode, wanted: boolean, spreading: ReadonlySet<string>): SelectionNode[] => {
    const kept: SelectionNode[] = [];
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (THREAD_FIELDS.has(selection.name.value) === wanted) kept.push(selection);
        continue;
      }
      const name = selection.kind === Kind.FRAGMENT_SPREAD ? selection.name.value : undefined;
      const fragment = name === undefined ? undefined : fragmentNamed(name);
      if (name !== undefined && (!fragment || spreading.has(name))) continue;
      const inner = selection.kind === Kind.INLINE_FRAGMENT ? selection : fragment!;
      const selections = keep(inner.selectionSet, wanted, name === undefined ? spreading : new Set([...spreading, name]));
      if (selections.length === 0) continue;
      kept.push({
        kind: Kind.INLINE_FRAGMENT,
        ...(inner.typeCondition ? { typeCondition: inner.typeCondition } : {}),
        directives: selection.directives ?? [],
        selectionSet: { kind: Kind.SELECTION_SET, selections },
      });
    }
    return kept;
  };

  if (![...topLevelFields(operation.selectionSet, fragmentNamed).values()].some((field) => SCHEMA_FIELDS.has(field))) return null;
  const schemaSelections = keep(operation.selectionSet, true, new Set());
  const restSelections = keep(operation.selectionSet, false, new Set());
  const withSelections = (selections: SelectionNode[]): DocumentNode => ({
    kind: Kind.DOCUMENT,
    definitions: [{ ...operation, selectionSet: { kind: Kind.SELECTION_SET, selections } }, ...fragments.values()],
  });
  return {
    operation,
    fragmentNamed,
    schemaPart: print(withSelections(schemaSelections)),
    rest: restSelections.length === 0 ? undefined : withSelections(restSelections),
  };
}
