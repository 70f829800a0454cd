import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnyTRPCRouter } from '@trpc/server';
import { getTRPCErrorShape, TRPCError } from '@trpc/server';
import { nodeHTTPRequestHandler } from '@trpc/server/adapters/node-http';
import { AppError } from '../errors/app-error.ts';
import { toAppError } from '../errors/to-app-error.ts';
import { nestsDeeperThan, TOO_DEEP_DETAIL } from '../lib/json-nesting.ts';
import type { Context } from '../procedures/context.ts';
import { toTRPCError } from '../procedures/trpc-error.ts';
import type { Logger } from '../observability/logger.ts';
import { MAX_BODY_BYTES, readBodyText } from '../http/read-json-body.ts';
import { percentDecoded } from '../http/percent-decoded.ts';
import { trpcResponseHeaders } from './trpc-response-headers.ts';
import { serveSingleQuery, singleQueryOf } from './trpc-single-query.ts';
import { isSubscription, serveSubscription } from './trpc-subscription.ts';
import type { EventStreamLimits } from '../http/event-stream-response.ts';
import { writeTrpcEnvelope } from './write-trpc-envelope.ts';

export const TRPC_PREFIX = '/api/trpc/';

/** docs/spec/DECISIONS.md, "tRPC batches": at most this many calls per HTTP request. */
const MAX_BATCH_CALLS = 10;

/**
 * Headers a refusal carries: the methods there are; and for a body too large,
 * that the connection ends — its body was not read to the end (docs/spec/DECISIONS.md, "tRPC
 * body too large", as REST and GraphQL do).
 */
const REFUSAL_HEADERS: Partial<Record<TRPCError['code'], Record<string, string>>> = {
  METHOD_NOT_SUPPORTED: { Allow: 'GET, POST' },
  PAYLOAD_TOO_LARGE: { Connection: 'close' },
};

/** Methods tRPC's HTTP encoding uses (HEAD is tRPC's own 204); anything else is a 405. */
const METHODS = new Set(['GET', 'POST', 'HEAD']);

/**
 * /api/trpc/<procedure>: tRPC's own HTTP encoding, batching and error
 * envelope. Credentials are checked first, as on every request; then what
 * tRPC's handler would not bound or would crash on is refused in its
 * envelope before it starts: other methods (undici's Request throws on
 * TRACE), batches over 10 calls, bodies over 64 KiB, JSON nested deeper
 * than 64 levels. No call runs for a refused request.
 */
export async function serveTrpc(options: {
  router: AnyTRPCRouter;
  req: IncomingMessage;
  res: ServerResponse;
  pathname: string;
  /** The query string without its `?`. */
  search: string;
  requestId: string;
  createContext: () => Promise<Context>;
  /** How a subscription's stream ends (SSE_STREAM_MS, shutdown). */
  streams: EventStreamLimits;
  log: Logger;
}): Promise<void> {
  const { router, req, res, pathname, requestId, log } = options;
  const query = new URLSearchParams(options.search);
  // tRPC's own refusals (bad JSON, unknown procedure) are answers, not failures.
  const logFailure = (error: TRPCError, path: string | undefined) => {
    if (error.code === 'INTERNAL_SERVER_ERROR') log.error({ reqId: requestId, err: toAppError(error).cause ?? error, procedure: path }, 'procedure failed');
  };
  let ctx: Context;
  let refusal: TRPCError | undefined;
  try {
    ctx = await options.createContext();
    refusal = await refusalOf(req, pathname, query);
  } catch (thrown) {
    // Before any procedure, the endpoint's one boundary: a bad credential (401), the database out
    // of reach while a key is looked up (503), or anything unexpected (500), in tRPC's envelope.
    // Once a procedure runs, tRPC's handler (or the single query, its mirror) answers its failures.
    const failure = toAppError(thrown);
    if (failure.slug === 'internal') log.error({ reqId: requestId, err: failure.cause ?? failure }, 'request failed before its procedure');
    writeTrpcError(res, router, toTRPCError(failure), failure.headers);
    return;
  }
  if (refusal) {
    writeTrpcError(res, router, refusal, REFUSAL_HEADERS[refusal.code] ?? {});
    return;
  }
  const path = pathname.slice(TRPC_PREFIX.length);
  // The procedure as tRPC reads the path: `scores%2Elive` is scores.live.
  const procedurePath = percentDecoded(path);
  if (req.method !== 'HEAD' && isSubscription(router, procedurePath)) {
    // A subscription is a GET (an EventSource); tRPC would answer a POST with an event stream outside our bounds.
    if (req.method === 'POST') {
      writeTrpcError(res, router, new TRPCError({ code: 'METHOD_NOT_SUPPORTED', message: `${procedurePath} is a subscription: open it by GET, as an EventSource does.` }), { Allow: 'GET' });
      return;
    }
    await serveSubscription({ router, req, res, path: procedurePath, ctx, limits: options.streams, onError: logFailure });
    return;
  }
  const singleQuery = singleQueryOf(router, req, path, query);
  if (singleQuery) {
    await serveSingleQuery({ router, res, call: singleQuery, ctx, onError: (error, path) => logFailure(error, path) });
    return;
  }
  await nodeHTTPRequestHandler({
    router,
    req,
    res,
    path,
    maxBodySize: MAX_BODY_BYTES,
    createContext: async () => ctx,
    // The headers a procedure or its failure carries (RateLimit, Retry-After, WWW-Authenticate).
    responseMeta: ({ errors }) => ({ headers: trpcResponseHeaders(ctx, res, errors) }),
    onError: ({ error, path }) => logFailure(error, path),
  });
}

/** What tRPC's handler must not be given, as the error to answer instead. */
async function refusalOf(req: IncomingMessage, pathname: string, query: URLSearchParams): Promise<TRPCError | undefined> {
  const method = req.method ?? 'GET';
  if (!METHODS.has(method)) {
    return new TRPCError({ code: 'METHOD_NOT_SUPPORTED', message: `${method} is not supported here; queries use GET and mutations POST.` });
  }
  if (query.get('batch') === '1') {
    const calls = batchSizeOf(pathname.slice(TRPC_PREFIX.length));
    if (calls > MAX_BATCH_CALLS) {
      return new TRPCError({ code: 'BAD_REQUEST', message: `A batch may hold at most ${MAX_BATCH_CALLS} calls; this one has ${calls}.` });
    }
  }
  let input = query.get('input') ?? '';
  if (method === 'POST') {
    try {
      input = await readBodyText(req);
    } catch (error) {
      if (error instanceof AppError) return toTRPCError(error);
      throw error;
    }
    // tRPC reads a body it is handed instead of the stream (it was read above).
    (req as IncomingMessage & { body?: string }).body = input;
  }
  if (nestsDeeperThan(input)) {
    return new TRPCError({ code: 'PARSE_ERROR', message: TOO_DEEP_DETAIL });
  }
  return undefined;
}

/** How many procedures a batch names, as tRPC splits them: after percent-decoding. */
function batchSizeOf(path: string): number {
  return percentDecoded(path).split(',').length;
}

/** An error in tRPC's own envelope (our errorFormatter included), as its handler would write it. */
function writeTrpcError(res: ServerResponse, router: AnyTRPCRouter, error: TRPCError, headers: Record<string, string>): void {
  const shape = getTRPCErrorShape({ config: router._def._config, error, type: 'unknown', path: undefined, input: undefined, ctx: undefined });
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  writeTrpcEnvelope(res, router, shape.data.httpStatus, { error: shape });
}
