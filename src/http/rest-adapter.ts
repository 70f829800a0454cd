import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../errors/app-error.ts';
import { toAppError } from '../errors/to-app-error.ts';
import { listMatches } from '../lib/entity-tag.ts';
import { ifNoneMatchHeaderSchema, readHeader } from '../schemas/headers.ts';
import { callProcedure } from '../procedures/call-procedure.ts';
import type { Context } from '../procedures/context.ts';
import { successResponseOf } from '../procedures/success-response.ts';
import { queryInput } from './query-input.ts';
import { parseJsonBody, readBodyText } from './read-json-body.ts';
import type { RestRoute, RouteMatch } from './rest-routes.ts';
import { appendVary } from './vary.ts';
import { writeBody } from './write-body.ts';

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
  /** The query string without its `?`; parsed only by a route that takes input from it. */
  search: string;
  ctx: Context;
}): Promise<void> {
  const { match, req, res, search, ctx } = options;
  const { route } = match;
  for (const [name, value] of Object.entries(route.http.fixedHeaders ?? {})) {
    if (name === 'Vary') appendVary(res, value);
    else res.setHeader(name, value);
  }

  const { input, callContext } = inputOf(route, match.pathInput, req, search, ctx);
  let data: unknown;
  try {
    // Input is read and judged only when the procedure asks: after the rate limit and
    // the Idempotency-Key, as SPEC orders the checks (a bad body still counts and still
    // needs its key).
    data = await callProcedure(route.procedure, { path: route.procedurePath, type: route.type, ctx: callContext, getRawInput: input });
  } catch (error) {
    throw toAppError(error);
  }

  for (const [name, value] of Object.entries(ctx.response.headers)) res.setHeader(name, value);
  const { idempotent } = ctx.response;
  if (idempotent?.replayed) {
    for (const [name, value] of Object.entries(idempotent.stored.headers)) res.setHeader(name, value);
    res.setHeader('Idempotent-Replayed', 'true');
    writeBody(res, idempotent.stored.status, idempotent.stored.body);
    return;
  }
  for (const [name, value] of Object.entries(route.http.successHeaders ?? {})) res.setHeader(name, value);
  // An idempotent procedure's answer was built once already, to be stored: send those bytes.
  const response = idempotent?.stored ?? successResponseOf(route.http, data, ctx.response.headers);
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  if (route.http.entityTag && route.method === 'GET') {
    res.setHeader('Cache-Control', 'no-cache');
    // Most reads send no If-None-Match: only one that does is parsed.
    if (req.headers['if-none-match'] !== undefined && listMatches(readHeader(ifNoneMatchHeaderSchema, 'if-none-match', req.headers), response.headers.ETag!)) {
      res.removeHeader('Content-Type');
      writeBody(res, 304, '');
      return;
    }
  }
  writeBody(res, response.status, response.body);
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
