import { getOperationAST, Kind, type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from './builder.ts';
import { countFieldSelections } from './cost-limit.ts';
import { countResolvedFields } from './resolved-fields-limit.ts';

/**
 * Up to this many selections, and this many fields resolved with every list
 * full, an operation's work and answer are small (a page of tasks with all
 * their fields is about 300): its fields complete as they come, side by side
 * with others, and Yoga writes its answer.
 */
const LIGHT_SELECTIONS = 100;
const LIGHT_RESOLVED_FIELDS = 500;

/** Whether an operation is heavy, per document (Yoga hands back the same document for the same text). */
const verdicts = new WeakMap<DocumentNode, Map<string | null | undefined, boolean>>();

function isHeavy(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): boolean {
  let byOperation = verdicts.get(document);
  const known = byOperation?.get(operationName);
  if (known !== undefined) return known;
  const operation = getOperationAST(document, operationName);
  let heavy = false;
  if (operation) {
    const fragments = new Map(
      document.definitions.filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION).map((fragment) => [fragment.name.value, fragment]),
    );
    const fragmentNamed = (name: string) => fragments.get(name);
    const root = schema.getRootType(operation.operation);
    heavy =
      countFieldSelections(operation.selectionSet, fragmentNamed) > BigInt(LIGHT_SELECTIONS) ||
      (root !== null && root !== undefined && countResolvedFields(schema, operation.selectionSet, root, fragmentNamed) > LIGHT_RESOLVED_FIELDS);
  }
  if (!byOperation) verdicts.set(document, (byOperation = new Map()));
  byOperation.set(operationName, heavy);
  return heavy;
}

/**
 * docs/spec/DECISIONS.md, "GraphQL and the event loop": once a root field's data is in,
 * graphql-js completes everything beneath it synchronously — for an admitted
 * operation of a thousand selections, twenty lists of fifty items with fifty
 * fields each, tens of milliseconds in one run, and megabytes to write. A
 * heavy operation's root fields therefore run and complete one per turn of
 * the event loop (resolve-through-procedure.ts takes the turns), its answer is
 * written a root field per turn (answer-in-pieces.ts), and the loop polls for
 * I/O between any two — so however many heavy operations arrive together, a
 * health check waits for at most one root field's worth of work.
 */
export function heavyOperationsTakeTurns(): Plugin<GraphQLContext> {
  return {
    onExecute({ args, extendContext }) {
      if (isHeavy(args.schema, args.document, args.operationName)) extendContext({ takesTurns: true });
    },
  };
}
