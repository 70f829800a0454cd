import { getOperationAST, Kind, type DocumentNode, type FragmentDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from './builder.ts';
import { countFieldSelections } from './cost-limit.ts';

/**
 * Below this many field selections an operation's work is small however its
 * lists fill (at most 20 top-level fields of at most 50 items): its fields
 * complete as they come, side by side with others.
 */
const LIGHT_SELECTIONS = 100;

/** Whether an operation is heavy, per document (Yoga hands back the same document for the same text). */
const verdicts = new WeakMap<DocumentNode, Map<string | null | undefined, boolean>>();

function isHeavy(document: DocumentNode, operationName: string | null | undefined): boolean {
  let byOperation = verdicts.get(document);
  const known = byOperation?.get(operationName);
  if (known !== undefined) return known;
  const operation = getOperationAST(document, operationName);
  let heavy = false;
  if (operation) {
    const fragments = new Map(
      document.definitions.filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION).map((fragment) => [fragment.name.value, fragment]),
    );
    heavy = countFieldSelections(operation.selectionSet, (name) => fragments.get(name)) > BigInt(LIGHT_SELECTIONS);
  }
  if (!byOperation) verdicts.set(document, (byOperation = new Map()));
  byOperation.set(operationName, heavy);
  return heavy;
}

/**
 * DECISIONS "GraphQL and the event loop": once a root field's data is in,
 * graphql-js completes everything beneath it synchronously — for an admitted
 * operation of a thousand selections, twenty lists of fifty items with fifty
 * fields each, tens of milliseconds in one run. A heavy operation's root
 * fields therefore complete one per turn of the event loop (resolve-through-
 * procedure.ts takes the turn), and the loop polls for I/O between any two —
 * so however many heavy operations arrive together, a health check waits for
 * at most one root field's worth of work.
 */
export function heavyOperationsTakeTurns(): Plugin<GraphQLContext> {
  return {
    onExecute({ args, extendContext }) {
      if (isHeavy(args.document, args.operationName)) extendContext({ takesTurns: true });
    },
  };
}
