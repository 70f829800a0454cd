import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnyTRPCRouter } from '@trpc/server';
import { nodeHTTPRequestHandler } from '@trpc/server/adapters/node-http';
import { AppError } from '../errors/app-error.ts';
import { toTRPCError } from '../errors/trpc-error-mapping.ts';
import type { Context } from '../trpc.ts';
import type { Logger } from './logger.ts';
import { MAX_BODY_BYTES } from './read-json-body.ts';

export const TRPC_PREFIX = '/api/trpc/';

/** /api/trpc/<procedure>: tRPC's own HTTP encoding, batching and error envelope. */
export function serveTrpc(options: {
  router: AnyTRPCRouter;
  req: IncomingMessage;
  res: ServerResponse;
  pathname: string;
  createContext: () => Promise<Context>;
  log: Logger;
}): Promise<void> {
  const { router, req, res, pathname, createContext, log } = options;
  return nodeHTTPRequestHandler({
    router,
    req,
    res,
    path: pathname.slice(TRPC_PREFIX.length),
    maxBodySize: MAX_BODY_BYTES,
    createContext: async () => {
      try {
        return await createContext();
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
        throw toTRPCError(error);
      }
    },
    // The headers a procedure or its failure carries (RateLimit, Retry-After, WWW-Authenticate).
    responseMeta({ ctx, errors }) {
      const response = (ctx as Context | undefined)?.response;
      const headers: Record<string, string> = { ...response?.headers };
      if (response?.replay) headers['Idempotent-Replayed'] = 'true';
      for (const error of errors) if (error.cause instanceof AppError) Object.assign(headers, error.cause.headers);
      return { headers };
    },
    onError({ error, path }) {
      if (error.code === 'INTERNAL_SERVER_ERROR') log.error({ err: error.cause ?? error, procedure: path }, 'procedure failed');
    },
  });
}
