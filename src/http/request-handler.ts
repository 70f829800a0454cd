import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnyTRPCRouter } from '@trpc/server';
import { AppError } from '../errors/app-error.ts';
import type { ServiceContext } from '../services/service-context.ts';
import type { Context } from '../trpc.ts';
import { authenticateRequest } from './authenticate-request.ts';
import { clientAddressOf } from './client-address.ts';
import type { Logger } from './logger.ts';
import { writeProblem } from './problem-response.ts';
import { requestIdOf } from './request-id.ts';
import { serveRestRoute, toAppError } from './rest-adapter.ts';
import { buildRestRoutes, matchRoute } from './rest-routes.ts';
import { SCORE_STREAM_PATH } from './sse/score-stream-openapi.ts';
import type { ScoreStreams } from './sse/score-streams.ts';
import { serveTrpc, TRPC_PREFIX } from './trpc-endpoint.ts';

export interface RequestHandlerOptions {
  router: AnyTRPCRouter;
  service: ServiceContext;
  scoreStreams: ScoreStreams;
  /** The OpenAPI document, serialised once. */
  openApiJson: string;
  baseUrl: string;
  trustProxy: boolean;
  log: Logger;
}

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * The dispatch table. Every request is first credential-checked, then routed:
 * /api/trpc to tRPC, /api/openapi.json to the document, the score stream to
 * its SSE adapter, every REST route to its procedure, anything else to a 404
 * problem.
 */
export function createRequestHandler({ router, service, scoreStreams, openApiJson, baseUrl, trustProxy, log }: RequestHandlerOptions): RequestHandler {
  const routes = buildRestRoutes(router);

  return async (req, res) => {
    const started = performance.now();
    const requestId = requestIdOf(req);
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    const queryStart = target.indexOf('?');
    const rawPath = queryStart === -1 ? target : target.slice(0, queryStart);
    const pathname = rawPath.length > 1 ? rawPath.replace(/\/+$/, '') : rawPath;
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
        await serveTrpc({ router, req, res, pathname, createContext: async () => contextFor(await authenticateRequest(service, req)), log });
        return;
      }
      ctx = contextFor(await authenticateRequest(service, req));
      if ((method === 'GET' || method === 'HEAD') && pathname === '/api/openapi.json') {
        res.setHeader('Content-Type', 'application/json');
        res.setHeader('Content-Length', Buffer.byteLength(openApiJson));
        res.end(openApiJson);
        return;
      }
      const query = new URLSearchParams(queryStart === -1 ? '' : target.slice(queryStart + 1));
      if (method === 'GET' && pathname === SCORE_STREAM_PATH) {
        scoreStreams.serve(req, res, query);
        return;
      }
      const match = matchRoute(routes, method, pathname);
      if (!match) throw new AppError('not-found', { detail: `No route for ${method} ${rawPath}.` });
      await serveRestRoute({ router, match, req, res, query, ctx });
    } catch (thrown) {
      const error = toAppError(thrown);
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
