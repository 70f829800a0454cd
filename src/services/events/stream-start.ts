import type { ServiceContext } from '../service-context.ts';
import { latestEventId } from './read-events.ts';

/** Where a stream of the event log begins. */
export type StreamStart =
  /** Resume after the client's id: it gets what came later, and no initial board. */
  | { resume: true; after: number }
  /** Start over, as for a new client: the current board, at the newest stored event. */
  | { resume: false; latest: number };

/**
 * The one rule for where a stream begins (docs/spec/SPEC.md, "GET /api/scores/stream"):
 * with no valid Last-Event-ID a client is new; with one, it resumes after it
 * — unless the log has never reached that id. A restore from a backup, or any
 * reset of the log, leaves browsers holding ids from a log that is gone;
 * resuming there would wait, without a sign, until new events pass the old
 * id. Such a client starts over with the current board instead.
 */
export async function streamStart({ ctx, input }: { ctx: ServiceContext; input: { lastEventId: number | undefined } }): Promise<StreamStart> {
  const latest = await latestEventId({ ctx });
  if (input.lastEventId !== undefined && input.lastEventId <= latest) return { resume: true, after: input.lastEventId };
  return { resume: false, latest };
}
