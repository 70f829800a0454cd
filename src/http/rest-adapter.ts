import type { IncomingMessage, ServerResponse } from 'node:http';
import { callTRPCProcedure, TRPCError, type AnyTRPCRouter } from '@trpc/server';
import { AppError } from '../errors/app-error.ts';
import { toFieldErrors } from '../errors/field-errors.ts';
import { isZodError } from '../errors/trpc-error-mapping.ts';
import { entityTagOf, listMatches, parseEntityTagList } from '../lib/entity-tag.ts';
import type { Context } from '../trpc.ts';
import { readJsonBody } from './read-json-body.ts';
import type { RestRoute, RouteMatch } from './rest-routes.ts';

/**
 * Serves one REST route by calling its tRPC procedure — the same procedure
 * /api/trpc calls — and writing SPEC's HTTP around it: success status,
 * headers, ETag and 304, problem+json. trpc-to-openapi supplies the routing
 * facts; its own adapter cannot write problem+json bodies (PITFALLS).
 */
export async function serveRestRoute(options: {
  router: AnyTRPCRouter;
  match: RouteMatch;
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  ctx: Context;
}): Promise<void> {
  const { router, match, req, res, query, ctx } = options;
  const { route } = match;
  for (const [name, value] of Object.entries(route.http.fixedHeaders ?? {})) res.setHeader(name, value);

  const input = route.takesInput ? await readInput(route, match.pathInput, req, query) : undefined;
  let data: unknown;
  try {
    data = await callTRPCProcedure({
      router,
      path: route.procedurePath,
      type: route.type,
      ctx,
      getRawInput: async () => input,
      signal: undefined,
      batchIndex: 0,
    });
  } catch (error) {
    throw toAppError(error);
  }

  for (const [name, value] of Object.entries(ctx.responseHeaders)) res.setHeader(name, value);
  for (const [name, value] of Object.entries(route.http.successHeaders ?? {})) res.setHeader(name, value);

  const status = route.http.successStatus ?? 200;
  if (status === 204) {
    res.statusCode = 204;
    res.end();
    return;
  }
  if (route.http.contentType) {
    const text = String(data);
    res.statusCode = status;
    res.setHeader('Content-Type', route.http.contentType);
    res.setHeader('Content-Length', Buffer.byteLength(text));
    res.end(text);
    return;
  }
  const json = JSON.stringify(data);
  if (route.http.entityTag) {
    const tag = entityTagOf(json);
    res.setHeader('ETag', tag);
    if (route.method === 'GET') {
      res.setHeader('Cache-Control', 'no-cache');
      const ifNoneMatch = req.headers['if-none-match'];
      if (ifNoneMatch !== undefined && listMatches(parseEntityTagList(ifNoneMatch), tag)) {
        res.statusCode = 304;
        res.end();
        return;
      }
    }
  }
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}

async function readInput(
  route: RestRoute,
  pathInput: Record<string, string>,
  req: IncomingMessage,
  query: URLSearchParams,
): Promise<unknown> {
  if (route.method === 'GET' || route.method === 'DELETE') {
    return { ...queryInput(route, query), ...pathInput };
  }
  const body = await readJsonBody(req);
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

/**
 * Query strings carry only text: numeric parameters are converted when they
 * look like numbers (anything else stays text and fails validation), an empty
 * value counts as absent, and a repeated parameter stays a list so the schema
 * rejects it.
 */
function queryInput(route: RestRoute, query: URLSearchParams): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const name of new Set(query.keys())) {
    const values = query.getAll(name).filter((value) => value !== '');
    if (values.length === 0) continue;
    const converted = route.numericQueryParameters.has(name)
      ? values.map((value) => (/^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value))
      : values;
    input[name] = converted.length === 1 ? converted[0] : converted;
  }
  return input;
}

/** The single mapping from whatever a procedure threw to the domain error. */
export function toAppError(error: unknown): AppError | unknown {
  if (error instanceof AppError) return error;
  if (error instanceof TRPCError) {
    if (error.cause instanceof AppError) return error.cause;
    if (error.code === 'BAD_REQUEST' && isZodError(error.cause)) {
      const errors = toFieldErrors(error.cause.issues);
      return new AppError('validation', {
        detail: errors.map((entry) => (entry.path ? `${entry.path}: ${entry.message}` : entry.message)).join('; '),
        errors,
      });
    }
  }
  return error;
}
