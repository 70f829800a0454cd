import type { IncomingMessage, ServerResponse } from 'node:http';
import { getOperationAST, introspectionFromSchema, parse } from 'graphql';
import { createYoga, maskError } from 'graphql-yoga';
import { AppError } from '../errors/app-error.ts';
import { toAppError } from '../errors/to-app-error.ts';
import type { GraphQLContext } from '../graphql/builder.ts';
import { countLimitedFields } from '../graphql/count-limited-fields.ts';
import { graphqlErrorBody, toGraphQLError, type GraphQLErrorBody } from '../graphql/graphql-error.ts';
import { answerInPieces } from '../graphql/answer-in-pieces.ts';
import { heavyOperationsTakeTurns } from '../graphql/heavy-operations-take-turns.ts';
import { heavyWorkTurns } from '../graphql/resolve-through-procedure.ts';
import { introspectionOffThread } from '../graphql/thread/introspection-off-thread.ts';
import { GraphQLThread } from '../graphql/thread/graphql-thread.ts';
import { validationOffThread } from '../graphql/thread/validation-off-thread.ts';
import { logResolverFailures } from '../graphql/log-resolver-failures.ts';
import { rulesAfterValidation } from '../graphql/rules-after-validation.ts';
import { subscriptionRootFirst } from '../graphql/subscription-root-rule.ts';
import { schema } from '../graphql/schema.ts';
import { hitRateLimit, rateLimitHeaders } from '../services/rate-limits/hit-rate-limit.ts';
import { requesterOf, type Context } from '../procedures/context.ts';
import type { Logger } from '../observability/logger.ts';
import { parseJsonBody, readBodyText } from '../http/read-json-body.ts';
import { writeBody } from '../http/write-body.ts';
import { writeEventStream, type EventStreamLimits } from '../http/event-stream-response.ts';
import { GRAPHQL_PATH } from './graphql-path.ts';

export const GRAPHQL_CONTENT_TYPE = 'application/graphql-response+json; charset=utf-8';

/** docs/spec/SPEC.md: a query of more than 4000 characters is refused before parsing. */
const MAX_QUERY_LENGTH = 4000;

/**
 * Documents longer than this are validated in the GraphQL thread: graphql-js
 * compares every pair of fields that share a response key, so validating a
 * long document of one field repeated takes up to a tenth of a second (500
 * characters, at most 8 ms here).
 */
const VALIDATED_HERE_UP_TO = 500;

type GraphQLError = { message: string; extensions?: GraphQLErrorBody['extensions'] };

/**
 * Headers a refused operation carries in from Yoga (`extensions.http` of a 429 or 503): the limit
 * that refused it (task-writes), not graphql's, and its Retry-After.
 */
const FAILURE_HEADERS = ['retry-after', 'ratelimit', 'ratelimit-policy'];

/** What no resolver turned into an answer: a domain failure (a database out of reach) says so; anything else is masked. */
const maskUnexpected = (error: unknown, message: string, isDev?: boolean): Error => {
  const failure = toAppError((error as { originalError?: unknown }).originalError ?? error);
  return failure.slug === 'internal' ? maskError(error, message, isDev) : (toGraphQLError(failure) as Error);
};

/** What the endpoint needs of the request around it: its id, and how to verify its credential and build its context. */
export interface GraphQLRequest {
  requestId: string;
  /** docs/spec/SPEC.md, "Rules on every request": an AppError for a bad credential; anything else is a failure (database out of reach…). */
  authenticate(): Promise<Context['caller']>;
  contextFor(caller: Context['caller']): Context;
}

/**
 * POST /api/graphql: docs/spec/SPEC.md, "GraphQL" processing order. Steps 1–4 (method, body,
 * query, variables) are checked here; parsing, validation (with our depth
 * rule) and execution are Yoga's, on a request we rebuild from the checked
 * parts. Every answer has the graphql-response content type, failures to
 * verify a credential included.
 */
export type GraphQLEndpoint = (req: IncomingMessage, res: ServerResponse, request: GraphQLRequest) => Promise<void>;

/** The endpoint, and how to end the thread it answers introspection in. */
export interface GraphQLService {
  endpoint: GraphQLEndpoint;
  close(): Promise<void>;
}

export function createGraphQLEndpoint(log: Logger, streams: EventStreamLimits): GraphQLService {
  const thread = new GraphQLThread(introspectionFromSchema(schema), (error) => log.error({ err: error }, 'the GraphQL thread stopped'));
  const yoga = createYoga<GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    landingPage: false,
    graphiql: false,
    logging: false,
    maskedErrors: { maskError: maskUnexpected },
    plugins: [
      rulesAfterValidation,
      countLimitedFields((ctx, error) => log.error({ reqId: ctx.requestId, err: error }, 'graphql limit count failed')),
      heavyOperationsTakeTurns(),
      validationOffThread,
      // After the thread's plugin: its answer replaces the thread's verdict.
      subscriptionRootFirst,
      introspectionOffThread(thread),
      // After the thread's plugin: it writes the answer the thread's fields are part of.
      answerInPieces(heavyWorkTurns),
      logResolverFailures((ctx, error, path) => log.error({ reqId: ctx.requestId, err: error, path: path?.join('.') }, 'graphql resolver failed')),
    ],
  });

  function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.setHeader('Content-Type', GRAPHQL_CONTENT_TYPE);
    writeBody(res, status, body);
  }

  const errors = (...list: GraphQLError[]) => JSON.stringify({ errors: list });

  const endpoint: GraphQLEndpoint = async (req, res, request) => {
    try {
      const verified = await request.authenticate().then(
        (caller) => ({ caller, failure: undefined }),
        (error: unknown) => {
          if (error instanceof AppError && error.slug === 'unauthorized') return { caller: undefined, failure: error };
          throw error;
        },
      );
      await answer(req, res, request.contextFor(verified.caller), verified.failure);
    } catch (thrown) {
      const failure = toAppError(thrown);
      log.error({ reqId: request.requestId, err: failure.cause ?? failure }, 'graphql request failed');
      if (res.headersSent) {
        res.destroy();
        return;
      }
      send(res, failure.status, errors(graphqlErrorBody(failure)), failure.headers);
    }
  };
  return { endpoint, close: () => thread.close() };

  async function answer(req: IncomingMessage, res: ServerResponse, context: Context, authError: AppError | undefined): Promise<void> {
    // Every request counts, whatever its method or outcome (docs/spec/DECISIONS.md).
    let limitHeaders: Record<string, string> = {};
    try {
      const outcome = await hitRateLimit({ ctx: context.service, input: { name: 'graphql', requester: requesterOf(context) } });
      limitHeaders = rateLimitHeaders(outcome);
    } catch (error) {
      // Used up, the limit answers first, whatever the credential (docs/spec/DECISIONS.md, "GraphQL credentials and limits").
      if (!(error instanceof AppError) || error.slug !== 'rate-limited') throw error;
      send(res, error.status, errors(graphqlErrorBody(error)), error.headers);
      return;
    }
    if (authError) {
      send(res, authError.status, errors(graphqlErrorBody(authError)), {
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
      send(res, text.status, errors(graphqlErrorBody(text)), { Connection: 'close', ...limitHeaders });
      return;
    }
    // GraphQL over HTTP: the body is JSON and says so (graphql-http audit 9ABE).
    const refusal = isJson(req.headers['content-type']) ? checkRequest(text) : 'Send the request with Content-Type: application/json.';
    if (typeof refusal === 'string') {
      send(res, 400, errors({ message: refusal }), limitHeaders);
      return;
    }

    let validated: GraphQLContext['validated'];
    if (refusal.query.length > VALIDATED_HERE_UP_TO) {
      try {
        validated = await thread.validate(refusal.query);
      } catch (error) {
        // The thread's queue is full: a 503 like any full queue (anything else is a failure).
        if (!(error instanceof AppError)) throw error;
        send(res, error.status, errors(graphqlErrorBody(error)), { ...error.headers, ...limitHeaders });
        return;
      }
    }
    // A subscription asked for as an event stream goes over Yoga's own GraphQL over SSE; queries and
    // mutations keep the graphql-response JSON of docs/spec/SPEC.md, whatever the Accept header says.
    const subscription = isSubscription(refusal.query, refusal.operationName);
    const overSse = subscription && wantsEventStream(req.headers.accept);
    if (subscription && !overSse) {
      send(res, 406, errors({ message: 'A subscription is served as GraphQL over SSE: send it with Accept: text/event-stream.' }), limitHeaders);
      return;
    }
    const stop = new AbortController();
    const response = await yoga.fetch(
      new Request(`http://localhost${GRAPHQL_PATH}`, {
        method: 'POST',
        // JSON first: a subscription refused before it starts (validation, depth, cost, variables) is answered
        // as any operation is, a 400 in graphql-response JSON; only one that runs becomes an event stream.
        headers: { 'content-type': 'application/json', accept: overSse ? 'application/graphql-response+json, text/event-stream' : 'application/graphql-response+json' },
        body: JSON.stringify(refusal),
        signal: stop.signal,
      }),
      { ctx: context, validated },
    );
    if (overSse && response.headers.get('content-type')?.startsWith('text/event-stream')) {
      for (const [name, value] of Object.entries(limitHeaders)) res.setHeader(name, value);
      await writeEventStream(res, response, stop, streams);
      return;
    }
    const headers: Record<string, string> = { ...limitHeaders };
    if (response.status === 429 || response.status === 503) {
      for (const name of FAILURE_HEADERS) {
        const value = response.headers.get(name);
        if (value !== null) headers[name] = value;
      }
    }
    send(res, response.status, await response.text(), headers);
  }
}

/** Whether the operation to run is a subscription; a document that does not parse is not (Yoga reports its errors). */
function isSubscription(query: string, operationName: string | undefined): boolean {
  // Most documents never name one: no second parse for them.
  if (!query.includes('subscription')) return false;
  try {
    return getOperationAST(parse(query), operationName)?.operation === 'subscription';
  } catch {
    return false;
  }
}

/** Whether the client asks for GraphQL over SSE (graphql-sse's distinct connections mode). */
function wantsEventStream(accept: string | undefined): boolean {
  return accept?.split(',').some((type) => type.split(';')[0]?.trim().toLowerCase() === 'text/event-stream') ?? false;
}

function isJson(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'application/json';
}

/** docs/spec/SPEC.md, "Processing order" 1–4 (and the GraphQL over HTTP rules on `extensions`): the checked request, or why it is refused. */
function checkRequest(text: string): { query: string; variables?: Record<string, unknown>; operationName?: string } | string {
  let body: unknown;
  try {
    body = parseJsonBody(text);
  } catch (error) {
    // parseJsonBody says why: not JSON, empty, or nested too deep.
    return error instanceof AppError && error.detail ? error.detail : 'The request body is not valid JSON.';
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
