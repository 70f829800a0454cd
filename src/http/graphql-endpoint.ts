import type { IncomingMessage, ServerResponse } from 'node:http';
import { createGraphQLError, createYoga, maskError, type Plugin } from 'graphql-yoga';
import { AppError } from '../errors/app-error.ts';
import { DATABASE_UNAVAILABLE_DETAIL, isDatabaseUnavailable } from '../errors/database-unavailable.ts';
import { depthLimit } from '../graphql/depth-limit.ts';
import type { GraphQLContext } from '../graphql/builder.ts';
import { schema } from '../graphql/schema.ts';
import { hitRateLimit, rateLimitHeaders } from '../services/rate-limits/hit-rate-limit.ts';
import { clientIdOf, type Context } from '../trpc.ts';
import type { Logger } from './logger.ts';
import { parseJsonBody, readBodyText } from './read-json-body.ts';

export const GRAPHQL_PATH = '/api/graphql';
export const GRAPHQL_CONTENT_TYPE = 'application/graphql-response+json; charset=utf-8';

/** SPEC: a query of more than 4000 characters is refused before parsing. */
export const MAX_QUERY_LENGTH = 4000;

type GraphQLError = { message: string; extensions?: Record<string, unknown> };

/** Adds the depth rule to GraphQL's own validation rules (SPEC step 7). */
const depthLimitPlugin: Plugin = {
  onValidate: ({ addValidationRule }) => addValidationRule(depthLimit()),
};

const unavailable = (): GraphQLError => ({ message: DATABASE_UNAVAILABLE_DETAIL, extensions: { code: 'SERVICE_UNAVAILABLE' } });
const RETRY_AFTER = { 'Retry-After': '1' };

/** A resolver that could not reach the database says so (503), instead of a masked internal error. */
const maskUnavailable = (error: unknown, message: string, isDev?: boolean): Error => {
  const original = (error as { originalError?: unknown }).originalError ?? error;
  if (!isDatabaseUnavailable(original)) return maskError(error, message, isDev);
  return createGraphQLError(DATABASE_UNAVAILABLE_DETAIL, { extensions: { code: 'SERVICE_UNAVAILABLE', http: { status: 503 } } });
};

/**
 * POST /api/graphql: SPEC "GraphQL" processing order. Steps 1–4 (method, body,
 * query, variables) are checked here; parsing, validation (with our depth
 * rule) and execution are Yoga's, on a request we rebuild from the checked
 * parts. Every answer has the graphql-response content type.
 */
export type GraphQLEndpoint = (
  req: IncomingMessage,
  res: ServerResponse,
  ctx: Context,
  authFailure: AppError | undefined,
) => Promise<void>;

export function createGraphQLEndpoint(log: Logger): GraphQLEndpoint {
  const yoga = createYoga<GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    landingPage: false,
    graphiql: false,
    logging: false,
    maskedErrors: { maskError: maskUnavailable },
    plugins: [depthLimitPlugin],
  });

  function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.statusCode = status;
    res.setHeader('Content-Type', GRAPHQL_CONTENT_TYPE);
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  }

  const errors = (...list: GraphQLError[]) => JSON.stringify({ errors: list });

  return async (req, res, context, authError) => {
    try {
      await answer(req, res, context, authError);
    } catch (error) {
      log.error({ reqId: context.requestId, err: error }, 'graphql request failed');
      if (res.headersSent) res.destroy();
      else if (isDatabaseUnavailable(error)) send(res, 503, errors(unavailable()), RETRY_AFTER);
      else send(res, 500, errors({ message: 'Something went wrong on our side', extensions: { code: 'INTERNAL_SERVER_ERROR' } }));
    }
  };

  async function answer(req: IncomingMessage, res: ServerResponse, context: Context, authError: AppError | undefined): Promise<void> {
    // Every request counts, whatever its method or outcome (DECISIONS).
    let limitHeaders: Record<string, string> = {};
    try {
      const outcome = await hitRateLimit({
        ctx: context.service,
        input: { name: 'graphql', client: clientIdOf(context), authenticated: context.caller !== undefined },
      });
      limitHeaders = rateLimitHeaders(outcome);
    } catch (error) {
      if (!(error instanceof AppError) || error.slug !== 'rate-limited' || authError) throw error;
      send(res, 429, errors({ message: error.detail ?? error.title, extensions: { code: 'RATE_LIMITED' } }), error.headers);
      return;
    }
    if (authError) {
      send(res, 401, errors({ message: authError.detail ?? authError.title, extensions: { code: 'UNAUTHENTICATED' } }), {
        ...authError.headers,
        ...limitHeaders,
      });
      return;
    }
    if (req.method !== 'POST') {
      send(res, 405, errors({ message: 'Send GraphQL requests by POST.' }), { Allow: 'POST', ...limitHeaders });
      return;
    }

    const text = await readBodyText(req).catch((error: unknown) => {
      if (error instanceof AppError) return error;
      throw error;
    });
    if (text instanceof AppError) {
      send(res, text.status, errors({ message: text.detail ?? text.title }), { Connection: 'close', ...limitHeaders });
      return;
    }
    // GraphQL over HTTP: the body is JSON and says so (graphql-http audit 9ABE).
    const refusal = isJson(req.headers['content-type']) ? checkRequest(text) : 'Send the request with Content-Type: application/json.';
    if (typeof refusal === 'string') {
      send(res, 400, errors({ message: refusal }), limitHeaders);
      return;
    }

    const response = await yoga.fetch(
      new Request(`http://localhost${GRAPHQL_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body: JSON.stringify(refusal),
      }),
      { ctx: context },
    );
    send(res, response.status, await response.text(), response.status === 503 ? { ...limitHeaders, ...RETRY_AFTER } : limitHeaders);
  }
}

function isJson(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'application/json';
}

/** SPEC "Processing order" 1–4 (and the GraphQL over HTTP rules on `extensions`): the checked request, or why it is refused. */
function checkRequest(text: string): { query: string; variables?: Record<string, unknown>; operationName?: string } | string {
  let body: unknown;
  try {
    body = parseJsonBody(text);
  } catch {
    return 'The request body is not valid JSON.';
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'The request body must be a JSON object.';
  const { query, variables, operationName, extensions } = body as Record<string, unknown>;
  if (typeof query !== 'string' || query.trim() === '') return 'Send the GraphQL document as a non-empty string in "query".';
  if ([...query].length > MAX_QUERY_LENGTH) return `The query is longer than ${MAX_QUERY_LENGTH} characters.`;
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
    return '"variables" must be an object.';
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    return '"operationName" must be a string.';
  }
  if (extensions !== undefined && extensions !== null && (typeof extensions !== 'object' || Array.isArray(extensions))) {
    return '"extensions" must be an object.';
  }
  return {
    query,
    ...(variables ? { variables: variables as Record<string, unknown> } : {}),
    ...(typeof operationName === 'string' ? { operationName } : {}),
  };
}
