import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../errors/app-error.ts';
import { listMatches } from '../lib/entity-tag.ts';
import { ifNoneMatchHeaderSchema, readHeader } from '../schemas/headers.ts';
import { callProcedure } from '../procedures/call-procedure.ts';
import type { Context } from '../procedures/context.ts';
import { successResponseOf } from '../procedures/success-response.ts';
import { queryInput } from '../http/query-input.ts';
import { parseJsonBody, readBodyText } from '../http/read-json-body.ts';
import type { RestRoute, RouteMatch } from './rest-routes.ts';
import type { ResponseHeaders } from '../http/response-headers.ts';
import { appendVaryTo } from '../http/vary.ts';
import { writeBody } from '../http/write-body.ts';

/**
 * Serves one REST route by calling its tRPC procedure — the same procedure
 * /api/trpc calls — and writing docs/spec/SPEC.md's HTTP around it: success status,
 * headers, ETag and 304, idempotent replays, problem+json. trpc-to-openapi
 * supplies the routing facts; its own adapter cannot write problem+json
 * bodies (docs/adr/0001-own-rest-adapter.md).
 */
export async function serveRestRoute(options: {
  match: RouteMatch;
  req: IncomingMessage;
  res: ServerResponse;
  /** The query string without its `?`; parsed only by a route that takes input from it. */
  search: string;
  ctx: Context;
  /** The answer's headers so far (request id, CORS): the route's join them, written at once with the status. */
  headers: ResponseHeaders;
}): Promise<void> {
  const { match, req, res, search, ctx, headers } = options;
  const { route } = match;
  // On every answer of the route, failures included.
  for (const name in route.http.fixedHeaders) {
    const value = route.http.fixedHeaders[name]!;
    if (name === 'Vary') appendVaryTo(headers, value);
    else headers[name] = value;
  }

  const { input, callContext } = inputOf(route, match.pathInput, req, search, ctx);
  // Input is read and judged only when the procedure asks: after the rate limit and
  // the Idempotency-Key, as docs/spec/SPEC.md orders the checks (a bad body still counts
  // and still needs its key). A failure goes to the request handler, which normalises it once.
  const data = await callProcedure(route.procedure, { path: route.procedurePath, type: route.type, ctx: callContext, getRawInput: input });

  Object.assign(headers, ctx.response.headers);
  const { idempotent } = ctx.response;
  if (idempotent?.replayed) {
    Object.assign(headers, idempotent.stored.headers);
    headers['Idempotent-Replayed'] = 'true';
    writeBody(res, idempotent.stored.status, idempotent.stored.body, headers);
    return;
  }
  if (route.http.successHeaders) Object.assign(headers, route.http.successHeaders);
  // An idempotent procedure's answer was built once already, to be stored: send those bytes.
  const response = idempotent?.stored ?? successResponseOf(route.http, data, ctx.response.headers);
  const conditional = route.http.entityTag === true && route.method === 'GET';
  if (conditional) headers['Cache-Control'] = 'no-cache';
  // Most reads send no If-None-Match: only one that does is parsed.
  const notModified =
    conditional && req.headers['if-none-match'] !== undefined && listMatches(readHeader(ifNoneMatchHeaderSchema, 'if-none-match', req.headers), response.headers.ETag!);
  // A 304 has no body, so no Content-Type.
  for (const name in response.headers) if (!notModified || name !== 'Content-Type') headers[name] = response.headers[name]!;
  writeBody(res, notModified ? 304 : response.status, notModified ? '' : response.body, headers);
}

/**
 * How the procedure gets its input. A body is read only when first asked
 * for — by the idempotency fingerprint or the input parser, both after the
 * rate limit — so an oversized body is refused after it was counted, and its
 * 413 carries the RateLimit headers like every other answer of the route.
 */
function inputOf(
  route: RestRoute,
  pathInput: Record<string, string>,
  req: IncomingMessage,
  search: string,
  ctx: Context,
): { input: () => Promise<unknown>; callContext: Context } {
  if (!route.takesInput) return { input: async () => undefined, callContext: ctx };
  if (route.method === 'GET' || route.method === 'DELETE') {
    const input = { ...queryInput(new URLSearchParams(search), route.numericQueryParameters), ...pathInput };
    return { input: async () => input, callContext: ctx };
  }
  let text: Promise<string> | undefined;
  // The raw text is also what an idempotency fingerprint covers.
  const readBody = () => (text ??= readBodyText(req));
  return {
    input: async () => bodyInput(route, pathInput, await readBody()),
    callContext: { ...ctx, request: { ...ctx.request, readBody } },
  };
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
