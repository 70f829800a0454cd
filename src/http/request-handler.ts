import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnyTRPCRouter } from '@trpc/server';
import { AppError } from '../errors/app-error.ts';
import { appErrorOf } from '../errors/app-error-of.ts';
import type { ServiceContext } from '../services/service-context.ts';
import { clientIdOf, type Context } from '../trpc.ts';
import { authenticateRequest } from './authenticate-request.ts';
import { clientAddressOf } from './client-address.ts';
import { GRAPHQL_PATH, type GraphQLEndpoint } from './graphql-endpoint.ts';
import type { Logger } from './logger.ts';
import { DOCS_ASSETS, DOCS_PATH, serveDocsAsset, serveDocsPage } from './pages/docs-page.ts';
import { GRAPHIQL_PATH, serveGraphiQLPage } from './pages/graphiql-page.ts';
import { serveVersioningPage, VERSIONING_PATH } from './pages/versioning-page.ts';
import { writeProblem } from './problem-response.ts';
import { requestIdOf } from './request-id.ts';
import { serveRestRoute } from './rest-adapter.ts';
import { buildRestRoutes, matchRoute } from './rest-routes.ts';
import { SCORE_STREAM_PATH } from './sse/score-stream-openapi.ts';
import type { ScoreStreams } from './sse/score-streams.ts';
import { serveTrpc, TRPC_PREFIX } from './trpc-endpoint.ts';

export interface RequestHandlerOptions {
  router: AnyTRPCRouter;
  service: ServiceContext;
  scoreStreams: ScoreStreams;
  graphql: GraphQLEndpoint;
  /** The OpenAPI document, serialised once. */
  openApiJson: string;
  baseUrl: string;
  trustProxy: boolean;
  log: Logger;
}

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Pages for people, answered for GET and HEAD. */
const pages: Record<string, (res: ServerResponse) => void> = {
  [DOCS_PATH]: serveDocsPage,
  [GRAPHIQL_PATH]: serveGraphiQLPage,
  [VERSIONING_PATH]: serveVersioningPage,
};

/**
 * The dispatch table. Every request is first credential-checked, then routed:
 * /api/trpc and /api/graphql to their own envelopes, the OpenAPI document,
 * the score stream, the pages, every REST route to its procedure, and
 * anything else to a 404 problem.
 */
export function createRequestHandler(options: RequestHandlerOptions): RequestHandler {
  const { router, service, scoreStreams, graphql, openApiJson, baseUrl, trustProxy, log } = options;
  const routes = buildRestRoutes(router);

  return async (req, res) => {
    const started = performance.now();
    const requestId = requestIdOf(req);
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    const queryStart = target.indexOf('?');
    const rawPath = queryStart === -1 ? target : target.slice(0, queryStart);
    const pathname = rawPath.length > 1 ? rawPath.replace(/\/+$/, '') : rawPath;
    const reading = method === 'GET' || method === 'HEAD';
    res.setHeader('X-Request-Id', requestId);
    res.once('close', () => {
      log.info(
        { reqId: requestId, method, path: rawPath, status: res.statusCode, durationMs: Math.round((performance.now() - started) * 100) / 100 },
        'request',
      );
    });
    const contextFor = (caller: Context['caller']): Context => ({
      service,
      requestId,
      request: { method, path: pathname, headers: req.headers },
      caller,
      clientAddress: clientAddressOf(req, trustProxy),
      response: { headers: {} },
    });
    let ctx: Context | undefined;

    try {
      if (pathname.startsWith(TRPC_PREFIX)) {
        // Credential failures there answer in tRPC's own envelope.
        await serveTrpc({ router, req, res, pathname, requestId, createContext: async () => contextFor(await authenticateRequest(service, req)), log });
        return;
      }
      if (pathname === GRAPHQL_PATH) {
        // …and here in GraphQL's, after the request has counted against the limit.
        await graphql(req, res, { requestId, authenticate: () => authenticateRequest(service, req), contextFor });
        return;
      }
      // Most requests carry no credential: skip the await altogether for them.
      ctx = contextFor(req.headers.authorization === undefined ? undefined : await authenticateRequest(service, req));
      if (reading && pathname === '/api/openapi.json') {
        res.setHeader('Content-Type', 'application/json');
        res.setHeader('Content-Length', Buffer.byteLength(openApiJson));
        res.end(openApiJson);
        return;
      }
      const page = pages[pathname];
      if (reading && page) return page(res);
      if (reading && pathname.startsWith(DOCS_ASSETS) && serveDocsAsset(res, pathname.slice(DOCS_ASSETS.length))) return;
      const query = new URLSearchParams(queryStart === -1 ? '' : target.slice(queryStart + 1));
      if (method === 'GET' && pathname === SCORE_STREAM_PATH) {
        await scoreStreams.serve(req, res, query, clientIdOf(ctx));
        return;
      }
      const match = matchRoute(routes, method, pathname);
      if (!match) throw new AppError('not-found', { detail: `No route for ${method} ${rawPath}.` });
      await serveRestRoute({ match, req, res, query, ctx });
    } catch (thrown) {
      const error = appErrorOf(thrown);
      if (res.headersSent) {
        log.error({ reqId: requestId, err: error }, 'failed after the response started');
        res.destroy();
        return;
      }
      // Headers the route earned before failing, such as its rate-limit count.
      for (const [name, value] of Object.entries(ctx?.response.headers ?? {})) res.setHeader(name, value);
      if (error instanceof AppError) {
        // The body was not read to its end: close rather than reuse the connection.
        if (error.slug === 'payload-too-large') res.setHeader('Connection', 'close');
        writeProblem(res, error, baseUrl, rawPath);
        return;
      }
      log.error({ reqId: requestId, err: error }, 'unexpected failure');
      writeProblem(res, new AppError('internal', { detail: `Quote request id ${requestId} when you report this.` }), baseUrl, rawPath);
    }
  };
}
