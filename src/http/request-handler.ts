import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnyTRPCRouter } from '@trpc/server';
import { AppError } from '../errors/app-error.ts';
import { toAppError } from '../errors/to-app-error.ts';
import { clientIdOf, type Context } from '../procedures/context.ts';
import type { ServiceContext } from '../services/service-context.ts';
import { authenticateRequest } from './authenticate-request.ts';
import { clientAddressOf } from './client-address.ts';
import type { GraphQLEndpoint } from '../graphql-endpoint/graphql-endpoint.ts';
import { GRAPHQL_PATH } from '../graphql-endpoint/graphql-path.ts';
import { requestLineWriter, type Logger } from '../observability/logger.ts';
import type { ServiceMetrics } from '../observability/service-metrics.ts';
import type { ApplyCors } from './cors.ts';
import type { StaticContent } from '../pages/static-content.ts';
import { writeProblem } from './problem-response.ts';
import { setHeadersOn, type ResponseHeaders } from './response-headers.ts';
import { writeBody } from './write-body.ts';
import { requestIdOf } from './request-id.ts';
import { serveRestRoute } from '../rest/rest-adapter.ts';
import { buildRestRoutes, matchRoute } from '../rest/rest-routes.ts';
import { SCORE_STREAM_PATH } from '../streams/score-stream-openapi.ts';
import type { ScoreStreams } from '../streams/score-streams.ts';
import type { LiveBoards } from '../services/scores/live-boards.ts';
import type { EventStreamLimits } from './event-stream-response.ts';
import { serveTrpc, TRPC_PREFIX } from '../trpc/trpc-endpoint.ts';

export interface RequestHandlerOptions {
  router: AnyTRPCRouter;
  service: ServiceContext;
  scoreStreams: ScoreStreams;
  liveBoards: LiveBoards;
  /** How a tRPC subscription's stream ends (SSE_STREAM_MS, shutdown). */
  streams: EventStreamLimits;
  graphql: GraphQLEndpoint;
  /** The pages, their assets and the OpenAPI document, compressed once. */
  staticContent: StaticContent;
  /** Absent when METRICS=off: then /metrics is not found like any unknown path. */
  metrics: ServiceMetrics | undefined;
  /** CORS_ORIGINS applied to every response under /api, preflights answered. */
  cors: ApplyCors;
  baseUrl: string;
  trustProxy: boolean;
  log: Logger;
  /** Called once each response is done with (sent or abandoned). */
  onResponseClosed?: () => void;
}

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

const METRICS_PATH = '/metrics';
/** The route label of every tRPC call: procedure names would be bounded, but batches combine them freely. */
const TRPC_ROUTE = `${TRPC_PREFIX}/{procedure}`;
/** The route label of any request that matched no route: never its raw path. */
const UNMATCHED_ROUTE = 'unmatched';
/** The route label of an answered CORS preflight, whatever its path. */
const PREFLIGHT_ROUTE = 'preflight';
const API_PREFIX = '/api/';

/**
 * The dispatch table. Every request is first credential-checked, then routed:
 * /api/trpc and /api/graphql to their own envelopes, the OpenAPI document,
 * the score stream, the pages, every REST route to its procedure, and
 * anything else to a 404 problem.
 */
export function createRequestHandler(options: RequestHandlerOptions): RequestHandler {
  const { router, service, scoreStreams, liveBoards, streams, graphql, staticContent, metrics, cors, baseUrl, trustProxy, log, onResponseClosed } = options;
  const routes = buildRestRoutes(router);
  const writeRequestLine = requestLineWriter(log);

  return async (req, res) => {
    const started = performance.now();
    const requestId = requestIdOf(req);
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    const queryStart = target.indexOf('?');
    const rawPath = queryStart === -1 ? target : target.slice(0, queryStart);
    const pathname = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.replace(/\/+$/, '') : rawPath;
    const reading = method === 'GET' || method === 'HEAD';
    /** The route template this request reached, for the metrics. */
    let route = UNMATCHED_ROUTE;
    /**
     * Every answer's headers, gathered until it is written. nosniff on every
     * one (docs/spec/DECISIONS.md, "Security headers"): no browser may run a JSON answer,
     * a problem or an asset as a script or style of another type.
     */
    const headers: ResponseHeaders = { 'X-Request-Id': requestId, 'X-Content-Type-Options': 'nosniff' };
    // 'close' comes once, whether the response was sent or abandoned.
    res.on('close', () => {
      const durationMs = performance.now() - started;
      writeRequestLine(requestId, method, rawPath, res.statusCode, durationMs);
      metrics?.requestFinished(route, method, res.statusCode, durationMs / 1000);
      onResponseClosed?.();
    });
    // Before anything can fail: errors and 429s carry the CORS headers too; a preflight counts against no limit.
    if ((pathname === '/api' || pathname.startsWith(API_PREFIX)) && cors(req, headers)) {
      route = PREFLIGHT_ROUTE;
      res.writeHead(204, headers);
      res.end();
      return;
    }
    const contextFor = (caller: Context['caller']): Context => ({
      service,
      requestId,
      request: { method, path: pathname, headers: req.headers },
      caller,
      clientAddress: clientAddressOf(req, trustProxy),
      response: { headers: {} },
      liveBoards,
    });
    let ctx: Context | undefined;

    try {
      if (pathname.startsWith(TRPC_PREFIX)) {
        route = TRPC_ROUTE;
        setHeadersOn(res, headers);
        // Credential failures there answer in tRPC's own envelope.
        await serveTrpc({ router, req, res, pathname, search: queryStart === -1 ? '' : target.slice(queryStart + 1), requestId, createContext: async () => contextFor(await authenticateRequest(service, req)), streams, log });
        return;
      }
      if (pathname === GRAPHQL_PATH) {
        route = GRAPHQL_PATH;
        setHeadersOn(res, headers);
        // …and here in GraphQL's, after the request has counted against the limit.
        await graphql(req, res, { requestId, authenticate: () => authenticateRequest(service, req), contextFor });
        return;
      }
      // Most requests carry no credential: skip the await altogether for them.
      ctx = contextFor(req.headers.authorization === undefined ? undefined : await authenticateRequest(service, req));
      if (reading && staticContent.has(pathname)) {
        route = pathname;
        setHeadersOn(res, headers);
        await staticContent.serve(req, res, pathname);
        return;
      }
      // Exactly this path (docs/spec/DECISIONS.md): the trailing-slash forgiveness of the API does not extend to it.
      if (reading && metrics && rawPath === METRICS_PATH) {
        route = METRICS_PATH;
        const { body, contentType } = await metrics.exposition();
        setHeadersOn(res, headers);
        res.setHeader('Content-Type', contentType);
        res.setHeader('Cache-Control', 'no-store');
        writeBody(res, 200, body);
        return;
      }
      const search = queryStart === -1 ? '' : target.slice(queryStart + 1);
      if (reading && pathname === SCORE_STREAM_PATH) {
        route = SCORE_STREAM_PATH;
        setHeadersOn(res, headers);
        await scoreStreams.serve(req, res, new URLSearchParams(search), clientIdOf(ctx));
        return;
      }
      const match = matchRoute(routes, method, pathname);
      if (!match) throw new AppError('not-found', { detail: `No route for ${method} ${rawPath}.` });
      route = match.route.template;
      await serveRestRoute({ match, req, res, search, ctx, headers });
    } catch (thrown) {
      const failure = toAppError(thrown);
      if (failure.slug === 'internal') log.error({ reqId: requestId, err: failure.cause ?? failure }, 'unexpected failure');
      if (res.headersSent) {
        if (failure.slug !== 'internal') log.error({ reqId: requestId, err: failure }, 'failed after the response started');
        res.destroy();
        return;
      }
      // The request's own headers, and what the route earned before failing, such as its rate-limit count.
      setHeadersOn(res, headers);
      if (ctx) setHeadersOn(res, ctx.response.headers);
      // The body was not read to its end: close rather than reuse the connection.
      if (failure.slug === 'payload-too-large') res.setHeader('Connection', 'close');
      writeProblem(res, failure, { baseUrl, instance: rawPath, requestId });
    }
  };
}
