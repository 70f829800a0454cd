import type { IncomingMessage, ServerResponse } from 'node:http';
import { getTRPCErrorFromUnknown, getTRPCErrorShape, type AnyTRPCProcedure, type AnyTRPCRouter } from '@trpc/server';
import { getHTTPStatusCode } from '@trpc/server/http';
import { callProcedure } from '../procedures/call-procedure.ts';
import type { Context } from '../procedures/context.ts';
import { trpcResponseHeaders } from './trpc-response-headers.ts';
import { writeTrpcEnvelope } from './write-trpc-envelope.ts';

/** What tRPC's handler says every answer varies by. */
const TRPC_VARY = 'trpc-accept, accept';

/** A call tRPC would answer as one plain JSON query: its procedure and its parsed input. */
export interface SingleQuery {
  path: string;
  procedure: AnyTRPCProcedure;
  input: unknown;
}

/**
 * The commonest tRPC request — one query by GET, `?input=` at most, no
 * batching, streaming or content type — answered the way tRPC's handler
 * answers it, without the Fetch Request and Response its adapter builds
 * around every call (with the output checks off, 652 → 264 µs of CPU a call
 * in the bench: docs/adr/0005-output-checks-and-the-short-trpc-query.md).
 * Anything else is left to tRPC's handler; so is anything this cannot decide
 * before the procedure runs (a path to decode, input that is not JSON), so the
 * procedure never runs twice.
 */
export function singleQueryOf(router: AnyTRPCRouter, req: IncomingMessage, path: string, query: URLSearchParams): SingleQuery | undefined {
  if (req.method !== 'GET' || req.headers['content-type'] !== undefined || req.headers['trpc-accept'] !== undefined) return undefined;
  if (path.includes('%') || path.includes(',')) return undefined;
  const procedures = router._def.procedures as Record<string, AnyTRPCProcedure>;
  if (!Object.hasOwn(procedures, path)) return undefined;
  const procedure = procedures[path]!;
  if (procedure._def.type !== 'query') return undefined;
  let text: string | null = null;
  for (const [name, value] of query) {
    if (name !== 'input' || text !== null) return undefined;
    text = value;
  }
  let input: unknown;
  if (text) {
    try {
      input = JSON.parse(text);
    } catch {
      return undefined;
    }
  }
  return { path, procedure, input };
}

/** Runs the query and writes tRPC's envelope: `{ result: { data } }` or its error shape, with the status tRPC gives it. */
export async function serveSingleQuery(options: {
  router: AnyTRPCRouter;
  res: ServerResponse;
  call: SingleQuery;
  ctx: Context;
  onError: (error: ReturnType<typeof getTRPCErrorFromUnknown>, path: string) => void;
}): Promise<void> {
  const { router, res, call, ctx } = options;
  const config = router._def._config;
  let envelope: object;
  let errors: ReturnType<typeof getTRPCErrorFromUnknown>[] = [];
  try {
    const data = await callProcedure(call.procedure, { ctx, path: call.path, type: 'query', getRawInput: async () => call.input });
    envelope = { result: { data } };
  } catch (cause) {
    const error = getTRPCErrorFromUnknown(cause);
    options.onError(error, call.path);
    errors = [error];
    envelope = { error: getTRPCErrorShape({ config, ctx, error, input: call.input, path: call.path, type: 'query' }) };
  }
  const status = getHTTPStatusCode(envelope as never, errors);
  const { Vary: alsoVary, ...headers } = trpcResponseHeaders(ctx, res, errors);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Vary', alsoVary === undefined ? TRPC_VARY : `${TRPC_VARY}, ${String(alsoVary)}`);
  writeTrpcEnvelope(res, router, status, envelope);
}
