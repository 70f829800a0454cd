import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnyTRPCRouter } from '@trpc/server';
import { nodeHTTPRequestHandler } from '@trpc/server/adapters/node-http';
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
  createContext: () => Context;
  log: Logger;
}): Promise<void> {
  const { router, req, res, pathname, createContext, log } = options;
  return nodeHTTPRequestHandler({
    router,
    req,
    res,
    path: pathname.slice(TRPC_PREFIX.length),
    maxBodySize: MAX_BODY_BYTES,
    createContext: () => createContext(),
    onError({ error, path }) {
      if (error.code === 'INTERNAL_SERVER_ERROR') log.error({ err: error.cause ?? error, procedure: path }, 'procedure failed');
    },
  });
}
