import {
  getNamedType,
  GraphQLError,
  isListType,
  isNonNullType,
  Kind,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValidationRule,
} from 'graphql';
import { MAX_PAGE_SIZE } from '../schemas/page-size.ts';
import { perFragment } from './per-fragment.ts';

/**
 * Fields an operation may resolve with every list full: eight full pages of
 * tasks with every field, or twenty with two, within (2,000 fields, some
 * 2.4 MB of answer at worst); twenty pages of 48 aliased titles (48,000
 * fields, 10–60 MB of answer) far beyond.
 */
const MAX_RESOLVED_FIELDS = 2500;

/** The fields introspection answers in its own thread (introspection-off-thread.ts): bounded by the selection count alone. */
const THREAD_ROOTS: ReadonlySet<string> = new Set(['__schema', '__type']);

/**
 * The 1,000 selections of the cost rule do not bound what the data side
 * resolves, writes and sends: every list multiplies what lies beneath it, up
 * to 50 items (docs/spec/SPEC.md's page size). So every field outside introspection is
 * counted as often as it could be resolved — once for each item of each list
 * above it, a list counted full (the list field itself once) — and more than 2,500 is refused before
 * anything runs. Introspection's own lists are left to the selection count
 * and its thread; a `__typename` among data counts like any field.
 */
export function resolvedFieldsLimit(max: number = MAX_RESOLVED_FIELDS): ValidationRule {
  return (context) => ({
    OperationDefinition(operation) {
      const schema = context.getSchema();
      const root = schema.getRootType(operation.operation);
      const count = root ? countResolvedFields(schema, operation.selectionSet, root, (name) => context.getFragment(name)) : 0;
      if (count > max) {
        context.reportError(
          new GraphQLError(`The operation could resolve ${count} fields with its lists full (${MAX_PAGE_SIZE} items each), above the limit of ${max}.`, {
            nodes: [operation],
          }),
        );
      }
      return false;
    },
  });
}

/** The fields beneath `selectionSet` (of type `parent`) that could be resolved with every list full, introspection aside. */
export function countResolvedFields(
  schema: GraphQLSchema,
  selectionSet: SelectionSetNode,
  parent: GraphQLNamedType,
  fragmentNamed: (name: string) => FragmentDefinitionNode | null | undefined,
): number {
  const fragmentCount = perFragment(
    fragmentNamed,
    (fragment) => {
      const type = schema.getType(fragment.typeCondition.name.value);
      return type ? selectionCount(fragment.selectionSet, type) : 0;
    },
    0,
  );

  const selectionCount = (set: SelectionSetNode, type: GraphQLNamedType): number => {
    let count = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) count += fragmentCount(selection.name.value);
      else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type;
        if (condition) count += selectionCount(selection.selectionSet, condition);
      } else if (!THREAD_ROOTS.has(selection.name.value)) {
        const field = 'getFields' in type ? type.getFields()[selection.name.value] : undefined;
        const fieldType = field?.type as GraphQLOutputType | undefined;
        const items = fieldType && isListType(isNonNullType(fieldType) ? fieldType.ofType : fieldType) ? MAX_PAGE_SIZE : 1;
        const beneath = fieldType && selection.selectionSet ? selectionCount(selection.selectionSet, getNamedType(fieldType)) : 0;
        count += 1 + items * beneath;
      }
    }
    return count;
  };

  return selectionCount(selectionSet, parent);
}
