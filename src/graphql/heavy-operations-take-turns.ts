import { getOperationAST, Kind, type DocumentNode, type FragmentDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from './builder.ts';
import { countFieldSelections } from './cost-limit.ts';

/**
 * Below this many field selections an operation's work is small however its
 * lists fill (at most 20 top-level fields of at most 50 items): it runs at
 * once, side by side with others.
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
 * DECISIONS "GraphQL and the event loop": graphql-js answers introspection —
 * and completes a resolved list — in one synchronous run, so an admitted
 * operation of a thousand selections can hold the event loop for tens of
 * milliseconds. Heavy operations therefore take turns: one runs at a time,
 * each starts from `setImmediate`, after the event loop has polled for I/O
 * — so however many arrive together, a health check waits for at most one
 * of them, never for the queue. Light operations are not held.
 */
export function heavyOperationsTakeTurns(): Plugin<GraphQLContext> {
  const waiting: (() => void)[] = [];
  let running = false;
  let scheduled = false;

  // One start per turn of the event loop, from its check phase: I/O is polled between any two.
  const startNext = () => {
    scheduled = false;
    const next = running ? undefined : waiting.shift();
    if (!next) return;
    running = true;
    next();
  };
  const schedule = () => {
    if (scheduled || running || waiting.length === 0) return;
    scheduled = true;
    setImmediate(startNext);
  };
  const take = () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      schedule();
    });
  const release = () => {
    running = false;
    schedule();
  };

  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      if (!isHeavy(args.document, args.operationName)) return;
      setExecuteFn(async (executionArgs) => {
        await take();
        try {
          return await executeFn(executionArgs);
        } finally {
          release();
        }
      });
    },
  };
}
