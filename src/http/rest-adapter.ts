import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../errors/app-error.ts';
import { appErrorOf } from '../errors/app-error-of.ts';
import { listMatches, parseEntityTagList } from '../lib/entity-tag.ts';
import type { Context } from '../trpc.ts';
import { callProcedure } from '../middleware/call-procedure.ts';
import { queryInput } from './query-input.ts';
import { parseJsonBody, readBodyText } from './read-json-body.ts';
import type { RestRoute, RouteMatch } from './rest-routes.ts';
import { successResponseOf } from './success-response.ts';
import { appendVary } from './vary.ts';

/**
 * Serves one REST route by calling its tRPC procedure — the same procedure
 * /api/trpc calls — and writing SPEC's HTTP around it: success status,
 * headers, ETag and 304, idempotent replays, problem+json. trpc-to-openapi
 * supplies the routing facts; its own adapter cannot write problem+json
 * bodies (docs/adr/0001-own-rest-adapter.md).
 */
export async function serveRestRoute(options: {
  match: RouteMatch;
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  ctx: Context;
}): Promise<void> {
  const { match, req, res, query, ctx } = options;
  const { route } = match;
  for (const [name, value] of Object.entries(route.http.fixedHeaders ?? {})) {
    if (name === 'Vary') appendVary(res, value);
    else res.setHeader(name, value);
  }

  let data: unknown;
  try {
    data = await callProcedure(route.procedure, {
      path: route.procedurePath,
      type: route.type,
      ctx,
      // Read and judged only when the procedure asks: after the rate limit and the
      // Idempotency-Key, as SPEC orders the checks (a bad body still counts and still
      // needs its key).
      getRawInput: route.takesInput ? inputOf(route, match.pathInput, req, query, ctx) : async () => undefined,
    });
  } catch (error) {
    throw appErrorOf(error);
  }

  for (const [name, value] of Object.entries(ctx.response.headers)) res.setHeader(name, value);
  const { replay } = ctx.response;
  if (replay) {
    for (const [name, value] of Object.entries(replay.headers)) res.setHeader(name, value);
    res.setHeader('Idempotent-Replayed', 'true');
    writeBody(res, replay.status, replay.body === '' ? undefined : replay.body);
    return;
  }
  for (const [name, value] of Object.entries(route.http.successHeaders ?? {})) res.setHeader(name, value);
  // An idempotent procedure's answer was built once already, to be stored: send those bytes.
  const response = ctx.response.stored ?? successResponseOf(route.http, data, ctx.response.headers);
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  if (route.http.entityTag && route.method === 'GET') {
    res.setHeader('Cache-Control', 'no-cache');
    const ifNoneMatch = req.headers['if-none-match'];
    if (ifNoneMatch !== undefined && listMatches(parseEntityTagList(ifNoneMatch), response.headers.ETag!)) {
      res.removeHeader('Content-Type');
      writeBody(res, 304, undefined);
      return;
    }
  }
  writeBody(res, response.status, response.body);
}

function writeBody(res: ServerResponse, status: number, body: string | undefined): void {
  res.statusCode = status;
  if (body === undefined) {
    res.end();
    return;
  }
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/**
 * How the procedure gets its input. A body is read only when first asked
 * for — by the idempotency fingerprint or the input parser, both after the
 * rate limit — so an oversized body is refused after it was counted, and its
 * 413 carries the RateLimit headers like every other answer of the route.
 */
function inputOf(route: RestRoute, pathInput: Record<string, string>, req: IncomingMessage, query: URLSearchParams, ctx: Context): () => Promise<unknown> {
  if (route.method === 'GET' || route.method === 'DELETE') {
    const input = { ...queryInput(query, route.numericQueryParameters), ...pathInput };
    return async () => input;
  }
  let text: Promise<string> | undefined;
  // The raw text is also what an idempotency fingerprint covers.
  const readBody = (ctx.request.readBody = () => (text ??= readBodyText(req)));
  return async () => bodyInput(route, pathInput, await readBody());
}

function bodyInput(route: RestRoute, pathInput: Record<string, string>, text: string): unknown {
  const body = parseJsonBody(text);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('validation', {
      detail: 'The request body must be a JSON object.',
      errors: [{ path: '', message: 'Expected a JSON object' }],
    });
  }
  // A body field named like a path parameter is not part of the body's schema.
  const clashing = route.pathParameters.filter((name) => Object.hasOwn(body, name));
  if (clashing.length > 0) {
    throw new AppError('validation', {
      detail: clashing.map((name) => `${name}: Unknown field`).join('; '),
      errors: clashing.map((name) => ({ path: name, message: 'Unknown field' })),
    });
  }
  return { ...body, ...pathInput };
}
