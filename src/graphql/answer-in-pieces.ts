import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { EventLoopTurns } from '../lib/event-loop-turns.ts';
import type { GraphQLContext } from './builder.ts';

/** Top-level fields already written as JSON text (the introspection thread's), by response key. */
export const WRITTEN_FIELDS = Symbol('written fields');

/** A result whose top-level fields may already be JSON text. */
export type PartlyWrittenResult = ExecutionResult & { [WRITTEN_FIELDS]?: Readonly<Record<string, string>> };

/** A result that writes itself: Yoga's plugin API (its ExecutionResultWithSerializer) calls `stringify` instead of JSON.stringify. */
type SelfWrittenResult = ExecutionResult & { stringify: (result: ExecutionResult) => string };

/**
 * Writes an answer one top-level field at a time. A heavy operation's answer
 * can be megabytes (twenty pages of long titles): written by one
 * JSON.stringify it would hold the event loop as long as its execution did
 * before its root fields took turns, so each of its fields is written in a
 * turn of its own. Fields the introspection thread wrote come as text and
 * are put in as they are. Light answers without such fields are left to
 * Yoga's JSON.stringify.
 */
export function answerInPieces(turns: EventLoopTurns): Plugin<GraphQLContext> {
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn(async (executionArgs) => {
        const result = (await executeFn(executionArgs)) as PartlyWrittenResult;
        const written = result[WRITTEN_FIELDS];
        const { takesTurns } = executionArgs.contextValue as GraphQLContext;
        if (!result.data || (!written && !takesTurns)) return result;
        const pieces: Record<string, string> = {};
        for (const [key, value] of Object.entries(result.data)) {
          if (written?.[key] !== undefined) pieces[key] = written[key]!;
          else {
            if (takesTurns) await turns.take();
            pieces[key] = JSON.stringify(value) ?? 'null';
          }
        }
        const answer: SelfWrittenResult = {
          ...result,
          stringify: (sanitized) => {
            const fields = Object.keys(pieces).map((key) => `${JSON.stringify(key)}:${pieces[key]}`);
            const errors = sanitized.errors?.length ? `"errors":${JSON.stringify(sanitized.errors)},` : '';
            const extensions = sanitized.extensions ? `,"extensions":${JSON.stringify(sanitized.extensions)}` : '';
            return `{${errors}"data":{${fields.join(',')}}${extensions}}`;
          },
        };
        return answer;
      });
    },
  };
}
