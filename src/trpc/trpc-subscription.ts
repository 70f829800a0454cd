import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnyTRPCProcedure, AnyTRPCRouter, TRPCError } from '@trpc/server';
import { resolveResponse } from '@trpc/server/http';
import type { Context } from '../procedures/context.ts';
import { writeEventStream, type EventStreamLimits } from '../http/event-stream-response.ts';

/** Whether `path` names a subscription procedure (scores.live), which tRPC serves as Server-Sent Events on GET. */
export function isSubscription(router: AnyTRPCRouter, path: string): boolean {
  const procedures = router._def.procedures as Record<string, AnyTRPCProcedure>;
  return Object.hasOwn(procedures, path) && procedures[path]!._def.type === 'subscription';
}

/**
 * A subscription, answered by tRPC's own handler (its SSE encoding: the
 * `connected` message, tracked ids, pings, errors) on a request whose signal
 * is ours: the stream ends after SSE_STREAM_MS or at shutdown like the REST
 * stream, and the client's httpSubscriptionLink reconnects with the last id it saw.
 */
export async function serveSubscription(options: {
  router: AnyTRPCRouter;
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  ctx: Context;
  limits: EventStreamLimits;
  onError: (error: TRPCError, path: string | undefined) => void;
}): Promise<void> {
  const { router, req, res, path, ctx, limits } = options;
  const stop = new AbortController();
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const request = new Request(`http://localhost${req.url ?? '/'}`, { method: 'GET', headers, signal: stop.signal });
  const response = await resolveResponse({
    router,
    req: request,
    path,
    error: null,
    createContext: async () => ctx,
    onError: ({ error, path: failedPath }) => options.onError(error, failedPath),
  });
  await writeEventStream(res, response, stop, limits);
}
